"""A schema that reads a few members of a large dict costs a check of the
rest, not its conversion (docs/python.md, "Reading Python objects"): the
verdict is the one of the whole instance, and what is not JSON is still
refused wherever it is."""

import collections
import decimal
import enum
import json
import math

import pytest

import weld

# Each schema, and instances whose verdicts the dict path must give as the
# JSON text path (which reads everything) does.
SCHEMAS = [
    {"properties": {"ignore": {"type": "string"}}},
    {"allOf": [{"$ref": "#/definitions/a"}], "definitions": {"a": {"properties": {"a": {"type": "integer"}}}}},
    {"required": ["a", "b"]},
    {"dependentRequired": {"a": ["c"]}},
    {"dependencies": {"a": ["c"], "b": {"properties": {"c": {"const": 1}}}}},
    {"dependentSchemas": {"b": {"required": ["d"]}}},
    {"properties": {"a": {"properties": {"x": {"maximum": 1}}}}},
    {"properties": {"a": {"type": "object"}}, "additionalProperties": {"type": "integer"}},
    {"properties": {"a": True}, "patternProperties": {"^c": {"type": "string"}}},
    {"properties": {"a": True}, "minProperties": 3},
    {"properties": {"a": True}, "maxProperties": 1},
    {"properties": {"a": True}, "unevaluatedProperties": False},
    {"allOf": [{"properties": {"a": True}}], "unevaluatedProperties": False},
    {"properties": {"a": {"enum": [{"x": 1}]}}},
    {"properties": {"a": {"const": {"x": 1, "y": [1]}}}},
    {"properties": {"a": {"propertyNames": {"maxLength": 1}}}},
    {"if": {"properties": {"a": {"const": 1}}}, "then": {"required": ["b"]}, "else": {"required": ["c"]}},
    {"not": {"required": ["d"]}},
    {"anyOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "string"}}}]},
    {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"properties": {"a": {"items": {"properties": {"x": {"type": "integer"}}}}}},
    {"properties": {"a": {"$ref": "#"}, "b": {"type": "integer"}}},
    {"$defs": {"n": {"$anchor": "n", "type": "integer"}}, "properties": {"a": {"$ref": "#n"}}},
    {"$id": "https://example.com/root", "properties": {"a": {"$ref": "https://example.com/root#/$defs/s"}},
     "$defs": {"s": {"type": "string"}}},
    {"properties": {"a": {"type": "integer"}}, "x-extension": {"anything": True}},
    {"properties": {"a": {"type": "object"}}, "uniqueItems": True, "items": {"type": "object"}},
]
INSTANCES = [
    {},
    {"ignore": "x", "rules": {"braces": {"level": "error", "max": 1}}},
    {"ignore": 1},
    {"a": 1},
    {"a": "1", "b": 2},
    {"a": 1, "b": 2, "c": 3},
    {"a": {"x": 2}, "c": "s"},
    {"a": {"x": 1, "y": [1]}, "cc": 1},
    {"a": {"x": 1}},
    {"a": {"long": 1}},
    {"a": [{"x": 1}, {"x": "1"}]},
    {"a": {"a": {"a": 1}}, "b": 1},
    {"a": {"b": "x"}},
    {"b": 1, "d": None},
    {"b": 1, "c": 2, "d": 3},
    [{"a": 1}, {"a": 1}],
    "text",
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda schema: json.dumps(schema)[:60])
def test_verdicts_are_those_of_the_whole_instance(schema):
    v = weld.validator_for(schema)
    for instance in INSTANCES:
        text = json.dumps(instance)
        assert v.is_valid(instance) == v.is_valid_json(text), text
        assert [e.message for e in v.iter_errors(instance)] == [e.message for e in v.iter_errors_json(text)], text


class Colour(enum.IntEnum):
    RED = 1


# A schema that reads "ignore" only, as yamllint's does.
READS_ONE = {"properties": {"ignore": {"type": "string"}}}


def test_members_not_read_are_still_checked():
    v = weld.validator_for(READS_ONE)
    rules = {"braces": {"level": "error", "sizes": [1, 2.5, None, True]}, "big": 2**200, "e": Colour.RED,
             "d": decimal.Decimal("1.5"), "o": collections.OrderedDict(a=1), "t": ("x", "é", "\U0001F600")}
    assert v.is_valid({"ignore": "x", "rules": rules})
    assert not v.is_valid({"ignore": 1, "rules": rules})
    with pytest.raises(ValueError) as caught:
        v.is_valid({"ignore": "x", "rules": {"braces": {"sizes": [1, math.nan]}}})
    assert str(caught.value) == ("instance at /rules/braces/sizes/1: nan is not a JSON number "
                                 "(JSON numbers are finite: no NaN, no infinity)")
    with pytest.raises(TypeError, match=r"^instance at /rules: the dict key 1 \(int\) is not a string"):
        v.is_valid({"ignore": "x", "rules": {1: "one"}})
    with pytest.raises(ValueError, match=r"^instance at /rules/é: the string is not valid Unicode"):
        v.is_valid({"ignore": "x", "rules": {"é": "\ud800"}})
    with pytest.raises(ValueError, match=r"^instance at /rules: the string is not valid Unicode"):
        v.is_valid({"ignore": "x", "rules": {"\udfff": 1}})
    with pytest.raises(TypeError, match=r"^instance at /rules/0: set is not a JSON value"):
        v.is_valid({"ignore": "x", "rules": [{1, 2}]})
    with pytest.raises(ValueError, match=r"^instance at /rules/2/x: the integer is out of range"):
        v.is_valid({"ignore": "x", "rules": [0, 1, {"x": 10**400}]})
    with pytest.raises(ValueError, match=r"^instance at /rules/x: Decimal\('NaN'\) is not a JSON number"):
        v.is_valid({"ignore": "x", "rules": {"x": decimal.Decimal("nan")}})
    loop = {}
    loop["self"] = loop
    with pytest.raises(ValueError, match="contains itself"):
        v.is_valid({"ignore": "x", "rules": loop})


def test_errors_of_members_read_name_their_place():
    v = weld.validator_for({"properties": {"a": {"properties": {"n": {"type": "integer"}}}}})
    errors = list(v.iter_errors({"a": {"n": "1", "other": [1]}, "b": {"c": 2}}))
    assert [(e.instance_path, e.message) for e in errors] == [(["a", "n"], "must be integer")]
