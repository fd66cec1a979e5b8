// Trust at the edges of the run, driving the real weld binary:
// file tools that stay in the workspace, scoped allow rules, children
// without the API key, and signals while stdin is still being read.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  API_KEY, SCHEMA_TEXT, WELD, providerArgs, runWeld, so, startServer, tempDir, toolResults, waitFor, walkFiles, weldLines
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const call = (name, args, id) => ({ tool_calls: [{ name, arguments: JSON.stringify(args), id }] });
const ANSWER = so('{"summary":"x","risk_level":"low"}');

test('grep_search over a directory with a link out of the workspace does not return the outside file', async () => {
  const work = tempDir('weld-ws-');
  const outside = tempDir('weld-outside-');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOPSECRET-outside\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(work, 'link.txt'));
  fs.symlinkSync(outside, path.join(work, 'dirlink'));
  const server = await startServer([call('grep_search', { pattern: 'TOPSECRET' }, 'g1'),
    call('write_file', { path: 'dangling', content: 'x' }, 'w1'), ANSWER]);
  fs.symlinkSync(path.join(outside, 'created.txt'), path.join(work, 'dangling'));
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--yolo'], { env, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const results = toolResults((await server.requests())[2], 'openai');
    assert.equal(results[0].content, `No matches for "TOPSECRET" under ${work}.\n`
      + '[3 symbolic link(s) leading outside the workspace (or nowhere) skipped]\n');
    assert.match(results[1].content, /is outside the workspace/);
    assert.equal(fs.existsSync(path.join(outside, 'created.txt')), false);
  } finally { await server.close(); }
});

test('a scoped allow rule runs only its command, never a chained one', async () => {
  const work = tempDir('weld-ws-');
  fs.mkdirSync(path.join(work, '.weld'));
  fs.writeFileSync(path.join(work, '.weld/settings.json'),
    JSON.stringify({ permissions: { allow: ['run_shell_command(echo allowed)'] } }));
  const server = await startServer([
    call('run_shell_command', { command: 'echo allowed; touch pwned' }, 's1'),
    call('run_shell_command', { command: 'touch pwned' }, 's2'),
    call('run_shell_command', { command: 'echo allowed here' }, 's3'),
    ANSWER]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const results = toolResults((await server.requests())[3], 'openai');
    assert.equal(results[0].content, 'run_shell_command: not allowed: the allow rules (run_shell_command(echo allowed)) '
      + 'cover one simple command; this one contains ";" (a second command).');
    assert.equal(results[1].content, 'run_shell_command: not allowed: the command matches none of the allow rules '
      + '(run_shell_command(echo allowed)).');
    assert.match(results[2].content, /Exit code: 0\nOutput:\nallowed here\n$/);
    assert.equal(fs.existsSync(path.join(work, 'pwned')), false);
  } finally { await server.close(); }
});

test('a scoped write_file rule is a configuration error (exit 52), not a grant', async () => {
  const work = tempDir('weld-ws-');
  fs.mkdirSync(path.join(work, '.weld'));
  fs.writeFileSync(path.join(work, '.weld/settings.json'), JSON.stringify({ permissions: { allow: ['edit(src/**)'] } }));
  const r = await runWeld(['-p', 'x', '--json-schema', SCHEMA_TEXT], { cwd: work });
  assert.equal(r.code, 52, r.stderr);
  assert.match(r.stderr, /weld enforces scoped rules for run_shell_command only/);
});

test('the API key reaches neither a shell command, a hook, nor the model', async () => {
  const work = tempDir('weld-ws-');
  fs.mkdirSync(path.join(work, '.weld'));
  const hookLog = path.join(work, 'hook-env.txt');
  fs.writeFileSync(path.join(work, '.weld/settings.json'), JSON.stringify({
    hooks: { PreToolUse: [{ hooks: [{ type: 'command', command: `env > ${hookLog}` }] }] },
  }));
  fs.writeFileSync(path.join(work, 'notes.txt'), `key is ${API_KEY}\n`);
  const server = await startServer([
    call('run_shell_command', { command: 'env; echo "[$MY_PROXY_TOKEN]"' }, 's1'),
    call('read_file', { path: 'notes.txt' }, 'r1'),
    ANSWER]);
  try {
    // The key in use comes from a variable weld does not know by name here:
    // it is still kept from children (and scrubbed from what tools return).
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--yolo'], { env: { ...env, OPENAI_API_KEY: API_KEY, MY_PROXY_TOKEN: API_KEY }, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const requests = await server.requests();
    const results = toolResults(requests[2], 'openai');
    const shellOutput = results[0].content.split('Output:\n')[1];
    assert.doesNotMatch(shellOutput, /API_KEY|MY_PROXY_TOKEN|sk-weld/);
    assert.match(shellOutput, /\n\[\]\n$/);
    assert.equal(results[1].content, 'key is [REDACTED]\n');
    assert.equal(JSON.stringify(requests.map((q) => q.body)).includes(API_KEY), false);
    const hookEnv = fs.readFileSync(hookLog, 'utf8');
    assert.ok(hookEnv.includes('PATH='), hookEnv);
    assert.equal(hookEnv.includes(API_KEY), false);
  } finally { await server.close(); }
});

// weld with a pipe on stdin that is never closed: the signal arrives while it reads.
function runWithOpenStdin(args, { ignoreSigint = false, cwd }) {
  const home = tempDir('weld-home-');
  const command = ignoreSigint ? '/bin/bash' : WELD;
  const argv = ignoreSigint ? ['-c', 'trap "" INT; exec "$0" "$@"', WELD, ...args] : args;
  const child = spawn(command, argv, { cwd: cwd ?? home, env: { PATH: process.env.PATH, HOME: home, ...env },
    stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  child.stdin.on('error', () => {});
  child.stdin.write('PARTIAL\n');
  const done = new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15000);
    child.on('close', (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
  });
  return { child, done };
}

for (const [sig, ignoreSigint] of [['SIGINT', false], ['SIGTERM', false], ['SIGINT', true]]) {
  test(`${sig} while reading piped stdin${ignoreSigint ? ' (SIGINT ignored at start)' : ''}: 130, `
    + 'error_cancelled, nothing sent', async () => {
    const server = await startServer([ANSWER], { repeatLast: true });
    try {
      const { child, done } = runWithOpenStdin([...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT,
        '-o', 'json'], { ignoreSigint });
      // Until weld is blocked in read(0, …) (syscall 0, first argument 0 on x86-64 and arm64's 63 aside,
      // /proc says so); the machine may be slow to start it.
      await waitFor(() => {
        try {
          return /^(0|63) 0x0 /.test(fs.readFileSync(`/proc/${child.pid}/syscall`, 'utf8'));
        } catch { return false; }
      }, 10000);
      child.kill(sig);
      const r = await done;
      assert.equal(r.code, 130, r.stderr);
      assert.equal(r.stderr, weldLines('Operation cancelled.\n'));
      const envelope = JSON.parse(r.stdout).at(-1);
      assert.equal(envelope.subtype, 'error_cancelled');
      assert.equal(envelope.error.message, 'weld: Operation cancelled.');
      assert.equal((await server.requests()).length, 0);
    } finally { await server.close(); }
  });
}

test('--resume on a transcript that is a link to /dev/zero, or a FIFO, ends with a clear error', async () => {
  const home = tempDir('weld-home-');
  const first = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT], { home });
  assert.equal(first.code, 0, first.stderr);
  const transcript = walkFiles(home).find((f) => f.endsWith('.jsonl'));
  assert.ok(transcript, 'the offline run recorded its session');
  const id = path.basename(transcript, '.jsonl');
  fs.rmSync(transcript);
  fs.symlinkSync('/dev/zero', transcript);
  let r = await runWeld(['-p', 'x', '--json-schema', SCHEMA_TEXT, '--resume', id], { home, timeoutMs: 20000 });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, weldLines(`No session "${id}" for ${home}: Session transcript: "${transcript}" is not a regular file.\n`));
  fs.rmSync(transcript);
  execFileSync('mkfifo', [transcript]);
  r = await runWeld(['-p', 'x', '--json-schema', SCHEMA_TEXT, '--continue'], { home, timeoutMs: 20000 });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /is not a regular file\.\n$/);
});

test('/dev/zero as standard input is refused with a message naming the cap', async () => {
  const home = tempDir('weld-home-');
  const r = await new Promise((resolve) => {
    const child = spawn(WELD, ['--json-schema', SCHEMA_TEXT], {
      cwd: home, env: { PATH: process.env.PATH, HOME: home }, stdio: [fs.openSync('/dev/zero', 'r'), 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20000);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stderr }); });
  });
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, weldLines('Standard input is more than 16 MiB; weld reads at most that much prompt.\n'));
});

test('a missing HOME is not created', async () => {
  const parent = tempDir('weld-home-parent-');
  const home = path.join(parent, 'missing');
  const r = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT], { home, cwd: parent });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.existsSync(home), false);
  assert.match(r.stderr, /weld: warning: HOME \(".*missing"\) is not a directory; the session is not recorded\.\n/);
});

test('--max-response-bytes caps one response: exit 1 naming the cap, and the request is not retried', async () => {
  const huge = `{"summary":"${'x'.repeat(200000)}","risk_level":"low"}`;
  const server = await startServer([so(huge)], { repeatLast: true });
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--max-response-bytes', '64K'], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the server sent more than 64 KiB in one response \(the cap, --max-response-bytes or WELD_MAX_RESPONSE_BYTES\)/);
    assert.equal((await server.requests()).length, 1);
    // The same answer under the default cap is read whole and valid.
    const ok = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(ok.code, 0, ok.stderr);
  } finally { await server.close(); }
});

test('integers beyond int64 in the answer keep their digits', async () => {
  const schema = JSON.stringify({ type: 'object', properties: { id: { type: 'integer' }, n: { type: 'number' } },
    required: ['id', 'n'] });
  const server = await startServer([so('{"id":18446744073709551615,"n":-123456789012345678901234567890}')]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema,
      '-o', 'result'], { env });
    assert.equal(r.code, 0, r.stderr);
    // Compared as text: JSON.parse would round the numbers itself.
    assert.match(r.stdout, /"structured_output":\{"id":18446744073709551615,"n":-123456789012345678901234567890\}/);
  } finally { await server.close(); }
});

test('an integer beyond int64 is compared by its digits: 2^63 is above maximum INT64_MAX, and the run retries', async () => {
  // Written as text: a JavaScript number would round the bounds.
  const schema = '{"type":"object","properties":{"id":{"type":"integer","maximum":9223372036854775807},' +
    '"ref":{"const":12345678901234567890123}},"required":["id","ref"]}';
  const server = await startServer([so('{"id":9223372036854775808,"ref":12345678901234567890123}'),
    so('{"id":9223372036854775807,"ref":12345678901234567890124}'),
    so('{"id":9223372036854775807,"ref":12345678901234567890123}')]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"id":9223372036854775807,"ref":12345678901234567890123}\n');
    const requests = await server.requests();
    assert.equal(requests.length, 3);
    // The feedback names the bound as the schema wrote it.
    assert.match(JSON.stringify(requests[1].body), /params\/id must be <= 9223372036854775807/);
    assert.match(JSON.stringify(requests[2].body), /params\/ref must be equal to constant/);
  } finally { await server.close(); }
});

test('a number with a zero fraction where the schema asks for an integer is printed as an integer', async () => {
  const schema = JSON.stringify({ type: 'object', properties: { age: { type: 'integer' }, weight: { type: 'number' },
    ids: { type: 'array', items: { type: 'integer' } } }, required: ['age'] });
  const server = await startServer([so('{"age":36.0000000000000001,"weight":70.0,"ids":[1.0,2e0,3]}')], { repeatLast: true });
  try {
    const text = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema], { env });
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, '{"age":36,"weight":70.0,"ids":[1,2,3]}\n');
    const result = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema,
      '-o', 'result'], { env });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /"structured_output":\{"age":36,"weight":70\.0,"ids":\[1,2,3\]\}/);
    assert.match(result.stdout, /"repairs":\[\]/);
  } finally { await server.close(); }
});
