#!/usr/bin/env node
// Ajv 8 peer for bench/schema: compiles SCHEMA once (draft-07 or 2020-12 by
// its $schema, formats from ajv-formats), then validates every instance of
// INSTANCES.jsonl ITERATIONS times with the compiled function. Parsing is
// excluded; a warm-up pass runs first. Prints one JSON line:
// {"instances":I,"iterations":N,"mean_ns":X,"compile_ns":C,"invalid":[line…]}
'use strict';
const fs = require('fs');
const Ajv = require('ajv');
const Ajv2020 = require('ajv/dist/2020');
const Ajv2019 = require('ajv/dist/2019');
const addFormats = require('ajv-formats');

const [schemaPath, instancesPath, iterationsText] = process.argv.slice(2);
if (!schemaPath || !instancesPath) {
  console.error('usage: node ajv.js SCHEMA INSTANCES.jsonl [ITERATIONS]');
  process.exit(2);
}
const iterations = Number(iterationsText || 100);
const schema = JSON.parse(fs.readFileSync(schemaPath, 'utf8'));
const instances = fs.readFileSync(instancesPath, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));

// Ajv compiles patterns with the `u` flag; a few real schemas (krakend) use
// escapes `u` refuses, so those fall back to unicodeRegExp: false (reported).
let unicodeRegExp = true;
function makeAjv() {
  const dialect = String(schema.$schema || '');
  const options = { strict: false, allErrors: false, validateSchema: true, unicodeRegExp };
  let ajv;
  if (dialect.includes('2020-12')) ajv = new Ajv2020(options);
  else if (dialect.includes('2019-09')) ajv = new Ajv2019(options);
  else ajv = new Ajv(options);
  addFormats(ajv);
  return ajv;
}

// Compile time: fresh Ajv each time, best of 5.
let compileNs = Infinity;
let validate;
try {
  makeAjv().compile(schema);
} catch (error) {
  unicodeRegExp = false;
}
for (let round = 0; round < 5; ++round) {
  const ajv = makeAjv();
  const start = process.hrtime.bigint();
  validate = ajv.compile(schema);
  compileNs = Math.min(compileNs, Number(process.hrtime.bigint() - start));
}

const invalid = [];
instances.forEach((instance, index) => { if (!validate(instance)) invalid.push(index + 1); });
// Warm-up: let the JIT settle before timing.
const warmup = Math.max(1, Math.floor(iterations / 10));
let sink = 0;
for (let round = 0; round < warmup; ++round) for (const instance of instances) sink += validate(instance) ? 1 : 0;
// Each instance `iterations` times in a row, as Blaze's --benchmark --loop does.
const start = process.hrtime.bigint();
for (const instance of instances) for (let round = 0; round < iterations; ++round) sink += validate(instance) ? 1 : 0;
const elapsed = Number(process.hrtime.bigint() - start);
if (sink < 0) console.error(sink);
console.log(JSON.stringify({
  instances: instances.length,
  iterations,
  mean_ns: elapsed / (instances.length * iterations),
  compile_ns: compileNs,
  invalid,
  unicode_regexp: unicodeRegExp,
}));
