// Resuming a session (docs/run.md, "Sessions and privacy"): by default the
// transcript redacts the answers, so `--continue` gave the model a
// placeholder as its own previous answer and "refine your previous answer"
// could not work; `--keep-answers` (or settings "keepAnswers") keeps them in
// the transcript (0600) so a resumed run gives the model what it answered.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { API_KEY, SCHEMA_TEXT, providerArgs, runWeld, so, startServer, tempDir, toolResults, walkFiles } from './lib.mjs';

const env = { WELD_API_KEY: API_KEY };
const FIRST = '{"summary":"first-answer-7Q","risk_level":"medium"}';
const REFINED = '{"summary":"refined","risk_level":"low"}';
const PLACEHOLDER = '{"__redacted":"structured_output payload (see stdout result)"}';

// The structured_output call of the first run, as the resumed run sent it.
function previousCall(request, api) {
  for (const m of request.body.messages) {
    if (api === 'openai' && m.role === 'assistant' && m.tool_calls) return m.tool_calls[0].function.arguments;
    if (api === 'anthropic' && m.role === 'assistant' && Array.isArray(m.content)) {
      const use = m.content.find((b) => b.type === 'tool_use');
      if (use) return JSON.stringify(use.input);
    }
  }
  return null;
}

for (const api of ['openai', 'anthropic']) {
  for (const how of ['flag', 'settings']) {
    test(`${api}: --continue after a run that kept its answers (${how}) gives the model what it answered`, async () => {
      const home = tempDir('weld-home-');
      const cwd = path.join(home, 'proj');
      fs.mkdirSync(cwd);
      const keep = how === 'flag' ? ['--keep-answers'] : [];
      if (how === 'settings') {
        fs.mkdirSync(path.join(cwd, '.weld'));
        fs.writeFileSync(path.join(cwd, '.weld/settings.json'), JSON.stringify({ keepAnswers: true }));
      }
      const server = await startServer([so(FIRST), so(REFINED)]);
      try {
        const first = await runWeld([...providerArgs(api, server.port), ...keep, '-p', 'Assess', '--json-schema', SCHEMA_TEXT],
          { env, home, cwd });
        assert.equal(first.code, 0, first.stderr);
        const transcript = walkFiles(home).find((f) => f.endsWith('.jsonl'));
        assert.ok(fs.readFileSync(transcript, 'utf8').includes('first-answer-7Q'), 'the answer is in the transcript');
        assert.equal(fs.statSync(transcript).mode & 0o077, 0, 'mode 0600');
        const second = await runWeld([...providerArgs(api, server.port), '--continue', '-p', 'Refine your previous answer',
          '--json-schema', SCHEMA_TEXT], { env, home, cwd });
        assert.equal(second.code, 0, second.stderr);
        assert.equal(second.stderr, '');
        assert.equal(second.stdout, REFINED + '\n');
        const resumed = (await server.requests())[1];
        assert.deepEqual(JSON.parse(previousCall(resumed, api)), JSON.parse(FIRST));
        const results = toolResults(resumed, api);
        assert.equal(results[0].content, 'Structured output accepted; the session is complete.');
      } finally { await server.close(); }
    });
  }

  test(`${api}: without the opt-in the transcript keeps the placeholder, and stderr says what the model gets`, async () => {
    const home = tempDir('weld-home-');
    const server = await startServer([so(FIRST), so(REFINED)]);
    try {
      const first = await runWeld([...providerArgs(api, server.port), '-p', 'Assess', '--json-schema', SCHEMA_TEXT],
        { env, home });
      assert.equal(first.code, 0, first.stderr);
      const transcript = walkFiles(home).find((f) => f.endsWith('.jsonl'));
      assert.ok(!fs.readFileSync(transcript, 'utf8').includes('first-answer-7Q'), 'redacted by default');
      const id = path.basename(transcript, '.jsonl');
      const second = await runWeld([...providerArgs(api, server.port), '--resume', id, '-p', 'Refine your previous answer',
        '--json-schema', SCHEMA_TEXT], { env, home });
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.stderr, `weld: note: session ${id} holds 1 redacted answer: the model sees a placeholder, not ` +
        'what it answered. To refine an answer, pass it in the prompt, or record sessions with --keep-answers (settings ' +
        '"keepAnswers").\n');
      assert.deepEqual(JSON.parse(previousCall((await server.requests())[1], api)), JSON.parse(PLACEHOLDER));
    } finally { await server.close(); }
  });
}

test('a settings keepAnswers that is not a boolean is a configuration error', async () => {
  const home = tempDir('weld-home-');
  fs.mkdirSync(path.join(home, '.weld'));
  fs.writeFileSync(path.join(home, '.weld/settings.json'), '{"keepAnswers": "yes"}');
  const r = await runWeld(['--provider', 'offline', '-p', 'x', '--json-schema', SCHEMA_TEXT], { home });
  assert.equal(r.code, 52, r.stderr);
  assert.equal(r.stderr, `weld: Settings file "${path.join(home, '.weld/settings.json')}": keepAnswers must be true or false.\n`);
});
