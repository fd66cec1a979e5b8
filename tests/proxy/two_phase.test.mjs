// Two-phase agents (docs/proxy-weld.md, "What the upstream receives"): the client's tools stay usable; calls of
// them go back to the client; a text answer triggers one forced ask for the
// agent's tool, and the client receives the structured answer.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSdkProxy } from './harness.mjs';

const registry = {
  investigator: {
    description: 'Investigate with tools, then report a verdict',
    mode: 'two_phase',
    input_schema: {
      type: 'object',
      properties: { verdict: { enum: ['bug', 'not_a_bug'] }, confidence: { type: 'number', minimum: 0, maximum: 1 } },
      required: ['verdict', 'confidence'],
    },
  },
};
const bashTool = { name: 'bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } };

let fake;
let proxy;
let anthropic;
let openai;
let pair;

before(async () => {
  pair = await startSdkProxy(registry);
  ({ fake, proxy, anthropic, openai } = pair);
});
after(() => pair.stop());

test('anthropic: client tool call passed back, then text → forced report', async () => {
  await fake.reset({
    responses: [
      { tool_calls: [{ name: 'bash', arguments: { command: 'grep -r TODO' }, id: 'toolu_bash1' }] },
      { text: 'I looked at the code: it is a real bug, fairly sure.' },
      { tool_calls: [{ name: 'investigator', arguments: { verdict: 'bug', confidence: 0.8 } }] },
    ],
  });
  const messages = [{ role: 'user', content: 'Is issue 12 a bug?' }];
  const first = await anthropic.messages.create({ model: 'q__schema=investigator', max_tokens: 200, tools: [bashTool], messages });
  assert.equal(first.stop_reason, 'tool_use');
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'bash');
  assert.deepEqual(use.input, { command: 'grep -r TODO' });
  let sent = await fake.requests();
  assert.deepEqual(sent[0].body.tools.map((t) => t.name).sort(), ['bash', 'investigator']);
  assert.notDeepEqual(sent[0].body.tool_choice, { type: 'tool', name: 'investigator' });

  messages.push({ role: 'assistant', content: first.content });
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'src/a.c: TODO fix overflow' }] });
  const second = await anthropic.messages.create({ model: 'q__schema=investigator', max_tokens: 200, tools: [bashTool], messages });
  assert.equal(second.stop_reason, 'end_turn');
  assert.deepEqual(JSON.parse(second.content[0].text), { verdict: 'bug', confidence: 0.8 });
  sent = await fake.requests();
  assert.equal(sent.length, 3);
  assert.deepEqual(sent[2].body.tool_choice, { type: 'tool', name: 'investigator' });
  assert.ok(JSON.stringify(sent[2].body.messages).includes('it is a real bug'));
  assert.equal(second.usage.input_tokens, 22);  // the text turn and the forced turn
});

test('anthropic stream helper sees the passed-back tool call', async () => {
  await fake.reset({ responses: [{ tool_calls: [{ name: 'bash', arguments: { command: 'ls' } }] }] });
  const stream = anthropic.messages.stream({
    model: 'q__schema=investigator', max_tokens: 50, tools: [bashTool], messages: [{ role: 'user', content: 'look' }],
  });
  const final = await stream.finalMessage();
  assert.equal(final.stop_reason, 'tool_use');
  const use = final.content.find((b) => b.type === 'tool_use');
  assert.deepEqual(use.input, { command: 'ls' });
});

test('openai: client tool call passed back; direct agent call validated', async () => {
  await fake.reset({
    responses: [
      { tool_calls: [{ name: 'bash', arguments: { command: 'ls' } }] },
      { tool_calls: [{ name: 'investigator', arguments: { verdict: 'not_a_bug', confidence: 0.6 } }] },
    ],
  });
  const tools = [{ type: 'function', function: { name: 'bash', parameters: { type: 'object' } } }];
  const first = await openai.chat.completions.create({ model: 'q__schema=investigator', tools, messages: [{ role: 'user', content: 'x' }] });
  assert.equal(first.choices[0].finish_reason, 'tool_calls');
  assert.equal(first.created, 1700000000);  // the upstream's, as a transparent proxy passes it on
  assert.equal(first.choices[0].message.tool_calls[0].function.name, 'bash');
  assert.deepEqual(JSON.parse(first.choices[0].message.tool_calls[0].function.arguments), { command: 'ls' });
  const second = await openai.chat.completions.create({ model: 'q__schema=investigator', tools, messages: [{ role: 'user', content: 'x' }] });
  assert.equal(second.choices[0].finish_reason, 'stop');
  assert.deepEqual(JSON.parse(second.choices[0].message.content), { verdict: 'not_a_bug', confidence: 0.6 });
  const sent = await fake.requests();
  assert.deepEqual(sent[0].body.tools.map((t) => t.function.name).sort(), ['bash', 'investigator']);
});
