"""The official JSON-Schema-Test-Suite's required tests, for the six
dialects, through the module: every case as a Python value (is_valid,
iter_errors, validate) and as JSON text (is_valid_json). The schemas are
compiled non-strict with format as an annotation, each dialect's default,
as the suite is written (tests/schema_suite does the same in C++)."""

import json
import os
from pathlib import Path

import pytest

import weld

DIALECTS = {"draft4": "draft4", "draft6": "draft6", "draft7": "draft7", "draft2019-09": "2019-09",
            "draft2020-12": "2020-12", "v1": "v1"}


def suite_dir() -> Path:
    # Pinned in the repository (third_party/README.md); CTest names it.
    default = Path(__file__).resolve().parents[2] / "third_party" / "JSON-Schema-Test-Suite"
    return Path(os.environ.get("WELD_TEST_SUITE_DIR", default))


SUITE = suite_dir()
REMOTES = "http://localhost:1234/"


def cases():
    if not (SUITE / "tests").is_dir():
        return [pytest.param(None, None, marks=pytest.mark.skip(reason=f"no JSON-Schema-Test-Suite at {SUITE}"))]
    found = []
    for folder, dialect in DIALECTS.items():
        for path in sorted((SUITE / "tests" / folder).glob("*.json")):
            found.append(pytest.param(dialect, path, id=f"{folder}/{path.stem}"))
    return found


def retrieve(uri: str):
    if not uri.startswith(REMOTES):
        return None
    path = SUITE / "remotes" / uri[len(REMOTES):]
    return path.read_text() if path.is_file() else None


def test_the_suite_is_there():
    assert (SUITE / "tests" / "draft2020-12").is_dir(), f"no JSON-Schema-Test-Suite at {SUITE}"
    assert len(cases()) > 150  # 195 files at the pinned commit


@pytest.mark.parametrize("dialect, path", cases())
def test_required(dialect, path):
    groups = json.loads(path.read_text())
    failures = []
    for group in groups:
        validator = weld.validator_for(group["schema"], dialect=dialect, validate_formats=False, retriever=retrieve)
        for test in group["tests"]:
            data, expected = test["data"], test["valid"]
            label = f"{group['description']} / {test['description']}"
            text = json.dumps(data)
            errors = list(validator.iter_errors(data))
            verdicts = {
                "is_valid": validator.is_valid(data),
                "is_valid_json": validator.is_valid_json(text),
                "iter_errors": not errors,
                "iter_errors_json": not list(validator.iter_errors_json(text.encode())),
                "evaluate": validator.evaluate(data, "list")["valid"],
            }
            try:
                validator.validate(data)
                verdicts["validate"] = True
            except weld.ValidationError:
                verdicts["validate"] = False
            wrong = {name: verdict for name, verdict in verdicts.items() if verdict is not expected}
            if wrong:
                failures.append(f"{label}: expected {expected}, got {wrong}")
    assert not failures, "\n".join(failures)
