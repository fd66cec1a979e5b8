// `weld batch` input that is almost surely a mistake, and a line's own
// request fields (docs/batch.md, "Input"): an empty input is said, compressed
// input, one JSON document (an array, pretty-printed JSON) and UTF-16 text
// are refused before anything runs, a UTF-8 byte order mark is skipped,
// ids taken from line numbers never collide with written ids (and 1 and "1"
// are one id), line numbers are 1-based; a line's sampling fields reach the
// wire protocol that has them, --max-tokens and --temperature set the
// default, and a line whose response format or tools conflict with
// --json-schema gets an errored line saying so.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import {
  WELD, runWeld, startServer, providerArgs, tempDir, SCHEMA, SCHEMA_TEXT, API_KEY, writeRows, resultLines,
} from './lib.mjs';

const OK = '{"summary":"ok","risk_level":"low"}';
const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });
const env = { WELD_API_KEY: API_KEY };
const OFFLINE = ['--provider', 'offline'];
const user = (text) => [{ role: 'user', content: text }];

test('an empty input is said on stderr; exit 0', async () => {
  const dir = tempDir();
  for (const bytes of ['', '\n\n', '\uFEFF']) {
    const input = path.join(dir, 'empty.jsonl');
    fs.writeFileSync(input, bytes);
    const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', path.join(dir, 'out.jsonl')]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /weld batch: warning: the input ".*empty\.jsonl" holds no rows; nothing was run\.\n/);
    assert.match(r.stderr, /weld batch: 0 rows: 0 succeeded, 0 errored;/);
  }
  const piped = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, '-'], { stdin: '' });
  assert.equal(piped.code, 0, piped.stderr);
  assert.match(piped.stderr, /weld batch: warning: the input \(standard input\) holds no rows; nothing was run\.\n/);
});

test('compressed input is refused before anything runs: pipe it through zcat', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'rows.jsonl.gz');
  fs.writeFileSync(input, zlib.gzipSync('{"id":"a","text":"x"}\n'));
  const out = path.join(dir, 'out.jsonl');
  const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', out]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^weld batch: the input ".*rows\.jsonl\.gz" is compressed input \(gzip\), not JSON Lines; pipe it through zcat: zcat .*rows\.jsonl\.gz \| weld batch … -\n/);
  assert.equal(fs.existsSync(out), false);
  const piped = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, '-'],
    { stdin: zlib.gzipSync('{"id":"a"}\n') });
  assert.equal(piped.code, 1, piped.stderr);
  assert.match(piped.stderr, /^weld batch: the input standard input is compressed input \(gzip\), not JSON Lines; pipe it through zcat: zcat FILE \| weld batch … -\n/);
});

test('one JSON document (an array, pretty-printed) or UTF-16 text is refused before anything runs, with the command that converts it', async () => {
  const dir = tempDir();
  const rows = [{ id: 'a', text: 'x' }, { id: 'b', text: 'y' }];
  const cases = [
    ['array.json', JSON.stringify(rows, null, 2), /^weld batch: the input ".*array\.json" starts with "\[": one JSON array, not JSON Lines \(one object a line\); convert it with jq: jq -c '\.\[\]' .*array\.json \| weld batch … -\n/],
    ['pretty.json', rows.map((r) => JSON.stringify(r, null, 2)).join('\n') + '\n', /^weld batch: the input ".*pretty\.json" starts with "\{" alone on its line: pretty-printed JSON, not JSON Lines \(one object a line\); convert it with jq: jq -c \. .*pretty\.json \| weld batch … -\n/],
    // What Windows PowerShell 5's `>` writes.
    ['powershell.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rows.map((r) => JSON.stringify(r) + '\r\n').join(''), 'utf16le')]),
      /^weld batch: the input ".*powershell\.jsonl" is UTF-16LE text, not UTF-8 JSON Lines; convert it with iconv: iconv -f UTF-16LE -t UTF-8 .*powershell\.jsonl \| weld batch … -\n/],
  ];
  for (const [name, bytes, pattern] of cases) {
    const input = path.join(dir, name);
    fs.writeFileSync(input, bytes);
    const out = path.join(dir, `${name}.out`);
    const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', out]);
    assert.equal(r.code, 1, `${name}: ${r.stderr}`);
    assert.match(r.stderr, pattern, name);
    assert.equal(fs.existsSync(out), false, name);
    // The command the message gives works: every row runs.
    const command = /: ((?:jq|iconv) .*) \| weld batch … -$/m.exec(r.stderr)[1];
    const piped = spawnSync('sh', ['-c', `${command} | "$0" batch --provider offline --json-schema "$1" - -o "$2"`,
      WELD, SCHEMA_TEXT, out], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    assert.equal(piped.status, 0, `${name}: ${command}: ${piped.stderr}`);
    assert.deepEqual(resultLines(fs.readFileSync(out, 'utf8')).map((l) => [l.custom_id, l.status]).sort(),
      [['a', 'succeeded'], ['b', 'succeeded']], name);
  }
});

test('a UTF-8 byte order mark is skipped: the first row runs', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'bom.jsonl');
  fs.writeFileSync(input, '\uFEFF{"id":"first","text":"x"}\n{"id":"second","text":"y"}\n');
  const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input]);
  assert.equal(r.code, 0, r.stderr);
  const lines = resultLines(r.stdout);
  assert.deepEqual(lines.map((l) => [l.custom_id, l.line, l.status]).sort(),
    [['first', 1, 'succeeded'], ['second', 2, 'succeeded']]);
});

test('ids from line numbers never collide with written ids; 1 and "1" are one id; lines are 1-based', async () => {
  const dir = tempDir();
  const input = writeRows(dir, 'in.jsonl', [
    { id: '1', text: 'written id "1"' },
    { text: 'no id: line 2' },
    { id: '2', text: 'written id "2", not line 2' },
    { id: 1, text: 'the number 1: the id "1" again' },
    'not json',
  ]);
  const out = path.join(dir, 'out.jsonl');
  const r = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', out]);
  assert.equal(r.code, 1, r.stderr);
  const byLine = new Map(resultLines(fs.readFileSync(out, 'utf8')).map((l) => [l.line, l]));
  assert.deepEqual([...byLine.keys()].sort(), [1, 2, 3, 4, 5]);
  assert.deepEqual([byLine.get(1).custom_id, byLine.get(1).status], ['1', 'succeeded']);
  assert.deepEqual([byLine.get(2).custom_id, byLine.get(2).status], [null, 'succeeded']);
  assert.deepEqual([byLine.get(3).custom_id, byLine.get(3).status], ['2', 'succeeded']);
  assert.deepEqual(byLine.get(4).error, { type: 'error_duplicate_id',
    message: 'line 4: the id "1" was already used by an earlier line; this line was not run' });
  assert.equal(byLine.get(5).custom_id, null);
  assert.match(byLine.get(5).error.message, /^line 5: not valid JSON: /);
  // The rerun knows every row again, the ones named by their line included.
  const again = await runWeld(['batch', ...OFFLINE, '--json-schema', SCHEMA_TEXT, input, '-o', out]);
  assert.equal(again.code, 1, again.stderr);
  assert.match(again.stderr, /weld batch: 5 rows: 3 succeeded, 2 errored; 5 answered by an earlier run/);
  assert.equal(resultLines(fs.readFileSync(out, 'utf8')).length, 5);
});

const SAMPLING = { temperature: 0, top_p: 0.5, max_tokens: 100, seed: 7, stop: ['END'], presence_penalty: 0.1,
  frequency_penalty: 0.2, top_k: 40 };

test('openai: a line\'s sampling fields are sent; --max-tokens and --temperature are the default; unsent fields are said once', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', [
      { custom_id: 'own', method: 'POST', url: '/v1/chat/completions',
        body: { model: 'fake-model', messages: user('own fields'), ...SAMPLING, logit_bias: { 50256: -100 } } },
      { custom_id: 'own-2', body: { messages: user('own fields again'), temperature: 1.5, logit_bias: {} } },
      { custom_id: 'anthropic-shaped', params: { max_tokens: 64, temperature: 0.3, stop_sequences: ['X'],
        messages: user('anthropic line') } },
      { id: 'data', text: 'a data row' },
    ]);
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
      '--max-tokens', '321', '--temperature', '0.7', '--concurrency', '1', input], { env });
    assert.equal(r.code, 0, r.stderr);
    const byText = new Map((await server.requests()).map((q) => [q.body.messages.at(-1).content, q.body]));
    const own = byText.get('own fields');
    // 127.0.0.1 is an OpenAI-compatible server (vLLM, llama.cpp): top_k goes too.
    assert.deepEqual([own.temperature, own.top_p, own.max_tokens, own.seed, own.stop, own.presence_penalty,
      own.frequency_penalty, own.top_k], [0, 0.5, 100, 7, ['END'], 0.1, 0.2, 40]);
    assert.equal(own.logit_bias, undefined);
    assert.deepEqual([byText.get('own fields again').temperature, byText.get('own fields again').max_tokens], [1.5, 321]);
    const anth = byText.get('anthropic line');
    assert.deepEqual([anth.max_tokens, anth.temperature, anth.stop], [64, 0.3, ['X']]);
    const data = [...byText.values()].find((b) => b.messages.at(-1).content.startsWith('{"id":"data"'));
    assert.deepEqual([data.max_tokens, data.temperature, data.seed], [321, 0.7, undefined]);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('is not sent'));
    assert.deepEqual(warnings, ['weld batch: warning: line 1: body.logit_bias is not sent to the model: weld batch sends '
      + 'a request\'s messages, model, token limit and sampling fields (docs/batch.md, Input); this is said once per field']);
  } finally { await server.close(); }
});

test('anthropic: the fields the protocol has are sent, the others are said once', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', [
      { custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: { messages: user('one'), ...SAMPLING } },
      { custom_id: 'b', method: 'POST', url: '/v1/chat/completions', body: { messages: user('two'), ...SAMPLING } },
      { custom_id: 'c', params: { max_tokens: 50, top_k: 5, stop_sequences: ['Z'], messages: user('three') } },
    ]);
    const r = await runWeld(['batch', ...providerArgs('anthropic', server.port), '--json-schema', SCHEMA_TEXT,
      '--concurrency', '1', input], { env });
    assert.equal(r.code, 0, r.stderr);
    const bodies = (await server.requests()).map((q) => q.body);
    const first = bodies.find((b) => JSON.stringify(b.messages).includes('one'));
    assert.deepEqual([first.temperature, first.top_p, first.top_k, first.max_tokens, first.stop_sequences],
      [0, 0.5, 40, 100, ['END']]);
    assert.deepEqual([first.seed, first.presence_penalty, first.frequency_penalty, first.stop], [undefined, undefined, undefined, undefined]);
    const third = bodies.find((b) => JSON.stringify(b.messages).includes('three'));
    assert.deepEqual([third.max_tokens, third.top_k, third.stop_sequences], [50, 5, ['Z']]);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('is not sent'));
    assert.deepEqual(warnings, ['seed', 'presence_penalty', 'frequency_penalty'].map((f) =>
      `weld batch: warning: line 1: the row's ${f} is not sent: the anthropic wire protocol has no such field; this is said once per field`));
  } finally { await server.close(); }
});

test('openai-responses: a /v1/responses line runs; max_output_tokens and temperature are sent', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const dir = tempDir();
    const input = writeRows(dir, 'in.jsonl', [{ custom_id: 'r', method: 'POST', url: '/v1/responses',
      body: { instructions: 'Be terse.', input: 'responses line', max_output_tokens: 77, temperature: 0.2 } }]);
    const r = await runWeld(['batch', ...providerArgs('openai', server.port).map((a) => (a === 'openai' ? 'openai-responses' : a)),
      '--json-schema', SCHEMA_TEXT, input], { env });
    assert.equal(r.code, 0, r.stderr);
    const [request] = await server.requests();
    assert.equal(request.body.instructions, 'Be terse.');
    assert.deepEqual([request.body.max_output_tokens, request.body.temperature], [77, 0.2]);
  } finally { await server.close(); }
});

test('a line whose response format or tools conflict with --json-schema gets an errored line saying so; nothing is sent for it', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const dir = tempDir();
    const other = { type: 'object', properties: { answer: { type: 'string' } } };
    const input = writeRows(dir, 'in.jsonl', [
      { custom_id: 'other-schema', body: { messages: user('a'),
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: other } } } },
      { custom_id: 'same-schema', body: { messages: user('b'),
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: SCHEMA } } } },
      { custom_id: 'tools', body: { messages: user('c'), tools: [{ type: 'function', function: { name: 'lookup' } }] } },
      { custom_id: 'anthropic-format', params: { max_tokens: 10, messages: user('d'),
        output_config: { format: { type: 'json_schema', schema: other } } } },
      { custom_id: 'responses-format', url: '/v1/responses', body: { input: 'e',
        text: { format: { type: 'json_schema', name: 'x', schema: other } } } },
    ]);
    const r = await runWeld(['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, input], { env });
    assert.equal(r.code, 1, r.stderr);
    const byId = new Map(resultLines(r.stdout).map((l) => [l.custom_id, l]));
    assert.equal(byId.get('same-schema').status, 'succeeded');
    const conflict = 'asks for another JSON schema than --json-schema; weld batch answers every row with '
      + '--json-schema\'s (remove it from the line, or make it the same schema)';
    assert.deepEqual(byId.get('other-schema').error, { type: 'error_invalid_input',
      message: `line 1: body.response_format: ${conflict}` });
    assert.equal(byId.get('tools').error.message, 'line 3: body.tools: the line offers tools of its own, which weld '
      + 'batch does not run (each row gets the structured_output contract and --core-tools only); remove them from the line');
    assert.equal(byId.get('anthropic-format').error.message, `line 4: params.output_config.format: ${conflict}`);
    assert.equal(byId.get('responses-format').error.message, `line 5: body.text.format: ${conflict}`);
    assert.equal((await server.requests()).length, 1);
  } finally { await server.close(); }
});

test('the run: --max-tokens and --temperature are sent; bad values are usage errors', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    for (const api of ['openai', 'anthropic']) {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'hello', '--json-schema', SCHEMA_TEXT,
        '--max-tokens', '55', '--temperature', '0.25'], { env });
      assert.equal(r.code, 0, r.stderr);
      const body = (await server.requests()).at(-1).body;
      assert.deepEqual([body.max_tokens, body.temperature], [55, 0.25], api);
    }
    const plain = await runWeld([...providerArgs('openai', server.port), '-p', 'hello', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(plain.code, 0, plain.stderr);
    const body = (await server.requests()).at(-1).body;
    assert.deepEqual([body.max_tokens, body.temperature], [8192, undefined]);
    for (const [flag, value, message] of [
      ['--max-tokens', '0', /^weld: --max-tokens must be a whole number from 1 to 999999999 \(got "0"\)\./],
      ['--temperature', '3', /^weld: --temperature must be a number from 0 to 2 \(got "3"\)\./],
    ]) {
      const bad = await runWeld([...providerArgs('openai', server.port), '-p', 'hello', '--json-schema', SCHEMA_TEXT,
        flag, value], { env });
      assert.equal(bad.code, 1, bad.stderr);
      assert.match(bad.stderr, message);
    }
  } finally { await server.close(); }
});
