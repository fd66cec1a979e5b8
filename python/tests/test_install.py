"""The installed package (docs/python.md, "Building"): `cmake --install BUILD
--component python` stages weld/ as a wheel holds it, and that folder alone,
in a fresh virtual environment with nothing else installed (no pydantic, no
build tree on the path), imports and works."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

BUILD_DIR = os.environ.get("WELD_BUILD_DIR")

pytestmark = pytest.mark.skipif(not BUILD_DIR or shutil.which("cmake") is None,
                                reason="needs the build tree (WELD_BUILD_DIR, set by CTest) and cmake")

CHECK = r"""
import sys, weld
assert weld.__file__.startswith(sys.prefix), weld.__file__
v = weld.validator_for({"type": "object", "required": ["n"]})
assert v.is_valid({"n": 1}) and not v.is_valid({})
try:
    v.validate({})
except weld.ValidationError as e:
    assert e.keyword == "required", e.keyword
value, repairs = weld.repair('```json\n{"n": "3",}\n```', {"properties": {"n": {"type": "integer"}}})
assert value == {"n": 3}, value
print(weld.__version__)
"""


def stage(prefix: Path) -> Path:
    subprocess.run(["cmake", "--install", BUILD_DIR, "--component", "python", "--prefix", str(prefix)],
                   check=True, capture_output=True, text=True)
    found = [p.parent for p in prefix.rglob("weld/__init__.py")]
    assert len(found) == 1, found
    return found[0]


def test_the_component_holds_the_package(tmp_path):
    package = stage(tmp_path / "stage")
    assert package.relative_to(tmp_path / "stage").as_posix() == "lib/python3/dist-packages/weld"
    names = sorted(p.name for p in package.iterdir())
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    assert names == sorted(["__init__.py", "__init__.pyi", "_errors.py", "py.typed", "_weld" + suffix])


def test_a_fresh_virtual_environment_imports_it(tmp_path):
    package = stage(tmp_path / "stage")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    shutil.copytree(package, Path(site) / "weld")
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    result = subprocess.run([str(python), "-I", "-c", CHECK], capture_output=True, text=True, env=environment,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()  # the version
