// Every way a run can fail, over both APIs: plain text, turn limit, retries
// exhausted, signals, credentials refused, budgets — with exact messages,
// exit codes, and one parseable error envelope in the JSON modes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  APIS, API_KEY, MAX_TURNS_NOTE, SCHEMA_TEXT, parseLines, providerArgs, runCancelled, runWeld, so, startServer, waitFor, weldLines
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const PLAIN =
  'Model produced plain text instead of calling the structured_output tool as required by --json-schema after ';

function checkErrorEnvelope(envelope, subtype) {
  assert.equal(envelope.type, 'result');
  assert.equal(envelope.subtype, subtype);
  assert.equal(envelope.is_error, true);
  assert.equal(envelope.structured_result, undefined);
  assert.equal(typeof envelope.error.message, 'string');
  assert.equal(typeof envelope.usage.input_tokens, 'number');
  assert.equal(typeof envelope.session_id, 'string');
}

for (const api of APIS) {
  test(`${api}: plain text: exit 1, exact message with preview, empty stdout`, async () => {
    const server = await startServer([{ text: 'The risk is "low".\nDone.' }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, weldLines(PLAIN + '1 turn(s). Output preview (24 chars): "The risk is \\"low\\".\\nDone.".\n'));
    } finally { await server.close(); }
  });

  test(`${api}: plain text after a tool turn, 200+ preview, json envelope`, async () => {
    const long = 'a'.repeat(150);
    const server = await startServer([
      { text: long, tool_calls: [{ name: 'list_directory', arguments: {} }] },
      { text: 'b'.repeat(100) },
    ]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env });
      assert.equal(r.code, 1);
      const expected = PLAIN + '2 turn(s). Output preview (200+ chars): "' + long + '\\n' + 'b'.repeat(49) + '".';
      assert.equal(r.stderr, weldLines(expected + '\n'));
      const envelope = JSON.parse(r.stdout).at(-1);
      checkErrorEnvelope(envelope, 'error_plain_text');
      assert.equal(envelope.error.message, 'weld: ' + expected);
      assert.equal(envelope.num_turns, 2);
    } finally { await server.close(); }
  });

  test(`${api}: turn limit: exit 53, the note, an envelope in both JSON modes`, async () => {
    for (const format of ['text', 'json', 'stream-json']) {
      const server = await startServer([{ tool_calls: [{ name: 'list_directory', arguments: {} }] }], { repeatLast: true });
      try {
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
          '--max-session-turns', '2', '--output-format', format], { env });
        assert.equal(r.code, 53, r.stderr);
        assert.equal(r.stderr,
          weldLines('Reached max session turns (2). Increase --max-session-turns to allow more.\n' + MAX_TURNS_NOTE + '\n'));
        assert.equal((await server.requests()).length, 2);
        if (format === 'text') assert.equal(r.stdout, '');
        const envelope = format === 'json' ? JSON.parse(r.stdout).at(-1)
          : format === 'stream-json' ? parseLines(r.stdout).at(-1) : null;
        if (envelope) {
          checkErrorEnvelope(envelope, 'error_max_turns');
          assert.equal(envelope.num_turns, 2);
          assert.equal(envelope.usage.input_tokens, 22);
        }
      } finally { await server.close(); }
    }
  });

  test(`${api}: retries exhausted: the (N+1)-th invalid call ends the run`, async () => {
    const server = await startServer([so('{"summary":"x"}')], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--max-structured-retries', '2', '--output-format', 'stream-json'], { env });
      assert.equal(r.code, 1);
      assert.equal((await server.requests()).length, 3);
      const envelope = parseLines(r.stdout).at(-1);
      checkErrorEnvelope(envelope, 'error_max_structured_output_retries');
      assert.equal(envelope.attempts, 3);
      assert.deepEqual(envelope.last_candidate, { summary: 'x' });
      assert.equal(r.stderr, 'weld: structured_output arguments failed validation 3 time(s); --max-structured-retries 2 '
        + "allows 2 retries. Last validation error: params must have required property 'risk_level'\n");
    } finally { await server.close(); }
  });

  for (const sig of ['SIGINT', 'SIGTERM']) {
    for (const format of ['text', 'json']) {
      test(`${api}: ${sig} while the stream is stalled: 130 within a second (${format})`, async () => {
        const server = await startServer([{ ...so('{"summary":"x","risk_level":"low"}'), stall_after: 2, stall_ms: 30000 }]);
        try {
          const r = await runCancelled([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
            '--output-format', format], { env }, {
            signal: sig,
            ready: async () => {
              await waitFor(async () => (await server.requests()).length > 0);
              await new Promise((res) => setTimeout(res, 150));  // the stream is now stalled mid-answer
            },
          });
          if (format === 'text') assert.equal(r.stdout, '');
          else checkErrorEnvelope(JSON.parse(r.stdout).at(-1), 'error_cancelled');
        } finally { await server.close(); }
      });
    }
  }

  test(`${api}: 401: exit 41, an error envelope, no request retried`, async () => {
    const server = await startServer([{ status: 401 }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env });
      assert.equal(r.code, 41, r.stderr);
      checkErrorEnvelope(JSON.parse(r.stdout).at(-1), 'error_api');
      assert.equal((await server.requests()).length, 1);
    } finally { await server.close(); }
  });

  test(`${api}: 403 is also 41`, async () => {
    const server = await startServer([{ status: 403 }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 41, r.stderr);
      assert.equal(r.stdout, '');
    } finally { await server.close(); }
  });

  test(`${api}: a 400 error is exit 1 with an error_api envelope`, async () => {
    const server = await startServer([{ status: 400 }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'stream-json'], { env });
      assert.equal(r.code, 1, r.stderr);
      checkErrorEnvelope(parseLines(r.stdout).at(-1), 'error_api');
    } finally { await server.close(); }
  });

  test(`${api}: --max-tool-calls: exit 55 (structured_output does not count)`, async () => {
    const server = await startServer([
      so('{"summary":"x"}'),
      { tool_calls: [{ name: 'list_directory', arguments: {} }] },
      { tool_calls: [{ name: 'list_directory', arguments: {} }] },
    ]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--max-tool-calls', '1', '--output-format', 'json'], { env });
      assert.equal(r.code, 55, r.stderr);
      assert.equal(r.stderr, weldLines('Exceeded --max-tool-calls (1).\n'));
      checkErrorEnvelope(JSON.parse(r.stdout).at(-1), 'error_budget');
    } finally { await server.close(); }
  });

  test(`${api}: --max-wall-time interrupts a stalled request: exit 55`, async () => {
    const server = await startServer([{ ...so('{"summary":"x","risk_level":"low"}'), stall_after: 1, stall_ms: 30000 }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--max-wall-time', '0.5'], { env });
      assert.equal(r.code, 55, r.stderr);
      assert.equal(r.stderr, weldLines('Exceeded --max-wall-time (0.5 s).\n'));
      assert.ok(r.ms < 5000, `took ${r.ms} ms`);
    } finally { await server.close(); }
  });

  test(`${api}: --exclude-tools structured_output: the model never sees it`, async () => {
    const server = await startServer([{ text: 'no tool for me' }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--exclude-tools', 'structured_output,glob', '--core-tools', 'read_file'], { env });
      assert.equal(r.code, 1);
      const requests = await server.requests();
      const names = (requests[0].body.tools || []).map((t) => (api === 'openai' ? t.function.name : t.name));
      assert.deepEqual(names, ['read_file']);
    } finally { await server.close(); }
  });
}
