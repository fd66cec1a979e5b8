#!/usr/bin/env python3
"""What the ELF files of an artifact ask of the system they run on: the
highest glibc symbol version each needs (objdump -T, the cross objdump for
aarch64 files) and the shared libraries it loads (NEEDED). Used by
scripts/package.sh on the portable tarball and by build_wheel.py.

  elf_check.py [--max-glibc 2.34] [--allow-needed NAME,...] PATH...

PATH: files or folders (searched for ELF files). Prints one line per ELF file
and the floor over all of them ("glibc floor: 2.34"); exits 1 when a file
needs a newer glibc than --max-glibc or loads a library not allowed.
"""
import argparse
import os
import re
import subprocess
import sys

EM_AARCH64 = 183


def elf_files(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, names in os.walk(path):
                for name in sorted(names):
                    full = os.path.join(root, name)
                    if not os.path.islink(full) and is_elf(full):
                        yield full
        elif is_elf(path):
            yield path


def is_elf(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def objdump_for(path):
    with open(path, "rb") as f:
        header = f.read(20)
    machine = int.from_bytes(header[18:20], "little")
    return "aarch64-linux-gnu-objdump" if machine == EM_AARCH64 else "objdump"


def inspect(path):
    """(glibc floor as (major, minor), [NEEDED names]) of one ELF file."""
    objdump = objdump_for(path)
    symbols = subprocess.run([objdump, "-T", path], capture_output=True, text=True, check=True).stdout
    floor = max([(int(a), int(b)) for a, b in re.findall(r"GLIBC_(\d+)\.(\d+)", symbols)], default=(0, 0))
    dynamic = subprocess.run([objdump, "-p", path], capture_output=True, text=True, check=True).stdout
    needed = re.findall(r"^\s+NEEDED\s+(\S+)", dynamic, flags=re.M)
    return floor, needed


def version(floor):
    return f"{floor[0]}.{floor[1]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-glibc")
    parser.add_argument("--allow-needed")
    parser.add_argument("paths", nargs="+")
    args = parser.parse_args()
    limit = tuple(int(p) for p in args.max_glibc.split(".")) if args.max_glibc else None
    allowed = set(args.allow_needed.split(",")) if args.allow_needed else None
    overall = (0, 0)
    failed = False
    files = list(elf_files(args.paths))
    if not files:
        sys.exit("elf_check.py: no ELF file in " + " ".join(args.paths))
    for path in files:
        floor, needed = inspect(path)
        overall = max(overall, floor)
        print(f"{path}: glibc {version(floor)}; needs {', '.join(needed) or 'nothing'}")
        if limit and floor > limit:
            print(f"  error: needs glibc {version(floor)}, more than {args.max_glibc}", file=sys.stderr)
            failed = True
        extra = [n for n in needed if allowed is not None and n not in allowed]
        if extra:
            print(f"  error: loads {', '.join(extra)}, not one of {', '.join(sorted(allowed))}", file=sys.stderr)
            failed = True
    print(f"glibc floor: {version(overall)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
