"""Loading tool schemas from files, before any log line is read.

A schemas file is checked whole: unreadable, not JSON, not shaped like tool
schemas, or holding a defective schema, it stops the run with one line that
names the file, the tool and the parameter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from toolaudit.errors import InputError, SchemaError
from toolaudit.validate import Validator, compile_schemas


@dataclass(frozen=True)
class SchemaSet:
    """Tool schemas as loaded (name -> schema in the seed's shape), compiled."""

    schemas: Mapping[str, Any]
    validator: Validator
    #: Identifies the schemas, so that summaries of other schemas are not merged.
    digest: str


def load_schemas(path: str) -> SchemaSet:
    """Read, check and compile a schemas file (a JSON object: tool name -> schema)."""
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError as error:
        raise InputError(f"schemas file {path}: cannot read: {error.strerror or error}") from error
    try:
        schemas = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        raise SchemaError(f"not valid JSON ({error})", source=f"schemas file {path}") from error
    if not isinstance(schemas, dict):
        raise SchemaError(
            "expected a JSON object mapping tool names to schemas", source=f"schemas file {path}"
        )
    return schema_set(schemas, source=f"schemas file {path}")


def schema_set(schemas: Mapping[str, Any], *, source: str | None = None) -> SchemaSet:
    """Compile a mapping of tool name -> schema; a defect names ``source`` too."""
    try:
        validator = compile_schemas(schemas)
    except SchemaError as error:
        raise (error.located(source) if source else error) from None
    return SchemaSet(schemas=schemas, validator=validator, digest=schemas_digest(schemas))


def schemas_digest(schemas: Mapping[str, Any]) -> str:
    canonical = orjson.dumps(schemas, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return "sha256:" + hashlib.sha256(canonical).hexdigest()[:16]
