// What a script written for Claude Code reads, and the defaults a new user
// meets (docs/run.md): `--output-format result` piped into `jq .structured_output`
// exactly as `claude -p --output-format json` output is; cost only from the
// user's prices; api_error_status; the model a self-hosted server lists.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  APIS, API_KEY, SCHEMA_TEXT, providerArgs, runWeld, so, startServer, weldLines
} from './lib.mjs';

const PAYLOAD = '{"summary":"Rename only. «ok»","risk_level":"low"}';
const env = { WELD_API_KEY: API_KEY };

// A Claude Code `-o json` consumer as people write it: the result object on
// stdin, the payload out of `.structured_output` with jq.
function jqConsumer(stdout, filter = '.structured_output') {
  const r = spawnSync('jq', ['-c', '-e', filter], { input: stdout, encoding: 'utf8' });
  if (r.error) throw r.error;
  return r;
}

for (const api of APIS) {
  test(`${api}: -o result prints only the envelope, and jq .structured_output reads the payload`, async () => {
    const server = await startServer([{ ...so(PAYLOAD), usage: { input_tokens: 21, output_tokens: 9 } }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'Assess it', '--json-schema', SCHEMA_TEXT,
        '-o', 'result'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.stdout.endsWith('}\n'));
      assert.equal(r.stdout.indexOf('\n'), r.stdout.length - 1, 'one line: the envelope only');
      const consumer = jqConsumer(r.stdout);
      assert.equal(consumer.status, 0, consumer.stderr);
      assert.deepEqual(JSON.parse(consumer.stdout), JSON.parse(PAYLOAD));
      const envelope = JSON.parse(r.stdout);
      assert.equal(envelope.type, 'result');
      assert.equal(envelope.subtype, 'success');
      assert.deepEqual(envelope.structured_output, envelope.structured_result);
      assert.equal(envelope.api_error_status, null);
      assert.equal(typeof envelope.ttft_ms, 'number');
      assert.ok(envelope.ttft_ms >= 0 && envelope.ttft_ms <= envelope.duration_api_ms);
      assert.equal('total_cost_usd' in envelope, false, 'no prices given: no cost, never a guessed one');
    } finally { await server.close(); }
  });

  test(`${api}: --price-input/--price-output give total_cost_usd from the usage`, async () => {
    const server = await startServer([{ ...so(PAYLOAD), usage: { input_tokens: 2100, output_tokens: 900 } }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '-o', 'json', '--price-input', '3', '--price-output', '15'], { env });
      assert.equal(r.code, 0, r.stderr);
      const envelope = JSON.parse(r.stdout).at(-1);
      assert.ok(Math.abs(envelope.total_cost_usd - (2100 * 3 + 900 * 15) / 1e6) < 1e-12, String(envelope.total_cost_usd));
    } finally { await server.close(); }
  });

  test(`${api}: a provider error leaves api_error_status in the result envelope`, async () => {
    const server = await startServer([{ status: 404, error: { message: 'model "nope" not found', type: 'not_found_error' } }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '-o', 'result'], { env });
      assert.equal(r.code, 1, r.stderr);
      const envelope = JSON.parse(r.stdout);
      assert.equal(envelope.subtype, 'error_api');
      assert.equal(envelope.is_error, true);
      assert.equal(envelope.api_error_status, 404);
      assert.equal('structured_output' in envelope, false);
      assert.equal(jqConsumer(r.stdout).status, 1, 'jq -e finds no payload on failure');
    } finally { await server.close(); }
  });

  test(`${api}: no model named: the only model the server lists is used, and stderr says so`, async () => {
    const server = await startServer([so(PAYLOAD)], { models: ['Qwen/Qwen3-8B'] });
    try {
      const base = providerArgs(api, server.port).slice(0, 4);  // --provider, --base-url; no --model
      const r = await runWeld([...base, '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, PAYLOAD + '\n');
      const models = api === 'openai' ? `http://127.0.0.1:${server.port}/v1/models` : `http://127.0.0.1:${server.port}/v1/models`;
      assert.equal(r.stderr, `weld: no model given; using "Qwen/Qwen3-8B", the only model ${models} lists.\n`);
      const requests = await server.requests();
      assert.equal(requests.length, 1);
      assert.equal(requests[0].body.model, 'Qwen/Qwen3-8B');
    } finally { await server.close(); }
  });

  test(`${api}: no model named and several listed: exit 52 naming them, nothing sent`, async () => {
    const server = await startServer([so(PAYLOAD)], { models: ['a-model', 'b-model'] });
    try {
      const base = providerArgs(api, server.port).slice(0, 4);
      const r = await runWeld([...base, '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 52, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, `weld: no model given, and http://127.0.0.1:${server.port}/v1/models lists 2 models ` +
        '(a-model, b-model): pass --model with one of them (or set WELD_MODEL).\n');
      assert.equal((await server.requests()).length, 0);
    } finally { await server.close(); }
  });
}

test('a bare base URL (no provider, no model) says which defaults it took', async () => {
  const server = await startServer([so(PAYLOAD)]);
  try {
    const r = await runWeld(['-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env: { WELD_BASE_URL: `http://127.0.0.1:${server.port}/v1` } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr,
      `weld: no provider given; treating http://127.0.0.1:${server.port}/v1 as an OpenAI-compatible server (--provider openai).\n` +
      `weld: no model given; using "fake-model", the only model http://127.0.0.1:${server.port}/v1/models lists.\n`);
  } finally { await server.close(); }
});

// A Kubernetes Job started while vLLM loads its weights failed for good
// (52 "Pass --model"): a models list that cannot be had is retried like any
// request, then a temporary failure (75) the scheduler retries.
test('a server whose models list cannot be reached: retried, then exit 75', async () => {
  const server = await startServer([so(PAYLOAD)]);
  const port = server.port;
  await server.close();  // nothing listens there any more
  const r = await runWeld(['--provider', 'openai', '--base-url', `http://127.0.0.1:${port}/v1`, '--max-retries', '1',
    '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
  assert.equal(r.code, 75, r.stderr);
  assert.match(r.stderr, /^weld: no model given, and the server's models list could not be read: could not connect after 2 attempts: .*\(GET http:\/\/127\.0\.0\.1:\d+\/v1\/models\)\. Retry later, or pass --model \(or set WELD_MODEL\)\.\n$/);
});

test('a models list that answers 503 while the server loads: retried, and the run goes on', async () => {
  const server = await startServer([so(PAYLOAD)], { modelsErrors: [503, 503] });
  try {
    const r = await runWeld(['--provider', 'openai', '--base-url', `http://127.0.0.1:${server.port}/v1`,
      '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, PAYLOAD + '\n');
    assert.match(r.stderr, /no model given; using "fake-model", the only model/);
    const all = await server.allRequests();
    assert.deepEqual(all.map((q) => `${q.method} ${q.path}`),
      ['GET /v1/models', 'GET /v1/models', 'GET /v1/models', 'POST /v1/chat/completions']);
  } finally { await server.close(); }
  // Still 503 after the retries: 75, nothing sent to the model.
  const busy = await startServer([so(PAYLOAD)], { modelsErrors: [503, 503, 503, 503] });
  try {
    const r = await runWeld(['--provider', 'openai', '--base-url', `http://127.0.0.1:${busy.port}/v1`, '--max-retries', '1',
      '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'json'], { env });
    assert.equal(r.code, 75, r.stderr);
    assert.equal(JSON.parse(r.stdout).at(-1).is_error, true);
    assert.equal((await busy.requests()).length, 0);
  } finally { await busy.close(); }
  // A server with no models list (404) is a configuration matter: 52.
  const none = await startServer([so(PAYLOAD)], { modelsErrors: [404] });
  try {
    const r = await runWeld(['--provider', 'openai', '--base-url', `http://127.0.0.1:${none.port}/v1`,
      '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 52, r.stderr);
    assert.match(r.stderr, /HTTP 404 Not Found: fake model server: models list answered 404 \(server_error\) \(GET .*\)\. Pass --model/);
  } finally { await none.close(); }
});

test('a bad WELD_* variable is an error with the offline model too', async () => {
  for (const [name, value, message] of [
    ['WELD_IDLE_TIMEOUT', 'soon', 'WELD_IDLE_TIMEOUT must be a number of seconds, got "soon"'],
    ['WELD_CONNECT_TIMEOUT', '-1', 'WELD_CONNECT_TIMEOUT must be between 0 and 86400 seconds'],
    ['WELD_MAX_RETRIES', 'many', 'WELD_MAX_RETRIES must be a whole number, got "many"'],
  ]) {
    const r = await runWeld(['--provider', 'offline', '-p', 'hi'], { env: { [name]: value } });
    assert.equal(r.code, 52, `${name}=${value}: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, weldLines(message + '\n'));
  }
});

test('prices: one without the other, or not a number, is a usage error', async () => {
  let r = await runWeld(['-p', 'hi', '--price-input', '3']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, "weld: --price-input and --price-output go together (USD per million tokens).\nweld: Run 'weld --help' for usage.\n");
  r = await runWeld(['-p', 'hi', '--price-input', '3', '--price-output', 'cheap']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^weld: --price-output must be a price in USD per million tokens, a number of at least 0 \(got "cheap"\)\./);
});

test('-o result with the offline model: jq reads the payload', async () => {
  const r = await runWeld(['--provider', 'offline', '-p', 'hi', '--json-schema', SCHEMA_TEXT, '-o', 'result']);
  assert.equal(r.code, 0, r.stderr);
  const consumer = jqConsumer(r.stdout, '.structured_output.risk_level');
  assert.equal(consumer.status, 0);
  assert.ok(['"low"', '"medium"', '"high"'].includes(consumer.stdout.trim()));
  assert.equal(JSON.parse(r.stdout).api_error_status, null);
});

// A partial is a prefix-completion of the final payload: every member (or
// element) but the last equal to the final one at the same place, in the
// same order, and the last one itself a prefix-completion (a string a
// prefix of the final string). Written apart from weld's own closer.
function isPrefixCompletion(partial, final) {
  if (typeof partial === 'string') return typeof final === 'string' && final.startsWith(partial);
  if (partial === null || typeof partial !== 'object') return partial === final;
  if (final === null || typeof final !== 'object' || Array.isArray(partial) !== Array.isArray(final)) return false;
  const pk = Object.keys(partial);
  const fk = Object.keys(final);
  if (pk.length > fk.length) return false;
  for (let i = 0; i < pk.length; i++) {
    if (pk[i] !== fk[i]) return false;
    const last = i === pk.length - 1;
    if (!last) {
      try { assert.deepStrictEqual(partial[pk[i]], final[fk[i]]); } catch { return false; }
    } else if (!isPrefixCompletion(partial[pk[i]], final[fk[i]])) {
      return false;
    }
  }
  return true;
}

const NESTED_SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    options: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, confidence: { type: 'number' } }, required: ['label', 'confidence'] } },
    urgent: { type: 'boolean' },
  },
  required: ['summary', 'options', 'urgent'],
};
const NESTED = '{"summary":"Refund the order — «twice» charged 😀, \\"really\\"","options":[{"label":"refund","confidence":0.92},{"label":"wait","confidence":1e-2}],"urgent":true}';

for (const api of APIS) {
  test(`${api}: --include-partial-messages: every partial_result is JSON and a prefix-completion of the final payload`, async () => {
    const server = await startServer([{ ...so(NESTED), fragment_size: 3 }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', JSON.stringify(NESTED_SCHEMA),
        '-o', 'stream-json', '--include-partial-messages'], { env });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));  // every line is JSON
      const final = lines.at(-1);
      assert.equal(final.type, 'result');
      assert.deepEqual(final.structured_output, JSON.parse(NESTED), 'the final envelope is unchanged');
      const partials = lines.filter((l) => l.type === 'partial_result');
      assert.ok(partials.length >= 6, `one per completed field at least, got ${partials.length}`);
      for (const p of partials) {
        assert.equal(p.attempt, 1);
        assert.ok(isPrefixCompletion(p.structured_partial, final.structured_output),
          `not a prefix-completion: ${JSON.stringify(p.structured_partial)}`);
      }
      assert.deepEqual(partials.at(-1).structured_partial, final.structured_output, 'the last partial is the answer');
      // Partials come before the assistant message that carries the call.
      assert.ok(lines.findIndex((l) => l.type === 'partial_result') < lines.findIndex((l) => l.type === 'assistant'));
    } finally { await server.close(); }
  });

  test(`${api}: partials of an answer that failed validation are superseded by the next attempt's`, async () => {
    const server = await startServer([so('{"summary":"first","risk_level":"severe"}'), so(PAYLOAD)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '-o', 'stream-json', '--include-partial-messages'], { env });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l));
      const partials = lines.filter((l) => l.type === 'partial_result');
      assert.deepEqual([...new Set(partials.map((p) => p.attempt))], [1, 2]);
      const final = lines.at(-1).structured_output;
      assert.ok(partials.filter((p) => p.attempt === 2).every((p) => isPrefixCompletion(p.structured_partial, final)));
      assert.ok(partials.filter((p) => p.attempt === 1).some((p) => !isPrefixCompletion(p.structured_partial, final)),
        'the first attempt was a different answer');
    } finally { await server.close(); }
  });
}

test('without --include-partial-messages there are no partial_result lines', async () => {
  const r = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'stream-json']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!r.stdout.includes('"partial_result"'));
});
