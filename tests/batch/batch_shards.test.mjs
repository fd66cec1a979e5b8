// Sharding (docs/batch.md, "Sharding: one input, many machines"): N shards run as N parallel processes cover every row
// exactly once, and the schedulers' variables (Kubernetes'
// JOB_COMPLETION_INDEX with --shards, Slurm's SLURM_ARRAY_TASK_ID /
// SLURM_ARRAY_TASK_COUNT) pick the same shards as --shard I/N.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runWeld, tempDir, SCHEMA_TEXT, writeRows, resultLines, dataRows, assertExactlyOnce } from './lib.mjs';

const N = 4;

function idsOf(file) {
  return resultLines(fs.readFileSync(file, 'utf8')).map((l) => l.custom_id).sort();
}

test(`${N} shards as ${N} parallel processes cover every row exactly once; the variables pick the same shards`, async () => {
  const dir = tempDir();
  const rows = dataRows(2000);
  const input = writeRows(dir, 'in.jsonl', rows);
  const base = ['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '-p', 'Assess', input];
  const runs = await Promise.all(Array.from({ length: N }, (_, i) =>
    runWeld([...base, '--shard', `${i}/${N}`, '-o', path.join(dir, 'flag-{shard}.jsonl')])));
  for (const r of runs) assert.equal(r.code, 0, r.stderr);
  const shards = Array.from({ length: N }, (_, i) => idsOf(path.join(dir, `flag-${i}.jsonl`)));
  for (const ids of shards) assert.ok(ids.length > 350 && ids.length < 650, `uneven shard: ${ids.length} rows`);
  assert.match(runs[2].stderr, new RegExp(`weld batch: ${shards[2].length} rows in shard 2/${N}: ${shards[2].length} succeeded`));
  assertExactlyOnce(shards.flat().map((id) => ({ custom_id: id })), rows.map((r) => r.id));

  const kube = await Promise.all(Array.from({ length: N }, (_, i) =>
    runWeld([...base, '--shards', String(N), '-o', path.join(dir, 'kube-{shard}.jsonl')],
      { env: { JOB_COMPLETION_INDEX: String(i) } })));
  const slurm = await Promise.all(Array.from({ length: N }, (_, i) =>
    runWeld([...base, '-o', path.join(dir, 'slurm-{shard}.jsonl')],
      { env: { SLURM_ARRAY_TASK_ID: String(i), SLURM_ARRAY_TASK_COUNT: String(N) } })));
  for (const r of [...kube, ...slurm]) assert.equal(r.code, 0, r.stderr);
  for (let i = 0; i < N; ++i) {
    assert.deepEqual(idsOf(path.join(dir, `kube-${i}.jsonl`)), shards[i]);
    assert.deepEqual(idsOf(path.join(dir, `slurm-${i}.jsonl`)), shards[i]);
  }
});

test('a shard is the same whatever else the input holds (a row\'s shard depends on its id only)', async () => {
  const dir = tempDir();
  const rows = dataRows(300);
  const small = writeRows(dir, 'small.jsonl', rows);
  const big = writeRows(dir, 'big.jsonl', [...dataRows(300, 'other-'), ...rows.slice().reverse()]);
  const a = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, small, '--shard', '1/3']);
  const b = await runWeld(['batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, big, '--shard', '1/3']);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const fromBig = resultLines(b.stdout).map((l) => l.custom_id).filter((id) => id.startsWith('row-')).sort();
  assert.deepEqual(fromBig, resultLines(a.stdout).map((l) => l.custom_id).sort());
});
