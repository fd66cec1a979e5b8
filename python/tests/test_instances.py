"""Python values as instances: what is JSON, what keeps its exact value,
and the clear errors for what is not JSON (docs/python.md, "Instances")."""

import collections
import decimal
import enum
import math

import pytest

import weld


def valid(schema, instance):
    return weld.validator_for(schema).is_valid(instance)


def test_types_map_to_json_types():
    kinds = {"null": None, "boolean": True, "integer": 3, "number": 2.5, "string": "s", "array": [1], "object": {}}
    for name, value in kinds.items():
        for other, other_value in kinds.items():
            expected = name == other or (name == "integer" and other == "number")
            assert valid({"type": other}, value) is expected, (name, other)


def test_bool_is_not_an_integer():
    assert not valid({"type": "integer"}, True)
    assert not valid({"enum": [1]}, True)
    assert not valid({"const": 0}, False)


def test_integral_float_is_an_integer():
    assert valid({"type": "integer"}, 3.0)
    assert not valid({"type": "integer"}, 3.5)


def test_big_integers_keep_every_digit():
    big = 2**64 + 1
    v = weld.validator_for({"type": "integer"})
    assert v.is_valid(big) and v.is_valid(-(2**200)) and v.is_valid(10**300)
    # Beyond the double range, as JSON text would be refused by the parser.
    with pytest.raises(ValueError, match=r"^instance at /n: the integer is out of range \(JSON numbers are read within the double range"):
        v.is_valid({"n": 10**400})
    with pytest.raises(ValueError, match=r"^instance is not valid JSON: number out of range"):
        v.is_valid_json("1" + "0" * 400)
    assert not weld.validator_for({"type": "string"}).is_valid(big)
    # Handed back exactly from JSON text (no detour through a double).
    [error] = weld.validator_for({"type": "string"}).iter_errors_json(b"18446744073709551617")
    assert error.instance == big and isinstance(error.instance, int)
    [error] = weld.validator_for({"items": {"type": "string"}}).iter_errors_json("[-123456789012345678901234567890]")
    assert error.instance == -123456789012345678901234567890


def test_floats_keep_their_exact_value():
    # 0.1 + 0.2 is not 0.3: no rounding on the way in.
    assert valid({"const": 0.1 + 0.2}, 0.1 + 0.2)
    assert not valid({"const": 0.1 + 0.2}, 0.3)
    assert valid({"maximum": 0.3}, 0.3) and not valid({"maximum": 0.3}, 0.1 + 0.2)
    assert valid({"minimum": 5e-324}, 5e-324) and not valid({"minimum": 5e-324}, 0.0)
    assert valid({"const": 1.7976931348623157e308}, 1.7976931348623157e308)


def test_subclasses_and_containers():
    class Colour(str, enum.Enum):
        RED = "red"

    class Level(enum.IntEnum):
        HIGH = 3

    point = collections.namedtuple("point", "x y")
    schema = {
        "type": "object",
        "properties": {
            "colour": {"enum": ["red"]},
            "level": {"const": 3},
            "point": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]},
            "pair": {"type": "array", "maxItems": 2},
        },
    }
    instance = collections.OrderedDict(colour=Colour.RED, level=Level.HIGH, point=point(1, 2), pair=(1, "a"))
    assert valid(schema, instance)
    assert valid({"type": "object"}, collections.defaultdict(list, a=[]))
    assert not valid(schema, {"pair": (1, 2, 3)})


def test_decimal_keeps_its_digits():
    assert valid({"type": "integer"}, decimal.Decimal("12345678901234567890123"))
    assert valid({"multipleOf": 0.5}, decimal.Decimal("2.5"))
    assert valid({"const": 1}, decimal.Decimal("1.000"))
    with pytest.raises(ValueError, match=r"^instance at /a: Decimal\('NaN'\) is not a JSON number"):
        valid({}, {"a": decimal.Decimal("NaN")})


def test_numpy_values():
    numpy = pytest.importorskip("numpy")
    assert valid({"type": "integer"}, numpy.int64(3))
    assert valid({"type": "number", "maximum": 1}, numpy.float32(0.5))
    assert valid({"type": "boolean"}, numpy.bool_(True))
    assert valid({"type": "array", "items": {"type": "integer"}}, numpy.arange(4))
    assert valid({"type": "array", "items": {"type": "array"}}, numpy.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"^instance at /x: nan is not a JSON number"):
        valid({}, {"x": numpy.float64("nan")})


def test_non_string_keys_are_refused():
    with pytest.raises(TypeError) as caught:
        valid({}, {"a": {1: "one"}})
    assert str(caught.value) == "instance at /a: the dict key 1 (int) is not a string (JSON object keys are strings)"
    with pytest.raises(TypeError, match=r"^instance: the dict key None \(NoneType\) is not a string"):
        valid({}, {None: 1})
    with pytest.raises(TypeError, match=r"^instance at /0: the dict key \(1, 2\) \(tuple\) is not a string"):
        valid({}, [{(1, 2): 1}])


@pytest.mark.parametrize("number, shown", [(math.nan, "nan"), (math.inf, "inf"), (-math.inf, "-inf")])
def test_non_finite_numbers_are_refused(number, shown):
    with pytest.raises(ValueError) as caught:
        valid({"type": "number"}, {"list": [1, number]})
    assert str(caught.value) == (
        f"instance at /list/1: {shown} is not a JSON number (JSON numbers are finite: no NaN, no infinity)")


def test_other_types_are_refused():
    import datetime

    with pytest.raises(TypeError, match=r"^instance at /when: datetime.date is not a JSON value \(JSON has dicts"):
        valid({}, {"when": datetime.date(2024, 1, 1)})
    with pytest.raises(TypeError, match=r"^instance: set is not a JSON value"):
        valid({}, {1, 2})
    with pytest.raises(TypeError, match=r"^instance at /0/a: object is not a JSON value"):
        valid({}, [{"a": object()}])


def test_lone_surrogates_are_refused():
    with pytest.raises(ValueError, match=r"^instance at /s: the string is not valid Unicode: it holds a lone surrogate"):
        valid({}, {"s": "\ud800"})
    with pytest.raises(ValueError, match=r"^instance: the string is not valid Unicode"):
        valid({}, {"\udfff": 1})
    assert valid({"maxLength": 1}, "\U0001F600")  # one code point, four bytes


def test_deep_nesting_is_a_clear_error():
    deep = leaf = []
    for _ in range(100_000):
        inner = []
        leaf.append(inner)
        leaf = inner
    with pytest.raises(ValueError) as caught:
        valid({"type": "array"}, deep)
    assert str(caught.value) == (
        "instance at /0/0/0/0/0/0/0/0/…/0/0/0: nests deeper than 512 levels of lists and dicts "
        "(is it a list or dict that contains itself?)")
    deep_dict = {}
    at = deep_dict
    for _ in range(100_000):
        at["a"] = {}
        at = at["a"]
    with pytest.raises(ValueError, match="nests deeper than 512 levels"):
        valid({}, deep_dict)
    # The same as JSON text: refused by the parser's limit, not a crash.
    with pytest.raises(ValueError, match=r"^instance is not valid JSON: nesting deeper than 512 levels"):
        weld.validator_for({}).is_valid_json("[" * 100_000 + "]" * 100_000)
    # 512 levels are fine.
    ok = []
    for _ in range(511):
        ok = [ok]
    assert valid({"type": "array"}, ok)


def test_containers_that_contain_themselves():
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="contains itself"):
        valid({}, loop)
    cycle = {}
    cycle["self"] = cycle
    with pytest.raises(ValueError, match="contains itself"):
        valid({}, cycle)


def test_schema_values_are_checked_too():
    with pytest.raises(ValueError, match=r"^schema at /maximum: nan is not a JSON number"):
        weld.validator_for({"maximum": math.nan})


def test_fanning_out_references_stay_within_the_work_bound():
    # Each level refers to the next twice: 2^40 evaluations without weld's memo.
    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}] * 2} for i in range(40)}
    defs["d40"] = {"type": "integer", "maximum": 5}
    v = weld.validator_for({"$defs": defs, "type": "array", "items": {"$ref": "#/$defs/d0"}})
    assert v.is_valid([1, 2, 3, 4, 5])
    assert not v.is_valid([1, 2, 7])
    [error] = v.iter_errors([1, 2, 7])
    assert (error.instance_path, error.message) == ([2], "must be <= 5")
