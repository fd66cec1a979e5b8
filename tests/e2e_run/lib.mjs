// Shared helpers for the end-to-end tests of the headless run: start the
// fake model server (tests/fake_model/server.js) on a loopback port with a
// script, and run the real `weld` binary against it with a clean HOME and
// environment. Every wait is bounded.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';

export const WELD = process.env.WELD_BIN;
export const SOURCE_DIR = process.env.WELD_SOURCE_DIR;
if (!WELD || !SOURCE_DIR) throw new Error('WELD_BIN and WELD_SOURCE_DIR must be set (CTest sets them)');
const SERVER = path.join(SOURCE_DIR, 'tests/fake_model/server.js');

export const API_KEY = 'sk-weld-e2e-Z9q7XkP4mW2vT8nL5rB3';

export const SCHEMA = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    risk_level: { type: 'string', enum: ['low', 'medium', 'high'] },
  },
  required: ['summary', 'risk_level'],
  additionalProperties: false,
};
export const SCHEMA_TEXT = JSON.stringify(SCHEMA);

export const SKIPPED_SUCCESS =
  "Skipped: this turn's structured_output contract took precedence as the terminal output.";
export const SKIPPED_RETRY = SKIPPED_SUCCESS + ' Re-issue this call in a separate turn if needed.';
export const MAX_TURNS_NOTE =
  "Note: --json-schema is active. If the model never called structured_output, verify it isn't denied by " +
  'permissions.deny / --exclude-tools and that the schema is satisfiable.';

export function tempDir(prefix = 'weld-e2e-') {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Starts the fake server with `responses`; resolves to a handle. */
export async function startServer(responses, { repeatLast = false, responseFormat, models, modelsErrors } = {}) {
  const dir = tempDir('weld-fake-');
  const scriptPath = path.join(dir, 'script.json');
  fs.writeFileSync(scriptPath, JSON.stringify({ responses, repeat_last: repeatLast, response_format: responseFormat, models,
    models_errors: modelsErrors }));
  const child = spawn(process.execPath, [SERVER, '--script', scriptPath, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('fake server did not start in 10 s')), 10000);
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(buffer.slice(0, nl)).port);
      }
    });
    child.on('exit', (code) => reject(new Error(`fake server exited with ${code}`)));
  });
  const allRequests = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/__requests`, { signal: AbortSignal.timeout(5000) });
    return res.json();
  };
  return {
    port,
    async requests() {
      return (await allRequests()).filter((r) => r.method === 'POST');
    },
    /** Every request received, GET /v1/models included. */
    allRequests,
    async close() {
      child.kill('SIGTERM');
      await new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        const t = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 2000);
        child.on('exit', () => { clearTimeout(t); resolve(); });
      });
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Provider flags for `api` against the server. */
export function providerArgs(api, port) {
  const base = api === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
  return ['--provider', api, '--base-url', base, '--model', 'fake-model'];
}

/**
 * Runs weld. Options: env (added to a clean environment), home (HOME dir,
 * default a fresh temp dir), cwd, stdin (string; default: empty, closed),
 * timeoutMs, onStart(child).
 */
export function runWeld(args, opts = {}) {
  const home = opts.home ?? tempDir('weld-home-');
  const env = { PATH: process.env.PATH, HOME: home, ...(opts.env || {}) };
  return new Promise((resolve) => {
    const started = process.hrtime.bigint();
    const child = spawn(WELD, args, { cwd: opts.cwd ?? home, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.stdin.on('error', () => {});
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin); else child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30000);
    if (opts.onStart) opts.onStart(child);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ code, signal, stdout, stderr, home, ms, endedAt: process.hrtime.bigint() });
    });
  });
}

/**
 * Runs weld (as runWeld, with `opts`) and sends it `signal` once `ready()`
 * resolves, then checks the ending every cancelled run shares: exit 130
 * within a second of the signal and exactly "Operation cancelled." on
 * stderr. Resolves to runWeld's result for the caller's own checks.
 */
export async function runCancelled(args, opts, { signal = 'SIGINT', ready }) {
  let sentAt = 0n;
  const r = await runWeld(args, {
    ...opts,
    onStart: async (child) => {
      await ready();
      sentAt = process.hrtime.bigint();
      child.kill(signal);
    },
  });
  assert.ok(sentAt > 0n, `weld ended before the ${signal} was sent: ${r.stderr}`);
  const elapsed = Number(r.endedAt - sentAt) / 1e6;
  assert.equal(r.code, 130, r.stderr);
  assert.ok(elapsed < 1000, `ended ${elapsed} ms after the ${signal}`);
  assert.equal(r.stderr, weldLines('Operation cancelled.\n'));
  return r;
}

/** Tool results in a recorded request, as [{id, content, is_error}], in order. */
export function toolResults(request, api) {
  const out = [];
  for (const m of request.body.messages) {
    if (api === 'openai') {
      if (m.role === 'tool') {
        const content = typeof m.content === 'string' ? m.content : m.content.map((p) => p.text).join('');
        out.push({ id: m.tool_call_id, content, is_error: undefined });
      }
    } else if (m.role === 'user' && Array.isArray(m.content)) {
      for (const block of m.content) {
        if (block.type !== 'tool_result') continue;
        const content = typeof block.content === 'string' ? block.content
          : block.content.map((p) => p.text).join('');
        out.push({ id: block.tool_use_id, content, is_error: block.is_error === true });
      }
    }
  }
  return out;
}

/** Tool declarations in a recorded request, as [{name, description, parameters}]. */
export function toolDecls(request, api) {
  return (request.body.tools || []).map((t) =>
    api === 'openai'
      ? { name: t.function.name, description: t.function.description, parameters: t.function.parameters }
      : { name: t.name, description: t.description, parameters: t.input_schema });
}

/** The text of the first user message of a recorded request. */
export function firstUserText(request) {
  const m = request.body.messages.find((x) => x.role === 'user');
  if (typeof m.content === 'string') return m.content;
  return m.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
}

/** Parses stream-json output into objects, asserting one JSON object per line. */
export function parseLines(stdout) {
  assert.ok(stdout.endsWith('\n'), 'stream-json output ends with a newline');
  return stdout.slice(0, -1).split('\n').map((line) => JSON.parse(line));
}

/** Lists every file under `dir`, recursively. */
export function walkFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walkFiles(p));
    else if (entry.isFile()) out.push(p);
  }
  return out;
}

/** Polls `predicate` every 20 ms for up to `ms`. */
export async function waitFor(predicate, ms = 10000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

export const APIS = ['openai', 'anthropic'];

export function so(args, id) {
  return { tool_calls: [{ name: 'structured_output', arguments: args, ...(id ? { id } : {}) }] };
}

/** `text` as weld writes it on stderr: every line starts with "weld: " unless
 *  it already names weld ("weld: …", "weld batch: …") — docs/run.md, "Messages". */
export function weldLines(text) {
  return text.split('\n').map((line) => (line === '' || /^weld( [a-z ]+)?:/.test(line) ? line : `weld: ${line}`)).join('\n');
}
