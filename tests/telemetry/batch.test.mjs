// Telemetry of `weld batch` (docs/telemetry.md): one `weld batch` span under
// TRACEPARENT, each row's run a child of it with its own model request and
// validation spans, exported to an OTLP receiver built on the official
// OpenTelemetry decoders (receiver.mjs); nothing of the rows' data in it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_KEY, providerArgs, runWeld, startServer, tempDir } from '../e2e_run/lib.mjs';
import { startReceiver } from './receiver.mjs';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`;
const ROW_SECRET = 'ROW-SECRET-6620';
const SCHEMA = JSON.stringify({
  type: 'object', properties: { summary: { type: 'string' }, risk_level: { enum: ['low', 'high'] } },
  required: ['summary', 'risk_level'],
});
const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });

for (const protocol of ['http/protobuf', 'http/json']) {
  test(`${protocol}: a batch span under TRACEPARENT, one run span per row under it, row data never exported`, async () => {
    const model = await startServer([so('{"summary":"ok","risk_level":"low"}')], { repeatLast: true });
    const receiver = await startReceiver();
    try {
      const dir = tempDir('weld-telemetry-batch-');
      const input = path.join(dir, 'in.jsonl');
      const ids = ['a', 'b', 'c'];
      fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, text: `${ROW_SECRET} ${id}` }) + '\n').join(''));
      const r = await runWeld(['batch', ...providerArgs('openai', model.port), '--json-schema', SCHEMA, '-p', 'Assess',
        '--concurrency', '2', '--no-progress', input], {
        env: {
          WELD_API_KEY: API_KEY, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
          OTEL_EXPORTER_OTLP_PROTOCOL: protocol, TRACEPARENT,
        },
        timeoutMs: 30000,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout.trim().split('\n').length, 3);
      const spans = receiver.spans();
      const [batch, ...others] = spans.filter((s) => s.name === 'weld batch');
      assert.ok(batch, `a batch span among ${spans.map((s) => s.name).join(', ')}`);
      assert.equal(others.length, 0);
      assert.equal(batch.traceId, PARENT_TRACE);
      assert.equal(batch.parentSpanId, PARENT_SPAN);
      assert.equal(batch.attributes['weld.batch.rows_succeeded'], 3);
      assert.equal(batch.attributes['weld.batch.rows_errored'], 0);
      assert.equal(batch.attributes['weld.exit_code'], 0);
      const runs = spans.filter((s) => s.name === 'invoke_agent weld');
      assert.equal(runs.length, 3, 'one run span per row');
      for (const run of runs) {
        assert.equal(run.traceId, PARENT_TRACE);
        assert.equal(run.parentSpanId, batch.spanId, 'each row is a child of the batch');
        assert.equal(run.attributes['weld.outcome'], 'success');
        // run -> chat -> execute_tool structured_output -> weld.validate
        const childrenOf = (span) => spans.filter((s) => s.parentSpanId === span.spanId);
        const [chat, ...moreChats] = childrenOf(run);
        assert.equal(chat?.name, 'chat fake-model');
        assert.equal(moreChats.length, 0);
        const [tool] = childrenOf(chat);
        assert.equal(tool?.name, 'execute_tool structured_output');
        assert.deepEqual(childrenOf(tool).map((s) => s.name), ['weld.validate']);
      }
      const everything = receiver.raw();
      assert.ok(!everything.includes(ROW_SECRET), 'no row data exported');
      assert.ok(!everything.includes(API_KEY), 'no key exported');
    } finally {
      await receiver.close();
      await model.close();
    }
  });
}
