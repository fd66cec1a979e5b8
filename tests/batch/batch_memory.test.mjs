// docs/batch.md: memory is bounded by the concurrency, not by the input,
// except for the ids seen, at most 48 bytes per row. A 1,000,000-row input
// streams through on the offline model; its peak RSS is compared with a
// 10,000-row run's. The bound checked is the documented one: 48 bytes per extra row
// (≈ 45 MiB for 990,000 rows) — not a timing.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { tempDir, SCHEMA_TEXT, WELD } from './lib.mjs';

function writeInput(file, n) {
  const fd = fs.openSync(file, 'w');
  let chunk = '';
  for (let i = 0; i < n; ++i) {
    chunk += `{"id":"row-${i}","text":"ticket ${i}"}\n`;
    if (chunk.length > 1 << 20) { fs.writeSync(fd, chunk); chunk = ''; }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
}

// Runs weld batch under /usr/bin/time -v; resolves to {code, maxRssKb, lines}.
function runMeasured(input, out) {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'maxrss_kb=%M', WELD, 'batch', '--provider', 'offline', '--json-schema', SCHEMA_TEXT, '-p', 'x',
      input, '-o', out, '--no-progress'], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env.PATH, HOME: path.dirname(out) } });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code) => {
      const m = /maxrss_kb=(\d+)/.exec(stderr);
      resolve({ code, maxRssKb: m ? Number(m[1]) : NaN, stderr });
    });
  });
}

function countLines(file) {
  const data = fs.readFileSync(file);
  let n = 0;
  for (const byte of data) if (byte === 10) ++n;
  return n;
}

// Under a sanitizer (WELD_SANITIZE, set by CMake) peak RSS measures
// AddressSanitizer's quarantine of freed memory (256 MiB), not weld.
const sanitized = process.env.WELD_SANITIZE ? `built with -fsanitize=${process.env.WELD_SANITIZE}: RSS is the sanitizer's` : false;

test('1,000,000 rows stream through with memory bounded by the ids seen', { timeout: 900000, skip: sanitized }, async () => {
  const dir = tempDir();
  const small = path.join(dir, 'small.jsonl');
  const big = path.join(dir, 'big.jsonl');
  writeInput(small, 10000);
  writeInput(big, 1000000);
  const a = await runMeasured(small, path.join(dir, 'small-out.jsonl'));
  assert.equal(a.code, 0, a.stderr);
  const b = await runMeasured(big, path.join(dir, 'big-out.jsonl'));
  assert.equal(b.code, 0, b.stderr);
  assert.equal(countLines(path.join(dir, 'big-out.jsonl')), 1000000);
  const extraMb = (b.maxRssKb - a.maxRssKb) / 1024;
  console.log(`peak RSS: 10,000 rows ${(a.maxRssKb / 1024).toFixed(1)} MiB, 1,000,000 rows ${(b.maxRssKb / 1024).toFixed(1)} MiB (+${extraMb.toFixed(1)} MiB)`);
  assert.ok(extraMb <= 48, `+${extraMb.toFixed(1)} MiB for 990,000 more rows`);
  fs.rmSync(dir, { recursive: true, force: true });
});
