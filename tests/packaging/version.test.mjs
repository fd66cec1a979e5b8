// `weld --version` (docs/install.md, "Versions"): the version written once in
// the top-level CMakeLists.txt (project(VERSION)), the commit the binary was
// built from, and the build type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const WELD = process.env.WELD_BIN;
const SOURCE_DIR = process.env.WELD_SOURCE_DIR;

function projectVersion() {
  const text = fs.readFileSync(path.join(SOURCE_DIR, 'CMakeLists.txt'), 'utf8');
  const m = /^project\(weld VERSION (\d+\.\d+\.\d+)/m.exec(text);
  assert.ok(m, 'project(weld VERSION x.y.z) in CMakeLists.txt');
  return m[1];
}

for (const args of [['--version'], ['version']]) {
  test(`weld ${args[0]} names the version, the commit and the build type`, () => {
    const r = spawnSync(WELD, args, { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '');
    const m = /^weld (\S+) \(commit ([0-9a-f]{12}(?:-dirty)?|unknown), (Debug|Release|RelWithDebInfo|MinSizeRel)\)\n$/
      .exec(r.stdout);
    assert.ok(m, `unexpected output: ${JSON.stringify(r.stdout)}`);
    assert.equal(m[1], projectVersion());
    // The commit is one of this checkout's history (HEAD, or before it when
    // commits came after the build); "unknown" only outside a git checkout.
    const git = spawnSync('git', ['-C', SOURCE_DIR, 'rev-parse', 'HEAD'], { encoding: 'utf8' });
    if (git.status === 0) {
      const commit = m[2].replace(/-dirty$/, '');
      assert.notEqual(commit, 'unknown');
      const ancestor = spawnSync('git', ['-C', SOURCE_DIR, 'merge-base', '--is-ancestor', commit, 'HEAD']);
      assert.equal(ancestor.status, 0, `${commit} is not in the history of HEAD`);
    }
  });
}
