// The official SDKs (npm `openai`, `@anthropic-ai/sdk`) talking to weld proxy:
// plain and streaming calls, stream helpers, keep-alive pings, errors.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sdkClients, startFake, startProxy } from './harness.mjs';

let fake;
let proxy;
let anthropic;
let openai;

before(async () => {
  fake = await startFake({ responses: [] });
  // Short keep-alive interval so the stream tests see pings/comments.
  proxy = await startProxy(fake.url, ['--keepalive', '0.2']);
  ({ anthropic, openai } = sdkClients(proxy.url, { maxRetries: 0 }));
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const briefArgs = { options: [{ label: 'use RE2', confidence: 0.8, reason: 'linear time' }], summary: 'Use RE2.' };
const briefCall = (extra = {}) => ({ tool_calls: [{ name: 'brief', arguments: briefArgs }], ...extra });
const question = [{ role: 'user', content: 'Which regex engine?' }];

test('anthropic SDK: messages.create on a tagged model returns the JSON as text', async () => {
  await fake.reset({ responses: [briefCall()] });
  const message = await anthropic.messages.create({ model: 'qwen__schema=brief', max_tokens: 200, messages: question });
  assert.equal(message.stop_reason, 'end_turn');
  assert.equal(message.content.length, 1);
  assert.equal(message.content[0].type, 'text');
  assert.deepEqual(JSON.parse(message.content[0].text), briefArgs);
  assert.equal(message.model, 'qwen__schema=brief');
  const [sent] = await fake.requests();
  // The SDK's credentials reach the upstream (X-Api-Key or Authorization, by SDK version).
  assert.ok(sent.headers['x-api-key'] === 'sk-ant-test-key' || sent.headers.authorization === 'Bearer sk-ant-test-key',
    JSON.stringify(sent.headers));
  assert.equal(sent.body.model, 'qwen');
});

test('anthropic SDK: messages.stream helper, with pings while the upstream is slow', async () => {
  await fake.reset({ responses: [briefCall({ delay_ms: 900 })] });
  const stream = anthropic.messages.stream({ model: 'qwen__schema=brief', max_tokens: 200, messages: question });
  let text = '';
  stream.on('text', (delta) => (text += delta));
  const final = await stream.finalMessage();
  assert.deepEqual(JSON.parse(text), briefArgs);
  assert.equal(final.stop_reason, 'end_turn');
  assert.deepEqual(JSON.parse(final.content[0].text), briefArgs);
});

test('anthropic SDK: raw stream events include pings before the answer', async () => {
  await fake.reset({ responses: [briefCall({ delay_ms: 700 })] });
  const response = await fetch(`${proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'q__schema=brief', max_tokens: 100, stream: true, messages: question }),
  });
  const body = await response.text();
  assert.ok(body.startsWith('event: ping\n'), body.slice(0, 100));
  assert.ok(body.includes('event: message_stop'));
});

test('openai SDK: chat.completions.create with the X-Agent-Name header', async () => {
  await fake.reset({ responses: [briefCall()] });
  const completion = await openai.chat.completions.create(
    { model: 'qwen', messages: question },
    { headers: { 'X-Agent-Name': 'brief' } },
  );
  assert.equal(completion.choices[0].finish_reason, 'stop');
  assert.deepEqual(JSON.parse(completion.choices[0].message.content), briefArgs);
  const [sent] = await fake.requests();
  assert.equal(sent.headers.authorization, 'Bearer sk-openai-test-key');
});

test('openai SDK: streaming by iteration and by the stream helper', async () => {
  await fake.reset({ responses: [briefCall({ delay_ms: 600 }), briefCall()] });
  const stream = await openai.chat.completions.create({ model: 'qwen__schema=brief', messages: question, stream: true });
  let text = '';
  let finish = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.deepEqual(JSON.parse(text), briefArgs);
  assert.equal(finish, 'stop');
  const helper = openai.beta.chat.completions.stream({ model: 'qwen__schema=brief', messages: question });
  const final = await helper.finalChatCompletion();
  assert.deepEqual(JSON.parse(final.choices[0].message.content), briefArgs);
  assert.equal(final.choices[0].finish_reason, 'stop');
});

test('openai SDK: stream_options.include_usage gets a final usage chunk summed over attempts (as OpenAI sends it)', async () => {
  const badCall = { tool_calls: [{ name: 'brief', arguments: { options: [] } }], usage: { input_tokens: 100, output_tokens: 20 } };
  await fake.reset({ responses: [badCall, briefCall({ usage: { input_tokens: 110, output_tokens: 30 } })] });
  const stream = await openai.chat.completions.create({
    model: 'qwen__schema=brief', messages: question, stream: true, stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.deepEqual(last.usage, { prompt_tokens: 210, completion_tokens: 50, total_tokens: 260 });
  // Every other chunk carries "usage": null, as OpenAI's do.
  for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.usage, null, JSON.stringify(chunk));
  assert.deepEqual(JSON.parse(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')), briefArgs);
  // Without include_usage: no usage chunk.
  await fake.reset({ responses: [briefCall()] });
  const plain = await openai.chat.completions.create({ model: 'qwen__schema=brief', messages: question, stream: true });
  const plainChunks = [];
  for await (const chunk of plain) plainChunks.push(chunk);
  assert.ok(plainChunks.every((c) => c.choices.length === 1 && c.usage === undefined), JSON.stringify(plainChunks.at(-1)));
});

test('usage summed over attempts saturates instead of overflowing', async () => {
  const huge = 9223372036854775000n;  // near int64 max: two of them overflow
  const body = (args) => `{"id":"c","object":"chat.completion","created":1,"model":"q","choices":[{"index":0,` +
    `"message":{"role":"assistant","content":null,"tool_calls":[{"id":"t","type":"function","function":` +
    `{"name":"brief","arguments":${JSON.stringify(JSON.stringify(args))}}}]},"finish_reason":"tool_calls"}],` +
    `"usage":{"prompt_tokens":${huge},"completion_tokens":${huge},"total_tokens":${huge}}}`;
  await fake.reset({ responses: [
    { raw_body: body({ options: [] }), content_type: 'application/json' },
    { raw_body: body(briefArgs), content_type: 'application/json' },
  ] });
  const r = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'q__schema=brief', messages: question }),
  });
  const text = await r.text();
  assert.equal(r.status, 200, text);
  assert.match(text, /"usage":\{"prompt_tokens":9223372036854775807,"completion_tokens":9223372036854775807,"total_tokens":9223372036854775807\}/);
});

test('SDK errors: 400 unknown agent and 502 structured_output_error', async () => {
  await fake.reset({ responses: [] });
  await assert.rejects(
    anthropic.messages.create({ model: 'q__schema=nobody', max_tokens: 10, messages: question }),
    (err) => {
      assert.equal(err.status, 400);
      assert.equal(err.error.error.type, 'invalid_request_error');
      assert.match(err.error.error.message, /^unknown agent "nobody"; known agents: /);
      return true;
    },
  );
  const bad = { tool_calls: [{ name: 'brief', arguments: { options: [], summary: 's' } }] };
  await fake.reset({ responses: [bad, bad, bad] });
  await assert.rejects(
    openai.chat.completions.create({ model: 'q__schema=brief', messages: question }),
    (err) => {
      assert.equal(err.status, 502);
      assert.equal(err.type, 'structured_output_error');
      assert.match(err.message, /params\/options must NOT have fewer than 1 items/);
      return true;
    },
  );
  await fake.reset({ responses: [bad, bad, bad] });
  const stream = anthropic.messages.stream({ model: 'q__schema=brief', max_tokens: 10, messages: question });
  await assert.rejects(stream.finalMessage(), (err) => {
    assert.match(String(err.message), /structured_output_error|must NOT have fewer than 1 items/);
    return true;
  });
});

test('untagged SDK calls pass through unchanged', async () => {
  await fake.reset({ responses: [{ text: 'free text' }, { text: 'more free text' }] });
  const message = await anthropic.messages.create({ model: 'qwen', max_tokens: 50, messages: question });
  assert.equal(message.content[0].text, 'free text');
  assert.equal(message.stop_reason, 'end_turn');
  const completion = await openai.chat.completions.create({ model: 'qwen', messages: question });
  assert.equal(completion.choices[0].message.content, 'more free text');
  const sent = await fake.requests();
  assert.equal(sent[0].body.tools, undefined);
  assert.equal(sent[1].body.tool_choice, undefined);
});
