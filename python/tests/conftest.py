"""Shared fixtures of the weld module's tests (python/tests).

CTest runs each file with PYTHONPATH set to the build's python/ folder
(python/CMakeLists.txt); by hand:
    PYTHONPATH=build-test/python /usr/bin/python3 -m pytest python/tests
"""

import os
from pathlib import Path

import pytest

SOURCE_DIR = Path(os.environ.get("WELD_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def source_dir() -> Path:
    return SOURCE_DIR


class FakeModelServer:
    """tests/fake_model/server.js, the project's scripted model server
    (OpenAI and Anthropic wire protocols over HTTP), on a free port."""

    def __init__(self, source_dir: Path, script, tmp_path: Path):
        import json
        import subprocess

        script_file = tmp_path / "script.json"
        script_file.write_text(json.dumps(script))
        self.process = subprocess.Popen(
            ["node", str(source_dir / "tests" / "fake_model" / "server.js"), "--script", str(script_file), "--port", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the fake model server did not start: " + self.process.stderr.read())
        self.port = json.loads(line)["port"]
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def requests(self):
        import json
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/__requests") as answer:
            return [r for r in json.loads(answer.read()) if not r["path"].startswith("/__")]

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
        self.process.stderr.close()


@pytest.fixture
def fake_model(source_dir, tmp_path):
    """A function script -> FakeModelServer; every server started is stopped after the test."""
    import shutil

    if shutil.which("node") is None:
        pytest.fail("node is needed for the fake model server (scripts/install-deps.sh installs it)")
    started = []

    def start(script):
        server = FakeModelServer(source_dir, script, tmp_path)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def clean_environment(monkeypatch):
    """No model settings from the environment the tests run in."""
    for name in ("WELD_PROVIDER", "WELD_MODEL", "WELD_BASE_URL", "WELD_API_KEY", "WELD_MECHANISM", "OPENAI_API_KEY",
                 "OPENAI_BASE_URL", "OPENAI_MODEL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "ANTHROPIC_MODEL",
                 "WELD_MAX_RETRIES", "WELD_CONNECT_TIMEOUT", "WELD_IDLE_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
