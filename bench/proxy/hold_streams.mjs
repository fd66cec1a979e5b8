// Opens N concurrent streaming requests to URL and waits until every one got
// its first bytes; prints {"open":N,"failed":F,"seconds":S}, then holds them
// until stdin closes or HOLD_SECONDS pass.
import http from 'node:http';

const [url, countText, model] = process.argv.slice(2);
const count = Number(countText || 5000);
const target = new URL(url);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
// HISTORY=N: N earlier turns of 500 characters before the question (a coding
// agent's conversation), to see what long requests cost while they are open.
const turns = [];
for (let i = 0; i < Number(process.env.HISTORY || 0); i++) {
  turns.push({ role: i % 2 ? 'assistant' : 'user', content: 'The customer wrote about an order and a refund. '.repeat(11).slice(0, 500) });
}
const body = JSON.stringify({ model: model || 'bench', stream: true, max_tokens: 10, messages: [...turns, { role: 'user', content: 'hold' }] });
let open = 0;
let failed = 0;
const started = Date.now();
const requests = [];
await new Promise((resolve) => {
  const done = () => { if (open + failed === count) resolve(); };
  for (let i = 0; i < count; i++) {
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.once('data', () => { open++; done(); });
      res.on('error', () => {});
    });
    req.on('error', () => { failed++; done(); });
    req.end(body);
    requests.push(req);
  }
});
process.stdout.write(JSON.stringify({ open, failed, seconds: (Date.now() - started) / 1000 }) + '\n');
await new Promise((resolve) => setTimeout(resolve, Number(process.env.HOLD_SECONDS || 5) * 1000));
for (const req of requests) req.destroy();
process.exit(0);
