// The Python wheel (docs/install.md, "pip"): `pip install --no-index` of the
// wheel file into a fresh venv puts `weld` on the venv's PATH, and it runs
// the README's example. pip itself checks the manylinux tag against this
// system's glibc.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EXAMPLE_ARGS, VERSION, artifact, checkExampleAnswer, need, run, runOk, tempDir } from './lib.mjs';

const WHEEL = artifact(new RegExp(`^weld-${VERSION.replace(/\./g, '\\.')}-[a-z0-9]+-[a-z0-9]+-manylinux_\\d+_\\d+_x86_64\\.whl$`),
                       'x86_64 wheel');
const venv = tempDir('weld-venv-');
after(() => fs.rmSync(venv, { recursive: true, force: true }));
const made = run('python3', ['-m', 'venv', venv]);
need(made.status === 0, `python3 -m venv failed (python3-venv is installed by scripts/install-deps.sh --package): ${made.stderr}`);

test('pip install --no-index of the wheel puts weld on the venv PATH', () => {
  const pip = runOk(path.join(venv, 'bin/pip'), ['install', '--no-index', '--disable-pip-version-check', WHEEL]);
  assert.match(pip.stdout, new RegExp(`Successfully installed weld-${VERSION.replace(/\./g, '\\.')}`));
  const weld = path.join(venv, 'bin/weld');
  assert.ok(fs.statSync(weld).mode & 0o111, 'executable');
  const env = { PATH: `${path.join(venv, 'bin')}:/usr/bin:/bin`, HOME: venv };
  const which = run('sh', ['-c', 'command -v weld'], { env });
  assert.equal(which.stdout.trim(), weld);
  checkExampleAnswer(run('weld', EXAMPLE_ARGS, { env }), 'pip install');
  assert.match(run('weld', ['--version'], { env }).stdout, new RegExp(`^weld ${VERSION} `));
  // pip knows what it installed and removes it again.
  const show = runOk(path.join(venv, 'bin/pip'), ['show', '-f', 'weld']);
  assert.match(show.stdout, /License: Apache-2.0/);
  runOk(path.join(venv, 'bin/pip'), ['uninstall', '-y', 'weld']);
  assert.ok(!fs.existsSync(weld));
});
