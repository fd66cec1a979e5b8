#!/usr/bin/env bash
# bench/sample: `weld sample -n N` against json-schema-faker (npm), the usual
# JavaScript instance generator, on the same schemas. Reports median wall time
# (hyperfine), peak RSS (/usr/bin/time) and how many of the N instances each
# produced that validate (checked with `weld schema validate --jsonl --json`).
# Usage: bench/sample/run.sh [WELD_BINARY] [N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
weld="${1:-$here/../../build-rel/src/cli/weld}"
n="${2:-1000}"
# The corpus: $WELD_DATA_DIR/jsonschema-benchmark/schemas (../shared/data by
# default), the schemas/ folder of sourcemeta-research/jsonschema-benchmark,
# kept outside the repository.
data="${WELD_DATA_DIR:-$here/../../../shared/data}/jsonschema-benchmark/schemas"
if [ ! -d "$data" ]; then
  echo "bench/sample/run.sh: no jsonschema-benchmark corpus at $data: skipped; set WELD_DATA_DIR" >&2
  exit 0
fi
[ -d "$here/node_modules" ] || (cd "$here" && npm install --no-audit --no-fund --loglevel=error)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

schemas=("$here/issue_shapes.json" "$data/cmake-presets/schema.json" "$data/tmuxinator/schema.json"
         "$data/gitpod-configuration/schema.json" "$data/dependabot/schema.json")
valid_count() {  # SCHEMA FILE
  "$weld" schema validate --no-strict --json "$1" "$2" 2>/dev/null | grep -c '"valid":true' || true
}
rss_kib() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }

echo "| schema | weld ms | json-schema-faker ms | speed ratio | weld RSS MiB | jsf RSS MiB | weld valid | jsf valid |"
echo "|---|---|---|---|---|---|---|---|"
for schema in "${schemas[@]}"; do
  name="$(basename "$(dirname "$schema")")"
  [ "$schema" = "$here/issue_shapes.json" ] && name="issue_shapes"
  cp "$schema" "$tmp/s.jsonl.schema.json"
  "$weld" sample --no-strict "$schema" -n "$n" > "$tmp/weld.jsonl" 2>/dev/null
  node "$here/jsf_sample.mjs" "$schema" "$n" > "$tmp/jsf.jsonl" 2>/dev/null || true
  hyperfine -N --warmup 2 --runs 10 --export-json "$tmp/h.json" \
    "$weld sample --no-strict $schema -n $n" "node $here/jsf_sample.mjs $schema $n" > /dev/null 2>&1 || true
  read -r weld_ms jsf_ms < <(node -e '
    const r = require(process.argv[1]).results;
    console.log((r[0].median*1000).toFixed(1), (r[1] ? r[1].median*1000 : NaN).toFixed(1));' "$tmp/h.json")
  weld_rss=$(rss_kib "$weld" sample --no-strict "$schema" -n "$n")
  jsf_rss=$(rss_kib node "$here/jsf_sample.mjs" "$schema" "$n" || echo 0)
  ratio=$(node -e "console.log(($jsf_ms/$weld_ms).toFixed(1))")
  echo "| $name | $weld_ms | $jsf_ms | ${ratio}x | $((weld_rss/1024)) | $((jsf_rss/1024)) | $(valid_count "$schema" "$tmp/weld.jsonl")/$n | $(valid_count "$schema" "$tmp/jsf.jsonl")/$n |"
done
