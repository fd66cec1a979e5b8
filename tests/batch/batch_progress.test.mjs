// `weld batch` progress off a terminal (docs/batch.md, "Progress and
// summary"): a Slurm log or a pipe gets one line every --progress-interval
// with the total, the percentage and the ETA when the input is a file
// (given by name, or standard input redirected from it); a piped input has
// no total, and its lines say how many lines were read. A resumed batch
// starts at the share the file already answers.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import {
  WELD, runWeld, startServer, providerArgs, tempDir, SCHEMA_TEXT, API_KEY, writeRows, resultLines, dataRows,
} from './lib.mjs';

const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });
const env = { WELD_API_KEY: API_KEY };
const LINE = /^weld batch: (\d+\.\d)% of (\d+) lines, (\d+) rows done, [\d.]+ rows\/s, ETA (\d+s|\d+m\d+s|\?) \((\d+) ok, (\d+) errored, (\d+) done earlier, (\d+) retries\)$/;

function progressLines(stderr) {
  return stderr.split('\n').filter((l) => l.startsWith('weld batch: ') && /rows done/.test(l));
}

// Runs weld with standard input redirected from `file` (a regular file, as
// `weld batch … - < rows.jsonl` in a Slurm script), stderr captured.
function runRedirected(args, file) {
  return new Promise((resolve) => {
    const input = fs.openSync(file, 'r');
    const child = spawn(WELD, args, { env: { PATH: process.env.PATH, HOME: tempDir('weld-home-'), ...env },
      stdio: [input, 'pipe', 'pipe'] });
    fs.closeSync(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('off a terminal, each --progress-interval a line with the total, the percentage and the ETA', async () => {
  // 40 rows, two at a time, 40 ms each: about a second of lines every 100 ms.
  const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 40 }], { repeatLast: true });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', dataRows(40));
    const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      '--concurrency', '2', '--progress-interval', '0.1'];
    for (const [how, run] of [
      ['named', () => runWeld([...args, input, '-o', path.join(dir, 'named.jsonl')], { env })],
      ['redirected', () => runRedirected([...args, '-', '-o', path.join(dir, 'redirected.jsonl')], input)],
    ]) {
      const r = await run();
      assert.equal(r.code, 0, r.stderr);
      const lines = progressLines(r.stderr);
      assert.ok(lines.length >= 3, `${how}: ${lines.length} progress lines:\n${r.stderr}`);
      const parsed = lines.map((l) => {
        const m = LINE.exec(l);
        assert.ok(m, `${how}: not a progress line with a total: ${l}`);
        return { percent: Number(m[1]), total: Number(m[2]), done: Number(m[3]), eta: m[4] };
      });
      assert.ok(parsed.every((p) => p.total === 40), how);
      // The share only grows, is never ahead of the rows answered by more
      // than the rows in flight, and the ETA is a time once rows are done.
      for (let i = 1; i < parsed.length; ++i) assert.ok(parsed[i].percent >= parsed[i - 1].percent, `${how}: ${lines}`);
      assert.ok(parsed.every((p) => p.percent <= ((p.done + 2) / 40) * 100 + 0.1), `${how}: ${lines.join('\n')}`);
      assert.ok(parsed.some((p) => p.done > 0 && p.eta !== '?'), `${how}: ${lines.join('\n')}`);
    }
  } finally { await server.close(); }
});

test('a piped input has no total: the lines say how many lines were read', async () => {
  const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 40 }], { repeatLast: true });
  try {
    const rows = dataRows(30).map((r) => JSON.stringify(r) + '\n').join('');
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      '--concurrency', '2', '--progress-interval', '0.1', '-'], { env, stdin: rows });
    assert.equal(r.code, 0, r.stderr);
    const lines = progressLines(r.stderr);
    assert.ok(lines.length >= 2, r.stderr);
    for (const l of lines) assert.match(l, /^weld batch: \d+ lines read, \d+ rows done, [\d.]+ rows\/s \(\d+ ok, /);
  } finally { await server.close(); }
});

test('a resumed batch starts at the share the file already answers', async () => {
  const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 60 }], { repeatLast: true });
  try {
    const dir = tempDir();
    const rows = dataRows(40);
    const input = writeRows(dir, 'in.jsonl', rows);
    const out = path.join(dir, 'out.jsonl');
    // The first 30 rows answered by an earlier run (the offline model).
    const first = writeRows(dir, 'first.jsonl', rows.slice(0, 30));
    const earlier = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, first, '-o', out]);
    assert.equal(earlier.code, 0, earlier.stderr);
    assert.equal(resultLines(fs.readFileSync(out, 'utf8')).length, 30);
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      '--concurrency', '1', '--progress-interval', '0.1', input, '-o', out], { env });
    assert.equal(r.code, 0, r.stderr);
    const parsed = progressLines(r.stderr).map((l) => LINE.exec(l));
    assert.ok(parsed.length >= 2 && parsed.every(Boolean), r.stderr);
    assert.ok(parsed.every((m) => Number(m[1]) >= 75 && m[7] === '30'), progressLines(r.stderr).join('\n'));
  } finally { await server.close(); }
});
