// Claude Code (@anthropic-ai/claude-code): Anthropic endpoint via
// ANTHROPIC_BASE_URL; its structured-output tool is named StructuredOutput;
// non-essential traffic, telemetry and the auto-updater off.
import path from 'node:path';
export default function claudeImpl({ nodeModules }) {
  return {
    name: 'Claude Code',
    api: 'anthropic',
    toolName: 'StructuredOutput',
    // Claude Code 2.1.332 exits 1 after printing a successful envelope
    // ("subtype":"success","is_error":false) under these conditions; the
    // answer is still checked, so the run is measured and the quirk noted.
    nonZeroExitOk: true,
    argv: (port, prompt, schema) => [path.join(nodeModules, '.bin/claude'), '-p', prompt, '--json-schema', schema,
      '--output-format', 'json'],
    env: (port) => ({ ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: 'sk-ant-bench',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1' }),
    // json mode: the envelope's structured_output field (or result text)
    payload: (stdout) => {
      const env = JSON.parse(stdout);
      return env.structured_output ?? JSON.parse(env.result);
    },
  };
}
