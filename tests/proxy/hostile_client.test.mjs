// Clients that send what RFC 9112 forbids or a proxy must not trust (issue
// 13.9, 13.11): trailers never count as header fields, ambiguous framing is
// refused with a 400 naming why, and no request target leaves the upstream's
// path prefix. Raw sockets, so the bytes are exactly these.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseRawResponse, rawExchange, sleep, startProxy, startRawUpstream } from './harness.mjs';

let upstream;
let proxy;

before(async () => {
  upstream = await startRawUpstream((socket, request) => {
    const body = JSON.stringify({ path: request.head.split(' ')[1] });
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  });
  proxy = await startProxy(`${upstream.url}/prefix`);
});
after(async () => {
  await proxy.stop();
  upstream.stop();
});

const send = async (bytes) => parseRawResponse(await rawExchange(proxy.port, bytes));
const errorOf = (response) => JSON.parse(response.body.toString()).error;

test('trailer fields never reach the upstream nor tag a request', async () => {
  const before = upstream.state.requests.length;
  const body = '{"model":"plain","messages":[]}';
  const response = await send(
    'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n' +
      `Connection: close\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n` +
      'X-Agent-Name: router\r\nAuthorization: Bearer trailer-secret\r\n\r\n',
  );
  assert.equal(response.status, 200);
  const sent = upstream.state.requests[before];
  assert.equal(sent.body.toString(), body, 'the request was welded (a trailer tagged it)');
  assert.doesNotMatch(sent.head.toLowerCase(), /authorization|x-agent-name|trailer-secret/);
});

test('Transfer-Encoding with Content-Length is a 400, in either order', async () => {
  const before = upstream.state.requests.length;
  for (const fields of ['Transfer-Encoding: gzip\r\nContent-Length: 5', 'Content-Length: 5\r\nTransfer-Encoding: gzip',
    'Transfer-Encoding: chunked\r\nContent-Length: 5', 'Content-Length: 5\r\nTransfer-Encoding: chunked']) {
    const response = await send(`POST /v1/models HTTP/1.1\r\nHost: x\r\n${fields}\r\n\r\n0\r\n\r\n`);
    assert.equal(response.status, 400, fields);
    assert.equal(response.headers.connection, 'close');
    assert.equal(errorOf(response).message, 'malformed HTTP request: Transfer-Encoding together with Content-Length', fields);
  }
  assert.equal(upstream.state.requests.length, before);
});

test('a Transfer-Encoding other than chunked is refused', async () => {
  const gzip = await send('POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc');
  assert.equal(gzip.status, 400);
  assert.equal(errorOf(gzip).message,
    'malformed HTTP request: Transfer-Encoding "gzip" does not end with chunked (the body length is unknown)');
  const layered = await send('POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n');
  assert.equal(layered.status, 501);
  assert.equal(errorOf(layered).message, 'Transfer-Encoding "gzip, chunked" is not supported: only chunked');
});

test('a chunk size that overflows gets a 400, not a bare close', async () => {
  const response = await send('POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1ffffffffffffffff\r\nx\r\n');
  assert.equal(response.status, 400);
  assert.equal(errorOf(response).message, 'malformed HTTP request body: bad chunk');
});

test('an endless chunk header or trailer section is refused, not buffered', async () => {
  const line = 'x'.repeat(256 << 10);
  const extension = await send(`POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1;${line}`);
  assert.equal(extension.status, 400);
  assert.match(errorOf(extension).message, /^malformed HTTP request body: a chunk header or the trailers are over \d+ bytes$/);
  const trailers = await send(`POST /v1/models HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-A: ${line}`);
  assert.equal(trailers.status, 400);
});

test('an absolute-form target is forwarded under the prefix', async () => {
  const response = await send('GET http://elsewhere.example:81/v1/models?x=1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.equal(response.status, 200);
  assert.deepEqual(JSON.parse(response.body.toString()), { path: '/prefix/v1/models?x=1' });
});

test('dot segments, plain or encoded, never escape the prefix', async () => {
  const before = upstream.state.requests.length;
  for (const target of ['/../admin', '/v1/../../admin', '/v1/%2e%2e/admin', '/v1/.%2E/admin', '/v1/%252e%252e/admin',
    '/v1/..%2fadmin', '/v1/..\\admin', '/./v1', 'http://h/../admin', '*', 'elsewhere.example:443']) {
    const response = await send(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.equal(response.status, 400, target);
    assert.match(errorOf(response).message, /^request target /, target);
  }
  assert.equal(upstream.state.requests.length, before);
  // Dots inside a segment and in the query are not segments.
  const fine = await send('GET /v1/models/a..b/.well-known?q=../x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
  assert.deepEqual(JSON.parse(fine.body.toString()), { path: '/prefix/v1/models/a..b/.well-known?q=../x' });
});

const badRequests = async () => {
  const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
  assert.doesNotMatch(metrics, /outcome="ok"/);
  return Number(/weld_proxy_requests_total\{agent="",outcome="bad_request"\} (\d+)\n/.exec(metrics)?.[1] ?? 0);
};

test('a tagged request with a body that is not JSON is counted as bad_request', async () => {
  const before = await badRequests();
  const body = '{"model":"m__schema=router", nope';
  const response = await send(`POST /v1/messages HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  assert.equal(response.status, 400);
  assert.equal(response.headers['x-should-retry'], 'false');
  await sleep(100);
  const line = proxy.accessLogs().findLast((l) => l.path === '/v1/messages');
  assert.equal(line.status, 400);
  assert.equal(line.outcome, 'bad_request');
  assert.equal(await badRequests(), before + 1);
});
