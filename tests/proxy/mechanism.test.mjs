// Mechanisms in the proxy (docs/run.md, "Mechanisms"): `native` sends the provider's
// format (OpenAI strict with the schema rewritten into its subset, as a run
// does), and `auto` probes the upstream once per model with the run's probe
// and remembers what it found. The fake model server emulates servers that
// enforce or ignore the format.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { postJson, startFake, startProxy, tmpdir } from './harness.mjs';

const schema = {
  type: 'object',
  properties: { action: { type: 'string', enum: ['search', 'refund'] }, note: { type: 'string', maxLength: 40 } },
  required: ['action'],
};
let fake;
let proxy;

before(async () => {
  const dir = tmpdir();
  const agents = path.join(dir, 'agents.json');
  fs.writeFileSync(agents, JSON.stringify({
    picker: { description: 'Pick an action', input_schema: schema, mechanism: 'auto' },
    native_picker: { description: 'Pick an action', input_schema: schema, mechanism: 'native' },
  }));
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url, ['--agents', agents]);
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

const ask = (model) => ({ model, messages: [{ role: 'user', content: 'I want my money back.' }] });
const formatOf = (request) => request.body.response_format && request.body.response_format.json_schema;

test('native: OpenAI strict with the schema rewritten into the subset; a null it allowed is dropped', async () => {
  await fake.reset({ responses: [{ text: '{"action":"refund","note":null}' }] });
  const r = await postJson(`${proxy.url}/v1/chat/completions`, ask('m__schema=native_picker'));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(JSON.parse(r.json.choices[0].message.content), { action: 'refund' });
  const [sent] = await fake.requests();
  assert.equal(sent.body.tools, undefined);
  const format = formatOf(sent);
  assert.equal(format.strict, true);
  assert.deepEqual(format.schema, {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['search', 'refund'] },
      note: { type: ['string', 'null'], description: '(maxLength: 40)' },
    },
    required: ['action', 'note'],
    additionalProperties: false,
  });
});

test('auto against a server that enforces the format: one probe, then native, remembered per model', async () => {
  // Answers that fit the strict schema sent (note required but nullable).
  await fake.reset({ responses: [{ text: 'hello' }, { text: '{"action":"search","note":null}' },
    { text: '{"action":"refund","note":null}' }], response_format: 'enforce' });
  const first = await postJson(`${proxy.url}/v1/chat/completions`, ask('enforcing__schema=picker'));
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(JSON.parse(first.json.choices[0].message.content), { action: 'search' });
  const second = await postJson(`${proxy.url}/v1/chat/completions`, ask('enforcing__schema=picker'));
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(JSON.parse(second.json.choices[0].message.content), { action: 'refund' });
  const sent = await fake.requests();
  assert.equal(sent.length, 3, 'one probe, then one request each');
  assert.deepEqual(Object.keys(formatOf(sent[0]).schema.properties), ['weld_probe']);
  assert.equal(sent[0].body.model, 'enforcing');
  for (const request of sent.slice(1)) {
    assert.equal(request.body.tools, undefined);
    assert.equal(formatOf(request).name, 'picker');
  }
  // The probe's tokens count in the first request's usage (fake: 11 + 7 each).
  assert.equal(first.json.usage.prompt_tokens, 22);
  assert.equal(second.json.usage.prompt_tokens, 11);
});

test('auto against a server that ignores the format: one probe, then the tool, remembered', async () => {
  const call = { tool_calls: [{ name: 'picker', arguments: { action: 'refund' } }] };
  await fake.reset({ responses: [{ text: 'hello' }, call, call], response_format: 'ignore' });
  for (let i = 0; i < 2; i++) {
    const r = await postJson(`${proxy.url}/v1/chat/completions`, ask('ignoring__schema=picker'));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.json.choices[0].message.content), { action: 'refund' });
  }
  const sent = await fake.requests();
  assert.equal(sent.length, 3);
  assert.ok(formatOf(sent[0]), 'the probe carries a format');
  for (const request of sent.slice(1)) {
    assert.deepEqual(request.body.tools.map((t) => t.function.name), ['picker']);
    assert.equal(request.body.response_format, undefined);
  }
});

// The run's verdict (judge_probe, docs/protocols.md "The `auto` probe"): a
// probe answered 503 or 429 says nothing about the server, so that request
// uses the tool and the next one probes again; a final 400 refusing the
// field is remembered as "not native".
test('auto: a probe answered 5xx or 429 is never remembered; a final 4xx is', async () => {
  const call = { tool_calls: [{ name: 'picker', arguments: { action: 'refund' } }] };
  for (const status of [503, 429]) {
    await fake.reset({ responses: [{ status }, call, { status }, call] });
    for (let i = 0; i < 2; i++) {
      const r = await postJson(`${proxy.url}/v1/chat/completions`, ask(`busy${status}__schema=picker`));
      assert.equal(r.status, 200, r.text);
    }
    const sent = await fake.requests();
    assert.equal(sent.length, 4, 'each request probes again');
    assert.ok(formatOf(sent[0]) && formatOf(sent[2]), 'both requests were preceded by a probe');
  }
  await fake.reset({ responses: [{ status: 400 }, call, call] });
  for (let i = 0; i < 2; i++) {
    const r = await postJson(`${proxy.url}/v1/chat/completions`, ask('refusing__schema=picker'));
    assert.equal(r.status, 200, r.text);
  }
  assert.equal((await fake.requests()).length, 3, 'one probe, remembered');
});
