#!/usr/bin/env bash
# Builds side by side (docs/telemetry.md, "What it costs"): several weld proxies alive at once, each
# with telemetry on or off, and wrk over each in turn, the order rotating
# every round, so that the machine's drifting load touches every proxy
# alike. Prints each proxy's tagged req/s and its CPU per request (user +
# sys, all threads, from /proc/<pid>/stat), both also as a ratio to the
# first proxy named. run.sh is the acceptance figure (one build, off vs on);
# this is for comparing builds, e.g. a change against main:
#   bash bench/telemetry/compare.sh off=build-rel/src/cli/weld:off \
#        main=../main/build-rel/src/cli/weld:on this=build-rel/src/cli/weld:on
# Each argument is NAME=WELD:MODE, MODE `off`, `on` (exporting to a local
# sink, sink.sh) or `on,VAR=VALUE` (one more environment variable, e.g.
# on,OTEL_BSP_MAX_EXPORT_BATCH_SIZE=2048).
# Env: REPEAT (rounds, default 8), DURATION (s per wrk run, default 5),
#      CONNS (default 50), THREADS (proxy workers, default 2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
REPEAT=${REPEAT:-8}; DURATION=${DURATION:-5}; CONNS=${CONNS:-50}; THREADS=${THREADS:-2}
UP=18321; NGX=18322; SINK_PORT=18325; first_port=18330
[ $# -ge 2 ] || { echo "usage: $0 NAME=WELD:MODE NAME=WELD:MODE ..." >&2; exit 2; }
work=$(mktemp -d /tmp/weld-bench-compare.XXXXXX)
mkdir -p "$work/logs"
# shellcheck source=proxies.sh
source "$here/proxies.sh"
start_sink "$work" $SINK_PORT
start_nginx_pair "$work" $UP $NGX "$THREADS" "" 0

declare -A port pid
names=()
next_port=$first_port
for spec in "$@"; do
  name=${spec%%=*}; rest=${spec#*=}; weld=$(realpath "${rest%%:*}"); mode=${rest#*:}
  envs=()
  [[ $mode == on* ]] && envs+=("OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT")
  [[ $mode == on,* ]] && envs+=("${mode#on,}")
  start_weld_proxy "$work" "$name" "$weld" $next_port $UP "$THREADS" "${envs[@]}"
  pid[$name]=$WELD_PID; port[$name]=$next_port; next_port=$((next_port + 1)); names+=("$name")
done
sleep 1
tagged_post "$work/post.lua"
for name in "${names[@]}"; do check_tagged "${port[$name]}"; done
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
order=("${names[@]}")
for round in $(seq "$REPEAT"); do
  order=("${order[@]:1}" "${order[0]}")
  for name in "${order[@]}"; do
    before=$(cpu_ticks "${pid[$name]}")
    wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$work/post.lua" "http://127.0.0.1:${port[$name]}/v1/chat/completions" > "$work/wrk.txt"
    after=$(cpu_ticks "${pid[$name]}")
    # round, name, req/s, requests, weld's CPU ticks
    echo "$round $name $(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt") $(awk '/requests in/ {print $1}' "$work/wrk.txt") $((after - before))" >> "$work/rounds.txt"
  done
done
awk -v tick="$(getconf CLK_TCK)" -v names="${names[*]}" -v rounds="$REPEAT" '
  { rate[$2] += $3; requests[$2] += $4; cpu[$2] += $5 }
  END {
    n = split(names, order, " "); first = order[1]
    printf "tagged req/s and weld CPU per request, mean of %d rounds (ratios to %s):\n", rounds, first
    for (i = 1; i <= n; i++) {
      k = order[i]
      printf "  %-10s %7.0f req/s (%.3f)  %5.1f us (%.3f)\n", k, rate[k] / rounds, rate[k] / rate[first],
        cpu[k] * 1e6 / tick / requests[k], (cpu[k] / requests[k]) / (cpu[first] / requests[first])
    }
  }' "$work/rounds.txt"
echo "sink received: $(sink_count "$work")"
