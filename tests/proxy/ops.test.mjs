// Operating weld proxy: health, readiness, metrics, registry reload (file
// change and SIGHUP, good and bad), invalid registry at start, graceful
// shutdown, `weld agents check` and `weld agents export` (docs/proxy.md: "Endpoints", "The registry", "Running it under systemd").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { postJson, runWeld, sleep, sourceDir, startFake, startProxy, startRawUpstream, tmpdir, until } from './harness.mjs';

const colorAgent = {
  color: { description: 'Pick a color', input_schema: { type: 'object', properties: { color: { enum: ['red', 'blue'] } }, required: ['color'] } },
};
const ask = (model) => ({ model, max_tokens: 20, messages: [{ role: 'user', content: 'x' }] });

test('healthz, readyz and metrics', async () => {
  const fake = await startFake({ responses: [
    { tool_calls: [{ name: 'router', arguments: { action: 'refund' } }] },
    { tool_calls: [{ name: 'advisor', arguments: { options: [{ label: 'a', confidence: 3, reason: 'r' }], summary: 's' } }] },
    { tool_calls: [{ name: 'router', arguments: { action: 'x' } }] },
    { tool_calls: [{ name: 'router', arguments: { action: 'y' } }] },
    { tool_calls: [{ name: 'router', arguments: { action: 'z' } }] },
    { text: 'plain' },
  ] });
  const p = await startProxy(fake.url);
  try {
    const health = await fetch(`${p.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const ready = await fetch(`${p.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready', upstream_status: 200 });
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m__schema=router'))).status, 200);
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m__schema=advisor'))).status, 200);
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m__schema=router'))).status, 502);
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m'))).status, 200);
    const metrics = await fetch(`${p.url}/metrics`);
    assert.match(metrics.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    for (const line of [
      'weld_proxy_requests_total{agent="router",outcome="ok"} 1',
      'weld_proxy_requests_total{agent="advisor",outcome="ok"} 1',
      'weld_proxy_requests_total{agent="router",outcome="invalid"} 1',
      'weld_proxy_requests_total{agent="",outcome="passthrough"} 1',
      'weld_proxy_validation_failures_total{agent="router"} 3',
      'weld_proxy_retries_total{agent="router"} 2',
      'weld_proxy_repairs_total{agent="advisor"} 1',
      'weld_proxy_upstream_latency_seconds_count 4',
      'weld_proxy_added_latency_seconds_count 4',
    ]) {
      assert.ok(text.split('\n').includes(line), `missing "${line}" in\n${text}`);
    }
    assert.match(text, /# TYPE weld_proxy_upstream_latency_seconds histogram/);
  } finally {
    await p.stop();
    fake.stop();
  }
});

// Ready means the upstream serves: a 2xx to its models list (or the ready
// path). An upstream that answers 404 to everything (a wrong --upstream) or
// 401 (a missing key) was reported ready.
test('readyz is ready only on a 2xx from the ready path', async () => {
  let status = 404;
  const raw = await startRawUpstream((socket) => {
    const body = JSON.stringify({ error: { message: `status ${status}` } });
    socket.write(`HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
  });
  const p = await startProxy(raw.url);
  try {
    for (const code of [404, 401, 500]) {
      status = code;
      const ready = await fetch(`${p.url}/readyz`);
      assert.equal(ready.status, 503, `upstream ${code}`);
      assert.deepEqual(await ready.json(),
        { status: 'not ready', upstream_status: code, error: `upstream answered HTTP ${code} to GET /v1/models` });
    }
    status = 200;
    const ready = await fetch(`${p.url}/readyz`);
    assert.equal(ready.status, 200);
    assert.deepEqual(await ready.json(), { status: 'ready', upstream_status: 200 });
    assert.match(raw.state.requests.at(-1).head, /^GET \/v1\/models HTTP\/1\.1\r\n/);
  } finally {
    await p.stop();
    raw.stop();
  }
  // --ready-path: the upstream's own health route.
  const fake = await startFake({ responses: [] });
  const q = await startProxy(fake.url, ['--ready-path', '/nothing-here']);
  try {
    assert.equal((await fetch(`${q.url}/readyz`)).status, 503);
  } finally {
    await q.stop();
    fake.stop();
  }
});

// The base URL as users give it to OPENAI_BASE_URL: it used to forward to
// /v1/v1/chat/completions.
test('--upstream with /v1 is the base URL as users type it: never /v1/v1', async () => {
  const fake = await startFake({ responses: [{ tool_calls: [{ name: 'router', arguments: { action: 'refund' } }] }, { text: 'plain' }] });
  const p = await startProxy(`${fake.url}/v1`);
  try {
    const ready = await fetch(`${p.url}/readyz`);
    assert.equal(ready.status, 200);
    const welded = await postJson(`${p.url}/v1/chat/completions`, { model: 'm__schema=router', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(welded.status, 200, JSON.stringify(welded.json));
    const plain = await postJson(`${p.url}/v1/chat/completions`, { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(plain.status, 200);
    const paths = (await fake.requests()).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(paths, ['GET /v1/models', 'POST /v1/chat/completions', 'POST /v1/chat/completions']);
  } finally {
    await p.stop();
    fake.stop();
  }
  // A prefix before /v1 is kept (a gateway's route).
  const raw = await startRawUpstream((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}'));
  const q = await startProxy(`${raw.url}/gateway/openai/v1/`);
  try {
    await fetch(`${q.url}/v1/models`);
    await fetch(`${q.url}/other`);
    assert.match(raw.state.requests[0].head, /^GET \/gateway\/openai\/v1\/models HTTP\/1\.1/);
    assert.match(raw.state.requests[1].head, /^GET \/gateway\/openai\/v1\/other HTTP\/1\.1/);
  } finally {
    await q.stop();
    raw.stop();
  }
});

// `--listen :PORT` binds every interface; the log said ":PORT".
test('--listen logs the address actually bound', async () => {
  const fake = await startFake({ responses: [] });
  const p = await startProxy(fake.url, [], { listen: ':0' });
  try {
    assert.equal(p.listening.address, `0.0.0.0:${p.port}`);
    assert.equal((await fetch(`http://127.0.0.1:${p.port}/healthz`)).status, 200);
  } finally {
    await p.stop();
  }
  const q = await startProxy(fake.url, [], { listen: '[::1]:0' }).catch(() => null);  // no IPv6 on some machines
  try {
    if (q) assert.equal(q.listening.address, `[::1]:${q.port}`);
  } finally {
    if (q) await q.stop();
    fake.stop();
  }
});

test('registry reload on file change and SIGHUP; an invalid file is refused and the old kept', async () => {
  const dir = tmpdir();
  const file = path.join(dir, 'agents.json');
  fs.writeFileSync(file, fs.readFileSync(path.join(sourceDir, 'config/agents.json')));
  const fake = await startFake({ responses: [{ tool_calls: [{ name: 'color', arguments: { color: 'red' } }] }], repeat_last: true });
  const p = await startProxy(fake.url, ['--agents', file, '--reload-poll', '0.1']);
  try {
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m__schema=color'))).status, 400);
    // Good change: picked up by polling.
    fs.writeFileSync(file, JSON.stringify(colorAgent));
    await until(() => p.logs.some((l) => l.includes('"event":"registry_reload","ok":true')), 5000, 'the reload');
    const r = await postJson(`${p.url}/v1/messages`, ask('m__schema=color'));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.content[0].text, '{"color":"red"}');
    const gone = await postJson(`${p.url}/v1/messages`, ask('m__schema=router'));
    assert.equal(gone.json.error.message, 'unknown agent "router"; known agents: color');
    // Bad change: refused, logged with the agent name, old registry kept.
    fs.writeFileSync(file, JSON.stringify({ color: colorAgent.color, broken: { input_schema: { type: 'object', properties: { a: { type: 'strnig' } } } } }));
    await until(() => p.logs.some((l) => l.includes('"event":"registry_reload","ok":false')), 5000, 'the refused reload');
    const refused = p.logs.find((l) => l.includes('"ok":false'));
    assert.match(JSON.parse(refused).error, /agent \\?"broken\\?": input_schema is not a valid JSON Schema/);
    assert.equal((await postJson(`${p.url}/v1/messages`, ask('m__schema=color'))).status, 200);
    // SIGHUP reloads too.
    const reloads = p.logs.filter((l) => l.includes('"event":"registry_reload"')).length;
    fs.writeFileSync(file, JSON.stringify({ hue: colorAgent.color }));
    p.child.kill('SIGHUP');
    await until(() => p.logs.filter((l) => l.includes('"event":"registry_reload"')).length > reloads, 5000, 'SIGHUP reload');
    const hue = await postJson(`${p.url}/v1/messages`, ask('m__schema=color'));
    assert.equal(hue.json.error.message, 'unknown agent "color"; known agents: hue');
    const metrics = await (await fetch(`${p.url}/metrics`)).text();
    assert.match(metrics, /weld_proxy_registry_reloads_total\{result="refused"\} 1/);
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('an invalid registry stops the start, naming the agent (exit 52)', async () => {
  const dir = tmpdir();
  const file = path.join(dir, 'agents.json');
  fs.writeFileSync(file, JSON.stringify({ ok: colorAgent.color, bad: { input_schema: { type: 'object', propertees: {} } } }));
  const r = await runWeld(['proxy', '--listen', '127.0.0.1:0', '--agents', file]);
  assert.equal(r.code, 52);
  const error = JSON.parse(r.stderr.trim().split('\n').at(-1));
  assert.equal(error.event, 'error');
  assert.match(error.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: agent "bad": input_schema is not a valid JSON Schema: .*propertees`));
});

test('an agent whose input_schema is not a schema is told so first, not what its root accepts', async () => {
  const dir = tmpdir();
  const file = path.join(dir, 'agents.json');
  fs.writeFileSync(file, JSON.stringify({ bad: { input_schema: { type: 'objct' } } }));
  const r = await runWeld(['proxy', '--listen', '127.0.0.1:0', '--agents', file]);
  assert.equal(r.code, 52);
  const error = JSON.parse(r.stderr.trim().split('\n').at(-1));
  assert.match(error.message, /agent "bad": input_schema is not a valid JSON Schema: "type" must be equal to one of the allowed values: .* at \/type$/);
});

test('a port already in use stops the start, naming the address (exit 1)', async () => {
  // The workers' listeners share the port through SO_REUSEPORT, which would
  // let a second proxy share it too; weld refuses instead of splitting the
  // traffic between two registries.
  const fake = await startFake({ responses: [] });
  const p = await startProxy(fake.url);
  try {
    const r = await runWeld(['proxy', '--listen', `127.0.0.1:${p.port}`, '--upstream', fake.url, '--threads', '2']);
    assert.equal(r.code, 1);
    const error = JSON.parse(r.stderr.trim().split('\n').at(-1));
    assert.equal(error.code, 'listen');
    assert.equal(error.message, `cannot listen on 127.0.0.1:${p.port}: Address already in use`);
    assert.equal((await fetch(`${p.url}/healthz`)).status, 200);
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('--listen takes a host name (localhost:0)', async () => {
  const fake = await startFake({ responses: [] });
  const p = await startProxy(fake.url, [], { listen: 'localhost:0' });
  try {
    assert.equal(p.listening.address, `127.0.0.1:${p.port}`);  // the address bound, not the name
    assert.ok(p.port > 0);
    assert.equal((await fetch(`http://127.0.0.1:${p.port}/healthz`)).status, 200);
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('SIGTERM: stop accepting, finish the request in flight, exit 0', async () => {
  const fake = await startFake({ responses: [{ tool_calls: [{ name: 'router', arguments: { action: 'search' } }], delay_ms: 1200 }] });
  const p = await startProxy(fake.url);
  try {
    const inflight = postJson(`${p.url}/v1/messages`, ask('m__schema=router'));
    await until(async () => (await fake.requests()).length === 1, 5000, 'the upstream request');
    p.child.kill('SIGTERM');
    await sleep(200);
    await assert.rejects(fetch(`${p.url}/healthz`, { signal: AbortSignal.timeout(2000) }));
    const r = await inflight;
    assert.equal(r.status, 200);
    assert.equal(r.json.content[0].text, '{"action":"search"}');
    assert.equal(await p.exited, 0);
    assert.ok(p.logs.some((l) => l.includes('"event":"shutdown","signal":"SIGTERM"')));
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('SIGTERM: keep-alive connections waiting for their next request are closed at once, not held until --shutdown-timeout', async () => {
  const fake = await startFake({ responses: [] });
  // One worker with more connections than Worker::kBusyConnections (8): it
  // reads each next request after its queued work, a suspension between
  // the shutdown's check and the read the shutdown cancels.
  const p = await startProxy(fake.url, ['--shutdown-timeout', '60', '--threads', '1']);
  try {
    const connections = await Promise.all(Array.from({ length: 12 }, async () => {
      const socket = net.connect(p.port, '127.0.0.1');
      const connection = { socket, received: '', closed: new Promise((resolve) => socket.on('close', resolve)) };
      socket.on('data', (chunk) => { connection.received += chunk; });
      socket.on('error', () => {});
      socket.write('GET /healthz HTTP/1.1\r\nHost: weld\r\n\r\n');
      await until(() => /^HTTP\/1\.1 200 /.test(connection.received) && connection.received.includes('\r\n\r\n'), 5000,
        'an answer');
      assert.ok(!/connection: close/i.test(connection.received), connection.received);
      return connection;
    }));
    await sleep(100);
    p.child.kill('SIGTERM');
    // Well before the 60 s shutdown timeout: a shutdown that missed an idle
    // connection would wait that long for it.
    const everything = Promise.all([...connections.map((c) => c.closed), p.exited]);
    const outcome = await Promise.race([everything, sleep(15000).then(() => 'held')]);
    assert.notEqual(outcome, 'held', 'an idle connection held up the shutdown');
    assert.equal(await p.exited, 0);
  } finally {
    await p.stop();
    fake.stop();
  }
});

test('weld agents check', async () => {
  const ok = await runWeld(['agents', 'check', path.join(sourceDir, 'config/agents.json')]);
  assert.equal(ok.code, 0);
  assert.equal(ok.stdout, 'ok: 4 agents (router, advisor, ticket, brief)\n');
  const dir = tmpdir();
  const file = path.join(dir, 'a.json');
  fs.writeFileSync(file, '{"x":{"input_schema":{"type":"object","required":"x"}}}');
  const bad = await runWeld(['agents', 'check', '--json', file]);
  assert.equal(bad.code, 52);
  const out = JSON.parse(bad.stdout);
  assert.equal(out.ok, false);
  assert.equal(out.agent, 'x');
  assert.match(out.error, /agent "x": input_schema is not a valid JSON Schema/);
});

test('weld agents export --claude-code writes sub-agents and a skill', async () => {
  const dir = tmpdir();
  const r = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'qwen3-27b']);
  assert.equal(r.code, 0, r.stderr);
  const names = ['router', 'advisor', 'ticket', 'brief'];
  for (const name of names) {
    const text = fs.readFileSync(path.join(dir, 'agents', `${name}.md`), 'utf8');
    const front = text.split('---\n')[1];
    assert.match(front, new RegExp(`^name: ${name}$`, 'm'));
    assert.match(front, new RegExp(`^model: "qwen3-27b__schema=${name}"$`, 'm'));
    assert.match(front, /^description: ".+"$/m);
  }
  const router = fs.readFileSync(path.join(dir, 'agents', 'router.md'), 'utf8');
  assert.ok(router.includes('{"action": "search"|"calculator"|"translate"|"refund"}'), router);
  const skill = fs.readFileSync(path.join(dir, 'skills', 'structured-dispatch', 'SKILL.md'), 'utf8');
  assert.match(skill, /^---\n# Written by `weld agents export`[^\n]*\nname: structured-dispatch\ndescription: ".+"\n---\n/);
  for (const name of names) assert.ok(skill.includes(`| \`${name}\` |`), skill);
  assert.ok(skill.includes('`{"options": [{"label": string, "confidence": number 0..1, "reason": string (at most 80 chars)}] (1-3 items), "summary": string (at most 120 chars)}`'), skill);
  // Claude Code's sub-agent tool is called Agent today (Task before 2.1).
  assert.ok(skill.includes('Use the Agent tool with `subagent_type`'), skill);
  assert.ok(!/\bTask tool\b/.test(skill), skill);
});

// A hand-written sub-agent was overwritten without a word.
test('weld agents export replaces only the files it wrote, unless --force', async () => {
  const dir = tmpdir();
  const mine = path.join(dir, 'agents', 'router.md');
  fs.mkdirSync(path.dirname(mine), { recursive: true });
  fs.writeFileSync(mine, '---\nname: router\n---\nmy own router\n');
  const r = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'm']);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `weld agents export: ${mine} exists and was not written by weld agents export; not replaced (pass --force to replace it).\n`);
  assert.equal(fs.readFileSync(mine, 'utf8'), '---\nname: router\n---\nmy own router\n');
  assert.equal(fs.existsSync(path.join(dir, 'agents', 'advisor.md')), false, 'a refusal writes nothing');
  const forced = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'm', '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.match(fs.readFileSync(mine, 'utf8'), /^model: "m__schema=router"$/m);
  // Its own files it replaces without --force (an export is re-run after each registry change).
  const again = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'm2']);
  assert.equal(again.code, 0, again.stderr);
  assert.match(fs.readFileSync(mine, 'utf8'), /^model: "m2__schema=router"$/m);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'agents')).sort(), ['advisor.md', 'brief.md', 'router.md', 'ticket.md']);
});

// A link planted in the target folder led the export to write outside it.
test('weld agents export never writes through a link out of the target folder, even with --force', async () => {
  const outside = tmpdir();
  const victim = path.join(outside, 'victim.md');
  fs.writeFileSync(victim, 'precious\n');
  for (const plant of [
    (dir) => { fs.mkdirSync(path.join(dir, 'agents')); fs.symlinkSync(victim, path.join(dir, 'agents', 'router.md')); },
    (dir) => { fs.mkdirSync(path.join(dir, 'agents')); fs.symlinkSync(path.join(outside, 'new.md'), path.join(dir, 'agents', 'advisor.md')); },
    (dir) => { fs.symlinkSync(outside, path.join(dir, 'agents')); },
    (dir) => { fs.mkdirSync(path.join(dir, 'skills')); fs.symlinkSync('../../' + path.basename(outside), path.join(dir, 'skills', 'structured-dispatch')); },
  ]) {
    const dir = tmpdir();
    plant(dir);
    for (const force of [[], ['--force']]) {
      const r = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'm', ...force]);
      assert.equal(r.code, 1, r.stdout);
      assert.match(r.stderr, /^weld agents export: .* leads out of .* through a symbolic link; nothing is written outside the target folder\.\n$/);
      assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
      assert.deepEqual(fs.readdirSync(outside).sort(), ['victim.md']);
    }
  }
  // A link that stays inside the folder is followed.
  const dir = tmpdir();
  fs.mkdirSync(path.join(dir, 'agents'));
  fs.symlinkSync('elsewhere.md', path.join(dir, 'agents', 'router.md'));
  const r = await runWeld(['agents', 'export', '--claude-code', dir, '--base-model', 'm']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(fs.readFileSync(path.join(dir, 'agents', 'elsewhere.md'), 'utf8'), /^model: "m__schema=router"$/m);
  // Atomic writes: no temporary file is left behind.
  assert.deepEqual(fs.readdirSync(path.join(dir, 'agents')).filter((n) => n.startsWith('.')), []);
});

// The skill told `weld agents export --claude-code DIR`, which fails without
// a base model: the commands it names are run here as written.
test('the SKILL.md weld agents export writes names commands that work', async () => {
  const dir = tmpdir();
  const registry = path.join(dir, 'agents.json');
  fs.copyFileSync(path.join(sourceDir, 'config/agents.json'), registry);
  const out = path.join(dir, '.claude');
  const r = await runWeld(['agents', 'export', '--claude-code', out, '--agents', registry, '--base-model', 'qwen3-8b']);
  assert.equal(r.code, 0, r.stderr);
  const skill = fs.readFileSync(path.join(out, 'skills', 'structured-dispatch', 'SKILL.md'), 'utf8');
  const block = /```sh\n([^`]*)```/.exec(skill);
  assert.ok(block, skill);
  const commands = block[1].trim().split('\n');
  assert.equal(commands.length, 2);
  assert.equal(commands[1], `weld agents export --claude-code ${out} --agents ${registry} --base-model qwen3-8b`);
  for (const command of commands) {
    const words = command.split(' ');
    assert.equal(words[0], 'weld');
    const run = await runWeld(words.slice(1), { env: { PATH: process.env.PATH } });
    assert.equal(run.code, 0, `${command}: ${run.stderr}`);
  }
});

test('weld agents export without --base-model or ANTHROPIC_MODEL refuses instead of writing a guess', async () => {
  const dir = tmpdir();
  const r = await runWeld(['agents', 'export', '--claude-code', dir], { env: { PATH: process.env.PATH } });
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^weld agents export: no base model: pass --base-model MODEL .* or set ANTHROPIC_MODEL\.\n/);
  assert.equal(fs.existsSync(path.join(dir, 'agents')), false, 'nothing written');
  const fromEnv = await runWeld(['agents', 'export', '--claude-code', dir], { env: { PATH: process.env.PATH, ANTHROPIC_MODEL: 'qwen3-8b' } });
  assert.equal(fromEnv.code, 0, fromEnv.stderr);
  assert.match(fs.readFileSync(path.join(dir, 'agents', 'router.md'), 'utf8'), /^model: "qwen3-8b__schema=router"$/m);
});

test('--pin-threads pins each worker thread to one CPU, in turn; without it nothing is pinned', async () => {
  // CPUs as a list ("0-3,6" -> [0,1,2,3,6]) from /proc's Cpus_allowed_list.
  const cpusOf = (status) => status.match(/^Cpus_allowed_list:\s*(.*)$/m)[1].split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
  });
  const tasks = (pid) => fs.readdirSync(`/proc/${pid}/task`).map((tid) => cpusOf(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8')));
  const allowed = cpusOf(fs.readFileSync('/proc/self/status', 'utf8'));
  const fake = await startFake({ responses: [] });
  const pinned = await startProxy(fake.url, ['--threads', '3', '--pin-threads']);
  const plain = await startProxy(fake.url, ['--threads', '3']);
  try {
    // "listening" is logged before the workers start: wait for them (a few
    // seconds at most) rather than read /proc before they exist.
    const pinnedCpus = () => tasks(pinned.child.pid).filter((cpus) => cpus.length === 1).map((cpus) => cpus[0]);
    let single = pinnedCpus();
    for (let waited = 0; allowed.length > 1 && single.length < 3 && waited < 5000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      single = pinnedCpus();
    }
    if (allowed.length > 1) {
      // Three workers on the allowed CPUs in order, cycling; the other threads keep the whole set.
      assert.deepEqual(single.sort(), [0, 1, 2].map((i) => allowed[i % allowed.length]).sort());
      assert.ok(tasks(plain.child.pid).every((cpus) => cpus.length === allowed.length));
    }
    // Pinned or not, it serves.
    assert.equal((await fetch(`${pinned.url}/healthz`)).status, 200);
  } finally {
    await pinned.stop();
    await plain.stop();
    fake.stop();
  }
});
