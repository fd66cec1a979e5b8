// The OpenAI Responses API through weld proxy (docs/protocols.md; docs/proxy.md): the
// official `openai` SDK's client.responses.create, plain and streaming, on a
// tagged model: the upstream gets a forced function tool, the client gets
// the validated JSON as `output_text`.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { requireSdk, startFake, startProxy } from './harness.mjs';

const OpenAIModule = requireSdk('openai');
const OpenAI = OpenAIModule.default || OpenAIModule;

let fake;
let proxy;
let openai;

before(async () => {
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url, ['--keepalive', '0.2']);
  openai = new OpenAI({ apiKey: 'sk-openai-test-key', baseURL: `${proxy.url}/v1`, maxRetries: 0, timeout: 20000 });
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const briefArgs = { options: [{ label: 'use RE2', confidence: 0.8, reason: 'linear time' }], summary: 'Use RE2.' };
const briefCall = (extra = {}) => ({ tool_calls: [{ name: 'brief', arguments: briefArgs }], ...extra });

test('openai SDK: responses.create on a tagged model returns the JSON as output_text', async () => {
  await fake.reset({ responses: [briefCall({ usage: { input_tokens: 20, output_tokens: 9 } })] });
  const response = await openai.responses.create({ model: 'gpt-x__schema=brief', input: 'Which regex engine?' });
  assert.equal(response.status, 'completed');
  assert.deepEqual(JSON.parse(response.output_text), briefArgs);
  assert.equal(response.model, 'gpt-x__schema=brief');
  assert.equal(response.output.length, 1);
  assert.equal(response.output[0].type, 'message');
  assert.equal(response.usage.input_tokens, 20);
  assert.equal(response.usage.output_tokens, 9);
  const [sent] = await fake.requests();
  assert.equal(sent.path, '/v1/responses');
  assert.equal(sent.headers.authorization, 'Bearer sk-openai-test-key');
  assert.equal(sent.body.model, 'gpt-x');
  assert.equal(sent.body.tools.length, 1);
  assert.equal(sent.body.tools[0].type, 'function');
  assert.equal(sent.body.tools[0].name, 'brief');
  assert.equal(sent.body.tools[0].parameters.type, 'object');
  assert.deepEqual(sent.body.tool_choice, { type: 'function', name: 'brief' });
});

test('openai SDK: responses.create with stream:true yields output_text deltas and response.completed', async () => {
  await fake.reset({ responses: [briefCall({ delay_ms: 500 })] });
  const stream = await openai.responses.create({ model: 'gpt-x__schema=brief', input: 'Which regex engine?', stream: true });
  let text = '';
  const types = [];
  let completed;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.deepEqual(JSON.parse(text), briefArgs);
  assert.equal(types[0], 'response.created');
  assert.equal(types.at(-1), 'response.completed');
  assert.ok(types.includes('response.output_item.done'), types.join(','));
  assert.equal(completed.status, 'completed');
  assert.deepEqual(JSON.parse(completed.output[0].content[0].text), briefArgs);
  const [sent] = await fake.requests();
  assert.equal(sent.body.stream, true);
});

test('openai SDK: responses.stream helper gives the final response', async () => {
  await fake.reset({ responses: [briefCall()] });
  const stream = openai.responses.stream({ model: 'gpt-x__schema=brief', input: 'Which regex engine?' });
  let text = '';
  stream.on('response.output_text.delta', (event) => (text += event.delta));
  const final = await stream.finalResponse();
  assert.deepEqual(JSON.parse(text), briefArgs);
  // The helper's final response is the completed one (this SDK version adds
  // no output_text to it): the message item carries the JSON.
  const message = final.output.find((item) => item.type === 'message');
  assert.deepEqual(JSON.parse(message.content[0].text), briefArgs);
});

test('an invalid answer is retried with the failed call and a function_call_output carrying the errors', async () => {
  const bad = { tool_calls: [{ name: 'brief', id: 'call_bad', arguments: { options: [], summary: 7 } }] };
  await fake.reset({ responses: [bad, briefCall()] });
  const response = await openai.responses.create({
    model: 'gpt-x__schema=brief',
    input: [{ role: 'user', content: 'Which regex engine?' }],
  });
  assert.deepEqual(JSON.parse(response.output_text), briefArgs);
  const sent = await fake.requests();
  assert.equal(sent.length, 2);
  const input = sent[1].body.input;
  assert.deepEqual(input[0], { role: 'user', content: 'Which regex engine?' });
  const call = input.find((item) => item.type === 'function_call');
  assert.equal(call.call_id, 'call_bad');
  assert.equal(call.name, 'brief');
  const output = input.find((item) => item.type === 'function_call_output');
  assert.equal(output.call_id, 'call_bad');
  assert.match(output.output, /^Error: /);
  assert.match(output.output, /summary/);
});

test('retries exhausted → 502 structured_output_error the SDK raises, with the last candidate', async () => {
  const bad = { tool_calls: [{ name: 'brief', arguments: { summary: 7 } }] };
  await fake.reset({ responses: [bad], repeat_last: true });
  await assert.rejects(
    openai.responses.create({ model: 'gpt-x__schema=brief', input: 'Which regex engine?' }),
    (error) => {
      assert.equal(error.status, 502);
      assert.equal(error.error.type, 'structured_output_error');
      assert.deepEqual(error.error.candidate, { summary: 7 });
      return true;
    },
  );
});

test('streaming: an upstream that never calls the tool ends in an SSE error event the SDK raises', async () => {
  // Slow enough that keep-alive comments have started the client's stream.
  await fake.reset({ responses: [{ text: 'no tool for you', delay_ms: 300 }], repeat_last: true });
  const response = await fetch(`${proxy.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-x__schema=brief', input: 'hi', stream: true }),
  });
  assert.equal(response.status, 200);
  const body = await response.text();
  assert.ok(body.startsWith(': keep-alive\n\n'), body.slice(0, 80));
  assert.match(body, /event: error\ndata: \{"type":"error","code":"structured_output_error"/);
  await fake.reset({ responses: [{ text: 'no tool for you', delay_ms: 300 }], repeat_last: true });
  await assert.rejects(async () => {
    const stream = await openai.responses.create({ model: 'gpt-x__schema=brief', input: 'hi', stream: true });
    for await (const event of stream) void event;
  }, /did not call the tool 'brief'/);
});

test('an untagged /v1/responses request passes through unchanged', async () => {
  await fake.reset({ responses: [{ text: 'plain answer' }] });
  const response = await openai.responses.create({ model: 'gpt-x', input: 'hello', tools: [] });
  assert.equal(response.output_text, 'plain answer');
  const [sent] = await fake.requests();
  assert.deepEqual(sent.body, { model: 'gpt-x', input: 'hello', tools: [] });
});
