#!/usr/bin/env python3
"""Writes weld's Python wheel (docs/install.md, "pip"): the weld executable as
the wheel's script, so `pip install` puts `weld` on PATH (as ruff's and uv's
wheels do), and, when given, the Python module `weld` (python/, its pybind11
extension built beside it).

  build_wheel.py --binary bin/weld --version 0.1.0 --arch x86_64 --glibc 2.34 \\
                 --out dist [--module build/python/weld] [--license FILE]... [--doc PATH]...

Without --module the wheel is py3-none-manylinux_<glibc>_<arch> (any Python 3:
the binary does not use Python). With it, the module's extension names the
interpreter and ABI (weld/_weld.cpython-311-x86_64-linux-gnu.so ->
cp311-cp311), and the glibc floor is the highest any ELF file in the wheel
asks for (packaging/elf_check.py), never lower than --glibc. Only the standard library;
the zip is reproducible (fixed times, sorted names).
"""
import argparse
import base64
import hashlib
import io
import os
import re
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from elf_check import inspect, is_elf, objdump_for  # noqa: E402

# What an ELF file of the wheel may load: glibc's libraries and libgcc_s, as
# the portable build (cmake/WeldPortable.cmake); anything else is not on
# every manylinux system.
ALLOWED_NEEDED = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
                  "libpthread.so.0", "libdl.so.2", "librt.so.1"}


def stripped(path):
    """The bytes of an ELF file without its symbol table and debug sections."""
    strip = objdump_for(path).replace("objdump", "strip")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "stripped")
        subprocess.run([strip, "--strip-unneeded", "-o", out, path], check=True)
        with open(out, "rb") as f:
            return f.read()

# A module of the wheel is loaded by dlopen into a running interpreter. When
# it has thread-locals of the initial-exec model (libstdc++'s static archive
# does: its exception globals), all of its thread-local storage must fit in
# the static reserve glibc keeps for such late loads (about 1.5 KB, shared by
# every module of the process); past it the import fails with "cannot
# allocate memory in static TLS block".
MAX_STATIC_TLS = 1024


def static_tls_bytes(path):
    """The bytes of thread-local storage `path` needs from the static reserve
    when loaded late: its TLS segment's size if it is flagged STATIC_TLS, else 0."""
    readelf = objdump_for(path).replace("objdump", "readelf")
    out = subprocess.run([readelf, "-W", "-l", "-d", path], capture_output=True, text=True, check=True).stdout
    if "STATIC_TLS" not in out:
        return 0
    m = re.search(r"^\s*TLS\s+\S+\s+\S+\s+\S+\s+\S+\s+(0x[0-9a-f]+)", out, re.M)
    return int(m.group(1), 16) if m else 0


DIST_NAME = "weld"
SUMMARY = "weld: language-model answers that validate against a JSON Schema, or a loud failure"
EPOCH = (1980, 1, 1, 0, 0, 0)


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    parser.add_argument("--glibc", required=True, help="the binary's glibc floor, e.g. 2.34")
    parser.add_argument("--out", required=True)
    parser.add_argument("--module", help="the built Python package folder weld/ (with its extension)")
    parser.add_argument("--license", action="append", default=[], help="licence files for .dist-info/licenses/")
    parser.add_argument("--readme", help="the long description (Markdown)")
    parser.add_argument("--doc", action="append", default=[],
                        help="a file or folder for the environment's share/doc/weld/ (the README, docs/)")
    args = parser.parse_args()

    files = {}  # name in the wheel -> (bytes, executable)
    data_dir = f"{DIST_NAME}-{args.version}.data"
    info_dir = f"{DIST_NAME}-{args.version}.dist-info"
    with open(args.binary, "rb") as f:
        files[f"{data_dir}/scripts/weld"] = (f.read(), True)
    elf_paths = [args.binary]

    # The documentation, as the tarball and the .deb hold it: pip installs a
    # wheel's .data/data/ under the environment's prefix.
    for doc in args.doc:
        doc = doc.rstrip("/")
        paths = [doc] if os.path.isfile(doc) else sorted(
            os.path.join(root, name) for root, _, names in os.walk(doc) for name in names)
        for path in paths:
            rel = os.path.relpath(path, os.path.dirname(doc)).replace(os.sep, "/")
            with open(path, "rb") as f:
                files[f"{data_dir}/data/share/doc/{DIST_NAME}/{rel}"] = (f.read(), False)

    python_tag, abi_tag = "py3", "none"
    requires_python = ">=3.8"
    if args.module:
        extensions = []
        for root, _, names in os.walk(args.module):
            for name in sorted(names):
                if name.endswith((".pyc",)) or "__pycache__" in root:
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, os.path.dirname(os.path.abspath(args.module)))
                if is_elf(path):
                    elf_paths.append(path)
                    tls = static_tls_bytes(path)
                    if tls > MAX_STATIC_TLS:
                        sys.exit(f"build_wheel.py: {path} needs {tls} bytes of static thread-local storage "
                                 f"(more than {MAX_STATIC_TLS}), so an interpreter may refuse to import it: "
                                 "keep large state out of thread_local (weld/base/random.h)")
                    files[rel.replace(os.sep, "/")] = (stripped(path), False)
                    m = re.match(r".*\.cpython-(\d+)-", name)
                    if m:
                        extensions.append(m.group(1))
                else:
                    with open(path, "rb") as f:
                        files[rel.replace(os.sep, "/")] = (f.read(), False)
        if len(set(extensions)) != 1:
            sys.exit(f"build_wheel.py: expected one CPython extension in {args.module}, found {extensions or 'none'}")
        python_tag = abi_tag = f"cp{extensions[0]}"
        requires_python = f"=={extensions[0][0]}.{extensions[0][1:]}.*"

    floor = tuple(int(p) for p in args.glibc.split("."))
    for path in elf_paths:
        needs_glibc, needed = inspect(path)
        floor = max(floor, needs_glibc)
        others = [n for n in needed if n not in ALLOWED_NEEDED]
        if others:
            sys.exit(f"build_wheel.py: {path} loads {', '.join(others)}, which a manylinux system need not have: "
                     "build it with -DWELD_PORTABLE=ON (docs/install.md, \"pip\")")
    platform_tag = f"manylinux_{floor[0]}_{floor[1]}_{args.arch}"
    tag = f"{python_tag}-{abi_tag}-{platform_tag}"

    metadata = [
        "Metadata-Version: 2.1",
        f"Name: {DIST_NAME}",
        f"Version: {args.version}",
        f"Summary: {SUMMARY}",
        "License: Apache-2.0",
        "Classifier: License :: OSI Approved :: Apache Software License",
        "Classifier: Operating System :: POSIX :: Linux",
        "Classifier: Programming Language :: C++",
        "Classifier: Environment :: Console",
        f"Requires-Python: {requires_python}",
    ]
    licenses = []
    for path in args.license:
        name = os.path.basename(path)
        with open(path, "rb") as f:
            files[f"{info_dir}/licenses/{name}"] = (f.read(), False)
        licenses.append(name)
        metadata.append(f"License-File: {name}")
    body = ""
    if args.readme:
        metadata.append("Description-Content-Type: text/markdown")
        with open(args.readme, encoding="utf-8") as f:
            body = "\n" + f.read()
    files[f"{info_dir}/METADATA"] = (("\n".join(metadata) + "\n" + body).encode("utf-8"), False)
    files[f"{info_dir}/WHEEL"] = ("\n".join([
        "Wheel-Version: 1.0",
        "Generator: weld packaging/python/build_wheel.py",
        "Root-Is-Purelib: false",
        f"Tag: {tag}",
    ]).encode() + b"\n", False)
    record = [record_line(name, data) for name, (data, _) in sorted(files.items())]
    record.append(f"{info_dir}/RECORD,,")
    files[f"{info_dir}/RECORD"] = (("\n".join(record) + "\n").encode(), False)

    os.makedirs(args.out, exist_ok=True)
    wheel = os.path.join(args.out, f"{DIST_NAME}-{args.version}-{tag}.whl")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        # RECORD last, as the wheel format recommends.
        for name in sorted(files, key=lambda n: (n.endswith("/RECORD"), n)):
            data, executable = files[name]
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    with open(wheel, "wb") as f:
        f.write(buffer.getvalue())
    print(wheel)


if __name__ == "__main__":
    main()
