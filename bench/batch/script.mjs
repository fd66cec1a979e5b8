// The loop users write today (bench/batch's peer): the official `openai` SDK,
// Ajv, and a concurrency limiter, turning a JSON Lines file into one result
// line per row — written as a competent user would: streamed input with
// back-pressure (never more than CONCURRENCY rows in flight), the schema
// compiled once, the SDK's keep-alive agent and retries, invalid answers
// retried with the validation errors fed back, one line per row in weld's
// shape.
//   node script.mjs INPUT OUTPUT  (env: BASE_URL, CONCURRENCY, PROMPT, SCHEMA)

import fs from 'node:fs';
import readline from 'node:readline';
import OpenAI from 'openai';
import Ajv from 'ajv';
import pLimit from 'p-limit';

const [input, output] = process.argv.slice(2);
const concurrency = Number(process.env.CONCURRENCY || 64);
const prompt = process.env.PROMPT || 'Assess the risk of this ticket';
const schema = JSON.parse(fs.readFileSync(process.env.SCHEMA, 'utf8'));
const maxRetries = 5;

const client = new OpenAI({ baseURL: process.env.BASE_URL, apiKey: 'unused', maxRetries: 3 });
const validate = new Ajv({ allErrors: true }).compile(schema);
const limit = pLimit(concurrency);
const out = fs.createWriteStream(output);
const tool = { type: 'function', function: { name: 'structured_output', description: 'Deliver the final answer.', parameters: schema } };

async function runRow(row, lineNumber) {
  const id = row.custom_id ?? row.id ?? String(lineNumber);
  const messages = [{ role: 'user', content: JSON.stringify(row) + '\n\n' + prompt }];
  const started = Date.now();
  const usage = { input_tokens: 0, output_tokens: 0 };
  let last;
  for (let attempt = 1; attempt <= maxRetries + 1; ++attempt) {
    const completion = await client.chat.completions.create({
      model: 'bench', messages, tools: [tool], tool_choice: { type: 'function', function: { name: 'structured_output' } },
    });
    usage.input_tokens += completion.usage?.prompt_tokens ?? 0;
    usage.output_tokens += completion.usage?.completion_tokens ?? 0;
    const call = completion.choices[0]?.message?.tool_calls?.[0];
    let value;
    try { value = JSON.parse(call?.function?.arguments ?? ''); } catch { value = undefined; }
    if (value !== undefined && validate(value)) {
      return { custom_id: id, status: 'succeeded', structured_result: value, attempts: attempt, usage, duration_ms: Date.now() - started };
    }
    last = value;
    const errors = validate.errors ? validate.errors.map((e) => `${e.instancePath} ${e.message}`).join('; ') : 'not JSON';
    messages.push(completion.choices[0].message,
      { role: 'tool', tool_call_id: call?.id ?? 'none', content: `Invalid: ${errors}` });
  }
  return { custom_id: id, status: 'errored', error: { type: 'invalid', message: 'retries exhausted' }, last_candidate: last, attempts: maxRetries + 1, usage };
}

const lines = readline.createInterface({ input: fs.createReadStream(input), crlfDelay: Infinity });
let lineNumber = -1;
let inFlight = 0;
let wake = null;
const pending = new Set();
for await (const line of lines) {
  ++lineNumber;
  if (!line.trim()) continue;
  if (inFlight >= concurrency) await new Promise((resolve) => { wake = resolve; });
  ++inFlight;
  const n = lineNumber;
  const task = limit(async () => {
    let result;
    try { result = await runRow(JSON.parse(line), n); }
    catch (e) { result = { custom_id: String(n), status: 'errored', error: { type: 'exception', message: String(e.message) } }; }
    if (!out.write(JSON.stringify(result) + '\n')) await new Promise((resolve) => out.once('drain', resolve));
  }).finally(() => {
    --inFlight;
    pending.delete(task);
    if (wake) { const w = wake; wake = null; w(); }
  });
  pending.add(task);
}
await Promise.all(pending);
await new Promise((resolve) => out.end(resolve));
