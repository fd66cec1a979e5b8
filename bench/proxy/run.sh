#!/usr/bin/env bash
# weld proxy benchmark (docs/bench-proxy.md), on loopback against a fixed-response upstream
# (nginx `return 200` with a canned chat-completion tool-call body):
#   wrk at 50 and 500 connections — direct to the upstream, through nginx as an
#   LLM proxy (upstream keep-alive, no buffering), through weld proxy untagged,
#   through weld proxy tagged (non-streaming client, valid tool call); the
#   untagged Anthropic Messages shape at 500 (POST /v1/messages, a short user
#   message, the upstream answering a canned tool_use message) through nginx
#   and weld; and 5,000 concurrent open streaming requests held through weld
#   (its resident memory).
# Usage: bench/proxy/run.sh [path/to/weld]   (a Release build)
#   Then the same four at 50 connections paced (each connection pauses
#   PACE_MS between requests: the CPU is not saturated, so the latency a proxy
#   adds is its own work, not queueing), and weld untagged with its access log
#   on (written to a file) to show what the log costs.
# Env: DURATION (s per wrk run, default 10), REPEAT (runs per cell, default 3),
#      STREAMS (default 5000), THREADS (weld/nginx workers, default 2),
#      PACE_MS (default 10), PIN (1: both proxies pin their workers one per CPU,
#      nginx with `worker_cpu_affinity auto`, weld with --pin-threads; default 0).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
WELD=${1:-$here/../../build-rel/src/cli/weld}
DURATION=${DURATION:-10}
REPEAT=${REPEAT:-3}
STREAMS=${STREAMS:-5000}
THREADS=${THREADS:-2}
UP=18101; NGX=18102; WP=18103; HOLD=18104; WH=18105; WL=18106
PACE_MS=${PACE_MS:-10}
PIN=${PIN:-0}
pin_flag=(); [ "$PIN" = 1 ] && pin_flag=(--pin-threads)
work=$(mktemp -d /tmp/weld-bench-proxy.XXXXXX)
# Raw outputs stay out of the repository (docs/bench-proxy.md has the summary).
out=${OUT:-$work/results}
echo "raw results in $out"
mkdir -p "$out" "$work/logs"
ulimit -n "$(ulimit -Hn)"  # 5,000 streams need ~10,000 descriptors in weld
# shellcheck source=nginx_pair.sh
source "$here/nginx_pair.sh"
start_nginx_pair "$work" $UP $NGX "$THREADS" "" "$PIN"
echo "PIN=$PIN THREADS=$THREADS DURATION=${DURATION}s REPEAT=$REPEAT; load average $(cut -d' ' -f1-3 /proc/loadavg)" |
  tee "$out/setup.txt"
"$WELD" proxy --listen 127.0.0.1:$WP --upstream http://127.0.0.1:$UP --threads "$THREADS" --no-access-log \
  "${pin_flag[@]}" 2> "$work/logs/weld.log" & pids+=($!)
"$WELD" proxy --listen 127.0.0.1:$WL --upstream http://127.0.0.1:$UP --threads "$THREADS" "${pin_flag[@]}" \
  2> "$work/logs/weld-access.log" & pids+=($!)
sleep 1
url=/v1/chat/completions
# Sanity: every path answers 200, tagged answers the welded text.
for port in $UP $NGX $WP; do
  curl -sf -o /dev/null -X POST -H 'content-type: application/json' -d '{"model":"bench"}' http://127.0.0.1:$port$url
done
tagged=$(curl -sf -X POST -H 'content-type: application/json' -d '{"model":"bench__schema=router","messages":[]}' \
  http://127.0.0.1:$WP$url)
echo "$tagged" | grep -q '"content":"{\\"action\\":\\"refund\\"}"' || { echo "tagged answer wrong: $tagged"; exit 1; }

run_wrk() {  # name port model connections [script [path]]
  local name=$1 port=$2 model=$3 conns=$4 script=${5:-post.lua} url=${6:-$url}
  {
    BENCH_MODEL=$model PACE_MS=$PACE_MS wrk -t2 -c"$conns" -d"${DURATION}s" --latency -s "$here/$script" \
      "http://127.0.0.1:$port$url" > "$out/wrk-$name-c$conns-r$rep.txt"
    awk -v name="$name" -v c="$conns" '
      function ms(v) { if (v ~ /us$/) return v/1000; if (v ~ /ms$/) return v+0; if (v ~ /s$/) return v*1000; return v }
      /^ +50%/ { p50 = ms($2) } /^ +99%/ { p99 = ms($2) } /^Requests\/sec/ { rps = $2 }
      /Non-2xx/ { bad = $NF }
      END { printf "%s\t%d\t%.3f\t%.3f\t%.0f\t%s\n", name, c, p50, p99, rps, bad ? bad : 0 }' \
      "$out/wrk-$name-c$conns-r$rep.txt" | tee -a "$out/wrk.tsv"
  }
}
: > "$out/wrk.tsv"
# Every repetition visits every cell in turn, so a change in the machine's
# load during the run touches all paths alike; the ratios use each cell's
# median over the repetitions.
for rep in $(seq 1 "$REPEAT"); do
  for conns in 50 500; do
    run_wrk direct $UP bench "$conns"
    run_wrk nginx $NGX bench "$conns"
    run_wrk weld-untagged $WP bench "$conns"
    run_wrk weld-tagged $WP bench__schema=router "$conns"
  done
  run_wrk weld-untagged-log $WL bench 500
  run_wrk anthropic-nginx $NGX bench 500 post_anthropic.lua /v1/messages
  run_wrk anthropic-weld $WP bench 500 post_anthropic.lua /v1/messages
  for name in direct:$UP nginx:$NGX weld-untagged:$WP weld-tagged:$WP; do
    model=bench; [ "${name%%:*}" = weld-tagged ] && model=bench__schema=router
    run_wrk "paced-${name%%:*}" "${name##*:}" $model 50 paced.lua
  done
done
# Ratios: rates at 500 against nginx, p99 added over direct at 50 (saturated
# and paced), from the median of each cell.
awk -F'\t' '
  function median(list,    n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { key = $1 "@" $2; rl[key] = rl[key] " " $5; pl[key] = pl[key] " " $4; p5[key] = p5[key] " " $3
    n_of[key]++; p99_at[key, n_of[key]] = $4; rps_at[key, n_of[key]] = $5 }
  END {
    for (key in rl) { rps[key] = median(rl[key]); p99[key] = median(pl[key]) }
    printf "medians over %d run(s) per cell: path@conns p50 p99 req/s\n", '"$REPEAT"'
    n = split("direct@50 nginx@50 weld-untagged@50 weld-tagged@50 direct@500 nginx@500 weld-untagged@500 " \
              "weld-tagged@500 weld-untagged-log@500 anthropic-nginx@500 anthropic-weld@500 paced-direct@50 " \
              "paced-nginx@50 paced-weld-untagged@50 paced-weld-tagged@50", order, " ")
    for (i = 1; i <= n; i++) {
      key = order[i]
      if (key in rl) printf "  %-24s %7.3f %7.3f %8.0f\n", key, median(p5[key]), p99[key], rps[key]
    }
    printf "untagged/nginx req/s at 500: %.2f   tagged/nginx at 500: %.2f   untagged+log/nginx at 500: %.2f\n",
      rps["weld-untagged@500"] / rps["nginx@500"], rps["weld-tagged@500"] / rps["nginx@500"],
      rps["weld-untagged-log@500"] / rps["nginx@500"]
    printf "anthropic untagged weld/nginx req/s at 500: %.2f\n", rps["anthropic-weld@500"] / rps["anthropic-nginx@500"]
    printf "p99 added at 50 (saturated), ms: nginx %+.3f  weld-untagged %+.3f  weld-tagged %+.3f\n",
      p99["nginx@50"] - p99["direct@50"], p99["weld-untagged@50"] - p99["direct@50"], p99["weld-tagged@50"] - p99["direct@50"]
    printf "p99 added at 50 (paced), ms: nginx %+.3f  weld-untagged %+.3f  weld-tagged %+.3f\n",
      p99["paced-nginx@50"] - p99["paced-direct@50"], p99["paced-weld-untagged@50"] - p99["paced-direct@50"],
      p99["paced-weld-tagged@50"] - p99["paced-direct@50"]
    # Run by run (the cells of one repetition ran minutes apart at most, so
    # a change in the machine touches both sides of each difference alike).
    printf "per run, untagged p99 at 50 (saturated) minus nginx'"'"'s, ms:"
    for (r = 1; r <= n_of["nginx@50"]; r++) {
      d = p99_at["weld-untagged@50", r] - p99_at["nginx@50", r]; wins += d <= 0
      printf " %+.2f", d
    }
    printf "  (weld <= nginx in %d of %d)\n", wins, n_of["nginx@50"]
    printf "per run, untagged/nginx req/s at 500:"
    for (r = 1; r <= n_of["nginx@500"]; r++) printf " %.2f", rps_at["weld-untagged@500", r] / rps_at["nginx@500", r]
    printf "\n"
  }' "$out/wrk.tsv" | tee "$out/ratios.txt"
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/setup.txt"

# 5,000 concurrent streams held open through weld (untagged relay, then tagged
# with keep-alive pings), resident memory measured while they are open.
node "$here/hold_upstream.mjs" $HOLD > "$work/hold.port" & pids+=($!)
sleep 0.5
"$WELD" proxy --listen 127.0.0.1:$WH --upstream http://127.0.0.1:$HOLD --threads "$THREADS" --no-access-log \
  "${pin_flag[@]}" --keepalive 1 --idle-timeout 300 2> "$work/logs/weld-hold.log" & weld_hold=$!; pids+=($weld_hold)
sleep 0.5
rss() { awk '/VmRSS/ { print $2 }' /proc/$1/status; }
echo "weld idle RSS: $(rss $weld_hold) kB" | tee "$out/streams.txt"
for mode in untagged tagged; do
  model=bench; [ $mode = tagged ] && model=bench__schema=router
  HOLD_SECONDS=6 node "$here/hold_streams.mjs" "http://127.0.0.1:$WH/v1/messages" "$STREAMS" "$model" \
    > "$work/hold-$mode.json" & holder=$!
  for i in $(seq 1 120); do [ -s "$work/hold-$mode.json" ] && break; sleep 0.5; done
  sleep 1
  echo "$mode: $(cat "$work/hold-$mode.json") weld RSS $(rss $weld_hold) kB" | tee -a "$out/streams.txt"
  wait $holder || true
  sleep 2
done
echo "weld peak RSS (VmHWM): $(awk '/VmHWM/ { print $2 }' /proc/$weld_hold/status) kB" | tee -a "$out/streams.txt"
