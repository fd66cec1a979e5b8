// MCP over Streamable HTTP in a run (issue 17): `url` entries in mcpServers,
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
