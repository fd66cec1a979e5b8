// Inputs: every schema-loading failure (52, zero requests), @path forms, the
// prompt from stdin, no prompt; the offline model; and secrets: the API key
// appears in no output and no file weld writes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  APIS, API_KEY, SCHEMA, SCHEMA_TEXT, SOURCE_DIR, WELD, firstUserText, parseLines, providerArgs, runWeld, so, startServer,
  tempDir, walkFiles, weldLines
} from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"medium"}';

// Each case: [name, make(dir) -> --json-schema value, expected stderr (string, or RegExp)].
const SCHEMA_FAILURES = [
  ['empty', () => '', 'weld: --json-schema cannot be empty.\n'],
  ['blank', () => '  \n ', 'weld: --json-schema cannot be empty.\n'],
  ['directory', (dir) => `@${dir}`, (dir) => `weld: --json-schema "@${dir}" must be a regular file.\n`],
  ['fifo', (dir) => { const p = path.join(dir, 'fifo'); execFileSync('mkfifo', [p]); return `@${p}`; },
    (dir) => `weld: --json-schema "@${path.join(dir, 'fifo')}" must be a regular file.\n`],
  ['too large', (dir) => { const p = path.join(dir, 'big.json'); fs.writeFileSync(p, ' '.repeat(4194305)); return `@${p}`; },
    (dir) => `weld: --json-schema file "${path.join(dir, 'big.json')}" is 4194305 bytes (>4194304). Refusing to read; this is almost certainly a wrong-path argument.\n`],
  ['file not JSON', (dir) => { const p = path.join(dir, 's.json'); fs.writeFileSync(p, '{"type": "object", SECRET-PREFIX'); return `@${p}`; },
    (dir) => `weld: --json-schema content of "${path.join(dir, 's.json')}" is not valid JSON: expected a string key at line 1 column 20.\n`],
  ['file with a trailing comma, on its third line', (dir) => {
    const p = path.join(dir, 'multi.json');
    fs.writeFileSync(p, '{\n  "type": "object",\n  "properties": {"a": {"type": "string"}},\n}\n');
    return `@${p}`;
  }, (dir) => `weld: --json-schema content of "${path.join(dir, 'multi.json')}" is not valid JSON: trailing comma in object at line 4 column 1.\n`],
  ['file whose bad character is never quoted', (dir) => { const p = path.join(dir, 'k.json'); fs.writeFileSync(p, '{"type": "object"} Z'); return `@${p}`; },
    (dir) => `weld: --json-schema content of "${path.join(dir, 'k.json')}" is not valid JSON: unexpected data after the JSON value at line 1 column 20.\n`],
  ['missing file', (dir) => `@${path.join(dir, 'nope.json')}`,
    (dir) => new RegExp(`^weld: --json-schema (could not read "${path.join(dir, 'nope.json')}": .+|"@${path.join(dir, 'nope.json')}" must be a regular file\\.)\\n$`)],
  ['inline not JSON', () => '{"type":', /^weld: --json-schema is not valid JSON: .+\n$/],
  ['not an object', () => '["type"]', 'weld: --json-schema must be a JSON object describing a schema.\n'],
  ['root rejects objects', () => '{"type":"string"}',
    /^weld: --json-schema root must accept object-typed values \(tool parameters are always JSON objects\)\./],
  ['root $ref', () => '{"$ref":"#/$defs/A","$defs":{"A":{"type":"object"}}}',
    /^weld: --json-schema root must accept object-typed values/],
  // A schema that is not one is told so (and where) before what its root accepts.
  ['a type name that is not one', () => '{"type":"objct"}',
    /^weld: --json-schema is not a valid JSON Schema: "type" must be equal to one of the allowed values: "array", "boolean", .*"object", "string" at \/type\n$/],
  ['unknown keyword', () => '{"type":"object","propertees":{}}', /^weld: --json-schema is not a valid JSON Schema: .*propertees.*\n$/],
  ['wrong keyword type', () => '{"type":42}', /^weld: --json-schema is not a valid JSON Schema: .+\n$/],
];

for (const api of APIS) {
  for (const [name, make, expected] of SCHEMA_FAILURES) {
    test(`${api}: schema failure (${name}): exit 52, exact message, zero requests`, async () => {
      const dir = tempDir();
      const server = await startServer([so(OK)]);
      try {
        const value = make(dir);
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', value,
          '--output-format', 'json'], { env, timeoutMs: 10000 });
        assert.equal(r.code, 52, r.stderr);
        const want = typeof expected === 'function' ? expected(dir) : expected;
        if (want instanceof RegExp) assert.match(r.stderr, want); else assert.equal(r.stderr, weldLines(want));
        assert.ok(!r.stderr.includes('SECRET-PREFIX'));
        // JSON mode: one error envelope carrying the stderr message (docs/run.md, "Output formats").
        const out = JSON.parse(r.stdout);
        assert.equal(out.length, 1);
        assert.equal(out[0].subtype, 'error_during_execution');
        assert.equal(out[0].error.message + '\n', r.stderr);
        assert.ok(!r.stdout.includes('SECRET-PREFIX'));
        assert.equal((await server.requests()).length, 0);
      } finally { await server.close(); fs.rmSync(dir, { recursive: true, force: true }); }
    });
  }

  test(`${api}: @path forms: relative to the working directory and ~/`, async () => {
    const home = tempDir();
    const cwd = path.join(home, 'project');
    fs.mkdirSync(path.join(cwd, 'schemas'), { recursive: true });
    fs.writeFileSync(path.join(cwd, 'schemas/s.json'), SCHEMA_TEXT);
    fs.writeFileSync(path.join(home, 'home-schema.json'), SCHEMA_TEXT);
    for (const form of ['@./schemas/s.json', '@schemas/s.json', '@~/home-schema.json', `@${cwd}/schemas/../schemas/s.json`]) {
      const server = await startServer([so(OK)]);
      try {
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', form], { env, home, cwd });
        assert.equal(r.code, 0, `${form}: ${r.stderr}`);
        assert.equal(r.stdout, OK + '\n');
      } finally { await server.close(); }
    }
  });

  test(`${api}: prompt from stdin, and stdin + -p (piped text, blank line, prompt)`, async () => {
    const server = await startServer([so(OK), so(OK), so(OK)]);
    try {
      let r = await runWeld([...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT], { env, stdin: 'diff --git a b\n' });
      assert.equal(r.code, 0, r.stderr);
      r = await runWeld([...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT, '-p', 'Assess the diff'],
        { env, stdin: 'diff --git a b\n' });
      assert.equal(r.code, 0, r.stderr);
      r = await runWeld([...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT, 'Positional', 'prompt'], { env });
      assert.equal(r.code, 0, r.stderr);
      const requests = await server.requests();
      assert.equal(firstUserText(requests[0]), 'diff --git a b');
      assert.equal(firstUserText(requests[1]), 'diff --git a b\n\nAssess the diff');
      assert.equal(firstUserText(requests[2]), 'Positional prompt');
    } finally { await server.close(); }
  });

  test(`${api}: no prompt at all: exit 1 and the exact message, nothing sent`, async () => {
    const server = await startServer([so(OK)]);
    try {
      const r = await runWeld([...providerArgs(api, server.port), '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 1);
      assert.equal(r.stderr,
        'weld: No input provided via stdin. Input can be provided by piping data into weld or using the --prompt option.\n');
      assert.equal(r.stdout, '');
      assert.equal((await server.requests()).length, 0);
    } finally { await server.close(); }
  });

  test(`${api}: the API key appears in no output and no file weld wrote`, async () => {
    const home = tempDir();
    const cwd = path.join(home, 'work');
    fs.mkdirSync(cwd);
    const server = await startServer([
      so('{"summary":"x"}'),
      { text: 'thinking', tool_calls: [{ name: 'list_directory', arguments: {} }] },
      so(OK),
      { status: 401 },
      { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 },
    ], { repeatLast: true });
    const outputs = [];
    try {
      for (const format of ['text', 'json', 'stream-json']) {
        const extra = format === 'stream-json' ? ['--include-partial-messages'] : [];
        const r = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
          '--output-format', format, ...extra], { env, home, cwd, timeoutMs: 60000 });
        outputs.push(r);
      }
      assert.equal(outputs[0].code, 0, outputs[0].stderr);
      assert.equal(outputs[1].code, 41, outputs[1].stderr);
      const requests = await server.requests();
      // The key did reach the server (so the scan below can fail).
      const sent = JSON.stringify(requests.map((q) => q.headers));
      assert.ok(sent.includes(API_KEY), 'the key was sent to the provider');
      for (const r of outputs) {
        assert.ok(!r.stdout.includes(API_KEY), 'stdout');
        assert.ok(!r.stderr.includes(API_KEY), 'stderr');
      }
      const files = walkFiles(home);
      const transcripts = files.filter((f) => f.endsWith('.jsonl'));
      assert.ok(transcripts.length >= 3, `transcripts recorded: ${files.join(', ')}`);
      for (const f of files) assert.ok(!fs.readFileSync(f, 'utf8').includes(API_KEY), f);
      // Transcripts redact the structured_output payload, failed attempts included.
      const first = fs.readFileSync(transcripts.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs)[0], 'utf8');
      assert.ok(first.includes('structured_output payload (see stdout result)'));
      assert.ok(!first.includes('"summary\\":\\"x\\"') && !first.includes('fine'), first);
    } finally { await server.close(); }
  });
}

// With nothing configured weld answered from the offline model and exited 0:
// a CI job whose secret is missing went green on sampled data.
test('no provider configured: exit 52 saying how to choose, nothing answered', async () => {
  const message = 'weld: no model provider configured. Choose one: --provider openai, openai-responses or anthropic (or ' +
    'WELD_PROVIDER), with --base-url (or WELD_BASE_URL) for a server of your own such as vLLM, llama.cpp or Ollama; ' +
    'or set OPENAI_API_KEY, OPENAI_BASE_URL, ANTHROPIC_API_KEY or ANTHROPIC_BASE_URL. To try weld without a model, ' +
    'pass --provider offline (or WELD_PROVIDER=offline): it answers with a sampled schema-valid instance, not a ' +
    'language model\'s answer. See docs/run.md, "Pointing weld at a model".';
  const r = await runWeld(['-p', 'Assess', '--json-schema', SCHEMA_TEXT]);
  assert.equal(r.code, 52, r.stderr);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, weldLines(message + '\n'));
  // A key alone names no provider either; the JSON modes get their envelope.
  const j = await runWeld(['-p', 'Assess', '--json-schema', SCHEMA_TEXT, '-o', 'json'], { env: { WELD_API_KEY: 'sk-x-123456' } });
  assert.equal(j.code, 52, j.stderr);
  const envelope = JSON.parse(j.stdout).at(-1);
  assert.equal(envelope.is_error, true);
  assert.equal(envelope.error.message, message);
  // WELD_PROVIDER=offline chooses it as --provider offline does.
  const chosen = await runWeld(['-p', 'Assess', '--json-schema', SCHEMA_TEXT], { env: { WELD_PROVIDER: 'offline' } });
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.equal(chosen.stderr, 'weld: using the built-in offline model (samples a schema-valid instance; not a language model).\n');
});

// The README's first command, as written there (after the build).
test('offline: the README\'s first command works as written', async () => {
  const readme = fs.readFileSync(path.join(SOURCE_DIR, 'README.md'), 'utf8');
  const line = readme.split('\n').find((l) => l.includes('./build/src/cli/weld '));
  assert.ok(line, 'the README runs ./build/src/cli/weld');
  const command = line.slice(line.indexOf('./build/src/cli/weld ') + './build/src/cli/weld '.length);
  assert.match(command, /^--provider offline /, 'the first command chooses the offline model');
  const home = tempDir('weld-home-');
  const r = spawnSync('sh', ['-c', `"$WELD_UNDER_TEST" ${command}`],
    { cwd: home, encoding: 'utf8', timeout: 30000, env: { PATH: process.env.PATH, HOME: home, WELD_UNDER_TEST: WELD } });
  r.code = r.status;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /offline model/);
  assert.ok(r.stdout.endsWith('\n'));
  assert.equal(r.stdout.indexOf('\n'), r.stdout.length - 1);
  const value = JSON.parse(r.stdout);
  assert.equal(typeof value.summary, 'string');
  assert.ok(['low', 'medium', 'high'].includes(value.risk_level));
});

test('offline: deterministic per --seed, json envelope', async () => {
  const a = await runWeld(['--provider', 'offline', '--seed', '7', '-p', 'x', '--json-schema', SCHEMA_TEXT]);
  const b = await runWeld(['--provider', 'offline', '--seed', '7', '-p', 'x', '--json-schema', SCHEMA_TEXT]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, b.stdout);
  const j = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT, '--output-format', 'stream-json']);
  assert.equal(j.code, 0, j.stderr);
  const last = parseLines(j.stdout).at(-1);
  assert.equal(last.subtype, 'success');
  assert.deepEqual(Object.keys(last.structured_result).sort(), Object.keys(SCHEMA.properties).sort());
});

test('conflicting flags: exit 1', async () => {
  const r = await runWeld(['--yolo', '--approval-mode', 'default', '-p', 'x']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'weld: Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.\n'
    + "weld: Run 'weld --help' for usage.\n");
});

for (const api of APIS) {
  test(`${api}: settings deny structured_output unless --bare; approval modes pick the tools`, async () => {
    const home = tempDir();
    const cwd = path.join(home, 'proj');
    fs.mkdirSync(path.join(cwd, '.weld'), { recursive: true });
    fs.writeFileSync(path.join(cwd, '.weld/settings.json'), JSON.stringify({ permissions: { deny: ['structured_output'] } }));
    const server = await startServer([{ text: 'plain' }, so(OK), so(OK)]);
    try {
      const denied = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env, home, cwd });
      assert.equal(denied.code, 1);
      const bare = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--bare',
        '--approval-mode', 'auto-edit'], { env, home, cwd });
      assert.equal(bare.code, 0, bare.stderr);
      const yolo = await runWeld([...providerArgs(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--bare',
        '--yolo'], { env, home, cwd });
      assert.equal(yolo.code, 0, yolo.stderr);
      const names = (q) => (q.body.tools || []).map((t) => (api === 'openai' ? t.function.name : t.name));
      const requests = await server.requests();
      assert.deepEqual(names(requests[0]), ['read_file', 'list_directory', 'glob', 'grep_search']);
      assert.deepEqual(names(requests[1]), ['read_file', 'list_directory', 'glob', 'grep_search', 'write_file', 'edit',
        'structured_output']);
      assert.deepEqual(names(requests[2]), ['read_file', 'list_directory', 'glob', 'grep_search', 'write_file', 'edit',
        'run_shell_command', 'structured_output']);
    } finally { await server.close(); }
  });

  test(`${api}: --continue resumes the newest session with its messages (payload redacted)`, async () => {
    const home = tempDir();
    const cwd = path.join(home, 'proj');
    fs.mkdirSync(cwd);
    const server = await startServer([
      so('{"summary":"first-secret"}', 'call_a'), so(OK, 'call_b'), so(OK, 'call_c'),
    ]);
    try {
      const first = await runWeld([...providerArgs(api, server.port), '-p', 'first prompt', '--json-schema', SCHEMA_TEXT,
        '--output-format', 'json'], { env, home, cwd });
      assert.equal(first.code, 0, first.stderr);
      const sessionId = JSON.parse(first.stdout).at(-1).session_id;
      const second = await runWeld([...providerArgs(api, server.port), '--continue', '-p', 'second prompt',
        '--json-schema', SCHEMA_TEXT, '--output-format', 'json'], { env, home, cwd });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(JSON.parse(second.stdout).at(-1).session_id, sessionId);
      const requests = await server.requests();
      const body = JSON.stringify(requests[2].body.messages);
      assert.ok(body.includes('first prompt') && body.includes('second prompt'), body);
      assert.ok(body.includes('structured_output payload (see stdout result)'), body);
      assert.ok(!body.includes('first-secret'), body);
      const missing = await runWeld([...providerArgs(api, server.port), '--resume', 'no-such-session', '-p', 'x'],
        { env, home, cwd });
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^weld: No session "no-such-session" for /);
    } finally { await server.close(); }
  });
}

test('hooks: PreToolUse exit 2 blocks write_file; hooks see raw structured_output arguments; --bare skips them', async () => {
  const home = tempDir();
  const cwd = path.join(home, 'proj');
  fs.mkdirSync(path.join(cwd, '.weld'), { recursive: true });
  const log = path.join(home, 'hook.log');
  fs.mkdirSync(path.join(home, '.weld'), { recursive: true });
  fs.writeFileSync(path.join(home, '.weld/settings.json'), JSON.stringify({ hooks: {
    PreToolUse: [
      { matcher: 'write_file', hooks: [{ type: 'command', command: "echo 'frozen by policy' >&2; exit 2" }] },
      { matcher: 'structured_output', hooks: [{ type: 'command', command: `cat >> '${log}'; echo >> '${log}'` }] },
    ],
  } }));
  const server = await startServer([
    { tool_calls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'x' }, id: 'call_w' }] },
    so(OK),
    { tool_calls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'x' }, id: 'call_w2' }] },
    so(OK),
  ]);
  try {
    const r = await runWeld([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--yolo'],
      { env, home, cwd });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.existsSync(path.join(cwd, 'a.txt')), false);
    const requests = await server.requests();
    const blocked = requests[1].body.messages.at(-1).content[0];
    assert.equal(blocked.tool_use_id, 'call_w');
    assert.equal(blocked.content, 'frozen by policy');
    assert.equal(blocked.is_error, true);
    const entry = JSON.parse(fs.readFileSync(log, 'utf8').split('\n')[0]);
    assert.equal(entry.hook_event_name, 'PreToolUse');
    assert.equal(entry.tool_name, 'structured_output');
    assert.deepEqual(entry.tool_input, JSON.parse(OK));
    const bare = await runWeld([...providerArgs('anthropic', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '--yolo',
      '--bare'], { env, home, cwd });
    assert.equal(bare.code, 0, bare.stderr);
    assert.equal(fs.existsSync(path.join(cwd, 'b.txt')), true);
  } finally { await server.close(); }
});
