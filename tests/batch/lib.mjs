// Helpers of the `weld batch` end-to-end tests: input files, reading result
// lines, and the exactly-once check every test of resume and shards shares.
// weld itself is started with tests/e2e_run/lib.mjs's runWeld.

import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';

export * from '../e2e_run/lib.mjs';

/** Writes `rows` (objects or raw strings) as JSON Lines into dir/name; returns the path. */
export function writeRows(dir, name, rows) {
  const file = path.join(dir, name);
  fs.writeFileSync(file, rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r)) + '\n').join(''));
  return file;
}

/** N data rows with ids "row-0"…; each has a text field. */
export function dataRows(n, prefix = 'row-') {
  return Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, text: `ticket number ${i}` }));
}

/** Parses result lines (text ending in "\n", or empty). */
export function resultLines(text) {
  if (text === '') return [];
  assert.ok(text.endsWith('\n'), 'the output ends with a newline');
  return text.slice(0, -1).split('\n').map((line) => JSON.parse(line));
}

/** Asserts that `lines` has exactly one result line per id in `ids`, and nothing else. */
export function assertExactlyOnce(lines, ids) {
  const seen = new Map();
  for (const line of lines) seen.set(line.custom_id, (seen.get(line.custom_id) || 0) + 1);
  const twice = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  assert.deepEqual(twice, [], 'ids answered more than once');
  const missing = ids.filter((id) => !seen.has(id));
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} ids never answered`);
  assert.equal(lines.length, ids.length);
}
