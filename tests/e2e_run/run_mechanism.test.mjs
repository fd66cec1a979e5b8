// Mechanisms in the run (docs/run.md, "Mechanisms"): `native` sends the provider's own
// constrained decoding (OpenAI response_format json_schema, Anthropic
// output_config.format) and no structured_output tool; the answer is the
// final text, repaired and validated locally, fed back when invalid. `auto`
// probes the upstream once and remembers the result in ~/.weld/mechanisms.json.
// The fake server emulates servers that enforce, ignore or reject the field.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA, SCHEMA_TEXT, parseLines, providerArgs, runWeld, so, startServer, tempDir, toolDecls, toolResults,
  walkFiles,
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"native-answer-q7","risk_level":"high"}';
const FEEDBACK = (error) =>
  `Your answer did not validate against the required JSON schema: ${error} Reply again with only the corrected JSON value.`;
const PROBE_SCHEMA = {
  type: 'object',
  properties: { weld_probe: { type: 'string', const: 'enforced-7c1e9a' } },
  required: ['weld_probe'],
  additionalProperties: false,
};

/** The constrained-decoding schema a recorded request carries, or undefined. */
function formatOf(request, api) {
  if (api === 'openai') {
    const rf = request.body.response_format;
    if (!rf) return undefined;
    assert.equal(rf.type, 'json_schema');
    return rf.json_schema;
  }
  const f = request.body.output_config && request.body.output_config.format;
  if (!f) return undefined;
  assert.equal(f.type, 'json_schema');
  return { schema: f.schema };
}

const toolNames = (request, api) => toolDecls(request, api).map((t) => t.name);
/** The text of the last user message of a recorded request. */
function lastUserText(request) {
  const m = request.body.messages.at(-1);
  assert.equal(m.role, 'user');
  return typeof m.content === 'string' ? m.content : m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

for (const api of APIS) {
  test(`${api}: native: the schema goes as the provider's format, no structured_output tool, the text is the answer`, async () => {
    const server = await startServer([{ text: OK }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, OK + '\n');
      assert.equal(r.stderr, '');
      const [request] = await server.requests();
      const format = formatOf(request, api);
      if (api === 'openai') assert.deepEqual(format, { name: 'structured_output', schema: SCHEMA, strict: true });
      else assert.deepEqual(format, { schema: SCHEMA });
      assert.deepEqual(toolNames(request, api), ['read_file', 'list_directory', 'glob', 'grep_search']);
    } finally { await server.close(); }
  });

  test(`${api}: native: invalid, then valid: the validation error goes back as a user message`, async () => {
    const server = await startServer([{ text: '{"summary":"x"}' }, { text: OK }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native', '--output-format', 'json'], { env });
      assert.equal(r.code, 0, r.stderr);
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.equal(lastUserText(requests[1]), FEEDBACK("answer must have required property 'risk_level'."));
      const messages = JSON.parse(r.stdout);
      assert.equal(messages[0].mechanism, 'native');
      const envelope = messages.at(-1);
      assert.equal(envelope.subtype, 'success');
      assert.equal(envelope.attempts, 2);
      assert.equal(envelope.num_turns, 2);
      assert.deepEqual(envelope.structured_result, JSON.parse(OK));
      assert.equal(envelope.result, OK);
      // The fed-back message is in the output too.
      const feedback = messages.find((m) => m.type === 'user');
      assert.deepEqual(feedback.message.content, [{ type: 'text', text: FEEDBACK("answer must have required property 'risk_level'.") }]);
    } finally { await server.close(); }
  });

  test(`${api}: native: prose around fenced JSON is repaired (and not with --no-repair)`, async () => {
    const text = 'Here you go:\n```json\n' + OK + '\n```';
    const server = await startServer([{ text }, { text }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native', '--output-format', 'stream-json'], { env });
      assert.equal(r.code, 0, r.stderr);
      const envelope = parseLines(r.stdout).at(-1);
      assert.deepEqual(envelope.structured_result, JSON.parse(OK));
      assert.ok(envelope.repairs.length >= 1, JSON.stringify(envelope.repairs));
      const strict = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native', '--no-repair', '--max-structured-retries', '0'], { env });
      assert.equal(strict.code, 1);
      assert.equal(strict.stdout, '');
      assert.match(strict.stderr, /^weld: The structured answer \(--mechanism native\) failed validation 1 time\(s\); --max-structured-retries 0 allows 0 retries\. Last validation error: answer must be valid JSON/);
    } finally { await server.close(); }
  });

  test(`${api}: native: retries exhausted: exit 1, error_max_structured_output_retries, last candidate`, async () => {
    const server = await startServer([{ text: '{"summary":"x","risk_level":"extreme"}' }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native', '--max-structured-retries', '1', '--output-format', 'json'], { env });
      assert.equal(r.code, 1, r.stderr);
      assert.equal((await server.requests()).length, 2);
      const envelope = JSON.parse(r.stdout).at(-1);
      assert.equal(envelope.subtype, 'error_max_structured_output_retries');
      assert.equal(envelope.attempts, 2);
      assert.deepEqual(envelope.last_candidate, { summary: 'x', risk_level: 'extreme' });
      assert.equal(envelope.error.message + '\n', r.stderr);
      assert.match(r.stderr, /^weld: The structured answer \(--mechanism native\) failed validation 2 time\(s\); --max-structured-retries 1 allows 1 retry\. Last validation error: answer\/risk_level must be equal to one of the allowed values/);
    } finally { await server.close(); }
  });

  test(`${api}: native: tool turns still run; each provider gets the schema lowered for it (objects closed)`, async () => {
    const loose = '{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}';
    const server = await startServer([{ tool_calls: [{ name: 'list_directory', arguments: {} }] }, { text: '{"n": 3}' }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', loose,
        '--mechanism', 'native'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, '{"n":3}\n');
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      // openai-strict and anthropic both close objects (weld schema lower).
      if (api === 'openai') assert.equal(formatOf(requests[0], api).strict, true);
      assert.deepEqual(formatOf(requests[0], api).schema, { ...JSON.parse(loose), additionalProperties: false });
      const results = toolResults(requests[1], api);
      assert.equal(results.length, 1);
      assert.notEqual(results[0].is_error, true);
      assert.ok(formatOf(requests[1], api) !== undefined, 'every request carries the format');
    } finally { await server.close(); }
  });

  test(`${api}: mechanism from WELD_MECHANISM and settings; the flag wins`, async () => {
    const home = tempDir();
    fs.mkdirSync(path.join(home, '.weld'));
    fs.writeFileSync(path.join(home, '.weld/settings.json'), JSON.stringify({ mechanism: 'native' }));
    const server = await startServer([{ text: OK }, { text: OK }, so(OK), so(OK)]);
    try {
      const viaSettings = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env, home });
      assert.equal(viaSettings.code, 0, viaSettings.stderr);
      const viaEnv = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
        { env: { ...env, WELD_MECHANISM: 'native' } });
      assert.equal(viaEnv.code, 0, viaEnv.stderr);
      const envOverSettings = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
        { env: { ...env, WELD_MECHANISM: 'tool' }, home });
      assert.equal(envOverSettings.code, 0, envOverSettings.stderr);
      const flag = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'tool'], { env: { ...env, WELD_MECHANISM: 'native' }, home });
      assert.equal(flag.code, 0, flag.stderr);
      const requests = await server.requests();
      assert.deepEqual(requests.map((q) => formatOf(q, api) !== undefined), [true, true, false, false]);
      assert.deepEqual(requests.map((q) => toolNames(q, api).includes('structured_output')), [false, false, true, true]);
    } finally { await server.close(); }
  });

  test(`${api}: auto against a server that enforces the format: probe once, native, remembered`, async () => {
    const home = tempDir();
    const server = await startServer([{ text: 'hello' }, { text: OK }, { text: OK }], { responseFormat: 'enforce' });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'auto', '--output-format', 'stream-json'], { env, home });
      assert.equal(r.code, 0, r.stderr);
      const lines = parseLines(r.stdout);
      assert.equal(lines[0].mechanism, 'native');
      assert.deepEqual(lines.at(-1).structured_result, JSON.parse(OK));
      let requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.deepEqual(formatOf(requests[0], api).schema, PROBE_SCHEMA);
      assert.equal(requests[0].body.tools, undefined, 'the probe offers no tools');
      assert.deepEqual(formatOf(requests[1], api).schema, SCHEMA);
      assert.ok(!toolNames(requests[1], api).includes('structured_output'));
      const base = api === 'openai' ? `http://127.0.0.1:${server.port}/v1` : `http://127.0.0.1:${server.port}`;
      const cache = JSON.parse(fs.readFileSync(path.join(home, '.weld/mechanisms.json'), 'utf8'));
      assert.equal(cache.entries[`${api} ${base} fake-model`].native, true);
      assert.ok(!JSON.stringify(cache).includes(API_KEY));
      // Second run: no probe.
      const again = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'auto'], { env, home });
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, OK + '\n');
      requests = await server.requests();
      assert.equal(requests.length, 3);
      assert.deepEqual(formatOf(requests[2], api).schema, SCHEMA);
    } finally { await server.close(); }
  });

  test(`${api}: auto against a server that ignores the format: the tool mechanism, remembered`, async () => {
    const home = tempDir();
    const server = await startServer([{ text: 'hello' }, so(OK), so(OK)], { responseFormat: 'ignore' });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'auto', '--output-format', 'json'], { env, home });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout)[0].mechanism, 'tool');
      let requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.deepEqual(formatOf(requests[0], api).schema, PROBE_SCHEMA);
      assert.equal(formatOf(requests[1], api), undefined);
      assert.ok(toolNames(requests[1], api).includes('structured_output'));
      const cache = JSON.parse(fs.readFileSync(path.join(home, '.weld/mechanisms.json'), 'utf8'));
      assert.deepEqual(Object.values(cache.entries).map((e) => e.native), [false]);
      const again = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
        { env: { ...env, WELD_MECHANISM: 'auto' }, home });
      assert.equal(again.code, 0, again.stderr);
      requests = await server.requests();
      assert.equal(requests.length, 3, 'no second probe');
      assert.ok(toolNames(requests[2], api).includes('structured_output'));
    } finally { await server.close(); }
  });

  test(`${api}: auto against a server that rejects the format (400): the tool mechanism`, async () => {
    const home = tempDir();
    const server = await startServer([so(OK)], { responseFormat: 'reject' });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'auto'], { env, home });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, OK + '\n');
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.ok(formatOf(requests[0], api) !== undefined);
      assert.equal(formatOf(requests[1], api), undefined);
    } finally { await server.close(); }
  });

  test(`${api}: auto: credentials refused on the probe: exit 41 with an envelope`, async () => {
    const server = await startServer([{ status: 401 }], { repeatLast: true });
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'auto', '--output-format', 'json'], { env });
      assert.equal(r.code, 41, r.stderr);
      assert.match(r.stderr, /^weld: --mechanism auto: the probe request failed: /);
      const envelope = JSON.parse(r.stdout).at(-1);
      assert.equal(envelope.subtype, 'error_api');
      assert.equal(envelope.error.message + '\n', r.stderr);
      assert.ok(!r.stderr.includes(API_KEY) && !r.stdout.includes(API_KEY));
    } finally { await server.close(); }
  });

  test(`${api}: native: the transcript redacts the answer text`, async () => {
    const home = tempDir();
    const server = await startServer([{ text: '{"summary":"secret-first"}' }, { text: OK }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mechanism', 'native'], { env, home });
      assert.equal(r.code, 0, r.stderr);
      const transcripts = walkFiles(home).filter((f) => f.endsWith('.jsonl'));
      assert.equal(transcripts.length, 1);
      const text = fs.readFileSync(transcripts[0], 'utf8');
      assert.ok(text.includes('structured_output payload (see stdout result)'), text);
      assert.ok(!text.includes('secret-first') && !text.includes('native-answer-q7'), text);
    } finally { await server.close(); }
  });
}

test('offline: --mechanism native does not apply (noted on stderr), the run succeeds', async () => {
  const r = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT, '--mechanism', 'native']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /the offline model answers through the structured_output tool; --mechanism native does not apply/);
  assert.deepEqual(Object.keys(JSON.parse(r.stdout)).sort(), ['risk_level', 'summary']);
});

// docs/run.md, "Mechanisms": OpenAI strict for a schema outside the
// subset. The optional property goes as required-but-nullable, maxLength
// into the description; the init message lists both; the model's null for
// the optional property is dropped before validation against the full
// schema, which still enforces maxLength.
test('openai: native: the lowering is listed in init, and a null it allowed is dropped', async () => {
  const schema = {
    type: 'object',
    properties: { summary: { type: 'string', maxLength: 12 }, note: { type: 'string' } },
    required: ['summary'],
  };
  const server = await startServer([{ text: '{"summary":"much too long a summary","note":null}' },
    { text: '{"summary":"short","note":null}' }]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', JSON.stringify(schema),
      '--mechanism', 'native', '--output-format', 'stream-json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const lines = parseLines(r.stdout);
    assert.deepEqual(lines[0].native_relaxed, [
      { path: '/properties/summary', change: 'maxLength moved into the description', reason: 'openai-strict has no maxLength' },
      { path: '/properties/note', change: 'optional property made required and nullable',
        reason: 'openai-strict needs every property in required' },
      { path: '', change: 'closed (additionalProperties: false)',
        reason: 'openai-strict needs closed objects; an answer with only the listed properties is valid here too' },
    ]);
    const envelope = lines.at(-1);
    assert.deepEqual(envelope.structured_result, { summary: 'short' });
    assert.deepEqual(envelope.repairs, [{ kind: 'drop_null', path: '/note', detail: 'null -> absent' }]);
    const [first, second] = await server.requests();
    const format = formatOf(first, 'openai');
    assert.equal(format.strict, true);
    assert.deepEqual(format.schema, {
      type: 'object',
      properties: { summary: { type: 'string', description: '(maxLength: 12)' }, note: { type: ['string', 'null'] } },
      required: ['summary', 'note'],
      additionalProperties: false,
    });
    assert.match(lastUserText(second), /answer\/summary must NOT have more than 12 characters/);
  } finally { await server.close(); }
});
