// Upstreams that misbehave on the wire (raw sockets): a pooled
// connection never carries one request's bytes into another's answer, a
// tagged answer is capped, and an endless stream of SSE comments is a stall.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseRawResponse, postJson, rawExchange, sleep, startProxy, startRawUpstream, until } from './harness.mjs';

const ok = (body) => `HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n\r\n${body}`;

// One upstream connection serves both clients (--threads 1: one pool); each
// request's path names the answer the upstream gives it.
async function twoClientsThroughOnePool(firstAnswer) {
  const upstream = await startRawUpstream((socket, request) => {
    if (request.head.startsWith('GET /first ')) firstAnswer(socket);
    else socket.write(ok(`answer to ${request.head.split(' ')[1]}`));
  });
  const proxy = await startProxy(upstream.url, ['--threads', '1']);
  try {
    const first = parseRawResponse(await rawExchange(proxy.port, 'GET /first HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    await sleep(100);  // whatever the upstream sends late has arrived
    const second = parseRawResponse(await rawExchange(proxy.port, 'GET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    return { first, second, upstream: upstream.state };
  } finally {
    await proxy.stop();
    upstream.stop();
  }
}

test('a second response after a complete one never reaches the next client', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => {
    socket.write(ok('first') + ok('SECRET meant for nobody'));
  });
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.status, 200);
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.requests.length, 2);
  assert.equal(upstream.connections, 2, 'the connection with unread bytes was pooled');
});

test('a stray CRLF after a response does not break the next request', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => socket.write(`${ok('first')}\r\n`));
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.status, 200);
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 2);
});

test('bytes that arrive while the connection is idle in the pool retire it', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => {
    socket.write(ok('first'));
    setTimeout(() => socket.write(ok('late SECRET')), 30);
  });
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 2);
});

test('a clean keep-alive connection is still reused', async () => {
  const { second, upstream } = await twoClientsThroughOnePool((socket) => socket.write(ok('first')));
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 1, 'a clean connection was not pooled');
});

test("a tagged request never reads the previous answer's extra bytes", async () => {
  const toolAnswer = (action) => JSON.stringify({
    id: 'msg_1', type: 'message', role: 'assistant', model: 'm', stop_reason: 'tool_use',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'router', input: { action } }],
    usage: { input_tokens: 1, output_tokens: 1 },
  });
  const json = (body) => `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  let calls = 0;
  const upstream = await startRawUpstream((socket) => {
    calls++;
    if (calls === 1) socket.write(json(toolAnswer('search')) + json(toolAnswer('refund')));
    else socket.write(json(toolAnswer('translate')));
  });
  const proxy = await startProxy(upstream.url, ['--threads', '1']);
  try {
    const ask = { model: 'm__schema=router', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] };
    const a = await postJson(`${proxy.url}/v1/messages`, ask);
    assert.equal(a.json.content[0].text, '{"action":"search"}');
    const b = await postJson(`${proxy.url}/v1/messages`, ask);
    assert.equal(b.json.content[0].text, '{"action":"translate"}');
    assert.equal(upstream.state.connections, 2);
  } finally {
    await proxy.stop();
    upstream.stop();
  }
});

test('interim 1xx answers are read past: the client gets the response to its request', async () => {
  const upstream = await startRawUpstream((socket) => {
    socket.write('HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n');
    setTimeout(() => socket.write(ok('the answer')), 20);
  });
  const proxy = await startProxy(upstream.url);
  try {
    const response = parseRawResponse(await rawExchange(proxy.port, 'GET /v1/models HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), 'the answer');
  } finally {
    await proxy.stop();
    upstream.stop();
  }
});

// Anthropic stream events of a tool call whose arguments never end.
const sseHead = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
const chunk = (text) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const sseEvent = (type, data) => chunk(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
const toolStart = sseEvent('message_start', { message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 0 } } }) +
  sseEvent('content_block_start', { index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'router', input: {} } });

// Writes `piece` until the proxy closes the connection (or 30 s pass).
function floodUntilClosed(socket, piece) {
  const until = Date.now() + 30000;
  const more = () => {
    while (!socket.destroyed && Date.now() < until) {
      if (!socket.write(piece)) {
        socket.once('drain', more);
        return;
      }
    }
  };
  more();
}

test('a tagged answer over --max-response-bytes is a final 502 naming the limit', async () => {
  const upstream = await startRawUpstream((socket, request) => {
    if (request.body.includes('"stream":true')) {
      socket.write(sseHead + toolStart);
      floodUntilClosed(socket, sseEvent('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: 'a'.repeat(4000) } }));
    } else {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n{"a":"');
      floodUntilClosed(socket, 'a'.repeat(16384));
    }
  });
  const proxy = await startProxy(upstream.url, ['--max-response-bytes', '1000000']);
  try {
    const ask = { model: 'm__schema=router', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] };
    for (const stream of [false, true]) {
      const r = await postJson(`${proxy.url}/v1/messages`, { ...ask, stream });
      assert.equal(r.status, 502, r.text);
      assert.equal(r.headers.get('x-should-retry'), 'false');
      assert.deepEqual(r.json, { type: 'error', error: { type: 'api_error', message: "the upstream's answer is over 1000000 bytes (--max-response-bytes)" } });
    }
    await sleep(100);
    assert.deepEqual(proxy.accessLogs().map((l) => l.outcome), ['response_too_large', 'response_too_large']);
  } finally {
    await proxy.stop();
    upstream.stop();
  }
});

test('an endless stream of SSE comments is a stall, not progress', async () => {
  const upstream = await startRawUpstream((socket) => {
    socket.write(sseHead + toolStart);
    const timer = setInterval(() => (socket.destroyed ? clearInterval(timer) : socket.write(chunk(': still thinking\n\n'))), 100);
  });
  const proxy = await startProxy(upstream.url, ['--upstream-timeout', '1']);
  try {
    const started = Date.now();
    const r = await postJson(`${proxy.url}/v1/messages`, { model: 'm__schema=router', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(r.status, 504);
    assert.equal(r.json.error.message, 'the upstream stalled: nothing but SSE comments for 1 s');
    assert.ok(Date.now() - started < 10000);
  } finally {
    await proxy.stop();
    upstream.stop();
  }
});

test('a request still in flight when --shutdown-timeout ends gets a 503 in its API shape', async () => {
  const upstream = await startRawUpstream(() => {});  // never answers
  const proxy = await startProxy(upstream.url, ['--shutdown-timeout', '0.3']);
  try {
    const tagged = postJson(`${proxy.url}/v1/messages`, { model: 'm__schema=router', max_tokens: 20, messages: [{ role: 'user', content: 'x' }] });
    const untagged = postJson(`${proxy.url}/v1/chat/completions`, { model: 'plain', messages: [] });
    await until(() => upstream.state.requests.length === 2, 5000, 'both requests upstream');
    proxy.child.kill('SIGTERM');
    const [a, o] = await Promise.all([tagged, untagged]);
    const message = 'weld proxy is shutting down: the request did not finish within the shutdown timeout (--shutdown-timeout)';
    assert.equal(a.status, 503);
    assert.deepEqual(a.json, { type: 'error', error: { type: 'api_error', message } });
    assert.equal(o.status, 503);
    assert.equal(o.json.error.message, message);
    assert.equal(await proxy.exited, 0);
    assert.deepEqual(proxy.accessLogs().map((l) => [l.status, l.outcome]), [[503, 'shutting_down'], [503, 'shutting_down']]);
  } finally {
    await proxy.stop();
    upstream.stop();
  }
});
