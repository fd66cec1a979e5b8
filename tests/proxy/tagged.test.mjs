// Tagged requests (docs/proxy.md, "What a tagged request goes through"): routing by suffix and header, what the
// upstream receives, what the client receives, clamping, retries, 502, 400.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { parseSse, postJson, startFake, startProxy, until } from './harness.mjs';

let fake;
let proxy;

before(async () => {
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url);
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const anthropicRequest = (model, extra = {}) => ({
  model,
  max_tokens: 256,
  thinking: { type: 'enabled', budget_tokens: 1024 },
  tools: [{ name: 'bash', description: 'run', input_schema: { type: 'object' } }],
  messages: [{ role: 'user', content: 'Where should this go: I want my money back.' }],
  ...extra,
});
const openaiRequest = (model, extra = {}) => ({
  model,
  tools: [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }],
  messages: [{ role: 'user', content: 'Where should this go: I want my money back.' }],
  ...extra,
});
const routerCall = (action) => ({ tool_calls: [{ name: 'router', arguments: { action } }] });

test('anthropic, tagged by suffix: one forced tool, thinking off, suffix stripped; plain JSON text back', async () => {
  await fake.reset({ responses: [{ ...routerCall('refund'), usage: { input_tokens: 30, output_tokens: 9 } }] });
  const r = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('qwen3__schema=router'));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.type, 'message');
  assert.equal(r.json.role, 'assistant');
  assert.equal(r.json.stop_reason, 'end_turn');
  assert.deepEqual(r.json.content, [{ type: 'text', text: '{"action":"refund"}' }]);
  assert.deepEqual(r.json.usage, { input_tokens: 30, output_tokens: 9 });
  const [sent] = await fake.requests();
  assert.equal(sent.path, '/v1/messages');
  assert.equal(sent.body.model, 'qwen3');
  assert.equal(sent.body.thinking, undefined);
  assert.equal(sent.body.tools.length, 1);
  assert.equal(sent.body.tools[0].name, 'router');
  assert.deepEqual(sent.body.tools[0].input_schema.properties.action.enum, ['search', 'calculator', 'translate', 'refund']);
  assert.deepEqual(sent.body.tool_choice, { type: 'tool', name: 'router' });
  assert.deepEqual(sent.body.messages, anthropicRequest('x').messages);
  assert.equal(sent.headers['x-agent-name'], undefined);
});

test('openai, tagged by header: forced function, enable_thinking false; message.content with finish_reason stop', async () => {
  await fake.reset({ responses: [routerCall('search')] });
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest('qwen3'), { 'X-Agent-Name': 'router' });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.object, 'chat.completion');
  assert.equal(r.json.choices[0].finish_reason, 'stop');
  assert.equal(r.json.choices[0].message.role, 'assistant');
  assert.equal(r.json.choices[0].message.content, '{"action":"search"}');
  assert.ok(!r.json.choices[0].message.tool_calls || r.json.choices[0].message.tool_calls.length === 0);
  assert.equal(r.json.usage.prompt_tokens, 11);
  assert.equal(r.json.usage.completion_tokens, 7);
  const [sent] = await fake.requests();
  assert.equal(sent.path, '/v1/chat/completions');
  assert.equal(sent.body.model, 'qwen3');
  assert.equal(sent.body.tools.length, 1);
  assert.equal(sent.body.tools[0].function.name, 'router');
  assert.deepEqual(sent.body.tool_choice, { type: 'function', function: { name: 'router' } });
  assert.deepEqual(sent.body.chat_template_kwargs, { enable_thinking: false });
  assert.equal(sent.headers['x-agent-name'], undefined);
});

test('the suffix wins over the header', async () => {
  await fake.reset({ responses: [{ tool_calls: [{ name: 'ticket', arguments: { title: 't', category: 'bug', priority: 'low', component: 'docs', summary: 's' } }] }] });
  const r = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=ticket'), { 'X-Agent-Name': 'router' });
  assert.equal(r.status, 200, r.text);
  const [sent] = await fake.requests();
  assert.equal(sent.body.tools[0].name, 'ticket');
  assert.equal(JSON.parse(r.json.content[0].text).component, 'docs');
});

test('confidence outside [0,1] is clamped (advisor)', async () => {
  const args = { options: [{ label: 'a', confidence: 1.4, reason: 'r' }, { label: 'b', confidence: -0.2, reason: 'q' }], summary: 's' };
  await fake.reset({ responses: [{ tool_calls: [{ name: 'advisor', arguments: args }] }] });
  const r = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=advisor'));
  assert.equal(r.status, 200, r.text);
  const value = JSON.parse(r.json.content[0].text);
  assert.deepEqual(value.options.map((o) => o.confidence), [1, 0]);
  assert.equal((await fake.requests()).length, 1);
});

test('invalid then valid: one retry with the error fed back, usage summed', async () => {
  await fake.reset({
    responses: [
      { tool_calls: [{ name: 'router', arguments: { action: 'dance' } }], usage: { input_tokens: 10, output_tokens: 5 } },
      { tool_calls: [{ name: 'router', arguments: { action: 'refund' } }], usage: { input_tokens: 20, output_tokens: 6 } },
    ],
  });
  const r = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=router'));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.content[0].text, '{"action":"refund"}');
  assert.deepEqual(r.json.usage, { input_tokens: 30, output_tokens: 11 });
  const sent = await fake.requests();
  assert.equal(sent.length, 2);
  const retry = sent[1].body.messages;
  assert.equal(retry.length, 3);
  assert.equal(retry[1].role, 'assistant');
  const toolUse = retry[1].content.find((b) => b.type === 'tool_use');
  assert.equal(toolUse.name, 'router');
  assert.deepEqual(toolUse.input, { action: 'dance' });
  const result = retry[2].content.find((b) => b.type === 'tool_result');
  assert.equal(result.tool_use_id, toolUse.id);
  assert.equal(result.is_error, true);
  assert.match(JSON.stringify(result.content), /must be equal to one of the allowed values/);
});

test('openai: invalid then valid, the retry carries a tool message with the error', async () => {
  await fake.reset({ responses: [routerCall('dance'), routerCall('translate')] });
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest('m__schema=router'));
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.choices[0].message.content, '{"action":"translate"}');
  assert.equal(r.json.usage.prompt_tokens, 22);
  const sent = await fake.requests();
  assert.equal(sent.length, 2);
  const messages = sent[1].body.messages;
  const assistant = messages.find((m) => m.role === 'assistant');
  assert.equal(assistant.tool_calls[0].function.name, 'router');
  const tool = messages.find((m) => m.role === 'tool');
  assert.equal(tool.tool_call_id, assistant.tool_calls[0].id);
  assert.match(tool.content, /must be equal to one of the allowed values/);
});

test('always invalid: 502 structured_output_error with the messages and the last candidate', async () => {
  await fake.reset({ responses: [routerCall('dance'), routerCall('sing'), routerCall('jump'), routerCall('refund')] });
  const r = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=router'));
  assert.equal(r.status, 502);
  assert.equal(r.json.type, 'error');
  assert.equal(r.json.error.type, 'structured_output_error');
  assert.match(r.json.error.message, /params\/action must be equal to one of the allowed values/);
  assert.ok(JSON.stringify(r.json).includes('jump'), r.text);
  assert.equal((await fake.requests()).length, 3);  // 1 + max_retries (2)
  const o = await (async () => {
    await fake.reset({ responses: [routerCall('dance'), routerCall('sing'), routerCall('jump')] });
    return postJson(`${proxy.url}/v1/chat/completions`, openaiRequest('m__schema=router'));
  })();
  assert.equal(o.status, 502);
  assert.equal(o.json.error.type, 'structured_output_error');
  assert.match(o.json.error.message, /must be equal to one of the allowed values/);
});

test('unknown agent: 400 listing the known agents, no upstream call', async () => {
  await fake.reset({ responses: [routerCall('refund')] });
  const a = await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=nobody'));
  assert.equal(a.status, 400);
  assert.deepEqual(a.json, {
    type: 'error',
    error: { type: 'invalid_request_error', message: 'unknown agent "nobody"; known agents: router, advisor, ticket, brief' },
  });
  const o = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest('m'), { 'X-Agent-Name': 'ghost' });
  assert.equal(o.status, 400);
  assert.equal(o.json.error.message, 'unknown agent "ghost"; known agents: router, advisor, ticket, brief');
  assert.equal((await fake.requests()).length, 0);
});

test('streaming clients get a well-formed text stream', async () => {
  await fake.reset({ responses: [routerCall('calculator'), routerCall('refund')] });
  const a = await fetch(`${proxy.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(anthropicRequest('m__schema=router', { stream: true })),
  });
  assert.equal(a.status, 200);
  assert.match(a.headers.get('content-type'), /^text\/event-stream/);
  const events = parseSse(await a.text()).filter((e) => e.event !== 'ping');
  assert.deepEqual(events.map((e) => e.event), [
    'message_start', 'content_block_start', ...events.slice(2, -3).map(() => 'content_block_delta'), 'content_block_stop', 'message_delta', 'message_stop',
  ]);
  const text = events.filter((e) => e.event === 'content_block_delta').map((e) => e.data.delta.text).join('');
  assert.equal(text, '{"action":"calculator"}');
  assert.equal(events.at(-2).data.delta.stop_reason, 'end_turn');
  const sent = await fake.requests();
  assert.equal(sent[0].body.stream, true);

  const o = await fetch(`${proxy.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(openaiRequest('m__schema=router', { stream: true })),
  });
  const raw = await o.text();
  assert.ok(raw.endsWith('data: [DONE]\n\n'), raw);
  const chunks = parseSse(raw).filter((e) => e.data && e.data !== '[DONE]');
  assert.equal(chunks.map((c) => c.data.choices?.[0]?.delta?.content ?? '').join(''), '{"action":"refund"}');
  assert.equal(chunks.map((c) => c.data.choices?.[0]?.finish_reason).filter(Boolean).at(-1), 'stop');
});

test('a long conversation reaches the upstream intact and a large answer comes back whole', async () => {
  // ~300 KB of history (non-ASCII and escapes included): the proxy holds it
  // once and welds the agent onto it in place. The answer's 200 KB summary
  // arrives in large SSE reads, through the growing stream buffer.
  const turns = [];
  for (let i = 0; i < 600; i++) {
    turns.push({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i} h\u00e9 "quoted" \\ ` + 'y'.repeat(470) });
  }
  const summary = 'The summary \u00e9 "with quotes". '.repeat(6000);
  const ticket = { title: 't', category: 'bug', priority: 'low', component: 'docs', summary };
  for (const [path, body] of [
    ['/v1/messages', anthropicRequest('m__schema=ticket', { messages: turns })],
    ['/v1/chat/completions', openaiRequest('m__schema=ticket', { messages: turns })],
  ]) {
    await fake.reset({ responses: [{ tool_calls: [{ name: 'ticket', arguments: ticket }] }] });
    const r = await postJson(`${proxy.url}${path}`, body);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    const text = path === '/v1/messages' ? r.json.content[0].text : r.json.choices[0].message.content;
    assert.deepEqual(JSON.parse(text), ticket);
    const [sent] = await fake.requests();
    assert.deepEqual(sent.body.messages, turns);
    assert.equal(sent.body.model, 'm');
    assert.equal(sent.body.tools.length, 1);
  }
});

test('the access log names the agent and the attempts, without bodies', async () => {
  await fake.reset({ responses: [routerCall('dance'), routerCall('refund')] });
  const count = proxy.accessLogs().length;
  await postJson(`${proxy.url}/v1/messages`, anthropicRequest('m__schema=router'));
  // Lines are written in batches per worker thread: find this request's line
  // among the new ones rather than taking the last.
  const mine = () => proxy.accessLogs().slice(count).find((e) => e.path === '/v1/messages' && e.attempts === 2);
  await until(() => mine() !== undefined, 5000, 'the access log line');
  const entry = mine();
  assert.equal(entry.agent, 'router');
  assert.equal(entry.attempts, 2);
  assert.equal(entry.status, 200);
  assert.equal(entry.outcome, 'ok');
  assert.equal(typeof entry.upstream_ms, 'number');
  assert.equal(typeof entry.total_ms, 'number');
  assert.ok(!proxy.logs.join('\n').includes('money back'));
});

test('other model calls of a tagged client lose the suffix (count_tokens)', async () => {
  await fake.reset({ responses: [] });
  await postJson(`${proxy.url}/v1/messages/count_tokens`, { model: 'qwen__schema=router', messages: [] });
  const [sent] = await fake.requests();
  assert.equal(sent.path, '/v1/messages/count_tokens');
  assert.deepEqual(sent.body, { model: 'qwen', messages: [] });
});
