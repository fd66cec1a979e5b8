// The man page and the bash, zsh and fish completions that
// packaging/cli_docs.py writes from weld's --help (installed by
// `cmake --install`, in the tarball and the .deb): every option of every
// subcommand is in all four, and each shell completes options, subcommands
// and option values when asked as a user would (tab).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const WELD = process.env.WELD_BIN;
const SOURCE_DIR = process.env.WELD_SOURCE_DIR;
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'weld-cli-docs-'));
const generated = spawnSync('python3', [path.join(SOURCE_DIR, 'packaging/cli_docs.py'), WELD, out], { encoding: 'utf8' });
after(() => fs.rmSync(out, { recursive: true, force: true }));
const have = (program) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

// Every command and its long options, read from --help apart from the
// generator: the top-level subcommands main() dispatches to their own main
// functions, then each one's "Subcommands:" section.
function commands() {
  const main = fs.readFileSync(path.join(SOURCE_DIR, 'src/cli/main.cc'), 'utf8');
  const queue = [...new Set([...main.matchAll(/command == "([a-z][a-z-]*)"\) return weld::cli::\w+_main\(argc - 1/g)]
    .map((m) => m[1]))].map((name) => [name]);
  assert.ok(queue.length >= 5, `the subcommands of src/cli/main.cc: ${queue}`);
  const found = [{ path: [], help: help([]) }];
  while (queue.length) {
    const p = queue.shift();
    const text = help(p);
    found.push({ path: p, help: text });
    const subs = /\nSubcommands:\n((?:  .*\n)+)/.exec(text);
    if (subs) for (const line of subs[1].split('\n').filter(Boolean)) queue.push([...p, line.trim().split(/\s+/)[0]]);
  }
  return found;
}
function help(p) {
  const r = spawnSync(WELD, [...p, '--help'], { encoding: 'utf8' });
  assert.equal(r.status, 0, `weld ${p.join(' ')} --help: ${r.stderr}`);
  return r.stdout;
}
function longOptions(text) {
  const section = /\nOptions:\n([\s\S]*?)(\n\n|$)/.exec(text);
  // Every long name of each option, aliases too: -y,--yolo,--dangerously-skip-permissions
  return [...section[1].matchAll(/^  (?:-\w,)?(--[A-Za-z][\w-]*(?:,--[A-Za-z][\w-]*)*)/gm)]
    .flatMap((m) => m[1].split(',')).filter((o) => o !== '--help');
}

test('cli_docs.py writes the four files', () => {
  assert.equal(generated.status, 0, generated.stderr);
  assert.deepEqual(fs.readdirSync(out).sort(), ['_weld', 'weld.1.gz', 'weld.bash', 'weld.fish']);
});

test('every option of every command is in the man page and the three completions', () => {
  const man = zlib.gunzipSync(fs.readFileSync(path.join(out, 'weld.1.gz'))).toString('utf8');
  const bash = fs.readFileSync(path.join(out, 'weld.bash'), 'utf8');
  const zsh = fs.readFileSync(path.join(out, '_weld'), 'utf8');
  const fish = fs.readFileSync(path.join(out, 'weld.fish'), 'utf8');
  let count = 0;
  for (const { path: p, help: text } of commands()) {
    if (p.length) assert.ok(man.includes(`.SS "weld ${p.join(' ').replace(/-/g, '\\-')}"`) || /\nSubcommands:/.test(text),
                            `man page section for weld ${p.join(' ')}`);
    for (const option of longOptions(text)) {
      ++count;
      const where = `weld ${p.join(' ')} ${option}`;
      assert.ok(man.includes(`\\fB${option.replace(/-/g, '\\-')}\\fR`), `${where} in weld.1`);
      assert.ok(bash.includes(`"weld${p.map((s) => ' ' + s).join('')}") opts="`) &&
                new RegExp(`"weld${p.map((s) => ' ' + s).join('')}"\\) opts="[^"]*${option}( |")`).test(bash),
                `${where} in the bash completion`);
      // '--name[help]', or a group of names: {-p,--prompt} {--json-schema,--output-schema}
      assert.ok(zsh.includes(`'${option}[`) || new RegExp(`[{,]${option}[,}]`).test(zsh), `${where} in the zsh completion`);
      assert.ok(fish.includes(`-l ${option.slice(2)} `), `${where} in the fish completion`);
    }
  }
  assert.ok(count > 100, `${count} options`);
});

test('the man page renders without warnings', { skip: !have('man') && 'man is not installed' }, () => {
  const r = spawnSync('man', ['--warnings', '-l', path.join(out, 'weld.1.gz')],
                      { encoding: 'utf8', env: { ...process.env, MANWIDTH: '80', MAN_KEEP_FORMATTING: '' } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.match(r.stdout, /EXIT STATUS/);
  assert.match(r.stdout, /weld schema validate/);
});

// The subcommands `weld schema --help` lists, as the completions should offer them.
const SCHEMA_SUBCOMMANDS = (() => {
  const subs = /\nSubcommands:\n((?:  .*\n)+)/.exec(help(['schema']));
  return subs[1].split('\n').filter(Boolean).map((line) => line.trim().split(/\s+/)[0]).sort();
})();

function bashComplete(line) {
  const words = line.split(' ');
  const script = `source ${JSON.stringify(path.join(out, 'weld.bash'))}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); ` +
                 'COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _weld; printf "%s\\n" "${COMPREPLY[@]}"';
  const r = spawnSync('bash', ['--norc', '-c', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean).sort();
}

test('bash completes options, subcommands and values', () => {
  assert.deepEqual(bashComplete('weld --prov'), ['--provider']);
  assert.deepEqual(bashComplete('weld --provider '), ['anthropic', 'offline', 'openai', 'openai-responses']);
  assert.ok(bashComplete('weld ').includes('batch'));
  assert.deepEqual(bashComplete('weld schema '), SCHEMA_SUBCOMMANDS);
  assert.deepEqual(bashComplete('weld schema validate --json'), ['--json', '--jsonl']);
  assert.deepEqual(bashComplete('weld schema check --format '), ['annotate', 'assert']);
  assert.deepEqual(bashComplete('weld --json-schema '), [], 'a value: left to file completion');
});

test('fish completes options, subcommands and values', { skip: !have('fish') && 'fish is not installed' }, () => {
  const complete = (line) => {
    const r = spawnSync('fish', ['--no-config', '-c', `source ${path.join(out, 'weld.fish')}; complete -C${JSON.stringify(line)}`],
                        { encoding: 'utf8', cwd: out });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split('\n').filter(Boolean).map((l) => l.split('\t')[0]).sort();
  };
  assert.deepEqual(complete('weld --prov'), ['--provider']);
  assert.deepEqual(complete('weld --provider '), ['anthropic', 'offline', 'openai', 'openai-responses']);
  assert.deepEqual(complete('weld schema '), SCHEMA_SUBCOMMANDS);
  assert.deepEqual(complete('weld schema validate --js'), ['--json', '--jsonl']);
});

test('zsh completes options, subcommands and values', { skip: !have('zsh') && 'zsh is not installed' }, () => {
  const complete = (line) => {
    const r = spawnSync('zsh', ['-f', path.join(SOURCE_DIR, 'tests/packaging/zsh_complete.zsh'), out, line],
                        { encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    return r.stdout.split(/\s+/).filter(Boolean).sort();
  };
  assert.deepEqual(complete('weld --prov'), ['--provider']);
  assert.deepEqual(complete('weld --provider '), ['anthropic', 'offline', 'openai', 'openai-responses']);
  assert.deepEqual(complete('weld schema '), SCHEMA_SUBCOMMANDS);
  assert.deepEqual(complete('weld schema validate --js'), ['--json', '--jsonl']);
});
