// docs/run.md, "Output formats": in `json` and `stream-json` every ending —
// the ones before the first request included (flags, prompt, schema,
// settings, configuration) — leaves exactly one parseable error envelope on
// stdout whose error.message is the stderr message; text mode keeps stdout
// empty. Also the network flags --connect-timeout, --idle-timeout and
// --max-retries, with their validation messages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA_TEXT, parseLines, providerArgs, runWeld, so, startServer, tempDir, weldLines
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"low"}';
const HINT = "\nweld: Run 'weld --help' for usage.\n";
const NO_PROMPT =
  'weld: No input provided via stdin. Input can be provided by piping data into weld or using the --prompt option.\n';

/** The one envelope of `stdout` in `format`, checked for shape. */
function soleEnvelope(stdout, format) {
  let envelope;
  if (format === 'json') {
    const array = JSON.parse(stdout);
    assert.ok(Array.isArray(array));
    assert.equal(array.length, 1, 'nothing ran, so the array holds only the envelope');
    envelope = array[0];
    assert.ok(stdout.endsWith(']\n'));
  } else {
    const lines = parseLines(stdout);
    assert.equal(lines.length, 1);
    envelope = lines[0];
  }
  assert.equal(envelope.type, 'result');
  assert.equal(envelope.subtype, 'error_during_execution');
  assert.equal(envelope.is_error, true);
  assert.equal(envelope.structured_result, undefined);
  assert.equal(envelope.num_turns, 0);
  assert.equal(envelope.attempts, 0);
  assert.deepEqual(envelope.usage, { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0,
    cache_creation_input_tokens: 0 });
  assert.match(envelope.session_id, /^[0-9a-f-]{36}$/);
  assert.equal(envelope.result, envelope.error.message);
  return envelope;
}

// Each case: [name, (dir, port) -> {args, env?, cwd?, home?}, exit code, expected stderr (string | RegExp)].
const CASES = [
  ['no prompt', () => ({ args: ['--json-schema', SCHEMA_TEXT] }), 1, NO_PROMPT],
  ['conflicting flags', () => ({ args: ['-p', 'x', '--yolo', '--approval-mode', 'default'] }), 1,
    'weld: Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.' + HINT],
  ['unknown flag', () => ({ args: ['-p', 'x', '--no-such-flag'] }), 1,
    'weld: unknown flag --no-such-flag.' + HINT],
  ['-p and a positional prompt', () => ({ args: ['-p', 'x', 'also'] }), 1,
    'weld: give the prompt either with -p/--prompt or as a positional argument, not both.' + HINT],
  ['bad --mechanism', () => ({ args: ['-p', 'x', '--mechanism', 'magic'] }), 1,
    'weld: --mechanism must be one of tool, native, auto (got "magic").' + HINT],
  ['schema not JSON', () => ({ args: ['-p', 'x', '--json-schema', '{"type":'] }), 52,
    /^weld: --json-schema is not valid JSON: .+\n$/],
  ['schema root rejects objects', () => ({ args: ['-p', 'x', '--json-schema', '{"type":"string"}'] }), 52,
    /^weld: --json-schema root must accept object-typed values/],
  ['schema file missing', (dir) => ({ args: ['-p', 'x', '--json-schema', `@${path.join(dir, 'nope.json')}`] }), 52,
    /^weld: --json-schema .*nope\.json.*\n$/],
  ['settings not JSON', (dir) => {
    fs.mkdirSync(path.join(dir, '.weld'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.weld/settings.json'), '{"permissions": ');
    return { args: ['-p', 'x', '--json-schema', SCHEMA_TEXT], home: dir, cwd: dir };
  }, 52, /^weld: Settings file ".*settings\.json" is not valid JSON: .+\n$/],
  ['bad settings mechanism', (dir) => {
    fs.mkdirSync(path.join(dir, '.weld'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.weld/settings.json'), '{"mechanism": "psychic"}');
    return { args: ['-p', 'x', '--json-schema', SCHEMA_TEXT], home: dir, cwd: dir };
  }, 52, (dir) => `weld: Settings file "${path.join(dir, '.weld/settings.json')}": mechanism must be "tool", "native" or "auto".\n`],
  ['bad mcpServers', (dir) => {
    fs.mkdirSync(path.join(dir, '.weld'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.weld/settings.json'), '{"mcpServers": {"tools": {"args": []}}}');
    return { args: ['-p', 'x', '--json-schema', SCHEMA_TEXT], home: dir, cwd: dir };
  }, 52, (dir) => `weld: Settings file "${path.join(dir, '.weld/settings.json')}": mcpServers.tools.command is missing.\n`],
  ['unknown provider', () => ({ args: ['-p', 'x', '--provider', 'acme'] }), 52,
    '--provider: unknown provider "acme" (expected openai, openai-responses, anthropic or offline)\n'],
  ['bad WELD_MECHANISM', () => ({ args: ['-p', 'x', '--json-schema', SCHEMA_TEXT], env: { WELD_MECHANISM: 'both' } }), 52,
    'WELD_MECHANISM must be one of tool, native, auto (got "both").\n'],
  ['bad WELD_IDLE_TIMEOUT', () => ({ args: ['-p', 'x'], env: { WELD_IDLE_TIMEOUT: 'soon' } }), 52,
    'WELD_IDLE_TIMEOUT must be a number of seconds, got "soon"\n'],
  ['missing session', () => ({ args: ['-p', 'x', '--resume', 'nope'] }), 1, /^weld: No session "nope" for .+\n$/],
  ['--connect-timeout not a number', () => ({ args: ['-p', 'x', '--connect-timeout', 'abc'] }), 1,
    'weld: --connect-timeout must be a number of seconds greater than 0 and at most 86400 (got "abc").' + HINT],
  ['--connect-timeout zero', () => ({ args: ['-p', 'x', '--connect-timeout', '0'] }), 1,
    'weld: --connect-timeout must be a number of seconds greater than 0 and at most 86400 (got "0").' + HINT],
  ['--idle-timeout too large', () => ({ args: ['-p', 'x', '--idle-timeout', '86401'] }), 1,
    'weld: --idle-timeout must be a number of seconds greater than 0 and at most 86400 (got "86401").' + HINT],
  ['--idle-timeout negative', () => ({ args: ['-p', 'x', '--idle-timeout=-2'] }), 1,
    'weld: --idle-timeout must be a number of seconds greater than 0 and at most 86400 (got "-2").' + HINT],
  ['--max-retries not whole', () => ({ args: ['-p', 'x', '--max-retries', '1.5'] }), 1,
    'weld: --max-retries must be a whole number from 0 to 100 (got "1.5").' + HINT],
  ['--max-retries too many', () => ({ args: ['-p', 'x', '--max-retries', '101'] }), 1,
    'weld: --max-retries must be a whole number from 0 to 100 (got "101").' + HINT],
  ['--max-response-bytes below 1 KiB', () => ({ args: ['-p', 'x', '--max-response-bytes', '100'] }), 1,
    'weld: --max-response-bytes must be a number of bytes from 1024 to 1T, K, M and G allowed (got "100").' + HINT],
];

for (const [name, make, code, expected] of CASES) {
  for (const format of ['text', 'json', 'stream-json']) {
    test(`before the run: ${name} (${format}): exit ${code}, ${format === 'text' ? 'empty stdout' : 'one envelope'}`, async () => {
      const dir = tempDir();
      const server = await startServer([so(OK)]);
      try {
        const c = make(dir, server.port);
        const usesProvider = !c.args.includes('--provider');
        const args = [...(usesProvider ? providerArgs('openai', server.port) : []), ...c.args];
        if (format !== 'text') args.push('--output-format', format);
        const r = await runWeld(args, { env: { ...env, ...(c.env || {}) }, home: c.home, cwd: c.cwd, timeoutMs: 10000 });
        assert.equal(r.code, code, r.stderr);
        const want = typeof expected === 'function' ? expected(dir) : expected;
        if (want instanceof RegExp) assert.match(r.stderr, want); else assert.equal(r.stderr, weldLines(want));
        if (format === 'text') {
          assert.equal(r.stdout, '');
        } else {
          const envelope = soleEnvelope(r.stdout, format);
          assert.equal(envelope.error.message + '\n', r.stderr);
        }
        assert.equal((await server.requests()).length, 0, 'nothing was sent to the model');
      } finally { await server.close(); fs.rmSync(dir, { recursive: true, force: true }); }
    });
  }
}

test('the format is taken from -o and --output-format=… too', async () => {
  for (const [args, format] of [[['-ojson'], 'json'], [['-o', 'stream-json'], 'stream-json'],
    [['--output-format=stream-json'], 'stream-json']]) {
    const r = await runWeld(['--bogus', ...args]);
    assert.equal(r.code, 1);
    const envelope = soleEnvelope(r.stdout, format);
    assert.equal(envelope.error.message, "weld: unknown flag --bogus.\nweld: Run 'weld --help' for usage.");
  }
  // An invalid format value: nothing can be assumed, so text mode's empty stdout.
  const r = await runWeld(['-p', 'x', '--output-format', 'yaml']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^weld: --output-format: yaml not in \{text,json,stream-json,result\}/);
});

for (const api of APIS) {
  test(`${api}: --max-retries N: N+1 attempts on 500s, 0 means one; exit 75 (temporary) when they run out`, async () => {
    const failing = { status: 500, headers: { 'retry-after': '0' } };
    for (const [n, attempts] of [['0', 1], ['2', 3]]) {
      const server = await startServer([failing], { repeatLast: true });
      try {
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
          '--max-retries', n, '--output-format', 'json'], { env: { ...env, WELD_MAX_RETRIES: 'junk' } });
        assert.equal(r.code, 75, r.stderr);
        assert.equal((await server.requests()).length, attempts);
        const envelope = JSON.parse(r.stdout).at(-1);
        assert.equal(envelope.subtype, 'error_api');
        assert.equal(envelope.error.message + '\n', r.stderr);
      } finally { await server.close(); }
    }
  });

  test(`${api}: exit 75 for 429s after the retries and for a server that cannot be reached; 1 for a 400`, async () => {
    const server = await startServer([{ status: 429, headers: { 'retry-after': '0' } }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--max-retries', '1'], { env });
      assert.equal(r.code, 75, r.stderr);
      assert.match(r.stderr, /^weld: HTTP 429 Too Many Requests after 2 attempts/);
      assert.equal((await server.requests()).length, 2);
    } finally { await server.close(); }
    const closed = await startServer([so(OK)]);
    const port = closed.port;
    await closed.close();
    const refused = await runWeld([...providerArgs(api, port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--max-retries', '0'], { env });
    assert.equal(refused.code, 75, refused.stderr);
    assert.match(refused.stderr, /^weld: could not connect/);
    const bad = await startServer([{ status: 400 }]);
    try {
      const r = await runWeld([...providerArgs(api, bad.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 1, r.stderr);
    } finally { await bad.close(); }
  });

  test(`${api}: --idle-timeout abandons a stalled stream; the flag beats WELD_IDLE_TIMEOUT`, async () => {
    const server = await startServer([{ ...so(OK), stall_after: 2, stall_ms: 30000 }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--idle-timeout', '0.5', '--max-retries', '0'], { env: { ...env, WELD_IDLE_TIMEOUT: '600' } });
      assert.equal(r.code, 75, r.stderr);  // a stalled stream is a temporary failure
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^weld: no data received for 0\.5 s \(idle timeout\); the response stream stalled/);
      assert.ok(r.ms < 10000, `took ${r.ms} ms`);
    } finally { await server.close(); }
  });

  test(`${api}: --connect-timeout is taken (a bad WELD_CONNECT_TIMEOUT no longer matters)`, async () => {
    const server = await startServer([so(OK)]);
    try {
      const bad = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
        { env: { ...env, WELD_CONNECT_TIMEOUT: 'never' } });
      assert.equal(bad.code, 52);
      assert.equal(bad.stderr, weldLines('WELD_CONNECT_TIMEOUT must be a number of seconds, got "never"\n'));
      const good = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--connect-timeout', '2.5'], { env: { ...env, WELD_CONNECT_TIMEOUT: 'never' } });
      assert.equal(good.code, 0, good.stderr);
      assert.equal(good.stdout, OK + '\n');
    } finally { await server.close(); }
  });
}

test('--help documents the network flags and --mechanism', async () => {
  const r = await runWeld(['--help']);
  assert.equal(r.code, 0);
  for (const flag of ['--connect-timeout SECONDS', '--idle-timeout SECONDS', '--max-retries N', '--mechanism MECHANISM']) {
    assert.ok(r.stdout.includes(flag), flag);
  }
});
