#!/usr/bin/env bash
# Instructions and allocations per document for parse and serialize, counted
# by callgrind inside profile_loop() of weld_json_bench: exact and immune to
# the load of a shared machine (this VM has no hardware counters for perf).
# Parse figures include destroying the parsed value; serialize includes
# allocating the output string.
# Usage: bench/json/callgrind.sh [path/to/weld_json_bench] [IMPLS] [DOCS]
#   e.g. bench/json/callgrind.sh build-rel/bench/json/weld_json_bench "weld nlohmann"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bench=${1:-$here/../../build-rel/bench/json/weld_json_bench}
impls=${2:-weld nlohmann simdjson}
docs=${3:-canned chat_small chat_tools chat_long helm-chart-lock ui5-manifest cmake-presets krakend_schema}
printf '%-10s %-16s %-9s %14s %12s\n' op document impl instr/doc allocs/doc
for op in parse serialize; do
  for doc in $docs; do
    # Enough repetitions that one-off work (first-touch, lazy init) is noise.
    case $doc in krakend_schema) n=3 ;; chat_small|canned) n=200 ;; *) n=10 ;; esac
    for impl in $impls; do
      out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --toggle-collect='*profile_loop*' \
        "$bench" --profile "$impl" "$op" "$doc" "$n" 2>&1)
      collected=$(awk '/Collected/ {print $4}' <<<"$out")
      documents=$(awk '/^documents/ {print $2}' <<<"$out")
      allocs=$(awk '/^documents/ {print $6}' <<<"$out")
      printf '%-10s %-16s %-9s %14d %12s\n' "$op" "$doc" "$impl" $(( collected / documents )) "$allocs"
    done
  done
done
