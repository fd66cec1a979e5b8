// MCP servers in a run (docs/run.md, "MCP servers"), against a real MCP server built with the
// official SDK (tests/mcp/server.mjs; `npm ci` in tests/mcp first): tools
// offered under their own names, `structured_output` (and a built-in's name)
// renamed mcp__<server>__<name>, calls and results over JSON-RPC stdio, a
// server that cannot start or hangs is left out with a warning, and no
// server outlives the run — SIGINT included.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA, SCHEMA_TEXT, SKIPPED_SUCCESS, SOURCE_DIR, providerArgs, runCancelled, runWeld, so, startServer,
  tempDir, toolDecls, toolResults, waitFor,
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"low"}';
const MCP_DIR = path.join(SOURCE_DIR, 'tests/mcp');
const MCP_SERVER = path.join(MCP_DIR, 'server.mjs');
if (!fs.existsSync(path.join(MCP_DIR, 'node_modules/@modelcontextprotocol/sdk'))) {
  throw new Error(`run "npm ci" in ${MCP_DIR} first (the MCP tests use the official SDK)`);
}

/** A home + project with settings naming `servers`; returns {home, cwd, dir}. */
function setup(home, servers) {
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(path.join(cwd, '.weld'), { recursive: true });
  fs.writeFileSync(path.join(cwd, '.weld/settings.json'), JSON.stringify({ mcpServers: servers }));
  return { home, cwd };
}

function testServer(home, name, extra = [], env = {}) {
  return { command: process.execPath, args: [MCP_SERVER, '--pid-file', path.join(home, `${name}.pid`),
    '--log', path.join(home, `${name}.log`), ...extra], env };
}

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

function readPid(home, name) { return Number(fs.readFileSync(path.join(home, `${name}.pid`), 'utf8')); }
function calls(home, name) {
  const p = path.join(home, `${name}.log`);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

for (const api of APIS) {
  test(`${api}: MCP tools are offered and called; structured_output and read_file renamed; no server left behind`, async () => {
    const home = tempDir();
    const project = setup(home, { kit: testServer(home, 'kit', [], { MCP_TEST_TAG: 'tag-42' }) });
    const server = await startServer([
      { tool_calls: [
        { name: 'echo', arguments: { text: 'hi' }, id: 'call_echo' },
        { name: 'mcp__kit__structured_output', arguments: { note: 'n1' }, id: 'call_mso' },
        { name: 'fail', arguments: {}, id: 'call_fail' },
      ] },
      so(OK),
    ]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env, home: project.home, cwd: project.cwd });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      const messages = JSON.parse(r.stdout);
      assert.deepEqual(messages[0].mcp_servers, [{ name: 'kit', status: 'connected' }]);
      assert.deepEqual(messages.at(-1).structured_result, JSON.parse(OK));
      const requests = await server.requests();
      const decls = toolDecls(requests[0], api);
      assert.deepEqual(decls.map((t) => t.name), ['read_file', 'list_directory', 'glob', 'grep_search', 'echo',
        'mcp__kit__structured_output', 'mcp__kit__read_file', 'fail', 'slow', 'structured_output']);
      // The synthetic tool keeps the user's schema; the MCP one keeps its own.
      assert.deepEqual(decls.at(-1).parameters, SCHEMA);
      assert.deepEqual(decls[5].parameters.properties, { note: { type: 'string' } });
      assert.equal(decls[4].description, 'Echoes the text back, with the MCP_TEST_TAG environment variable.');
      const results = toolResults(requests[1], api);
      assert.deepEqual(results.map((x) => [x.id, x.content]), [
        ['call_echo', 'hi tag-42'], ['call_mso', 'mcp structured_output got: n1'], ['call_fail', 'it broke']]);
      if (api === 'anthropic') assert.deepEqual(results.map((x) => x.is_error), [false, false, true]);
      assert.deepEqual(calls(project.home, 'kit').map((c) => c.tool), ['echo', 'structured_output', 'fail']);
      assert.equal(alive(readPid(project.home, 'kit')), false, 'the server was stopped with the run');
    } finally { await server.close(); }
  });

  test(`${api}: an MCP call beside structured_output never runs; it gets the synthesised result`, async () => {
    const home = tempDir();
    const project = setup(home, { kit: testServer(home, 'kit') });
    const server = await startServer([{ tool_calls: [
      { name: 'echo', arguments: { text: 'side' }, id: 'call_side' },
      { name: 'structured_output', arguments: OK, id: 'call_so' },
    ] }]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env, home: project.home, cwd: project.cwd });
      assert.equal(r.code, 0, r.stderr);
      const user = JSON.parse(r.stdout).find((m) => m.type === 'user');
      assert.equal(user.message.content.find((b) => b.tool_use_id === 'call_side').content, SKIPPED_SUCCESS);
      assert.deepEqual(calls(project.home, 'kit'), []);
    } finally { await server.close(); }
  });

  test(`${api}: servers that cannot start, exit, or hang are left out with a warning; the run goes on`, async () => {
    const home = tempDir();
    const project = setup(home, {
      missing: { command: path.join(home, 'no-such-binary'), args: [] },
      quitter: testServer(home, 'quitter', ['--mode', 'exit']),
      sleeper: { ...testServer(home, 'sleeper', ['--mode', 'hang-init']), startupTimeout: 1500 },
      kit: testServer(home, 'kit'),
    });
    const server = await startServer([so(OK)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'stream-json'], { env, home: project.home, cwd: project.cwd, timeoutMs: 20000 });
      assert.equal(r.code, 0, r.stderr);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 3, r.stderr);
      assert.equal(lines[0], `weld: warning: MCP server "missing" is not available (cannot run "${path.join(home, 'no-such-binary')}": No such file or directory); continuing without its tools.`);
      assert.match(lines[1], /^weld: warning: MCP server "quitter" is not available \(the server exited or closed its stdio; its stderr ends: "test server: refusing to start \(mode exit\)"\); continuing without its tools\.$/);
      assert.equal(lines[2], 'weld: warning: MCP server "sleeper" is not available (no answer to initialize within 1500 ms); continuing without its tools.');
      const init = JSON.parse(r.stdout.split('\n')[0]);
      assert.deepEqual(init.mcp_servers, [{ name: 'missing', status: 'failed' }, { name: 'quitter', status: 'failed' },
        { name: 'sleeper', status: 'failed' }, { name: 'kit', status: 'connected' }]);
      assert.ok(init.tools.includes('echo'));
      assert.equal(alive(readPid(project.home, 'sleeper')), false, 'the hung server was killed');
      assert.equal(alive(readPid(project.home, 'kit')), false);
    } finally { await server.close(); }
  });
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  test(`${sig} during a slow MCP call: exit 130 within a second, the server is gone`, async () => {
    const home = tempDir();
    const project = setup(home, { kit: testServer(home, 'kit') });
    const server = await startServer([{ tool_calls: [{ name: 'slow', arguments: { ms: 30000 } }] }, so(OK)]);
    try {
      const r = await runCancelled([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env, home: project.home, cwd: project.cwd }, {
        signal: sig,
        ready: () => waitFor(() => calls(project.home, 'kit').length > 0),
      });
      assert.equal(JSON.parse(r.stdout).at(-1).subtype, 'error_cancelled');
      const pid = readPid(project.home, 'kit');
      assert.ok(await waitFor(() => !alive(pid), 2000), 'the server was killed');
    } finally { await server.close(); }
  });
}

test('--exclude-tools and permissions.deny remove MCP tools; --core-tools does not; --bare starts no server', async () => {
  const home = tempDir();
  const project = setup(home, { kit: testServer(home, 'kit') });
  const settingsPath = path.join(project.cwd, '.weld/settings.json');
  const settings = JSON.parse(fs.readFileSync(settingsPath, 'utf8'));
  settings.permissions = { deny: ['fail'] };
  fs.writeFileSync(settingsPath, JSON.stringify(settings));
  const server = await startServer([so(OK), so(OK)]);
  try {
    const r = await runWeld([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--exclude-tools', 'echo', '--core-tools', 'glob'], { env, home: project.home, cwd: project.cwd });
    assert.equal(r.code, 0, r.stderr);
    fs.rmSync(path.join(home, 'kit.pid'));
    const bare = await runWeld([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--bare'], { env, home: project.home, cwd: project.cwd });
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(fs.existsSync(path.join(home, 'kit.pid')), false, '--bare reads no settings, so no MCP server');
    const requests = await server.requests();
    assert.deepEqual(toolDecls(requests[0], 'anthropic').map((t) => t.name),
      // With the built-in read_file not offered, the MCP one keeps its own name.
      ['glob', 'mcp__kit__structured_output', 'read_file', 'slow', 'structured_output']);
    assert.ok(!toolDecls(requests[1], 'anthropic').map((t) => t.name).includes('slow'));
  } finally { await server.close(); }
});

test('SIGINT while a server is still starting: exit 130 within a second, only "Operation cancelled.", the server is gone', async () => {
  const home = tempDir();
  const project = setup(home, { sleeper: { ...testServer(home, 'sleeper', ['--mode', 'hang-init']), startupTimeout: 30000 } });
  const server = await startServer([so(OK)]);
  try {
    const r = await runCancelled([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--output-format', 'stream-json'], { env, home: project.home, cwd: project.cwd }, {
      signal: 'SIGINT',
      ready: async () => {
        await waitFor(() => fs.existsSync(path.join(home, 'sleeper.pid')));
        await new Promise((res) => setTimeout(res, 100));
      },
    });
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1));
    assert.equal(last.subtype, 'error_cancelled');
    assert.equal((await server.requests()).length, 0);
    const pid = readPid(home, 'sleeper');
    assert.ok(await waitFor(() => !alive(pid), 2000), 'the server was killed');
  } finally { await server.close(); }
});

test('an MCP call that outlives its timeout is an error result; the late answer is not taken for the next call', async () => {
  const home = tempDir();
  const project = setup(home, { kit: { ...testServer(home, 'kit'), timeout: 300 } });
  const server = await startServer([
    { tool_calls: [{ name: 'slow', arguments: { ms: 700 }, id: 'call_slow' }] },
    // By the time echo is called, the late answer to slow is waiting in the pipe, ahead of echo's.
    { tool_calls: [{ name: 'echo', arguments: { text: 'after' }, id: 'call_echo' }], delay_ms: 1000 },
    so(OK),
  ]);
  try {
    const r = await runWeld([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env, home: project.home, cwd: project.cwd });
    assert.equal(r.code, 0, r.stderr);
    const requests = await server.requests();
    assert.deepEqual(toolResults(requests[1], 'anthropic'), [
      { id: 'call_slow', content: 'MCP server "kit", tool "slow": timed out after 300 ms', is_error: true }]);
    assert.deepEqual(toolResults(requests[2], 'anthropic').at(-1), { id: 'call_echo', content: 'after (no tag)', is_error: false });
  } finally { await server.close(); }
});
