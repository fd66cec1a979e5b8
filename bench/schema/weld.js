#!/usr/bin/env node
// weld under test: `weld schema validate --no-strict --benchmark N --json
// SCHEMA INSTANCES.jsonl`. The last line is weld's own measurement
// {"instances","iterations","mean_ns","compile_ns"} (is_valid fast path,
// parsing excluded); the --json lines before it give each verdict. A second
// compile figure uses the same wall-clock subtraction as blaze.js
// (`weld schema check` of SCHEMA minus that of an empty schema).
// Prints {"instances":I,"iterations":N,"mean_ns":X,"compile_ns":C,"compile_wall_ns":W,"invalid":[line…]}.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const [schemaPath, instancesPath, iterationsText] = process.argv.slice(2);
const iterations = Number(iterationsText || 100);
const binary = process.env.WELD_BIN || path.join(__dirname, '../../build-release/src/cli/weld');

function run(argv) {
  const result = spawnSync(binary, argv, { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.error) throw result.error;
  return result;
}

const result = run(['schema', 'validate', '--no-strict', '--json', '--benchmark', String(iterations), schemaPath, instancesPath]);
const lines = result.stdout.trim().split('\n');
if (result.status === 52 || lines.length === 0) {
  console.error(`weld.js: weld failed (exit ${result.status}): ${result.stderr}`);
  process.exit(1);
}
const summary = JSON.parse(lines[lines.length - 1]);
const invalid = [];
lines.slice(0, -1).forEach((line, index) => { if (!JSON.parse(line).valid) invalid.push(index + 1); });

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
const wall = Math.max(0, bestWallNs(['schema', 'check', '--no-strict', schemaPath]) -
                         bestWallNs(['schema', 'check', '--no-strict', empty]));
fs.unlinkSync(empty);

console.log(JSON.stringify({ ...summary, compile_wall_ns: wall, invalid }));
