#!/usr/bin/env python3
"""The weld module against the Python validators people use, on real data.

Data: the 34 sets of jsonschema-benchmark (sourcemeta-research/jsonschema-
benchmark: real projects' schemas, each with instances that are valid
against it), read from ../shared/data/jsonschema-benchmark/schemas beside
the checkout, or from --data / $WELD_DATA_DIR. Without it the benchmark
says so and exits 0.

Peers, run in this process on the same instances, each schema compiled
once (schema-noformat.json, as bench/schema does: `format` is left out so
that every engine does the same work):
  - python-jsonschema (Debian python3-jsonschema): validator.is_valid
  - fastjsonschema (Debian python3-fastjsonschema): the compiled function
  - weld, Python dicts: Validator.is_valid(dict)
  - weld, JSON text: Validator.is_valid_json(bytes)
  - the C++ validator on the same text (bench/python/cpp_text_bench.cc,
    json::parse + is_valid, and is_valid alone), when built.

Each instance is validated ITERATIONS times in a row, best of ROUNDS rounds;
python-jsonschema, a thousand times slower, once per round. Times are CPU
time of the thread (time.thread_time_ns; the C++ bench the same): on a
shared machine wall time counts other processes' turns too. Every engine
must find every instance valid (column "all valid").

Then the cost of a call on a tiny instance, and the memory a million
validations add to the process (resident set size, before and after).

    cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DWELD_BUILD_PYTHON=ON -DWELD_BUILD_BENCH=ON
    cmake --build build-bench -j2 --target weld_python weld_python_cpp_text_bench
    PYTHONPATH=build-bench/python /usr/bin/python3 bench/python/bench.py --cpp build-bench/bench/python/weld_python_cpp_text_bench

docs/python.md ("Speed") has the table of a run and reads it.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from itertools import repeat
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def data_dir(given: Optional[str]) -> Path:
    if given:
        return Path(given)
    if os.environ.get("WELD_DATA_DIR"):
        return Path(os.environ["WELD_DATA_DIR"]) / "jsonschema-benchmark" / "schemas"
    return REPO.parent / "shared" / "data" / "jsonschema-benchmark" / "schemas"


def best_ns(call: Callable[[object], object], instances: List[object], per_round: int, rounds: int) -> float:
    """Best over `rounds` of the mean ns per call, each instance `per_round` times in a row."""
    best = math.inf
    count = len(instances) * per_round
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.thread_time_ns()
            for instance in instances:
                for _ in repeat(None, per_round):
                    call(instance)
            best = min(best, (time.thread_time_ns() - start) / count)
    finally:
        gc.enable()
    return best


def best_ns_raising(call: Callable[[object], object], instances: List[object], per_round: int, rounds: int) -> float:
    """best_ns for a call that raises on an invalid instance (fastjsonschema), caught in the loop itself."""
    best = math.inf
    count = len(instances) * per_round
    gc.disable()
    try:
        for _ in range(rounds):
            start = time.thread_time_ns()
            for instance in instances:
                for _ in repeat(None, per_round):
                    try:
                        call(instance)
                    except Exception:
                        pass
            best = min(best, (time.thread_time_ns() - start) / count)
    finally:
        gc.enable()
    return best


def invalid_count(check: Callable[[object], bool], instances: List[object]) -> int:
    """How many of the (all valid) instances `check` finds invalid (or fails on)."""
    count = 0
    for instance in instances:
        try:
            count += not check(instance)
        except Exception:  # a bug of the engine (python-jsonschema on ui5-manifest)
            count += 1
    return count


def fast_check(validate: Callable[[object], object]) -> Callable[[object], bool]:
    import fastjsonschema

    def check(instance: object) -> bool:
        try:
            validate(instance)
            return True
        except Exception:  # JsonSchemaException, or a bug of its generated code
            return False

    return check


def cpp_times(binary: Optional[str], directory: Path, iterations: int, name: str) -> Dict[str, float]:
    """{"parse_ns", "valid_ns", "all_valid"} of one data set from the C++ bench, or {} without it."""
    if not binary:
        return {}
    out = subprocess.run([binary, str(directory), str(iterations), name], check=True, capture_output=True,
                         text=True).stdout
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    return rows[0] if rows else {}


def best_of(first: Dict[str, float], second: Dict[str, float]) -> Dict[str, float]:
    """The faster figures of two runs of the C++ bench."""
    if not first or not second:
        return first or second
    return {"parse_ns": min(first["parse_ns"], second["parse_ns"]), "valid_ns": min(first["valid_ns"], second["valid_ns"]),
            "all_valid": first["all_valid"] and second["all_valid"]}


def tiny_call_costs(loops: int) -> List[str]:
    """ns per call of {} against {"type": "object"}, for every engine."""
    import fastjsonschema
    import jsonschema

    import weld

    schema = {"type": "object"}
    instance: dict = {}
    weld_validator = weld.validator_for(schema)
    fast = fastjsonschema.compile(schema, use_default=False)
    slow = jsonschema.validators.validator_for(schema)(schema)
    text = b"{}"
    rows = []
    empty = best_ns(lambda x: None, [instance], loops, 5)
    for name, call, arg in [
        ("weld is_valid({})", weld_validator.is_valid, instance),
        ("weld is_valid_json(b'{}')", weld_validator.is_valid_json, text),
        ("fastjsonschema", fast, instance),
        ("python-jsonschema is_valid", slow.is_valid, instance),
    ]:
        ns = (best_ns_raising if call is fast else best_ns)(call, [arg], loops if "python-jsonschema" not in name else loops // 20, 5)
        rows.append(f"| {name} | {ns:.0f} | {max(ns - empty, 0):.0f} |")
    return [
        f"Tiny instance ({{}} against {{\"type\":\"object\"}}), {loops} calls in a loop, best of 5;",
        f"the loop itself (a call of `lambda x: None`) costs {empty:.0f} ns.",
        "",
        "| call | ns per call | ns over the loop's own |",
        "|---|---:|---:|",
        *rows,
    ]


def rss_bytes() -> int:
    """The resident set size of this process (0 without /proc)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def memory_growth(count: int) -> List[str]:
    """KiB the process grows by over `count` validations of a dict, of JSON text, and of invalid dicts with errors."""
    import weld

    schema = {"type": "object", "required": ["id", "name"],
              "properties": {"id": {"type": "integer"}, "name": {"type": "string", "minLength": 1},
                             "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}}, "big": {"type": "integer"}}}
    valid = {"id": 7, "name": "a fairly long name that is not a short string", "tags": ["a", "c"], "big": 2**80}
    invalid = {"id": "7", "name": "", "tags": ["z"], "big": 1.5}
    validator = weld.validator_for(schema)
    text = json.dumps(valid).encode()
    rows = []
    for name, call, arg, n in [("is_valid(dict)", validator.is_valid, valid, count),
                               ("is_valid_json(bytes)", validator.is_valid_json, text, count),
                               ("iter_errors(invalid dict)", lambda x: list(validator.iter_errors(x)), invalid, count // 10)]:
        for _ in range(n // 10):  # warm-up: caches, the allocator's arenas
            call(arg)
        gc.collect()
        before = rss_bytes()
        for _ in repeat(None, n):
            call(arg)
        gc.collect()
        rows.append(f"| {name} | {n:,} | {(rss_bytes() - before) / 1024:.0f} |")
    return ["Memory: the resident set size before and after the calls (after a warm-up of a tenth as many).", "",
            "| calls | count | growth KiB |", "|---|---:|---:|", *rows]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="the jsonschema-benchmark schemas folder")
    parser.add_argument("--iterations", type=int, default=20, help="calls per instance per round (default 20)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, the best is kept (default 3)")
    parser.add_argument("--slow-rounds", type=int, default=1, help="rounds of python-jsonschema (default 1)")
    parser.add_argument("--cpp", help="bench/python/cpp_text_bench binary (C++ parse + is_valid)")
    parser.add_argument("--only", default="", help="only the data sets whose name contains this")
    parser.add_argument("--tiny-loops", type=int, default=1_000_000)
    parser.add_argument("--memory-calls", type=int, default=1_000_000)
    args = parser.parse_args()

    directory = data_dir(args.data)
    if not directory.is_dir():
        print(f"bench/python: no jsonschema-benchmark data at {directory} (pass --data or set WELD_DATA_DIR); skipped")
        return 0
    try:
        import fastjsonschema
        import jsonschema

        import weld
    except ImportError as error:
        print(f"bench/python: {error} (apt-get install python3-jsonschema python3-fastjsonschema; "
              "PYTHONPATH=<build>/python for weld); skipped")
        return 0

    print(f"Python {platform.python_version()} ({sys.executable}), jsonschema {_version('jsonschema')}, "
          f"fastjsonschema {fastjsonschema.VERSION}, weld {weld.__version__}; {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.iterations} iterations, "
          f"best of {args.rounds} rounds (python-jsonschema: 1 iteration, best of {args.slow_rounds}).")
    print()
    header = ("| dataset | instances | python-jsonschema ns | fastjsonschema ns | weld dict ns | weld text ns "
              "| C++ parse+is_valid ns | C++ is_valid ns | jsonschema/weld | fastjsonschema/weld | weld text/C++ | every engine finds every instance valid |")
    print(header)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    logs: Dict[str, List[float]] = {"slow": [], "fast": [], "text_cpp": [], "weld": [], "weld_text": []}
    faster_than_fast = 0
    compared = 0
    for folder in sorted(p for p in directory.iterdir() if p.is_dir()):
        name = folder.name
        if args.only and args.only not in name:
            continue
        schema = json.loads((folder / "schema-noformat.json").read_text())
        lines = [line for line in (folder / "instances.jsonl").read_bytes().splitlines() if line.strip()]
        instances = [json.loads(line) for line in lines]

        validator = weld.validator_for(schema, validate_formats=False)
        slow = jsonschema.validators.validator_for(schema)(schema)
        try:
            # use_default=False: by default fastjsonschema writes the schema's defaults into the
            # instance, which no other engine does (and which changes the instances under the others).
            fast = fastjsonschema.compile(schema, use_default=False)
            fast_error = ""
        except Exception as error:  # fastjsonschema refuses some schemas
            fast, fast_error = None, f"{type(error).__name__}: {str(error)[:60]}"

        wrong = {"weld dict": invalid_count(validator.is_valid, instances),
                 "weld text": invalid_count(validator.is_valid_json, lines),
                 "python-jsonschema": invalid_count(slow.is_valid, instances),
                 "fastjsonschema": invalid_count(fast_check(fast), instances) if fast else 0}
        # C++ first and last, weld text between: the ratio of the two is the one a target is set on.
        row = cpp_times(args.cpp, directory, args.iterations, name)
        text_ns = best_ns(validator.is_valid_json, lines, args.iterations, args.rounds)
        weld_ns = best_ns(validator.is_valid, instances, args.iterations, args.rounds)
        fast_ns = best_ns_raising(fast, instances, args.iterations, args.rounds) if fast else math.nan
        slow_ns = best_ns_raising(slow.is_valid, instances, 1, args.slow_rounds)
        text_ns = min(text_ns, best_ns(validator.is_valid_json, lines, args.iterations, args.rounds))
        row = best_of(row, cpp_times(args.cpp, directory, args.iterations, name))
        cpp_parse = row.get("parse_ns", math.nan)
        cpp_valid = row.get("valid_ns", math.nan)
        if row and not row["all_valid"]:
            wrong["C++"] = 1
        verdicts = ", ".join(f"{engine} finds {count} invalid" for engine, count in wrong.items() if count) or "yes"

        logs["slow"].append(math.log(slow_ns / weld_ns))
        logs["weld"].append(math.log(weld_ns))
        logs["weld_text"].append(math.log(text_ns))
        if fast:
            logs["fast"].append(math.log(fast_ns / weld_ns))
            compared += 1
            faster_than_fast += fast_ns > weld_ns
        if row:
            logs["text_cpp"].append(math.log(text_ns / cpp_parse))
        fast_cell = f"{fast_ns:.0f}" if fast else f"fails: {fast_error}"
        print(f"| {name} | {len(instances)} | {slow_ns:.0f} | {fast_cell} | {weld_ns:.0f} | {text_ns:.0f} "
              f"| {cpp_parse:.0f} | {cpp_valid:.0f} | {slow_ns / weld_ns:.0f} | "
              f"{(fast_ns / weld_ns) if fast else math.nan:.2f} | {text_ns / cpp_parse:.2f} | "
              f"{verdicts} |", flush=True)

    def geo(key: str) -> float:
        return math.exp(sum(logs[key]) / len(logs[key])) if logs[key] else math.nan

    print()
    print(f"- geometric mean, python-jsonschema / weld (dicts): {geo('slow'):.0f}x over {len(logs['slow'])} sets")
    print(f"- geometric mean, fastjsonschema / weld (dicts): {geo('fast'):.2f}x over the {compared} sets "
          f"fastjsonschema runs; weld faster on {faster_than_fast} of them "
          f"(fastjsonschema fails on {len(logs['slow']) - compared} of {len(logs['slow'])})")
    print(f"- geometric mean, weld text / C++ parse+is_valid: {geo('text_cpp'):.2f} over {len(logs['text_cpp'])} sets")
    print(f"- geometric mean ns per instance: weld dicts {geo('weld'):.0f}, weld text {geo('weld_text'):.0f}")
    print()
    for line in tiny_call_costs(args.tiny_loops):
        print(line)
    print()
    for line in memory_growth(args.memory_calls):
        print(line)
    return 0


def _version(package: str) -> str:
    try:
        from importlib.metadata import version

        return version(package)
    except Exception:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
