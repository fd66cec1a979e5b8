#!/usr/bin/env node
// bench/schema: weld vs Blaze vs Ajv 8 over every dataset of the
// jsonschema-benchmark corpus ($WELD_DATA_DIR/jsonschema-benchmark/schemas,
// ../shared/data by default: the schemas/ folder of
// sourcemeta-research/jsonschema-benchmark, kept outside the repository),
// in one run on this machine.
// Run by hand (not in CI):
//   (cd bench/schema && npm install)      # Blaze CLI, ajv, ajv-formats
//   cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release && cmake --build build-release --target weld
//   node bench/schema/run.js [--iterations N] [--repeat R] [--formats] [--only NAME,…] [--write docs/bench-schema.md]
// Each engine validates schema-noformat.json (schema.json with --formats,
// where Blaze gets --format-assertion) against instances.jsonl; all three
// must find every instance valid. Prints ns per validation, the ratios
// weld/Blaze and weld/Ajv per dataset, their geometric means, and compile
// times.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const os = require('os');

const argv = process.argv.slice(2);
function option(name, fallback) {
  const index = argv.indexOf(name);
  return index >= 0 ? argv[index + 1] : fallback;
}
const iterations = Number(option('--iterations', '100'));
const formats = argv.includes('--formats');
const only = option('--only', '');
const write = option('--write', '');
const dataDir = process.env.WELD_DATA_DIR || path.join(__dirname, '../../../shared/data');
const schemasDir = path.join(dataDir, 'jsonschema-benchmark/schemas');
if (!fs.existsSync(schemasDir)) {
  console.error(`bench/schema: no jsonschema-benchmark corpus at ${schemasDir} (the schemas/ folder of ` +
                'sourcemeta-research/jsonschema-benchmark, kept outside the repository): skipped; set WELD_DATA_DIR ' +
                'to a folder holding jsonschema-benchmark/schemas');
  process.exit(0);
}

// Best of `repeat` runs (lowest mean_ns): on a shared machine the minimum
// is the figure least disturbed by other processes.
const repeat = Number(option('--repeat', '1'));
const loadAtStart = os.loadavg()[0];
function engineOnce(script, schema, instances, extra) {
  const result = spawnSync(process.execPath, [path.join(__dirname, script), ...extra, schema, instances, String(iterations)],
                           { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (result.status !== 0) {
    const lines = (result.stderr || '').trim().split('\n');
    return { error: (lines.find((l) => /Error/.test(l)) || lines.pop() || 'failed').trim().replace(/\|/g, '/') };
  }
  return JSON.parse(result.stdout.trim().split('\n').pop());
}
// The engines take turns, one run each per round, so that a busy spell of
// the machine (another process, or a neighbour on the same core) lands on
// all of them alike rather than on whichever ran its rounds then.
function engines(list) {
  const best = list.map(() => undefined);
  for (let round = 0; round < repeat; ++round) {
    list.forEach(([script, schema, instances, extra], k) => {
      if (best[k] && best[k].error) return;
      const r = engineOnce(script, schema, instances, extra);
      if (r.error || !best[k] || r.mean_ns < best[k].mean_ns) best[k] = r;
    });
  }
  return best;
}

const geo = (values) => Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
const fmt = (ns) => (ns === undefined ? 'n/a' : ns >= 1e6 ? `${(ns / 1e6).toFixed(1)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);
const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : 'n/a');

let names = fs.readdirSync(schemasDir).filter((n) => fs.existsSync(path.join(schemasDir, n, 'instances.jsonl'))).sort();
if (only) names = names.filter((n) => only.split(',').includes(n));
const rows = [];
for (const name of names) {
  const dir = path.join(schemasDir, name);
  const schema = path.join(dir, formats ? 'schema.json' : 'schema-noformat.json');
  const instances = path.join(dir, 'instances.jsonl');
  const [weld, blaze, ajv] = engines([['weld.js', schema, instances, []],
                                      ['blaze.js', schema, instances, formats ? ['--formats'] : []],
                                      ['ajv.js', schema, instances, []]]);
  const agree = [weld, blaze, ajv].every((r) => !r.error && r.invalid.length === 0);
  const row = { name, weld, blaze, ajv, agree };
  rows.push(row);
  console.error(`${name}: weld ${fmt(weld.mean_ns)}  blaze ${fmt(blaze.mean_ns)}  ajv ${fmt(ajv.mean_ns)}  ` +
                `weld/blaze ${ratio(weld.mean_ns, blaze.mean_ns)}  weld/ajv ${ratio(weld.mean_ns, ajv.mean_ns)}` +
                (agree ? '' : `  DISAGREE ${JSON.stringify({ weld: weld.error || weld.invalid, blaze: blaze.error || blaze.invalid, ajv: ajv.error || ajv.invalid })}`));
}

const ok = rows.filter((r) => r.weld.mean_ns && r.blaze.mean_ns && r.ajv.mean_ns);
const lines = [];
const noUnicode = rows.filter((r) => r.ajv.unicode_regexp === false).map((r) => r.name);
lines.push(`| dataset | instances | weld ns/val | Blaze ns/val | Ajv ns/val | weld/Blaze | weld/Ajv | all valid in all 3 | weld compile | weld compile (wall) | Blaze compile (wall) | Ajv compile |`);
lines.push(`|---|---:|---:|---:|---:|---:|---:|:---:|---:|---:|---:|---:|`);
for (const r of rows) {
  lines.push(`| ${r.name} | ${r.weld.instances ?? 'n/a'} | ${r.weld.mean_ns?.toFixed(1) ?? r.weld.error} | ${r.blaze.mean_ns?.toFixed(1) ?? r.blaze.error} | ` +
             `${r.ajv.mean_ns?.toFixed(1) ?? r.ajv.error} | ${ratio(r.weld.mean_ns, r.blaze.mean_ns)} | ${ratio(r.weld.mean_ns, r.ajv.mean_ns)} | ` +
             `${r.agree ? 'yes' : '**no**'} | ${fmt(r.weld.compile_ns)} | ${fmt(r.weld.compile_wall_ns)} | ${fmt(r.blaze.compile_ns)} | ${fmt(r.ajv.compile_ns)} |`);
}
const summary = [
  `geometric mean over ${ok.length} datasets: weld/Blaze ${geo(ok.map((r) => r.weld.mean_ns / r.blaze.mean_ns)).toFixed(3)}, ` +
  `weld/Ajv ${geo(ok.map((r) => r.weld.mean_ns / r.ajv.mean_ns)).toFixed(3)}, Blaze/Ajv ${geo(ok.map((r) => r.blaze.mean_ns / r.ajv.mean_ns)).toFixed(3)}`,
  `geometric mean ns/validation: weld ${geo(ok.map((r) => r.weld.mean_ns)).toFixed(1)}, Blaze ${geo(ok.map((r) => r.blaze.mean_ns)).toFixed(1)}, Ajv ${geo(ok.map((r) => r.ajv.mean_ns)).toFixed(1)}`,
  `compile, geometric mean: weld ${fmt(geo(ok.map((r) => Math.max(r.weld.compile_ns, 1))))} (in-process), ` +
  `weld ${fmt(geo(ok.map((r) => Math.max(r.weld.compile_wall_ns, 1e3))))} (wall, subtracted), ` +
  `Blaze ${fmt(geo(ok.map((r) => Math.max(r.blaze.compile_ns, 1e3))))} (wall, subtracted), Ajv ${fmt(geo(ok.map((r) => r.ajv.compile_ns)))} (in-process)`,
  `datasets above 1.2x Blaze: ${rows.filter((r) => r.weld.mean_ns / r.blaze.mean_ns > 1.2).map((r) => `${r.name} ${ratio(r.weld.mean_ns, r.blaze.mean_ns)}`).join(', ') || 'none'}`,
  `all three engines agree every instance is valid: ${rows.every((r) => r.agree) ? 'yes' : 'NO (see table)'}`,
  `Ajv needed unicodeRegExp: false (patterns invalid under the u flag) for: ${noUnicode.join(', ') || 'none'}`,
];
const table = lines.join('\n');
console.log(table);
console.log('');
console.log(summary.join('\n'));
if (write) {
  const text = fs.readFileSync(write, 'utf8');
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  // The machine, its load (1-minute load average when the run started and
  // ended: other processes share the cores) and the weld measured.
  const commit = spawnSync('git', ['-C', __dirname, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  const stamp = `Run on ${os.cpus()[0].model} (${os.cpus().length} cores), load average ${loadAtStart.toFixed(1)} at the start ` +
                `and ${os.loadavg()[0].toFixed(1)} at the end, ${iterations} iterations, best of ${repeat} runs per engine (taking turns), ` +
                `${formats ? 'schema.json (formats asserted by all three)' : 'schema-noformat.json'}, weld at ${commit} ` +
                `(${process.env.WELD_BIN || 'build-release/src/cli/weld'}).`;
  const block = `${begin}\n${stamp}\n\n${table}\n\n${summary.map((s) => `- ${s}`).join('\n')}\n${end}`;
  const updated = text.includes(begin) ? text.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block) : `${text}\n${block}\n`;
  fs.writeFileSync(write, updated);
}
