// The portable tarball and the .deb installed as their users install them
// (docs/install.md): the tarball unpacked in a clean Debian 12 root and in a
// root holding nothing but glibc (libc6, libgcc-s1); the .deb with
// `apt-get install ./weld_*.deb` in a clean Debian 12 root, apt fetching its
// dependencies. In each, the README's example and `weld schema validate` run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { CHROOT, DIST, EXAMPLE_ARGS, VERSION, bareRoot, checkExampleAnswer, debianRoot, findArtifact, inRoot, named,
         need, removeRoot, run, runOk, shellQuote } from './lib.mjs';

const TARBALL = findArtifact(named('weld-VERSION-linux-x86_64.tar.gz'));
const DEB = findArtifact(named('weld_VERSION-1_amd64.deb'));
need(TARBALL || DEB, `no x86_64 tarball or amd64 .deb in ${DIST} (run scripts/package.sh first)`);
const noTarball = !TARBALL && `no x86_64 tarball in ${DIST}`;
const noDeb = !DEB && `no amd64 .deb in ${DIST}`;
const roots = [];
after(() => roots.forEach(removeRoot));

const example = (weld) => [weld, ...EXAMPLE_ARGS].map(shellQuote).join(' ');
const SCHEMA_FILE = '{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}';

// `weld schema validate` on a valid and an invalid document (exit 0 and 1,
// the invalid one named with where it fails), in a root where weld is `weld`.
function checkSchemaValidate(root, weld) {
  fs.writeFileSync(path.join(root, 'tmp/schema.json'), SCHEMA_FILE);
  fs.writeFileSync(path.join(root, 'tmp/good.json'), '{"n":3}\n');
  fs.writeFileSync(path.join(root, 'tmp/bad.json'), '{"n":0}\n');
  const good = inRoot(root, `${weld} schema validate /tmp/schema.json /tmp/good.json`);
  assert.equal(good.status, 0, good.stderr + good.stdout);
  const bad = inRoot(root, `${weld} schema validate --json /tmp/schema.json /tmp/bad.json`);
  assert.equal(bad.status, 1, bad.stderr + bad.stdout);
  const verdict = JSON.parse(bad.stdout);
  assert.equal(verdict.valid, false);
  assert.equal(verdict.errors[0].instancePath, '/n');
}

// The docs/ pages weld cites where users read (its --help, the no-provider
// message) and the README are installed in DOC_DIR, and the man page says
// where that is (docs/install.md, "Documentation").
function checkCitedDocs(root, weld, docDir) {
  const help = inRoot(root, `${weld} --help`);
  assert.equal(help.status, 0, help.stderr);
  const noProvider = inRoot(root, `${weld} -p hello --json-schema '{"type":"object"}'`);
  assert.equal(noProvider.status, 52, noProvider.stderr);
  const cited = new Set([...(help.stdout + noProvider.stderr).matchAll(/docs\/[a-z0-9-]+\.md/g)].map((m) => m[0]));
  assert.ok(cited.has('docs/run.md'), `weld cites docs/run.md: ${[...cited]}`);
  for (const page of [...cited, 'README.md']) {
    assert.ok(fs.existsSync(path.join(root, docDir, page)), `${page} is installed in ${docDir}`);
  }
  const man = inRoot(root, `zcat ${path.dirname(path.dirname(docDir))}/man/man1/weld.1.gz`);
  assert.match(man.stdout, /share\/doc\/weld/, 'the man page says where the docs are');
}

test('the tarball unpacked in a clean Debian 12 root', { skip: noTarball }, () => {
  const root = debianRoot();
  roots.push(root);
  fs.copyFileSync(TARBALL, path.join(root, 'tmp/weld.tar.gz'));
  runOk(CHROOT, [root, 'tar', '-xzf', '/tmp/weld.tar.gz', '-C', '/opt']);
  const weld = `/opt/weld-${VERSION}-linux-x86_64/bin/weld`;
  const version = inRoot(root, `${weld} --version`);
  assert.match(version.stdout, new RegExp(`^weld ${VERSION} \\(commit [0-9a-f]{12}(-dirty)?, Release\\)\\n$`));
  checkExampleAnswer(inRoot(root, example(weld)), 'tarball in Debian 12');
  checkSchemaValidate(root, weld);
  // The man page and completions are where man and the shells look under the prefix.
  for (const file of ['share/man/man1/weld.1.gz', 'share/bash-completion/completions/weld',
                      'share/zsh/site-functions/_weld', 'share/fish/vendor_completions.d/weld.fish',
                      'share/doc/weld/LICENSE', 'share/doc/weld/THIRD_PARTY_LICENSES', 'share/doc/weld/README.md',
                      'include/weld/weld.h',
                      'lib/cmake/weld/weldConfig.cmake', 'lib/pkgconfig/weld-c.pc']) {
    assert.ok(fs.existsSync(path.join(root, `opt/weld-${VERSION}-linux-x86_64`, file)), file);
  }
  checkCitedDocs(root, weld, `/opt/weld-${VERSION}-linux-x86_64/share/doc/weld`);
});

test('the tarball in a root with nothing but glibc (libc6, libgcc-s1)', { skip: noTarball }, () => {
  const root = bareRoot(['libc6', 'libgcc-s1'], 'amd64');
  roots.push(root);
  runOk('tar', ['-xzf', TARBALL, '-C', root]);
  const weld = `/weld-${VERSION}-linux-x86_64/bin/weld`;
  // No shell in this root: weld is chroot's command.
  const answer = run(CHROOT, [root, weld, ...EXAMPLE_ARGS], { env: { HOME: '/tmp', PATH: '/bin' } });
  checkExampleAnswer(answer, 'tarball with nothing but glibc');
  fs.writeFileSync(path.join(root, 'tmp/schema.json'), SCHEMA_FILE);
  fs.writeFileSync(path.join(root, 'tmp/bad.json'), '{"n":"x"}\n');
  const bad = run(CHROOT, [root, weld, 'schema', 'validate', '/tmp/schema.json', '/tmp/bad.json'],
                  { env: { HOME: '/tmp' } });
  assert.equal(bad.status, 1, bad.stderr);
  assert.match(bad.stdout + bad.stderr, /\/n/);
  // libweld.so loads with nothing but glibc too (ldd-free: the loader lists it).
  const loader = '/lib64/ld-linux-x86-64.so.2';
  const libs = run(CHROOT, [root, loader, '--list', `/weld-${VERSION}-linux-x86_64/lib/libweld.so.1`]);
  assert.equal(libs.status, 0, libs.stderr);
  assert.doesNotMatch(libs.stdout, /not found/);
});

test('the .deb: apt-get install ./weld_*.deb in a clean Debian 12 root pulls its dependencies', { skip: noDeb }, () => {
  const root = debianRoot();
  roots.push(root);
  fs.copyFileSync(DEB, path.join(root, 'tmp', path.basename(DEB)));
  const install = inRoot(root, `apt-get update -qq && apt-get install -y -qq /tmp/${path.basename(DEB)}`);
  assert.equal(install.status, 0, install.stdout + install.stderr);
  // Its dependencies came from Debian's archive (libcurl is not in a bare apt root).
  const curl = inRoot(root, 'dpkg-query -W -f \'${Status}\' libcurl4');
  assert.equal(curl.stdout, 'install ok installed');
  const version = inRoot(root, 'weld --version');
  assert.match(version.stdout, new RegExp(`^weld ${VERSION} \\(commit `));
  checkExampleAnswer(inRoot(root, example('weld')), '.deb in Debian 12');
  checkSchemaValidate(root, 'weld');
  for (const file of ['usr/share/man/man1/weld.1.gz', 'usr/share/bash-completion/completions/weld',
                      'usr/share/zsh/vendor-completions/_weld', 'usr/share/fish/vendor_completions.d/weld.fish',
                      'usr/share/doc/weld/copyright', 'usr/share/doc/weld/changelog.Debian.gz',
                      'usr/share/doc/weld/README.md']) {
    assert.ok(fs.existsSync(path.join(root, file)), file);
  }
  checkCitedDocs(root, 'weld', '/usr/share/doc/weld');
  // Removal leaves nothing of weld behind.
  const remove = inRoot(root, 'apt-get purge -y -qq weld && ! command -v weld');
  assert.equal(remove.status, 0, remove.stdout + remove.stderr);
});
