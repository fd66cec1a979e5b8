"""weld.validator_for and the Validator: verdicts, errors, output formats,
options (docs/python.md, "Validating")."""

import pickle
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest

import weld

ORDER = {
    "$defs": {"price": {"type": "integer", "minimum": 0}},
    "type": "object",
    "properties": {
        "id": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {"price": {"$ref": "#/$defs/price"}}}},
        "status": {"enum": ["open", "paid"]},
    },
    "required": ["id"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def order():
    return weld.validator_for(ORDER)


def test_is_valid(order):
    assert order.is_valid({"id": "a1", "lines": [{"price": 3}], "status": "paid"}) is True
    assert order.is_valid({"id": "a1", "lines": [{"price": -3}]}) is False
    assert order.is_valid({"lines": []}) is False
    assert order.is_valid([]) is False


def test_validate_raises_the_first_error(order):
    assert order.validate({"id": "a1"}) is None
    with pytest.raises(weld.ValidationError) as caught:
        order.validate({"id": "a1", "lines": [{"price": 2}, {"price": -1}]})
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.message == "must be >= 0"
    assert error.instance_path == ["lines", 1, "price"]
    assert error.schema_path == ["$defs", "price", "minimum"]
    assert error.keyword == "minimum"
    assert error.params == {"comparison": ">=", "limit": 0}
    assert error.instance == -1
    assert str(error) == "instance/lines/1/price must be >= 0"


def test_iter_errors_gives_every_error(order):
    instance = {"lines": [{"price": "x"}], "status": "lost", "extra": 1}
    errors = list(order.iter_errors(instance))
    found = sorted((e.keyword, tuple(e.instance_path)) for e in errors)
    assert found == [
        ("additionalProperties", ()),
        ("enum", ("status",)),
        ("required", ()),
        ("type", ("lines", 0, "price")),
    ]
    by_keyword = {e.keyword: e for e in errors}
    assert by_keyword["required"].message == "must have required property 'id'"
    assert by_keyword["required"].params == {"missingProperty": "id"}
    assert by_keyword["additionalProperties"].params == {"additionalProperty": "extra"}
    assert by_keyword["enum"].params == {"allowedValues": ["open", "paid"]}
    assert by_keyword["enum"].schema_path == ["properties", "status", "enum"]
    # The failing part of the instance is the caller's own object.
    assert by_keyword["type"].instance == "x"
    assert by_keyword["additionalProperties"].instance is instance
    assert list(order.iter_errors({"id": "x"})) == []


def test_schema_path_indices_are_ints():
    v = weld.validator_for({"anyOf": [{"type": "string"}, {"type": "integer"}], "allOf": [{"minLength": 2}]})
    errors = {e.keyword: e for e in v.iter_errors("a")}
    assert errors["minLength"].schema_path == ["allOf", 0, "minLength"]


def test_evaluate_output_formats(order):
    assert order.evaluate({"id": "a"}, "flag") == {"valid": True}
    assert order.evaluate({"id": 1}, "flag") == {"valid": False}
    assert order.evaluate({"id": "a"}) == {"valid": True}
    assert order.evaluate({"id": "a", "lines": [{"price": 1.5}]}) == {
        "valid": False,
        "errors": [
            {
                "keywordLocation": "/$defs/price/type",
                "instanceLocation": "/lines/0/price",
                "keyword": "type",
                "error": "must be integer",
            }
        ],
    }
    with pytest.raises(ValueError, match='output must be "flag" or "list"'):
        order.evaluate({"id": 1}, "verbose")


def test_json_text_methods(order):
    assert order.is_valid_json('{"id": "a"}') is True
    assert order.is_valid_json(b'{"id": 7}') is False
    assert order.is_valid_json(bytearray(b'{"id": "a"}')) is True
    assert order.is_valid_json(memoryview(b'{"id": "a"}')) is True
    order.validate_json(b'{"id": "a"}')
    with pytest.raises(weld.ValidationError) as caught:
        order.validate_json('{"id": "a", "lines": [{"price": -2}]}')
    assert caught.value.instance_path == ["lines", 0, "price"]
    assert caught.value.instance == -2
    assert [e.keyword for e in order.iter_errors_json('{"status": "x", "id": "a"}')] == ["enum"]
    assert order.evaluate_json("[]", "flag") == {"valid": False}
    with pytest.raises(ValueError, match=r"^instance is not valid JSON: .* at line 1 column 8$"):
        order.is_valid_json('{"id": }')
    with pytest.raises(TypeError, match="text must be str, bytes"):
        order.is_valid_json({"id": "a"})


def test_bytes_are_not_a_json_value(order):
    with pytest.raises(TypeError, match=r"^instance: bytes is not a JSON value \(to validate JSON text, use the \*_json methods\)$"):
        order.is_valid(b'{"id": "a"}')


def test_one_shot_functions():
    schema = {"type": "integer", "maximum": 3}
    assert weld.is_valid(schema, 3) is True
    assert weld.is_valid(schema, 4) is False
    weld.validate(schema, 2)
    with pytest.raises(weld.ValidationError, match="must be <= 3"):
        weld.validate(schema, 4)
    assert [e.keyword for e in weld.iter_errors(schema, "x")] == ["type"]
    assert weld.evaluate(schema, 9, "flag") == {"valid": False}
    assert weld.is_valid('{"type": "string"}', "x")  # schema as JSON text
    assert weld.is_valid(b'{"type": "string"}', 1) is False


def test_validator_class_is_validator_for():
    v = weld.Validator({"type": "string"}, dialect="draft7")
    assert v.is_valid("x") and not v.is_valid(1)
    assert v.dialect == "draft7"
    assert repr(v) == "<weld.Validator draft7>"
    assert v.schema == {"type": "string"}


def test_schema_from_a_file(tmp_path):
    path = tmp_path / "schema.json"
    path.write_text('{"type": "array", "maxItems": 1}')
    assert weld.validator_for(path).is_valid([1])
    assert not weld.validator_for(path).is_valid([1, 2])
    assert weld.validator_for("@" + str(path)).is_valid([])
    with pytest.raises(weld.SchemaError, match=r'^schema could not read ".*missing.json": No such file or directory$') as caught:
        weld.validator_for(tmp_path / "missing.json")
    assert caught.value.pointer == ""


def test_schema_errors():
    with pytest.raises(weld.SchemaError) as caught:
        weld.validator_for({"type": "text"})
    assert str(caught.value).startswith('schema is not a valid JSON Schema: "type" must be equal to one of the allowed values')
    assert caught.value.pointer == "/type"
    assert isinstance(caught.value, ValueError)
    with pytest.raises(weld.SchemaError, match=r"^schema is not valid JSON: .* at line 1 column 2$"):
        weld.validator_for("{oops")
    with pytest.raises(weld.SchemaError, match=r'^schema is not a valid JSON Schema: cannot resolve remote reference "http://example.com/a.json" at /\$ref$'):
        weld.validator_for({"$ref": "http://example.com/a.json"})
    with pytest.raises(TypeError, match="schema must be a dict or bool, JSON text"):
        weld.validator_for(42)
    with pytest.raises(TypeError, match=r"^schema at /properties: the dict key 1 \(int\) is not a string"):
        weld.validator_for({"properties": {1: {}}})


def test_boolean_schemas():
    assert weld.validator_for(True).is_valid({"anything": [1]})
    assert not weld.validator_for(False).is_valid(None)
    assert [e.keyword for e in weld.validator_for(False).iter_errors(1)] == ["false schema"]


def test_recursion_without_progress_is_one_error():
    # The depth limit stops the validation; that stop is the only error
    # (docs/schema.md, "What validates"), not one more per applicator.
    v = weld.validator_for({"properties": {"a": {"$ref": "#/$defs/r"}}, "$defs": {"r": {"anyOf": [{"$ref": "#/$defs/r"}]}}})
    [error] = v.iter_errors({"a": {"b": 1}})
    assert error.keyword == "depth limit"
    assert error.message.startswith("exceeds the maximum schema evaluation depth")
    assert (list(error.instance_path), list(error.schema_path)) == (["a"], ["$defs", "r"])
    with pytest.raises(weld.ValidationError, match="maximum schema evaluation depth"):
        v.validate({"a": 1})


def test_options_dialect_formats_strict():
    assert weld.validator_for({"type": "integer"}).dialect == "2020-12"
    assert weld.validator_for({"$schema": "http://json-schema.org/draft-04/schema#"}).dialect == "draft4"
    with pytest.raises(ValueError, match=r'^dialect must be one of "draft4", "draft6", "draft7", "2019-09", "2020-12", "v1" \(got "draft3"\)$'):
        weld.validator_for({}, dialect="draft3")
    # draft-04 reads exclusiveMaximum as a boolean, 2020-12 as a number.
    assert not weld.validator_for({"maximum": 3, "exclusiveMaximum": True}, dialect="draft4").is_valid(3)
    with pytest.raises(weld.SchemaError):
        weld.validator_for({"maximum": 3, "exclusiveMaximum": True})
    email = {"type": "string", "format": "email"}
    assert not weld.validator_for(email).is_valid("not an address")
    assert weld.validator_for(email, validate_formats=False).is_valid("not an address")
    # Unknown keywords: ignored by default, refused with strict=True.
    assert weld.validator_for({"type": "object", "requried": ["id"]}).is_valid({})
    with pytest.raises(weld.SchemaError) as caught:
        weld.validator_for({"type": "object", "requried": ["id"]}, strict=True)
    assert str(caught.value) == ('schema is not a valid JSON Schema: strict mode: unknown keyword: "requried" '
                                 '(did you mean "required"?) at /requried')
    assert caught.value.pointer == "/requried"
    # v1 refuses unknown keywords by its own rule, strict or not.
    assert weld.validator_for({"$schema": "https://json-schema.org/v1", "type": "object"}).dialect == "v1"
    with pytest.raises(weld.SchemaError, match="requried"):
        weld.validator_for({"type": "object", "requried": ["id"]}, dialect="v1")


def test_schema_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        weld.validator_for({"type": "string", "format": "colour"}, strict=True)
    assert [str(w.message) for w in caught] == ['unknown format "colour" ignored at /format']
    assert caught[0].category is weld.SchemaWarning


def test_retriever():
    documents = {"https://example.com/price.json": {"type": "number", "minimum": 0}}
    asked = []

    def retrieve(uri):
        asked.append(uri)
        return documents.get(uri)

    v = weld.validator_for({"properties": {"p": {"$ref": "https://example.com/price.json"}}}, retriever=retrieve)
    assert asked == ["https://example.com/price.json"]
    assert v.is_valid({"p": 1}) and not v.is_valid({"p": -1})
    # Text answers are JSON text.
    v = weld.validator_for({"$ref": "https://example.com/s.json"}, retriever=lambda uri: '{"type": "string"}')
    assert v.is_valid("x") and not v.is_valid(1)
    # None: not found.
    with pytest.raises(weld.SchemaError, match="cannot resolve remote reference"):
        weld.validator_for({"$ref": "https://example.com/none.json"}, retriever=lambda uri: None)


def test_retriever_exceptions_are_chained():
    def retrieve(uri):
        raise ConnectionError("no network for " + uri)

    with pytest.raises(weld.SchemaError) as caught:
        weld.validator_for({"$ref": "https://example.com/x.json"}, retriever=retrieve)
    assert isinstance(caught.value.__cause__, ConnectionError)
    assert str(caught.value.__cause__) == "no network for https://example.com/x.json"
    with pytest.raises(weld.SchemaError) as caught:
        weld.validator_for({"$ref": "https://example.com/x.json"}, retriever=lambda uri: "{not json")
    assert isinstance(caught.value.__cause__, ValueError)
    assert str(caught.value.__cause__).startswith("the retriever's text for \"https://example.com/x.json\" is not JSON")
    with pytest.raises(TypeError, match="retriever must be a callable"):
        weld.validator_for({}, retriever="https://example.com")


def test_mask_hides_the_instance():
    v = weld.validator_for({"properties": {"card": {"pattern": "^[0-9]{16}$"}}}, mask="[redacted]")
    [error] = v.iter_errors({"card": "4111 1111 1111 1111"})
    assert error.instance == "[redacted]"
    assert "4111" not in str(error) and "4111" not in repr(error) and "4111" not in error.message
    assert repr(v) == "<weld.Validator 2020-12 masked>"


def test_errors_pickle(order):
    [error] = order.iter_errors({"id": 1})
    copy = pickle.loads(pickle.dumps(error))
    assert (copy.message, copy.instance_path, copy.schema_path, copy.keyword, copy.params, copy.instance) == (
        error.message, error.instance_path, error.schema_path, error.keyword, error.params, error.instance)
    schema_error = weld.SchemaError("schema is not valid", "/type")
    assert pickle.loads(pickle.dumps(schema_error)).pointer == "/type"


def test_one_validator_many_threads(order):
    instances = [{"id": str(i), "lines": [{"price": i - 50}]} for i in range(100)]
    expected = [i >= 50 for i in range(100)]
    barrier = threading.Barrier(4)

    def check(_):
        barrier.wait()
        return [order.is_valid(x) for x in instances] + [order.is_valid_json(repr(x).replace("'", '"')) for x in instances]

    with ThreadPoolExecutor(4) as pool:
        for verdicts in pool.map(check, range(4)):
            assert verdicts == expected + expected


def test_help_is_useful():
    doc = weld.validator_for.__doc__
    assert "validator_for(schema, *, dialect=None" in doc
    assert "retriever" in doc and "pydantic" in doc
    assert "Raises TypeError or ValueError" in weld.Validator.is_valid.__doc__


def test_validators_pickle_for_workers(order):
    import multiprocessing

    copy = pickle.loads(pickle.dumps(order))
    assert copy.is_valid({"id": "x"}) and not copy.is_valid({"id": 1})
    assert copy.schema == order.schema and copy.dialect == order.dialect
    options = weld.validator_for({"type": "string", "format": "email"}, validate_formats=False, strict=True,
                                 dialect="draft7", mask="***")
    again = pickle.loads(pickle.dumps(options))
    assert again.is_valid("not an email") and again.dialect == "draft7" and repr(again) == repr(options)
    [error] = again.iter_errors(1)
    assert error.instance == "***"
    # In other processes, as Dask, Ray or a multiprocessing pool use it.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        assert pool.map(copy.is_valid, [{"id": "a"}, {"id": 2}]) == [True, False]
    with pytest.raises(TypeError, match="made with a retriever cannot be pickled"):
        pickle.dumps(weld.validator_for({"$ref": "https://example.com/s.json"}, retriever=lambda uri: {}))
