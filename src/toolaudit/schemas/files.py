"""Reading one schemas file: which shape it is in, and where its tool definitions are.

A schemas file may be the contract's mapping (tool name -> schema), a JSON list
or a JSON-lines file of tool definitions in any provider's shape (see
:mod:`toolaudit.schemas.tooldefs`), a request holding them, an MCP ``tools/list``
result, or a BFCL question file (one question per line, each with its own
functions). The definitions themselves are checked, one at a time, by
:mod:`toolaudit.schemas.loading`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import orjson

from toolaudit.errors import InputError, SchemaError
from toolaudit.jsonutil import loads_exact, may_hold_long_integers
from toolaudit.schemas.tooldefs import Schemas
from toolaudit.storage.filesystems import is_url
from toolaudit.storage.reading import read_bytes


@dataclass(frozen=True)
class DefinitionList:
    """A list of provider tool definitions as a schemas file holds it, not yet normalised."""

    #: Where the list stands, as messages name it: "schemas file tools.jsonl, line 3".
    where: str
    definitions: list[object]
    #: The BFCL question whose tools these are; None for tools that judge any call.
    question: str | None = None


@dataclass(frozen=True)
class SchemasFile:
    """A schemas file as read: lists of tool definitions, or the contract's own mapping."""

    path: str
    lists: list[DefinitionList]
    #: Tool name -> schema, when the file is in the contract's shape (then ``lists`` is empty).
    mapping: Schemas


def read_schemas_file(
    path: str, *, storage_options: Mapping[str, Any] | None = None
) -> SchemasFile:
    """Read a schemas file (a path, or a URL read with ``storage_options``) and find its
    tool definitions, in whatever shape it holds them.

    Raises :class:`InputError` for a file that cannot be read, and
    :class:`SchemaError` naming the file for one that is not JSON (or lines of it)
    or of no known shape. The definitions themselves are not checked here: see
    :class:`~toolaudit.schemas.loading.ToolMerge`.
    """
    where = f"schemas file {path}"
    data = read_whole(path, storage_options, where)
    try:
        document = loads_json(data)
    except orjson.JSONDecodeError as whole_error:
        lines = _json_lines(data, where)
        if lines is None:
            raise SchemaError(f"not valid JSON ({whole_error})", source=where) from whole_error
        return SchemasFile(path, _lists_in_lines(lines, where), {})
    if is_bfcl_question(document):  # a question file of one question: its one line
        return SchemasFile(path, _lists_in_lines([(_first_line(data), document)], where), {})
    return read_document(path, document, where)


def read_whole(path: str, storage_options: Mapping[str, Any] | None, where: str) -> bytes:
    """A whole file's bytes (a path, or a URL read with ``storage_options``); raises
    :class:`InputError` naming it as ``where`` when it cannot be read."""
    try:
        if is_url(path):
            return read_bytes(path, storage_options, what=where)
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise InputError(f"{where}: cannot read: {error.strerror or error}") from error


def loads_json(data: bytes) -> Any:
    """JSON text -> its value, as the audit reads a log line: with orjson, and what orjson
    refuses (a byte order mark, ``1e400``, an integer of 400 digits, a lone surrogate)
    or may read otherwise (an integer past 64 bits, which it turns into a float) with the
    standard library, exactly. Raises orjson's error when neither can."""
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as error:
        try:
            return loads_exact(data)
        except (ValueError, RecursionError):
            raise error from None
    if may_hold_long_integers(data):
        try:
            return loads_exact(data)
        except (ValueError, RecursionError):
            pass  # (a number beyond the exact reading: orjson's value stands)
    return value


def _first_line(data: bytes) -> int:
    """The number of the line a JSON text's value starts on."""
    return data[: len(data) - len(data.lstrip())].count(b"\n") + 1


def no_tools_error(path: str) -> SchemaError:
    """What a schemas file that defines no tools is told."""
    return SchemaError(
        "defines no tools (a BFCL multi-turn question file lists its functions in "
        "multi_turn_func_doc/ instead)"
        if path.endswith(".json") and "multi_turn" in path
        else "defines no tools",
        source=f"schemas file {path}",
    )


def _json_lines(data: bytes, where: str) -> list[tuple[int, Any]] | None:
    """A JSON-lines file's values with their line numbers; None if the first line is not JSON."""
    values = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append((number, loads_json(line)))
        except orjson.JSONDecodeError as error:
            if not values:
                return None
            raise SchemaError(f"line {number}: not valid JSON ({error})", source=where) from error
    return values


def _lists_in_lines(lines: list[tuple[int, Any]], where: str) -> list[DefinitionList]:
    """Lines of tool definitions, or of BFCL questions (``{"id", "function": [...]}``)."""
    if lines and all(is_bfcl_question(value) for _, value in lines):
        return [
            DefinitionList(f"{where}, line {number}", question["function"], str(question["id"]))
            for number, question in lines
            if isinstance(question.get("function"), list) and question["function"]
        ]
    return [DefinitionList(f"{where}, line {number}", [definition]) for number, definition in lines]


def is_bfcl_question(value: object) -> bool:
    """Whether a value is a BFCL question: ``{"id", "question", "function": [...]}``."""
    return (
        isinstance(value, Mapping)
        and "id" in value
        and not isinstance(value["id"], Mapping)  # then a tool named "id", not a question's
        and ("function" in value or "question" in value)
    )


def read_document(path: str, document: object, where: str) -> SchemasFile:
    """A schemas file's parsed content -> its definitions (``where`` names it in messages)."""
    if isinstance(document, list):
        return SchemasFile(path, [DefinitionList(where, document)], {})
    if not isinstance(document, Mapping):
        raise SchemaError(_EXPECTED, source=where)
    if document.get("jsonrpc") == "2.0":  # an MCP tools/list response
        document = document.get("result")
        if not isinstance(document, Mapping):
            raise SchemaError("an MCP message without a result holds no tools", source=where)
    for key in ("tools", "functions"):
        if isinstance(document.get(key), list):
            return SchemasFile(path, [DefinitionList(where, document[key])], {})
    config = document.get("toolConfig")  # a Bedrock Converse request keeps its tools here
    if isinstance(config, Mapping) and isinstance(config.get("tools"), list):
        return SchemasFile(path, [DefinitionList(where, config["tools"])], {})
    if _is_one_tool(document):
        return SchemasFile(path, [DefinitionList(where, [document])], {})
    if all(isinstance(schema, Mapping) for schema in document.values()):
        # The contract's own shape: name -> {"parameters": ...}
        return SchemasFile(path, [], dict(document))
    raise SchemaError(_EXPECTED, source=where)


_EXPECTED = (
    "expected a JSON object mapping tool names to schemas, a list (or lines) of tool "
    "definitions, a request holding them, an MCP tools/list result, or a BFCL question file"
)
#: Keys of a lone tool definition that has no top-level name (a Gemini tool
#: holding its declarations, a Bedrock tool holding its toolSpec).
_NAMELESS_TOOL_KEYS = ("functionDeclarations", "function_declarations", "toolSpec")


def _is_one_tool(document: Mapping[str, Any]) -> bool:
    if document.get("type") == "function" and isinstance(document.get("function"), Mapping):
        return True
    return isinstance(document.get("name"), str) or any(
        key in document for key in _NAMELESS_TOOL_KEYS
    )
