#!/usr/bin/env node
// A real remote MCP server (the official TypeScript SDK's
// StreamableHTTPServerTransport, stateful sessions) for weld's end-to-end
// tests of MCP over Streamable HTTP (tests/e2e_run/run_mcp_http.test.mjs).
//   node http_server.mjs [--token T] [--json] [--log FILE] [--echo-token]
// Prints {"port":N} once listening on 127.0.0.1. --token: every request must
// carry "Authorization: Bearer T" (401 otherwise). --json: answer with JSON
// bodies instead of SSE streams. --log: one JSON line per HTTP request
// ({method, session, protocol_version, authorized}) and per tool call
// ({tool, args}).
import fs from 'node:fs';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { EmptyResultSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const args = { token: null, json: false, log: null, echoToken: false };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--token') args.token = process.argv[++i];
  else if (a === '--json') args.json = true;
  else if (a === '--log') args.log = process.argv[++i];
  else if (a === '--echo-token') args.echoToken = true;
  else throw new Error(`unknown argument ${a}`);
}
const log = (entry) => { if (args.log) fs.appendFileSync(args.log, JSON.stringify(entry) + '\n'); };

function newServer() {
  const server = new McpServer({ name: 'weld-test-http-server', version: '1.0.0' });
  server.registerTool('remote_echo', {
    description: 'Echoes the text back, marked as coming over HTTP.',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ text }) => {
    log({ tool: 'remote_echo', args: { text } });
    return { content: [{ type: 'text', text: `${text} (over http)` }] };
  });
  server.registerTool('remote_fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    log({ tool: 'remote_fail', args: {} });
    return { content: [{ type: 'text', text: 'remote broke' }], isError: true };
  });
  // Pings the client `count` times while answering, waiting for each reply
  // before the next (as a server checking its client is still there does);
  // the replies come on the same stream's request (related requests).
  server.registerTool('remote_pings', {
    description: 'Pings the client, then answers.',
    inputSchema: { count: z.number() },
  }, async ({ count }, extra) => {
    log({ tool: 'remote_pings', args: { count } });
    for (let i = 0; i < count; i++) await extra.sendRequest({ method: 'ping' }, EmptyResultSchema, { timeout: 20000 });
    return { content: [{ type: 'text', text: `pinged ${count} times` }] };
  });
  return server;
}

const transports = new Map();
const httpServer = http.createServer(async (req, res) => {
  const session = req.headers['mcp-session-id'];
  const authorized = args.token === null || req.headers.authorization === `Bearer ${args.token}`;
  log({ method: req.method, session: session ?? null, protocol_version: req.headers['mcp-protocol-version'] ?? null, authorized });
  if (!authorized) {
    // --echo-token: the refusal quotes what it got, upper-cased (a server
    // weld must not let leak the token in any case).
    const said = args.echoToken ? `unauthorized: ${String(req.headers.authorization).toUpperCase()}` : 'unauthorized';
    res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: said }));
    return;
  }
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const raw = Buffer.concat(chunks).toString('utf8');
  const body = raw ? JSON.parse(raw) : undefined;
  let transport = session ? transports.get(session) : undefined;
  if (!transport) {
    if (req.method !== 'POST' || session || !isInitializeRequest(body)) {
      res.writeHead(session ? 404 : 400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'no such session' }, id: null }));
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: args.json,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => { if (transport.sessionId) transports.delete(transport.sessionId); };
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, body);
});
httpServer.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: httpServer.address().port }) + '\n');
});
const stop = () => { httpServer.close(); process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
