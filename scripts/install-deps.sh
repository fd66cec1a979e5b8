#!/usr/bin/env bash
# Installs the Debian 12 packages weld needs. Safe to run again. Needs root
# (or sudo).
#   scripts/install-deps.sh             what building weld needs (compiler, CMake, the libraries)
#   scripts/install-deps.sh --test      and what only the tests need (scripts/test.sh, .ci/run)
#   scripts/install-deps.sh --package   and what scripts/package.sh and the packaging tests need
#                                       (the aarch64 cross toolchain and :arm64 libraries, lintian,
#                                       mmdebstrap, qemu-user-static; docs/install.md)
#   scripts/install-deps.sh --bench     and the benchmarks' peers (WELD_BENCH_DEPS=1 does the same)
# Flags combine: `--test --package` is what CI installs.
set -euo pipefail
test=0 package=0 bench="${WELD_BENCH_DEPS:-0}"
for arg in "$@"; do
  case "$arg" in
    --test) test=1 ;;
    --package) package=1 ;;
    --bench) bench=1 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install-deps.sh: unknown option $arg (--test, --package, --bench)" >&2; exit 2 ;;
  esac
done
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
install() { $SUDO apt-get install -y -qq --no-install-recommends "$@"; }

# The aarch64 release artifacts are cross-compiled against Debian's :arm64
# libraries (multiarch), so the arm64 package lists come first.
if [ "$package" = 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  $SUDO dpkg --add-architecture arm64
fi
$SUDO apt-get update -qq

# The build: the compiler, CMake and the libraries weld links.
install ca-certificates cmake g++ make pkg-config git \
  libre2-dev libpcre2-dev libcli11-dev libcurl4-openssl-dev libssl-dev \
  libboost1.74-dev libboost-system1.74-dev libboost-context1.74-dev \
  libmimalloc-dev libxxhash-dev

if [ "$test" = 1 ]; then
  # GoogleTest; clang for the fuzz targets (the replay tests build with g++).
  install libgtest-dev libgmock-dev googletest clang libclang-rt-14-dev
  # Programs the end-to-end tests run beside weld: jq and curl read its output
  # as scripts do, openssl serves TLS, /usr/bin/time measures memory.
  install python3 curl jq openssl time
  # weld batch's engine tests (tests/batch): a one-node Slurm cluster and a
  # Dask LocalCluster run weld as their users would (never part of the product).
  install slurm-wlm munge python3-distributed
  # The Python module (python/, docs/python.md; scripts/test.sh builds it):
  # pybind11 and Python's headers to build it; pytest, and what its tests and
  # benchmark use beside it (python-jsonschema and fastjsonschema as peers,
  # pydantic, pandas).
  install pybind11-dev python3-dev python3-pytest \
    python3-jsonschema python3-fastjsonschema python3-pydantic python3-pandas
  # Prometheus: tests/telemetry checks the proxy's /metrics with promtool and
  # has a real Prometheus server scrape it.
  install prometheus
  # Node.js 20 (tests drive weld with the official npm SDKs; never used by the
  # product). Only install Debian's when none is present, so a NodeSource
  # install is left alone.
  if ! command -v node >/dev/null 2>&1; then
    install nodejs npm
  fi
fi

if [ "$package" = 1 ]; then
  # scripts/package.sh: dpkg-shlibdeps and lintian for the .deb, file for
  # the ELF checks, python3 for the wheel and pybind11 and Python's headers
  # for the module in it, the aarch64 cross compiler, and the
  # :arm64 libraries (the .deb links Debian's; the tarball the static ones).
  install dpkg-dev file lintian binutils-aarch64-linux-gnu crossbuild-essential-arm64 python3 xz-utils ninja-build \
    pybind11-dev python3-dev \
    libstdc++-12-pic libstdc++-12-pic-arm64-cross unicode-data python3-six perl \
    libre2-dev:arm64 libpcre2-dev:arm64 libcurl4-openssl-dev:arm64 libssl-dev:arm64 \
    libboost1.74-dev:arm64 libboost-system1.74-dev:arm64 libboost-context1.74-dev:arm64 \
    libmimalloc-dev:arm64 libxxhash-dev:arm64 zlib1g-dev:arm64
  # The portable tarball's libcurl and mimalloc are built from Debian's
  # source packages (docs/install.md, "The portable tarball"): apt-get source
  # needs the deb-src lines of Debian's archive.
  if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
      $SUDO tee /etc/apt/sources.list.d/weld-deb-src.sources >/dev/null
    $SUDO apt-get update -qq
  fi
  # The packaging tests: a clean Debian 12 root (mmdebstrap), the aarch64
  # tarball under qemu, the wheel in a fresh venv, npm for the registry.
  install mmdebstrap qemu-user-static python3-venv
  if ! command -v node >/dev/null 2>&1; then
    install nodejs npm
  fi
fi

if [ "$bench" = 1 ]; then
  install libbenchmark-dev nlohmann-json3-dev wrk nginx-light hyperfine libsimdjson-dev valgrind
fi
