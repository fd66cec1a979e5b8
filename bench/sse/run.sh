#!/usr/bin/env bash
# bench/sse: decode throughput of a streamed tool call, weld vs the peer.
# Usage: bench/sse/run.sh [BUILD_DIR] [ARG_BYTES] [REPEATS]
# BUILD_DIR must hold a Release build with -DWELD_BUILD_BENCH=ON (target
# weld_sse_bench). Prints both JSON lines, checks the answers match, and the
# throughput ratio.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-build-bench}"
arg_bytes="${2:-1000000}"
repeats="${3:-5}"
[ -d "$here/node_modules/eventsource-parser" ] || (cd "$here" && npm install --no-audit --no-fund >/dev/null)
input="$(mktemp /tmp/weld-sse-bench-XXXXXX.sse)"
trap 'rm -f "$input"' EXIT
node "$here/gen.mjs" "$input" "$arg_bytes"
for mode in --sse-only --full; do
  weld="$("$build/bench/sse/weld_sse_bench" "$input" "$repeats" "$mode")"
  peer="$(node "$here/peer.mjs" "$input" "$repeats" "$mode")"
  echo "$weld"
  echo "$peer"
  node -e '
    const [w, p] = process.argv.slice(1).map(JSON.parse);
    if (w.arguments_bytes !== p.arguments_bytes || w.arguments_fnv1a !== p.arguments_fnv1a) {
      console.error("answers differ"); process.exit(1);
    }
    console.log(`${w.impl} vs ${p.impl}, stream ${(w.bytes / 1e6).toFixed(1)} MB: ` +
      `weld ${w.mb_per_s.toFixed(0)} MB/s, peer ${p.mb_per_s.toFixed(0)} MB/s, ratio ${(w.mb_per_s / p.mb_per_s).toFixed(1)}x`);
  ' "$weld" "$peer"
done
