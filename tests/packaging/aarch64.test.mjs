// The aarch64 tarball on aarch64 Linux with nothing but glibc: Debian's
// arm64 libc6 and libgcc-s1 unpacked in an empty root, weld run there under
// qemu-aarch64-static (Debian's qemu-user-static) — the README's example and
// `weld schema validate`, as on x86_64 (debian.test.mjs).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CHROOT, EXAMPLE_ARGS, VERSION, artifact, bareRoot, checkExampleAnswer, named, need, removeRoot, run } from './lib.mjs';

const QEMU = '/usr/bin/qemu-aarch64-static';
need(fs.existsSync(QEMU), `${QEMU} is not installed (scripts/install-deps.sh --package)`);
const TARBALL = artifact(named('weld-VERSION-linux-aarch64.tar.gz'), 'aarch64 tarball');
const root = bareRoot(['libc6', 'libgcc-s1'], 'arm64');
after(() => removeRoot(root));
run('tar', ['-xzf', TARBALL, '-C', root]);
fs.copyFileSync(QEMU, path.join(root, 'qemu-aarch64-static'));
fs.chmodSync(path.join(root, 'qemu-aarch64-static'), 0o755);
const WELD = `/weld-${VERSION}-linux-aarch64/bin/weld`;
// chroot: the root's files only, so a library the binary needed and the
// root lacks could not come from the build machine's multiarch folders.
const weld = (args) => run(CHROOT, [root, '/qemu-aarch64-static', WELD, ...args], { env: { HOME: '/tmp' } });

test('weld --version under qemu-aarch64', () => {
  const r = weld(['--version']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`^weld ${VERSION} \\(commit [0-9a-f]{12}(-dirty)?, Release\\)\\n$`));
});

test('the README example under qemu-aarch64', () => {
  checkExampleAnswer(weld(EXAMPLE_ARGS), 'aarch64 tarball');
});

test('weld schema validate under qemu-aarch64', () => {
  fs.writeFileSync(path.join(root, 'tmp/schema.json'), '{"type":"array","items":{"type":"string","format":"date"}}');
  fs.writeFileSync(path.join(root, 'tmp/good.json'), '["2026-01-31"]');
  fs.writeFileSync(path.join(root, 'tmp/bad.json'), '["2026-02-31"]');
  assert.equal(weld(['schema', 'validate', '/tmp/schema.json', '/tmp/good.json']).status, 0);
  const bad = weld(['schema', 'validate', '--json', '/tmp/schema.json', '/tmp/bad.json']);
  assert.equal(bad.status, 1, bad.stderr);
  assert.equal(JSON.parse(bad.stdout).errors[0].instancePath, '/0');
});
