#!/usr/bin/env bash
# The issue's catastrophic-pattern check, timed through the real CLI:
# `(a+)+b` against a string of 100,000 'a's must be decided in < 10 ms
# (RE2: linear). Prints weld's benchmark line (mean_ns = one validation).
# Usage: bench/schema/regex.sh [path/to/weld]   (default: build-release)
set -euo pipefail
cd "$(dirname "$0")/../.."
WELD="${1:-build-release/src/cli/weld}"
instance="$(mktemp)"
trap 'rm -f "$instance"' EXIT
printf '"%s"\n' "$(head -c 100000 /dev/zero | tr '\0' a)" > "$instance"
set +e
# weld exits 1: the string does not match, as it must.
"$WELD" schema validate --json '{"pattern":"(a+)+b"}' "$instance" --benchmark 20
echo "weld exit code: $? (1 = invalid, the expected verdict)"
