"""The in-process readers of the log: the floor (orjson alone) and the peer validators.

Each reader has its own read-and-parse loop on purpose: a shared generator would
add its own cost to every line and blur the very ratios being measured.

Each returns the counts it found, for the checks against the generator. The peers'
schemas say what toolaudit's contract says (``additionalProperties: false``,
``required``, ``type``, ``enum``); an unknown tool is an error without validation.
A peer that is not installed gives None, and its row says how to install it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from common import READ_BUFFER


@dataclass
class Counts:
    """What an in-process reader found, to check it against the generator."""

    lines: int = 0
    malformed: int = 0
    invalid: int = 0


def floor_pass(path: Path) -> Counts:
    """The floor: read the lines and parse each with orjson, nothing else."""
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                loads(line)
            except decode_error:
                counts.malformed += 1
    return counts


def type_test_pass(path: Path, schemas: dict[str, Any]) -> Counts:
    """A lower bound, not a validator: the floor plus one identity test of each
    argument's type, with no enum, no required parameters, no error list and no
    counting. Whatever validates every argument in Python costs at least this."""
    usual = {
        name: {
            param: _python_type(spec.get("type"))
            for param, spec in schema["parameters"]["properties"].items()
        }
        for name, schema in schemas.items()
    }
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                record = loads(line)
            except decode_error:
                counts.malformed += 1
                continue
            types = usual.get(record.get("name"))
            arguments = record.get("arguments")
            if types is not None and type(arguments) is dict:
                for key, value in arguments.items():
                    if types.get(key) is not type(value):
                        break
    return counts


_PYTHON_TYPES = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}


def _python_type(declared: object) -> type | None:
    """The one Python type a declared JSON type usually arrives as (the first of a list)."""
    if isinstance(declared, list):
        declared = declared[0] if declared else None
    return _PYTHON_TYPES.get(declared) if isinstance(declared, str) else None


def peer_pass(path: Path, validate: dict[str, Callable[[object], bool]]) -> Counts:
    """Parse with orjson, validate the arguments with a peer; unknown tools are errors."""
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    get = validate.get
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                record = loads(line)
            except decode_error:
                counts.malformed += 1
                continue
            if type(record) is not dict:
                counts.malformed += 1
                continue
            is_valid = get(record.get("name"))
            if is_valid is None or not is_valid(record.get("arguments", {})):
                counts.invalid += 1
    return counts


def provider_peer_pass(
    path: Path,
    validate: dict[str, Callable[[object], bool]],
    calls_of: Callable[[Any], Iterator[tuple[object, object]]],
) -> Counts:
    """:func:`peer_pass` on a provider's log: each line's calls read by ``calls_of``
    (see providers.PEER_CALLS); a call of an unknown tool, or whose arguments are not
    an object, is invalid."""
    counts = Counts()
    loads = orjson.loads
    decode_error = orjson.JSONDecodeError
    get = validate.get
    with open(path, "rb", buffering=READ_BUFFER) as f:
        for line in f:
            counts.lines += 1
            try:
                record = loads(line)
            except decode_error:
                counts.malformed += 1
                continue
            if type(record) is not dict:
                counts.malformed += 1
                continue
            for name, arguments in calls_of(record):
                is_valid = get(name) if type(name) is str else None
                if is_valid is None or type(arguments) is not dict or not is_valid(arguments):
                    counts.invalid += 1
    return counts


def peer_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """toolaudit's contract in JSON Schema: no undeclared argument."""
    return {**schema["parameters"], "additionalProperties": False}


def jsonschema_validators(schemas: dict[str, Any]) -> dict[str, Callable[[object], bool]] | None:
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        return None
    validators = {
        name: Draft202012Validator(peer_schema(schema)) for name, schema in schemas.items()
    }

    def all_errors(validator: Any) -> Callable[[object], bool]:
        iter_errors = validator.iter_errors
        # Collect every error, as toolaudit reports every error of a call.
        return lambda arguments: not list(iter_errors(arguments))

    return {name: all_errors(v) for name, v in validators.items()}


def fastjsonschema_validators(
    schemas: dict[str, Any],
) -> dict[str, Callable[[object], bool]] | None:
    try:
        import fastjsonschema
    except ImportError:
        return None
    compiled = {
        name: fastjsonschema.compile(peer_schema(schema)) for name, schema in schemas.items()
    }
    failure = fastjsonschema.JsonSchemaValueException

    def first_error(validate: Callable[[object], object]) -> Callable[[object], bool]:
        def is_valid(arguments: object) -> bool:
            try:
                validate(arguments)
            except failure:
                return False
            return True

        return is_valid

    return {name: first_error(v) for name, v in compiled.items()}


def jsonschema_rs_validators(
    schemas: dict[str, Any],
) -> dict[str, Callable[[object], bool]] | None:
    """jsonschema-rs (Rust, built once per tool): a verdict only (``is_valid`` stops at the
    first error and words none), the fastest way it has to say whether a call passes."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    return {
        name: jsonschema_rs.validator_for(peer_schema(schema)).is_valid
        for name, schema in schemas.items()
    }
