// Qwen Code (@qwen-code/qwen-code): OpenAI-compatible endpoint via
// OPENAI_BASE_URL/OPENAI_API_KEY/OPENAI_MODEL, stdin from /dev/null,
// telemetry off.
import path from 'node:path';
export default function qwenImpl({ nodeModules }) {
  return {
    name: 'Qwen Code',
    api: 'openai',
    toolName: 'structured_output',
    argv: (port, prompt, schema) => [path.join(nodeModules, '.bin/qwen'), '-p', prompt, '--json-schema', schema,
      '--auth-type', 'openai', '--telemetry', 'false'],
    env: (port) => ({ OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: 'sk-bench',
      OPENAI_MODEL: 'fake-model' }),
    payload: (stdout) => JSON.parse(stdout),
  };
}
