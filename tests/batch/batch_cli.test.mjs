// `weld batch` end to end on the offline model (docs/batch.md): the three
// input shapes, bad lines, repeated ids, both output formats, the filter
// mode, resume, the exit codes decided before any request, the README's
// and docs/batch.md's first examples as written, and the page's jq commands
// for reading a results file.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { recipe } from './recipes.mjs';
import { runWeld, tempDir, SCHEMA, SCHEMA_TEXT, writeRows, resultLines, dataRows, assertExactlyOnce } from './lib.mjs';

const OFFLINE_NOTICE_START = 'weld: using the built-in offline model';

function validAgainstSchema(value) {
  return typeof value.summary === 'string' && ['low', 'medium', 'high'].includes(value.risk_level) &&
    Object.keys(value).every((k) => k in SCHEMA.properties);
}

test('every input shape, a bad line and a repeated id: one line each, exit 1', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', [
    { custom_id: 'o1', method: 'POST', url: '/v1/chat/completions',
      body: { model: 'm', messages: [{ role: 'user', content: 'Assess' }] } },
    { custom_id: 'a1', params: { model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'Assess' }] } },
    { ticket: 'T-1', text: 'printer on fire' },
    'this is not JSON',
    { ticket: 'T-1', text: 'the same ticket again' },
    '',
    { custom_id: 'o2', body: { messages: [{ role: 'tool', content: 'x' }] } },
  ]);
  const r = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '--prompt', 'Assess the risk', '--id-field', 'ticket',
    input, '-o', path.join(dir, 'out.jsonl')]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.ok(r.stderr.startsWith(OFFLINE_NOTICE_START), r.stderr);
  assert.match(r.stderr, /weld batch: 6 rows: 3 succeeded, 3 errored; 3 attempts, 0 repairs; [\d.]+ s, [\d.]+ rows\/s\n$/);
  const lines = resultLines(fs.readFileSync(path.join(dir, 'out.jsonl'), 'utf8'));
  const byLine = new Map(lines.map((l) => [l.line, l]));
  // Line numbers are 1-based, as editors, sed -n and grep -n count.
  assert.deepEqual([...byLine.keys()].sort((a, b) => a - b), [1, 2, 3, 4, 5, 7]);
  for (const n of [1, 2, 3]) {
    assert.equal(byLine.get(n).status, 'succeeded');
    assert.ok(validAgainstSchema(byLine.get(n).structured_result), JSON.stringify(byLine.get(n)));
    assert.equal(byLine.get(n).attempts, 1);
    assert.deepEqual(byLine.get(n).repairs, []);
    assert.deepEqual(Object.keys(byLine.get(n).usage), ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens']);
  }
  assert.deepEqual([byLine.get(1).custom_id, byLine.get(2).custom_id, byLine.get(3).custom_id], ['o1', 'a1', 'T-1']);
  // A line without an id is named by its line: custom_id null.
  assert.deepEqual(byLine.get(4), { custom_id: null, line: 4, status: 'errored', attempts: 0,
    error: { type: 'error_invalid_input', message: byLine.get(4).error.message } });
  assert.match(byLine.get(4).error.message, /^line 4: not valid JSON: .* \(column 1\)$/);
  assert.equal(byLine.get(5).custom_id, 'T-1');
  assert.deepEqual(byLine.get(5).error, { type: 'error_duplicate_id',
    message: 'line 5: the id "T-1" was already used by an earlier line; this line was not run' });
  assert.deepEqual(byLine.get(7).error, { type: 'error_invalid_input',
    message: 'line 7: body.messages[0].role: "tool" is not supported (a row is one request of text messages)' });
});

test('--output-format openai writes OpenAI Batch output lines', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', [
    { custom_id: 'req-1', method: 'POST', url: '/v1/chat/completions', body: { model: 'gpt-x', messages: [{ role: 'user', content: 'Assess' }] } },
    '[1]',
  ]);
  const r = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '--output-format', 'openai', input]);
  assert.equal(r.code, 1, r.stderr);
  const lines = resultLines(r.stdout);
  assert.equal(lines.length, 2);
  const ok = lines.find((l) => l.custom_id === 'req-1');
  assert.match(ok.id, /^batch_req_[0-9a-f]{24}$/);
  assert.equal(ok.error, null);
  assert.equal(ok.response.status_code, 200);
  assert.match(ok.response.request_id, /^req_[0-9a-f]{24}$/);
  const body = ok.response.body;
  assert.equal(body.object, 'chat.completion');
  assert.equal(body.model, 'gpt-x');
  assert.equal(body.choices[0].finish_reason, 'stop');
  assert.equal(body.choices[0].message.role, 'assistant');
  assert.ok(validAgainstSchema(JSON.parse(body.choices[0].message.content)));
  assert.deepEqual(Object.keys(body.usage), ['prompt_tokens', 'completion_tokens', 'total_tokens']);
  assert.equal(ok.line, 1);
  const bad = lines.find((l) => l.line === 2);
  assert.equal(bad.custom_id, null);
  assert.equal(bad.response, null);
  assert.deepEqual(bad.error, { code: 'error_invalid_input', message: 'line 2: expected a JSON object, got array' });
});

test('- in and - out: a filter; rows without an id are named by their line', async () => {
  const rows = [{ text: 'a' }, { text: 'b' }, { text: 'c' }];
  const r = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '-p', 'Assess', '-', '-o', '-'],
    { stdin: rows.map((x) => JSON.stringify(x) + '\n').join('') });
  assert.equal(r.code, 0, r.stderr);
  const lines = resultLines(r.stdout);
  assert.deepEqual(lines.map((l) => l.line).sort(), [1, 2, 3]);
  assert.ok(lines.every((l) => l.custom_id === null && l.status === 'succeeded'));
});

test('resume: a second run skips every answered row and exits 0', async () => {
  const dir = tempDir();
  const rows = dataRows(50);
  const input = writeRows(dir, 'in.jsonl', rows);
  const out = path.join(dir, 'out.jsonl');
  const args = ['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '-p', 'Assess', input, '-o', out, '--summary', path.join(dir, 'summary.json')];
  const first = await runWeld(args);
  assert.equal(first.code, 0, first.stderr);
  // Cut the file mid-line, as a kill during a write would.
  const text = fs.readFileSync(out, 'utf8');
  const lines = text.split('\n');
  fs.writeFileSync(out, lines.slice(0, 20).join('\n') + '\n' + lines[20].slice(0, 15));
  const second = await runWeld(args);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stderr, /weld batch: resuming ".*out\.jsonl": 20 rows already answered, a torn last line of 15 bytes moved to ".*out\.jsonl\.torn"\n/);
  assert.match(second.stderr, /weld batch: 50 rows: 50 succeeded, 0 errored; 20 answered by an earlier run \(20 succeeded, 0 errored\)/);
  assertExactlyOnce(resultLines(fs.readFileSync(out, 'utf8')), rows.map((r) => r.id));
  // What was cut is kept.
  assert.equal(fs.readFileSync(out + '.torn', 'utf8'), lines[20].slice(0, 15) + '\n');
  const summary = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
  assert.equal(summary.rows, 50);
  assert.equal(summary.succeeded, 50);
  assert.equal(summary.skipped, 20);
  assert.deepEqual(summary.earlier, { succeeded: 20, errored: 0 });
  assert.equal(summary.errored, 0);
  assert.equal(summary.not_done, 0);
  assert.equal(summary.attempts, 30);
  assert.equal(summary.exit_code, 0);
  assert.deepEqual(summary.shard, { index: 0, count: 1 });
  assert.equal(typeof summary.rows_per_second, 'number');
  const third = await runWeld(args);
  assert.equal(third.code, 0, third.stderr);
  assert.match(third.stderr, /50 answered by an earlier run/);
});

test('exit 52: a bad schema or provider configuration writes nothing', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', dataRows(3));
  const out = path.join(dir, 'out.jsonl');
  const bad = await runWeld(['batch', '--json-schema', '{"type":"object","propertees":{}}', input, '-o', out]);
  assert.equal(bad.code, 52, bad.stderr);
  assert.match(bad.stderr, /^weld batch: --json-schema is not a valid JSON Schema: /);
  assert.equal(fs.existsSync(out), false);
  const array = await runWeld(['batch', '--json-schema', '{"type":"array"}', input, '-o', out]);
  assert.equal(array.code, 52);
  const provider = await runWeld(['batch', '--json-schema', SCHEMA_TEXT, '--provider', 'nope', input, '-o', out]);
  assert.equal(provider.code, 52, provider.stderr);
  assert.equal(fs.existsSync(out), false);
  fs.writeFileSync(out, 'not a result line\n');
  const notOurs = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, input, '-o', out]);
  assert.equal(notOurs.code, 52, notOurs.stderr);
  assert.match(notOurs.stderr, /line 1 is not a weld batch result line, so the file cannot be resumed \(is -o the right file\?\)\. It was left as it was\./);
  assert.equal(fs.readFileSync(out, 'utf8'), 'not a result line\n');
});

// A job whose secret is missing went green on sampled data: with nothing
// configured the batch ends before any row, saying how to choose.
test('exit 52: no provider configured, nothing written', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', dataRows(3));
  const out = path.join(dir, 'out.jsonl');
  const r = await runWeld(['batch', '--json-schema', SCHEMA_TEXT, '-p', 'Assess', input, '-o', out]);
  assert.equal(r.code, 52, r.stderr);
  assert.match(r.stderr, /^weld batch: no model provider configured\. Choose one: .*pass --provider offline \(or WELD_PROVIDER=offline\)/);
  assert.equal(fs.existsSync(out), false);
});

test('exit 1: usage errors name the flag', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', dataRows(2));
  const cases = [
    [[input], /^weld batch: --json-schema is required/],
    [['--json-schema', SCHEMA_TEXT], /^weld batch: input is required/],
    [['--json-schema', SCHEMA_TEXT, '--shard', '3/3', input], /^weld batch: --shard must be I\/N with 0 <= I < N/],
    [['--json-schema', SCHEMA_TEXT, '--shard', '1/3', input, '-o', path.join(dir, 'o.jsonl')],
      /^weld batch: with 3 shards, -o needs \{shard\} in its name/],
    [['--json-schema', SCHEMA_TEXT, '--concurrency', '0', input], /^weld batch: --concurrency: Value 0 not in range 1 to 1024/],
    [['--json-schema', SCHEMA_TEXT, path.join(dir, 'missing.jsonl')], /^weld batch: could not open the input ".*missing\.jsonl": No such file or directory/],
    [['--json-schema', SCHEMA_TEXT, '--retry-errored', input], /^weld batch: --retry-errored needs -o FILE: /],
    [['--json-schema', SCHEMA_TEXT, '--progress-interval', '0', input], /^weld batch: --progress-interval must be a number of seconds from 0\.1 to 86400 \(got "0"\)\./],
  ];
  for (const [args, pattern] of cases) {
    const r = await runWeld(['batch', ...args]);
    assert.equal(r.code, 1, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
  }
});

test('docs/batch.md and the README: the first example works as written on the offline model', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'tickets.jsonl'),
    '{"id":"T-1","text":"Printer on fire"}\n{"id":"T-2","text":"Password reset"}\n');
  fs.writeFileSync(path.join(dir, 'schema.json'), SCHEMA_TEXT);
  const r = await runWeld(['batch', '--provider', 'offline', '--json-schema', '@schema.json', '--prompt',
    'Assess the risk of this ticket', 'tickets.jsonl', '-o', 'results.jsonl'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  const lines = resultLines(fs.readFileSync(path.join(dir, 'results.jsonl'), 'utf8'));
  assert.deepEqual(lines.map((l) => l.custom_id).sort(), ['T-1', 'T-2']);
});

test('docs/batch.md, "Reading a results file": every jq command works as written on both formats', async (t) => {
  if (spawnSync('jq', ['--version']).status !== 0) { t.skip('jq is not installed (scripts/install-deps.sh installs it)'); return; }
  const commands = (name) => recipe(name).split('\n').filter((l) => l.startsWith('jq '));
  const sh = (dir, command) => {
    const r = spawnSync('sh', ['-c', command], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `${command}: ${r.stderr}`);
    return r.stdout;
  };
  const answers = (text) => text.trim().split('\n').map((l) => JSON.parse(l))
    .map((a) => [a.id, validAgainstSchema(a.answer)]).sort();
  const invalid = '3\t-\terror_invalid_input\tline 3: not valid JSON: unexpected character \'o\' (column 1)\n';
  for (const format of ['weld', 'openai']) {
    const dir = tempDir();
    writeRows(dir, 'tickets.jsonl', [{ id: 'T-1', text: 'a' }, { id: 'T-2', text: 'b' }, 'oops', { text: 'no id' }]);
    const r = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, 'tickets.jsonl',
      '-o', 'results.jsonl', '--output-format', format], { cwd: dir });
    assert.equal(r.code, 1, r.stderr);
    const [byId, errored, ...rest] = commands(format === 'weld' ? 'reading' : 'reading-openai');
    assert.deepEqual(answers(sh(dir, byId)), [[null, true], ['T-1', true], ['T-2', true]], format);
    assert.equal(sh(dir, errored), invalid, format);
    if (format === 'weld') {
      const [inOrder, counts] = rest;
      assert.deepEqual(sh(dir, inOrder).trim().split('\n').map((l) => JSON.parse(l).line), [1, 2, 3, 4]);
      assert.deepEqual(JSON.parse(sh(dir, counts)), { errored: 1, succeeded: 3 });
    }
  }
});
