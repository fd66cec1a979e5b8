// The run against an OpenAI Responses server (`--provider openai-responses`,
// docs/protocols.md), both mechanisms: `tool` (the structured_output
// function tool, forced when weld ends the run) and `native` (`text.format`
// json_schema; the answer is the output text). The fake server speaks the
// real `response.*` events.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_KEY, SCHEMA, SCHEMA_TEXT, parseLines, runWeld, startServer } from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = { summary: 'responses-answer-r4', risk_level: 'low' };
const args = (port) => ['--provider', 'openai-responses', '--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'fake-model'];

test('openai-responses: tool mechanism: the structured_output call is the answer', async () => {
  const server = await startServer([{ tool_calls: [{ name: 'structured_output', arguments: OK }] }]);
  try {
    const r = await runWeld([...args(server.port), '-p', 'assess', '--json-schema', SCHEMA_TEXT,
      '--output-format', 'stream-json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const lines = parseLines(r.stdout);
    assert.equal(lines[0].type, 'system');
    const envelope = lines.at(-1);
    assert.equal(envelope.subtype, 'success');
    assert.deepEqual(envelope.structured_result, OK);
    assert.equal(envelope.usage.input_tokens, 11);
    assert.equal(envelope.usage.output_tokens, 7);
    const [request] = await server.requests();
    assert.equal(request.path, '/v1/responses');
    assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(request.body.stream, true);
    assert.equal(request.body.model, 'fake-model');
    assert.deepEqual(request.body.input[0], { role: 'user', content: 'assess' });
    const tool = request.body.tools.find((t) => t.name === 'structured_output');
    assert.equal(tool.type, 'function');
    assert.deepEqual(tool.parameters, SCHEMA);
  } finally { await server.close(); }
});

test('openai-responses: tool mechanism: an invalid call goes back as a function_call_output', async () => {
  const server = await startServer([
    { tool_calls: [{ name: 'structured_output', id: 'call_r1', arguments: { summary: 'x' } }] },
    { tool_calls: [{ name: 'structured_output', arguments: OK }] },
  ]);
  try {
    const r = await runWeld([...args(server.port), '-p', 'assess', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, JSON.stringify(OK) + '\n');
    const requests = await server.requests();
    assert.equal(requests.length, 2);
    const input = requests[1].body.input;
    const call = input.find((item) => item.type === 'function_call');
    assert.equal(call.call_id, 'call_r1');
    assert.equal(call.name, 'structured_output');
    const output = input.find((item) => item.type === 'function_call_output');
    assert.equal(output.call_id, 'call_r1');
    assert.match(output.output, /risk_level/);
  } finally { await server.close(); }
});

test('openai-responses: native mechanism: text.format json_schema, the output text is the answer', async () => {
  const server = await startServer([{ text: JSON.stringify(OK) }]);
  try {
    const r = await runWeld([...args(server.port), '-p', 'assess', '--json-schema', SCHEMA_TEXT,
      '--mechanism', 'native'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, JSON.stringify(OK) + '\n');
    const [request] = await server.requests();
    const format = request.body.text.format;
    assert.equal(format.type, 'json_schema');
    assert.equal(format.name, 'structured_output');
    assert.deepEqual(format.schema, SCHEMA);
    assert.equal(request.body.tools.find((t) => t.name === 'structured_output'), undefined);
  } finally { await server.close(); }
});

test('openai-responses: a stream cut before response.completed is not an answer: sent again, then exit 75', async () => {
  const server = await startServer([{ tool_calls: [{ name: 'structured_output', arguments: OK }], truncate_after: 6 }],
    { repeatLast: true });
  try {
    const r = await runWeld([...args(server.port), '--max-retries', '1', '-p', 'assess', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 75, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /the response stream ended early: the connection closed after 2 attempts/);
    assert.equal((await server.requests()).length, 2);
  } finally { await server.close(); }
});
