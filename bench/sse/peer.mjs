// The peer: how JavaScript agents (Qwen Code through the openai SDK, other
// SDK-based clients) read a stream: an SSE parser (eventsource-parser),
// JSON.parse per chunk, arguments concatenated per tool-call index.
// Usage: node peer.mjs IN.sse REPEATS → one JSON line.
import fs from 'node:fs';
import { createParser } from 'eventsource-parser';

const bytes = fs.readFileSync(process.argv[2]);
const repeats = Number(process.argv[3] || 5);
const sseOnly = process.argv[4] === '--sse-only';
const READ = 16 * 1024;

function fnv1a(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, 'utf8')) { h ^= BigInt(b); h = (h * 0x100000001b3n) & 0xffffffffffffffffn; }
  return h.toString(16);
}

function once() {
  const calls = [];
  let count = 0, data = 0;
  let done = false;
  const parser = createParser({
    onEvent(event) {
      if (sseOnly) { count += 1; data += Buffer.byteLength(event.data); if (event.data === '[DONE]') done = true; return; }
      if (event.data === '[DONE]') { done = true; return; }
      const chunk = JSON.parse(event.data);
      for (const choice of chunk.choices || []) {
        for (const call of choice.delta?.tool_calls || []) {
          const slot = (calls[call.index] ||= { id: '', name: '', arguments: '' });
          if (call.id) slot.id = call.id;
          if (call.function?.name) slot.name = call.function.name;
          if (call.function?.arguments) slot.arguments += call.function.arguments;
        }
      }
    },
  });
  const decoder = new TextDecoder();
  for (let i = 0; i < bytes.length; i += READ) parser.feed(decoder.decode(bytes.subarray(i, i + READ), { stream: true }));
  if (!done) throw new Error('no [DONE]');
  if (sseOnly) return `${count} events, ${data} data bytes`;
  return calls[0].arguments;
}

let args = once();  // warm-up
const start = process.hrtime.bigint();
for (let r = 0; r < repeats; r++) args = once();
const seconds = Number(process.hrtime.bigint() - start) / 1e9 / repeats;
console.log(JSON.stringify({ impl: sseOnly ? 'node eventsource-parser' : 'node eventsource-parser + JSON.parse', bytes: bytes.length, seconds,
  mb_per_s: bytes.length / 1e6 / seconds, arguments_bytes: Buffer.byteLength(args), arguments_fnv1a: fnv1a(args) }));
