// `weld batch` reruns tell the truth and never destroy a file
// (docs/batch.md, "Resume" and "Exit codes"): the summary and the exit code
// describe every row of the shard as -o FILE holds it, errored rows of
// earlier runs included; --retry-errored runs them again and leaves one line
// per row; a file that is not this batch's result file (another format, a
// request file, json.dump output, the input itself) is refused before
// anything in it changes; --summary and --telemetry-file may not name the
// input or the output.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import {
  WELD, runWeld, startServer, providerArgs, tempDir, SCHEMA_TEXT, API_KEY, writeRows, resultLines, dataRows, assertExactlyOnce,
} from './lib.mjs';

const OK = '{"summary":"ok","risk_level":"low"}';
const BAD = '{"summary":"ok","risk_level":"severe"}';
const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });
const env = { WELD_API_KEY: API_KEY };
const OFFLINE = ['--provider', 'offline'];

test('a rerun counts the errored rows the file holds, names them, exits 1; --retry-errored runs them again', async () => {
  // Row 3 (row-2) gets an invalid answer and no retry: an errored line.
  const first = await startServer([so(OK), so(OK), so(BAD), so(OK)], { repeatLast: true });
  const dir = tempDir();
  const out = path.join(dir, 'out.jsonl');
  const summary = path.join(dir, 'summary.json');
  const rows = dataRows(6);
  const input = writeRows(dir, 'in.jsonl', rows);
  const tail = ['--json-schema', SCHEMA_TEXT, '-p', 'x', input, '-o', out, '--concurrency', '1',
    '--max-structured-retries', '0', '--summary', summary];
  try {
    const r = await runWeld(['batch', ...providerArgs('openai', first.port), ...tail], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /weld batch: 6 rows: 5 succeeded, 1 errored/);
  } finally { await first.close(); }
  // As after a kill: the file holds the first three rows' lines, one errored.
  const text = fs.readFileSync(out, 'utf8').split('\n');
  fs.writeFileSync(out, text.slice(0, 3).join('\n') + '\n');
  assert.equal(resultLines(fs.readFileSync(out, 'utf8')).filter((l) => l.status === 'errored').length, 1);

  const healthy = await startServer([so(OK)], { repeatLast: true });
  try {
    const rerun = await runWeld(['batch', ...providerArgs('openai', healthy.port), ...tail], { env });
    // Not 0: the file holds an errored row of this shard.
    assert.equal(rerun.code, 1, rerun.stderr);
    assert.match(rerun.stderr, /weld batch: resuming ".*out\.jsonl": 3 rows already answered \(1 errored\)\n/);
    assert.match(rerun.stderr, /weld batch: 1 row errored in an earlier run: its line in ".*out\.jsonl" says why; --retry-errored runs it again\.\n/);
    assert.match(rerun.stderr, /weld batch: 6 rows: 5 succeeded, 1 errored; 3 answered by an earlier run \(2 succeeded, 1 errored\);/);
    const s = JSON.parse(fs.readFileSync(summary, 'utf8'));
    assert.deepEqual([s.rows, s.succeeded, s.errored, s.not_done, s.skipped, s.exit_code], [6, 5, 1, 0, 3, 1]);
    assert.deepEqual(s.earlier, { succeeded: 2, errored: 1 });
    assert.equal((await healthy.requests()).length, 3);

    const retry = await runWeld(['batch', ...providerArgs('openai', healthy.port), ...tail, '--retry-errored'], { env });
    assert.equal(retry.code, 0, retry.stderr);
    assert.match(retry.stderr, /--retry-errored: 1 errored line removed, its row runs again\n/);
    assert.match(retry.stderr, /weld batch: 6 rows: 6 succeeded, 0 errored; 5 answered by an earlier run \(5 succeeded, 0 errored\);/);
    assert.equal((await healthy.requests()).length, 4);
    // One final line per id: the errored line is gone, not superseded.
    const lines = resultLines(fs.readFileSync(out, 'utf8'));
    assertExactlyOnce(lines, rows.map((x) => x.id));
    assert.ok(lines.every((l) => l.status === 'succeeded'));
    assert.equal(JSON.parse(fs.readFileSync(summary, 'utf8')).exit_code, 0);
  } finally { await healthy.close(); }
});

test('resuming with another --output-format is refused; the file is left as it was', async () => {
  const dir = tempDir();
  const out = path.join(dir, 'out.jsonl');
  const input = writeRows(dir, 'in.jsonl', dataRows(3));
  const args = ['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, '-p', 'x', input, '-o', out];
  const first = await runWeld([...args, '--output-format', 'weld']);
  assert.equal(first.code, 0, first.stderr);
  const before = fs.readFileSync(out, 'utf8');
  fs.writeFileSync(out, before.split('\n').slice(0, 1).join('\n') + '\n');
  const kept = fs.readFileSync(out, 'utf8');
  const other = await runWeld([...args, '--output-format', 'openai']);
  assert.equal(other.code, 52, other.stderr);
  assert.match(other.stderr, /-o ".*out\.jsonl" holds result lines of --output-format weld \(line 1\); this run writes --output-format openai\. Resume it with --output-format weld, or write to another -o\./);
  assert.equal(fs.readFileSync(out, 'utf8'), kept);
  // The same when the only line lacks its newline: whole, but of the other format.
  fs.writeFileSync(out, kept.slice(0, -1));
  const torn = await runWeld([...args, '--output-format', 'openai']);
  assert.equal(torn.code, 52, torn.stderr);
  assert.match(torn.stderr, /holds result lines of --output-format weld \(its last line\); this run writes --output-format openai\./);
  assert.equal(fs.readFileSync(out, 'utf8'), kept.slice(0, -1));
  assert.equal(fs.existsSync(out + '.torn'), false);
});

test('a file that is not this batch\'s results is refused before anything in it changes', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', dataRows(3));
  const files = {
    // json.dump output: no final newline (resume used to cut it as a torn line).
    'dump.json': '{"results": [{"id": "row-0", "label": "a"}]}',
    // OpenAI and Anthropic batch request files have a string custom_id too.
    'openai-requests.jsonl': [0, 1, 2].map((i) => JSON.stringify({ custom_id: `row-${i}`, method: 'POST',
      url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'x' }] } }) + '\n').join(''),
    'anthropic-requests.jsonl': [0, 1, 2].map((i) => JSON.stringify({ custom_id: `row-${i}`,
      params: { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] } }) + '\n').join(''),
    // One line without its newline that starts as a result line does but is
    // whole JSON: not a line a kill cut short (it used to go to .torn,
    // leaving the file empty).
    'one-request.jsonl': JSON.stringify({ custom_id: 'row-0', method: 'POST', url: '/v1/chat/completions',
      body: { messages: [{ role: 'user', content: 'x' }] } }),
    'one-object.json': '{"custom_id": "row-0", "label": "a"}',
  };
  for (const [name, text] of Object.entries(files)) {
    const out = path.join(dir, name);
    fs.writeFileSync(out, text);
    const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', out]);
    assert.equal(r.code, 52, `${name}: ${r.stderr}`);
    assert.match(r.stderr, /so the file cannot be resumed \(is -o the right file\?\)\. It was left as it was\./, name);
    if (name.startsWith('one-')) assert.match(r.stderr, /its last line \(\d+ bytes after the last newline\) is JSON but not a weld batch result line/);
    assert.equal(fs.readFileSync(out, 'utf8'), text, name);
    assert.equal(fs.existsSync(out + '.torn'), false, name);
  }
});

test('-o, --summary or --telemetry-file naming the input or the output is refused; nothing is overwritten', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', dataRows(3));
  const original = fs.readFileSync(input, 'utf8');
  const out = path.join(dir, 'out.jsonl');
  const base = ['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT];
  const cases = [
    [[input, '-o', input], /^weld batch: -o ".*in\.jsonl" names the same file as the input; weld batch would overwrite it\./],
    [[input, '-o', path.join(dir, '.', 'sub', '..', 'in.jsonl')], /names the same file as the input/],
    [[input, '-o', out, '--summary', input], /^weld batch: --summary ".*in\.jsonl" names the same file as the input;/],
    [[input, '-o', out, '--summary', out], /^weld batch: --summary ".*out\.jsonl" names the same file as -o;/],
    [[input, '-o', out, '--telemetry-file', input], /^weld batch: --telemetry-file ".*in\.jsonl" names the same file as the input;/],
    [[input, '-o', out, '--telemetry-file', out], /^weld batch: --telemetry-file ".*out\.jsonl" names the same file as -o;/],
  ];
  fs.mkdirSync(path.join(dir, 'sub'));
  for (const [args, pattern] of cases) {
    const r = await runWeld([...base, ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(fs.readFileSync(input, 'utf8'), original);
    assert.equal(fs.existsSync(out), false);
  }
  // Standard input redirected from the output file (a result file).
  const done = await runWeld([...base, input, '-o', out]);
  assert.equal(done.code, 0, done.stderr);
  const results = fs.readFileSync(out, 'utf8');
  const piped = spawnSync('sh', ['-c', `exec "$0" "$@" < "${out}"`, WELD, ...base.slice(0), '-', '-o', out],
    { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
  assert.equal(piped.status, 1, piped.stderr);
  assert.match(piped.stderr, /^weld batch: -o ".*out\.jsonl" names the same file as the input;/);
  assert.equal(fs.readFileSync(out, 'utf8'), results);
});
