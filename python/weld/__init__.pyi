from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Literal, NamedTuple, Optional, Tuple, Union

__version__: str

JSON = Union[Dict[str, Any], List[Any], str, int, float, bool, None]
# A schema: a dict or bool, JSON text (str or bytes; "@path" reads a file),
# a path, or a pydantic model class / TypeAdapter.
SchemaLike = Union[Dict[str, Any], bool, str, bytes, os.PathLike, type, Any]
JsonText = Union[str, bytes, bytearray, memoryview]
Dialect = Literal["draft4", "draft6", "draft7", "2019-09", "2020-12", "v1"]
Retriever = Callable[[str], Union[Dict[str, Any], bool, str, bytes, None]]

class Error(Exception): ...

class ValidationError(Error, ValueError):
    message: str
    instance_path: List[Union[str, int]]
    schema_path: List[Union[str, int]]
    keyword: str
    params: Dict[str, Any]
    instance: Any
    def __init__(
        self,
        message: str,
        instance_path: Optional[List[Union[str, int]]] = ...,
        schema_path: Optional[List[Union[str, int]]] = ...,
        keyword: str = ...,
        params: Optional[Dict[str, Any]] = ...,
        instance: Any = ...,
    ) -> None: ...

class RepairError(ValidationError):
    errors: List[ValidationError]
    value: Any
    parsed: bool

class SchemaError(Error, ValueError):
    message: str
    pointer: str
    def __init__(self, message: str, pointer: str = ...) -> None: ...

class SchemaWarning(UserWarning): ...

class RunError(Error):
    exit_code: int
    message: str
    result: Dict[str, Any]
    def __init__(self, message: str, result: Optional[Dict[str, Any]] = ..., exit_code: Optional[int] = ...) -> None: ...

class RunFailed(RunError): ...
class AuthError(RunError): ...
class ConfigError(RunError): ...
class MaxTurnsReached(RunError): ...
class LimitExceeded(RunError): ...
class RetryLater(RunError): ...
class Cancelled(RunError): ...

class Validator:
    def __init__(
        self,
        schema: SchemaLike,
        *,
        dialect: Optional[Dialect] = ...,
        validate_formats: Optional[bool] = ...,
        strict: bool = ...,
        retriever: Optional[Retriever] = ...,
        mask: Optional[str] = ...,
    ) -> None: ...
    def is_valid(self, instance: Any) -> bool: ...
    def validate(self, instance: Any) -> None: ...
    def iter_errors(self, instance: Any) -> Iterator[ValidationError]: ...
    def evaluate(self, instance: Any, output: Literal["flag", "list"] = ...) -> Dict[str, Any]: ...
    def is_valid_json(self, text: JsonText) -> bool: ...
    def validate_json(self, text: JsonText) -> None: ...
    def iter_errors_json(self, text: JsonText) -> Iterator[ValidationError]: ...
    def evaluate_json(self, text: JsonText, output: Literal["flag", "list"] = ...) -> Dict[str, Any]: ...
    @property
    def dialect(self) -> str: ...
    @property
    def schema(self) -> Any: ...
    @property
    def model(self) -> Any: ...

def validator_for(
    schema: SchemaLike,
    *,
    dialect: Optional[Dialect] = ...,
    validate_formats: Optional[bool] = ...,
    strict: bool = ...,
    retriever: Optional[Retriever] = ...,
    mask: Optional[str] = ...,
) -> Validator: ...
def is_valid(schema: SchemaLike, instance: Any, **options: Any) -> bool: ...
def validate(schema: SchemaLike, instance: Any, **options: Any) -> None: ...
def iter_errors(schema: SchemaLike, instance: Any, **options: Any) -> Iterator[ValidationError]: ...
def evaluate(schema: SchemaLike, instance: Any, output: Literal["flag", "list"] = ..., **options: Any) -> Dict[str, Any]: ...

class Repaired(NamedTuple):
    value: Any
    repairs: List[Dict[str, str]]

def repair(
    answer: Union[str, bytes, bytearray, memoryview, Any],
    schema: Union[SchemaLike, Validator],
    *,
    parse: bool = ...,
    coerce: bool = ...,
    clamp: bool = ...,
) -> Repaired: ...

Target = Literal["openai-strict", "anthropic", "gemini", "vllm", "tool"]

class Lowering:
    @property
    def schema(self) -> Dict[str, Any]: ...
    @property
    def changes(self) -> List[Dict[str, str]]: ...
    @property
    def target(self) -> Target: ...
    @property
    def maps(self) -> bool: ...
    @property
    def model(self) -> Any: ...
    def map_back(self, answer: Union[JsonText, Any], *, validate: bool = ...) -> Tuple[Any, List[Dict[str, str]]]: ...
    def map_forward(self, instance: Any) -> Any: ...

def lower(schema: SchemaLike, target: Target, *, keep_open: bool = ...) -> Lowering: ...

Provider = Literal["openai", "openai-responses", "anthropic", "offline"]
Mechanism = Literal["tool", "native", "auto"]

def run(
    prompt: str,
    schema: Union[SchemaLike, Validator, None] = ...,
    *,
    provider: Optional[Provider] = ...,
    model: Optional[str] = ...,
    base_url: Optional[str] = ...,
    api_key: Optional[str] = ...,
    system_prompt: Optional[str] = ...,
    mechanism: Optional[Mechanism] = ...,
    max_session_turns: Optional[int] = ...,
    max_structured_retries: int = ...,
    max_wall_time: Optional[float] = ...,
    max_tokens: Optional[int] = ...,
    temperature: Optional[float] = ...,
    repair: bool = ...,
    clamp: bool = ...,
    strict: bool = ...,
    connect_timeout: Optional[float] = ...,
    idle_timeout: Optional[float] = ...,
    max_retries: Optional[int] = ...,
    max_response_bytes: Union[int, str, None] = ...,
    seed: int = ...,
) -> Dict[str, Any]: ...
def batch(
    rows: Union[Iterable[Any], str, os.PathLike],
    schema: Union[SchemaLike, Validator],
    *,
    prompt: Optional[str] = ...,
    output: Union[str, os.PathLike, None] = ...,
    concurrency: int = ...,
    threads: Optional[int] = ...,
    max_rps: Optional[float] = ...,
    id_field: Optional[str] = ...,
    output_format: Literal["weld", "openai"] = ...,
    retry_errored: bool = ...,
    provider: Optional[Provider] = ...,
    model: Optional[str] = ...,
    base_url: Optional[str] = ...,
    api_key: Optional[str] = ...,
    system_prompt: Optional[str] = ...,
    mechanism: Optional[Mechanism] = ...,
    max_session_turns: Optional[int] = ...,
    max_structured_retries: int = ...,
    max_wall_time: Optional[float] = ...,
    max_tokens: Optional[int] = ...,
    temperature: Optional[float] = ...,
    repair: bool = ...,
    clamp: bool = ...,
    strict: bool = ...,
    connect_timeout: Optional[float] = ...,
    idle_timeout: Optional[float] = ...,
    max_retries: Optional[int] = ...,
    max_response_bytes: Union[int, str, None] = ...,
    seed: int = ...,
) -> Iterator[Dict[str, Any]]: ...
