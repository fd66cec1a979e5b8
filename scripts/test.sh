#!/usr/bin/env bash
# Builds weld with tests and runs every test (the README's test command),
# except the packaging tests (label `packaging`: they install the artifacts of
# scripts/package.sh; run them after it with `ctest --test-dir build-test -L packaging`). What the tests need is
# installed by `scripts/install-deps.sh --test`.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${BUILD_DIR:-build-test}"
# When ccache is present, let clones in other folders share its cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
# npm packages the end-to-end tests use (never the product): the official
# SDK clients (tests/node), an MCP server built with the MCP SDK (tests/mcp) and
# the OTLP receiver built on the OpenTelemetry decoders (tests/telemetry).
for dir in tests/node tests/mcp tests/telemetry; do
  # Installed when missing or older than package.json (a new peer was added).
  if [ -f "$dir/package.json" ] && { [ ! -f "$dir/node_modules/.package-lock.json" ] ||
       [ "$dir/package.json" -nt "$dir/node_modules/.package-lock.json" ]; }; then
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error && touch node_modules/.package-lock.json)
  fi
done
cmake -S . -B "$BUILD_DIR" -DWELD_BUILD_TESTS=ON -DWELD_BUILD_PYTHON=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo ${WELD_CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j"$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j"$(nproc)" --timeout 600 -LE packaging
