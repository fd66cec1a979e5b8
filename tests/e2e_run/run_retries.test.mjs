// What a run sends again and how it ends (docs/run.md "Retries",
// docs/protocols.md "End of stream" and "Errors and retries"), against the
// fake model server in the three wire protocols: one rule per status (501
// was retried four times, 409 retried then called final), an error page cut
// to one line, a stream that ends without its terminal event retried like a
// 5xx and then 75 (it was exit 1), a complete answer whose connection stays
// open used at once (it was thrown away after the idle timeout), a query in
// --base-url kept after the API path and never printed, and two JSON
// documents in prose never guessed between.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_KEY, SCHEMA_TEXT, runWeld, so, startServer, tempDir, toolResults } from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const OK = '{"summary":"fine","risk_level":"low"}';
const PROTOCOLS = ['openai', 'anthropic', 'openai-responses'];
const base = (api, port) => (api === 'anthropic' ? `http://127.0.0.1:${port}` : `http://127.0.0.1:${port}/v1`);
const args = (api, port) => ['--provider', api, '--base-url', base(api, port), '--model', 'fake-model'];
// Fast retries: the backoff starts at 0.5 s; two retries are enough to see them.
const RETRIES = ['--max-retries', '2'];

for (const [status, expected, attempts] of [[501, 1, 1], [505, 1, 1], [409, 1, 1], [400, 1, 1], [503, 75, 3], [408, 75, 3]]) {
  test(`HTTP ${status}: ${attempts === 1 ? 'not retried' : 'retried'}, exit ${expected}`, async () => {
    const server = await startServer([{ status }], { repeatLast: true });
    try {
      const r = await runWeld([...args('openai', server.port), ...RETRIES, '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'json'],
        { env });
      assert.equal(r.code, expected, r.stderr);
      assert.equal((await server.requests()).length, attempts);
      const envelope = JSON.parse(r.stdout).at(-1);
      assert.equal(envelope.api_error_status, status);
      assert.equal(envelope.subtype, 'error_api');
    } finally { await server.close(); }
  });
}

test('an HTML error page is one line: its title, never the page', async () => {
  const page = '<!DOCTYPE html>\n<html>\n<head>\n<title>502 Bad Gateway</title>\n</head>\n<body>\n' +
    '<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n';
  const server = await startServer([{ status: 502, raw_body: page, content_type: 'text/html' }], { repeatLast: true });
  try {
    const r = await runWeld([...args('openai', server.port), '--max-retries', '0', '-p', 'x', '--json-schema', SCHEMA_TEXT],
      { env });
    assert.equal(r.code, 75, r.stderr);
    assert.equal(r.stderr, 'weld: HTTP 502 Bad Gateway: an HTML page: 502 Bad Gateway ' +
      `(POST http://127.0.0.1:${server.port}/v1/chat/completions)\n`);
  } finally { await server.close(); }
});

for (const api of PROTOCOLS) {
  test(`${api}: a stream that ends without its terminal event is sent again; the next answer is taken`, async () => {
    const server = await startServer([{ ...so(OK), end_after: 3 }, so(OK)]);
    try {
      const r = await runWeld([...args(api, server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, OK + '\n');
      assert.equal((await server.requests()).length, 2);
    } finally { await server.close(); }
  });

  test(`${api}: a stream that keeps ending without its terminal event: exit 75 after the retries`, async () => {
    const server = await startServer([{ ...so(OK), end_after: 3 }], { repeatLast: true });
    try {
      const r = await runWeld([...args(api, server.port), ...RETRIES, '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'json'],
        { env });
      assert.equal(r.code, 75, r.stderr);
      assert.match(r.stderr, /^weld: the response stream ended early: .* after 3 attempts \(POST /);
      assert.equal(JSON.parse(r.stdout).at(-1).subtype, 'error_api');
      assert.equal((await server.requests()).length, 3);
    } finally { await server.close(); }
  });

  test(`${api}: a complete answer on a connection that never closes is the answer, at once`, async () => {
    const server = await startServer([{ ...so(OK), hold_open: true }]);
    try {
      const r = await runWeld([...args(api, server.port), '--idle-timeout', '30', '-p', 'x', '--json-schema', SCHEMA_TEXT],
        { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, OK + '\n');
      assert.ok(r.ms < 10000, `${r.ms} ms: the idle timeout was waited for`);
    } finally { await server.close(); }
  });
}

// Partial results start over when a cut stream is sent again: the consumer
// sees a new attempt number, not the first attempt's text continued.
test('--include-partial-messages: a resent stream is a new attempt', async () => {
  const server = await startServer([{ ...so(OK), end_after: 9, fragment_size: 3 }, so(OK)]);
  try {
    const r = await runWeld([...args('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'stream-json',
      '--include-partial-messages'], { env });
    assert.equal(r.code, 0, r.stderr);
    const partials = r.stdout.trim().split('\n').map((l) => JSON.parse(l)).filter((m) => m.type === 'partial_result');
    const attempts = [...new Set(partials.map((p) => p.attempt))];
    assert.deepEqual(attempts, [1, 2], JSON.stringify(partials));
    assert.deepEqual(partials.at(-1).structured_partial, JSON.parse(OK));
  } finally { await server.close(); }
});

// Some gateways take the key in the query: the API path went after it
// (…/v1?key=k/chat/completions), and the query was printed in errors.
test('a query in --base-url stays after the API path and is never printed', async () => {
  const server = await startServer([{ status: 400 }]);
  try {
    const url = `http://127.0.0.1:${server.port}/v1?api-key=gw-Q9x7-secret`;
    const r = await runWeld(['--provider', 'openai', '--base-url', url, '--model', 'fake-model', '-p', 'x',
      '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 1, r.stderr);
    const [request] = await server.requests();
    assert.equal(request.path, '/v1/chat/completions?api-key=gw-Q9x7-secret');
    assert.equal(r.stderr, 'weld: HTTP 400 Bad Request: fake error 400 (invalid_request_error) ' +
      `(POST http://127.0.0.1:${server.port}/v1/chat/completions?…)\n`);
    assert.ok(!r.stderr.includes('gw-Q9x7-secret'));
  } finally { await server.close(); }
  // The models list too (no --model).
  const listing = await startServer([so(OK)]);
  try {
    const r = await runWeld(['--provider', 'openai', '--base-url', `http://127.0.0.1:${listing.port}/v1/?k=gw-Q9x7-secret`,
      '-p', 'x', '--json-schema', SCHEMA_TEXT], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((await listing.allRequests()).map((q) => q.path),
      ['/v1/models?k=gw-Q9x7-secret', '/v1/chat/completions?k=gw-Q9x7-secret']);
    assert.ok(!r.stderr.includes('gw-Q9x7-secret'), r.stderr);
  } finally { await listing.close(); }
});

// A model that corrected itself in prose (`{…36} … {…99}`): the first value
// was taken. With two documents weld does not guess: the call is invalid
// and goes back to the model, which answers with one.
test('two JSON documents in prose are no answer: the model is asked again', async () => {
  const twice = 'Here: {"summary":"old","risk_level":"low"} — no, correction: {"summary":"new","risk_level":"high"}';
  const server = await startServer([so(twice), so('{"summary":"new","risk_level":"high"}')]);
  try {
    const r = await runWeld([...args('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT, '-o', 'json'], { env });
    assert.equal(r.code, 0, r.stderr);
    const envelope = JSON.parse(r.stdout).at(-1);
    assert.deepEqual(envelope.structured_result, { summary: 'new', risk_level: 'high' });
    assert.equal(envelope.attempts, 2);
    const second = (await server.requests())[1];
    const told = second.body.messages.find((m) => m.role === 'tool').content;
    assert.match(told, /more than one JSON object \(at line 1 column 7 and at line 1 column \d+\); weld does not guess/);
  } finally { await server.close(); }
});

// A Retry-After date past 2262 overflowed the clock and was read as "now":
// the run sent again at once. It is the cap (60 s) that is waited: within a
// 2-second wall-time limit nothing is sent again.
test('a Retry-After date in the year 2300 waits the cap, never nothing', async () => {
  const server = await startServer([{ status: 429, headers: { 'retry-after': 'Sat, 01 Jan 2300 00:00:00 GMT' } }, so(OK)]);
  try {
    const started = Date.now();
    const r = await runWeld([...args('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT,
      '--max-wall-time', '2'], { env });
    assert.equal(r.code, 55, r.stderr);
    assert.equal((await server.requests()).length, 1);
    assert.ok(Date.now() - started >= 1900, 'the run waited');
  } finally { await server.close(); }
});

// The built-in grep tool said "1 file(s) larger than 4 MiB not searched"
// without naming them; the model could not read them another way.
test('grep_search names the files too large to search', async () => {
  const work = tempDir('weld-ws-');
  fs.writeFileSync(path.join(work, 'big.log'), 'NEEDLE\n' + 'x'.repeat(5 * 1024 * 1024));
  fs.writeFileSync(path.join(work, 'small.txt'), 'NEEDLE here\n');
  const call = { tool_calls: [{ name: 'grep_search', arguments: JSON.stringify({ pattern: 'NEEDLE' }), id: 'g1' }] };
  const server = await startServer([call, so(OK)]);
  try {
    const r = await runWeld([...args('openai', server.port), '-p', 'x', '--json-schema', SCHEMA_TEXT], { env, cwd: work });
    assert.equal(r.code, 0, r.stderr);
    const [result] = toolResults((await server.requests())[1], 'openai');
    assert.match(result.content, /small\.txt:1: ?NEEDLE here/);
    assert.match(result.content, /\[1 file\(s\) larger than 4 MiB not searched: big\.log; read_file reads them in parts\]/);
  } finally { await server.close(); }
});
