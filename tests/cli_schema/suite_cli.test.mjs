// The official JSON-Schema-Test-Suite through the CLI, the way a user runs
// a validator (docs/schema.md, "weld schema validate"): for every test group, the schema and its
// instances (one per line, instances.jsonl) go to
//   weld schema validate --json --no-strict --format annotate --dialect D
//        --resolve http://localhost:1234/=<suite>/remotes SCHEMA INSTANCES.jsonl
// and each output line must name the file and line and give the suite's
// verdict. Every required test of draft4 to 2020-12 and v1 (format as an
// annotation, as they expect), and the optional format tests of the
// formats weld asserts (--format assert; for v1 every file of its format/).
// WELD_BIN: the weld binary; WELD_TEST_SUITE_DIR: the suite (third_party/JSON-Schema-Test-Suite).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const WELD = process.env.WELD_BIN;
const SUITE = process.env.WELD_TEST_SUITE_DIR;
const REMOTES = path.join(SUITE, 'remotes');
const DRAFTS = [['draft4', 'draft4'], ['draft6', 'draft6'], ['draft7', 'draft7'],
  ['draft2019-09', '2019-09'], ['draft2020-12', '2020-12'], ['v1', 'v1']];
// The formats weld asserts (docs/run.md, the schema engine's list), plus
// unknown.json: unknown formats pass.
const FORMATS = ['date-time', 'date', 'time', 'duration', 'email', 'idn-email', 'hostname', 'idn-hostname',
  'ipv4', 'ipv6', 'uri', 'uri-reference', 'iri', 'iri-reference', 'uri-template', 'uuid', 'json-pointer',
  'relative-json-pointer', 'regex', 'unknown'];

// Runs every group of `files` through weld; returns the mismatches as text
// and the number of instances checked.
function runGroups(files, dialect, format) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-suite-cli-'));
  const schemaPath = path.join(dir, 'schema.json');
  const instancesPath = path.join(dir, 'instances.jsonl');
  const failures = [];
  let checked = 0;
  try {
    for (const file of files) {
      const rel = path.relative(SUITE, file);
      for (const group of JSON.parse(fs.readFileSync(file, 'utf8'))) {
        fs.writeFileSync(schemaPath, JSON.stringify(group.schema));
        fs.writeFileSync(instancesPath, group.tests.map((t) => JSON.stringify(t.data)).join('\n') + '\n');
        const run = spawnSync(WELD, ['schema', 'validate', '--json', '--no-strict', '--format', format,
          '--dialect', dialect, '--resolve', `http://localhost:1234/=${REMOTES}`, schemaPath, instancesPath],
        { encoding: 'utf8', timeout: 30000 });
        const where = `${rel} | ${group.description}`;
        const allValid = group.tests.every((t) => t.valid);
        if (run.status !== (allValid ? 0 : 1)) {
          failures.push(`${where}: exit ${run.status}, expected ${allValid ? 0 : 1}: ${run.stderr.trim()}`);
          continue;
        }
        const lines = run.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
        if (lines.length !== group.tests.length) {
          failures.push(`${where}: ${lines.length} output lines for ${group.tests.length} instances`);
          continue;
        }
        group.tests.forEach((t, index) => {
          const line = lines[index];
          checked += 1;
          if (line.file !== instancesPath || line.line !== index + 1) {
            failures.push(`${where} | ${t.description}: names ${line.file}:${line.line}`);
          }
          if (line.valid !== t.valid) {
            failures.push(`${where} | ${t.description}: weld says ${line.valid ? 'valid' : 'invalid'}`);
          }
          if (line.valid !== (line.errors.length === 0)) {
            failures.push(`${where} | ${t.description}: valid=${line.valid} with ${line.errors.length} errors`);
          }
        });
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { failures, checked };
}

// WELD_SUITE_DRAFT=draft7: only that draft (CTest runs one test per draft).
const ONLY = process.env.WELD_SUITE_DRAFT;
for (const [dirName, dialect] of DRAFTS.filter(([name]) => !ONLY || name === ONLY)) {
  const draftDir = path.join(SUITE, 'tests', dirName);
  test(`${dirName}: every required test, format annotated`, { skip: !fs.existsSync(draftDir) }, () => {
    const files = fs.readdirSync(draftDir).filter((f) => f.endsWith('.json')).sort()
      .map((f) => path.join(draftDir, f));
    const { failures, checked } = runGroups(files, dialect, 'annotate');
    assert.ok(checked > 500, `only ${checked} instances checked`);
    assert.deepEqual(failures, []);
  });
  test(`${dirName}: optional format tests, format asserted`, { skip: !fs.existsSync(draftDir) }, () => {
    // v1 keeps its format tests, all of them run here, in format/.
    const v1Formats = path.join(draftDir, 'format');
    const files = fs.existsSync(v1Formats)
      ? fs.readdirSync(v1Formats).filter((f) => f.endsWith('.json')).sort().map((f) => path.join(v1Formats, f))
      : FORMATS.map((f) => path.join(draftDir, 'optional', 'format', `${f}.json`)).filter(fs.existsSync);
    const { failures, checked } = runGroups(files, dialect, 'assert');
    assert.ok(checked > 100, `only ${checked} instances checked`);
    assert.deepEqual(failures, []);
  });
}
