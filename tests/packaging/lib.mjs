// Helpers of the packaging tests (label `packaging`): they install what
// scripts/package.sh wrote into dist/ the way users install it, on systems
// that have never seen weld, and run the README's example there.
// A test whose artifacts or tools are missing ends with exit code 77, which
// CTest reports as skipped, after saying why.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const SOURCE_DIR = process.env.WELD_SOURCE_DIR;
if (!SOURCE_DIR) throw new Error('WELD_SOURCE_DIR must be set (CTest sets it)');
export const DIST = process.env.WELD_DIST || path.join(SOURCE_DIR, 'dist');
// Downloads kept between runs (Debian roots, packages, npm tools).
export const CACHE = process.env.WELD_PACKAGING_CACHE || path.join(SOURCE_DIR, 'build-package', 'test-cache');

export const VERSION = (() => {
  const m = /^project\(weld VERSION (\d+\.\d+\.\d+)/m.exec(fs.readFileSync(path.join(SOURCE_DIR, 'CMakeLists.txt'), 'utf8'));
  return m[1];
})();

// The README's example: its first command, the run with the offline model.
export const PROMPT = 'Assess the risk of this change';
export const SCHEMA = '{"type":"object","properties":{"summary":{"type":"string"},"risk_level":{"enum":["low","medium","high"]}},"required":["summary","risk_level"]}';
export const EXAMPLE_ARGS = ['--provider', 'offline', '-p', PROMPT, '--json-schema', SCHEMA];
{
  const readme = fs.readFileSync(path.join(SOURCE_DIR, 'README.md'), 'utf8');
  assert.ok(readme.includes(`weld --provider offline -p "${PROMPT}" --json-schema '${SCHEMA}'`),
            'the README shows the example these tests run (tests/packaging/lib.mjs)');
}

// The example's answer: one line of JSON that the schema accepts.
export function checkExampleAnswer(run, where) {
  assert.equal(run.status, 0, `${where}: exit ${run.status}, stderr: ${run.stderr}`);
  assert.match(run.stdout, /^[^\n]+\n$/, `${where}: one line on stdout: ${JSON.stringify(run.stdout)}`);
  const answer = JSON.parse(run.stdout);
  assert.equal(typeof answer.summary, 'string', where);
  assert.ok(['low', 'medium', 'high'].includes(answer.risk_level), `${where}: ${run.stdout}`);
}

export const CHROOT = '/usr/sbin/chroot';

export function skip(message) {
  console.log(`SKIPPED: ${message}`);
  process.exit(77);
}

export function need(condition, message) {
  if (!condition) skip(message);
}

export function which(program) {
  return spawnSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).status === 0;
}

// The artifact of dist/ whose name (path under dist/) matches, or null.
export function findArtifact(pattern) {
  const names = fs.existsSync(DIST) ? fs.readdirSync(DIST, { recursive: true }) : [];
  const found = names.filter((n) => pattern.test(n)).sort();
  return found.length ? path.join(DIST, found[found.length - 1]) : null;
}

// The artifact, or a skip of the whole file saying to build it.
export function artifact(pattern, what) {
  const found = findArtifact(pattern);
  need(found, `no ${what} in ${DIST} (run scripts/package.sh first)`);
  return found;
}

// The name pattern of an artifact of this version: `name` with VERSION in it.
export function named(name) {
  const escaped = name.replace(/[.+]/g, '\\$&').replace('VERSION', VERSION.replace(/\./g, '\\.'));
  return new RegExp(`^${escaped}$`);
}

export function run(command, args, options = {}) {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 26, ...options });
  if (r.error) throw r.error;
  return r;
}

export function runOk(command, args, options = {}) {
  const r = run(command, args, options);
  assert.equal(r.status, 0, `${command} ${args.join(' ')}: exit ${r.status}\n${r.stdout}\n${r.stderr}`);
  return r;
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

// Removes a test root: what is mounted inside it first, and never crossing
// into another file system.
export function removeRoot(dir) {
  for (const mount of ['proc']) {
    const target = path.join(dir, mount);
    if (fs.existsSync(target)) spawnSync('umount', ['-l', target]);
  }
  spawnSync('rm', ['-rf', '--one-file-system', dir]);
}

// A root file system holding only these Debian packages' files (libc6 and
// libgcc-s1: a system with nothing but its C library), downloaded from
// Debian's archive once (cached).
export function bareRoot(packages, arch) {
  need(process.getuid() === 0, 'chroot needs root');
  const cache = path.join(CACHE, `debs-${arch}`);
  fs.mkdirSync(cache, { recursive: true });
  const dir = tempDir(`weld-bare-${arch}-`);
  for (const name of packages) {
    let deb = fs.readdirSync(cache).find((f) => f.startsWith(`${name}_`) && f.endsWith(`_${arch}.deb`));
    if (!deb) {
      const got = run('apt-get', ['download', `${name}:${arch}`], { cwd: cache });
      need(got.status === 0, `apt-get download ${name}:${arch} failed (no Debian archive?): ${got.stderr.trim()}`);
      deb = fs.readdirSync(cache).find((f) => f.startsWith(`${name}_`) && f.endsWith(`_${arch}.deb`));
    }
    runOk('dpkg-deb', ['-x', path.join(cache, deb), dir]);
  }
  fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true, mode: 0o1777 });
  return dir;
}

// A clean Debian 12 root file system with apt (mmdebstrap --variant=apt from
// Debian's archive), made once and kept as a tarball in the cache; each call
// unpacks a fresh copy, with /proc mounted and the host's resolv.conf.
export function debianRoot() {
  need(process.getuid() === 0, 'chroot needs root');
  need(which('mmdebstrap'), 'mmdebstrap is not installed (scripts/install-deps.sh --package)');
  const tarball = path.join(CACHE, 'debian-12-apt.tar');
  if (!fs.existsSync(tarball)) {
    fs.mkdirSync(CACHE, { recursive: true });
    // (mmdebstrap picks the format from the name: *.tar is a tarball.)
    const part = tarball.replace(/\.tar$/, '.part.tar');
    const made = run('mmdebstrap', ['--variant=apt', '--quiet', 'bookworm', part, 'http://deb.debian.org/debian'],
                     { timeout: 1_200_000 });
    need(made.status === 0, `mmdebstrap could not make a Debian 12 root (no Debian archive?): ${made.stderr.slice(-500)}`);
    fs.renameSync(part, tarball);
  }
  const dir = tempDir('weld-debian-');
  runOk('tar', ['-xf', tarball, '-C', dir]);
  fs.copyFileSync('/etc/resolv.conf', path.join(dir, 'etc/resolv.conf'));
  runOk('mount', ['-t', 'proc', 'proc', path.join(dir, 'proc')]);
  return dir;
}

// Runs a shell command inside a root, with a clean environment.
export function inRoot(dir, script, options = {}) {
  return run(CHROOT, [dir, '/usr/bin/env', '-i', 'PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin', 'HOME=/root',
                        'LANG=C.UTF-8', 'DEBIAN_FRONTEND=noninteractive', '/bin/sh', '-c', script], options);
}

export function shellQuote(arg) {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
