#!/usr/bin/env bash
# Telemetry benchmark (docs/telemetry.md, "What it costs"): what OTLP export costs, side by side in one
# run, as ratios (on / off):
#   run:   a one-turn --json-schema run against the fake model server
#          (tests/fake_model), median wall time of RUNS runs each, telemetry
#          off vs OTEL_EXPORTER_OTLP_ENDPOINT to a local sink (sink.sh); the
#          runs are made by hyperfine in RUNS off/on pairs back to back, so
#          that the load of a shared machine touches both sides alike, both
#          through `env` (its exec alone costs a few ms here); the median of
#          each pair's on/off is printed too;
#   proxy: tagged requests (bench/proxy's canned upstream, nginx `return 200`)
#          through two weld proxies, one exporting to the sink, one not; wrk
#          requests/s, alternated REPEAT times, and the CPU time (user + sys,
#          all threads, from /proc/<pid>/stat) per request of each weld and
#          of the sink: on a loaded machine the rate is the CPU left, while
#          CPU per request is what telemetry costs weld itself, kernel
#          included.
# The sink reads and acknowledges without decoding (tests/telemetry decode
# with the official decoders): nginx reading each body whole and dropping it
# (sink.sh), whose CPU (printed apart) is next to nothing, as a collector on
# another machine costs this one nothing; SINK=node uses a Node receiver instead (sink.mjs),
# whose CPU on the same cores shows in the rate.
# Usage: bench/telemetry/run.sh [path/to/weld]   (a Release build)
# Env: RUNS (runs of each side, default 300), DURATION (s per wrk run, default 5),
#      REPEAT (proxy alternations, default 3), CONNS (default 50), THREADS (proxy workers, default 2),
#      PARTS (run, proxy or both, the default), SINK (nginx, the default, or node).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
WELD=$(realpath "${1:-$root/build-rel/src/cli/weld}")
RUNS=${RUNS:-300}; DURATION=${DURATION:-5}; REPEAT=${REPEAT:-3}; CONNS=${CONNS:-50}; THREADS=${THREADS:-2}
UP=18301; NGX=18302; OFF=18303; ON=18304; SINK_PORT=18305
PARTS=${PARTS:-run proxy}
work=$(mktemp -d /tmp/weld-bench-telemetry.XXXXXX)
mkdir -p "$work/logs"
# shellcheck source=proxies.sh
source "$here/proxies.sh"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

if [ "${SINK:-nginx}" = node ]; then
  node "$here/sink.mjs" $SINK_PORT > "$work/logs/sink.log" & pids+=($!)
  sink_pid=$!
  sink_received() { curl -s "http://127.0.0.1:$SINK_PORT/count"; }
else
  start_sink "$work" $SINK_PORT
  sink_pid=$SINK_PID
  sink_received() { sink_count "$work"; }
fi
# CPU clock ticks (user + sys, all threads) a process has used.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
tick=$(getconf CLK_TCK)
if [[ " $PARTS " == *" run "* ]]; then
  printf '{"responses":[{"tool_calls":[{"name":"structured_output","arguments":{"summary":"ok","risk_level":"low"}}]}],"repeat_last":true}' \
    > "$work/script.json"
  node "$root/tests/fake_model/server.js" --script "$work/script.json" --port 0 > "$work/logs/fake.log" & pids+=($!)
  sleep 1
  fake_port=$(head -1 "$work/logs/fake.log" | sed 's/[^0-9]//g')
  schema='{"type":"object","properties":{"summary":{"type":"string"},"risk_level":{"enum":["low","high"]}},"required":["summary","risk_level"]}'
  cmd="$WELD --provider openai --base-url http://127.0.0.1:$fake_port/v1 --model m --no-session-persistence -p x --json-schema '$schema'"
  export WELD_API_KEY=bench HOME=$work
  off_cmd="env -u OTEL_EXPORTER_OTLP_ENDPOINT $cmd"
  on_cmd="env OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT $cmd"
  hyperfine -N --warmup 5 --runs 1 -n off "$off_cmd" -n on "$on_cmd" > /dev/null 2>&1
  # One off and one on run per pair, back to back, the first of the pair
  # alternating: a drifting load touches both sides of each pair alike.
  for i in $(seq "$RUNS"); do
    if ((i % 2)); then pair=(-n off "$off_cmd" -n on "$on_cmd"); else pair=(-n on "$on_cmd" -n off "$off_cmd"); fi
    hyperfine -N --runs 1 --export-json "$work/run-$i.json" "${pair[@]}" > /dev/null 2>&1
  done
  node -e '
    const times = { off: [], on: [] }, ratios = [];
    for (const file of process.argv.slice(1)) {
      const pair = {};
      for (const r of require(file).results) { times[r.command].push(...r.times); pair[r.command] = r.times[0]; }
      ratios.push(pair.on / pair.off);
    }
    const median = (t) => { t.sort((a, b) => a - b); return (t[(t.length - 1) >> 1] + t[t.length >> 1]) / 2; };
    const off = median(times.off), on = median(times.on);
    console.log(`run wall time, median of ${times.on.length}: off ${(off * 1e3).toFixed(2)} ms, on ${(on * 1e3).toFixed(2)} ms, on/off ${(on / off).toFixed(3)}; median of the pairs'"'"' on/off ${median(ratios).toFixed(3)}`);
  ' "$work"/run-*.json
fi

if [[ " $PARTS " == *" proxy "* ]]; then
  start_nginx_pair "$work" $UP $NGX "$THREADS" "" 0
  start_weld_proxy "$work" weld-off "$WELD" $OFF $UP "$THREADS"
  weld_off=$WELD_PID
  start_weld_proxy "$work" weld-on "$WELD" $ON $UP "$THREADS" OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT
  weld_on=$WELD_PID
  sleep 1
  for port in $OFF $ON; do check_tagged $port; done
  post="$work/post.lua"
  tagged_post "$post"
  for i in $(seq "$REPEAT"); do
    for side in off on; do
      port=$OFF; pid=$weld_off
      [ $side = on ] && { port=$ON; pid=$weld_on; }
      weld0=$(cpu_ticks $pid); sink0=$(cpu_ticks $sink_pid)
      wrk -t2 -c"$CONNS" -d"${DURATION}s" -s "$post" "http://127.0.0.1:$port/v1/chat/completions" > "$work/wrk.txt"
      weld1=$(cpu_ticks $pid); sink1=$(cpu_ticks $sink_pid)
      # side, req/s, requests, weld's CPU ticks, the sink's CPU ticks
      echo "$side $(awk '/Requests\/sec/ {print $2}' "$work/wrk.txt") $(awk '/requests in/ {print $1}' "$work/wrk.txt")" \
        "$((weld1 - weld0)) $((sink1 - sink0))" >> "$work/proxy.txt"
    done
  done
  # Each alternation's on/off is taken a few seconds apart, under about the
  # same load: their median is the figure a drifting load moves least.
  awk '{sum[$1] += $2; n[$1]++; req[$1] += $3; cpu[$1] += $4; sink[$1] += $5
        if ($1 == "off") last = $2; else ratio[n["on"]] = $2 / last} END {
    off = sum["off"] / n["off"]; on = sum["on"] / n["on"]
    printf "proxy tagged req/s at %s connections, mean of %d: off %.0f, on %.0f, on/off %.3f\n", conns, n["on"], off, on, on / off
    k = n["on"]; for (i = 1; i <= k; i++) sorted[i] = ratio[i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (sorted[j] < sorted[i]) { t = sorted[i]; sorted[i] = sorted[j]; sorted[j] = t }
    line = ""; for (i = 1; i <= k; i++) line = line sprintf(" %.3f", ratio[i])
    median = (k % 2) ? sorted[(k + 1) / 2] : (sorted[k / 2] + sorted[k / 2 + 1]) / 2
    printf "on/off of each alternation:%s; median %.3f\n", line, median
    us = 1e6 / tick; coff = cpu["off"] * us / req["off"]; con = cpu["on"] * us / req["on"]
    printf "weld CPU (user+sys) per tagged request: off %.1f us, on %.1f us, on/off %.3f; the sink: %.1f us\n", coff, con, con / coff, sink["on"] * us / req["on"]
  }' conns="$CONNS" tick="$tick" "$work/proxy.txt"
fi
echo "sink received: $(sink_received)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
