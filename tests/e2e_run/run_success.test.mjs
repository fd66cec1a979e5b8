// First-turn success in every output format, invalid-then-valid, two calls
// in one turn, sibling suppression, repairs, 429 retry — over both APIs.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA, SCHEMA_TEXT, SKIPPED_RETRY, SKIPPED_SUCCESS, parseLines, providerArgs, runWeld, so,
  startServer, tempDir, toolDecls, toolResults, firstUserText,
} from './lib.mjs';

const PAYLOAD = '{"summary":"Refactor only; no behaviour change. ✓ «ok»","risk_level":"low"}';
const env = { WELD_API_KEY: API_KEY };

for (const api of APIS) {
  test(`${api}: first-turn success, text format: exactly the payload and one newline`, async () => {
    const server = await startServer([so(PAYLOAD)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'Assess it', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, PAYLOAD + '\n');
      const requests = await server.requests();
      assert.equal(requests.length, 1);
      assert.equal(requests[0].body.stream, true);
      assert.equal(firstUserText(requests[0]), 'Assess it');
      const decls = toolDecls(requests[0], api);
      const tool = decls.find((d) => d.name === 'structured_output');
      assert.ok(tool, 'structured_output is offered');
      assert.deepEqual(tool.parameters, SCHEMA);
      assert.match(tool.description, /only way to deliver the final answer/);
      assert.match(tool.description, /first call with valid arguments ends the session/);
      assert.match(tool.description, /plain-text final answers are discarded/);
      assert.match(tool.description, /validation error comes back/);
      assert.deepEqual(decls.map((d) => d.name), ['read_file', 'list_directory', 'glob', 'grep_search', 'structured_output']);
    } finally { await server.close(); }
  });

  test(`${api}: first-turn success, json format: one array ending in the envelope`, async () => {
    const server = await startServer([{ ...so(PAYLOAD), usage: { input_tokens: 21, output_tokens: 9 } }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.endsWith(']\n'));
      const messages = JSON.parse(r.stdout);
      assert.equal(messages[0].type, 'system');
      assert.equal(messages[0].subtype, 'init');
      assert.equal(messages[0].model, 'fake-model');
      assert.ok(messages[0].tools.includes('structured_output'));
      assert.equal(messages[1].type, 'assistant');
      assert.equal(messages[1].message.content[0].type, 'tool_use');
      assert.equal(messages[1].message.content[0].name, 'structured_output');
      const result = messages.at(-1);
      assert.deepEqual(Object.keys(result), ['type', 'subtype', 'is_error', 'result', 'structured_result',
        'structured_output', 'num_turns', 'attempts', 'repairs', 'usage', 'duration_ms', 'duration_api_ms', 'ttft_ms',
        'api_error_status', 'session_id', 'stop_reason']);
      assert.equal(result.subtype, 'success');
      assert.equal(result.is_error, false);
      assert.equal(result.result, PAYLOAD);
      assert.deepEqual(result.structured_result, JSON.parse(PAYLOAD));
      assert.equal(result.num_turns, 1);
      assert.equal(result.attempts, 1);
      assert.deepEqual(result.repairs, []);
      assert.equal(result.usage.input_tokens, 21);
      assert.equal(result.usage.output_tokens, 9);
      assert.equal(result.session_id, messages[0].session_id);
      assert.equal(result.stop_reason, api === 'openai' ? 'tool_calls' : 'tool_use');
    } finally { await server.close(); }
  });

  test(`${api}: first-turn success, stream-json with partial messages`, async () => {
    const server = await startServer([so(PAYLOAD)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'stream-json', '--include-partial-messages'], { env });
      assert.equal(r.code, 0, r.stderr);
      const lines = parseLines(r.stdout);
      assert.equal(lines[0].type, 'system');
      assert.ok(lines.some((l) => l.type === 'stream_event'), 'stream_event lines present');
      assert.ok(lines.some((l) => l.type === 'assistant'));
      const last = lines.at(-1);
      assert.equal(last.type, 'result');
      assert.equal(last.subtype, 'success');
      assert.equal(last.result, PAYLOAD);
      // Without the flag: no stream_event lines.
      const server2 = await startServer([so(PAYLOAD)]);
      try {
        const r2 = await runWeld([...providerArgs(api, server2.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
          '--output-format', 'stream-json'], { env });
        assert.equal(r2.code, 0, r2.stderr);
        assert.ok(!parseLines(r2.stdout).some((l) => l.type === 'stream_event'));
      } finally { await server2.close(); }
    } finally { await server.close(); }
  });

  test(`${api}: invalid then valid: the validation message goes back as an error tool result`, async () => {
    const server = await startServer([so('{"summary":"x"}', 'call_1'), so('{"summary":"x","risk_level":"high"}')]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout).at(-1).structured_result, { summary: 'x', risk_level: 'high' });
      assert.equal(JSON.parse(r.stdout).at(-1).num_turns, 2);
      assert.equal(JSON.parse(r.stdout).at(-1).attempts, 2);
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      const results = toolResults(requests[1], api);
      assert.equal(results.length, 1);
      assert.equal(results[0].id, 'call_1');
      assert.equal(results[0].content, "params must have required property 'risk_level'");
      if (api === 'anthropic') assert.equal(results[0].is_error, true);
      assert.ok(toolDecls(requests[1], api).some((d) => d.name === 'structured_output'), 'offered on every request');
    } finally { await server.close(); }
  });

  test(`${api}: two structured_output calls in one turn: the first valid one wins`, async () => {
    const server = await startServer([{ tool_calls: [
      { name: 'structured_output', arguments: '{"summary":"a","risk_level":"extreme"}' },
      { name: 'structured_output', arguments: '{"summary":"b","risk_level":"medium"}' },
    ] }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{"summary":"b","risk_level":"medium"}\n');
      assert.equal((await server.requests()).length, 1);
    } finally { await server.close(); }
  });

  test(`${api}: a side-effect sibling never runs; retry path gets the re-issue text`, async () => {
    const cwd = tempDir();
    const server = await startServer([
      { tool_calls: [
        { name: 'write_file', arguments: { path: 'pwned.txt', content: 'x' }, id: 'call_w' },
        { name: 'structured_output', arguments: '{"summary":1}', id: 'call_s' },
      ] },
      so('{"summary":"ok","risk_level":"low"}'),
    ]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--yolo'],
        { env, cwd });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fs.existsSync(path.join(cwd, 'pwned.txt')), false);
      const requests = await server.requests();
      assert.ok(toolDecls(requests[0], api).some((d) => d.name === 'write_file'), 'write_file offered with --yolo');
      const results = toolResults(requests[1], api);
      assert.deepEqual(results.map((x) => x.id), ['call_w', 'call_s']);
      assert.equal(results[0].content, SKIPPED_RETRY);
      assert.equal(results[1].content, "params must have required property 'risk_level'\nparams/summary must be string (got 1)");
    } finally { await server.close(); }
  });

  test(`${api}: a side-effect sibling never runs; success path gets the skipped text`, async () => {
    const cwd = tempDir();
    const server = await startServer([{ tool_calls: [
      { name: 'run_shell_command', arguments: { command: 'touch pwned.txt' }, id: 'call_sh' },
      { name: 'structured_output', arguments: '{"summary":"ok","risk_level":"low"}', id: 'call_s' },
    ] }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--yolo',
        '--output-format', 'json'], { env, cwd });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(fs.existsSync(path.join(cwd, 'pwned.txt')), false);
      const messages = JSON.parse(r.stdout);
      const user = messages.find((m) => m.type === 'user');
      assert.equal(user.message.content[0].tool_use_id, 'call_sh');
      assert.equal(user.message.content[0].content, SKIPPED_SUCCESS);
    } finally { await server.close(); }
  });

  test(`${api}: repairs are applied and reported; --no-repair turns them off`, async () => {
    const fenced = '```json\n{"summary":"ok","risk_level":"low",}\n```';
    const server = await startServer([so(fenced)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env });
      assert.equal(r.code, 0, r.stderr);
      const result = JSON.parse(r.stdout).at(-1);
      assert.deepEqual(result.structured_result, { summary: 'ok', risk_level: 'low' });
      const kinds = result.repairs.map((x) => x.kind);
      assert.ok(kinds.includes('code_fence'), JSON.stringify(result.repairs));
      assert.ok(kinds.includes('trailing_comma'), JSON.stringify(result.repairs));
    } finally { await server.close(); }
    const server2 = await startServer([so(fenced)]);
    try {
      const r = await runWeld([...providerArgs(api, server2.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--no-repair', '--max-structured-retries', '0', '--output-format', 'json'], { env });
      assert.equal(r.code, 1);
      const result = JSON.parse(r.stdout).at(-1);
      assert.equal(result.subtype, 'error_max_structured_output_retries');
      assert.equal(result.last_candidate, fenced);
    } finally { await server2.close(); }
  });

  test(`${api}: coercion repair: "true"/numeric strings where the schema wants them`, async () => {
    const schema = JSON.stringify({ type: 'object', properties: { ok: { type: 'boolean' }, n: { type: 'integer' } },
      required: ['ok', 'n'] });
    const server = await startServer([so('{"ok":"true","n":"42"}')]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', schema], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{"ok":true,"n":42}\n');
    } finally { await server.close(); }
  });

  test(`${api}: 429 with Retry-After, then success`, async () => {
    const server = await startServer([{ status: 429, headers: { 'retry-after': '1' } }, so(PAYLOAD)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, PAYLOAD + '\n');
      assert.equal((await server.requests()).length, 2);
    } finally { await server.close(); }
  });

  test(`${api}: empty schema {} with empty arguments prints {}`, async () => {
    const server = await startServer([so('')]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', '{}'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{}\n');
    } finally { await server.close(); }
  });

  test(`${api}: without --json-schema, an ordinary run prints the final text`, async () => {
    const server = await startServer([{ text: 'Hello from the model.' }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'hi'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'Hello from the model.\n');
      const requests = await server.requests();
      assert.ok(!toolDecls(requests[0], api).some((d) => d.name === 'structured_output'));
    } finally { await server.close(); }
  });

  test(`${api}: an ordinary tool call runs and its result goes back`, async () => {
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, 'notes.txt'), 'the answer is 42\n');
    const server = await startServer([
      { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' }, id: 'call_r' }] },
      so('{"summary":"42","risk_level":"low"}'),
    ]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env, cwd });
      assert.equal(r.code, 0, r.stderr);
      const results = toolResults((await server.requests())[1], api);
      assert.deepEqual(results.map((x) => [x.id, x.content]), [['call_r', 'the answer is 42\n']]);
    } finally { await server.close(); }
  });
}
