// The Codex CLI (npm `@openai/codex`, a client nobody here wrote) through
// weld proxy (docs/protocols.md): `codex exec` with a custom model provider whose
// base URL is weld proxy (wire_api "responses") and whose model ends in
// `__schema=<agent>`. Codex streams `POST /v1/responses` with its own tools;
// weld forces the agent's function tool upstream (the fake model server),
// validates the call, and Codex prints the JSON as the agent's final message.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { requireSdk, startFake, startProxy, tmpdir } from './harness.mjs';

// The CLI's launcher script (it starts the platform binary its package ships).
const codexBin = path.join(path.dirname(requireSdk.resolve('@openai/codex/package.json')), 'bin', 'codex.js');

let fake;
let proxy;

before(async () => {
  fake = await startFake({ responses: [] });
  proxy = await startProxy(fake.url, ['--keepalive', '0.2']);
});
after(async () => {
  await proxy.stop();
  fake.stop();
});

/** Runs `codex exec PROMPT` with a weld model provider; resolves {code, stdout, stderr}. */
function codexExec(model, prompt) {
  const home = tmpdir();
  const codexHome = path.join(home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, 'config.toml'), [
    `model = "${model}"`,
    'model_provider = "weld"',
    '[model_providers.weld]',
    'name = "weld proxy"',
    `base_url = "${proxy.url}/v1"`,
    'wire_api = "responses"',
    'env_key = "WELD_CODEX_TEST_KEY"',
    '',
  ].join('\n'));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [codexBin, 'exec', '--skip-git-repo-check', '-C', home, prompt], {
      cwd: home,
      env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, WELD_CODEX_TEST_KEY: 'sk-codex-test-key' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`codex timed out: ${stderr}`)); }, 60000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

const briefArgs = { options: [{ label: 'use RE2', confidence: 0.8, reason: 'linear time' }], summary: 'Use RE2.' };

test('codex exec through weld proxy: the tagged model answers with the validated JSON', async () => {
  // The first answer is invalid (no summary): weld retries before Codex sees anything.
  await fake.reset({ responses: [
    { tool_calls: [{ name: 'brief', arguments: { options: [] } }] },
    { tool_calls: [{ name: 'brief', arguments: briefArgs }] },
  ] });
  const r = await codexExec('gpt-x__schema=brief', 'Which regex engine should we use?');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim()), briefArgs);
  const sent = (await fake.requests()).filter((e) => e.method === 'POST');
  assert.equal(sent.length, 2);
  for (const request of sent) {
    assert.equal(request.path, '/v1/responses');
    assert.equal(request.headers.authorization, 'Bearer sk-codex-test-key');
    assert.equal(request.body.model, 'gpt-x');
    assert.equal(request.body.stream, true);
    // Codex's own tools (shell, apply_patch…) are replaced by the agent's.
    assert.deepEqual(request.body.tools.map((t) => t.name), ['brief']);
    assert.deepEqual(request.body.tool_choice, { type: 'function', name: 'brief' });
  }
  assert.ok(JSON.stringify(sent[0].body.input).includes('Which regex engine should we use?'));
  const retry = sent[1].body.input.find((item) => item.type === 'function_call_output');
  assert.match(retry.output, /summary/);
});
