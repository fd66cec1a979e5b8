'use strict';
// weld from Node.js: run() and validate() spawn the weld binary of this
// package (or $WELD_BINARY) and read its JSON output. Nothing is sent
// anywhere but to the model server weld is pointed at. docs/install.md, "npm".
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { binaryPath, BinaryNotFound } = require('./lib/binary.js');

class WeldError extends Error {
  constructor(message, details) {
    super(message);
    this.name = 'WeldError';
    Object.assign(this, details);
  }
}

function schemaText(schema, what) {
  if (typeof schema === 'string') return schema;
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
    throw new TypeError(`${what} must be a JSON Schema: an object, a boolean, or its JSON text`);
  }
  return JSON.stringify(schema);
}

// Calls fn('@' + file) with the schema written to a private temporary file
// (a schema on the command line would meet Linux's 128 KiB limit for one
// argument), and removes it after.
async function withSchemaFile(schema, fn) {
  const text = schemaText(schema, 'schema');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-node-'));
  try {
    const file = path.join(dir, 'schema.json');
    fs.writeFileSync(file, text, { mode: 0o600 });
    return await fn('@' + file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// Runs weld with `args`, `input` on its standard input; resolves to
// {exitCode, signal, stdout, stderr}. `signal` (an AbortSignal) sends
// SIGTERM to weld, which then ends with 130.
function spawnWeld(args, { input = '', env, cwd, signal, binary } = {}) {
  return new Promise((resolve, reject) => {
    let path;
    try {
      path = binary || binaryPath();
    } catch (error) {
      reject(error instanceof BinaryNotFound ? new WeldError(error.message, { exitCode: null }) : error);
      return;
    }
    const child = spawn(path, args, { env: env ? { ...process.env, ...env } : process.env, cwd,
                                      stdio: ['pipe', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    const abort = () => child.kill('SIGTERM');
    if (signal) {
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    }
    child.on('error', (error) => reject(new WeldError(`weld: could not start ${path}: ${error.message}`,
                                                      { exitCode: null })));
    child.on('close', (exitCode, exitSignal) => {
      if (signal) signal.removeEventListener('abort', abort);
      resolve({ exitCode, signal: exitSignal, stdout: Buffer.concat(out).toString('utf8'),
                stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.on('error', () => {});  // weld may end before reading all of it
    child.stdin.end(input);
  });
}

// The flags of run() options that map one to one onto weld's.
const RUN_FLAGS = {
  provider: '--provider', model: '--model', baseUrl: '--base-url', systemPrompt: '--system-prompt',
  mechanism: '--mechanism', maxSessionTurns: '--max-session-turns', maxToolCalls: '--max-tool-calls',
  maxWallTime: '--max-wall-time', maxStructuredRetries: '--max-structured-retries', maxRetries: '--max-retries',
  connectTimeout: '--connect-timeout', idleTimeout: '--idle-timeout', seed: '--seed',
};

/**
 * One run: the prompt, answered as JSON that validates against the schema.
 * Resolves to { exitCode, ok, envelope, output, stderr } — `envelope` is
 * weld's result envelope (docs/run.md, "Output formats": `result`),
 * `output` its structured_output on success. Rejects only when weld cannot
 * be started or prints no envelope. The prompt (after `input`, when given,
 * and a blank line) goes to weld's standard input, so its size is not bound
 * by the command line's.
 */
async function run(options) {
  if (!options || typeof options.prompt !== 'string') throw new TypeError('run(): prompt must be a string');
  return withSchemaFile(options.schema, async (schemaArg) => {
    const args = ['-o', 'result', '--json-schema', schemaArg];
    for (const [key, flag] of Object.entries(RUN_FLAGS)) {
      if (options[key] !== undefined && options[key] !== null) args.push(flag, String(options[key]));
    }
    if (options.args) args.push(...options.args);
    const env = { ...(options.env || {}) };
    // The key goes through the environment, never the command line (which
    // other users of the machine can read).
    if (options.apiKey) env.WELD_API_KEY = options.apiKey;
    const input = options.input !== undefined ? `${options.input}\n\n${options.prompt}` : options.prompt;
    const r = await spawnWeld(args, { input, env, cwd: options.cwd, signal: options.signal, binary: options.binary });
    const line = r.stdout.trim().split('\n').pop();
    let envelope;
    try {
      envelope = JSON.parse(line);
    } catch {
      throw new WeldError(`weld ended with ${r.exitCode ?? r.signal} and no result envelope: ${r.stderr.trim()}`,
                          { exitCode: r.exitCode, stderr: r.stderr });
    }
    return { exitCode: r.exitCode, ok: r.exitCode === 0, envelope,
             output: r.exitCode === 0 ? envelope.structured_output : undefined, stderr: r.stderr };
  });
}

/**
 * Validates one JSON instance (a value, or its text with `{ text: true }`)
 * against a schema with weld's engine (`weld schema validate --json`).
 * Resolves to { valid, errors } (errors as Ajv prints them: instancePath,
 * schemaPath, keyword, params, message); rejects with a WeldError when the
 * schema cannot be loaded (weld's exit 52) or the instance is not JSON.
 */
async function validate(schema, instance, options = {}) {
  const text = options.text ? String(instance) : JSON.stringify(instance);
  if (text === undefined) throw new TypeError('validate(): the instance is not JSON (undefined)');
  return withSchemaFile(schema, async (schemaArg) => {
    const args = ['schema', 'validate', '--json'];
    if (options.dialect) args.push('--dialect', options.dialect);
    if (options.strict === false) args.push('--no-strict');
    if (options.format) args.push('--format', options.format);
    args.push(schemaArg, '-');
    const r = await spawnWeld(args, { input: text, binary: options.binary });
    if (r.exitCode === 52 || !r.stdout.trim()) {
      throw new WeldError(r.stderr.trim() || `weld schema validate ended with ${r.exitCode ?? r.signal}`,
                          { exitCode: r.exitCode, stderr: r.stderr });
    }
    const result = JSON.parse(r.stdout.trim().split('\n')[0]);
    if (result.error) throw new WeldError(result.error, { exitCode: r.exitCode, stderr: r.stderr });
    return { valid: result.valid, errors: result.errors };
  });
}

module.exports = { run, validate, binaryPath, WeldError };
