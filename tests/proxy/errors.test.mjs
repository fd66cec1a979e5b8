// Upstream failures become errors in the client's API shape within the
// configured timeout; a client that disconnects cancels its upstream request
// (docs/proxy.md, "Errors and timeouts").
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { parseSse, postJson, sleep, startFake, startProxy, startRawUpstream, until } from './harness.mjs';

let fake;
let proxy;

before(async () => {
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url, ['--upstream-timeout', '1', '--keepalive', '0.2']);
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const anthropicBody = (extra = {}) => ({ model: 'm__schema=router', max_tokens: 50, messages: [{ role: 'user', content: 'x' }], ...extra });
const openaiBody = (extra = {}) => ({ model: 'm__schema=router', messages: [{ role: 'user', content: 'x' }], ...extra });
const call = (extra = {}) => ({ tool_calls: [{ name: 'router', arguments: { action: 'refund' } }], ...extra });

test('upstream 500 → 502 in the client shape, with the upstream message', async () => {
  await fake.reset({ responses: [{ status: 500, error: { type: 'api_error', message: 'GPU on fire' } }] });
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicBody());
  assert.equal(a.status, 502);
  assert.equal(a.json.type, 'error');
  assert.equal(a.json.error.type, 'api_error');
  assert.equal(a.json.error.message, 'upstream answered HTTP 500: GPU on fire');
  await fake.reset({ responses: [{ status: 500, error: { message: 'GPU on fire', type: 'server_error' } }] });
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(o.status, 502);
  assert.equal(o.json.error.message, 'upstream answered HTTP 500: GPU on fire');
});

test('a FastAPI {"detail": …} error (vLLM) is the message the client sees, as in a run', async () => {
  await fake.reset({ responses: [{ status: 500, raw_body: JSON.stringify({ detail: 'KV cache exhausted' }) }] });
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(o.status, 502);
  assert.equal(o.json.error.message, 'upstream answered HTTP 500: KV cache exhausted');
  await fake.reset({ responses: [{ status: 422, raw_body: JSON.stringify({ detail: [{ loc: ['body', 'messages'], msg: 'Field required' }] }) }] });
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicBody());
  assert.equal(a.status, 422);
  assert.equal(a.json.error.message, 'upstream answered HTTP 422: body.messages: Field required');
});

test('upstream 429 keeps its status for the client', async () => {
  await fake.reset({ responses: [{ status: 429, headers: { 'retry-after': '1' } }] });
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicBody());
  assert.equal(a.status, 429);
  assert.equal(a.json.error.type, 'rate_limit_error');
});

test('refused connection → 502 for tagged and untagged requests', async () => {
  const closed = net.createServer();
  await new Promise((r) => closed.listen(0, '127.0.0.1', r));
  const port = closed.address().port;
  await new Promise((r) => closed.close(r));
  const p = await startProxy(`http://127.0.0.1:${port}`);
  try {
    const a = await postJson(`${p.url}/v1/messages`, anthropicBody());
    assert.equal(a.status, 502);
    assert.equal(a.json.error.type, 'api_error');
    assert.equal(a.json.error.message, `could not connect to the upstream 127.0.0.1:${port}: Connection refused`);
    const o = await postJson(`${p.url}/v1/chat/completions`, { model: 'plain', messages: [] });
    assert.equal(o.status, 502);
    assert.equal(o.json.error.message, `could not connect to the upstream 127.0.0.1:${port}: Connection refused`);
    const ready = await fetch(`${p.url}/readyz`);
    assert.equal(ready.status, 503);
    assert.equal((await ready.json()).status, 'not ready');
  } finally {
    await p.stop();
  }
});

test('truncated upstream stream → 502, and an error event for a started stream', async () => {
  await fake.reset({ responses: [call({ truncate_after: 3 })] });
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicBody());
  assert.equal(a.status, 502);
  assert.equal(a.json.error.message, 'the upstream closed the stream before the answer was complete');
  // Streaming client: pings started the stream, so the error comes as an SSE error event.
  await fake.reset({ responses: [call({ truncate_after: 3, delay_ms: 500 })] });
  const s = await fetch(`${proxy.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(anthropicBody({ stream: true })),
  });
  assert.equal(s.status, 200);
  const events = parseSse(await s.text());
  assert.equal(events[0].event, 'ping');
  const error = events.find((e) => e.event === 'error');
  assert.ok(error, JSON.stringify(events));
  assert.equal(error.data.error.message, 'the upstream closed the stream before the answer was complete');
});

test('stalled upstream → 504 within the configured timeout (1 s)', async () => {
  await fake.reset({ responses: [call({ stall_after: 2, stall_ms: 20000 })] });
  let started = Date.now();
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicBody());
  let elapsed = Date.now() - started;
  assert.equal(a.status, 504);
  assert.equal(a.json.error.type, 'timeout_error');
  assert.equal(a.json.error.message, 'the upstream stalled: nothing received for 1 s');
  assert.ok(elapsed >= 900 && elapsed < 4000, `${elapsed} ms`);
  await fake.reset({ responses: [{ hang: true }] });
  started = Date.now();
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  elapsed = Date.now() - started;
  assert.equal(o.status, 504);
  assert.equal(o.json.error.message, 'the upstream did not answer within 1000 ms');
  assert.ok(elapsed >= 900 && elapsed < 4000, `${elapsed} ms`);
  // Untagged: the same timeout applies.
  await fake.reset({ responses: [{ hang: true }] });
  const u = await postJson(`${proxy.url}/v1/chat/completions`, { model: 'plain', messages: [] });
  assert.equal(u.status, 504);
});

for (const tagged of [true, false]) {
  test(`client disconnect cancels the upstream request (${tagged ? 'tagged' : 'untagged'})`, async () => {
    // An upstream that accepts the request and never answers.
    const upstream = await startRawUpstream(() => {});
    const p = await startProxy(upstream.url);
    try {
      const controller = new AbortController();
      const request = fetch(`${p.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: tagged ? 'm__schema=router' : 'm', max_tokens: 5, stream: true, messages: [] }),
        signal: controller.signal,
      }).catch(() => null);
      await until(() => upstream.state.requests.length === 1, 5000, 'the upstream request');
      assert.equal(upstream.state.closed, 0);
      controller.abort();
      await request;
      await until(() => upstream.state.closed === 1, 3000, 'the upstream connection to close');
      await until(() => p.accessLogs().length === 1, 3000, 'the access log');
      assert.equal(p.accessLogs()[0].outcome, 'cancelled');
    } finally {
      await p.stop();
      upstream.stop();
    }
  });
}

test('request limits: 413 for a body over --max-body-bytes', async () => {
  const p = await startProxy(fake.url, ['--max-body-bytes', '1000']);
  try {
    const r = await postJson(`${p.url}/v1/messages`, { model: 'm', pad: 'x'.repeat(2000) });
    assert.equal(r.status, 413);
    assert.equal(r.json.error.type, 'request_too_large');
    assert.equal(r.json.error.message, 'request body is larger than 1000 bytes');
    // The whole body, in each API's error shape (the path picks the API).
    assert.equal(
      r.text,
      '{"type":"error","error":{"type":"request_too_large","message":"request body is larger than 1000 bytes"}}',
    );
    const o = await postJson(`${p.url}/v1/chat/completions`, { model: 'm', pad: 'x'.repeat(2000) });
    assert.equal(o.status, 413);
    assert.equal(
      o.text,
      '{"error":{"message":"request body is larger than 1000 bytes","type":"request_too_large","param":null,"code":null}}',
    );
  } finally {
    await p.stop();
  }
});

test('malformed JSON on a tagged route → 400 in the client shape', async () => {
  const r = await postJson(`${proxy.url}/v1/messages`, '{"model":"m__schema=router", oops}');
  assert.equal(r.status, 400);
  assert.equal(r.json.error.type, 'invalid_request_error');
  assert.match(r.json.error.message, /^request body is not valid JSON: /);
  await sleep(10);
});

// The tagged path reads upstream streams with weld's one SSE decoder
// (weld/provider/sse.h): CRLF line ends, comments, a BOM, a final event with
// no blank line after it, and a non-JSON event that must be an error.
const openaiChunk = (delta, finish = null) => ({
  id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const rawStream = (frames, lineEnd) => '\ufeff: hello\r\n' + frames.map((f) => `data: ${f}${lineEnd}${lineEnd}`).join('');

test('upstream SSE with CRLF, comments and a BOM is decoded; a final event may lack its blank line', async () => {
  const frames = [
    JSON.stringify(openaiChunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'router', arguments: '{"action":' } }] })),
    JSON.stringify(openaiChunk({ tool_calls: [{ index: 0, function: { arguments: '"refund"}' } }] })),
    JSON.stringify(openaiChunk({}, 'tool_calls')),
  ];
  await fake.reset({ responses: [{ raw_body: rawStream(frames, '\r\n'), content_type: 'text/event-stream' }] });
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(o.status, 200, JSON.stringify(o.json));
  assert.equal(o.json.choices[0].message.content, '{"action":"refund"}');
  // No blank line after the last event, and the connection closes.
  const body = rawStream(frames, '\n').replace(/\n\n$/, '\n');
  await fake.reset({ responses: [{ raw_body: body, content_type: 'text/event-stream', headers: { connection: 'close' } }] });
  const last = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(last.status, 200, JSON.stringify(last.json));
  assert.equal(last.json.choices[0].message.content, '{"action":"refund"}');
});

test('an upstream SSE event that is not JSON → 502 naming it', async () => {
  await fake.reset({ responses: [{ raw_body: 'data: {"id":\n\n', content_type: 'text/event-stream' }] });
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(o.status, 502);
  // The provider's reader names the chunk, the JSON error and its place
  // (the same message a run gives for the same stream).
  assert.equal(o.json.error.message, 'the upstream\'s answer: malformed JSON in stream chunk 1 '
    + '(unexpected end of input at line 1 column 7): "{\\"id\\":"');
});

// Where an upstream answer ends, in the three protocols (docs/protocols.md,
// "End of stream"): at its terminal event. A complete answer whose upstream
// kept the connection open was thrown away after --upstream-timeout (504);
// one that ended without its terminal event is a broken stream: 502, not
// final, so the client's SDK sends it again (as the run retries it).
const bodies = {
  '/v1/messages': (model) => ({ model, max_tokens: 50, messages: [{ role: 'user', content: 'x' }] }),
  '/v1/chat/completions': (model) => ({ model, messages: [{ role: 'user', content: 'x' }] }),
  '/v1/responses': (model) => ({ model, input: 'x' }),
};

test('the terminal event ends an upstream answer whose connection stays open (three protocols)', async () => {
  const f = await startFake({ responses: [] });
  const p = await startProxy(f.url, ['--upstream-timeout', '20']);
  try {
    for (const [route, body] of Object.entries(bodies)) {
      await f.reset({ responses: [call({ hold_open: true })] });
      const started = Date.now();
      const r = await postJson(`${p.url}${route}`, body('m__schema=router'));
      const elapsed = Date.now() - started;
      assert.equal(r.status, 200, `${route}: ${r.text}`);
      assert.match(r.text, /refund/);
      assert.ok(elapsed < 5000, `${route}: ${elapsed} ms`);
    }
  } finally {
    await p.stop();
    f.stop();
  }
});

test('an upstream stream that ends without its terminal event is a 502 the client may send again (three protocols)', async () => {
  for (const [route, body] of Object.entries(bodies)) {
    await fake.reset({ responses: [call({ end_after: 3 })] });
    const r = await postJson(`${proxy.url}${route}`, body('m__schema=router'));
    assert.equal(r.status, 502, `${route}: ${r.text}`);
    assert.match(r.json.error.message, /^the upstream's answer: the response stream ended early: /);
    assert.equal(r.headers.get('x-should-retry'), null);  // not final: temporary, like a 5xx
  }
});

// One rule for what is worth sending again (the run's, docs/protocols.md
// "Errors and retries"): an upstream status weld would not retry reaches the
// client as final, so its SDK does not retry it either.
test('upstream statuses weld would not retry are final for the client; the others are not', async () => {
  for (const [status, final] of [[501, true], [409, true], [400, true], [503, false], [429, false], [401, false]]) {
    await fake.reset({ responses: [{ status }] });
    const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
    assert.equal(r.headers.get('x-should-retry'), final ? 'false' : null, `upstream ${status} → ${r.status}`);
  }
});

// An error page is one line of its text, never the page.
test('an upstream HTML error page is named by its title', async () => {
  await fake.reset({ responses: [{ status: 502, content_type: 'text/html',
    raw_body: '<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n</body>\n</html>\n' }] });
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiBody());
  assert.equal(r.status, 502);
  assert.equal(r.json.error.message, 'upstream answered HTTP 502: an HTML page: 502 Bad Gateway');
});
