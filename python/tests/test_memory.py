"""No leak: validating a million instances grows the process by less than
1 MiB (docs/python.md, "Memory"). Each path that builds C++ or Python
objects is run in a loop after a warm-up, and the resident set size is read
from /proc before and after."""

import gc
import os

import pytest

import weld

SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "name": {"type": "string", "minLength": 1},
        "tags": {"type": "array", "items": {"enum": ["a", "b", "c"]}},
        "big": {"type": "integer"},
    },
    "required": ["id", "name"],
}
VALID = {"id": 7, "name": "a fairly long name that is not a short string", "tags": ["a", "c"], "big": 2**80}
INVALID = {"id": "7", "name": "", "tags": ["z"], "big": 1.5}

PAGE = os.sysconf("SC_PAGE_SIZE")

# A sanitizer's allocator keeps freed memory in quarantine: the resident set
# size then says nothing about leaks (LeakSanitizer is the check there).
pytestmark = pytest.mark.skipif(bool(os.environ.get("WELD_SANITIZE")), reason="measured without sanitizers")


def rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * PAGE


def growth(loop, count: int) -> int:
    loop(count // 10)  # warm-up: caches, the allocator's arenas
    gc.collect()
    before = rss()
    loop(count)
    gc.collect()
    return rss() - before


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_a_million_validations_do_not_grow_the_process():
    v = weld.validator_for(SCHEMA)

    def objects(n):
        for _ in range(n):
            assert v.is_valid(VALID)

    assert growth(objects, 1_000_000) < 1 << 20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_errors_and_text_do_not_leak():
    v = weld.validator_for(SCHEMA)
    text = b'{"id": 7, "name": "x", "tags": ["a"], "big": 123456789012345678901234567890}'

    def mixed(n):
        for _ in range(n // 4):
            assert not v.is_valid(INVALID)
            assert v.is_valid_json(text)
            assert len(list(v.iter_errors(INVALID))) == 4
            try:
                v.validate(INVALID)
            except weld.ValidationError:
                pass

    assert growth(mixed, 200_000) < 1 << 20


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs /proc")
def test_compiling_does_not_leak():
    def compile_many(n):
        for _ in range(n):
            weld.validator_for(SCHEMA).is_valid(VALID)
            try:
                weld.validator_for({"type": "nope"})
            except weld.SchemaError:
                pass

    assert growth(compile_many, 20_000) < 1 << 20
