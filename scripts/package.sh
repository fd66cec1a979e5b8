#!/usr/bin/env bash
# Builds weld's release artifacts into dist/ (docs/install.md says what each
# holds), for linux x86_64 and aarch64 (cross-compiled with Debian's
# toolchain):
#   weld-<version>-linux-<arch>.tar.gz                  the portable tarball: needs nothing but glibc >= 2.34
#   weld_<version>-1_<amd64|arm64>.deb                  the Debian 12 package (Debian's libraries, via apt)
#   npm/weld-cli-<version>.tgz, npm/weld-cli-linux-<x64|arm64>-<version>.tgz
#                                                        the npm launcher and its platform packages
#   weld-<version>-cp311-cp311-manylinux_2_34_x86_64.whl
#   weld-<version>-py3-none-manylinux_2_34_aarch64.whl the Python wheels: weld on PATH, and on the build
#                                                        machine's architecture the module (import weld)
#
#   scripts/package.sh [--arch x86_64|aarch64]... [--no-deb] [--python-module ARCH=DIR]...
#
# --arch: only these architectures (default both). --no-deb: skip the .deb
# builds. The Python module (python/, docs/python.md) is built in the
# portable build of the machine's own architecture, for /usr/bin/python3,
# and goes into that architecture's wheel; --python-module ARCH=DIR puts
# another build's module folder weld/ there instead (docs/install.md, "pip").
# Needs `scripts/install-deps.sh --package`.
# Prints each artifact's size, the tarballs' glibc floor and the wall time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
started=$(date +%s)
archs=() deb=1
declare -A modules=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) archs+=("$2"); shift 2 ;;
    --no-deb) deb=0; shift ;;
    --python-module) modules[${2%%=*}]=$(realpath "${2#*=}"); shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "package.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[ ${#archs[@]} -gt 0 ] || archs=(x86_64 aarch64)

VERSION=$(sed -n 's/^project(weld VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$VERSION" ] || { echo "package.sh: no project(weld VERSION ...) in CMakeLists.txt" >&2; exit 1; }
GLIBC_FLOOR=2.34  # the promise; elf_check.py fails the build past it
# What the portable binary and libweld.so may load: glibc's own libraries and
# libgcc_s (cmake/WeldPortable.cmake says why).
ALLOWED_NEEDED=libc.so.6,libm.so.6,libgcc_s.so.1,ld-linux-x86-64.so.2,ld-linux-aarch64.so.1
WORK=$ROOT/build-package
DIST=$ROOT/dist
JOBS=${JOBS:-$(nproc)}
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$ROOT}"
mkdir -p "$WORK" "$DIST/npm"
log() { printf '\n== %s\n' "$*"; }
quiet() {  # runs "$@" with its output in $WORK/last.log, shown when it fails
  if ! "$@" > "$WORK/last.log" 2>&1; then
    tail -40 "$WORK/last.log" >&2
    echo "package.sh: failed: $*" >&2
    exit 1
  fi
}

deb_arch() { [ "$1" = aarch64 ] && echo arm64 || echo amd64; }
npm_arch() { [ "$1" = aarch64 ] && echo arm64 || echo x64; }
toolchain() { [ "$1" = aarch64 ] && echo "-DCMAKE_TOOLCHAIN_FILE=$ROOT/packaging/cmake/aarch64-linux-gnu.cmake"; true; }

# The sources of libcurl, mimalloc, RE2 and PCRE2 from Debian's archive
# (apt-get source: Debian's patches, security fixes included), built static
# for the tarball (cmake/WeldPortable.cmake says why each).
sources() {
  local dir=$WORK/src
  mkdir -p "$dir"
  for package in curl mimalloc re2 pcre2; do
    if [ ! -d "$dir/$package" ]; then
      log "apt-get source $package"
      (cd "$dir" && quiet apt-get source --download-only "$package" &&
        quiet dpkg-source -x --no-check "$(ls ${package}_*.dsc | tail -1)" "$package")
    fi
  done
}

# deps ARCH: static, position-independent libcurl (HTTP and HTTPS over
# OpenSSL, nothing else), mimalloc, RE2 and PCRE2 in $WORK/ARCH/deps/prefix.
deps() {
  local arch=$1 dir=$WORK/$1/deps
  local prefix=$dir/prefix
  if [ -f "$dir/done" ]; then return; fi
  log "$arch: static libcurl, mimalloc, RE2 and PCRE2 from Debian's sources"
  quiet cmake -S "$WORK/src/curl" -B "$dir/curl" -G Ninja $(toolchain "$arch") \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DBUILD_CURL_EXE=OFF -DBUILD_TESTING=OFF \
    -DENABLE_MANUAL=OFF -DCURL_USE_OPENSSL=ON -DOPENSSL_USE_STATIC_LIBS=ON -DHTTP_ONLY=ON \
    -DCURL_DISABLE_LDAP=ON -DCURL_DISABLE_LDAPS=ON -DUSE_NGHTTP2=OFF -DCURL_USE_LIBSSH2=OFF \
    -DCURL_USE_LIBSSH=OFF -DCURL_USE_LIBPSL=OFF -DUSE_LIBIDN2=OFF -DCURL_ZLIB=OFF -DCURL_BROTLI=OFF \
    -DCURL_ZSTD=OFF -DCURL_USE_GSSAPI=OFF -DENABLE_THREADED_RESOLVER=ON -DCURL_CA_BUNDLE=none \
    -DCURL_CA_PATH=none -DCURL_CA_FALLBACK=ON -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DPICKY_COMPILER=OFF
  quiet cmake --build "$dir/curl" -j"$JOBS"
  quiet cmake --install "$dir/curl"
  quiet cmake -S "$WORK/src/mimalloc" -B "$dir/mimalloc" -G Ninja $(toolchain "$arch") \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DMI_BUILD_SHARED=OFF -DMI_BUILD_OBJECT=OFF -DMI_BUILD_TESTS=OFF -DMI_BUILD_STATIC=ON -DMI_OVERRIDE=ON \
    -DMI_INSTALL_TOPLEVEL=ON
  quiet cmake --build "$dir/mimalloc" -j"$JOBS"
  quiet cmake --install "$dir/mimalloc"
  # Debian's RE2 source leaves out the Unicode tables: made from its
  # unicode-data package, as Debian's build does.
  (cd "$WORK/src/re2" && quiet make REBUILD_TABLES=1 re2/perl_groups.cc re2/unicode_casefold.cc re2/unicode_groups.cc)
  quiet cmake -S "$WORK/src/re2" -B "$dir/re2" -G Ninja $(toolchain "$arch") \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DRE2_BUILD_TESTING=OFF
  quiet cmake --build "$dir/re2" -j"$JOBS"
  quiet cmake --install "$dir/re2"
  # RE2's CMake build writes no re2.pc; weld finds RE2 through pkg-config.
  printf 'prefix=%s\nName: re2\nDescription: RE2, static and position-independent\nVersion: %s\nCflags: -I${prefix}/include\nLibs: -L${prefix}/lib -lre2 -pthread\n' \
    "$prefix" "$(cd "$WORK/src/re2" && dpkg-parsechangelog -S Version)" > "$prefix/lib/pkgconfig/re2.pc"
  quiet cmake -S "$WORK/src/pcre2" -B "$dir/pcre2" -G Ninja $(toolchain "$arch") \
    -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DPCRE2_BUILD_PCRE2GREP=OFF -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_JIT=ON
  quiet cmake --build "$dir/pcre2" -j"$JOBS"
  quiet cmake --install "$dir/pcre2"
  touch "$dir/done"
}

# The licences of the code the portable binary carries inside it.
third_party_licenses() {
  local out=$1
  {
    echo "weld's portable binary and libweld.so contain code of these projects, linked statically;"
    echo "their licences follow (Debian's copyright files of the packages the code was built from)."
    for package in libstdc++6 libssl3 libboost1.74-dev libxxhash0 libcli11-dev; do
      printf '\n\n==== %s %s ====\n\n' "$package" "$(dpkg-query -W -f '${Version}\n' "$package" 2>/dev/null | head -1)"
      cat "/usr/share/doc/$package/copyright"
    done
    for package in curl mimalloc re2 pcre2; do
      printf '\n\n==== %s %s (Debian source package) ====\n\n' "$package" \
        "$(cd "$WORK/src/$package" && dpkg-parsechangelog -S Version)"
      cat "$WORK/src/$package/debian/copyright"
    done
  } > "$out"
}

# tarball ARCH: the portable build, installed under weld-VERSION-linux-ARCH/,
# checked (glibc floor, libraries loaded) and packed.
declare -A floors=()
tarball() {
  local arch=$1 build=$WORK/$1/portable name=weld-$VERSION-linux-$1
  local stage=$WORK/$1/stage/$name
  # The Python module, built with the command on this machine's architecture
  # (a cross build would need the target's Python headers and interpreter).
  local python=OFF
  if [ "$arch" = "$(uname -m)" ] && [ -z "${modules[$arch]:-}" ]; then python=ON; fi
  log "$arch: the portable build$([ $python = ON ] && echo ', with the Python module')"
  quiet cmake -S . -B "$build" -G Ninja $(toolchain "$arch") -DCMAKE_BUILD_TYPE=Release -DWELD_PORTABLE=ON \
    -DCMAKE_PREFIX_PATH="$WORK/$arch/deps/prefix" -DWELD_BUILD_TESTS=OFF -DWELD_BUILD_PYTHON=$python \
    -DWELD_PYTHON_INSTALL_DIR=.
  quiet cmake --build "$build" -j"$JOBS"
  rm -rf "$WORK/$arch/stage" "$WORK/$arch/python"
  quiet cmake --install "$build" --prefix "$stage" --strip
  if [ $python = ON ]; then
    quiet cmake --install "$build" --component python --prefix "$WORK/$arch/python"
    modules[$arch]=$WORK/$arch/python/weld
  fi
  third_party_licenses "$stage/share/doc/weld/THIRD_PARTY_LICENSES"
  log "$arch: what the tarball asks of the system"
  python3 packaging/elf_check.py --max-glibc "$GLIBC_FLOOR" --allow-needed "$ALLOWED_NEEDED" "$stage" |
    sed "s|$stage/||" | tee "$WORK/$arch/elf_check.txt"
  floors[$arch]=$(sed -n 's/^glibc floor: //p' "$WORK/$arch/elf_check.txt")
  tar -C "$WORK/$arch/stage" --owner=0 --group=0 --numeric-owner --sort=name \
    --mtime="@$(git log -1 --format=%ct 2>/dev/null || date +%s)" -cf - "$name" | gzip -9n > "$DIST/$name.tar.gz"
  local size
  size=$(stat -c %s "$DIST/$name.tar.gz")
  if [ "$size" -gt $((30 * 1000 * 1000)) ]; then
    echo "package.sh: $name.tar.gz is $size bytes, more than 30 MB" >&2
    exit 1
  fi
}

# debian ARCH: the .deb of a build against Debian's libraries (CPack,
# cmake/WeldCPack.cmake), then lintian.
debian() {
  local arch=$1 build=$WORK/$1/deb
  log "$arch: the Debian package"
  local docs=$WORK/$arch/debian-doc
  rm -rf "$docs" && mkdir -p "$docs"
  cp packaging/debian/copyright "$docs/copyright"
  local date
  date=$(git log -1 --format=%aD 2>/dev/null || date -R)
  printf 'weld (%s-1) stable; urgency=medium\n\n  * weld %s, commit %s.\n\n -- %s  %s\n' \
    "$VERSION" "$VERSION" "$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
    "$(sed -n 's/^set(CPACK_PACKAGE_CONTACT "\(.*\)")/\1/p' cmake/WeldCPack.cmake)" "$date" |
    gzip -9n > "$docs/changelog.Debian.gz"
  quiet cmake -S . -B "$build" -G Ninja $(toolchain "$arch") -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_INSTALL_PREFIX=/usr -DWELD_BUILD_TESTS=OFF -DWELD_DEB_DOC_DIR="$docs" \
    -DWELD_ZSH_COMPLETION_DIR=share/zsh/vendor-completions
  quiet cmake --build "$build" -j"$JOBS"
  (cd "$build" && quiet cpack -G DEB)
  local deb
  deb=$(ls "$build"/weld_"$VERSION"-1_"$(deb_arch "$arch")".deb)
  cp "$deb" "$DIST/"
  log "$arch: lintian $(basename "$deb")"
  # Errors fail the build; warnings are printed (docs/install.md, "The .deb").
  lintian --no-tag-display-limit "$deb" | tee "$WORK/$arch/lintian.txt" || true
  if grep -q '^E:' "$WORK/$arch/lintian.txt"; then
    echo "package.sh: lintian found errors in $(basename "$deb")" >&2
    exit 1
  fi
}

# npm_platform ARCH: the npm package holding the portable binary.
npm_platform() {
  local arch=$1 platform
  platform=linux-$(npm_arch "$arch")
  local dir=$WORK/$arch/npm
  rm -rf "$dir" && mkdir -p "$dir/bin"
  cp "$WORK/$arch/stage/weld-$VERSION-linux-$arch/bin/weld" "$dir/bin/weld"
  cp LICENSE "$WORK/$arch/stage/weld-$VERSION-linux-$arch/share/doc/weld/THIRD_PARTY_LICENSES" "$dir/"
  python3 - "$dir" "$VERSION" "$platform" "$(npm_arch "$arch")" "${floors[$arch]}" <<'EOF'
import json, sys
dir, version, platform, cpu, glibc = sys.argv[1:]
with open("packaging/npm/platform/package.json") as f:
    text = f.read().replace("PLATFORM", platform).replace("CPU", cpu).replace("GLIBC", glibc)
package = json.loads(text)
package["version"] = version
with open(f"{dir}/package.json", "w") as f:
    json.dump(package, f, indent=2)
    f.write("\n")
with open("packaging/npm/platform/README.md") as f:
    readme = f.read().replace("PLATFORM", platform).replace("GLIBC", glibc)
with open(f"{dir}/README.md", "w") as f:
    f.write(readme)
EOF
  (cd "$DIST/npm" && quiet npm pack "$dir")
}

# npm_launcher: the package users install (npm i -g), with every platform
# package as an optional dependency of the same version.
npm_launcher() {
  local dir=$WORK/npm-cli
  rm -rf "$dir" && cp -r packaging/npm/cli "$dir"
  # The docs/ pages weld's messages cite (docs/install.md, "Documentation").
  cp LICENSE "$dir/" && cp -r docs "$dir/docs"
  python3 - "$dir" "$VERSION" "$GLIBC_FLOOR" <<'EOF'
import json, sys
dir, version, glibc = sys.argv[1:]
with open(f"{dir}/package.json") as f:
    package = json.load(f)
package["version"] = version
package["optionalDependencies"] = {f"{package['name']}-{p}": version for p in ("linux-x64", "linux-arm64")}
package["weld"]["glibc"] = glibc
with open(f"{dir}/package.json", "w") as f:
    json.dump(package, f, indent=2)
    f.write("\n")
EOF
  (cd "$DIST/npm" && quiet npm pack "$dir")
}

wheel() {
  local arch=$1 stage=$WORK/$1/stage/weld-$VERSION-linux-$1
  local module=()
  [ -n "${modules[$arch]:-}" ] && module=(--module "${modules[$arch]}")
  python3 packaging/python/build_wheel.py --binary "$stage/bin/weld" --version "$VERSION" --arch "$arch" \
    --glibc "${floors[$arch]}" --out "$DIST" --license LICENSE \
    --license "$stage/share/doc/weld/THIRD_PARTY_LICENSES" --readme packaging/python/README.md "${module[@]}" \
    --doc "$stage/share/doc/weld/README.md" --doc "$stage/share/doc/weld/docs" > /dev/null
}

if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
  echo "package.sh: note: tracked files differ from the commit; weld --version will say -dirty" >&2
fi
sources
for arch in "${archs[@]}"; do
  case "$arch" in x86_64|aarch64) ;; *) echo "package.sh: unknown arch $arch (x86_64, aarch64)" >&2; exit 2 ;; esac
  # This architecture's artifacts of an earlier run go (the other's stay).
  rm -f "$DIST/weld-$VERSION-linux-$arch.tar.gz" "$DIST/weld_$VERSION-1_$(deb_arch "$arch").deb" \
    "$DIST"/weld-"$VERSION"-*_"$arch".whl "$DIST/npm/weld-cli-linux-$(npm_arch "$arch")-$VERSION.tgz"
  deps "$arch"
  tarball "$arch"
  [ "$deb" = 1 ] && debian "$arch"
  npm_platform "$arch"
  wheel "$arch"
done
npm_launcher

log "dist/ (weld $VERSION)"
(cd "$DIST" && find . -type f \( -name "*$VERSION*" \) -printf '%P\t%s\n' | sort |
  awk -F'\t' '{ printf "  %-60s %6.1f MB\n", $1, $2 / 1e6 }')
for arch in "${archs[@]}"; do
  echo "  glibc floor of weld-$VERSION-linux-$arch.tar.gz: ${floors[$arch]} (objdump -T over every ELF file in it)"
done
echo "  package.sh wall time: $(( $(date +%s) - started )) s"
