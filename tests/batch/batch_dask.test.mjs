// weld batch under a real Dask cluster: docs/batch.md's Dask
// recipe — a distributed LocalCluster (Debian's python3-distributed) piping
// each partition of the input through `weld batch - -o -` — run as written;
// the partitions' outputs together cover every row exactly once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { WELD, SCHEMA_TEXT, tempDir, writeRows, dataRows, resultLines, assertExactlyOnce } from './lib.mjs';
import { recipe } from './recipes.mjs';

// Debian's interpreter, where python3-distributed lives (a pyenv or venv
// python3 earlier on PATH would not see it).
const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import dask.bag, distributed'], { encoding: 'utf8' });
const skip = probe.status !== 0
  ? `Dask is not installed for ${PYTHON} (scripts/install-deps.sh installs python3-distributed): ${(probe.stderr || probe.error?.message || '').trim().split('\n').at(-1)}`
  : false;

test('a Dask LocalCluster piping partitions through weld batch covers every row exactly once', { skip, timeout: 300000 }, async () => {
  const dir = tempDir('weld-dask-');
  try {
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.mkdirSync(path.join(dir, 'results'));
    fs.symlinkSync(WELD, path.join(dir, 'bin', 'weld'));
    const rows = dataRows(6000);
    const input = writeRows(dir, 'tickets.jsonl', rows);
    assert.ok(fs.statSync(input).size > 3 * 64 * 1024, 'the input spans several 64 KiB partitions');
    fs.writeFileSync(path.join(dir, 'schema.json'), SCHEMA_TEXT);
    fs.writeFileSync(path.join(dir, 'dask_weld.py'), recipe('dask'));
    const run = spawnSync(PYTHON, ['dask_weld.py'], {
      cwd: dir, encoding: 'utf8', timeout: 240000,
      env: { PATH: `${path.join(dir, 'bin')}:/usr/bin:/bin`, HOME: dir, WELD_PROVIDER: 'offline' },  // the offline model answers
    });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
    const parts = fs.readdirSync(path.join(dir, 'results')).filter((f) => f.startsWith('part-')).sort();
    assert.ok(parts.length >= 3, `${parts.length} partitions`);
    const lines = parts.flatMap((f) => resultLines(fs.readFileSync(path.join(dir, 'results', f), 'utf8')));
    assert.ok(lines.every((l) => l.status === 'succeeded'));
    assertExactlyOnce(lines, rows.map((r) => r.id));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
