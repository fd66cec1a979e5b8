// The npm packages (docs/install.md, "npm") published to a registry on
// loopback (verdaccio, with no way out to npmjs.org) and installed from it as
// users do: `npm i -g` into an empty prefix, npx, and a project's
// `npm i --omit=optional`. The launcher runs the README's example, passes
// SIGTERM, SIGINT and SIGHUP on to a run in progress and ends as weld did,
// says what to do when the platform package is missing, honours
// WELD_BINARY; the Node API's run() and validate() work on the installed
// package.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { startServer } from '../e2e_run/lib.mjs';
import { CACHE, EXAMPLE_ARGS, PROMPT, SCHEMA, VERSION, artifact, checkExampleAnswer, named, need, run, tempDir,
         which } from './lib.mjs';

need(process.platform === 'linux' && process.arch === 'x64', 'the npm tests run on linux-x64');
need(which('npm'), 'npm is not installed');
const LAUNCHER = artifact(named('npm/weld-cli-VERSION.tgz'), 'npm launcher package');
const PLATFORM = artifact(named('npm/weld-cli-linux-x64-VERSION.tgz'), 'npm linux-x64 package');
const OTHERS = fs.readdirSync(path.dirname(PLATFORM)).filter((n) => n.startsWith('weld-cli-linux-') &&
  n.endsWith(`-${VERSION}.tgz`) && path.join(path.dirname(PLATFORM), n) !== PLATFORM);
// verdaccio 6 needs Node.js 22; Debian 12 and CI have Node.js 20.
const VERDACCIO_VERSION = '5.33.0';

const work = tempDir('weld-npm-');
let registry;  // {url, child}
let npmEnv;    // the environment every npm command gets: the test registry, a fresh cache

function npm(args, options = {}) {
  return run('npm', args, { env: npmEnv, ...options });
}

// verdaccio itself comes from npmjs.org once, into the cache.
function verdaccioBin() {
  const dir = path.join(CACHE, `verdaccio-${VERDACCIO_VERSION}`);
  const bin = path.join(dir, 'node_modules/verdaccio/bin/verdaccio');
  if (!fs.existsSync(bin)) {
    const got = run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--prefix', dir,
                            `verdaccio@${VERDACCIO_VERSION}`], { timeout: 900_000 });
    need(got.status === 0, `npm install verdaccio failed (no npm registry?): ${got.stderr.slice(-400)}`);
  }
  return bin;
}

// A free loopback port (verdaccio prints the port it was given, so it cannot
// be asked for port 0).
async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startRegistry() {
  const dir = path.join(work, 'registry');
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'config.yaml'), [
    `storage: ${dir}/storage`,
    'auth:',
    '  htpasswd:',
    `    file: ${dir}/htpasswd`,
    '    max_users: 10',
    'uplinks: {}',  // nothing from npmjs.org: only what the test publishes exists
    'packages:',
    "  '**':",
    '    access: $all',
    '    publish: $authenticated',
    'log: { type: stdout, format: pretty, level: warn }',
    '',
  ].join('\n'));
  const url = `http://127.0.0.1:${await freePort()}`;
  const child = spawn(process.execPath, [verdaccioBin(), '--config', path.join(dir, 'config.yaml'),
                                         '--listen', url.slice('http://'.length)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (chunk) => { log += chunk; });
  child.stderr.on('data', (chunk) => { log += chunk; });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}: ${log}`);
    try {
      if ((await fetch(`${url}/-/ping`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`verdaccio did not answer in 60 s: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url, child };
}

before(async () => {
  registry = await startRegistry();
  const user = await fetch(`${registry.url}/-/user/org.couchdb.user:weld`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'weld', password: 'weld-packaging-test' }),
  });
  const answer = await user.text();
  assert.equal(user.status, 201, answer);
  const { token } = JSON.parse(answer);
  const npmrc = path.join(work, 'npmrc');
  const host = registry.url.replace(/^http:/, '');
  fs.writeFileSync(npmrc, `registry=${registry.url}/\n${host}/:_authToken=${token}\n`);
  npmEnv = { PATH: process.env.PATH, HOME: work, npm_config_userconfig: npmrc,
             npm_config_cache: path.join(work, 'npm-cache'), npm_config_update_notifier: 'false',
             npm_config_audit: 'false', npm_config_fund: 'false' };
  for (const tgz of [PLATFORM, ...OTHERS.map((n) => path.join(path.dirname(PLATFORM), n)), LAUNCHER]) {
    const published = npm(['publish', tgz, '--access', 'public']);
    assert.equal(published.status, 0, `npm publish ${tgz}: ${published.stderr}`);
  }
});

after(() => {
  if (registry) registry.child.kill('SIGKILL');
  fs.rmSync(work, { recursive: true, force: true });
});

let prefix;  // the global install
function globalWeld() {
  if (!prefix) {
    prefix = path.join(work, 'global');
    fs.mkdirSync(prefix);
    const installed = npm(['install', '-g', '--prefix', prefix, '@weld/cli'], { timeout: 300_000 });
    assert.equal(installed.status, 0, installed.stderr);
  }
  return path.join(prefix, 'bin', 'weld');
}

test('npm i -g into an empty prefix: weld on PATH runs the README example', () => {
  const weld = globalWeld();
  assert.ok(fs.existsSync(weld));
  // npm puts the optional dependency beside the launcher or inside it.
  const installed = (name) => [path.join(prefix, 'lib/node_modules/@weld', name),
                               path.join(prefix, 'lib/node_modules/@weld/cli/node_modules/@weld', name)]
    .some((dir) => fs.existsSync(path.join(dir, 'package.json')));
  assert.ok(installed('cli-linux-x64'), 'the platform package that matches os, cpu and libc is installed');
  assert.ok(!installed('cli-linux-arm64'), 'the other one is not');
  const answer = run('weld', EXAMPLE_ARGS, { env: { PATH: `${path.dirname(weld)}:${process.env.PATH}`, HOME: work } });
  checkExampleAnswer(answer, 'npm i -g');
  const version = run(weld, ['--version']);
  assert.match(version.stdout, new RegExp(`^weld ${VERSION} \\(commit `));
  // The pages weld's messages cite (docs/install.md, "Documentation").
  assert.ok(fs.existsSync(path.join(prefix, 'lib/node_modules/@weld/cli/docs/run.md')), '@weld/cli/docs/run.md');
});

test('npx runs the README example', () => {
  const cwd = path.join(work, 'npx');
  fs.mkdirSync(cwd);
  const answer = run('npx', ['--yes', '@weld/cli', ...EXAMPLE_ARGS], { env: npmEnv, cwd, timeout: 300_000 });
  checkExampleAnswer(answer, 'npx');
});

// A fake model server (tests/fake_model) that accepts the request and never
// answers: the run is in progress until a signal ends it.
async function hangingServer() {
  const server = await startServer([{ hang: true }], { repeatLast: true });
  return { port: server.port, requested: async () => (await server.requests()).length > 0, close: () => server.close() };
}

// Starts the launcher on a run against a server that never answers, sends
// `signal` to the launcher (not to weld) once the request reached the
// server, and resolves to how the launcher ended.
async function signalDuringRun(signal) {
  const weld = globalWeld();
  const server = await hangingServer();
  try {
    const child = spawn(weld, ['--provider', 'openai', '--base-url', `http://127.0.0.1:${server.port}/v1`, '--model', 'm',
                               '-p', PROMPT, '--json-schema', SCHEMA],
                        { env: { PATH: process.env.PATH, HOME: work, WELD_API_KEY: 'k' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const ended = new Promise((resolve) => child.on('exit', (code, sig) => resolve({ code, signal: sig, stderr })));
    const deadline = Date.now() + 20_000;
    while (!(await server.requested())) {
      assert.ok(Date.now() < deadline, `weld never reached the server: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const result = await ended;
    clearTimeout(timer);
    return result;
  } finally {
    await server.close();
  }
}

test('SIGTERM to the launcher during a run: weld ends with 130, and so does the launcher', async () => {
  const r = await signalDuringRun('SIGTERM');
  assert.equal(r.code, 130, `ended with ${r.code ?? r.signal}: ${r.stderr}`);
  assert.match(r.stderr, /Operation cancelled\./);
});

test('SIGINT to the launcher during a run: 130', async () => {
  const r = await signalDuringRun('SIGINT');
  assert.equal(r.code, 130, `ended with ${r.code ?? r.signal}: ${r.stderr}`);
});

test('SIGHUP to the launcher: weld dies of it, and the launcher ends by the same signal', async () => {
  const r = await signalDuringRun('SIGHUP');
  assert.equal(r.signal, 'SIGHUP', `ended with ${r.code ?? r.signal}: ${r.stderr}`);
});

test('weld exit codes pass through the launcher', () => {
  const weld = globalWeld();
  const bad = run(weld, ['--provider', 'offline', '-p', 'x', '--json-schema', '{"type":"object","properties":{"a":{"type":"nope"}}}'],
                  { env: { PATH: process.env.PATH, HOME: work } });
  assert.equal(bad.status, 52, bad.stderr);
  assert.match(bad.stderr, /not a valid JSON Schema/);
});

test('npm i --omit=optional in a project: weld says what to do and exits 127', () => {
  const project = path.join(work, 'omit');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), '{"name":"p","version":"1.0.0","private":true}\n');
  const installed = npm(['install', '--omit=optional', '@weld/cli'], { cwd: project, timeout: 300_000 });
  assert.equal(installed.status, 0, installed.stderr);
  assert.ok(!fs.existsSync(path.join(project, 'node_modules/@weld/cli-linux-x64')));
  const r = run(path.join(project, 'node_modules/.bin/weld'), EXAMPLE_ARGS, { env: { PATH: process.env.PATH } });
  assert.equal(r.status, 127);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^weld: the package @weld\/cli-linux-x64, which holds weld's binary for linux-x64, is not installed\./);
  assert.match(r.stderr, /--omit=optional/);
  assert.match(r.stderr, /npm install @weld\/cli/);
  assert.match(r.stderr, /WELD_BINARY/);
  assert.equal(r.stderr.trim().split('\n').length, 1, 'one message');
  // WELD_BINARY makes it run another weld (here a script standing in for one).
  const other = path.join(project, 'other-weld');
  fs.writeFileSync(other, '#!/bin/sh\necho "other weld: $*"\nexit 3\n', { mode: 0o755 });
  const viaEnv = run(path.join(project, 'node_modules/.bin/weld'), ['--version'],
                     { env: { PATH: process.env.PATH, WELD_BINARY: other } });
  assert.equal(viaEnv.status, 3);
  assert.equal(viaEnv.stdout, 'other weld: --version\n');
  const missing = run(path.join(project, 'node_modules/.bin/weld'), ['--version'],
                      { env: { PATH: process.env.PATH, WELD_BINARY: '/nonexistent/weld' } });
  assert.equal(missing.status, 127);
  assert.match(missing.stderr, /WELD_BINARY is set to \/nonexistent\/weld, which does not exist/);
});

test('the Node API: run() and validate() on the installed package', async () => {
  globalWeld();
  const api = path.join(prefix, 'lib/node_modules/@weld/cli');
  assert.ok(fs.existsSync(path.join(api, 'index.d.ts')), 'TypeScript types');
  const script = `
    const weld = require(${JSON.stringify(api)});
    (async () => {
      const ok = await weld.run({ prompt: ${JSON.stringify(PROMPT)}, schema: ${SCHEMA}, provider: 'offline' });
      const v1 = await weld.validate({ type: 'integer', minimum: 1 }, 3);
      const v2 = await weld.validate({ type: 'integer', minimum: 1 }, 0);
      let refused;
      try { await weld.validate({ type: 'nope' }, 1); } catch (e) { refused = { name: e.name, exitCode: e.exitCode, message: e.message }; }
      const ac = new AbortController();
      const cancelled = weld.run({ prompt: 'x', schema: { type: 'object' }, provider: 'openai', model: 'm',
                                   baseUrl: process.env.HANG_URL, apiKey: 'k', signal: ac.signal });
      setTimeout(() => ac.abort(), 1500);
      const c = await cancelled;
      console.log(JSON.stringify({ ok, v1, v2, refused, cancelled: { exitCode: c.exitCode, subtype: c.envelope.subtype } }));
    })().catch((e) => { console.error(e); process.exit(1); });`;
  const server = await hangingServer();
  try {
    const r = await new Promise((resolve) => {
      const child = spawn(process.execPath, ['-e', script], {
        env: { PATH: process.env.PATH, HOME: work, HANG_URL: `http://127.0.0.1:${server.port}/v1` },
        stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => { stdout += d; });
      child.stderr.on('data', (d) => { stderr += d; });
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.ok.exitCode, 0);
    assert.equal(out.ok.ok, true);
    assert.equal(out.ok.envelope.subtype, 'success');
    assert.ok(['low', 'medium', 'high'].includes(out.ok.output.risk_level));
    assert.deepEqual(out.v1, { valid: true, errors: [] });
    assert.equal(out.v2.valid, false);
    assert.equal(out.v2.errors[0].keyword, 'minimum');
    assert.equal(out.refused.name, 'WeldError');
    assert.equal(out.refused.exitCode, 52);
    assert.deepEqual(out.cancelled, { exitCode: 130, subtype: 'error_cancelled' });
  } finally {
    await server.close();
  }
});
