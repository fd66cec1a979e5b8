// stream_partial (docs/proxy.md, "Partial answers"): a tagged agent's JSON streamed to the
// client as the model generates it, a `weld.discard` when what was streamed
// is void, and what the official SDKs make of it (docs/proxy.md "Partial
// answers"). The fake upstream holds its stream at `gate_after` until the
// test releases it, so "before the end" needs no clock.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runWeld, startSdkProxy, tmpdir } from './harness.mjs';

const schema = {
  type: 'object',
  properties: {
    route: { enum: ['billing', 'tech'] },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    note: { type: 'string' },
  },
  required: ['route', 'confidence'],
  additionalProperties: false,
};
const registry = {
  route: { description: 'Route a ticket', input_schema: schema, stream_partial: true },
  route_once: { description: 'Route a ticket', input_schema: schema, stream_partial: true, max_retries: 0 },
  route_whole: { description: 'Route a ticket', input_schema: schema },
  route_native: { description: 'Route a ticket', input_schema: schema, mechanism: 'native', stream_partial: true },
};

// The model writes spaced JSON with an escape; the client gets it compact.
const spaced = '{ "route": "billing",  "confidence": 0.90, "note": "caf\\u00e9 \\"x\\"" }';
const answer = { route: 'billing', confidence: 0.9, note: 'café "x"' };
const finalText = JSON.stringify(answer);
const invalid = { route: 'nowhere', confidence: 0.5 };
const call = (args, extra = {}, name = 'route') => ({ tool_calls: [{ name, arguments: args }], fragment_size: 4, ...extra });
const question = [{ role: 'user', content: 'My invoice is wrong.' }];

let env;
before(async () => {
  env = await startSdkProxy(registry, { proxyArgs: ['--keepalive', '0.2', '--upstream-timeout', '10'] });
});
after(async () => {
  await env.stop();
});

/** The SSE frames of a fetch response as they arrive: {event, data} (comments skipped). */
async function* sseFrames(response) {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = null;
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (event === null && data === '') continue;
      yield { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    }
  }
}

function post(api, model, extra = {}) {
  const anthropic = api === 'anthropic';
  return fetch(`${env.proxy.url}${anthropic ? '/v1/messages' : '/v1/chat/completions'}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 200, stream: true, messages: question, ...extra }),
  });
}

/** Text per block (Anthropic content block / OpenAI choice), discards, and the order of things. */
function accumulate(api, frames) {
  const blocks = [];
  const discards = [];
  const finish = [];
  const order = [];
  for (const { event, data } of frames) {
    if (api === 'anthropic') {
      if (event === 'content_block_delta') blocks[data.index] = (blocks[data.index] ?? '') + data.delta.text;
      if (event === 'weld.discard') discards.push(data);
      if (event !== 'ping') order.push(event === 'content_block_delta' ? 'delta' : event);
      continue;
    }
    if (data === '[DONE]') {
      order.push('[DONE]');
      continue;
    }
    for (const c of data.choices ?? []) {
      if (c.delta?.content) blocks[c.index] = (blocks[c.index] ?? '') + c.delta.content;
      if (c.finish_reason) finish[c.index] = c.finish_reason;
      if (c.weld_discard) discards.push(c.weld_discard);
    }
  }
  return { blocks, discards, finish, order };
}

/**
 * Reads a stream whose upstream is held at its gate: once `deltas` text
 * deltas arrived, releases the upstream. Returns the frames and the text
 * of block 0 at the release (null if it never came to that).
 */
async function readHeld(api, response, deltas) {
  const frames = [];
  let beforeRelease = null;
  for await (const frame of sseFrames(response)) {
    frames.push(frame);
    const isDelta = (f) => (api === 'anthropic' ? f.event === 'content_block_delta' : f.data.choices?.[0]?.delta?.content);
    if (beforeRelease === null && frames.filter(isDelta).length >= deltas) {
      // The upstream is still held: these deltas came before its end.
      beforeRelease = accumulate(api, frames).blocks[0];
      await fetch(`${env.fake.url}/__release`, { method: 'POST' });
    }
  }
  return { frames, beforeRelease };
}

for (const api of ['anthropic', 'openai']) {
  test(`${api}: a valid answer arrives as several deltas before the upstream ends, adding up to the final text`, async () => {
    // Anthropic: message_start, content_block_start, an empty delta, then 4-character fragments.
    await env.fake.reset({ responses: [call(spaced, { gate_after: 9 })] });
    const response = await post(api, 'q__schema=route');
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('x-weld-agent'), 'route');
    const { frames, beforeRelease } = await readHeld(api, response, 3);
    assert.ok(beforeRelease !== null, 'fewer than 3 deltas arrived while the upstream was held');
    assert.ok(finalText.startsWith(beforeRelease) && beforeRelease.length < finalText.length, beforeRelease);
    const { blocks, discards, finish } = accumulate(api, frames);
    assert.deepEqual(discards, []);
    assert.equal(blocks.length, 1);
    assert.equal(blocks[0], finalText);  // the concatenation is the validated text
    if (api === 'openai') assert.equal(finish[0], 'stop');
  });

  test(`${api}: an invalid first attempt is discarded, the second streams in a new block`, async () => {
    await env.fake.reset({ responses: [call(invalid), call(spaced)] });
    const response = await post(api, 'q__schema=route');
    const frames = [];
    for await (const frame of sseFrames(response)) frames.push(frame);
    const { blocks, discards, finish, order } = accumulate(api, frames);
    assert.equal(discards.length, 1);
    assert.equal(discards[0].type, 'weld.discard');
    assert.equal(discards[0].index, 0);
    assert.equal(discards[0].attempt, 1);
    assert.equal(discards[0].reason, 'invalid');
    assert.match(discards[0].errors, /route/);
    assert.equal(blocks.length, 2);
    assert.ok(blocks[0].startsWith(JSON.stringify(invalid)), blocks[0]);
    assert.throws(() => JSON.parse(blocks[0]));  // never mistaken for an answer
    assert.equal(blocks[1], finalText);
    if (api === 'anthropic') {
      const at = order.indexOf('weld.discard');
      assert.deepEqual(order.slice(at - 1, at + 2), ['content_block_stop', 'weld.discard', 'content_block_start']);
      assert.equal(order.at(-1), 'message_stop');
    } else {
      assert.deepEqual(finish, ['weld_discarded', 'stop']);
      assert.equal(order.at(-1), '[DONE]');
    }
  });

  test(`${api}: a clamped answer replaces what was streamed (reason "repaired")`, async () => {
    await env.fake.reset({ responses: [call({ route: 'tech', confidence: 1.5 })] });
    const frames = [];
    for await (const frame of sseFrames(await post(api, 'q__schema=route'))) frames.push(frame);
    const { blocks, discards } = accumulate(api, frames);
    assert.deepEqual(discards.map((d) => [d.reason, d.attempt, d.index]), [['repaired', 1, 0]]);
    assert.equal(blocks.length, 2);
    assert.throws(() => JSON.parse(blocks[0]));
    assert.deepEqual(JSON.parse(blocks[1]), { route: 'tech', confidence: 1 });
  });

  test(`${api}: no valid answer: what was streamed is discarded, then the error`, async () => {
    // Held until deltas reached the client (had nothing reached it, the
    // client would get a plain HTTP 502 instead).
    await env.fake.reset({ responses: [call(invalid, { gate_after: 6 }, 'route_once')] });
    const { frames, beforeRelease } = await readHeld(api, await post(api, 'q__schema=route_once'), 1);
    assert.ok(beforeRelease !== null);
    const { discards, order } = accumulate(api, frames);
    assert.deepEqual(discards.map((d) => d.reason), ['failed']);
    const last = frames.filter((f) => f.data !== '[DONE]').at(-1);
    if (api === 'anthropic') {
      assert.equal(last.event, 'error');
      assert.equal(order.at(-2), 'weld.discard');
    }
    assert.equal((last.data.error ?? {}).type, 'structured_output_error');
  });
}

test('a retry the upstream answers with whole JSON (no stream) still ends in a new block', async () => {
  const whole = {
    id: 'msg_whole', type: 'message', role: 'assistant', model: 'q', stop_reason: 'tool_use', stop_sequence: null,
    content: [{ type: 'tool_use', id: 'toolu_whole', name: 'route', input: answer }], usage: { input_tokens: 5, output_tokens: 5 },
  };
  // The first attempt ends inside a number (its closing brace missing): the
  // number held back must not leak into the next block.
  await env.fake.reset({ responses: [call('{"route": "nowhere", "confidence": 0.5'), { raw_body: JSON.stringify(whole) }] });
  const frames = [];
  for await (const frame of sseFrames(await post('anthropic', 'q__schema=route'))) frames.push(frame);
  const { blocks, discards } = accumulate('anthropic', frames);
  assert.deepEqual(discards.map((d) => d.reason), ['invalid']);
  assert.deepEqual(blocks.slice(1), [finalText]);
});

test('native mechanism: the answer text streams the same way, and a fenced answer is sent once, without a discard', async () => {
  for (const api of ['anthropic', 'openai']) {
    await env.fake.reset({ responses: [{ text: spaced, fragment_size: 4 }] });
    let frames = [];
    for await (const frame of sseFrames(await post(api, 'q__schema=route_native'))) frames.push(frame);
    let { blocks, discards } = accumulate(api, frames);
    assert.deepEqual(discards, []);
    assert.deepEqual(blocks, [finalText]);
    assert.ok(frames.length > 10, `${api}: ${frames.length} frames`);
    // Nothing of a Markdown fence can be streamed: nothing to void.
    await env.fake.reset({ responses: [{ text: '```json\n' + spaced + '\n```', fragment_size: 4 }] });
    frames = [];
    for await (const frame of sseFrames(await post(api, 'q__schema=route_native'))) frames.push(frame);
    ({ blocks, discards } = accumulate(api, frames));
    assert.deepEqual(discards, []);
    assert.deepEqual(blocks, [finalText]);
  }
});

test('an agent without stream_partial still sends the answer whole at the end', async () => {
  await env.fake.reset({ responses: [call(spaced, { gate_after: 9 }, 'route_whole')] });
  const response = await post('anthropic', 'q__schema=route_whole');
  const frames = [];
  let released = false;
  for await (const frame of sseFrames(response)) {
    frames.push(frame);
    if (!released && frame.event === 'ping') {
      // Only keep-alive pings while the upstream is held.
      assert.ok(frames.every((f) => f.event === 'ping'), JSON.stringify(frames));
      released = true;
      await fetch(`${env.fake.url}/__release`, { method: 'POST' });
    }
  }
  assert.ok(released);
  assert.equal(accumulate('anthropic', frames).blocks[0], finalText);
});

test('anthropic SDK: messages.stream with a discard: what finalMessage() and finalText() hold', async () => {
  // Valid at once: one text block, equal to the text events joined.
  await env.fake.reset({ responses: [call(spaced)] });
  let stream = env.anthropic.messages.stream({ model: 'q__schema=route', max_tokens: 200, messages: question });
  let deltas = [];
  stream.on('text', (delta) => deltas.push(delta));
  let message = await stream.finalMessage();
  assert.ok(deltas.length > 3, String(deltas.length));
  assert.equal(message.content.length, 1);
  assert.equal(message.content[0].text, deltas.join(''));
  assert.equal(message.content[0].text, finalText);
  assert.equal(message.stop_reason, 'end_turn');

  // A retry: the discarded text is the first block, the answer the last.
  await env.fake.reset({ responses: [call(invalid), call(spaced)] });
  stream = env.anthropic.messages.stream({ model: 'q__schema=route', max_tokens: 200, messages: question });
  const discards = [];
  stream.on('streamEvent', (event) => { if (event.type === 'weld.discard') discards.push(event); });
  message = await stream.finalMessage();
  assert.deepEqual(discards.map((d) => [d.reason, d.index]), [['invalid', 0]]);
  assert.deepEqual(message.content.map((b) => b.type), ['text', 'text']);
  assert.throws(() => JSON.parse(message.content[0].text));
  assert.equal(message.content.at(-1).text, finalText);
  // finalText() joins the blocks with a space: not JSON, so never taken for the answer.
  const text = await stream.finalText();
  assert.ok(text.endsWith(` ${finalText}`), text);
  assert.throws(() => JSON.parse(text));

  // The raw iterator yields the discard event like any other.
  await env.fake.reset({ responses: [call(invalid), call(spaced)] });
  const raw = await env.anthropic.messages.create({ model: 'q__schema=route', max_tokens: 200, messages: question, stream: true });
  const types = [];
  for await (const event of raw) types.push(event.type);
  assert.equal(types.filter((t) => t === 'weld.discard').length, 1);
  assert.equal(types.at(-1), 'message_stop');
});

test('openai SDK: the stream helper and raw iteration with a discard: what finalChatCompletion() holds', async () => {
  // Valid at once: one choice, equal to the content deltas joined.
  await env.fake.reset({ responses: [call(spaced)] });
  let helper = env.openai.beta.chat.completions.stream({ model: 'q__schema=route', messages: question });
  let final = await helper.finalChatCompletion();
  assert.equal(final.choices.length, 1);
  assert.equal(final.choices[0].message.content, finalText);
  assert.equal(final.choices[0].finish_reason, 'stop');

  // A retry: choice 0 is the discarded text, choice 1 the answer.
  await env.fake.reset({ responses: [call(invalid), call(spaced)] });
  helper = env.openai.beta.chat.completions.stream({ model: 'q__schema=route', messages: question });
  final = await helper.finalChatCompletion();
  assert.equal(final.choices.length, 2);
  assert.equal(final.choices[0].finish_reason, 'weld_discarded');
  assert.equal(final.choices[0].weld_discard.reason, 'invalid');
  assert.throws(() => JSON.parse(final.choices[0].message.content));
  assert.equal(final.choices.at(-1).message.content, finalText);
  assert.equal(final.choices.at(-1).finish_reason, 'stop');
  // finalContent() is choice 0's: not JSON, so never taken for the answer.
  const content = await helper.finalContent();
  assert.equal(content, final.choices[0].message.content);
  assert.throws(() => JSON.parse(content));

  // Raw iteration: the discard is an ordinary chunk (no exception).
  await env.fake.reset({ responses: [call(invalid), call(spaced)] });
  const stream = await env.openai.chat.completions.create({ model: 'q__schema=route', messages: question, stream: true });
  const byChoice = [];
  let discard = null;
  for await (const chunk of stream) {
    for (const c of chunk.choices) {
      byChoice[c.index] = (byChoice[c.index] ?? '') + (c.delta?.content ?? '');
      if (c.weld_discard) discard = c.weld_discard;
    }
  }
  assert.equal(discard?.reason, 'invalid');
  assert.equal(byChoice.at(-1), finalText);
  assert.throws(() => JSON.parse(byChoice.join('')));
});

test('a registry with a non-boolean stream_partial stops the start (exit 52)', async () => {
  const file = path.join(tmpdir(), 'agents.json');
  fs.writeFileSync(file, JSON.stringify({ bad: { input_schema: schema, stream_partial: 'yes' } }));
  const r = await runWeld(['proxy', '--listen', '127.0.0.1:0', '--agents', file]);
  assert.equal(r.code, 52);
  const error = JSON.parse(r.stderr.trim().split('\n').at(-1));
  assert.equal(error.message, `${file}: agent "bad": stream_partial must be true or false`);
});
