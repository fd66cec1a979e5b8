// Writes a synthetic OpenAI Chat Completions stream: one structured_output
// tool call whose arguments (about ARG_BYTES of JSON with non-ASCII text)
// arrive in token-sized fragments, each in a full chat.completion.chunk, as
// a real server sends them. Usage: node gen.mjs OUT.sse [ARG_BYTES]
import fs from 'node:fs';

const out = process.argv[2];
const target = Number(process.argv[3] || 1_000_000);
const items = [];
let size = 0;
for (let i = 0; size < target; i++) {
  const item = { id: i, title: `Résumé ${i} — naïve café ✓`, tags: ['a', 'b\\"c'], score: i * 0.5 };
  items.push(item);
  size += JSON.stringify(item).length + 1;
}
const args = JSON.stringify({ summary: 'Synthetic 🌍 payload', items });
const base = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1753468240, model: 'gpt-4o-mini-2024-07-18',
  system_fingerprint: 'fp_62a23a81ef' };
const lines = [];
const chunk = (delta, finish = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], usage: null });
lines.push(chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_bench', type: 'function', function: { name: 'structured_output', arguments: '' } }] }));
const points = Array.from(args);
for (let i = 0; i < points.length; ) {
  const n = 3 + (i % 7);  // 3..9 code points, like tokens
  lines.push(chunk({ tool_calls: [{ index: 0, function: { arguments: points.slice(i, i + n).join('') } }] }));
  i += n;
}
lines.push(chunk({}, 'tool_calls'));
lines.push({ ...base, choices: [], usage: { prompt_tokens: 100, completion_tokens: lines.length, total_tokens: 100 + lines.length } });
fs.writeFileSync(out, lines.map((l) => `data: ${JSON.stringify(l)}\n\n`).join('') + 'data: [DONE]\n\n');
