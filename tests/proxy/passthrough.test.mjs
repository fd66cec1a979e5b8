// Untagged requests pass through byte-for-byte, streaming included (docs/proxy.md, "Tagging a request").
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseRawResponse, rawExchange, sleep, startFake, startProxy, startRawUpstream } from './harness.mjs';

// An upstream answer with odd bytes, non-ASCII UTF-8 and a custom header, sent as
// a chunked SSE stream in pieces with pauses (split inside lines and UTF-8 sequences).
const sseBody = Buffer.from(
  'event: message_start\ndata: {"type":"message_start","x":"h\u00e9llo \u4e16\u754c"}\n\n' +
    ': a comment line\n\nevent: ping\ndata: {"type": "ping"}\n\n' +
    'data: {"odd":"spacing" ,  "k":[1,2 ,3]}\n\n',
  'utf8',
);
const jsonBody = Buffer.from('{"b": 2,   "a":[true, null],"s":"\\u00e9 \u00e9"}\n', 'utf8');

let upstream;
let proxy;

before(async () => {
  upstream = await startRawUpstream(async (socket, request) => {
    if (request.head.startsWith('POST /stream')) {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Upstream: yes\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let at = 0; at < sseBody.length; at += 13) {
        const piece = sseBody.subarray(at, at + 13);
        socket.write(piece.length.toString(16) + '\r\n');
        socket.write(piece);
        socket.write('\r\n');
        await sleep(5);
      }
      socket.write('0\r\n\r\n');
    } else if (request.head.startsWith('POST /slow-stream')) {
      // First event now, the second after a pause: the client must get the
      // first before the upstream sends the second (no buffering).
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n');
      socket.write('a\r\ndata: one\n\r\n');
      await sleep(1500);
      socket.write('a\r\ndata: two\n\r\n0\r\n\r\n');
    } else if (request.head.startsWith('POST /echo')) {
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${request.body.length}\r\n\r\n`);
      socket.write(request.body);
    } else if (request.head.startsWith('POST /hop')) {
      // Hop-by-hop headers of the upstream's answer are the proxy's business only.
      socket.write(
        'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nKeep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\n' +
          `Upgrade: h2c\r\nTrailer: X-T\r\nX-End-To-End: kept\r\nContent-Length: ${jsonBody.length}\r\n\r\n`,
      );
      socket.write(jsonBody);
    } else {
      socket.write(`HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nX-Upstream: yes\r\nContent-Length: ${jsonBody.length}\r\n\r\n`);
      socket.write(jsonBody);
    }
  });
  proxy = await startProxy(upstream.url);
});

after(async () => {
  await proxy.stop();
  upstream.stop();
});

test('request bytes reach the upstream unchanged (headers and body)', async () => {
  const body = Buffer.from('{"model":"m",  "messages":[{"role":"user","content":"h\u00e9"}], "weird": 1e5}', 'utf8');
  const head =
    'POST /v1/messages?beta=true HTTP/1.1\r\nHost: client.example\r\nContent-Type: application/json\r\n' +
    `X-Api-Key: secret-key\r\nAnthropic-Version: 2023-06-01\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  const before = upstream.state.requests.length;
  const response = parseRawResponse(await rawExchange(proxy.port, Buffer.concat([Buffer.from(head), body])));
  assert.equal(response.status, 201);
  assert.deepEqual(response.body, jsonBody);
  assert.equal(response.headers['x-upstream'], 'yes');
  const received = upstream.state.requests[before];
  assert.deepEqual(received.body, body);
  assert.match(received.head, /^POST \/v1\/messages\?beta=true HTTP\/1\.1\r\n/);
  assert.match(received.head, /\r\nX-Api-Key: secret-key\r\n/);
  assert.match(received.head, /\r\nAnthropic-Version: 2023-06-01\r\n/);
  assert.match(received.head, new RegExp(`\\r\\nHost: 127\\.0\\.0\\.1:${upstream.port}\\r\\n`));
  // The API key never reaches the access log.
  await sleep(50);
  assert.ok(!proxy.logs.join('\n').includes('secret-key'));
  const entry = proxy.accessLogs().find((e) => e.path === '/v1/messages' && e.status === 201);
  assert.ok(entry, proxy.logs.join('\n'));
  assert.equal(entry.agent, null);
  assert.equal(entry.outcome, 'passthrough');
  assert.equal(entry.method, 'POST');
});

test('a long conversation passes both ways byte-for-byte, and the connection serves the next request', async () => {
  // ~600 KB each way: many reads of the client's body and of the upstream's
  // answer; then a second request pipelined behind it on the same connection.
  const turns = [];
  for (let i = 0; i < 1200; i++) turns.push({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} h\u00e9 ` + 'x'.repeat(480) });
  const big = Buffer.from(JSON.stringify({ model: 'm', messages: turns }), 'utf8');
  const small = Buffer.from('{"model":"m","messages":[]}');
  const request = (body, close) =>
    Buffer.concat([
      Buffer.from(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        (close ? 'Connection: close\r\n' : '') + '\r\n'),
      body,
    ]);
  const before = upstream.state.requests.length;
  const raw = await rawExchange(proxy.port, Buffer.concat([request(big, false), request(small, true)]), 10000);
  const first = parseRawResponse(raw);
  assert.equal(first.status, 200);
  const firstLength = Number(first.headers['content-length']);
  assert.equal(firstLength, big.length);
  assert.ok(first.body.subarray(0, firstLength).equals(big), 'the long answer reached the client changed');
  const second = parseRawResponse(first.body.subarray(firstLength));
  assert.equal(second.status, 200);
  assert.deepEqual(second.body, small);
  assert.ok(upstream.state.requests[before].body.equals(big), 'the long request reached the upstream changed');
  assert.deepEqual(upstream.state.requests[before + 1].body, small);
});

test('hop-by-hop headers are dropped both ways, end-to-end ones kept (RFC 9110 7.6.1)', async () => {
  const body = Buffer.from('{"model":"m"}');
  const head =
    'POST /hop HTTP/1.1\r\nHost: client.example\r\nContent-Type: application/json\r\nKeep-Alive: timeout=9\r\n' +
    'Proxy-Connection: keep-alive\r\nTE: trailers\r\nUpgrade: websocket\r\nProxy-Authorization: Basic c2VjcmV0\r\n' +
    'X-Private: drop-me\r\nConnection: X-Private, close\r\nX-End-To-End: kept\r\n' +
    `Content-Length: ${body.length}\r\n\r\n`;
  const before = upstream.state.requests.length;
  const response = parseRawResponse(await rawExchange(proxy.port, Buffer.concat([Buffer.from(head), body])));
  assert.equal(response.status, 200);
  assert.deepEqual(response.body, jsonBody);
  const sent = upstream.state.requests[before].head.toLowerCase();
  for (const name of ['keep-alive', 'proxy-connection', 'te', 'upgrade', 'proxy-authorization', 'x-private']) {
    assert.ok(!sent.includes(`\r\n${name}:`), `${name} reached the upstream:\n${sent}`);
  }
  assert.match(sent, /\r\nx-end-to-end: kept\r\n/);
  assert.match(sent, /\r\ncontent-type: application\/json\r\n/);
  for (const name of ['keep-alive', 'proxy-connection', 'upgrade', 'trailer']) {
    assert.equal(response.headers[name], undefined, `${name} reached the client`);
  }
  assert.equal(response.headers['x-end-to-end'], 'kept');
});

test('a chunked SSE stream is relayed byte-for-byte', async () => {
  const head = 'POST /stream HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}';
  const response = parseRawResponse(await rawExchange(proxy.port, head));
  assert.equal(response.status, 200);
  assert.equal(response.headers['content-type'], 'text/event-stream');
  assert.equal(response.headers['x-upstream'], 'yes');
  assert.ok(response.complete);
  assert.deepEqual(response.body, sseBody);
});

test('stream pieces are relayed as they arrive, not buffered', async () => {
  const started = Date.now();
  const r = await fetch(`${proxy.url}/slow-stream`, { method: 'POST', body: '{}' });
  const reader = r.body.getReader();
  const first = await reader.read();
  const firstAt = Date.now() - started;
  assert.equal(Buffer.from(first.value).toString(), 'data: one\n');
  assert.ok(firstAt < 1200, `first piece after ${firstAt} ms`);
  let rest = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += Buffer.from(value).toString();
  }
  assert.equal(rest, 'data: two\n');
});

test('GET /v1/models and unknown paths go to the fake model server', async () => {
  const fake = await startFake({ responses: [{ text: 'hi' }] });
  const p = await startProxy(fake.url);
  try {
    const models = await fetch(`${p.url}/v1/models`);
    assert.equal(models.status, 200);
    assert.deepEqual((await models.json()).data.map((m) => m.id), ['fake-model']);
    const missing = await fetch(`${p.url}/nope/here`);
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /no route GET \/nope\/here/);
    // An untagged streaming request through the real SSE generator.
    const stream = await fetch(`${p.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    const text = await stream.text();
    assert.match(text, /"content":"hi"/);
    assert.ok(text.endsWith('data: [DONE]\n\n'));
    const received = await fake.requests();
    assert.deepEqual(received.map((r) => r.path), ['/v1/models', '/nope/here', '/v1/chat/completions']);
    assert.equal(received[2].body.model, 'm');
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('keep-alive: several requests on one connection', async () => {
  const one = 'GET /a HTTP/1.1\r\nHost: x\r\n\r\n';
  const two = 'GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n';
  const before = upstream.state.requests.length;
  const raw = (await rawExchange(proxy.port, one + two)).toString();
  assert.equal(raw.match(/HTTP\/1\.1 201 Created/g).length, 2);
  assert.deepEqual(upstream.state.requests.slice(before).map((r) => r.head.split(' ')[1]), ['/a', '/b']);
});
