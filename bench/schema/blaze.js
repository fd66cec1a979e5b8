#!/usr/bin/env node
// Blaze peer for bench/schema: runs the native `jsonschema` CLI of npm
// @sourcemeta/jsonschema exactly as `jsonschema validate --fast --benchmark
// --loop N SCHEMA INSTANCES.jsonl` (add --format-assertion with --formats).
// It prints one line per instance, "file[line]: PASS <mean> +- <sd> us (…)";
// the mean over instances of the per-instance means is the mean per
// validation. Compile time: best-of-5 wall time of `jsonschema compile
// --fast SCHEMA` minus that of compiling an empty schema of the same dialect
// (so process start and I/O cancel out, roughly).
// Prints {"instances":I,"iterations":N,"mean_ns":X,"compile_ns":C,"invalid":[line…]}.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const binary = path.join(__dirname, 'node_modules/@sourcemeta/jsonschema/build/github-releases/jsonschema-linux-x86_64');
const args = process.argv.slice(2);
const formats = args.includes('--formats');
const [schemaPath, instancesPath, iterationsText] = args.filter((a) => a !== '--formats');
const iterations = Number(iterationsText || 100);

function run(argv) {
  const result = spawnSync(binary, argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.error) throw result.error;
  return result;
}

const validateArgs = ['validate', schemaPath, instancesPath, '--fast', '--benchmark', '--loop', String(iterations)];
if (formats) validateArgs.push('--format-assertion');
const result = run(validateArgs);
const lines = (result.stdout + result.stderr).split('\n');
let count = 0;
let total = 0;
const invalid = [];
for (const line of lines) {
  const match = /\[(\d+)\]: (PASS|FAIL) ([0-9.]+) \+- ([0-9.]+) us/.exec(line);
  if (!match) continue;
  ++count;
  total += Number(match[3]) * 1000;
  if (match[2] !== 'PASS') invalid.push(Number(match[1]) + 1);
}
if (count === 0) {
  console.error(`blaze.js: no per-instance lines from jsonschema (exit ${result.status}):\n${result.stderr}`);
  process.exit(1);
}

function bestWallNs(argv) {
  let best = Infinity;
  for (let round = 0; round < 5; ++round) {
    const start = process.hrtime.bigint();
    run(argv);
    best = Math.min(best, Number(process.hrtime.bigint() - start));
  }
  return best;
}
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const empty = path.join(os.tmpdir(), `weld-bench-empty-${process.pid}.json`);
fs.writeFileSync(empty, JSON.stringify(schema.$schema ? { $schema: schema.$schema } : {}));
const compileNs = Math.max(0, bestWallNs(['compile', schemaPath, '--fast']) - bestWallNs(['compile', empty, '--fast']));
fs.unlinkSync(empty);

console.log(JSON.stringify({ instances: count, iterations, mean_ns: total / count, compile_ns: compileNs, invalid }));
