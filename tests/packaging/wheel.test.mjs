// The Python wheel (docs/install.md, "pip"): `pip install --no-index` of the
// wheel file into a fresh venv puts `weld` on the venv's PATH, where it runs
// the README's example, and `import weld` works there (the module is in the
// same wheel, tagged for the interpreter it was built for). pip itself checks
// the wheel's tags against this interpreter and this system's glibc.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { EXAMPLE_ARGS, PROMPT, SCHEMA, VERSION, artifact, checkExampleAnswer, need, run, runOk, tempDir } from './lib.mjs';

const V = VERSION.replace(/\./g, '\\.');
// The x86_64 wheel scripts/package.sh writes holds the module: its tag names
// the interpreter (cp311 for Debian 12's Python 3.11), never py3-none.
const WHEEL = artifact(new RegExp(`^weld-${V}-cp\\d+-cp\\d+-manylinux_\\d+_\\d+_x86_64\\.whl$`),
                       'x86_64 wheel with the Python module');
const tag = /-(cp\d+)-cp\d+-/.exec(path.basename(WHEEL))[1];
// Debian's interpreter: the one the module is built for (python/CMakeLists.txt).
const PYTHON = '/usr/bin/python3';
const pythonTag = run(PYTHON, ['-c', 'import sys; print(f"cp{sys.version_info[0]}{sys.version_info[1]}")']).stdout.trim();
need(pythonTag === tag, `${path.basename(WHEEL)} is for ${tag}, ${PYTHON} is ${pythonTag}`);

const venv = tempDir('weld-venv-');
after(() => fs.rmSync(venv, { recursive: true, force: true }));
const made = run(PYTHON, ['-m', 'venv', venv]);
need(made.status === 0, `python3 -m venv failed (python3-venv is installed by scripts/install-deps.sh --package): ${made.stderr}`);
// Nothing of the build or the source tree: the venv's bin first, then the
// system's, run from an empty folder.
const env = { PATH: `${path.join(venv, 'bin')}:/usr/bin:/bin`, HOME: venv };
const cwd = tempDir('weld-venv-cwd-');
after(() => fs.rmSync(cwd, { recursive: true, force: true }));
const pip = path.join(venv, 'bin/pip');

test('pip install --no-index of the wheel: weld on the venv PATH and import weld', () => {
  const installed = runOk(pip, ['install', '--no-index', '--disable-pip-version-check', WHEEL], { env, cwd });
  assert.match(installed.stdout, new RegExp(`Successfully installed weld-${V}`));
  const weld = path.join(venv, 'bin/weld');
  assert.ok(fs.statSync(weld).mode & 0o111, 'executable');
  assert.equal(run('sh', ['-c', 'command -v weld'], { env, cwd }).stdout.trim(), weld);
  checkExampleAnswer(run('weld', EXAMPLE_ARGS, { env, cwd }), 'pip install');
  assert.match(run('weld', ['--version'], { env, cwd }).stdout, new RegExp(`^weld ${VERSION} `));

  // The module, from the venv's site-packages (-I: no user site, no
  // PYTHONPATH, no current folder), imported late into a running
  // interpreter as users do: its version, a validation, and the README's
  // example as weld.run.
  const script = `
import json, ssl, sys  # ssl first: the interpreter's own OpenSSL is loaded before weld's (hidden) one
import weld
assert weld.__file__.startswith(sys.prefix), weld.__file__
schema = json.loads(sys.argv[1])
assert weld.is_valid(schema, {"summary": "ok", "risk_level": "low"})
assert not weld.is_valid(schema, {"summary": "ok", "risk_level": "none"})
result = weld.run(sys.argv[2], schema, provider="offline")
print(json.dumps({"version": weld.__version__, "answer": result["structured_output"]}))
`;
  const py = run(path.join(venv, 'bin/python'), ['-I', '-c', script, SCHEMA, PROMPT], { env, cwd });
  assert.equal(py.status, 0, `import weld in the venv: ${py.stderr}`);
  const out = JSON.parse(py.stdout);
  assert.equal(out.version, VERSION);
  assert.ok(['low', 'medium', 'high'].includes(out.answer.risk_level), py.stdout);

  // The documentation pages the messages cite (docs/install.md, "Documentation").
  assert.ok(fs.existsSync(path.join(venv, 'share/doc/weld/docs/python.md')), 'share/doc/weld/docs/python.md in the venv');

  // pip knows what it installed and removes all of it again.
  const show = runOk(pip, ['show', '-f', 'weld'], { env, cwd });
  assert.match(show.stdout, /License: Apache-2.0/);
  runOk(pip, ['uninstall', '-y', 'weld'], { env, cwd });
  assert.ok(!fs.existsSync(weld));
  assert.notEqual(run(path.join(venv, 'bin/python'), ['-I', '-c', 'import weld'], { env, cwd }).status, 0);
});
