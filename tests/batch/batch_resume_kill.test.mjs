// docs/batch.md, "Resume": killing weld at any moment (even SIGKILL) and
// running the same command again ends with exactly one result line per row.
// The same command is killed at 24 random moments — at start-up,
// mid-request, mid-write — with a second copy of it started alongside each
// time (a retried pod while the old one runs: one of them must be refused),
// then run to the end; every row must have exactly one line. A second writer
// is refused with 75; a full disk is 75, the summary counts what the file
// holds, and the rerun completes it; a lone finished row reaches the file
// within about 100 ms even with --no-progress.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  runWeld, startServer, providerArgs, tempDir, SCHEMA_TEXT, API_KEY, writeRows, resultLines, dataRows, assertExactlyOnce,
  waitFor,
} from './lib.mjs';

const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });

for (const format of ['weld', 'openai']) {
  test(`${format}: SIGKILL at 24 random moments, then the same command: exactly one line per row`, async () => {
    // Each answer takes 20 ms and four go at once, so the rows below take
    // 25 s or more however fast the machine is: longer than the 24 kills'
    // delays together (20.2 s and 21.2 s for these seeds), so every kill
    // lands mid-run. (3000 rows took 15 s, and on an idle machine the last
    // runs of the longer seed could end before their kill.)
    const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 20 }], { repeatLast: true });
    try {
      const dir = tempDir();
      const out = path.join(dir, 'out.jsonl');
      const rows = dataRows(5000);
      // A repeated id and a bad line, so their errored lines are resumed too.
      const input = writeRows(dir, 'in.jsonl', [...rows, { id: 'row-7', text: 'again' }, 'not json']);
      const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
        input, '-o', out, '--concurrency', '4', '--output-format', format];
      const env = { WELD_API_KEY: API_KEY };
      let seed = format === 'weld' ? 7 : 11;
      const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
      const counts = [];
      let killed = 0;
      let refused = 0;
      for (let i = 0; i < 24; ++i) {
        const delay = 100 + Math.floor(random() * 1400);
        // A second writer of the same file, started 50 ms later and killed
        // with the first: the lock lets only one of them write.
        const [r, second] = await Promise.all([
          runWeld(args, { env, onStart: (child) => setTimeout(() => child.kill('SIGKILL'), delay) }),
          new Promise((resolve) => setTimeout(resolve, 50)).then(() =>
            runWeld(args, { env, onStart: (child) => setTimeout(() => child.kill('SIGKILL'), delay) })),
        ]);
        if (r.signal === 'SIGKILL' || second.signal === 'SIGKILL') ++killed;
        // Started 50 ms apart, either may reach the lock first (a loaded
        // machine, a sanitizer build's slower start): one of them is refused.
        const loser = [r, second].find((x) => x.code === 75);
        if (loser) {
          ++refused;
          assert.match(loser.stderr, /another weld batch is writing ".*out\.jsonl" \(it holds the file's lock\)/);
        }
        counts.push(fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').length - 1 : 0);
      }
      assert.ok(killed >= 20, `only ${killed} of 24 runs were killed before they ended`);
      assert.ok(refused >= 12, `only ${refused} of 24 second writers were refused`);
      const last = await runWeld(args, { env, timeoutMs: 300000 });
      // 1: the repeated id and the bad line are errored rows, whether this
      // run or a killed one wrote their lines.
      assert.equal(last.code, 1, last.stderr);
      assert.match(last.stderr, /weld batch: 5002 rows: 5000 succeeded, 2 errored;/);
      const lines = resultLines(fs.readFileSync(out, 'utf8'));
      // The repeated id's errored line carries the earlier line's id; the
      // bad line has no id and is named by its (1-based) line.
      const repeats = lines.filter((l) => (l.error?.type ?? l.error?.code) === 'error_duplicate_id');
      assert.deepEqual(repeats.map((l) => [l.custom_id, l.line]), [['row-7', rows.length + 1]]);
      const named = lines.filter((l) => !repeats.includes(l)).map((l) => ({ custom_id: l.custom_id ?? `line ${l.line}` }));
      assertExactlyOnce(named, [...rows.map((x) => x.id), `line ${rows.length + 2}`]);
      assert.ok(counts.filter((n, i) => i > 0 && n > counts[i - 1]).length >= 1,
        `no killed run wrote a line: ${counts.join(',')}`);
    } finally { await server.close(); }
  });
}

test('a second writer of the same -o is refused with 75 while the first runs; the file holds each row once', async () => {
  const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 20 }], { repeatLast: true });
  try {
    const dir = tempDir();
    const out = path.join(dir, 'out.jsonl');
    const rows = dataRows(150);
    const input = writeRows(dir, 'in.jsonl', rows);
    const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input,
      '-o', out, '--concurrency', '2'];
    const env = { WELD_API_KEY: API_KEY };
    const first = runWeld(args, { env, timeoutMs: 120000 });
    assert.ok(await waitFor(() => fs.existsSync(out) && fs.statSync(out).size > 0), 'the first run wrote no line');
    const before = fs.readFileSync(out, 'utf8');
    const second = await runWeld(args, { env });
    assert.equal(second.code, 75, second.stderr);
    assert.match(second.stderr, /^weld batch: another weld batch is writing ".*out\.jsonl" \(it holds the file's lock\), so this one stopped before running any row\. Run it again once the other has ended, or give it another -o\.\n/m);
    // The second run changed nothing: what the first had written is still the file's start.
    assert.ok(fs.readFileSync(out, 'utf8').startsWith(before));
    const r = await first;
    assert.equal(r.code, 0, r.stderr);
    assertExactlyOnce(resultLines(fs.readFileSync(out, 'utf8')), rows.map((x) => x.id));
    const third = await runWeld(args, { env });
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stderr, /150 answered by an earlier run/);
  } finally { await server.close(); }
});

test('with --no-progress a lone finished row is in the file within about 100 ms (a kill -9 then loses nothing)', async () => {
  // Of two rows in flight, one is answered at once and the other never.
  const server = await startServer([so('{"summary":"ok","risk_level":"low"}'), { hang: true }], { repeatLast: true });
  try {
    const dir = tempDir();
    const out = path.join(dir, 'out.jsonl');
    const input = writeRows(dir, 'in.jsonl', dataRows(2));
    let appeared = false;
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      input, '-o', out, '--concurrency', '2', '--no-progress'], {
      env: { WELD_API_KEY: API_KEY },
      onStart: async (child) => {
        await waitFor(async () => (await server.requests()).length >= 2, 10000);
        appeared = await waitFor(() => fs.existsSync(out) && fs.readFileSync(out, 'utf8').endsWith('\n'), 2000);
        child.kill('SIGKILL');
      },
    });
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(appeared, 'the finished row\'s line never reached the file');
    const lines = resultLines(fs.readFileSync(out, 'utf8'));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].status, 'succeeded');
  } finally { await server.close(); }
});

// A small tmpfs for the output: mounting needs root (and a kernel that lets
// this container mount), so the test says why when it cannot run.
function mountSmallDisk(dir, size) {
  if (process.getuid() !== 0) return 'mounting a small tmpfs needs root';
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : `mount -t tmpfs failed: ${r.stderr.trim()}`;
}

test('a full disk is a temporary failure (75): the summary counts what the file holds, the rerun completes it', async (t) => {
  const dir = tempDir();
  const disk = path.join(dir, 'disk');
  const why = mountSmallDisk(disk, '16k');
  if (why) { t.skip(why); return; }
  const server = await startServer([so('{"summary":"ok","risk_level":"low"}')], { repeatLast: true });
  try {
    const out = path.join(disk, 'out.jsonl');
    const summary = path.join(dir, 'summary.json');
    const rows = dataRows(300);
    const input = writeRows(dir, 'in.jsonl', rows);
    const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x', input,
      '-o', out, '--concurrency', '4', '--summary', summary, '--no-progress'];
    const env = { WELD_API_KEY: API_KEY };
    const full = await runWeld(args, { env, timeoutMs: 60000 });
    assert.equal(full.code, 75, full.stderr);
    assert.match(full.stderr, /weld batch: could not write the results to ".*out\.jsonl": No space left on device\n/);
    assert.match(full.stderr, /weld batch: stopped: ".*out\.jsonl" holds every row finished before the failure \(counted below\); free space and run the same command again: it resumes\.\n/);
    // Whole lines only, and the summary counts exactly them.
    const held = resultLines(fs.readFileSync(out, 'utf8'));
    assert.ok(held.length > 0 && held.length < 300, `${held.length} lines`);
    const s = JSON.parse(fs.readFileSync(summary, 'utf8'));
    assert.deepEqual([s.rows, s.succeeded, s.errored, s.not_done, s.exit_code], [300, held.length, 0, 300 - held.length, 75]);
    assert.match(full.stderr, new RegExp(`weld batch: 300 rows: ${held.length} succeeded, 0 errored, ${300 - held.length} not done;`));

    assert.equal(spawnSync('mount', ['-o', 'remount,size=4m', disk]).status, 0);
    const rerun = await runWeld(args, { env, timeoutMs: 60000 });
    assert.equal(rerun.code, 0, rerun.stderr);
    assertExactlyOnce(resultLines(fs.readFileSync(out, 'utf8')), rows.map((x) => x.id));
  } finally {
    await server.close();
    spawnSync('umount', [disk]);
  }
});
