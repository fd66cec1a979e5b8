#!/usr/bin/env node
// bench/run (docs/bench-run.md): in one run against the fake model server on
// loopback, times a one-turn --json-schema run of weld and of the peers
// (Qwen Code, Claude Code): median wall time (hyperfine) and peak RSS
// (/usr/bin/time -v), each checked against the expected payload; writes the
// table to docs/bench-run.md.
//
//   node bench/run/bench.mjs --weld build-release/src/cli/weld [--runs 10] [--peer-runs 5] [--out docs/bench-run.md]
//
// Peers are installed under bench/run/node_modules (npm install in bench/run);
// never part of the product.

import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import weldImpls from './impl/weld.mjs';
import qwenImpl from './impl/qwen.mjs';
import claudeImpl from './impl/claude.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => {
  if (a.startsWith('--')) acc.push([a.slice(2), all[i + 1]]);
  return acc;
}, []));
const weld = path.resolve(args.weld || path.join(root, 'build-release/src/cli/weld'));
const runs = Number(args.runs || 10);
const peerRuns = Number(args['peer-runs'] || 5);
const out = path.resolve(args.out || path.join(root, 'docs/bench-run.md'));
const nodeModules = path.join(here, 'node_modules');

const PROMPT = 'Assess the risk of this change';
const SCHEMA = JSON.stringify({ type: 'object', properties: { summary: { type: 'string' },
  risk_level: { type: 'string', enum: ['low', 'medium', 'high'] } }, required: ['summary', 'risk_level'] });
const PAYLOAD = { summary: 'Renames a local variable; no behaviour change.', risk_level: 'low' };

// One request on a fresh connection (no keep-alive reuse across long waits).
function call(port, method, urlPath, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, agent: false,
      headers: { 'content-type': 'application/json', connection: 'close' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`${urlPath}: HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error(`${urlPath}: timeout`)));
    req.end(body);
  });
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function startServer() {
  const script = path.join(os.tmpdir(), `weld-bench-script-${process.pid}.json`);
  fs.writeFileSync(script, JSON.stringify({ responses: [], repeat_last: true }));
  const child = spawn(process.execPath, [path.join(root, 'tests/fake_model/server.js'), '--script', script, '--port', '0'],
    { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error('fake server did not start')), 10000);
    child.stdout.on('data', (d) => {
      buf += d;
      if (buf.includes('\n')) { clearTimeout(t); resolve(JSON.parse(buf.split('\n')[0]).port); }
    });
  });
  const reset = async (toolName) => {
    const body = JSON.stringify({ repeat_last: true, responses: [{ tool_calls: [{ name: toolName, arguments: PAYLOAD }],
      usage: { input_tokens: 120, output_tokens: 24 } }] });
    await call(port, 'POST', '/__reset', body);
  };
  const requestCount = async () => JSON.parse(await call(port, 'GET', '/__requests'))
    .filter((r) => r.method === 'POST').length;
  return { port, reset, requestCount, stop: () => child.kill('SIGTERM') };
}

function envFor(impl, port, home) {
  return { PATH: process.env.PATH, HOME: home, TERM: 'dumb', ...impl.env(port) };
}

// One checked run under /usr/bin/time -v: returns {rssKiB, wallS}.
function timedRun(impl, port, home) {
  const argv = impl.argv(port, PROMPT, SCHEMA);
  // The report goes to a file: Claude Code's exit cuts off /usr/bin/time's stderr.
  const report = path.join(home, 'time-report.txt');
  const r = spawnSync('/usr/bin/time', ['-o', report, '-v', ...argv], { env: envFor(impl, port, home), cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 300000, maxBuffer: 64 << 20 });
  if (r.status !== 0 && impl.nonZeroExitOk) {
    impl.exitCodes = (impl.exitCodes || new Set()).add(r.status);
  } else if (r.status !== 0) {
    throw new Error(`${impl.name} exited ${r.status}: stdout ${JSON.stringify(r.stdout.slice(0, 500))}, `
      + `stderr ${JSON.stringify(r.stderr.split('\n').filter((l) => !l.startsWith('\t')).join(' ').slice(0, 500))}`);
  }
  const got = impl.payload(r.stdout);
  if (JSON.stringify(got) !== JSON.stringify(PAYLOAD)) {
    throw new Error(`${impl.name} answered ${JSON.stringify(got)}, expected ${JSON.stringify(PAYLOAD)}`);
  }
  const match = /Maximum resident set size \(kbytes\): (\d+)/.exec(fs.readFileSync(report, 'utf8'));
  if (!match) throw new Error(`${impl.name}: no peak RSS in the /usr/bin/time report`);
  const rss = Number(match[1]);
  return { rssKiB: rss };
}

function hyperfine(impl, port, home, n) {
  const argv = impl.argv(port, PROMPT, SCHEMA);
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const json = path.join(home, 'hyperfine.json');
  const r = spawnSync('hyperfine', ['-N', ...(impl.nonZeroExitOk ? ['-i'] : []), '--warmup', '1', '--runs', String(n), '--export-json', json,
    '--command-name', impl.name, quoted], { env: envFor(impl, port, home), cwd: home, encoding: 'utf8',
    timeout: 3600000 });
  if (r.status !== 0) throw new Error(`hyperfine failed for ${impl.name}: ${r.stderr}`);
  const result = JSON.parse(fs.readFileSync(json, 'utf8')).results[0];
  return { medianS: result.median, times: result.times, cpuS: result.user + result.system };
}

async function main() {
  if (!fs.existsSync(weld)) throw new Error(`no weld binary at ${weld} (build it, or pass --weld)`);
  const impls = [...weldImpls({ weld })];
  const notes = [];
  for (const [name, make, bin] of [['Qwen Code', qwenImpl, 'qwen'], ['Claude Code', claudeImpl, 'claude']]) {
    if (fs.existsSync(path.join(nodeModules, '.bin', bin))) impls.push(make({ nodeModules }));
    else notes.push(`${name} is not installed (run \`npm install\` in bench/run).`);
  }
  const server = await startServer();
  const rows = [];
  try {
    for (const impl of impls) {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-bench-home-'));
      await server.reset(impl.toolName);
      try {
        const n = impl.name.startsWith('weld') ? runs : peerRuns;
        const rss = [];
        for (let i = 0; i < Math.min(n, 5); i++) rss.push(timedRun(impl, server.port, home).rssKiB);
        const requestsPerRun = (await server.requestCount()) / rss.length;
        const time = hyperfine(impl, server.port, home, n);
        if (impl.exitCodes) {
          notes.push(`${impl.name} exited with status ${[...impl.exitCodes].join(', ')} although it printed a success `
            + 'envelope with the expected structured answer; it was measured anyway (hyperfine `-i`).');
        }
        rows.push({ name: impl.name, api: impl.api, medianMs: time.medianS * 1000, cpuMs: time.cpuS * 1000,
          rssMiB: median(rss) / 1024, runs: n, requestsPerRun });
        console.error(`${impl.name}: median ${(time.medianS * 1000).toFixed(1)} ms, peak RSS ${(median(rss) / 1024).toFixed(1)} MiB`);
      } catch (e) {
        notes.push(`${impl.name} could not be measured: ${e.message.split('\n')[0]}`);
        console.error(`${impl.name}: ${e.message}`);
      } finally {
        fs.rmSync(home, { recursive: true, force: true });
      }
    }
  } finally { server.stop(); }

  const weldRow = (api) => rows.find((r) => r.name === `weld (${api})`);
  const lines = [];
  lines.push('# bench/run — a one-turn `--json-schema` run, weld vs. the peers');
  lines.push('');
  lines.push('Each implementation runs the same job against `tests/fake_model/server.js` on loopback: one model');
  lines.push('request, answered at once with a valid structured-output tool call; each run\'s stdout is checked');
  lines.push('against the expected payload. Wall time is hyperfine\'s median (`-N`, 1 warm-up); peak RSS is the');
  lines.push('median of `/usr/bin/time -v` "Maximum resident set size" over up to 5 runs. The ratio compares');
  lines.push('with weld on the same API (Qwen Code speaks OpenAI, Claude Code Anthropic). CPU time is hyperfine\'s');
  lines.push('mean user + system time (children included): on a loaded machine it is steadier than wall time.');
  lines.push('');
  lines.push(`Machine: ${os.cpus().length} × ${os.cpus()[0].model}, load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')}; `
    + `${new Date().toISOString()}. Command: \`node bench/run/bench.mjs --weld ${path.relative(root, weld)} --runs ${runs} --peer-runs ${peerRuns}\`.`);
  if (os.loadavg()[0] > os.cpus().length) {
    lines.push('');
    lines.push(`The machine was loaded (load average above its ${os.cpus().length} CPUs) while this ran, so absolute `
      + 'wall times are inflated for every implementation; CPU time and RSS are less affected. The ratios are the result.');
  }
  lines.push('');
  lines.push('| implementation | API | runs | requests/run | median wall time | CPU time | peak RSS | wall vs weld | CPU vs weld | RSS vs weld |');
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const w = weldRow(r.api);
    const tr = w && !r.name.startsWith('weld') ? `${(r.medianMs / w.medianMs).toFixed(1)}×` : '—';
    const mr = w && !r.name.startsWith('weld') ? `${(r.rssMiB / w.rssMiB).toFixed(1)}×` : '—';
    const cr = w && !r.name.startsWith('weld') ? `${(r.cpuMs / w.cpuMs).toFixed(0)}×` : '—';
    lines.push(`| ${r.name} | ${r.api} | ${r.runs} | ${r.requestsPerRun.toFixed(1)} | ${r.medianMs.toFixed(1)} ms | ${r.cpuMs.toFixed(1)} ms | ${r.rssMiB.toFixed(1)} MiB | ${tr} | ${cr} | ${mr} |`);
  }
  lines.push('');
  if (notes.length) {
    lines.push('Notes:');
    lines.push('');
    for (const n of notes) lines.push(`- ${n}`);
    lines.push('');
  }
  fs.writeFileSync(out, lines.join('\n'));
  console.log(lines.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
