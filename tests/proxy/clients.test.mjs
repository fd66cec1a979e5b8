// What a proxy client sees (docs/proxy.md, "What the client is told"): the x-weld-agent / x-weld-attempts /
// x-weld-repairs response headers read through the official SDKs'
// .withResponse(), and an agent's passthrough_when letting a client's side
// requests through untouched (the Qwen Code trap: its follow-up checks use
// the main request's tagged model).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { postJson, startSdkProxy } from './harness.mjs';

const REGISTRY = {
  router: {
    description: 'Pick one action.',
    input_schema: { type: 'object', properties: { action: { type: 'string', enum: ['search', 'refund'] } }, required: ['action'] },
    max_retries: 2,
    passthrough_when: { system_contains: ['decide who speaks next'], max_tokens_below: 64 },
  },
};

let weld;  // {fake, proxy, anthropic, openai}
before(async () => { weld = await startSdkProxy(REGISTRY); });
after(() => weld.stop());

const routerCall = (args) => ({ tool_calls: [{ name: 'router', arguments: args }] });
const question = [{ role: 'user', content: 'Refund my order' }];

test('anthropic SDK .withResponse(): x-weld-* headers after a retry and a repair', async () => {
  // An invalid answer, then one that needs a repair (trailing comma).
  await weld.fake.reset({ responses: [routerCall({ action: 'cancel' }), routerCall('{"action":"refund",}')] });
  const { data, response } = await weld.anthropic.messages
    .create({ model: 'qwen__schema=router', max_tokens: 200, messages: question })
    .withResponse();
  assert.deepEqual(JSON.parse(data.content[0].text), { action: 'refund' });
  assert.equal(response.headers.get('x-weld-agent'), 'router');
  assert.equal(response.headers.get('x-weld-attempts'), '2');
  assert.equal(response.headers.get('x-weld-repairs'), '1');
});

test('openai SDK .withResponse(): x-weld-* headers on a first-try answer, plain and streamed', async () => {
  await weld.fake.reset({ responses: [routerCall({ action: 'search' }), routerCall({ action: 'search' })] });
  const plain = await weld.openai.chat.completions.create({ model: 'qwen__schema=router', messages: question }).withResponse();
  assert.equal(plain.data.choices[0].message.content, '{"action":"search"}');
  assert.equal(plain.response.headers.get('x-weld-agent'), 'router');
  assert.equal(plain.response.headers.get('x-weld-attempts'), '1');
  assert.equal(plain.response.headers.get('x-weld-repairs'), '0');
  const streamed = await weld.openai.chat.completions
    .create({ model: 'qwen__schema=router', messages: question, stream: true })
    .withResponse();
  let text = '';
  for await (const chunk of streamed.data) text += chunk.choices[0]?.delta?.content ?? '';
  assert.equal(text, '{"action":"search"}');
  assert.equal(streamed.response.headers.get('x-weld-attempts'), '1');
});

test('a welded error carries the headers too; untagged requests carry none', async () => {
  await weld.fake.reset({ responses: [routerCall({ action: 'x' }), routerCall({ action: 'y' }), routerCall({ action: 'z' })] });
  const failed = await postJson(`${weld.proxy.url}/v1/messages`, { model: 'q__schema=router', max_tokens: 300, messages: question });
  assert.equal(failed.status, 502);
  assert.equal(failed.headers.get('x-weld-attempts'), '3');
  assert.equal(failed.headers.get('x-weld-agent'), 'router');
  await weld.fake.reset({ responses: [{ text: 'hello' }] });
  const plain = await postJson(`${weld.proxy.url}/v1/messages`, { model: 'q', max_tokens: 50, messages: question });
  assert.equal(plain.status, 200);
  assert.equal(plain.headers.get('x-weld-agent'), null);
});

test('passthrough_when: a side request with the tagged model reaches the upstream untouched, tag removed', async () => {
  await weld.fake.reset({ responses: [{ text: '{"next_speaker":"user"}' }, { text: 'short' }, routerCall({ action: 'refund' })] });
  // Qwen Code-style follow-up check: its own system prompt.
  const side = {
    model: 'qwen3__schema=router',
    max_tokens: 1024,
    messages: [{ role: 'system', content: 'Analyze the conversation and decide who speaks next.' }, ...question],
    response_format: { type: 'json_object' },
  };
  const a = await postJson(`${weld.proxy.url}/v1/chat/completions`, side);
  assert.equal(a.status, 200, a.text);
  assert.equal(a.json.choices[0].message.content, '{"next_speaker":"user"}');
  assert.equal(a.headers.get('x-weld-agent'), null, 'not welded');
  // A small output limit.
  const b = await postJson(`${weld.proxy.url}/v1/messages`, { model: 'qwen3__schema=router', max_tokens: 20, messages: question });
  assert.equal(b.status, 200, b.text);
  assert.equal(b.json.content[0].text, 'short');
  // The main request is still welded.
  const c = await postJson(`${weld.proxy.url}/v1/messages`, { model: 'qwen3__schema=router', max_tokens: 500, messages: question });
  assert.equal(c.json.content[0].text, '{"action":"refund"}');
  const sent = (await weld.fake.requests()).filter((r) => r.method === 'POST');
  assert.equal(sent.length, 3);
  // Untouched: same body as the client's but for the model.
  assert.deepEqual(sent[0].body, { ...side, model: 'qwen3' });
  assert.equal(sent[0].body.tools, undefined);
  assert.deepEqual(sent[1].body, { model: 'qwen3', max_tokens: 20, messages: question });
  assert.equal(sent[2].body.tool_choice.name, 'router');
  const metrics = await (await fetch(`${weld.proxy.url}/metrics`)).text();
  assert.match(metrics, /weld_proxy_requests_total\{agent="router",outcome="bypassed"\} 2/);
  const logs = weld.proxy.accessLogs().filter((l) => l.outcome === 'bypassed');
  assert.equal(logs.length, 2);
  assert.equal(logs[0].agent, 'router');
});
