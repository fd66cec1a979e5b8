// examples/structured_run.cc, built against the installed package (the
// consumer_installed test), runs the structured-output loop from code
// against the fake model server (tests/fake_model) over both APIs: an
// invalid first answer is retried, and the program prints the validated
// payload. STRUCTURED_RUN: the built example; WELD_SOURCE_DIR: the checkout.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SERVER = path.join(process.env.WELD_SOURCE_DIR, 'tests/fake_model/server.js');
const EXAMPLE = process.env.STRUCTURED_RUN;
const SCHEMA = JSON.stringify({
  type: 'object',
  properties: { summary: { type: 'string' }, risk_level: { enum: ['low', 'medium', 'high'] } },
  required: ['summary', 'risk_level'],
});

async function startServer(responses) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-example-'));
  const script = path.join(dir, 'script.json');
  fs.writeFileSync(script, JSON.stringify({ responses }));
  const child = spawn(process.execPath, [SERVER, '--script', script, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('fake server did not start in 10 s')), 10000);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      if (buffer.includes('\n')) {
        clearTimeout(timer);
        resolve(JSON.parse(buffer.slice(0, buffer.indexOf('\n'))).port);
      }
    });
    child.on('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  return {
    port,
    async requests() {
      const res = await fetch(`http://127.0.0.1:${port}/__requests`);
      return (await res.json()).filter((r) => r.method === 'POST');
    },
    stop() { child.kill(); fs.rmSync(dir, { recursive: true, force: true }); },
  };
}

const structuredOutput = (args) => ({ tool_calls: [{ name: 'structured_output', arguments: args }] });

for (const api of ['openai', 'anthropic']) {
  test(`${api}: the loop from code retries an invalid answer and prints the valid one`, { skip: !EXAMPLE }, async () => {
    const server = await startServer([
      structuredOutput('{"summary":"looks fine"}'),
      structuredOutput('{"summary":"looks fine","risk_level":"low"}'),
    ]);
    try {
      const baseUrl = api === 'openai' ? `http://127.0.0.1:${server.port}/v1` : `http://127.0.0.1:${server.port}`;
      const env = { PATH: process.env.PATH, HOME: os.tmpdir(), WELD_PROVIDER: api, WELD_BASE_URL: baseUrl,
        WELD_MODEL: 'fake-model', WELD_API_KEY: 'sk-example-key' };
      const run = await new Promise((resolve) => {
        const child = spawn(EXAMPLE, ['Assess this change', SCHEMA], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d) => { stdout += d; });
        child.stderr.on('data', (d) => { stderr += d; });
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '{"summary":"looks fine","risk_level":"low"}\n');
      assert.match(run.stderr, /^2 attempt\(s\), 0 repair\(s\), \d+\+\d+ tokens\n$/);
      const requests = await server.requests();
      assert.equal(requests.length, 2);
      assert.match(JSON.stringify(requests[1].body), /must have required property 'risk_level'/);  // the retry says what was missing
    } finally {
      server.stop();
    }
  });
}

test('no model server: a failure naming the connection, not a crash', { skip: !EXAMPLE }, () => {
  const run = spawnSync(EXAMPLE, ['x', SCHEMA], {
    env: { PATH: process.env.PATH, HOME: os.tmpdir(), WELD_PROVIDER: 'openai', WELD_BASE_URL: 'http://127.0.0.1:9/v1',
      WELD_MODEL: 'm', WELD_API_KEY: 'k', WELD_MAX_RETRIES: '0' },
    encoding: 'utf8', timeout: 60000,
  });
  assert.notEqual(run.status, 0);
  assert.notEqual(run.status, null, 'killed by a signal');
  assert.match(run.stderr, /could not connect/);
});
