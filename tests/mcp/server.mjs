#!/usr/bin/env node
// A real MCP server (the official TypeScript SDK over stdio) for weld's
// end-to-end tests of MCP tools in a run (tests/e2e_run/run_mcp.test.mjs).
//   node server.mjs [--mode normal|exit|hang-init] [--pid-file FILE] [--log FILE]
// --pid-file: writes its pid there at start; --log: appends one JSON line per
// tool call ({tool, args}), so a test can tell which calls really ran.
import fs from 'node:fs';

const args = { mode: 'normal', pidFile: null, log: null };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  if (a === '--mode') args.mode = process.argv[++i];
  else if (a === '--pid-file') args.pidFile = process.argv[++i];
  else if (a === '--log') args.log = process.argv[++i];
  else throw new Error(`unknown argument ${a}`);
}
if (args.pidFile) fs.writeFileSync(args.pidFile, String(process.pid));

if (args.mode === 'exit') {
  process.stderr.write('test server: refusing to start (mode exit)\n');
  process.exit(3);
}
if (args.mode === 'hang-init') {
  // Reads its input and never answers: a server stuck before initialize.
  process.stdin.resume();
  setInterval(() => {}, 1 << 30);
} else {
  // Loaded after the pid file is written (static imports would run first).
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { z } = await import('zod');
  const log = (tool, input) => { if (args.log) fs.appendFileSync(args.log, JSON.stringify({ tool, args: input }) + '\n'); };
  const server = new McpServer({ name: 'weld-test-server', version: '1.0.0' });
  server.registerTool('echo', {
    description: 'Echoes the text back, with the MCP_TEST_TAG environment variable.',
    inputSchema: { text: z.string() },
    annotations: { readOnlyHint: true },
  }, async ({ text }) => {
    log('echo', { text });
    return { content: [{ type: 'text', text: `${text} ${process.env.MCP_TEST_TAG ?? '(no tag)'}` }] };
  });
  server.registerTool('structured_output', {
    description: 'A tool that happens to share the synthetic tool\'s name.',
    inputSchema: { note: z.string() },
  }, async ({ note }) => {
    log('structured_output', { note });
    return { content: [{ type: 'text', text: `mcp structured_output got: ${note}` }] };
  });
  server.registerTool('read_file', {
    description: 'Shares a built-in tool\'s name.',
    inputSchema: { path: z.string() },
  }, async (input) => {
    log('read_file', input);
    return { content: [{ type: 'text', text: 'from mcp' }] };
  });
  server.registerTool('fail', { description: 'Always fails.', inputSchema: {} }, async () => {
    log('fail', {});
    return { content: [{ type: 'text', text: 'it broke' }], isError: true };
  });
  server.registerTool('slow', { description: 'Waits.', inputSchema: { ms: z.number() } }, async ({ ms }) => {
    log('slow', { ms });
    await new Promise((r) => setTimeout(r, ms));
    return { content: [{ type: 'text', text: 'done waiting' }] };
  });
  await server.connect(new StdioServerTransport());
}
