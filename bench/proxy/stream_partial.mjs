// What `"stream_partial": true` costs the proxy (docs/proxy.md "Partial
// answers"): the same streaming tagged requests through one `weld proxy`,
// to an agent with stream_partial and to the same agent without, alternated
// in the same run. The upstream is the fake model server streaming a tool
// call in 4-character fragments (about one token each, the case where the
// proxy does the most per byte). Reports weld's CPU time per request (from
// /proc/<pid>/stat) and the bytes the client received, and the ratios.
// Usage: node bench/proxy/stream_partial.mjs path/to/weld [requests] [concurrency] [rounds]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [weld, requestsText, concurrencyText, roundsText] = process.argv.slice(2);
const requests = Number(requestsText || 2000);
const concurrency = Number(concurrencyText || 8);
const rounds = Number(roundsText || 3);
if (!weld) throw new Error('usage: stream_partial.mjs path/to/weld [requests] [concurrency] [rounds]');

const schema = {
  type: 'object',
  properties: {
    options: { type: 'array', items: { type: 'object', properties: { label: { type: 'string' }, confidence: { type: 'number' }, reason: { type: 'string' } } } },
    summary: { type: 'string' },
  },
  required: ['options', 'summary'],
};
// About 1.2 KB of arguments, as an advisor answer.
const reason = 'It keeps matching linear in the input and has no catastrophic backtracking on user patterns.';
const args = {
  options: [0, 1, 2, 3, 4, 5].map((i) => ({ label: `option ${i}`, confidence: 0.5 + i / 20, reason })),
  summary: 'Use RE2 for user-supplied patterns; keep std::regex for the fixed internal ones.',
};

function lineOf(stream, predicate) {
  const rl = readline.createInterface({ input: stream });
  return new Promise((resolve) => rl.on('line', (line) => { if (predicate(line)) resolve(line); }));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-bench-partial-'));
fs.writeFileSync(path.join(dir, 'script.json'), JSON.stringify({
  responses: [{ tool_calls: [{ name: 'on', arguments: args }], fragment_size: 4 }],
  repeat_last: true,
}));
fs.writeFileSync(path.join(dir, 'agents.json'), JSON.stringify({
  on: { input_schema: schema, stream_partial: true },
  off: { input_schema: schema },
}));
const fake = spawn(process.execPath, [path.join(here, '../../tests/fake_model/server.js'), '--script',
  path.join(dir, 'script.json'), '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const upstream = JSON.parse(await lineOf(fake.stdout, (l) => l.startsWith('{'))).port;
const proxy = spawn(weld, ['proxy', '--listen', '127.0.0.1:0', '--upstream', `http://127.0.0.1:${upstream}`,
  '--agents', path.join(dir, 'agents.json'), '--no-access-log', '--threads', '1'], { stdio: ['ignore', 'ignore', 'pipe'] });
const port = JSON.parse(await lineOf(proxy.stderr, (l) => l.includes('"listening"'))).port;

// weld's user+system CPU seconds so far.
function cpuSeconds() {
  const fields = fs.readFileSync(`/proc/${proxy.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;  // utime, stime in clock ticks (USER_HZ 100)
}

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
function one(model) {
  const body = JSON.stringify({ model, stream: true, max_tokens: 400, messages: [{ role: 'user', content: 'Which regex engine?' }] });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: '/v1/messages', method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let bytes = 0;
      let text = '';
      res.on('data', (c) => { bytes += c.length; text += c; });
      res.on('end', () => (text.includes('message_stop') ? resolve(bytes) : reject(new Error(text.slice(-300)))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function run(model) {
  let next = 0;
  let bytes = 0;
  const cpu0 = cpuSeconds();
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < requests) {
      next++;
      const received = await one(model);
      bytes += received;
    }
  }));
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  return { cpu_us_per_request: ((cpuSeconds() - cpu0) * 1e6) / requests, wall_s: wall, client_bytes_per_request: bytes / requests };
}

// The upstream answers with the tool of the agent being measured.
async function setTool(name) {
  await fetch(`http://127.0.0.1:${upstream}/__reset`, { method: 'POST', body: JSON.stringify({
    responses: [{ tool_calls: [{ name, arguments: args }], fragment_size: 4 }], repeat_last: true,
  }) });
}

const results = { on: [], off: [] };
try {
  for (const warm of ['on', 'off']) { await setTool(warm); await run(`q__schema=${warm}`); }
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 ? ['off', 'on'] : ['on', 'off']) {
      await setTool(which);
      results[which].push(await run(`q__schema=${which}`));
    }
  }
} finally {
  proxy.kill('SIGTERM');
  fake.kill('SIGTERM');
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = {};
for (const which of ['on', 'off']) {
  summary[which] = {
    cpu_us_per_request: Number(median(results[which].map((x) => x.cpu_us_per_request)).toFixed(1)),
    client_bytes_per_request: Math.round(median(results[which].map((x) => x.client_bytes_per_request))),
    requests_per_s: Number((requests / median(results[which].map((x) => x.wall_s))).toFixed(0)),
  };
}
console.log(JSON.stringify({ requests, concurrency, rounds, argument_bytes: JSON.stringify(args).length, ...summary,
  cpu_ratio_on_off: Number((summary.on.cpu_us_per_request / summary.off.cpu_us_per_request).toFixed(2)),
  bytes_ratio_on_off: Number((summary.on.client_bytes_per_request / summary.off.client_bytes_per_request).toFixed(2)) }));
