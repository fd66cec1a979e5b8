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
count() {
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$weld" schema validate --no-strict \
    "$data/schema-noformat.json" "$data/instances.jsonl" --benchmark "$1" 2>&1 >/dev/null |
    awk '/Collected/ {print $4}'
}
# The difference between 11 and 1 iterations is 10 validations of each
# instance: loading, parsing and compiling cancel out.
one=$(count 1)
eleven=$(count 11)
instances=$(wc -l < "$data/instances.jsonl")
echo "$1: $(( (eleven - one) / (10 * instances) )) instructions per validation"
