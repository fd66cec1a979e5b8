"""weld.repair: the run's repairs on one answer (docs/python.md,
"Repairing model answers")."""

import pickle

import pytest

import weld

SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}, "n": {"type": "integer", "maximum": 5}, "tags": {"type": "array"}},
    "required": ["ok"],
}


def test_a_valid_answer_is_returned_untouched():
    value, repairs = weld.repair('{"ok": true, "n": 2}', SCHEMA)
    assert value == {"ok": True, "n": 2}
    assert repairs == []


def test_text_repairs():
    result = weld.repair('Here it is:\n```json\n{"ok": true, \'n\': 3,}\n```', SCHEMA)
    assert isinstance(result, weld.Repaired)
    assert result.value == {"ok": True, "n": 3}
    assert result.repairs == [
        {"kind": "code_fence", "path": "", "detail": "removed a Markdown code fence (```json) and the text around it"},
        {"kind": "single_quotes", "path": "", "detail": "converted a single-quoted string to double quotes"},
        {"kind": "trailing_comma", "path": "", "detail": "removed a trailing comma before '}'"},
    ]
    value, repairs = weld.repair(b"{'ok': True, 'tags': None}", {"type": "object"})
    assert value == {"ok": True, "tags": None}
    assert {r["kind"] for r in repairs} == {"single_quotes", "python_literals"}


def test_coercions_are_reported_where_they_happen():
    value, repairs = weld.repair('{"ok": "true", "n": "4"}', SCHEMA)
    assert value == {"ok": True, "n": 4}
    assert repairs == [
        {"kind": "coerce_boolean", "path": "/ok", "detail": '"true" -> true'},
        {"kind": "coerce_number", "path": "/n", "detail": '"4" -> 4'},
    ]
    # A Python value is repaired too (serialised, then repaired).
    assert weld.repair({"ok": "false"}, SCHEMA).value == {"ok": False}


def test_switches():
    with pytest.raises(weld.RepairError):
        weld.repair('{"ok": "true"}', SCHEMA, coerce=False)
    with pytest.raises(weld.RepairError) as caught:
        weld.repair('{"ok": true,}', SCHEMA, parse=False)
    assert caught.value.keyword == "parse" and not caught.value.parsed
    assert weld.repair('{"ok": true, "n": 9}', SCHEMA, clamp=True) == ({"ok": True, "n": 5}, [
        {"kind": "clamp", "path": "/n", "detail": "9 -> 5"}])


def test_what_cannot_be_repaired_raises():
    with pytest.raises(weld.RepairError) as caught:
        weld.repair('{"ok": true, "n": 9, "tags": 1}', SCHEMA)
    error = caught.value
    assert isinstance(error, weld.ValidationError)
    assert error.parsed is True
    assert error.value == {"ok": True, "n": 9, "tags": 1}
    assert sorted(e.keyword for e in error.errors) == ["maximum", "type"]
    assert (error.message, error.keyword) == (error.errors[0].message, error.errors[0].keyword)
    assert repr(error).startswith("<RepairError: ")
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.value, copy.parsed, len(copy.errors)) == (error.value, True, 2)

    with pytest.raises(weld.RepairError) as caught:
        weld.repair("I could not find the answer.", SCHEMA)
    error = caught.value
    assert error.parsed is False and error.value is None
    assert error.keyword == "parse"
    assert error.message.startswith("must be valid JSON (")
    assert set(error.params) == {"error", "where"}


def test_empty_text_is_an_empty_object():
    assert weld.repair("", {"type": "object"}) == ({}, [])
    with pytest.raises(weld.RepairError, match="must have required property 'ok'"):
        weld.repair("  ", SCHEMA)


def test_a_validator_is_reused():
    v = weld.validator_for(SCHEMA)
    assert weld.repair('{"ok": "false"}', v).value == {"ok": False}


def test_big_integers_come_back_exactly():
    value, _ = weld.repair('{"n": 123456789012345678901234567890,}', {"type": "object"})
    assert value == {"n": 123456789012345678901234567890}
