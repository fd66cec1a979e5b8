#!/usr/bin/env python3
"""The man page and the bash, zsh and fish completions of weld, written from
the built binary's own --help (every subcommand's), so they never disagree
with it. The prose around the options is packaging/weld.1.in.

Usage: packaging/cli_docs.py [--emulator PROGRAM] WELD_BINARY OUT_DIR
Writes OUT_DIR/weld.1.gz, OUT_DIR/weld.bash, OUT_DIR/_weld, OUT_DIR/weld.fish
(--emulator: how to run a cross-compiled weld, e.g. qemu-aarch64-static).
The CMake build runs it (cmake/WeldPackage.cmake, target weld_cli_docs).
tests/packaging/cli_docs.test.mjs checks that
every option of every --help reaches all four, and asks each shell.
"""
import gzip
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)


@dataclass
class Option:
    short: str  # "-p" or ""
    long: str  # "--prompt"
    value: str  # "" for a flag, else the value's type as --help prints it
    choices: list  # the values it accepts, when --help names them
    help: str
    aliases: list = field(default_factory=list)  # its other long names: ["--output-schema"]

    def names(self):
        return [n for n in (self.short, self.long, *self.aliases) if n]


@dataclass
class Command:
    path: list  # ["schema", "check"]; [] for weld itself
    about: str = ""
    usage: str = ""
    positionals: list = field(default_factory=list)  # (name, help)
    options: list = field(default_factory=list)
    subcommands: list = field(default_factory=list)  # names
    footer: dict = field(default_factory=dict)  # section title -> lines (weld's own --help)


EMULATOR = []


def help_text(weld, path):
    run = subprocess.run([*EMULATOR, weld, *path, "--help"], capture_output=True, text=True, timeout=30)
    if run.returncode != 0:
        raise SystemExit(f"cli_docs.py: weld {' '.join(path)} --help exited {run.returncode}: {run.stderr}")
    return run.stdout


def choices_of(value, text):
    m = re.search(r"\{([^}]*)\}", value)
    if m:
        return [c for c in m.group(1).split(",") if c]
    # "openai | openai-responses | anthropic | offline", "tool | native | auto: how ..."
    m = re.match(r"^([\w.-]+(?: \| [\w.-]+)+)(?:[:( ]|$)", text)
    return m.group(1).split(" | ") if m else []


def parse(weld, path):
    """One command's --help as CLI11 prints it: a line about it, Usage:,
    then Positionals:, Options: and Subcommands: sections of
    two-space-indented entries whose help is after two spaces or on the next,
    deeper lines; weld's own --help ends with titled free-text sections."""
    cmd = Command(path)
    section = None
    entry = None  # the last entry, for help continued on the next lines
    for line in help_text(weld, path).splitlines():
        if not line.strip():
            entry = None
            continue
        if line.startswith("Usage: "):
            cmd.usage = line[len("Usage: "):]
            continue
        if not line.startswith(" "):
            title = line.rstrip(":")
            if title.split(" (")[0] in ("Positionals", "Options", "Subcommands") and line.endswith(":"):
                section = title.split(" (")[0]
                if path == [] and section == "Subcommands":
                    section = "footer:" + title.split(" (")[0]
                    cmd.footer[section[7:]] = []
            elif line.endswith(":") and cmd.usage:
                section = "footer:" + title
                cmd.footer[title] = []
            elif not cmd.usage:
                cmd.about = (cmd.about + " " + line).strip()
            entry = None
            continue
        if section and section.startswith("footer:"):
            cmd.footer[section[7:]].append(line)
            continue
        if line.startswith("   ") and entry is not None:  # help continued
            entry["help"] = (entry["help"] + " " + line.strip()).strip()
            continue
        head, _, text = line.strip().partition("  ")
        text = text.strip()
        if section == "Options":
            names, _, value = head.partition(" ")
            short, longs = "", []
            for name in names.split(","):
                if name.startswith("--"):
                    longs.append(name)
                elif name.startswith("-"):
                    short = name
            if not longs:
                continue
            entry = {"kind": "option", "short": short, "long": longs[0], "aliases": longs[1:], "value": value.strip(),
                     "help": text}
            cmd.options.append(entry)
        elif section == "Positionals":
            entry = {"kind": "positional", "name": head.split(" ")[0], "help": text}
            cmd.positionals.append(entry)
        elif section == "Subcommands":
            entry = {"kind": "subcommand", "name": head.split(" ")[0], "help": text}
            cmd.subcommands.append(entry)
    cmd.options = [Option(o["short"], o["long"], o["value"], choices_of(o["value"], o["help"]) if o["value"] else [],
                          o["help"], o["aliases"]) for o in cmd.options]
    cmd.positionals = [(p["name"], p["help"]) for p in cmd.positionals]
    cmd.subcommand_help = {s["name"]: s["help"] for s in cmd.subcommands}
    cmd.subcommands = [s["name"] for s in cmd.subcommands]
    return cmd


def top_level_subcommands():
    """The subcommands weld's main() dispatches to their own main functions
    (src/cli/main.cc): its --help describes the run, and lists them only in
    prose. (`weld help COMMAND` prints one of these helps; it has none of its own.)"""
    with open(os.path.join(SOURCE, "src/cli/main.cc"), encoding="utf-8") as f:
        names = re.findall(r'command == "([a-z][a-z-]*)"\) return weld::cli::\w+_main\(argc - 1', f.read())
    return list(dict.fromkeys(names))


def all_commands(weld):
    root = parse(weld, [])
    root.subcommands = top_level_subcommands()
    commands = [root]
    def visit(path):  # depth first: weld schema, weld schema check, ...
        cmd = parse(weld, path)
        commands.append(cmd)
        for name in cmd.subcommands:
            visit(path + [name])
    for name in root.subcommands:
        visit([name])
    return commands


def takes_files(option):
    return option.value and not option.choices


# --- man page ---------------------------------------------------------------

def roff(text):
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text, flags=re.M)


def man_options(cmd):
    out = []
    for o in cmd.options:
        if o.long == "--help":
            continue
        names = ", ".join(f"\\fB{roff(n)}\\fR" for n in o.names())
        if o.value:
            names += f" \\fI{roff(o.value)}\\fR"
        out.append(f".TP\n{names}\n{roff(o.help)}")
    return "\n".join(out)


def man_page(commands, version):
    with open(os.path.join(HERE, "weld.1.in"), encoding="utf-8") as f:
        page = f.read()
    root = commands[0]
    sections = []
    for cmd in commands[1:]:
        if cmd.subcommands and not any(o.long != "--help" for o in cmd.options):
            continue  # a group (weld schema): its subcommands follow
        title = " ".join(["weld", *cmd.path])
        body = [f'.SS "{roff(title)}"', f".B {roff('weld ' + cmd.usage.split(' ', 1)[1]) if cmd.usage.startswith('weld') else roff(cmd.usage)}",
                ".PP", roff(cmd.about)]
        for name, text in cmd.positionals:
            body.append(f".TP\n\\fI{roff(name)}\\fR\n{roff(text)}")
        body.append(man_options(cmd))
        sections.append("\n".join(b for b in body if b))
    exits = []
    for line in root.footer.get("Exit codes (the same in every subcommand)", []):
        m = re.match(r"^\s+(\d+)\s+(.*)$", line)
        if m:
            exits.append(f".TP\n\\fB{m.group(1)}\\fR\n{roff(m.group(2))}")
        elif exits:
            exits[-1] += " " + roff(line.strip())
    env = []  # [name, help words]
    for line in root.footer.get("Environment", []):
        if len(line) - len(line.lstrip()) <= 2:
            name, _, text = line.strip().partition("  ")
            env.append([name, [text.strip()] if text.strip() else []])
        elif env:
            env[-1][1].append(line.strip())
    replacements = {
        "@VERSION@": version,
        "@RUN_OPTIONS@": "\n".join(f".TP\n\\fI{roff(n)}\\fR\n{roff(t)}" for n, t in root.positionals) + "\n" +
                         man_options(root),
        "@SUBCOMMANDS@": "\n".join(sections),
        "@EXIT_STATUS@": "\n".join(exits),
        "@ENVIRONMENT@": "\n".join(f".TP\n\\fB{roff(name)}\\fR\n{roff(' '.join(words))}" for name, words in env),
    }
    for key, value in replacements.items():
        page = page.replace(key, value)
    return page


# --- completions ------------------------------------------------------------

def key(cmd):
    return " ".join(["weld", *cmd.path])


def bash(commands):
    lines = ["# bash completion for weld, written from weld --help by packaging/cli_docs.py.",
             "_weld() {",
             "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd=weld i",
             "  for ((i = 1; i < COMP_CWORD; i++)); do",
             '    case "$cmd ${COMP_WORDS[i]}" in']
    subs = [key(c) for c in commands[1:]]
    lines.append("      " + "|".join(f'"{s}"' for s in subs) + ') cmd="$cmd ${COMP_WORDS[i]}" ;;')
    lines += ["    esac", "  done",
              "  # The value of an option: its choices, or files (complete -o default).",
              '  case "$cmd $prev" in']
    for cmd in commands:
        by_choices = {}
        for o in cmd.options:
            if o.value:
                names = o.names()
                by_choices.setdefault(" ".join(o.choices), []).extend(names)
        for choices, names in by_choices.items():
            pattern = "|".join(f'"{key(cmd)} {n}"' for n in names)
            if choices:
                lines.append(f'    {pattern}) COMPREPLY=($(compgen -W "{choices}" -- "$cur")); return ;;')
            else:
                lines.append(f"    {pattern}) COMPREPLY=(); return ;;")
    lines += ["  esac", '  case "$cmd" in']
    for cmd in commands:
        opts = " ".join(n for o in cmd.options for n in o.names())
        words = " ".join(cmd.subcommands)
        lines.append(f'    "{key(cmd)}") opts="{opts}" subs="{words}" ;;')
    lines += ["  esac",
              '  if [[ $cur == -* ]]; then',
              '    COMPREPLY=($(compgen -W "$opts" -- "$cur"))',
              '  elif [[ -n $subs ]]; then',
              '    COMPREPLY=($(compgen -W "$subs" -- "$cur"))',
              "  fi",
              "}",
              "complete -o default -F _weld weld", ""]
    return "\n".join(lines)


def zsh_quote(text):
    return text.replace("'", "'\\''").replace("[", "\\[").replace("]", "\\]").replace(":", "\\:")


def zsh(commands):
    lines = ["#compdef weld", "# zsh completion for weld, written from weld --help by packaging/cli_docs.py.", ""]
    for cmd in commands:
        name = "_weld" + "".join("_" + re.sub(r"\W", "_", p) for p in cmd.path)
        specs = []
        for o in cmd.options:
            help = zsh_quote(o.help.split(". ")[0])
            if o.value:
                action = f"({' '.join(o.choices)})" if o.choices else "_files"
                tail = f":{zsh_quote(o.value.split(':')[0].split('=')[0].lower())}:{action}"
            else:
                tail = ""
            names = o.names()
            if len(names) > 1:
                specs.append(f"'({' '.join(names)})'{{{','.join(names)}}}'[{help}]{tail}'")
            else:
                specs.append(f"'{o.long}[{help}]{tail}'")
        lines.append(f"{name}() {{")
        if cmd.subcommands:
            lines.append("  local -a subcommands")
            lines.append("  subcommands=(" + " ".join(
                f"'{s}:{zsh_quote(getattr(cmd, 'subcommand_help', {}).get(s, ''))}'" for s in cmd.subcommands) + ")")
            lines.append("  if (( CURRENT > 2 )) && (( ${subcommands[(I)${words[2]}:*]} )); then")
            lines.append("    local sub=${words[2]}")
            lines.append("    shift words; (( CURRENT-- ))")
            lines.append(f'    {name}_${{sub//[^a-zA-Z0-9]/_}}')
            lines.append("    return")
            lines.append("  fi")
            lines.append("  _arguments -s -S \\")
            for s in specs:
                lines.append(f"    {s} \\")
            lines.append("    '1: :{_describe command subcommands}' '*:file:_files'")
        else:
            lines.append("  _arguments -s -S \\")
            for s in specs:
                lines.append(f"    {s} \\")
            lines.append("    '*:file:_files'")
        lines.append("}")
        lines.append("")
    lines.append('if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _weld "$@"; else compdef _weld weld; fi')
    lines.append("")
    return "\n".join(lines)


def fish_quote(text):
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def fish(commands):
    lines = ["# fish completion for weld, written from weld --help by packaging/cli_docs.py.",
             "# __weld_is CMD...: the words typed so far name exactly this (sub)command.",
             "function __weld_is",
             "    set -l words (commandline -opc)",
             "    set -e words[1]",
             "    set -l path",
             "    for w in $words",
             "        string match -q -- '-*' $w; and continue",
             "        set -l next (string trim -- \"$path $w\")",
             "        if contains -- $next $__weld_commands",
             "            set path $next",
             "        end",
             "    end",
             "    test \"$path\" = \"$argv\"",
             "end"]
    lines.append("set -g __weld_commands " + " ".join(fish_quote(" ".join(c.path)) for c in commands[1:]))
    lines.append("complete -c weld -f")
    for cmd in commands:
        cond = fish_quote("__weld_is " + " ".join(cmd.path))
        for s in cmd.subcommands:
            lines.append(f"complete -c weld -n {cond} -a {s} -d {fish_quote(getattr(cmd, 'subcommand_help', {}).get(s, ''))}")
        for o in cmd.options:
            parts = [f"complete -c weld -n {cond}"] + [f"-l {n[2:]}" for n in (o.long, *o.aliases)]
            if o.short:
                parts.append(f"-s {o.short[1:]}")
            if o.choices:
                parts.append("-x -a " + fish_quote(" ".join(o.choices)))
            elif o.value:
                parts.append("-r -F")
            parts.append("-d " + fish_quote(o.help.split(". ")[0][:80]))
            lines.append(" ".join(parts))
    lines.append("")
    return "\n".join(lines)


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == "--emulator":
        EMULATOR.append(args[1])
        args = args[2:]
    if len(args) != 2:
        raise SystemExit(__doc__)
    weld, out = args
    version = subprocess.run([*EMULATOR, weld, "--version"], capture_output=True, text=True,
                             check=True).stdout.split()[1]
    commands = all_commands(weld)
    os.makedirs(out, exist_ok=True)
    # gzip as Debian's policy wants man pages, with no name or time inside, so
    # the same weld gives the same bytes.
    with open(os.path.join(out, "weld.1.gz"), "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
            z.write(man_page(commands, version).encode("utf-8"))
    for name, text in (("weld.bash", bash(commands)), ("_weld", zsh(commands)), ("weld.fish", fish(commands))):
        with open(os.path.join(out, name), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
