"""The exceptions and warnings of the weld module (docs/python.md, "Errors").

Defined in Python so that they pickle, print and subclass like any other
exception; the extension module raises them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

__all__ = [
    "Error",
    "ValidationError",
    "RepairError",
    "SchemaError",
    "SchemaWarning",
    "RunError",
    "RunFailed",
    "AuthError",
    "ConfigError",
    "MaxTurnsReached",
    "LimitExceeded",
    "RetryLater",
    "Cancelled",
    "run_error_class",
]


class Error(Exception):
    """The base of every exception weld raises on purpose."""


def _pointer(tokens: List[Union[str, int]]) -> str:
    return "".join("/" + str(t).replace("~", "~0").replace("/", "~1") for t in tokens)


class ValidationError(Error, ValueError):
    """An instance that does not validate.

    Attributes:
        message: what is wrong, in Ajv's words ("must be integer").
        instance_path: where in the instance, as a list of keys and indices
            (``["items", 0, "price"]``; ``[]`` for the instance itself).
        schema_path: where in the schema the failing keyword is, as a list
            (``["properties", "price", "type"]``).
        keyword: the failing keyword (``"type"``, ``"required"``…).
        params: the keyword's parameters as Ajv gives them
            (``{"type": "integer"}``, ``{"missingProperty": "id"}``).
        instance: the failing part of the instance (the ``mask`` string when
            the validator was made with ``mask=``).
    """

    def __init__(
        self,
        message: str,
        instance_path: Optional[List[Union[str, int]]] = None,
        schema_path: Optional[List[Union[str, int]]] = None,
        keyword: str = "",
        params: Optional[Dict[str, Any]] = None,
        instance: Any = None,
    ) -> None:
        super().__init__(message, instance_path or [], schema_path or [], keyword, params or {}, instance)
        self.message = message
        self.instance_path: List[Union[str, int]] = list(instance_path or [])
        self.schema_path: List[Union[str, int]] = list(schema_path or [])
        self.keyword = keyword
        self.params: Dict[str, Any] = dict(params or {})
        self.instance = instance

    def __str__(self) -> str:
        return "instance" + _pointer(self.instance_path) + " " + self.message

    def __repr__(self) -> str:
        return "<%s: %r at %r (%s)>" % (type(self).__name__, self.message, _pointer(self.instance_path) or "/",
                                        self.keyword)


class RepairError(ValidationError):
    """An answer that no allowed repair makes valid (weld.repair). Its
    fields are those of the first remaining error, and:

    Attributes:
        errors: every remaining error, as ValidationError objects.
        parsed: whether the text was read as JSON (after the text repairs);
            when not, the one error has keyword "parse".
        value: what was read (None when not parsed).
    """

    def __init__(
        self,
        message: str,
        instance_path: Optional[List[Union[str, int]]] = None,
        schema_path: Optional[List[Union[str, int]]] = None,
        keyword: str = "",
        params: Optional[Dict[str, Any]] = None,
        instance: Any = None,
        errors: Optional[List[ValidationError]] = None,
        value: Any = None,
        parsed: bool = False,
    ) -> None:
        super().__init__(message, instance_path, schema_path, keyword, params, instance)
        self.errors: List[ValidationError] = list(errors or [])
        self.value = value
        self.parsed = parsed

    def __reduce__(self):
        return (type(self), (self.message, self.instance_path, self.schema_path, self.keyword, self.params,
                             self.instance, self.errors, self.value, self.parsed))


class SchemaError(Error, ValueError):
    """A schema that cannot be used: not JSON, not a valid JSON Schema, or a
    ``$ref`` that does not resolve.

    Attributes:
        message: the whole message, naming the keyword and its place.
        pointer: the JSON Pointer of the offending keyword in the schema
            (``""`` for the root, or when the schema is not JSON at all).
    """

    def __init__(self, message: str, pointer: str = "") -> None:
        super().__init__(message, pointer)
        self.message = message
        self.pointer = pointer

    def __str__(self) -> str:
        return self.message


class SchemaWarning(UserWarning):
    """A remark from compiling a schema (an unknown format, an array schema
    without bounds…); the schema is used all the same."""


class RunError(Error):
    """A run or batch row that did not end in a valid answer.

    Attributes:
        exit_code: the exit code ``weld`` would have ended with.
        message: what happened (the ``error.message`` of the envelope).
        result: the result envelope (a dict, the fields of ``weld -o
            result``): usage, attempts, the session id…
    """

    exit_code = 1

    def __init__(self, message: str, result: Optional[Dict[str, Any]] = None, exit_code: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        self.result: Dict[str, Any] = result or {}
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # pickles with its fields (across processes, e.g. a ProcessPoolExecutor)
        return (type(self), (self.message, self.result, self.exit_code))


class RunFailed(RunError):
    """Exit 1: the model answered in plain text, the structured retries ran
    out, or the provider refused the request (a 4xx that is not temporary)."""

    exit_code = 1


class AuthError(RunError):
    """Exit 41: the provider refused the credentials (401/403)."""

    exit_code = 41


class ConfigError(RunError):
    """Exit 52: a schema or configuration error; nothing was sent to a model
    (no provider configured, an unknown provider, a bad setting)."""

    exit_code = 52


class MaxTurnsReached(RunError):
    """Exit 53: ``max_session_turns`` was reached."""

    exit_code = 53


class LimitExceeded(RunError):
    """Exit 55: ``max_tool_calls`` or ``max_wall_time`` was exceeded."""

    exit_code = 55


class RetryLater(RunError):
    """Exit 75: a temporary failure (the server unreachable, 408/429/5xx or a
    broken stream after weld's own retries). Retrying later may succeed."""

    exit_code = 75


class Cancelled(RunError):
    """Exit 130: the run was cancelled. (Ctrl-C in the calling thread raises
    KeyboardInterrupt instead, as Python code expects.)"""

    exit_code = 130


# Shown and pickled as weld.X (weld/__init__.py exports every one).
for _class in (Error, ValidationError, RepairError, SchemaError, SchemaWarning, RunError, RunFailed, AuthError, ConfigError,
               MaxTurnsReached, LimitExceeded, RetryLater, Cancelled):
    _class.__module__ = "weld"

_BY_CODE = {cls.exit_code: cls for cls in (RunFailed, AuthError, ConfigError, MaxTurnsReached, LimitExceeded, RetryLater, Cancelled)}


def run_error_class(exit_code: int) -> type:
    """The RunError subclass of an exit code (RunError itself for an unknown one)."""
    return _BY_CODE.get(exit_code, RunError)
