#!/usr/bin/env node
// A scripted fake model server for weld's tests and benchmarks. It stands in
// for what is outside our control (OpenAI, Anthropic, vLLM, llama.cpp) and
// speaks their real wire protocols over HTTP: JSON bodies, SSE streams with
// the real event shapes, error bodies, Retry-After, truncated streams and
// stalls. No npm dependencies. See README.md beside this file.
'use strict';

const http = require('http');
const fs = require('fs');

function parseArgs(argv) {
  const args = { port: 0, host: '127.0.0.1', script: null, record: null };
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port') args.port = Number(argv[++i]);
    else if (a === '--host') args.host = argv[++i];
    else if (a === '--script') args.script = argv[++i];
    else if (a === '--record') args.record = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

const args = parseArgs(process.argv);
let script = { responses: [] };
if (args.script) script = JSON.parse(fs.readFileSync(args.script, 'utf8'));
if (Array.isArray(script)) script = { responses: script };
let cursor = 0;
const received = [];
let counter = 0;

function nextId(prefix) {
  counter += 1;
  return `${prefix}${String(counter).padStart(6, '0')}`;
}

// The next scripted response, or null when the script is exhausted.
function nextResponse() {
  const list = script.responses || [];
  if (cursor < list.length) return list[cursor++];
  if (script.repeat_last && list.length > 0) return list[list.length - 1];
  return null;
}

// Splits a string into fragments of about `size` code points (never inside a
// surrogate pair), as servers stream tool-call arguments.
function fragments(text, size) {
  const points = Array.from(text);
  const out = [];
  for (let i = 0; i < points.length; i += size) out.push(points.slice(i, i + size).join(''));
  return out;
}

function argumentsText(call) {
  if (typeof call.arguments === 'string') return call.arguments;
  if (call.arguments === undefined) return '';
  return JSON.stringify(call.arguments);
}

function usageOf(r) {
  const u = r.usage || {};
  return { input: u.input_tokens ?? 11, output: u.output_tokens ?? 7 };
}

// ---- Anthropic Messages -------------------------------------------------

function anthropicEvents(r, body) {
  const model = r.model || body.model || 'fake-model';
  const usage = usageOf(r);
  const id = r.id || nextId('msg_fake');
  const frag = r.fragment_size || 7;
  const events = [];
  const ev = (type, data) => events.push({ type, data });
  ev('message_start', {
    type: 'message_start',
    message: {
      id, type: 'message', role: 'assistant', model, content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: usage.input, output_tokens: 1 },
    },
  });
  let index = 0;
  if (r.text !== undefined && r.text !== null) {
    ev('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    ev('ping', { type: 'ping' });
    for (const piece of fragments(r.text, frag)) {
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  for (const call of r.tool_calls || []) {
    const callId = call.id || nextId('toolu_fake');
    ev('content_block_start', {
      type: 'content_block_start', index,
      content_block: { type: 'tool_use', id: callId, name: call.name, input: {} },
    });
    ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of fragments(argumentsText(call), frag)) {
      ev('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    ev('content_block_stop', { type: 'content_block_stop', index });
    index++;
  }
  const stop = r.stop_reason || ((r.tool_calls || []).length ? 'tool_use' : 'end_turn');
  ev('message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } });
  if (r.stream_error) ev('error', { type: 'error', error: r.stream_error });
  ev('message_stop', { type: 'message_stop' });
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
}

function anthropicMessage(r, body) {
  const usage = usageOf(r);
  const content = [];
  if (r.text !== undefined && r.text !== null) content.push({ type: 'text', text: r.text });
  for (const call of r.tool_calls || []) {
    const text = argumentsText(call);
    let input;
    try { input = text === '' ? {} : JSON.parse(text); } catch { input = text; }
    content.push({ type: 'tool_use', id: call.id || nextId('toolu_fake'), name: call.name, input });
  }
  return {
    id: r.id || nextId('msg_fake'), type: 'message', role: 'assistant', model: r.model || body.model || 'fake-model',
    content, stop_reason: r.stop_reason || ((r.tool_calls || []).length ? 'tool_use' : 'end_turn'),
    stop_sequence: null, usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

function anthropicError(status, error) {
  const types = { 400: 'invalid_request_error', 401: 'authentication_error', 403: 'permission_error',
    404: 'not_found_error', 413: 'request_too_large', 429: 'rate_limit_error', 500: 'api_error', 529: 'overloaded_error' };
  return { type: 'error', error: error || { type: types[status] || 'api_error', message: `fake error ${status}` } };
}

// ---- OpenAI Chat Completions --------------------------------------------

function openaiChunks(r, body) {
  const model = r.model || body.model || 'fake-model';
  const usage = usageOf(r);
  const id = r.id || nextId('chatcmpl-fake');
  const created = 1700000000;
  const frag = r.fragment_size || 7;
  const chunk = (delta, finish) => ({
    id, object: 'chat.completion.chunk', created, model, system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  });
  const chunks = [chunk({ role: 'assistant', content: '' }, null)];
  if (r.text !== undefined && r.text !== null) {
    for (const piece of fragments(r.text, frag)) chunks.push(chunk({ content: piece }, null));
  }
  (r.tool_calls || []).forEach((call, index) => {
    const callId = call.id || nextId('call_fake');
    chunks.push(chunk({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }, null));
    for (const piece of fragments(argumentsText(call), frag)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
    }
  });
  const finish = r.finish_reason || r.stop_reason || ((r.tool_calls || []).length ? 'tool_calls' : 'stop');
  chunks.push(chunk({}, finish));
  if (r.stream_error) chunks.push({ error: r.stream_error });
  if (body.stream_options && body.stream_options.include_usage) {
    chunks.push({ id, object: 'chat.completion.chunk', created, model, choices: [],
      usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output } });
  }
  const out = chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

function openaiCompletion(r, body) {
  const usage = usageOf(r);
  const message = { role: 'assistant', content: r.text ?? null, refusal: null };
  if ((r.tool_calls || []).length) {
    message.tool_calls = r.tool_calls.map((call) => ({
      id: call.id || nextId('call_fake'), type: 'function',
      function: { name: call.name, arguments: argumentsText(call) },
    }));
  }
  return {
    id: r.id || nextId('chatcmpl-fake'), object: 'chat.completion', created: 1700000000,
    model: r.model || body.model || 'fake-model',
    choices: [{ index: 0, message, logprobs: null,
      finish_reason: r.finish_reason || r.stop_reason || ((r.tool_calls || []).length ? 'tool_calls' : 'stop') }],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

function openaiError(status, error) {
  const types = { 400: 'invalid_request_error', 401: 'invalid_request_error', 403: 'permission_error',
    404: 'invalid_request_error', 429: 'rate_limit_exceeded', 500: 'server_error' };
  return { error: error || { message: `fake error ${status}`, type: types[status] || 'server_error', param: null,
    code: status === 401 ? 'invalid_api_key' : null } };
}

// ---- OpenAI Responses ------------------------------------------------------

// The output items of a scripted response: a message with the text, then one
// function_call item per tool call.
function responsesOutput(r) {
  const output = [];
  if (r.text !== undefined && r.text !== null) {
    output.push({ type: 'message', id: nextId('msg_fake'), status: 'completed', role: 'assistant',
      content: [{ type: 'output_text', text: r.text, annotations: [] }] });
  }
  for (const call of r.tool_calls || []) {
    output.push({ type: 'function_call', id: nextId('fc_fake'), call_id: call.id || nextId('call_fake'),
      name: call.name, arguments: argumentsText(call), status: 'completed' });
  }
  return output;
}

function responsesObject(r, body, status, output) {
  const usage = usageOf(r);
  return {
    id: r.id || nextId('resp_fake'), object: 'response', created_at: 1700000000, status,
    model: r.model || body.model || 'fake-model', output, error: null, incomplete_details: null,
    usage: status === 'in_progress' ? null : {
      input_tokens: usage.input, input_tokens_details: { cached_tokens: 0 },
      output_tokens: usage.output, output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: usage.input + usage.output },
  };
}

// The streamed events, as the API sends them: response.created,
// output_item.added, deltas, output_item.done per item, response.completed
// (whose output repeats the items).
function responsesEvents(r, body) {
  const frag = r.fragment_size || 7;
  const output = responsesOutput(r);
  const head = responsesObject(r, body, 'in_progress', []);
  const events = [];
  const ev = (type, data) => events.push({ type, data: Object.assign({ type }, data, { sequence_number: events.length }) });
  ev('response.created', { response: head });
  ev('response.in_progress', { response: head });
  output.forEach((item, index) => {
    if (item.type === 'message') {
      const text = item.content[0].text;
      ev('response.output_item.added', { output_index: index, item: Object.assign({}, item, { status: 'in_progress', content: [] }) });
      ev('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] } });
      for (const piece of fragments(text, frag)) {
        ev('response.output_text.delta', { item_id: item.id, output_index: index, content_index: 0, delta: piece });
      }
      ev('response.output_text.done', { item_id: item.id, output_index: index, content_index: 0, text });
      ev('response.content_part.done', { item_id: item.id, output_index: index, content_index: 0, part: item.content[0] });
    } else {
      ev('response.output_item.added', { output_index: index, item: Object.assign({}, item, { status: 'in_progress', arguments: '' }) });
      for (const piece of fragments(item.arguments, frag)) {
        ev('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: piece });
      }
      ev('response.function_call_arguments.done', { item_id: item.id, output_index: index, arguments: item.arguments });
    }
    ev('response.output_item.done', { output_index: index, item });
  });
  if (r.stream_error) ev('error', r.stream_error);
  const done = responsesObject(r, body, 'completed', output);
  done.id = head.id;
  ev('response.completed', { response: done });
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e.data)}\n\n`);
}

// ---- constrained decoding (response_format / output_config.format) --------

// The JSON Schema a request asks the answer text to follow, or null:
// OpenAI `response_format: {type:"json_schema", json_schema:{schema}}`,
// Anthropic `output_config.format` (and the older beta `output_format`).
function formatSchema(api, body) {
  if (!body) return null;
  if (api === 'openai') {
    const rf = body.response_format;
    return rf && rf.type === 'json_schema' && rf.json_schema ? (rf.json_schema.schema ?? {}) : null;
  }
  if (api === 'responses') {
    const f = body.text && body.text.format;
    return f && f.type === 'json_schema' ? (f.schema ?? {}) : null;
  }
  const f = (body.output_config && body.output_config.format) || body.output_format;
  return f && f.type === 'json_schema' ? (f.schema ?? {}) : null;
}

function typeOf(v) {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

// The subset of JSON Schema a constraining server is emulated for: type,
// const, enum, properties, required, additionalProperties:false, items.
function satisfies(schema, v) {
  if (schema === true || schema === undefined || schema === null) return true;
  if (schema === false) return false;
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(v)) return false;
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return false;
  if (schema.type) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(v);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return false;
  }
  if (typeOf(v) === 'object') {
    for (const k of schema.required || []) if (!(k in v)) return false;
    for (const [k, sub] of Object.entries(v)) {
      if (schema.properties && k in schema.properties) { if (!satisfies(schema.properties[k], sub)) return false; }
      else if (schema.additionalProperties === false) return false;
    }
  }
  if (typeOf(v) === 'array' && schema.items) return v.every((x) => satisfies(schema.items, x));
  return true;
}

// A minimal instance of the same subset.
function generate(schema) {
  if (!schema || schema === true) return {};
  if ('const' in schema) return schema.const;
  if (schema.enum) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type || (schema.properties ? 'object' : 'object');
  switch (type) {
    case 'object': {
      const out = {};
      for (const k of schema.required || []) out[k] = generate((schema.properties || {})[k]);
      return out;
    }
    case 'array': return [];
    case 'string': return 'x';
    case 'integer': case 'number': return 0;
    case 'boolean': return false;
    default: return null;
  }
}

// Applies the script's `response_format` mode to a scripted response for a
// request that carries a format: "enforce" replaces answer text that does
// not satisfy the schema with a generated instance (a server that constrains
// decoding cannot produce anything else); "ignore" leaves it.
function constrain(r, schema) {
  if (script.response_format !== 'enforce' || schema === null) return r;
  if ((r.tool_calls || []).length) return r;
  let ok = false;
  try { ok = r.text !== undefined && r.text !== null && satisfies(schema, JSON.parse(r.text)); } catch { ok = false; }
  return ok ? r : { ...r, text: JSON.stringify(generate(schema)) };
}

// ---- serving --------------------------------------------------------------

const sockets = new Set();
// Streams held at their `gate_after` frame, waiting for POST /__release.
const gates = [];

// Writes SSE frames, optionally cut into byte chunks of `chunk_bytes` (to
// split UTF-8 sequences and lines across reads), truncated after
// `truncate_after` frames, or stalled after `stall_after` frames, or held
// after `gate_after` frames until POST /__release, or ended cleanly after
// `end_after` frames, or never ended (`hold_open`).
function writeStream(res, frames, r) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  let limit = frames.length;
  if (r.truncate_after !== undefined) limit = Math.min(limit, r.truncate_after);
  if (r.end_after !== undefined) limit = Math.min(limit, r.end_after);
  if (r.stall_after !== undefined) limit = Math.min(limit, r.stall_after);
  const bytes = Buffer.from(frames.slice(0, limit).join(''), 'utf8');
  const size = r.chunk_bytes || bytes.length || 1;
  const interval = r.event_delay_ms || 0;
  let gate = r.gate_after !== undefined && r.gate_after < limit
    ? Buffer.byteLength(frames.slice(0, r.gate_after).join(''), 'utf8') : null;
  let offset = 0;
  const step = () => {
    if (res.destroyed) return;
    if (gate !== null && offset >= gate) {
      gate = null;
      gates.push(step);
      return;
    }
    if (offset < bytes.length) {
      const end = Math.min(offset + size, gate !== null ? gate : bytes.length);
      res.write(bytes.subarray(offset, end));
      offset = end;
      if (interval > 0) setTimeout(step, interval); else setImmediate(step);
      return;
    }
    if (r.truncate_after !== undefined && r.truncate_after < frames.length) {
      res.socket.end();  // flush, then close mid-stream: no terminating chunk
    } else if (r.stall_after !== undefined && r.stall_after < frames.length) {
      setTimeout(() => { if (!res.destroyed) res.socket.destroy(); }, r.stall_ms || 60000);
    } else if (r.hold_open) {
      // every frame sent, the response never ended: the connection stays open
    } else {
      res.end();
    }
  };
  step();
}

function sendJson(res, status, value, headers) {
  const text = JSON.stringify(value);
  res.writeHead(status, Object.assign({ 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }, headers || {}));
  res.end(text);
}

function respond(req, res, api, body, raw) {
  const schema = formatSchema(api, body);
  if (schema !== null && script.response_format === 'reject') {
    // A server that does not know the field and says so (without consuming the script).
    const message = api === 'anthropic' ? 'output_config: Extra inputs are not permitted'
      : api === 'responses' ? 'Unsupported parameter: text.format'
        : "Unrecognized request argument supplied: response_format";
    sendJson(res, 400, api === 'anthropic' ? anthropicError(400, { type: 'invalid_request_error', message })
      : openaiError(400, { message, type: 'invalid_request_error', param: 'response_format', code: null }));
    return;
  }
  const scripted = nextResponse();
  const r = scripted === null ? null : constrain(scripted, schema);
  if (r === null) {
    const error = { message: 'fake model server: script exhausted', type: 'server_error' };
    sendJson(res, 500, api === 'anthropic' ? anthropicError(500, { type: 'api_error', message: error.message }) : { error });
    return;
  }
  const go = () => {
    if (r.raw_body !== undefined) {
      res.writeHead(r.status || 200, Object.assign({ 'content-type': r.content_type || 'application/json' }, r.headers || {}));
      res.end(r.raw_body);
      return;
    }
    if (r.status && r.status !== 200) {
      const payload = api === 'anthropic' ? anthropicError(r.status, r.error) : openaiError(r.status, r.error);
      sendJson(res, r.status, payload, r.headers);
      return;
    }
    if (r.hang) return;  // never answer: a stalled server before any byte
    if (body && body.stream === true) {
      const frames = api === 'anthropic' ? anthropicEvents(r, body)
        : api === 'responses' ? responsesEvents(r, body) : openaiChunks(r, body);
      writeStream(res, frames, r);
    } else {
      const whole = api === 'anthropic' ? anthropicMessage(r, body)
        : api === 'responses' ? responsesObject(r, body, 'completed', responsesOutput(r)) : openaiCompletion(r, body);
      sendJson(res, 200, whole, r.headers);
    }
  };
  if (r.delay_ms) setTimeout(go, r.delay_ms); else go();
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = req.url.split('?')[0];
    if (req.method === 'GET' && url === '/__requests') return sendJson(res, 200, received);
    if (req.method === 'POST' && url === '/__release') {
      const held = gates.splice(0);
      held.forEach((resume) => resume());
      return sendJson(res, 200, { released: held.length });
    }
    if (req.method === 'POST' && url === '/__reset') {
      received.length = 0;
      cursor = 0;
      if (raw) script = JSON.parse(raw);
      return sendJson(res, 200, { ok: true });
    }
    let body = null;
    try { body = raw ? JSON.parse(raw) : null; } catch { body = null; }
    const entry = { method: req.method, path: req.url, headers: req.headers, body, raw: body === null ? raw : undefined,
      at: Date.now() };
    received.push(entry);
    if (args.record) fs.appendFileSync(args.record, JSON.stringify(entry) + '\n');
    if (req.method === 'GET' && (url === '/v1/models' || url === '/models')) {
      // `models_errors`: statuses answered to the first models requests, one each.
      const errors = script.models_errors || [];
      const failed = received.filter((e) => e.method === 'GET' && /\/models$/.test(e.path.split('?')[0])).length;
      if (failed <= errors.length) {
        const status = errors[failed - 1];
        return sendJson(res, status, { error: { message: `fake model server: models list answered ${status}`, type: 'server_error' } });
      }
      const ids = script.models || ['fake-model'];
      return sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1700000000, owned_by: 'weld-tests' })) });
    }
    if (req.method === 'POST' && (url === '/v1/messages' || url === '/messages')) return respond(req, res, 'anthropic', body || {}, raw);
    if (req.method === 'POST' && /\/chat\/completions$/.test(url)) return respond(req, res, 'openai', body || {}, raw);
    if (req.method === 'POST' && /\/responses$/.test(url)) return respond(req, res, 'responses', body || {}, raw);
    sendJson(res, 404, { error: { message: `fake model server: no route ${req.method} ${url}`, type: 'not_found' } });
  });
});
server.keepAliveTimeout = 60000;
server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
server.listen(args.port, args.host, () => {
  process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n');
});
const stop = () => { server.close(); for (const s of sockets) s.destroy(); process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
