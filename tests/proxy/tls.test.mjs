// An https:// upstream (TLS via Boost.Asio SSL + OpenSSL): relayed and welded
// requests over TLS; certificate verification on by default.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { postJson, startProxy, tmpdir } from './harness.mjs';

let server;
let port;

before(async () => {
  const dir = tmpdir();
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1',
    '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const request = JSON.parse(body || '{}');
      if (request.tools) {
        // A tagged request: answer the forced tool call as an OpenAI stream.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'router', arguments: '' } }] }));
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"action":"translate"}' } }] }));
        res.write(chunk({}, 'tool_calls'));
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echoed: request.model }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
});
after(() => server.close());

test('https upstream with --upstream-insecure: relayed and welded', async () => {
  const p = await startProxy(`https://127.0.0.1:${port}`, ['--upstream-insecure']);
  try {
    const plain = await postJson(`${p.url}/v1/chat/completions`, { model: 'plain' });
    assert.equal(plain.status, 200, plain.text);
    assert.deepEqual(plain.json, { echoed: 'plain' });
    const tagged = await postJson(`${p.url}/v1/chat/completions`, { model: 'm__schema=router', messages: [{ role: 'user', content: 'x' }] });
    assert.equal(tagged.status, 200, tagged.text);
    assert.equal(tagged.json.choices[0].message.content, '{"action":"translate"}');
  } finally {
    await p.stop();
  }
});

test('https upstream with a self-signed certificate is refused by default', async () => {
  const p = await startProxy(`https://127.0.0.1:${port}`);
  try {
    const r = await postJson(`${p.url}/v1/chat/completions`, { model: 'plain' });
    assert.equal(r.status, 502);
    assert.match(r.json.error.message, new RegExp(`^could not connect to the upstream 127\\.0\\.0\\.1:${port}: .*certificate verify failed`));
  } finally {
    await p.stop();
  }
});
