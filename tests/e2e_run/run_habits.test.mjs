// Users' habits (docs/run.md, "Coming from Claude Code, Qwen Code or Codex"
// and "Messages"): Claude Code's flag names, "did you mean" for flags and
// subcommands, `weld help`, -V, a schema path without @, file positions in
// JSON errors, ANTHROPIC_AUTH_TOKEN, the provider choice said when two are
// configured, and every stderr line starting with "weld".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  API_KEY, SCHEMA, SCHEMA_TEXT, SOURCE_DIR, WELD, providerArgs, runWeld, so, startServer, tempDir, toolDecls,
  toolResults,
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"low"}';
const HINT = "\nweld: Run 'weld --help' for usage.\n";

/** Every stderr line names weld (docs/run.md, "Messages"). */
function assertWeldLines(stderr) {
  for (const line of stderr.split('\n').filter(Boolean)) assert.match(line, /^weld( [a-z ]+)?:/, `line: ${line}`);
}

test('Claude Code flag names: --max-turns, --permission-mode, --append-system-prompt, --allowedTools', async () => {
  const work = tempDir('weld-ws-');
  const call = { tool_calls: [{ name: 'run_shell_command', arguments: JSON.stringify({ command: 'echo hi' }), id: 's1' }] };
  const server = await startServer([call, call, call], { repeatLast: true });
  try {
    // --max-turns is --max-session-turns: 2 turns, then 53.
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--max-turns', '2', '--system-prompt', 'Be brief.', '--append-system-prompt', 'Answer in French.',
      '--allowedTools', 'Bash(echo:*) Read'], { env, cwd: work });
    assert.equal(r.code, 53, r.stderr);
    const requests = await server.requests();
    assert.equal(requests.length, 2);
    const system = requests[0].body.messages.find((m) => m.role === 'system');
    assert.equal(system.content, 'Be brief.\n\nAnswer in French.');
    // Bash(echo:*) offers run_shell_command restricted to echo (default mode
    // offers no shell otherwise).
    const names = toolDecls(requests[0], 'openai').map((t) => t.name);
    assert.ok(names.includes('run_shell_command'), names.join(','));
  } finally { await server.close(); }
});

test('--permission-mode maps Claude Code modes; --dangerously-skip-permissions is --yolo; --disallowedTools removes', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    const offered = async (extra) => {
      await server.reset?.();
      const before = (await server.requests()).length;
      const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, ...extra],
        { env });
      assert.equal(r.code, 0, r.stderr);
      const requests = await server.requests();
      return toolDecls(requests[before], 'openai').map((t) => t.name).sort();
    };
    const plan = await offered(['--permission-mode', 'plan']);
    const yolo = await offered(['--permission-mode', 'bypassPermissions']);
    const skip = await offered(['--dangerously-skip-permissions']);
    const edits = await offered(['--permission-mode', 'acceptEdits']);
    assert.ok(!plan.includes('write_file') && !plan.includes('run_shell_command'));
    assert.deepEqual(skip, yolo);
    assert.ok(yolo.includes('run_shell_command') && yolo.includes('write_file'));
    assert.ok(edits.includes('write_file') && !edits.includes('run_shell_command'));
    const without = await offered(['--yolo', '--disallowedTools', 'Bash,Write']);
    assert.ok(!without.includes('run_shell_command') && !without.includes('write_file') && without.includes('edit'));
  } finally { await server.close(); }
  const bad = await runWeld(['-p', 'x', '--permission-mode', 'sometimes']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'weld: --permission-mode must be one of default, acceptEdits, plan, bypassPermissions, '
    + 'dontAsk (got "sometimes").' + HINT);
});

test('--mcp-config takes a file or JSON text; --strict-mcp-config leaves the settings servers out', async () => {
  const home = tempDir('weld-home-');
  const server = await startServer([so(OK)], { repeatLast: true });
  const mcp = path.join(SOURCE_DIR, 'tests/mcp/server.mjs');
  const config = { mcpServers: { flagged: { command: process.execPath, args: [mcp] } } };
  const file = path.join(home, 'mcp.json');
  fs.writeFileSync(file, JSON.stringify(config));
  fs.mkdirSync(path.join(home, '.weld'));
  fs.writeFileSync(path.join(home, '.weld/settings.json'),
    JSON.stringify({ mcpServers: { fromsettings: { command: process.execPath, args: [mcp] } } }));
  try {
    for (const value of [file, JSON.stringify(config)]) {
      const before = (await server.requests()).length;
      const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
        '--mcp-config', value], { env, home });
      assert.equal(r.code, 0, r.stderr);
      const names = toolDecls((await server.requests())[before], 'openai').map((t) => t.name);
      assert.ok(names.includes('echo'), names.join(','));
    }
    const before = (await server.requests()).length;
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--mcp-config', file, '--strict-mcp-config'], { env, home });
    assert.equal(r.code, 0, r.stderr);
    const names = toolDecls((await server.requests())[before], 'openai').map((t) => t.name);
    assert.ok(!names.some((n) => n.includes('fromsettings')), names.join(','));
    assert.ok(names.includes('mcp__flagged__structured_output'), names.join(','));
    const broken = await runWeld(['--provider', 'offline', '-p', 'x', '--mcp-config', '{"mcpServers": {"a": {}}}']);
    assert.equal(broken.code, 52);
    assert.equal(broken.stderr, 'weld: Settings file "--mcp-config": mcpServers.a.command is missing.\n');
  } finally { await server.close(); }
});

test('--settings FILE adds settings over the usual files', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'extra.json');
  fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ['structured_output'] } }));
  const r = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT, '--settings', file, '-o', 'json']);
  // structured_output denied: the offline model cannot answer.
  assert.notEqual(r.code, 0);
  const bad = path.join(dir, 'bad.json');
  fs.writeFileSync(bad, '{\n  "permissions": {"deny": ["x"],}\n}\n');
  const broken = await runWeld(['--provider', 'offline', '-p', 'x', '--settings', bad]);
  assert.equal(broken.code, 52);
  assert.equal(broken.stderr, `weld: --settings "${bad}" is not valid JSON: trailing comma in object at line 2 column 33.\n`);
});

test('a Claude Code flag weld has no use for is said in one line', async () => {
  const r = await runWeld(['-p', 'x', '--fallback-model', 'sonnet']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'weld: --fallback-model is a Claude Code flag weld has no counterpart for: weld has no fallback '
    + 'model; an overloaded server ends the run with exit 75, for the caller to retry.' + HINT);
});

test('did you mean: an unknown flag names the nearest one, in the run, the batch and weld schema', async () => {
  const r = await runWeld(['-p', 'x', '--json-shema', SCHEMA_TEXT]);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'weld: unknown flag --json-shema; did you mean --json-schema?' + HINT);
  const far = await runWeld(['-p', 'x', '--colour']);
  assert.equal(far.stderr, 'weld: unknown flag --colour.' + HINT);
  const batch = await runWeld(['batch', 'in.jsonl', '--concurency', '4']);
  assert.equal(batch.code, 1);
  assert.match(batch.stderr, /^weld batch: unknown flag --concurency; did you mean --concurrency\?\n/);
  assertWeldLines(batch.stderr);
  // Not answered as a Claude Code flag outside the run and the batch.
  const agents = await runWeld(['agents', 'check', '--agents', 'agents.json']);
  assert.equal(agents.code, 1);
  assert.match(agents.stderr, /^weld agents check: unknown flag --agents\.\n/);
  const schema = await runWeld(['schema', 'check', '--dialekt', 'draft7', '{}']);
  assert.equal(schema.code, 1);
  assert.match(schema.stderr, /^weld schema check: unknown flag --dialekt; did you mean --dialect\?\n/);
  assertWeldLines(schema.stderr);
});

test('did you mean: a first word one edit from a subcommand is refused, nothing sent; other words are prompts', async () => {
  const server = await startServer([so(OK)], { repeatLast: true });
  try {
    for (const [word, command] of [['bacth', 'batch'], ['shema', 'schema'], ['sampel', 'sample'], ['prxy', 'proxy'],
      ['agent', 'agents'], ['Batch', 'batch']]) {
      const r = await runWeld([word, 'in.jsonl', ...providerArgs('openai', server.port)], { env });
      assert.equal(r.code, 1, word);
      assert.equal(r.stderr, `weld: "${word}" is not a weld command; did you mean "weld ${command}"? `
        + `To send it to the model as a prompt, use -p: weld -p "${word} …"\n`);
    }
    assert.equal((await server.requests()).length, 0);
    const hello = await runWeld(['hello', ...providerArgs('openai', server.port), '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(hello.code, 0, hello.stderr);
    assert.equal((await server.requests()).length, 1);
  } finally { await server.close(); }
});

test('weld help [COMMAND], -V, and weld alone on a terminal', async () => {
  const help = await runWeld(['help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^weld: a headless agent run/);
  const batch = await runWeld(['help', 'batch']);
  assert.equal(batch.code, 0);
  assert.match(batch.stdout, /Usage: weld batch/);
  const unknown = await runWeld(['help', 'bach']);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^weld: help: no command "bach"; did you mean "weld help batch"\?/);
  const version = await runWeld(['-V']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^weld \d+\.\d+\.\d+/);
  // A terminal on stdin (script(1) gives one): the usage, not "no prompt".
  const out = execFileSync('script', ['-qec', WELD, '/dev/null'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  assert.match(out, /Usage: weld \[OPTIONS\]/);
});

test('weld --help lists every subcommand, the Claude Code names and the environment weld reads', async () => {
  const r = await runWeld(['--help']);
  assert.equal(r.code, 0);
  for (const word of ['weld batch', 'weld schema check', 'weld sample', 'weld proxy', 'weld agents', 'weld help',
    '-V', 'OPENAI_MODEL', 'ANTHROPIC_AUTH_TOKEN', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_SERVICE_NAME', 'TRACEPARENT',
    'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID', 'WELD_MAX_RESPONSE_BYTES', '--max-session-turns,--max-turns',
    '--allowedTools', '--dangerously-skip-permissions', '--output-schema']) {
    assert.ok(r.stdout.includes(word), `--help mentions ${word}`);
  }
  assert.ok(!/SPEC §/.test(r.stdout), 'no citation of a document the user does not have');
  const batch = await runWeld(['batch', '--help']);
  assert.match(batch.stdout, /--max-session-turns,--max-turns[^\n]*\n?[^\n]*A row ends errored/);
  assert.match(batch.stdout, /--json-schema[^\n]*\n?\s*Required\./);
  assert.ok(!/SPEC §/.test(batch.stdout));
});

test('--json-schema takes a path without @ (and Codex\'s --output-schema); neither JSON nor a file says both', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'schema.json'), SCHEMA_TEXT);
  for (const flag of ['--json-schema', '--output-schema']) {
    const r = await runWeld(['--provider', 'offline', '-p', 'x', flag, 'schema.json'], { cwd: dir });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(Object.keys(JSON.parse(r.stdout)).sort(), Object.keys(SCHEMA.properties).sort());
  }
  const missing = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', 'shema.json'], { cwd: dir });
  assert.equal(missing.code, 52);
  assert.equal(missing.stderr, 'weld: --json-schema is neither JSON nor a file: "shema.json" does not parse as JSON, and '
    + `"${path.join(dir, 'shema.json')}" does not exist (inline JSON, @path and a path are accepted).\n`);
  // A trailing comma in a file: where it is, as jq and Python say it.
  fs.writeFileSync(path.join(dir, 'multi.json'), '{\n  "type": "object",\n  "properties": {},\n}\n');
  const comma = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', 'multi.json'], { cwd: dir });
  assert.equal(comma.code, 52);
  assert.equal(comma.stderr, `weld: --json-schema content of "${path.join(dir, 'multi.json')}" is not valid JSON: `
    + 'trailing comma in object at line 4 column 1.\n');
});

test('ANTHROPIC_AUTH_TOKEN goes as a Bearer token, as Claude Code sends it', async () => {
  const server = await startServer([so(OK)]);
  try {
    const r = await runWeld(['-m', 'claude-x', '-p', 'x', '--json-schema', SCHEMA_TEXT], {
      env: { ANTHROPIC_AUTH_TOKEN: 'gw-token-Q7', ANTHROPIC_BASE_URL: `http://127.0.0.1:${server.port}` } });
    assert.equal(r.code, 0, r.stderr);
    const [request] = await server.requests();
    assert.equal(request.path, '/v1/messages');
    assert.equal(request.headers.authorization, 'Bearer gw-token-Q7');
    assert.equal(request.headers['x-api-key'], undefined);
    assert.ok(!r.stderr.includes('gw-token-Q7'));
  } finally { await server.close(); }
});

test('keys for two providers: the choice and the reason are said', async () => {
  const server = await startServer([so(OK)]);
  try {
    const r = await runWeld(['-m', 'm', '-p', 'x', '--json-schema', SCHEMA_TEXT], {
      env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `http://127.0.0.1:${server.port}/v1`, ANTHROPIC_API_KEY: 'sk-ant-x' } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, 'weld: OPENAI_* and ANTHROPIC_* variables are both set; using openai (OpenAI\'s are read first). '
      + 'Pass --provider (or set WELD_PROVIDER) to choose.\n');
  } finally { await server.close(); }
});

test('every stderr line of a failed run starts with "weld:"', async () => {
  const server = await startServer([{ status: 400 }]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '-o', 'json'], { env });
    assert.equal(r.code, 1);
    assertWeldLines(r.stderr);
    assert.equal(JSON.parse(r.stdout).at(-1).error.message + '\n', r.stderr);
  } finally { await server.close(); }
  const usage = await runWeld(['-p', 'x', '--yolo', '--approval-mode', 'plan']);
  assertWeldLines(usage.stderr);
});

test('the retry turn stays under 2,048 bytes however long the schema\'s patterns: lines cut, the rest counted', async () => {
  // Ten properties with 600-character patterns, all wrong: what the model
  // reads after the failure is cut, never the schema's whole text.
  const pattern = `^(${'a'.repeat(600)})$`;
  const properties = {};
  const wrong = {};
  for (let i = 0; i < 10; i += 1) { properties[`p${i}`] = { type: 'string', pattern }; wrong[`p${i}`] = 'b'; }
  const schema = JSON.stringify({ type: 'object', properties });
  const server = await startServer([so(JSON.stringify(wrong)), so('{}')]);
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema], { env });
    assert.equal(r.code, 0, r.stderr);
    const requests = await server.requests();
    assert.equal(requests.length, 2);
    const [retry] = toolResults(requests[1], 'openai');
    assert.ok(Buffer.byteLength(retry.content) <= 2048, `${Buffer.byteLength(retry.content)} bytes`);
    assert.match(retry.content, /^params\/p0 must match pattern "\^\(a+…\nparams\/p1 must match pattern/);
    assert.match(retry.content, /\n… and 6 more violation\(s\)$/);
  } finally { await server.close(); }
});

test('every stderr line of weld schema, weld sample and weld agents names weld and the command', async () => {
  const dir = tempDir('weld-lines-');
  const broken = path.join(dir, 'broken.json');
  fs.writeFileSync(broken, '{\n  "type": "object",\n}\n');
  const answer = path.join(dir, 'answer.json');
  fs.writeFileSync(answer, '{"a": 1,}');
  const warned = '{"type":"object","properties":{"d":{"type":"string","format":"colour"}}}';
  const lowerable = '{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}';
  const cases = [
    [['schema', 'validate', broken, '-'], 52, /^weld schema validate: schema content of ".*broken\.json" is not valid JSON: trailing comma in object at line 3 column 1\.\n$/],
    [['schema', 'validate', '{"type":"objct"}', '-'], 52, /^weld schema validate: schema is not a valid JSON Schema: "type" must be equal to one of the allowed values: .* at \/type\n$/],
    [['schema', 'validate', warned, '-'], 0, /^weld schema validate: warning: unknown format "colour" .*\n$/],
    [['schema', 'check', warned], 0, /^weld schema check: warning: unknown format "colour" .*\n$/],
    [['schema', 'lower', '--for', 'openai-strict', lowerable], 0, /^weld schema lower: \/properties\/name: minLength moved into the description/],
    [['schema', 'lower', '--for', 'openai-strict', lowerable, '--map-back', answer], 1, /^weld schema lower: .*answer\.json: not valid JSON: trailing comma in object at line 1 column 9\n$/],
    [['schema', 'lower', '--for', 'openai-strict', lowerable, '--map-back', '-'], 1, /^weld schema lower: standard input: not valid JSON: unexpected end of input at line 1 column 1\n$/],
    [['schema', 'lower', '--for', 'openai-strict', '{"type":'], 52, /^weld schema lower: schema is not valid JSON: /],
    [['sample', '{"type":"objct"}'], 52, /^weld sample: /],
    [['agents', 'check', broken], 52, /^weld agents: .*broken\.json: not valid JSON: trailing comma in object at line 3 column 1\n$/],
  ];
  // A line of JSON Lines: the file's line and column, not the line's own "line 1".
  const lines = path.join(dir, 'rows.jsonl');
  fs.writeFileSync(lines, '{"a":1}\n\n{"a": 3,}\n');
  const jsonl = await runWeld(['schema', 'validate', '{"type":"object"}', lines]);
  assert.equal(jsonl.code, 1, jsonl.stderr);
  assert.equal(jsonl.stdout, `${lines}:3: not valid JSON: trailing comma in object at line 3 column 9\n`);
  for (const [args, code, stderr] of cases) {
    // Standard input: an instance for validate, nothing for --map-back -.
    const r = await runWeld(args, { stdin: args.includes('--map-back') ? '' : '{"a": 1}\n' });
    assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, stderr, args.join(' '));
    assertWeldLines(r.stderr);
  }
});

test('--verbose: one line per step; --debug-file: requests and responses with the key redacted', async () => {
  const schema = JSON.stringify({ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] });
  const server = await startServer([{ status: 503 }, so('{"a":"x"}'), so('{"a":1,}')]);
  const dir = tempDir();
  const debugFile = path.join(dir, 'debug.log');
  try {
    const r = await runWeld([...providerArgs('openai', server.port), '-p', 'x', '--json-schema', schema, '--verbose',
      '--debug-file', debugFile], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '{"a":1}\n');
    const url = `http://127.0.0.1:${server.port}/v1/chat/completions`;
    const lines = r.stderr.trimEnd().split('\n');
    assert.deepEqual(lines.map((l) => l.replace(/[\d.]+ s\b/, 'T s').replace(/\d+ bytes/, 'N bytes')), [
      'weld: model fake-model (openai), mechanism tool; tools: read_file, list_directory, glob, grep_search, structured_output',
      `weld: request: POST ${url} (N bytes)`,
      'weld: response: HTTP 503, N bytes in T s',
      'weld: sending again after HTTP 503',
      `weld: request: POST ${url} (N bytes)`,
      'weld: response: HTTP 200, N bytes in T s',
      'weld: turn 1: the model answered with tool calls: structured_output (stop reason tool_calls, 11 tokens in, 7 out)',
      'weld: tool result (error) sent back: params/a must be integer (got "x")',
      `weld: request: POST ${url} (N bytes)`,
      'weld: response: HTTP 200, N bytes in T s',
      'weld: turn 2: the model answered with tool calls: structured_output (stop reason tool_calls, 11 tokens in, 7 out)',
      "weld: repair applied: trailing_comma (removed a trailing comma before '}')",
      'weld: ended with exit 0 after 2 turn(s) and 2 structured attempt(s)',
    ]);
    const log = fs.readFileSync(debugFile, 'utf8');
    assert.equal(fs.statSync(debugFile).mode & 0o777, 0o600);
    assert.match(log, new RegExp(`^> POST ${url.replace(/[.]/g, '\\.')}\n`));
    assert.match(log, /^> Authorization: \[REDACTED\]$/m);
    assert.match(log, /^< HTTP 503 /m);
    assert.ok(!log.includes(API_KEY), 'the key is never logged');
    // --debug alone: the same log on stderr, each line marked.
    const debug = await runWeld(['--provider', 'offline', '-p', 'x', '--debug']);
    assert.equal(debug.code, 0);
  } finally { await server.close(); }
});
