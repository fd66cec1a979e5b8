// An OTLP/HTTP receiver that is not weld's code: it decodes what weld sends
// with the official OpenTelemetry JS decoders (generated from
// opentelemetry-proto, shipped by @opentelemetry/otlp-transformer 0.52) for
// application/x-protobuf, and JSON.parse for application/json, and turns
// both into one plain shape the tests check.

import http from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const root = require('@opentelemetry/otlp-transformer/build/src/generated/root');
const TraceRequest = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
const MetricsRequest = root.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
const TO_OBJECT = { longs: String, enums: Number, bytes: String, defaults: false, arrays: true };

function hex(value) {
  if (value === undefined || value === null || value === '') return '';
  // toObject with bytes: String gives base64; JSON gives hex already.
  if (/^[0-9a-f]+$/.test(value) && (value.length === 32 || value.length === 16)) return value;
  return Buffer.from(value, 'base64').toString('hex');
}

function anyValue(v) {
  if (v === undefined || v === null) return undefined;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('arrayValue' in v) return (v.arrayValue.values || []).map(anyValue);
  return undefined;
}

function attributes(list) {
  const out = {};
  for (const kv of list || []) out[kv.key] = anyValue(kv.value);
  return out;
}

function decode(kind, contentType, body) {
  const Type = kind === 'traces' ? TraceRequest : MetricsRequest;
  if (contentType === 'application/x-protobuf') return Type.toObject(Type.decode(body), TO_OBJECT);
  if (contentType === 'application/json') return JSON.parse(body.toString('utf8'));
  throw new Error(`unexpected Content-Type ${contentType}`);
}

function spansOf(request) {
  const out = [];
  for (const rs of request.resourceSpans || []) {
    const resource = attributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans || []) {
      for (const s of ss.spans || []) {
        out.push({
          traceId: hex(s.traceId), spanId: hex(s.spanId), parentSpanId: hex(s.parentSpanId), name: s.name,
          kind: s.kind, start: BigInt(s.startTimeUnixNano), end: BigInt(s.endTimeUnixNano),
          attributes: attributes(s.attributes), status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          resource, scope: ss.scope?.name,
        });
      }
    }
  }
  return out;
}

function metricsOf(request) {
  const out = [];
  for (const rm of request.resourceMetrics || []) {
    for (const sm of rm.scopeMetrics || []) {
      for (const m of sm.metrics || []) {
        const data = m.sum || m.histogram;
        const type = m.sum ? 'sum' : m.histogram ? 'histogram' : 'other';
        for (const p of data?.dataPoints || []) {
          out.push({
            name: m.name, unit: m.unit, type, attributes: attributes(p.attributes),
            value: type === 'sum' ? Number(p.asInt ?? p.asDouble) : undefined,
            count: type === 'histogram' ? Number(p.count) : undefined, sum: p.sum,
            bucketCounts: (p.bucketCounts || []).map(Number), explicitBounds: p.explicitBounds || [],
          });
        }
      }
    }
  }
  return out;
}

/**
 * Starts the receiver on a loopback port. `mode`: 'ok' (200), 'fail' (503),
 * 'hang' (never answers) or 'together' (200, but only once a traces and a
 * metrics request have both arrived: an exporter that waits for one answer
 * before sending the other never gets it). Resolves to { port, endpoint, requests, spans(),
 * metrics(), raw(), close() }.
 */
export async function startReceiver({ mode = 'ok' } = {}) {
  const requests = [];
  const hanging = [];
  const held = [];  // 'together': [res, entry] until both kinds are here
  const answer = (res, entry) => {
    res.writeHead(mode === 'fail' ? 503 : 200, { 'content-type': entry.contentType || 'application/json' });
    res.end(entry.contentType === 'application/json' ? '{}' : '');
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const route = req.url.split('?')[0];
      const kind = route === '/v1/traces' ? 'traces' : route === '/v1/metrics' ? 'metrics' : 'unknown';
      const entry = { path: req.url, kind, headers: req.headers, body, contentType: req.headers['content-type'] };
      try {
        entry.decoded = decode(kind, entry.contentType, body);
      } catch (e) {
        entry.error = String(e);
      }
      requests.push(entry);
      if (mode === 'hang') { hanging.push(res); return; }
      if (mode === 'together') {
        held.push([res, entry]);
        const kinds = new Set(held.map(([, e]) => e.kind));
        if (kinds.has('traces') && kinds.has('metrics')) for (const [r, e] of held.splice(0)) answer(r, e);
        return;
      }
      answer(res, entry);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    port,
    endpoint: `http://127.0.0.1:${port}`,
    requests,
    /** Every span received, decoded, in arrival order. Throws on an undecodable body. */
    spans() {
      const out = [];
      for (const r of requests.filter((x) => x.kind === 'traces')) {
        if (r.error) throw new Error(`undecodable traces body: ${r.error}`);
        out.push(...spansOf(r.decoded));
      }
      return out;
    },
    /** Data points of the last metrics request (cumulative: the last has everything). */
    metrics() {
      const last = requests.filter((x) => x.kind === 'metrics').at(-1);
      if (!last) return [];
      if (last.error) throw new Error(`undecodable metrics body: ${last.error}`);
      return metricsOf(last.decoded);
    },
    /** Everything received, headers and bodies, as one string (for secret searches). */
    raw() {
      return requests.map((r) => JSON.stringify(r.headers) + '\n' + r.body.toString('latin1') + '\n' +
        JSON.stringify(r.decoded ?? null)).join('\n');
    },
    async close() {
      for (const res of hanging) res.destroy();
      for (const [res] of held) res.destroy();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export { spansOf, metricsOf };
