// weld, over the OpenAI and the Anthropic API (the same one-turn run).
export default function weldImpls({ weld }) {
  return ['openai', 'anthropic'].map((api) => ({
    name: `weld (${api})`,
    api,
    toolName: 'structured_output',
    argv: (port, prompt, schema) => [weld, '--provider', api, '--base-url',
      api === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`,
      '--model', 'fake-model', '--no-session-persistence', '-p', prompt, '--json-schema', schema],
    env: () => ({ WELD_API_KEY: 'sk-bench' }),
    // text mode: stdout is exactly the payload and a newline
    payload: (stdout) => JSON.parse(stdout),
  }));
}
