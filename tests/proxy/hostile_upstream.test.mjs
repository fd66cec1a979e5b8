// Upstreams that misbehave on the wire (raw sockets, issue 13): a pooled
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

test('issue_13_7 a second response after a complete one never reaches the next client', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => {
    socket.write(ok('first') + ok('SECRET meant for nobody'));
  });
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.status, 200);
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.requests.length, 2);
  assert.equal(upstream.connections, 2, 'the connection with unread bytes was pooled');
});

test('issue_13_7 a stray CRLF after a response does not break the next request', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => socket.write(`${ok('first')}\r\n`));
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.status, 200);
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 2);
});

test('issue_13_7 bytes that arrive while the connection is idle in the pool retire it', async () => {
  const { first, second, upstream } = await twoClientsThroughOnePool((socket) => {
    socket.write(ok('first'));
    setTimeout(() => socket.write(ok('late SECRET')), 30);
  });
  assert.equal(first.body.toString(), 'first');
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 2);
});

test('issue_13_7 a clean keep-alive connection is still reused', async () => {
  const { second, upstream } = await twoClientsThroughOnePool((socket) => socket.write(ok('first')));
  assert.equal(second.body.toString(), 'answer to /second');
  assert.equal(upstream.connections, 1, 'a clean connection was not pooled');
});

test('issue_13_7 a tagged request never reads the previous answer's extra bytes', async () => {
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
