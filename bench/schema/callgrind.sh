#!/usr/bin/env bash
# Instructions per validation of weld on one jsonschema-benchmark dataset,
# counted by callgrind: exact and immune to the load of a shared machine
# (this VM has no hardware counters for `perf stat`). Use it to compare two
# builds of the engine; use run.js for the side-by-side timing against peers.
# Usage: bench/schema/callgrind.sh DATASET [path/to/weld]
#   e.g. bench/schema/callgrind.sh helm-chart-lock build-rel/src/cli/weld
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# The corpus: $WELD_DATA_DIR/jsonschema-benchmark/schemas (../shared/data by
# default), the schemas/ folder of sourcemeta-research/jsonschema-benchmark,
# kept outside the repository.
corpus=${WELD_DATA_DIR:-$here/../../../shared/data}/jsonschema-benchmark/schemas
if [ ! -d "$corpus" ]; then
  echo "bench/schema/callgrind.sh: no jsonschema-benchmark corpus at $corpus: skipped; set WELD_DATA_DIR" >&2
  exit 0
fi
data=$corpus/$1
weld=${2:-$here/../../build-release/src/cli/weld}
# Only the instructions inside Schema::is_valid are collected (the
# benchmark's clock reads, loading, parsing and compiling are not), divided
# by the number of validations it ran.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind --tool=callgrind --toggle-collect='*Schema::is_valid*' --callgrind-out-file="$out" "$weld" schema validate \
  --no-strict "$data/schema-noformat.json" "$data/instances.jsonl" --benchmark 10 >/dev/null 2>&1
awk 'function fn_name(line,   id, rest) {
       id = line; sub(/^c?fn=/, "", id); rest = id; sub(/ .*/, "", id)
       if (rest != id) { sub(/^[^ ]* /, "", rest); names[id] = rest }
       return names[id]
     }
     /^summary:/ {total = $2}
     /^fn=/ {in_valid = (fn_name($0) ~ /Schema::is_valid/)}
     /^cfn=/ {callee = (fn_name($0) ~ /evaluate_fast/) && in_valid}
     callee && /^calls=/ {split($1, c, "="); calls += c[2]; callee = 0}
     END {if (calls == 0) {print "no validation counted" > "/dev/stderr"; exit 1}
          printf "%s: %d instructions per validation\n", name, total / calls}' name="$1" "$out"
