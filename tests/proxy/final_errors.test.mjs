// weld's own final answers (docs/proxy.md, "Errors and timeouts"): `x-should-retry: false`,
// so one SDK call makes one proxy request, with the SDKs' default retries on;
// and a failure after a stream started carries what the plain error carries.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseSse, postJson, sdkClients, sleep, startFake, startProxy } from './harness.mjs';

let fake;
let proxy;
let anthropic;
let openai;

before(async () => {
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url, ['--keepalive', '0.1']);
  // The SDKs' default retry count (2), as users run them.
  ({ anthropic, openai } = sdkClients(proxy.url));
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const question = [{ role: 'user', content: 'Which action?' }];
const routerCall = (action, extra = {}) => ({ tool_calls: [{ name: 'router', arguments: { action } }], ...extra });
// Enough invalid answers for three proxy requests of three attempts each.
const alwaysInvalid = () => ({ responses: Array.from({ length: 9 }, (_, idx) => routerCall(`dance${idx}`)) });
const proxyRequests = () => proxy.accessLogs().filter((l) => l.path.endsWith('/messages') || l.path.endsWith('/completions')).length;

async function oneCall(call) {
  const before = proxyRequests();
  let error;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  await sleep(100);  // the access log is flushed
  return { error, requests: proxyRequests() - before, upstream: (await fake.requests()).length };
}

test('anthropic SDK: a structured-output failure is one proxy request', async () => {
  await fake.reset(alwaysInvalid());
  const r = await oneCall(() => anthropic.messages.create({ model: 'q__schema=router', max_tokens: 10, messages: question }));
  assert.equal(r.error?.status, 502);
  assert.equal(r.error.error.error.type, 'structured_output_error');
  assert.equal(r.requests, 1, 'the SDK retried weld\'s final answer');
  assert.equal(r.upstream, 3);
});

test('openai SDK: a structured-output failure is one proxy request', async () => {
  await fake.reset(alwaysInvalid());
  const r = await oneCall(() => openai.chat.completions.create({ model: 'q__schema=router', messages: question }));
  assert.equal(r.error?.status, 502);
  assert.equal(r.error.type, 'structured_output_error');
  assert.equal(r.requests, 1, 'the SDK retried weld\'s final answer');
  assert.equal(r.upstream, 3);
});

test('final answers carry x-should-retry: false; upstream failures do not', async () => {
  await fake.reset({ responses: [] });
  const unknown = await postJson(`${proxy.url}/v1/messages`, { model: 'q__schema=nobody', max_tokens: 10, messages: question });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.headers.get('x-should-retry'), 'false');
  await fake.reset(alwaysInvalid());
  const invalid = await postJson(`${proxy.url}/v1/chat/completions`, { model: 'q__schema=router', messages: question });
  assert.equal(invalid.status, 502);
  assert.equal(invalid.headers.get('x-should-retry'), 'false');
  // An upstream 500 may well pass: the client's retry is the client's call.
  await fake.reset({ responses: [{ status: 500, error: { type: 'api_error', message: 'GPU on fire' } }] });
  const upstream = await postJson(`${proxy.url}/v1/messages`, { model: 'q__schema=router', max_tokens: 10, messages: question });
  assert.equal(upstream.status, 502);
  assert.equal(upstream.headers.get('x-should-retry'), null);
});

test('the SSE error event after the stream started equals the plain error', async () => {
  const ask = { model: 'q__schema=router', max_tokens: 10, messages: question };
  await fake.reset(alwaysInvalid());
  const plain = await postJson(`${proxy.url}/v1/messages`, ask);
  assert.equal(plain.status, 502);
  // Slow answers: pings start the stream before the verdict.
  await fake.reset({ responses: Array.from({ length: 3 }, (_, idx) => routerCall(`dance${idx}`, { delay_ms: 150 })) });
  const streamed = await fetch(`${proxy.url}/v1/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...ask, stream: true }),
  });
  assert.equal(streamed.status, 200);
  assert.equal(streamed.headers.get('x-should-retry'), null);
  const events = parseSse(await streamed.text());
  assert.equal(events[0].event, 'ping');
  const error = events.find((e) => e.event === 'error');
  assert.ok(error, JSON.stringify(events));
  assert.deepEqual(error.data, plain.json);
  assert.equal(error.data.error.candidate.action, 'dance2');
  // OpenAI: the data chunk holds the same body as the plain error.
  await fake.reset(alwaysInvalid());
  const openaiAsk = { model: 'q__schema=router', messages: question };
  const openaiPlain = await postJson(`${proxy.url}/v1/chat/completions`, openaiAsk);
  await fake.reset({ responses: Array.from({ length: 3 }, (_, idx) => routerCall(`dance${idx}`, { delay_ms: 150 })) });
  const openaiStream = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...openaiAsk, stream: true }),
  });
  const chunks = parseSse(await openaiStream.text()).filter((e) => e.data !== undefined);
  assert.deepEqual(chunks.at(-1).data, openaiPlain.json);
});
