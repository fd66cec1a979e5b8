// `weld batch` against tests/fake_model/server.js over both wire protocols:
// each row is a real run (requests, validation, retries), a 429 with
// Retry-After pauses the whole batch, and the endings that stop a batch
// (41, 75, 130) leave exactly the unfinished rows for the rerun.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  runWeld, startServer, providerArgs, tempDir, SCHEMA_TEXT, API_KEY, writeRows, resultLines, dataRows,
  assertExactlyOnce, waitFor, firstUserText,
} from './lib.mjs';

const OK = '{"summary":"ok","risk_level":"low"}';
const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });
const APIS = ['openai', 'anthropic'];
const env = { WELD_API_KEY: API_KEY };

for (const api of APIS) {
  test(`${api}: rows run as runs: the prompt is the row, a blank line, then --prompt; invalid answers are retried`, async () => {
    const server = await startServer([so('{"summary":"x"}'), so(OK)], { repeatLast: true });
    try {
      const dir = tempDir();
      const input = writeRows(dir, 'in.jsonl', [{ id: 'r0', text: 'first' }]);
      const r = await runWeld(['batch', ...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT,
        '--prompt', 'Assess the risk', input, '--concurrency', '1'], { env });
      assert.equal(r.code, 0, r.stderr);
      const [line] = resultLines(r.stdout);
      assert.equal(line.custom_id, 'r0');
      assert.equal(line.status, 'succeeded');
      assert.deepEqual(line.structured_result, { summary: 'ok', risk_level: 'low' });
      assert.equal(line.attempts, 2);
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.equal(firstUserText(requests[0]), '{"id":"r0","text":"first"}\n\nAssess the risk');
      assert.ok(!r.stderr.includes(API_KEY));
    } finally { await server.close(); }
  });

  test(`${api}: a 429 with Retry-After pauses every new request of the batch`, async () => {
    const server = await startServer([{ status: 429, headers: { 'retry-after': '1' } }, so(OK)], { repeatLast: true });
    try {
      const dir = tempDir();
      const rows = dataRows(12);
      const input = writeRows(dir, 'in.jsonl', rows);
      const r = await runWeld(['batch', ...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
        input, '--concurrency', '4'], { env });
      assert.equal(r.code, 0, r.stderr);
      assertExactlyOnce(resultLines(r.stdout), rows.map((x) => x.id));
      assert.match(r.stderr, /1 rate-limit pauses/);
      const requests = await server.requests();
      const t429 = requests[0].at;
      // Only the other workers' requests already on their way when the 429
      // was answered (at most concurrency - 1 = 3; under load they can land
      // late) may arrive before the second has passed. Without the pause the
      // workers would run the other 11 rows within that second.
      const early = requests.slice(1).filter((q) => q.at < t429 + 1000);
      assert.ok(early.length <= 3, `${early.length} requests within the pause: ${early.map((q) => q.at - t429)}`);
      assert.ok(requests.filter((q) => q.at >= t429 + 1000).length >= 9, 'most rows ran after the pause');
    } finally { await server.close(); }
  });

  test(`${api}: refused credentials stop the batch with 41 and no line for the unanswered rows`, async () => {
    const server = await startServer([so(OK), { status: 401 }], { repeatLast: true });
    try {
      const dir = tempDir();
      const out = path.join(dir, 'out.jsonl');
      const input = writeRows(dir, 'in.jsonl', dataRows(20));
      const r = await runWeld(['batch', ...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
        input, '-o', out, '--concurrency', '1'], { env });
      assert.equal(r.code, 41, r.stderr);
      assert.match(r.stderr, /the provider refused the credentials: HTTP 401/);
      // What to fix, not only "rerun": a rerun cannot fix a key.
      assert.match(r.stderr, /weld batch: stopped: the provider refused the credentials, so every row would fail\. Check the API key \(WELD_API_KEY, or OPENAI_API_KEY \/ ANTHROPIC_API_KEY\)/);
      assert.doesNotMatch(r.stderr, /run the same command again to resume/);
      // The summary counts every row of the shard, not the ones read before the stop.
      assert.match(r.stderr, /weld batch: 20 rows: 1 succeeded, 0 errored, 19 not done;/);
      assert.equal(resultLines(fs.readFileSync(out, 'utf8')).length, 1);
      assert.ok((await server.requests()).length <= 3, 'the batch stopped instead of failing every row');
    } finally { await server.close(); }
  });

  test(`${api}: 503s that outlast the retries stop the batch with 75; the rerun finishes it`, async () => {
    const server = await startServer([so(OK), so(OK), { status: 503, headers: { 'retry-after': '0' } }], { repeatLast: true });
    const dir = tempDir();
    const out = path.join(dir, 'out.jsonl');
    const rows = dataRows(10);
    const input = writeRows(dir, 'in.jsonl', rows);
    const args = ['batch', ...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input, '-o', out,
      '--concurrency', '1', '--max-retries', '1'];
    try {
      const r = await runWeld(args, { env });
      assert.equal(r.code, 75, r.stderr);
      assert.match(r.stderr, /HTTP 503 Service Unavailable after 2 attempts/);
      assert.equal(resultLines(fs.readFileSync(out, 'utf8')).length, 2);
    } finally { await server.close(); }
    const healthy = await startServer([so(OK)], { repeatLast: true });
    try {
      const port = healthy.port;
      const rerun = await runWeld(['batch', ...providerArgs(api, port), ...args.slice(7)], { env });
      assert.equal(rerun.code, 0, rerun.stderr);
      assert.match(rerun.stderr, /2 rows already answered/);
      assertExactlyOnce(resultLines(fs.readFileSync(out, 'utf8')), rows.map((x) => x.id));
      assert.equal((await healthy.requests()).length, 8);
    } finally { await healthy.close(); }
  });
}

test('with -o - a stopped batch does not promise a resume: the rerun runs every row again', async () => {
  for (const [script, code, why] of [
    [[so(OK), { status: 401 }], 41, /once the key is accepted, run it again: with -o - there is no file to resume from, so every row of the shard runs again \(-o FILE resumes\)\.\n/],
    [[so(OK), { status: 503, headers: { 'retry-after': '0' } }], 75, /run the same command again later: with -o - there is no file to resume from, so every row of the shard runs again \(-o FILE resumes\)\.\n/],
  ]) {
    const server = await startServer(script, { repeatLast: true });
    try {
      const dir = tempDir();
      const input = writeRows(dir, 'in.jsonl', dataRows(5));
      const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
        input, '-o', '-', '--concurrency', '1', '--max-retries', '0'], { env });
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, why);
      assert.doesNotMatch(r.stderr, /resumes where this one stopped/);
      assert.equal(resultLines(r.stdout).length, 1);
    } finally { await server.close(); }
  }
});

test('SIGINT: exit 130 within a second, finished rows written; the rerun completes exactly once', async () => {
  const server = await startServer([{ ...so(OK), delay_ms: 100 }], { repeatLast: true });
  try {
    const dir = tempDir();
    const out = path.join(dir, 'out.jsonl');
    const rows = dataRows(200);
    const input = writeRows(dir, 'in.jsonl', rows);
    const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input,
      '-o', out, '--concurrency', '4'];
    let sentAt = 0;
    const r = await runWeld(args, {
      env,
      onStart: async (child) => {
        await waitFor(async () => (await server.requests()).length >= 12);
        sentAt = Date.now();
        child.kill('SIGINT');
      },
    });
    assert.equal(r.code, 130, r.stderr);
    assert.ok(Date.now() - sentAt < 1500, 'ended promptly');
    assert.match(r.stderr, /Operation cancelled\.\n/);
    const partial = resultLines(fs.readFileSync(out, 'utf8'));
    assert.ok(partial.length >= 4 && partial.length < 200, `${partial.length} lines`);
    const rerun = await runWeld(args, { env, timeoutMs: 60000 });
    assert.equal(rerun.code, 0, rerun.stderr);
    assertExactlyOnce(resultLines(fs.readFileSync(out, 'utf8')), rows.map((x) => x.id));
  } finally { await server.close(); }
});

test('--max-rps spaces the request starts', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', dataRows(6));
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      input, '--max-rps', '10', '--concurrency', '6'], { env });
    assert.equal(r.code, 0, r.stderr);
    const at = (await server.requests()).map((q) => q.at).sort((a, b) => a - b);
    // Five gaps of 100 ms between starts; the first request's connection set-up
    // can delay its arrival, so the bound leaves room. Unpaced, all six land
    // within a few milliseconds.
    assert.ok(at.at(-1) - at[0] >= 300, `6 requests at 10/s took ${at.at(-1) - at[0]} ms`);
  } finally { await server.close(); }
});

// A stream that ends without its terminal event became a final errored row
// (exit 1): it is sent again like after a 5xx, and when every attempt is cut
// the batch stops with 75 and the rerun finishes it (docs/protocols.md, "End
// of stream").
test('a stream cut before its terminal event is retried; cut every time, the batch stops with 75', async () => {
  const server = await startServer([so(OK), { ...so(OK), end_after: 3 }, so(OK), { ...so(OK), end_after: 3 }],
    { repeatLast: true });
  const dir = tempDir();
  const out = path.join(dir, 'out.jsonl');
  const rows = dataRows(4);
  const input = writeRows(dir, 'in.jsonl', rows);
  const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input, '-o', out,
    '--concurrency', '1', '--max-retries', '1'];
  try {
    const r = await runWeld(args, { env });
    assert.equal(r.code, 75, r.stderr);
    assert.match(r.stderr, /the response stream ended early: .* after 2 attempts/);
    const lines = resultLines(fs.readFileSync(out, 'utf8'));
    assert.deepEqual(lines.map((l) => l.status), ['succeeded', 'succeeded'], 'the cut row got no final errored line');
  } finally { await server.close(); }
});

// The batch's request gate wraps each response: what the transport asks of
// the response (a whole answer, keep-alive bytes) must pass through it. A
// complete answer on a connection that stays open cost each row the idle
// timeout.
test('rows whose answers arrive whole on connections that stay open end at once', async () => {
  const server = await startServer([{ ...so(OK), hold_open: true }], { repeatLast: true });
  try {
    const dir = tempDir();
    const rows = dataRows(3);
    const input = writeRows(dir, 'in.jsonl', rows);
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input,
      '-o', path.join(dir, 'out.jsonl'), '--idle-timeout', '30'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.ms < 10000, `${r.ms} ms: a row waited for the idle timeout`);
    assertExactlyOnce(resultLines(fs.readFileSync(path.join(dir, 'out.jsonl'), 'utf8')), rows.map((x) => x.id));
  } finally { await server.close(); }
});

// The run and the batch set up from flags one way (docs/run.md,
// "Mechanisms"): with HOME unusable (unset, relative, or not a directory)
// neither reads nor writes anything under ~/.weld, so `--mechanism auto`
// probes every time and creates no ~/.weld tree; with a usable HOME both
// remember the probe's verdict there.
test('--mechanism auto: the run and the batch remember the probe under a usable HOME only', async () => {
  const server = await startServer([{ text: 'hello' }, { text: OK }], { repeatLast: true, responseFormat: 'enforce' });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', [{ id: 'r0', text: 'first' }]);
    const missing = path.join(dir, 'no-such-home');
    const batchArgs = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input,
      '--concurrency', '1', '--mechanism', 'auto'];
    const runArgs = [...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--mechanism', 'auto'];
    const probes = async () => (await server.requests()).filter((q) => JSON.stringify(q.body).includes('weld_probe')).length;

    for (const args of [batchArgs, runArgs]) {
      const before = await probes();
      const r = await runWeld(args, { env, home: missing, cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await probes(), before + 1, 'probed');
      assert.ok(!fs.existsSync(missing), `${args[0]}: no ~/.weld tree under an unusable HOME`);
    }

    const home = tempDir();
    for (const args of [batchArgs, runArgs]) {
      const r = await runWeld(args, { env, home, cwd: dir });
      assert.equal(r.code, 0, r.stderr);
    }
    // The batch probed and remembered; the run then needed no probe.
    assert.equal(await probes(), 3);
    const cache = JSON.parse(fs.readFileSync(path.join(home, '.weld/mechanisms.json'), 'utf8'));
    assert.deepEqual(Object.values(cache.entries).map((e) => e.native), [true]);
  } finally { await server.close(); }
});

test('Claude Code\'s flag names in weld batch: --permission-mode, --dangerously-skip-permissions, --allowedTools, '
  + '--disallowedTools, --append-system-prompt, --max-turns; the run\'s flags a batch has no use for say why', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const offered = async (extra) => {
      const before = (await server.requests()).length;
      const dir = tempDir();
      const input = writeRows(dir, 'in.jsonl', [{ id: 'r0', text: 'first' }]);
      const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT,
        input, '--concurrency', '1', ...extra], { env, cwd: dir });
      assert.equal(r.code, 0, r.stderr);
      const requests = await server.requests();
      return { request: requests[before], names: requests[before].body.tools.map((t) => t.function.name).sort() };
    };
    const none = await offered([]);
    assert.deepEqual(none.names, ['structured_output']);
    const plan = await offered(['--permission-mode', 'plan']);
    assert.ok(plan.names.includes('read_file') && !plan.names.includes('write_file'), plan.names.join(','));
    const edits = await offered(['--permission-mode', 'acceptEdits']);
    assert.ok(edits.names.includes('write_file') && !edits.names.includes('run_shell_command'), edits.names.join(','));
    const skip = await offered(['--dangerously-skip-permissions']);
    const yolo = await offered(['--yolo']);
    assert.deepEqual(skip.names, yolo.names);
    assert.ok(skip.names.includes('run_shell_command'));
    const without = await offered(['--dangerously-skip-permissions', '--disallowedTools', 'Bash,Write']);
    assert.ok(!without.names.includes('run_shell_command') && !without.names.includes('write_file'), without.names.join(','));
    const allowed = await offered(['--allowedTools', 'Bash(echo:*)']);
    assert.ok(allowed.names.includes('run_shell_command'), allowed.names.join(','));
    const prompted = await offered(['--system-prompt', 'Be brief.', '--append-system-prompt', 'Answer in French.',
      '--max-turns', '3']);
    assert.equal(prompted.request.body.messages.find((m) => m.role === 'system').content, 'Be brief.\n\nAnswer in French.');
  } finally { await server.close(); }
  const bad = await runWeld(['batch', 'in.jsonl', '--json-schema', SCHEMA_TEXT, '--permission-mode', 'sometimes']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^weld batch: --permission-mode must be one of default, acceptEdits, plan, bypassPermissions, dontAsk \(got "sometimes"\)\.\n/);
  const mcp = await runWeld(['batch', 'in.jsonl', '--json-schema', SCHEMA_TEXT, '--mcp-config', '{}']);
  assert.equal(mcp.code, 1);
  assert.match(mcp.stderr, /^weld batch: --mcp-config is a flag of the run, not of weld batch: rows run no MCP servers; give each row the data it needs\.\n/);
});
