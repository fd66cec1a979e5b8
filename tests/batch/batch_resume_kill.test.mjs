// SPEC §7: "Killing weld at any moment (even SIGKILL) and running the same
// command again ends with exactly one result line per row." The same
// command is killed at 24 random moments — at start-up, mid-request,
// mid-write — then run to the end; every row must have exactly one line.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  runWeld, startServer, providerArgs, tempDir, SCHEMA_TEXT, API_KEY, writeRows, resultLines, dataRows, assertExactlyOnce,
} from './lib.mjs';

const so = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });

for (const format of ['weld', 'openai']) {
  test(`${format}: SIGKILL at 24 random moments, then the same command: exactly one line per row`, async () => {
    // Each answer takes 20 ms and four go at once, so the rows below take
    // 25 s or more however fast the machine is: longer than the 24 kills'
    // delays together (20.2 s and 21.2 s for these seeds), so every kill
    // lands mid-run. (3000 rows took 15 s, and on an idle machine the last
    // runs of the longer seed could end before their kill.)
    const server = await startServer([{ ...so('{"summary":"ok","risk_level":"low"}'), delay_ms: 20 }], { repeatLast: true });
    try {
      const dir = tempDir();
      const out = path.join(dir, 'out.jsonl');
      const rows = dataRows(5000);
      // A repeated id and a bad line, so their errored lines are resumed too.
      const input = writeRows(dir, 'in.jsonl', [...rows, { id: 'row-7', text: 'again' }, 'not json']);
      const args = ['batch', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT, '-p', 'x',
        input, '-o', out, '--concurrency', '4', '--output-format', format];
      const env = { WELD_API_KEY: API_KEY };
      let seed = format === 'weld' ? 7 : 11;
      const random = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
      const counts = [];
      let killed = 0;
      for (let i = 0; i < 24; ++i) {
        const delay = 100 + Math.floor(random() * 1400);
        const r = await runWeld(args, {
          env,
          onStart: (child) => setTimeout(() => child.kill('SIGKILL'), delay),
        });
        if (r.signal === 'SIGKILL') ++killed;
        counts.push(fs.existsSync(out) ? fs.readFileSync(out, 'utf8').split('\n').length - 1 : 0);
      }
      assert.ok(killed >= 20, `only ${killed} of 24 runs were killed before they ended`);
      const last = await runWeld(args, { env, timeoutMs: 300000 });
      // 1: the repeated id and the bad line are errored rows; 0 when the
      // killed runs already wrote every line (skipped rows count as done).
      assert.ok(last.code === 0 || last.code === 1, last.stderr);
      const lines = resultLines(fs.readFileSync(out, 'utf8'));
      // The repeated id's errored line carries the earlier line's id.
      const repeats = lines.filter((l) => (l.error?.type ?? l.error?.code) === 'error_duplicate_id');
      assert.deepEqual(repeats.map((l) => l.custom_id), ['row-7']);
      assertExactlyOnce(lines.filter((l) => !repeats.includes(l)), [...rows.map((x) => x.id), String(rows.length + 1)]);
      assert.ok(counts.filter((n, i) => i > 0 && n > counts[i - 1]).length >= 1,
        `no killed run wrote a line: ${counts.join(',')}`);
    } finally { await server.close(); }
  });
}
