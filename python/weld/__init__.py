"""weld: JSON Schema validation, repair of model answers, and structured
runs and batches against language models, on weld's C++ library.

    >>> import weld
    >>> v = weld.validator_for({"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> v.is_valid({"n": 1})
    True

The guide and the reference are docs/python.md in weld's repository.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, NamedTuple

from weld._errors import (
    AuthError,
    Cancelled,
    ConfigError,
    Error,
    LimitExceeded,
    MaxTurnsReached,
    RepairError,
    RetryLater,
    RunError,
    RunFailed,
    SchemaError,
    SchemaWarning,
    ValidationError,
)
from weld import _weld
from weld._weld import Validator, __version__, validator_for

__all__ = [
    "AuthError",
    "Cancelled",
    "ConfigError",
    "Error",
    "LimitExceeded",
    "MaxTurnsReached",
    "RepairError",
    "Repaired",
    "RetryLater",
    "RunError",
    "RunFailed",
    "SchemaError",
    "SchemaWarning",
    "ValidationError",
    "Validator",
    "__version__",
    "evaluate",
    "is_valid",
    "iter_errors",
    "repair",
    "validate",
    "validator_for",
]


def is_valid(schema: Any, instance: Any, **options: Any) -> bool:
    """Whether ``instance`` validates against ``schema`` (compiled for this
    call only: keep ``validator_for(schema)`` to check many instances).
    ``options`` are those of validator_for."""
    return validator_for(schema, **options).is_valid(instance)


def validate(schema: Any, instance: Any, **options: Any) -> None:
    """Raises weld.ValidationError for the first error of ``instance``
    against ``schema``; weld.SchemaError when the schema is not valid."""
    validator_for(schema, **options).validate(instance)


def iter_errors(schema: Any, instance: Any, **options: Any) -> Iterator[ValidationError]:
    """Every error of ``instance`` against ``schema``, as weld.ValidationError objects."""
    return validator_for(schema, **options).iter_errors(instance)


def evaluate(schema: Any, instance: Any, output: str = "list", **options: Any) -> Dict[str, Any]:
    """The JSON Schema output format ("flag" or "list") of ``instance`` against ``schema``."""
    return validator_for(schema, **options).evaluate(instance, output)


class Repaired(NamedTuple):
    """What weld.repair returns: the value (an instance of the pydantic model
    when the schema was one) and the repairs applied, each a dict
    {"kind", "path", "detail"} (empty when the answer was valid as it was)."""

    value: Any
    repairs: List[Dict[str, str]]


def repair(answer: Any, schema: Any, *, parse: bool = True, coerce: bool = True, clamp: bool = False) -> Repaired:
    return Repaired(*_weld.repair(answer, schema, parse=parse, coerce=coerce, clamp=clamp))


repair.__doc__ = _weld.repair.__doc__
