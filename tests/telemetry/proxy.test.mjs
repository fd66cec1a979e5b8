// Telemetry of `weld proxy` (docs/telemetry.md, "Spans of the proxy"): the real proxy between a
// client and the fake model server, exporting to an OTLP receiver built on
// the official OpenTelemetry decoders. Checks that the proxy continues the
// client's traceparent, makes one span per upstream attempt and sends that
// span's traceparent upstream; that its OTLP metrics and its Prometheus
// /metrics agree; that /metrics passes Debian's `promtool check metrics` and
// is scraped by a real Prometheus server; and that nothing secret is exported.

import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { postJson, startFake, tmpdir, until, weldBin } from '../proxy/harness.mjs';
import { startReceiver } from './receiver.mjs';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const SECRETS = { prompt: 'PROMPT-SECRET-2207', key: 'sk-proxy-SECRET-66Zq9', answer: 'refund' };

let fake;
let receiver;
let proxy;

/** Starts `weld proxy` with telemetry to the receiver; resolves {url, port, stop(), logs}. */
async function startProxy(upstream, env) {
  const child = spawn(weldBin, ['proxy', '--listen', '127.0.0.1:0', '--upstream', upstream], {
    stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, ...env },
  });
  const logs = [];
  let buffer = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`weld proxy did not listen: ${buffer}`)), 15000);
    child.stderr.on('data', (chunk) => {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        logs.push(line);
        if (line.includes('"event":"listening"')) { clearTimeout(timer); resolve(JSON.parse(line).port); }
      }
    });
    child.on('exit', (code) => reject(new Error(`weld proxy exited with ${code}: ${logs.join('\n')}`)));
  });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    port, url: `http://127.0.0.1:${port}`, logs,
    async stop() {
      child.kill('SIGTERM');
      return Promise.race([exited, new Promise((r) => setTimeout(() => { child.kill('SIGKILL'); r('killed'); }, 15000))]);
    },
  };
}

before(async () => {
  fake = await startFake({ responses: [] });
  receiver = await startReceiver();
  proxy = await startProxy(fake.url, {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, OTEL_SERVICE_NAME: 'weld-proxy-e2e',
    OTEL_BSP_SCHEDULE_DELAY: '50', OTEL_METRIC_EXPORT_INTERVAL: '200',
  });
});
after(async () => {
  await proxy?.stop();
  fake?.stop();
  await receiver?.close();
});

const routerCall = (action) => ({ tool_calls: [{ name: 'router', arguments: { action } }] });
const openaiRequest = {
  model: 'qwen3',
  messages: [{ role: 'user', content: `Where should this go: ${SECRETS.prompt}` }],
};

test('a tagged request continues the client trace: request span, one span per attempt, our traceparent upstream', async () => {
  // The first answer fails the router's enum, the retry passes: two attempts.
  await fake.reset({ responses: [routerCall('fly'), routerCall(SECRETS.answer)] });
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest, {
    'X-Agent-Name': 'router', traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
    authorization: `Bearer ${SECRETS.key}`,
  });
  assert.equal(r.status, 200, r.text);
  let server;
  let attempts;
  await until(() => {
    const spans = receiver.spans().filter((s) => s.traceId === CLIENT_TRACE);
    server = spans.find((s) => s.kind === 2);
    attempts = spans.filter((s) => s.kind === 3).sort((a, b) => a.attributes['weld.attempt'] - b.attributes['weld.attempt']);
    return server && attempts.length === 2;
  }, 10000, 'the request span and two attempt spans');
  assert.equal(server.name, 'POST /v1/chat/completions');
  assert.equal(server.parentSpanId, CLIENT_SPAN, 'the proxy continues the client span');
  assert.equal(server.resource['service.name'], 'weld-proxy-e2e');
  assert.equal(server.attributes['weld.agent'], 'router');
  assert.equal(server.attributes['weld.outcome'], 'ok');
  assert.equal(server.attributes['weld.attempts'], 2);
  assert.equal(server.attributes['weld.validation_failures'], 1);
  assert.equal(server.attributes['gen_ai.operation.name'], 'chat');
  assert.equal(server.attributes['gen_ai.request.model'], 'qwen3');
  assert.equal(server.attributes['http.response.status_code'], 200);
  for (const [i, attempt] of attempts.entries()) {
    assert.equal(attempt.parentSpanId, server.spanId, 'attempts are children of the request');
    assert.equal(attempt.attributes['weld.attempt'], i + 1);
    assert.equal(attempt.attributes['http.response.status_code'], 200);
  }
  const sent = await fake.requests();
  assert.equal(sent.length, 2);
  assert.deepEqual(sent.map((s) => s.headers.traceparent),
    attempts.map((a) => `00-${CLIENT_TRACE}-${a.spanId}-01`), 'each attempt sends its own traceparent upstream');
});

test('an untagged request: relayed, with a request span, an attempt span and our traceparent upstream', async () => {
  await fake.reset({ responses: [{ text: 'hello' }] });
  const trace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1';
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest, { traceparent: `00-${trace}-${CLIENT_SPAN}-01` });
  assert.equal(r.status, 200, r.text);
  let spans;
  await until(() => (spans = receiver.spans().filter((s) => s.traceId === trace)).length === 2, 10000, 'two spans');
  const server = spans.find((s) => s.kind === 2);
  const attempt = spans.find((s) => s.kind === 3);
  assert.equal(server.attributes['weld.outcome'], 'passthrough');
  assert.equal(attempt.parentSpanId, server.spanId);
  const [sent] = await fake.requests();
  assert.equal(sent.headers.traceparent, `00-${trace}-${attempt.spanId}-01`);
});

test('a request without traceparent starts a trace; /healthz and /metrics make no spans', async () => {
  await fake.reset({ responses: [{ text: 'hello' }] });
  const before = receiver.spans().length;
  await fetch(`${proxy.url}/healthz`);
  await fetch(`${proxy.url}/metrics`);
  const r = await postJson(`${proxy.url}/v1/chat/completions`, openaiRequest);
  assert.equal(r.status, 200);
  await until(() => receiver.spans().length >= before + 2, 10000, 'two more spans');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const fresh = receiver.spans().slice(before);
  assert.equal(fresh.length, 2, fresh.map((s) => s.name).join(', '));
  const server = fresh.find((s) => s.kind === 2);
  assert.equal(server.parentSpanId, '', 'a root span');
  const [sent] = await fake.requests();
  assert.match(sent.headers.traceparent, new RegExp(`^00-${server.traceId}-[0-9a-f]{16}-01$`));
});

// Prometheus text -> { 'name{labels}': value }.
function parsePrometheus(text) {
  const out = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    out[line.slice(0, space)] = Number(line.slice(space + 1));
  }
  return out;
}

test('OTLP metrics and /metrics agree, name for name and label for label', async () => {
  const scrape = async () => parsePrometheus(await (await fetch(`${proxy.url}/metrics`)).text());
  let prom;
  let points;
  // The exporter sends every 200 ms: wait until it has caught up with /metrics.
  await until(async () => {
    prom = await scrape();
    points = receiver.metrics();
    const requests = points.filter((p) => p.name === 'weld.proxy.requests').reduce((n, p) => n + p.value, 0);
    const promRequests = Object.entries(prom).filter(([k]) => k.startsWith('weld_proxy_requests_total'))
      .reduce((n, [, v]) => n + v, 0);
    return requests > 0 && requests === promRequests;
  }, 10000, 'OTLP metrics to catch up');
  let compared = 0;
  for (const p of points) {
    if (!p.name.startsWith('weld.proxy.')) continue;
    const base = p.name.replaceAll('.', '_');
    const labels = Object.entries(p.attributes).map(([k, v]) => `${k}="${v}"`).join(',');
    if (p.type === 'sum') {
      const key = `${base}_total${labels ? `{${labels}}` : ''}`;
      assert.equal(prom[key], p.value, `${key}: /metrics ${prom[key]}, OTLP ${p.value}`);
    } else {
      assert.equal(p.unit, 's');
      assert.equal(prom[`${base}_seconds_count`], p.count, `${base}_seconds_count`);
      let cumulative = 0;
      for (const [i, bound] of p.explicitBounds.entries()) {
        cumulative += p.bucketCounts[i];
        const key = `${base}_seconds_bucket{le="${bound}"}`;
        assert.equal(prom[key], cumulative, key);
      }
    }
    ++compared;
  }
  assert.ok(compared >= 5, `compared ${compared} metrics`);
  assert.ok(points.some((p) => p.name === 'weld.proxy.requests' && p.attributes.agent === 'router' && p.attributes.outcome === 'ok'));
  assert.ok(points.some((p) => p.name === 'weld.proxy.validation_failures' && p.value === 1));
});

test('/metrics passes promtool check metrics', async () => {
  const text = await (await fetch(`${proxy.url}/metrics`)).text();
  const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  assert.equal(r.error, undefined, `promtool: ${r.error}`);
  assert.equal(r.status, 0, `promtool check metrics:\n${r.stdout}${r.stderr}`);
});

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a real Prometheus server scrapes /metrics', async () => {
  const dir = tmpdir();
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'prometheus.yml'), [
    'global: { scrape_interval: 1s }',
    'scrape_configs:',
    '  - job_name: weld',
    `    static_configs: [ { targets: ["127.0.0.1:${proxy.port}"] } ]`,
  ].join('\n') + '\n');
  const child = spawn('prometheus', [`--config.file=${path.join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (c) => { log += c; });
  try {
    let result;
    await until(async () => {
      try {
        const q = encodeURIComponent('weld_proxy_requests_total{agent="router",outcome="ok"}');
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${q}`);
        result = (await r.json()).data?.result;
        return result?.length === 1;
      } catch { return false; }
    }, 30000, `Prometheus to scrape the proxy (log: ${log.slice(-2000)})`);
    assert.equal(Number(result[0].value[1]), 1);
    const up = await (await fetch(`http://127.0.0.1:${port}/api/v1/query?query=up`)).json();
    assert.equal(up.data.result[0].value[1], '1', 'the scrape target is up');
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => { if (child.exitCode !== null) resolve(); else child.on('exit', resolve); });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('nothing exported holds the prompt, the answer or the key', async () => {
  const everything = receiver.raw();
  assert.ok(everything.includes('POST /v1/chat/completions'), 'the search covers real exports');
  assert.ok(!everything.includes(SECRETS.prompt), 'the prompt leaked');
  assert.ok(!everything.includes(SECRETS.key), 'the key leaked');
  assert.ok(!everything.includes('"action"'), 'the answer leaked');
});
