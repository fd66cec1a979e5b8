"""weld: JSON Schema validation, repair of model answers, schemas lowered
for providers, and structured runs and batches against language models, on
weld's C++ library.

    >>> import weld
    >>> v = weld.validator_for({"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> v.is_valid({"n": 1})
    True

The guide and the reference are docs/python.md: in weld's repository, and
installed with the wheel as share/doc/weld/docs/python.md under sys.prefix.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Union

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
    run_error_class,
)
from weld import _weld
from weld._weld import Lowering, Validator, __version__, lower, validator_for

__all__ = [
    "AuthError",
    "Cancelled",
    "ConfigError",
    "Error",
    "LimitExceeded",
    "Lowering",
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
    "lower",
    "batch",
    "repair",
    "run",
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


_log = logging.getLogger("weld")


def run(
    prompt: str,
    schema: Any = None,
    *,
    provider: Optional[str] = None,
    model: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    system_prompt: Optional[str] = None,
    mechanism: Optional[str] = None,
    max_session_turns: Optional[int] = None,
    max_structured_retries: int = 5,
    max_wall_time: Optional[float] = None,
    max_tokens: Optional[int] = None,
    temperature: Optional[float] = None,
    repair: bool = True,
    clamp: bool = False,
    strict: bool = True,
    connect_timeout: Optional[float] = None,
    idle_timeout: Optional[float] = None,
    max_retries: Optional[int] = None,
    max_response_bytes: Union[int, str, None] = None,
    seed: int = 0,
) -> Dict[str, Any]:
    """Runs weld once: the model is asked ``prompt`` until it answers with
    JSON that validates against ``schema`` (retrying with the errors,
    repairing near misses), as ``weld -p PROMPT --json-schema SCHEMA`` does.

    Returns the result envelope, the fields ``weld -o result`` prints:
    ``structured_output`` (an instance of the pydantic model when the schema
    is one), ``usage``, ``num_turns``, ``attempts``, ``repairs``,
    ``session_id``, ``duration_ms``... Without a schema, ``result`` holds the
    model's text.

    schema: anything validator_for takes, or a Validator. Loaded with the
        run's rules: the root must accept an object, and (``strict``) unknown
        keywords are refused.
    provider, model, base_url, api_key: the model server. Each is taken from
        the first place that has it: these keywords, then WELD_PROVIDER,
        WELD_MODEL, WELD_BASE_URL, WELD_API_KEY, then OPENAI_API_KEY,
        OPENAI_BASE_URL, OPENAI_MODEL / ANTHROPIC_*. provider is "openai",
        "openai-responses", "anthropic" or "offline" (the built-in offline
        model, which samples a schema-valid instance; ``seed`` is its seed).
        Without a model, a self-hosted server's only model is used. With
        no provider, key or base URL anywhere, ConfigError: nothing is sent.
    mechanism: "tool" (default), "native" or "auto" (WELD_MECHANISM).
    max_session_turns, max_structured_retries, max_wall_time (seconds),
    max_tokens, temperature, repair, clamp: as weld's flags of those names.
    connect_timeout, idle_timeout (seconds), max_retries: the requests'.
    max_response_bytes: the most bytes one answer may have (an int, or a str
        such as "64M"; default 64 MiB, or WELD_MAX_RESPONSE_BYTES).

    Raises the weld.RunError subclass of weld's exit code when the run ends
    without a valid answer, the envelope in ``.result``: RunFailed (1),
    AuthError (41), ConfigError (52, nothing sent), MaxTurnsReached (53),
    LimitExceeded (55), RetryLater (75). weld.SchemaError for a schema that
    is not valid. What weld chose for you (a default model) is logged on the
    "weld" logger.

    The GIL is released while the model answers, so runs in a thread pool go
    on at once; Ctrl-C cancels the run and raises KeyboardInterrupt.
    """
    keywords = dict(provider=provider, model=model, base_url=base_url, api_key=api_key, system_prompt=system_prompt,
                    mechanism=mechanism, max_session_turns=max_session_turns,
                    max_structured_retries=max_structured_retries, max_wall_time=max_wall_time,
                    max_tokens=max_tokens, temperature=temperature, repair=repair, clamp=clamp, strict=strict,
                    connect_timeout=connect_timeout, idle_timeout=idle_timeout, max_retries=max_retries,
                    max_response_bytes=max_response_bytes, seed=seed)
    exit_code, envelope, notes = _weld.run(prompt, schema, keywords)
    _log_notes(notes)
    if exit_code != 0:
        error = envelope.get("error") or {}
        raise run_error_class(exit_code)(error.get("message") or envelope.get("result") or "", envelope, exit_code)
    return envelope


def _log_notes(notes: List[str]) -> None:
    # What weld chose for the caller (a default model, the offline model),
    # said as `weld` says it on stderr; logging.getLogger("weld") silences it.
    for note in notes:
        _log.warning("%s", note.rstrip("\n"))


def batch(
    rows: Any,
    schema: Any,
    *,
    prompt: Optional[str] = None,
    output: Any = None,
    concurrency: int = 16,
    threads: Optional[int] = None,
    max_rps: Optional[float] = None,
    id_field: Optional[str] = None,
    output_format: str = "weld",
    retry_errored: bool = False,
    **run_options: Any,
) -> Iterator[Dict[str, Any]]:
    """``weld batch`` from Python: the run of weld.run for every row, yielding
    each row's result line (a dict) as the row ends — in the order rows end,
    not the input's.

    rows: an iterable of rows (dicts: each is sent as its JSON, a blank line,
        then ``prompt``; or OpenAI / Anthropic batch request lines; or JSON
        text), e.g. a generator; a pandas DataFrame (its rows, missing values
        as null); or the path of a JSON Lines file. Read as the batch goes,
        never all at once.
    schema: as for weld.run. Each result's ``structured_result`` is an
        instance of the pydantic model when the schema is one.
    output: a file for the result lines, as ``weld batch -o``: when it
        already has lines (an earlier run killed or stopped), their rows are
        skipped and only the rest run — rerun the same call to resume. Rows
        already in the file are not yielded again. Without it, results are
        only yielded.
    concurrency, threads, max_rps, id_field, output_format ("weld" or
    "openai"), retry_errored: as ``weld batch``'s flags of those names.
    run_options: weld.run's keywords (provider, model, base_url, api_key,
        system_prompt, max_structured_retries, ...).

    A row that ends without a valid answer yields an "errored" line (its
    ``error.type`` and ``error.message``). A temporary failure (75) or
    refused credentials (41) stop the batch, as they would stop every row:
    the iterator raises RetryLater or AuthError after the rows that ended;
    the rows in flight get no line, so rerunning with the same ``output``
    does them. Ctrl-C (or closing the iterator) cancels the batch the same
    way.
    """
    for name, value in (("concurrency", concurrency), ("threads", threads)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 1024):
            raise ValueError(f"{name} must be a whole number from 1 to 1024 (got {value!r})")
    if max_rps is not None and (isinstance(max_rps, bool) or not isinstance(max_rps, (int, float)) or max_rps < 0):
        raise ValueError(f"max_rps must be a number of at least 0 (got {max_rps!r})")
    keywords = dict(run_options, prompt=prompt, output=output, concurrency=concurrency, threads=threads, max_rps=max_rps,
                    id_field=id_field, output_format=output_format, retry_errored=bool(retry_errored))
    handle = _weld.BatchRun(_rows_of(rows), schema, keywords)
    _log_notes(handle.notes)
    return _batch_rows(handle)


def _rows_of(rows: Any) -> Any:
    """A pandas DataFrame's rows as dicts, read lazily, its missing values
    (NaN, None, NaT, NA) as None: pandas' missing value is JSON's null."""
    if not (hasattr(rows, "itertuples") and hasattr(rows, "columns") and hasattr(rows, "dtypes")):
        return rows
    import pandas

    columns = [str(column) for column in rows.columns]

    def missing(value: Any) -> bool:
        return value is None or (not isinstance(value, (list, tuple, dict)) and bool(pandas.isna(value)))

    def records() -> Iterator[Dict[str, Any]]:
        for values in rows.itertuples(index=False, name=None):
            yield {column: (None if missing(value) else value) for column, value in zip(columns, values)}

    return records()


def _batch_rows(handle: Any) -> Iterator[Dict[str, Any]]:
    try:
        while True:
            row = handle.next()
            _log_notes(handle.take_warnings())
            if row is None:
                return
            yield row
    finally:
        handle.close()
