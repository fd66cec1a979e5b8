// Telemetry of the headless run (docs/telemetry.md, "Spans of a run"): the real weld binary
// against the fake model server, exporting to an OTLP receiver built on the
// official OpenTelemetry decoders (receiver.mjs). Checks the span tree,
// GenAI and weld attributes, TRACEPARENT propagation, metrics, both OTLP
// encodings, --telemetry-file, redaction, and that a refusing or hanging
// collector changes neither the exit code nor the output.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_KEY, providerArgs, runWeld, so, startServer, tempDir } from '../e2e_run/lib.mjs';
import { startReceiver, spansOf, metricsOf } from './receiver.mjs';

const PARENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`;

// Secrets planted in everything weld sees; none may reach telemetry.
const SECRETS = {
  prompt: 'PROMPT-SECRET-7731', system: 'SYSTEM-SECRET-4410', schema: 'SCHEMA-SECRET-5521',
  payload: 'PAYLOAD-SECRET-9034', file: 'FILE-SECRET-1188', key: API_KEY,
};
const SCHEMA = JSON.stringify({
  type: 'object', description: `Never export: ${SECRETS.schema}`,
  properties: { summary: { type: 'string' }, risk_level: { enum: ['low', 'high'] } },
  required: ['summary', 'risk_level'], additionalProperties: false,
});
const INVALID = `{"summary":"${SECRETS.payload} first"}`;
const VALID = `{"summary":"${SECRETS.payload}","risk_level":"low"}`;
// Turn 1 lists the directory, turn 2 answers invalid, turn 3 valid.
const SCRIPT = [
  { tool_calls: [{ name: 'list_directory', arguments: { path: '.' }, id: 'call_ls' }], usage: { input_tokens: 100, output_tokens: 5 } },
  { ...so(INVALID, 'call_so1'), usage: { input_tokens: 200, output_tokens: 20 } },
  { ...so(VALID, 'call_so2'), usage: { input_tokens: 300, output_tokens: 30 } },
];

async function weldRun(api, model, env, extra = []) {
  const home = tempDir('weld-telemetry-home-');
  fs.writeFileSync(path.join(home, `${SECRETS.file}.txt`), 'x');
  const r = await runWeld([...providerArgs(api, model.port), '-p', `Assess ${SECRETS.prompt}`,
    '--system-prompt', SECRETS.system, '--json-schema', SCHEMA, ...extra],
  { env: { WELD_API_KEY: API_KEY, ...env }, home, timeoutMs: 30000 });
  return r;
}

function byName(spans, name) {
  return spans.filter((s) => s.name === name);
}

// The tree docs/telemetry.md describes: run -> model request -> tool call -> validation.
function checkRunTree(spans, api) {
  assert.equal(spans.length, 1 + 3 + 3 + 2, spans.map((s) => s.name).join(', '));
  const [run] = byName(spans, 'invoke_agent weld');
  assert.ok(run, 'a run span');
  assert.equal(run.traceId, PARENT_TRACE, 'the run joins the TRACEPARENT trace');
  assert.equal(run.parentSpanId, PARENT_SPAN);
  for (const s of spans) assert.equal(s.traceId, PARENT_TRACE, `${s.name} is in the trace`);
  assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
  assert.equal(run.attributes['gen_ai.request.model'], 'fake-model');
  assert.equal(run.attributes['gen_ai.provider.name'], api);
  assert.equal(run.attributes['gen_ai.usage.input_tokens'], 600);
  assert.equal(run.attributes['gen_ai.usage.output_tokens'], 55);
  assert.equal(run.attributes['weld.attempts'], 2);
  assert.equal(run.attributes['weld.repairs'], 0);
  assert.equal(run.attributes['weld.turns'], 3);
  assert.equal(run.attributes['weld.outcome'], 'success');
  assert.equal(run.attributes['weld.exit_code'], 0);
  assert.equal(run.status.code, 0);
  assert.equal(run.resource['service.name'], 'weld-e2e');
  assert.equal(run.scope, 'weld');

  const requests = byName(spans, 'chat fake-model').sort((a, b) => a.attributes['weld.turn'] - b.attributes['weld.turn']);
  assert.deepEqual(requests.map((s) => s.attributes['weld.turn']), [1, 2, 3]);
  for (const [i, request] of requests.entries()) {
    assert.equal(request.parentSpanId, run.spanId, 'model requests are children of the run');
    assert.equal(request.kind, 3, 'SPAN_KIND_CLIENT');
    assert.equal(request.attributes['gen_ai.operation.name'], 'chat');
    assert.equal(request.attributes['gen_ai.usage.input_tokens'], [100, 200, 300][i]);
    assert.equal(request.attributes['gen_ai.usage.output_tokens'], [5, 20, 30][i]);
    assert.ok(request.start >= run.start && request.end <= run.end, 'inside the run');
  }
  const [ls] = byName(spans, 'execute_tool list_directory');
  assert.equal(ls.parentSpanId, requests[0].spanId, 'a tool call is a child of the request that asked for it');
  assert.equal(ls.attributes['gen_ai.tool.call.id'], 'call_ls');
  const calls = byName(spans, 'execute_tool structured_output')
    .sort((a, b) => (a.start < b.start ? -1 : 1));
  assert.deepEqual(calls.map((c) => c.parentSpanId), [requests[1].spanId, requests[2].spanId]);
  assert.equal(calls[0].status.code, 2, 'the invalid call is an error');
  assert.equal(calls[0].attributes['error.type'], 'tool_error');
  const validations = byName(spans, 'weld.validate').sort((a, b) => a.attributes['weld.attempt'] - b.attributes['weld.attempt']);
  assert.deepEqual(validations.map((v) => v.parentSpanId), calls.map((c) => c.spanId), 'validation under its call');
  assert.deepEqual(validations.map((v) => v.attributes['weld.valid']), [false, true]);
  assert.equal(validations[0].attributes['error.type'], 'schema_violation');
  assert.equal(validations[0].attributes['weld.violations'], 1);
}

function checkRunMetrics(points) {
  const find = (name, attrs = {}) => points.find((p) => p.name === name &&
    Object.entries(attrs).every(([k, v]) => p.attributes[k] === v));
  assert.equal(find('weld.run.requests', { outcome: 'success' })?.value, 1);
  assert.equal(find('weld.run.attempts')?.value, 2);
  assert.equal(find('weld.run.validation_failures')?.value, 1);
  assert.equal(find('weld.run.tokens', { 'gen_ai.token.type': 'input' })?.value, 600);
  assert.equal(find('gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' })?.count, 3);
  assert.equal(find('gen_ai.client.token.usage', { 'gen_ai.token.type': 'output' })?.sum, 55);
  assert.equal(find('gen_ai.client.operation.duration')?.count, 3);
  assert.equal(find('weld.run.duration')?.count, 1);
}

for (const [api, protocol] of [['openai', 'http/protobuf'], ['anthropic', 'http/json']]) {
  test(`${api}, ${protocol}: the run's span tree, attributes and metrics reach the collector`, async () => {
    const model = await startServer(SCRIPT);
    const receiver = await startReceiver();
    try {
      const r = await weldRun(api, model, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
        OTEL_SERVICE_NAME: 'weld-e2e', TRACEPARENT, OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=team%20a',
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, VALID + '\n');
      assert.equal(r.stderr, '', 'nothing to report when every export succeeded');
      const contentType = protocol === 'http/json' ? 'application/json' : 'application/x-protobuf';
      assert.ok(receiver.requests.length >= 2);
      for (const req of receiver.requests) {
        assert.equal(req.contentType, contentType);
        assert.equal(req.headers['x-tenant'], 'team a', 'OTEL_EXPORTER_OTLP_HEADERS are sent');
      }
      checkRunTree(receiver.spans(), api);
      checkRunMetrics(receiver.metrics());
    } finally {
      await receiver.close();
      await model.close();
    }
  });
}

test('no prompt, payload, schema text, system prompt, tool output or key in anything exported', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver();
  const file = path.join(tempDir('weld-telemetry-file-'), 'spans.jsonl');
  try {
    for (const protocol of ['http/protobuf', 'http/json']) {
      const r = await weldRun('openai', model, {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol, TRACEPARENT,
      }, ['--telemetry-file', file]);
      assert.equal(r.code, 0, r.stderr);
      await fetch(`http://127.0.0.1:${model.port}/__reset`, { method: 'POST', body: JSON.stringify({ responses: SCRIPT }) });
    }
    const everything = receiver.raw() + fs.readFileSync(file, 'latin1');
    assert.ok(everything.includes('execute_tool structured_output'), 'the search covers real exports');
    for (const [what, secret] of Object.entries(SECRETS)) {
      assert.ok(!everything.includes(secret), `the ${what} leaked into telemetry`);
    }
  } finally {
    await receiver.close();
    await model.close();
  }
});

test('--telemetry-file: the same spans as OTLP JSON lines, with no collector', async () => {
  const model = await startServer(SCRIPT);
  const file = path.join(tempDir('weld-telemetry-file-'), 'spans.jsonl');
  try {
    const r = await weldRun('openai', model, { TRACEPARENT, OTEL_SERVICE_NAME: 'weld-e2e' }, ['--telemetry-file', file]);
    assert.equal(r.code, 0, r.stderr);
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line));
    const spans = lines.filter((l) => l.resourceSpans).flatMap(spansOf);
    checkRunTree(spans, 'openai');
    checkRunMetrics(lines.filter((l) => l.resourceMetrics).flatMap(metricsOf));
  } finally {
    await model.close();
  }
});

test('a refused collector changes neither the exit code nor the output, and is reported once', async () => {
  const model = await startServer(SCRIPT);
  const closed = await startReceiver();
  const endpoint = closed.endpoint;
  await closed.close();  // nothing listens there now
  try {
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, VALID + '\n');
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`^weld: warning: telemetry: 0 span\\(s\\) exported, 9 dropped \\(last error: POST ${endpoint}/v1/(traces|metrics): `));
  } finally {
    await model.close();
  }
});

// The exit flush once sent the spans, waited for the answer, then sent
// the metrics: two round trips added to every run's wall time. Sent
// together, the exit waits for one. This receiver answers neither until it
// has both, so an exporter sending one after the other is abandoned at the
// flush budget and says so.
test('the exit flush sends the last spans and the metrics together', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver({ mode: 'together' });
  try {
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '60000' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, VALID + '\n');
    assert.equal(r.stderr, '', 'every span and the metrics were delivered');
    assert.deepEqual(receiver.requests.map((x) => x.kind).sort(), ['metrics', 'traces']);
    assert.equal(receiver.spans().length, 9);
  } finally {
    await receiver.close();
    await model.close();
  }
});

// The exit flush is bounded (cli/telemetry_support.h: 1 s): a collector that
// accepts and never answers delays the exit by about that, not by the OTLP
// timeout (10 s), and the run's result is unchanged.
test('a hanging collector delays the exit by the bounded flush only', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver({ mode: 'hang' });
  try {
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, VALID + '\n');
    assert.ok(r.ms < 8000, `exit took ${r.ms} ms; the flush is bounded to 1 s, the OTLP timeout is 10 s`);
    assert.match(r.stderr, /^weld: warning: telemetry: 0 span\(s\) exported, 9 dropped \(last error: POST .*: abandoned when the exit flush ran out of time\)\n$/);
    assert.ok(receiver.requests.length >= 1, 'the export was attempted');
  } finally {
    await receiver.close();
    await model.close();
  }
});

// OTEL_EXPORTER_OTLP_ENDPOINT=127.0.0.1:4318 (no scheme) exported nothing,
// silently: it is read as users mean it (http://), and said once.
test('a scheme-less endpoint is read as http://, with one warning', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver();
  try {
    const hostPort = `127.0.0.1:${receiver.port}`;
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: hostPort });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `weld: warning: telemetry: OTEL_EXPORTER_OTLP_ENDPOINT=${hostPort} has no scheme; read as http://${hostPort}\n`);
    assert.equal(receiver.spans().length, 9);
  } finally {
    await receiver.close();
    await model.close();
  }
});

// Every telemetry warning was printed twice (once per signal); a setting
// that leaves nothing to export was not printed at all.
test('each telemetry warning is printed once, even when nothing is exported', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver();
  try {
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TIMEOUT: 'soon', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr,
      'weld: warning: telemetry: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (http/protobuf or http/json); using http/protobuf\n' +
      'weld: warning: telemetry: OTEL_EXPORTER_OTLP_HEADERS: 1 entry without key=value skipped\n' +
      'weld: warning: telemetry: OTEL_EXPORTER_OTLP_TIMEOUT must be a positive number of milliseconds (got "soon"); using 10000\n');
    const fresh = await startServer(SCRIPT);
    const none = await weldRun('openai', fresh, { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://127.0.0.1:4317' });
    await fresh.close();
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stderr,
      'weld: warning: telemetry: the OTLP traces endpoint grpc://127.0.0.1:4317/v1/traces is not an http:// or https:// URL; traces are not exported\n' +
      'weld: warning: telemetry: the OTLP metrics endpoint grpc://127.0.0.1:4317/v1/metrics is not an http:// or https:// URL; metrics are not exported\n');
  } finally {
    await receiver.close();
    await model.close();
  }
});

// A query in the endpoint (a collector's key): v1/traces went after it, and
// the query was printed in errors.
test('a query in the endpoint stays after the signal path and is never printed', async () => {
  const model = await startServer(SCRIPT);
  const receiver = await startReceiver({ mode: 'fail' });
  try {
    const r = await weldRun('openai', model, { OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.endpoint}/?key=otel-Q-5521` });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...new Set(receiver.requests.map((x) => x.path))].sort(),
      ['/v1/metrics?key=otel-Q-5521', '/v1/traces?key=otel-Q-5521']);
    assert.match(r.stderr, /POST http:\/\/127\.0\.0\.1:\d+\/v1\/(traces|metrics)\?…: HTTP 503/);
    assert.ok(!r.stderr.includes('otel-Q-5521'), r.stderr);
  } finally {
    await receiver.close();
    await model.close();
  }
});
