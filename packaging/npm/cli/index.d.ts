// Types of the weld npm package's programmatic API (index.js).

/** A JSON Schema: an object, a boolean, or its JSON text. */
export type Schema = object | boolean | string;

export interface RunOptions {
  /** The prompt. */
  prompt: string;
  /** The JSON Schema the answer must validate against. */
  schema: Schema;
  /** Text placed before the prompt (as weld does with piped input): the data the prompt is about. */
  input?: string;
  /** openai | openai-responses | anthropic | offline */
  provider?: string;
  model?: string;
  /** The model server's base URL (OpenAI: up to /v1; Anthropic: the host). */
  baseUrl?: string;
  /** The API key, passed to weld as WELD_API_KEY (never on its command line). */
  apiKey?: string;
  systemPrompt?: string;
  /** tool | native | auto */
  mechanism?: string;
  maxSessionTurns?: number;
  maxToolCalls?: number;
  /** Seconds. */
  maxWallTime?: number;
  maxStructuredRetries?: number;
  maxRetries?: number;
  /** Seconds. */
  connectTimeout?: number;
  /** Seconds. */
  idleTimeout?: number;
  /** Seed of the offline model. */
  seed?: number;
  /** More weld flags, as on its command line. */
  args?: string[];
  /** Environment variables added to this process's for weld. */
  env?: Record<string, string>;
  cwd?: string;
  /** Aborting sends weld SIGTERM: it ends with exit code 130 and an error_cancelled envelope. */
  signal?: AbortSignal;
  /** A weld executable to run instead of this package's (default: $WELD_BINARY, then the platform package). */
  binary?: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** weld's result envelope (`weld -o result`), the same as `claude -p --output-format json`'s. */
export interface Envelope {
  type: 'result';
  subtype: 'success' | 'error_plain_text' | 'error_max_turns' | 'error_max_structured_output_retries' |
    'error_budget' | 'error_api' | 'error_cancelled' | 'error_during_execution' | string;
  is_error: boolean;
  result: string;
  structured_result?: unknown;
  structured_output?: unknown;
  num_turns: number;
  attempts: number;
  repairs: Array<Record<string, unknown>>;
  usage: Usage;
  total_cost_usd?: number;
  duration_ms: number;
  duration_api_ms: number;
  ttft_ms?: number;
  api_error_status: number | null;
  session_id: string;
  stop_reason: string;
  error?: { message: string };
  last_candidate?: unknown;
  [field: string]: unknown;
}

export interface RunResult<T = unknown> {
  /** weld's exit code: 0 success, 1, 41, 52, 53, 55, 75 or 130 (docs/run.md, "Exit codes"). */
  exitCode: number | null;
  /** exitCode === 0: `output` validates against the schema. */
  ok: boolean;
  envelope: Envelope;
  /** The schema-valid answer (structured_output), on success only. */
  output?: T;
  /** weld's messages (defaults it picked, warnings, the error). */
  stderr: string;
}

/** One run of weld: resolves once weld has ended, whatever its exit code. */
export function run<T = unknown>(options: RunOptions): Promise<RunResult<T>>;

export interface ValidationError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

export interface ValidateOptions {
  /** draft4, draft6, draft7, 2019-09 or 2020-12, for schemas without $schema. */
  dialect?: string;
  /** false: skip the strict (Ajv strictSchema) checks of the schema. */
  strict?: boolean;
  /** assert (default) or annotate. */
  format?: 'assert' | 'annotate';
  /** The instance is JSON text to parse, not a value. */
  text?: boolean;
  binary?: string;
}

/** Validates a JSON value against a schema with weld's engine. */
export function validate(schema: Schema, instance: unknown, options?: ValidateOptions):
  Promise<{ valid: boolean; errors: ValidationError[] }>;

/** The weld executable this package runs ($WELD_BINARY, else the platform package's); throws when there is none. */
export function binaryPath(): string;

/** weld could not be started, printed no result, or refused the schema (exitCode 52). */
export class WeldError extends Error {
  exitCode: number | null;
  stderr?: string;
}
