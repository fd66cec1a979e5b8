"""pydantic models as schemas (docs/python.md, "pydantic"): Debian's
pydantic 1.10 for real; pydantic 2's interface (model_json_schema,
model_validate) and TypeAdapter duck-typed, as weld reads them."""

from typing import List, Optional

import pytest

import weld

pydantic = pytest.importorskip("pydantic")


class Line(pydantic.BaseModel):
    sku: str
    quantity: int = pydantic.Field(ge=1)


class Order(pydantic.BaseModel):
    id: str
    lines: List[Line]
    note: Optional[str] = None


def test_a_model_class_is_a_schema():
    v = weld.validator_for(Order)
    assert v.model is Order
    assert v.is_valid({"id": "o1", "lines": [{"sku": "a", "quantity": 2}]})
    assert not v.is_valid({"id": "o1", "lines": [{"sku": "a", "quantity": 0}]})
    [error] = v.iter_errors({"id": "o1", "lines": [{"sku": "a"}]})
    assert (error.keyword, error.instance_path) == ("required", ["lines", 0])
    assert weld.is_valid(Order, {"id": "x", "lines": []})
    # pydantic 1 writes definitions/$ref: the same validator as its schema().
    assert weld.validator_for(Order.schema()).is_valid({"id": "o1", "lines": [{"sku": "a", "quantity": 2}]})


def test_repair_returns_a_model_instance():
    value, repairs = weld.repair('```json\n{"id": "o1", "lines": [{"sku": "a", "quantity": "3"}]}\n```', Order)
    assert isinstance(value, Order)
    assert value.lines[0].quantity == 3
    assert [r["kind"] for r in repairs] == ["code_fence", "coerce_number"]
    # Through a validator made from the model, too.
    assert isinstance(weld.repair('{"id": "o2", "lines": []}', weld.validator_for(Order)).value, Order)


class Pydantic2Like:
    """The two class methods of a pydantic 2 model weld calls."""

    @classmethod
    def model_json_schema(cls):
        return {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}

    @classmethod
    def model_validate(cls, value):
        made = cls()
        made.n = value["n"]
        return made


def test_pydantic_2_models_by_their_interface():
    v = weld.validator_for(Pydantic2Like)
    assert v.model is Pydantic2Like
    assert v.is_valid({"n": 1}) and not v.is_valid({"n": "1"})
    value, _ = weld.repair('{"n": "7"}', Pydantic2Like)
    assert isinstance(value, Pydantic2Like) and value.n == 7


class TypeAdapterLike:
    """pydantic 2's TypeAdapter: json_schema() and validate_python()."""

    def json_schema(self):
        return {"type": "array", "items": {"type": "integer"}}

    def validate_python(self, value):
        return tuple(value)


def test_type_adapters():
    adapter = TypeAdapterLike()
    assert weld.validator_for(adapter).is_valid([1, 2])
    assert weld.repair('[1, "2"]', adapter).value == (1, 2)


def test_a_validator_of_a_model_pickles_with_its_model():
    import pickle

    copy = pickle.loads(pickle.dumps(weld.validator_for(Order)))
    assert copy.model is Order
    assert copy.is_valid({"id": "o1", "lines": []})
