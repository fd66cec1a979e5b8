#!/usr/bin/env bash
# Installs the Debian 12 packages weld needs to build, test, fuzz and bench.
# Safe to run again. Needs root (or sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  ca-certificates cmake g++ make pkg-config git \
  nlohmann-json3-dev libre2-dev libpcre2-dev libcli11-dev \
  libcurl4-openssl-dev libssl-dev libboost1.74-dev libboost-system1.74-dev \
  libboost-context1.74-dev \
  libgtest-dev libgmock-dev googletest libbenchmark-dev libmimalloc-dev \
  clang libclang-rt-14-dev \
  python3 curl jq libxxhash-dev
# weld batch's engine tests (tests/batch): a one-node Slurm cluster and a
# Dask LocalCluster run weld as their users would (never part of the product).
$SUDO apt-get install -y -qq --no-install-recommends slurm-wlm munge python3-distributed
# The Python module (python/, docs/python.md): pybind11 and Python's headers
# to build it; pytest, and what its tests and benchmark use beside it
# (python-jsonschema and fastjsonschema as peers, pydantic, pandas).
$SUDO apt-get install -y -qq --no-install-recommends pybind11-dev python3-dev python3-pytest \
  python3-jsonschema python3-fastjsonschema python3-pydantic python3-pandas
# Prometheus (tests only): tests/telemetry checks the proxy's /metrics with
# promtool and has a real Prometheus server scrape it (issue 18).
$SUDO apt-get install -y -qq --no-install-recommends prometheus
# Node.js 20 (tests drive weld with the official npm SDKs; never used by the
# product). Only install Debian's when none is present, so a NodeSource
# install is left alone.
if ! command -v node >/dev/null 2>&1; then
  $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
fi
if [ "${WELD_BENCH_DEPS:-0}" = 1 ]; then
  $SUDO apt-get install -y -qq --no-install-recommends wrk nginx-light hyperfine libsimdjson-dev
fi
