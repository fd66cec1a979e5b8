"""weld.lower (docs/python.md, "Lowering a schema for a provider"): the
lowered schema, the changes, and answers mapped back to the original's shape
and validated against it, through the library's weld::schema::Lowering."""

import json

import pytest

import weld

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 1, "description": "full name"},
        "age": {"type": "integer", "minimum": 0},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
    },
    "required": ["name"],
}


def test_openai_strict_requires_every_property_and_closes_objects():
    lowered = weld.lower(PERSON, "openai-strict")
    assert lowered.target == "openai-strict"
    assert lowered.maps
    schema = lowered.schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["name", "age", "scores"]
    assert schema["properties"]["age"]["type"] == ["integer", "null"]
    assert schema["properties"]["name"] == {"type": "string", "description": "full name (minLength: 1)"}
    assert "array" in json.dumps(schema["properties"]["scores"])  # a map becomes [{"key", "value"}] entries
    first = lowered.changes[0]
    assert first == {"pointer": "/properties/name", "change": "minLength moved into the description",
                     "reason": "openai-strict has no minLength"}
    # The lowered schema is itself a schema weld compiles.
    assert weld.validator_for(schema).is_valid({"name": "Ann", "age": None, "scores": None})


def test_map_back_gives_an_instance_of_the_original():
    lowered = weld.lower(PERSON, "openai-strict")
    answer = {"name": "Ann", "age": None, "scores": [{"key": "a", "value": 1}, {"key": "b", "value": 2}]}
    value, changes = lowered.map_back(answer)
    assert value == {"name": "Ann", "scores": {"a": 1, "b": 2}}
    assert {c["change"] for c in changes} == {"drop_null", "entries"}
    assert all(set(c) == {"pointer", "change", "reason"} for c in changes)
    # JSON text too, as the provider sends it.
    assert lowered.map_back(json.dumps(answer))[0] == value
    assert lowered.map_back(json.dumps(answer).encode())[0] == value
    # And the way forward is the inverse.
    assert lowered.map_back(lowered.map_forward(value))[0] == value


def test_map_back_validates_against_the_original():
    lowered = weld.lower(PERSON, "openai-strict")
    with pytest.raises(weld.ValidationError) as caught:
        lowered.map_back({"name": "", "age": -1, "scores": None})
    assert caught.value.keyword in ("minLength", "minimum")
    # Without validation, the mapped value as it is.
    value, _ = lowered.map_back({"name": "", "age": -1, "scores": None}, validate=False)
    assert value == {"name": "", "age": -1}


def test_a_root_that_is_not_an_object_is_wrapped():
    lowered = weld.lower({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "openai-strict")
    assert lowered.schema["required"] == ["value"]
    value, changes = lowered.map_back({"value": 5})
    assert value == 5
    assert [(c["pointer"], c["change"]) for c in changes] == [("", "unwrap")]
    assert lowered.map_forward("x") == {"value": "x"}
    # vllm takes any root: nothing to map.
    vllm = weld.lower({"anyOf": [{"type": "string"}, {"type": "integer"}]}, "vllm")
    assert vllm.schema == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert vllm.changes == []


def test_every_target():
    for target in ("openai-strict", "anthropic", "gemini", "vllm", "tool"):
        lowered = weld.lower(PERSON, target)
        assert lowered.target == target
        instance = {"name": "Ann", "age": 3, "scores": {"x": 1}}
        assert lowered.map_back(lowered.map_forward(instance))[0] == instance, target
    assert weld.lower(PERSON, "gemini").schema["type"] == "OBJECT"


def test_keep_open_keeps_other_properties():
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    closed = weld.lower(schema, "openai-strict")
    opened = weld.lower(schema, "openai-strict", keep_open=True)
    assert closed.schema != opened.schema
    instance = {"name": "Ann", "extra": [1, 2]}
    assert opened.map_back(opened.map_forward(instance))[0] == instance


def test_a_pydantic_model():
    pydantic = pytest.importorskip("pydantic")

    class Ticket(pydantic.BaseModel):
        summary: str
        priority: int = 3

    lowered = weld.lower(Ticket, "openai-strict")
    assert lowered.model is Ticket
    assert set(lowered.schema["required"]) == {"summary", "priority"}
    ticket, _ = lowered.map_back('{"summary": "disk full", "priority": null}')
    assert isinstance(ticket, Ticket)
    assert ticket.summary == "disk full" and ticket.priority == 3


def test_bad_arguments():
    with pytest.raises(ValueError, match='target must be one of "openai-strict"'):
        weld.lower(PERSON, "openai")
    with pytest.raises(weld.SchemaError):
        weld.lower({"type": "strin"}, "anthropic")
    with pytest.raises(TypeError):
        weld.lower(42, "anthropic")
    lowered = weld.lower(PERSON, "anthropic")
    with pytest.raises(ValueError, match="answer"):
        lowered.map_back("{not json")
    with pytest.raises(ValueError, match="answer"):
        lowered.map_back({"name": float("nan")})
