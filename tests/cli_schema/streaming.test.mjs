// `weld schema validate` reads as it validates: JSON Lines in memory bounded
// by the longest line, not the input; bytes that can never be JSON (a NUL)
// end a document at once, so /dev/zero on standard input is refused after
// one read instead of growing memory to the size cap.
// WELD_BIN: the weld binary.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';

const WELD = process.env.WELD_BIN;
const SANITIZED = (process.env.WELD_SANITIZE || '') !== '';
// Under AddressSanitizer freed blocks are held back in a quarantine (256 MiB
// by default), which would count as memory held: keep it small.
const env = { ...process.env, ASAN_OPTIONS: 'quarantine_size_mb=1:thread_local_quarantine_size_kb=64' };
const MiB = 1 << 20;

function peakKiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)[1]);
}

test('JSON Lines on standard input: 128 MiB of lines validated in a few MiB of memory', async () => {
  const schema = JSON.stringify({ type: 'object', properties: { id: { type: 'integer' }, text: { type: 'string' } },
    required: ['id', 'text'] });
  const child = spawn(WELD, ['schema', 'validate', '--jsonl', schema, '-'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const line = (id) => `{"id":${id},"text":"${'x'.repeat(100 + (id % 50))}","tags":["a","b","c"],"n":1.5}\n`;
  let written = 0;
  let id = 0;
  while (written < 128 * MiB) {
    let chunk = '';
    while (chunk.length < MiB) chunk += line(id++);
    written += chunk.length;
    if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
  }
  // Everything was handed over; weld has read all but the pipe's last bytes.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const peak = peakKiB(child.pid);
  child.stdin.end();
  const code = await exited;
  assert.equal(code, 0, stderr);
  assert.equal(stdout, '');
  // A whole-input reader holds the 128 MiB and every value parsed from it.
  assert.ok(peak < (SANITIZED ? 160 : 48) * 1024, `peak resident memory ${peak} KiB for ${written} bytes of input`);
});

test('an invalid line among valid ones is reported by its number, the rest still validated', async () => {
  const schema = JSON.stringify({ type: 'integer' });
  const input = '1\n2\n"three"\n\u0000\u0000\n5\n{oops\n7\n';
  const run = spawnSync(WELD, ['schema', 'validate', '--jsonl', schema, '-'], { input, encoding: 'utf8', env });
  assert.equal(run.status, 1, run.stderr);
  const lines = run.stdout.split('\n');
  assert.equal(lines[0], '-:3: must be integer');
  assert.match(lines[1], /^-:4: not valid JSON: .* at line 4 column 1$/);
  assert.match(lines[2], /^-:6: not valid JSON: /);
  assert.equal(lines.length, 4);
});

test('/dev/zero as standard input is refused at its first byte, not read to the size cap', () => {
  const started = process.hrtime.bigint();
  const fd = fs.openSync('/dev/zero', 'r');
  let run;
  try {
    run = spawnSync(WELD, ['schema', 'validate', '{}', '-'], { stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', env,
      timeout: 60000 });
  } finally {
    fs.closeSync(fd);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /^-: not valid JSON: .* at line 1 column 1\n$/);
  // Reading 256 MiB first took seconds; one read takes milliseconds.
  assert.ok(ms < (SANITIZED ? 20000 : 5000), `${ms} ms`);
});
