// Test harness for weld proxy end-to-end tests: starts the real `weld proxy`
// (WELD_BIN) against the scripted fake model server (tests/fake_model) or a
// raw TCP upstream, on 127.0.0.1 port 0, with bounded waits everywhere.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const sourceDir = process.env.WELD_SOURCE_DIR || path.resolve(here, '../..');
export const weldBin = process.env.WELD_BIN || path.join(sourceDir, 'build/src/cli/weld');
const fakeServer = path.join(sourceDir, 'tests/fake_model/server.js');

/** require() for the npm SDKs installed in tests/node. */
export const requireSdk = createRequire(path.join(sourceDir, 'tests/node/package.json'));

/**
 * The official SDK clients pointed at a proxy: {anthropic, openai}, with test
 * keys, a 20 s timeout and `options` (e.g. maxRetries) for both.
 */
export function sdkClients(proxyUrl, options = {}) {
  const AnthropicModule = requireSdk('@anthropic-ai/sdk');
  const OpenAIModule = requireSdk('openai');
  const Anthropic = AnthropicModule.default || AnthropicModule;
  const OpenAI = OpenAIModule.default || OpenAIModule;
  return {
    anthropic: new Anthropic({ apiKey: 'sk-ant-test-key', baseURL: proxyUrl, timeout: 20000, ...options }),
    openai: new OpenAI({ apiKey: 'sk-openai-test-key', baseURL: `${proxyUrl}/v1`, timeout: 20000, ...options }),
  };
}

export function tmpdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'weld-proxy-test-'));
}

/** Resolves with the first line of `stream` matching `predicate`, or rejects after `ms`. */
function waitForLine(stream, predicate, ms, what, lines) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; got: ${buffer}${(lines || []).join('\n')}`)), ms);
    const onData = (chunk) => {
      buffer += chunk.toString('utf8');
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (lines) lines.push(line);
        if (predicate(line)) {
          clearTimeout(timer);
          stream.off('data', onData);
          // keep collecting lines
          if (lines) stream.on('data', (c) => { for (const l of c.toString('utf8').split('\n')) if (l) lines.push(l); });
          resolve(line);
          return;
        }
      }
    };
    stream.on('data', onData);
  });
}

/** Starts the fake model server with `script`; returns {port, url, requests(), reset(), stop()}. */
export async function startFake(script) {
  const dir = tmpdir();
  const file = path.join(dir, 'script.json');
  fs.writeFileSync(file, JSON.stringify(script));
  const child = spawn(process.execPath, [fakeServer, '--script', file, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await waitForLine(child.stdout, (l) => l.startsWith('{'), 10000, 'the fake model server');
  const port = JSON.parse(line).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    port,
    url,
    async requests() {
      const r = await fetch(`${url}/__requests`);
      return r.json();
    },
    async reset(next) {
      await fetch(`${url}/__reset`, { method: 'POST', body: next ? JSON.stringify(next) : '' });
    },
    stop() {
      child.kill('SIGTERM');
    },
  };
}

/**
 * Starts `weld proxy` with `args` (array), listening on `listen`. Returns
 * {port, url, logs, child, listening (the parsed event), stop(signal) -> exit code}.
 */
export async function startProxy(upstream, args = [], { listen = '127.0.0.1:0' } = {}) {
  const child = spawn(weldBin, ['proxy', '--listen', listen, '--upstream', upstream, ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const logs = [];
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const line = await Promise.race([
    waitForLine(child.stderr, (l) => l.includes('"event":"listening"'), 15000, 'weld proxy to listen', logs),
    exited.then((code) => { throw new Error(`weld proxy exited with ${code}: ${logs.join('\n')}`); }),
  ]);
  const listening = JSON.parse(line);
  const port = listening.port;
  return {
    port,
    listening,
    url: `http://127.0.0.1:${port}`,
    logs,
    child,
    exited,
    /** Access-log entries (parsed). */
    accessLogs() {
      return logs.filter((l) => l.includes('"method"')).map((l) => JSON.parse(l));
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const timeout = new Promise((resolve) => setTimeout(() => { child.kill('SIGKILL'); resolve('killed'); }, 15000));
      return Promise.race([exited, timeout]);
    },
  };
}

/**
 * Starts the fake model server and `weld proxy --agents <registry>` (an
 * object, written to a file), with the official SDK clients pointed at the
 * proxy. Returns {fake, proxy, anthropic, openai, stop()}.
 */
export async function startSdkProxy(registry, { apiKey = 'k', proxyArgs = [] } = {}) {
  const file = path.join(tmpdir(), 'agents.json');
  fs.writeFileSync(file, JSON.stringify(registry));
  const AnthropicModule = requireSdk('@anthropic-ai/sdk');
  const OpenAIModule = requireSdk('openai');
  const Anthropic = AnthropicModule.default || AnthropicModule;
  const OpenAI = OpenAIModule.default || OpenAIModule;
  const fake = await startFake({ responses: [] });
  const proxy = await startProxy(fake.url, ['--agents', file, ...proxyArgs]);
  return {
    fake,
    proxy,
    anthropic: new Anthropic({ apiKey, baseURL: proxy.url, maxRetries: 0, timeout: 20000 }),
    openai: new OpenAI({ apiKey, baseURL: `${proxy.url}/v1`, maxRetries: 0, timeout: 20000 }),
    async stop() {
      await proxy.stop();
      fake.stop();
    },
  };
}

/** Runs `weld ...args`; resolves {code, stdout, stderr}. */
export function runWeld(args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(weldBin, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error('weld timed out')); }, 30000);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

/**
 * A raw HTTP/1.1 exchange over one TCP connection: sends `bytes`, collects
 * everything until the peer closes or `ms` pass. Resolves a Buffer.
 */
export function rawExchange(port, bytes, ms = 5000) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    const timer = setTimeout(() => { socket.destroy(); resolve(Buffer.concat(chunks)); }, ms);
    socket.on('data', (c) => chunks.push(c));
    socket.on('end', () => { clearTimeout(timer); resolve(Buffer.concat(chunks)); });
    socket.on('error', (e) => { clearTimeout(timer); reject(e); });
    socket.write(bytes);
  });
}

/** Splits a raw HTTP/1.1 response into {status, headers (lower-case), body (Buffer, de-chunked)}. */
export function parseRawResponse(buffer) {
  const end = buffer.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no header in ${buffer.toString()}`);
  const head = buffer.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(head[0].split(' ')[1]);
  const headers = {};
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = buffer.subarray(end + 4);
  let complete = true;
  if (headers['transfer-encoding'] === 'chunked') {
    const parts = [];
    let at = 0;
    complete = false;
    for (;;) {
      const nl = body.indexOf('\r\n', at);
      if (nl < 0) break;
      const size = parseInt(body.subarray(at, nl).toString(), 16);
      if (size === 0) { complete = true; break; }
      if (nl + 2 + size > body.length) { parts.push(body.subarray(nl + 2)); break; }
      parts.push(body.subarray(nl + 2, nl + 2 + size));
      at = nl + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    complete = body.length >= Number(headers['content-length']);
  }
  return { status, headers, body, complete };
}

/**
 * A raw TCP upstream: `handler(socket, requestBuffer)` is called once the
 * request head and its Content-Length body arrived. Records connections.
 */
export async function startRawUpstream(handler) {
  const state = { requests: [], closed: 0, connections: 0 };
  const server = net.createServer((socket) => {
    state.connections++;
    let buffer = Buffer.alloc(0);
    socket.on('close', () => state.closed++);
    socket.on('error', () => {});
    socket.on('data', (c) => {
      buffer = Buffer.concat([buffer, c]);
      // Several requests may come on one keep-alive connection.
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        const m = /content-length:\s*(\d+)/i.exec(head);
        const length = m ? Number(m[1]) : 0;
        if (buffer.length < end + 4 + length) return;
        const request = { head, body: buffer.subarray(end + 4, end + 4 + length) };
        buffer = buffer.subarray(end + 4 + length);
        state.requests.push(request);
        handler(socket, request, state);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    stop() { server.close(); },
  };
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `predicate()` is true, polling, for at most `ms`. */
export async function until(predicate, ms = 5000, what = 'condition') {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** POST JSON with fetch; resolves {status, headers, text, json}. */
export async function postJson(url, body, headers = {}) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(20000),
  });
  const text = await r.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: r.status, headers: r.headers, text, json };
}

/** Parses an SSE text into [{event, data}] (data parsed as JSON when it can be). */
export function parseSse(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (!block.trim()) continue;
    let event = null;
    const data = [];
    const comments = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) comments.push(line);
      else if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0) { events.push({ event, comment: comments.join('\n') }); continue; }
    const joined = data.join('\n');
    let parsed = joined;
    try { parsed = JSON.parse(joined); } catch { /* [DONE] */ }
    events.push({ event, data: parsed });
  }
  return events;
}
