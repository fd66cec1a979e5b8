#!/usr/bin/env bash
# bench/batch (docs/bench-batch.md): weld batch vs the loop users write today (a Node
# script on the official openai SDK + Ajv + p-limit, script.mjs) vs wrk, in
# one run, against one fast local upstream: nginx answering every request
# with one canned valid tool call (canned.json). All three at the same
# concurrency. Prints rows/s, peak RSS and the ratios; then weld's peak RSS
# on BIG rows vs SMALL rows (the ids-seen bound of docs/batch.md, "Resume").
#   bash bench/batch/run.sh [WELD_BIN]
# env: ROWS (default 20000), CONCURRENCY (64), WRK_SECONDS (10),
#      SMALL (10000), BIG (1000000; 0 skips the memory part)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
weld=${1:-$root/build/src/cli/weld}
rows=${ROWS:-20000}
conc=${CONCURRENCY:-64}
wrk_seconds=${WRK_SECONDS:-10}
small=${SMALL:-10000}
big=${BIG:-1000000}
work=$(mktemp -d /tmp/weld-bench-batch-XXXXXX)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

[ -x "$weld" ] || { echo "no weld binary at $weld (build first, or pass its path)" >&2; exit 1; }
command -v nginx >/dev/null && command -v wrk >/dev/null || { echo "needs nginx and wrk (WELD_BENCH_DEPS=1 bash scripts/install-deps.sh)" >&2; exit 1; }
[ -d "$here/node_modules" ] || (cd "$here" && npm install --no-audit --no-fund --loglevel=error)

# The upstream: one nginx worker, `return 200` with the canned completion.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/logs"
canned=$(sed 's/\\/\\\\/g' "$here/canned.json")
cat > "$work/upstream.conf" <<CONF
worker_processes 1;
daemon off;
pid $work/upstream.pid;
error_log $work/logs/error.log;
events { worker_connections 65536; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $work;
  client_body_buffer_size 64k;
  server {
    listen 127.0.0.1:$port backlog=65535;
    location / { default_type application/json; return 200 '$canned'; }
  }
}
CONF
nginx -c "$work/upstream.conf" -p "$work" & pids+=($!)
for _ in $(seq 50); do curl -sf -o /dev/null -X POST "http://127.0.0.1:$port/v1/chat/completions" && break; sleep 0.1; done

gen() {  # gen N FILE: N data rows
  awk -v n="$1" 'BEGIN { for (i = 0; i < n; i++) printf "{\"id\":\"row-%d\",\"text\":\"Ticket %d: the printer in room %d is on fire again.\"}\n", i, i, i % 97 }' > "$2"
}
gen "$rows" "$work/rows.jsonl"

measure() {  # measure NAME OUT CMD...: prints "NAME seconds maxrss_kb lines"
  local name=$1 out=$2; shift 2
  local start end
  start=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/$name.rss" "$@" > /dev/null 2> "$work/$name.err" || { echo "$name failed:" >&2; tail -5 "$work/$name.err" >&2; exit 1; }
  end=$(date +%s.%N)
  echo "$name $(echo "$end - $start" | bc -l) $(tail -1 "$work/$name.rss") $(wc -l < "$out")"
}

weld_args=(batch --json-schema "@$here/schema.json" --prompt "Assess the risk of this ticket"
  --provider openai --base-url "http://127.0.0.1:$port/v1" --model bench --concurrency "$conc" --no-progress)
echo "# rows=$rows concurrency=$conc nproc=$(nproc) load=$(cut -d' ' -f1-3 /proc/loadavg)"
w=$(measure weld "$work/weld.jsonl" "$weld" "${weld_args[@]}" "$work/rows.jsonl" -o "$work/weld.jsonl")
s=$(BASE_URL="http://127.0.0.1:$port/v1" CONCURRENCY=$conc SCHEMA="$here/schema.json" \
  measure script "$work/script.jsonl" node "$here/script.mjs" "$work/rows.jsonl" "$work/script.jsonl")
# Both wrote one succeeded line per row (the answer is checked, not assumed).
for f in weld script; do
  n=$(grep -c '"status":"succeeded"' "$work/$f.jsonl" || true)
  [ "$n" = "$rows" ] || { echo "$f: $n succeeded lines of $rows" >&2; exit 1; }
done
body=$(printf '{"model":"bench","stream":true,"messages":[{"role":"user","content":"{\\"id\\":\\"row-1\\",\\"text\\":\\"Ticket 1: the printer in room 1 is on fire again.\\"}\\n\\nAssess the risk of this ticket"}],"tools":[{"type":"function","function":{"name":"structured_output","parameters":%s}}]}' "$(cat "$here/schema.json")")
cat > "$work/post.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[$body]]
LUA
wrk_rps=$(wrk -t2 -c"$conc" -d"${wrk_seconds}s" -s "$work/post.lua" "http://127.0.0.1:$port/v1/chat/completions" | awk '/Requests\/sec/ {print $2}')

read -r _ wt wr _ <<< "$w"
read -r _ st sr _ <<< "$s"
awk -v rows="$rows" -v wt="$wt" -v wr="$wr" -v st="$st" -v sr="$sr" -v wrk="$wrk_rps" 'BEGIN {
  wps = rows / wt; sps = rows / st
  printf "weld batch   %9.0f rows/s  peak RSS %7.1f MiB\n", wps, wr / 1024
  printf "node script  %9.0f rows/s  peak RSS %7.1f MiB\n", sps, sr / 1024
  printf "wrk          %9.0f req/s\n", wrk
  printf "ratios: weld/script rows/s %.1fx (target >= 10)  weld/wrk %.2fx (target >= 0.25)  weld/script peak RSS %.3f (target <= 0.2)\n", wps / sps, wps / wrk, wr / sr
}'

if [ "$big" -gt 0 ]; then
  gen "$small" "$work/small.jsonl"
  gen "$big" "$work/big.jsonl"
  rm -f "$work/rows.jsonl" "$work/weld.jsonl" "$work/script.jsonl"
  a=$(measure weld-small "$work/small-out.jsonl" "$weld" "${weld_args[@]}" "$work/small.jsonl" -o "$work/small-out.jsonl")
  b=$(measure weld-big "$work/big-out.jsonl" "$weld" "${weld_args[@]}" "$work/big.jsonl" -o "$work/big-out.jsonl")
  read -r _ at ar al <<< "$a"
  read -r _ bt br bl <<< "$b"
  awk -v small="$small" -v big="$big" -v ar="$ar" -v br="$br" -v bt="$bt" -v bl="$bl" 'BEGIN {
    printf "weld peak RSS: %d rows %.1f MiB, %d rows %.1f MiB (+%.1f MiB; target <= +48); %d lines in %.0f s (%.0f rows/s)\n",
      small, ar / 1024, big, br / 1024, (br - ar) / 1024, bl, bt, big / bt
  }'
fi
