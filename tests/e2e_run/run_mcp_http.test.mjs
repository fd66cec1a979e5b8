// MCP over Streamable HTTP in a run (docs/run.md, "MCP servers"): `url` entries in mcpServers,
// with headers, against a remote server built with the official SDK's
// StreamableHTTPServerTransport (tests/mcp/http_server.mjs): tools listed
// and called in a session, the session id and protocol version sent back,
// the Authorization header on every request and never in weld's output, SSE
// and JSON answers, and a server that refuses or is not there left out with
// a warning while the run goes on.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA_TEXT, SOURCE_DIR, providerArgs, runWeld, so, startServer, tempDir, toolDecls, toolResults,
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"low"}';
const MCP_DIR = path.join(SOURCE_DIR, 'tests/mcp');
const TOKEN = 'mcp-secret-T0k3n-9f8e7d';
if (!fs.existsSync(path.join(MCP_DIR, 'node_modules/@modelcontextprotocol/sdk'))) {
  throw new Error(`run "npm ci" in ${MCP_DIR} first (the MCP tests use the official SDK)`);
}

/** Starts tests/mcp/http_server.mjs; resolves {url, log(), close()}. */
async function startMcp(extra = []) {
  const dir = tempDir('weld-mcp-http-');
  const logFile = path.join(dir, 'log.jsonl');
  const child = spawn(process.execPath, [path.join(MCP_DIR, 'http_server.mjs'), '--log', logFile, ...extra],
    { cwd: MCP_DIR, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('MCP HTTP server did not start in 10 s')), 10000);
    child.stdout.once('data', (d) => { clearTimeout(timer); resolve(JSON.parse(d).port); });
    child.on('exit', (code) => reject(new Error(`MCP HTTP server exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log() {
      return fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
    },
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.on('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function project(servers) {
  const home = tempDir();
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(path.join(cwd, '.weld'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.weld/settings.json'), JSON.stringify({ mcpServers: servers }));
  return { home, cwd };
}

for (const [mode, extra] of [['SSE', []], ['JSON', ['--json']]]) {
  for (const api of APIS) {
    test(`${api}, ${mode} answers: url entry with headers — tools listed and called in one session`, async () => {
      const mcp = await startMcp(['--token', TOKEN, ...extra]);
      const p = project({ remote: { type: 'http', url: mcp.url, headers: { Authorization: `Bearer ${TOKEN}` } } });
      const server = await startServer([
        { tool_calls: [
          { name: 'remote_echo', arguments: { text: 'hi' }, id: 'call_echo' },
          { name: 'remote_fail', arguments: {}, id: 'call_fail' },
        ] },
        so(OK),
      ]);
      try {
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'json'],
          { env, home: p.home, cwd: p.cwd });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stderr, '');
        const messages = JSON.parse(r.stdout);
        assert.deepEqual(messages[0].mcp_servers, [{ name: 'remote', status: 'connected' }]);
        assert.ok(!r.stdout.includes(TOKEN), 'the header value never appears in the output');
        const requests = await server.requests();
        const decls = toolDecls(requests[0], api);
        assert.ok(decls.some((d) => d.name === 'remote_echo' && d.description === 'Echoes the text back, marked as coming over HTTP.'));
        assert.deepEqual(toolResults(requests[1], api).map((x) => [x.id, x.content]),
          [['call_echo', 'hi (over http)'], ['call_fail', 'remote broke']]);
        if (api === 'anthropic') assert.deepEqual(toolResults(requests[1], api).map((x) => x.is_error), [false, true]);
        const log = mcp.log();
        const http = log.filter((e) => e.method);
        const calls = log.filter((e) => e.tool);
        assert.deepEqual(calls.map((c) => c.tool), ['remote_echo', 'remote_fail']);
        assert.ok(http.every((e) => e.authorized), 'every request carried the Authorization header');
        // initialize without a session, everything after it inside the session
        // the server gave, with the negotiated protocol version; DELETE at the end.
        assert.equal(http[0].session, null);
        const session = http[1].session;
        assert.match(session, /^[0-9a-f-]{36}$/);
        assert.ok(http.slice(1).every((e) => e.session === session), JSON.stringify(http));
        assert.ok(http.slice(2).every((e) => e.protocol_version === '2025-06-18'), JSON.stringify(http));
        assert.deepEqual(http.map((e) => e.method), ['POST', 'POST', 'POST', 'POST', 'POST', 'DELETE']);
      } finally { await server.close(); await mcp.close(); }
    });
  }
}

test('a remote server that refuses the credentials is left out with a warning that keeps the token out', async () => {
  const mcp = await startMcp(['--token', TOKEN]);
  const p = project({ remote: { url: mcp.url, headers: { Authorization: 'Bearer wrong-T0k3n-1234' } } });
  const server = await startServer([so(OK)]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'stream-json'],
      { env, home: p.home, cwd: p.cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, `weld: warning: MCP server "remote" is not available (the server refused the credentials: HTTP 401 ` +
      `Unauthorized: unauthorized (POST ${mcp.url})); continuing without its tools.\n`);
    assert.ok(!r.stderr.includes('wrong-T0k3n-1234') && !r.stdout.includes('wrong-T0k3n-1234'));
    assert.deepEqual(JSON.parse(r.stdout.split('\n')[0]).mcp_servers, [{ name: 'remote', status: 'failed' }]);
  } finally { await server.close(); await mcp.close(); }
});

test('a remote server that is not there is left out with a warning; Qwen Code\'s httpUrl spelling is read', async () => {
  const mcp = await startMcp();
  const url = mcp.url;
  await mcp.close();
  const p = project({ gone: { httpUrl: url, startupTimeout: 3000 } });
  const server = await startServer([so(OK)]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, home: p.home, cwd: p.cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^weld: warning: MCP server "gone" is not available \(could not connect: .*\(POST http:\/\/127\.0\.0\.1:\d+\/mcp\)\); continuing without its tools\.\n$/);
    assert.equal(r.stdout, OK + '\n');
  } finally { await server.close(); }
});

test('a "type": "sse" entry is a configuration error naming the transport', async () => {
  const p = project({ old: { type: 'sse', url: 'http://127.0.0.1:9/sse' } });
  const r = await runWeld(['-p', 'x', '--json-schema', SCHEMA_TEXT], { home: p.home, cwd: p.cwd });
  assert.equal(r.code, 52);
  assert.match(r.stderr, /mcpServers\.old\.type is "sse", the HTTP\+SSE transport of 2024-11-05, which weld does not speak/);
});

// A server that pings the client inside a tools/call stream and waits for
// each reply (as the SDK's servers do) got them only after its response —
// which never came: the call hung until its timeout. Each ping is answered as
// it comes, on its own connection, inside the call's timeout.
test('pings inside a tools/call stream are answered as they come', async () => {
  const mcp = await startMcp();
  const p = project({ remote: { url: mcp.url, timeout: 8000 } });
  const server = await startServer([
    { tool_calls: [{ name: 'remote_pings', arguments: { count: 5 }, id: 'call_pings' }] },
    so(OK),
  ]);
  try {
    const started = Date.now();
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, home: p.home, cwd: p.cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(Date.now() - started < 6000, `${Date.now() - started} ms`);
    const requests = await server.requests();
    assert.deepEqual(toolResults(requests[1], 'openai').map((x) => x.content), ['pinged 5 times']);
  } finally { await server.close(); await mcp.close(); }
});

// 100,000 pings in one answer gave 100,000 POSTs after it and an 18 s call
// with an 8 s timeout: the server's requests are bounded per call.
test('a server flooding a call with requests of its own has the call abandoned, within its timeout', async () => {
  const http = await import('node:http');
  let posts = 0;
  const flood = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      posts++;
      if (req.method !== 'POST') { res.writeHead(200).end(); return; }  // the session's DELETE
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (message.id === undefined || message.result !== undefined || message.error !== undefined) {
        res.writeHead(202).end();  // a notification, or weld's reply to a ping
        return;
      }
      const reply = (result) => JSON.stringify({ jsonrpc: '2.0', id: message.id, result });
      if (message.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' })
          .end(reply({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'flood', version: '1' } }));
      } else if (message.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'application/json' })
          .end(reply({ tools: [{ name: 'flood', description: 'Floods.', inputSchema: { type: 'object' } }] }));
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let frames = '';
        for (let i = 0; i < 100000; i++) frames += `data: {"jsonrpc":"2.0","id":"p${i}","method":"ping"}\n\n`;
        res.write(frames);
        res.end(`data: ${reply({ content: [{ type: 'text', text: 'flooded' }] })}\n\n`);
      }
    });
  });
  await new Promise((r) => flood.listen(0, '127.0.0.1', r));
  const p = project({ flood: { url: `http://127.0.0.1:${flood.address().port}/mcp`, timeout: 8000 } });
  const server = await startServer([
    { tool_calls: [{ name: 'flood', arguments: {}, id: 'call_flood' }] },
    so(OK),
  ]);
  try {
    const started = Date.now();
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, home: p.home, cwd: p.cwd });
    const elapsed = Date.now() - started;
    assert.equal(r.code, 0, r.stderr);
    assert.ok(elapsed < 8000, `${elapsed} ms`);
    assert.ok(posts <= 4 + 256 + 1, `${posts} requests`);  // initialize, initialized, tools/list, the call, ≤ 256 replies, DELETE
    const [result] = toolResults((await server.requests())[1], 'openai');
    assert.match(result.content, /made more than 256 requests of its own while answering one call; the call was abandoned/);
  } finally { await server.close(); flood.close(); }
});

// The token redaction was exact: a server echoing the token upper-cased leaked it.
test('the token is kept out of every message in any letter case', async () => {
  const mcp = await startMcp(['--token', TOKEN, '--echo-token']);
  const wrong = 'wrong-T0k3n-1234';
  const p = project({ remote: { url: mcp.url, headers: { Authorization: `Bearer ${wrong}` } } });
  const server = await startServer([so(OK)]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, home: p.home, cwd: p.cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /the server refused the credentials: HTTP 401 Unauthorized: unauthorized: BEARER \[REDACTED\]/);
    assert.ok(!r.stderr.toLowerCase().includes(wrong.toLowerCase()), r.stderr);
  } finally { await server.close(); await mcp.close(); }
});
