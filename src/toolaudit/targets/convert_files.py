"""``toolaudit schemas --target T --convert DIR``: each schemas file written again into
DIR, in its own shape, with each tool's parameters schema converted for T
(:mod:`.convert`).

The file is read as loading reads it (a list or lines of definitions in any provider's
shape, a request holding them, an MCP result, BFCL questions, the contract's mapping),
and only the parameters schemas change: each is replaced where the definition keeps it
(``function.parameters``, ``input_schema``, ``toolSpec.inputSchema.json``...). A tool
the conversion leaves unchanged keeps its schema as it was written (a dialect too: BFCL's
``dict``, Gemini's ``STRING``); a converted one is written in JSON Schema.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from toolaudit.errors import OptionError, SchemaError
from toolaudit.jsonutil import dumps_any
from toolaudit.schemas.files import loads_json, read_document, read_whole
from toolaudit.schemas.tooldefs import tool_definitions
from toolaudit.targets.check import Finding, request_findings
from toolaudit.targets.convert import Change, convert_parameters
from toolaudit.targets.registry import TARGETS


@dataclass(frozen=True)
class ToolConversion:
    """What converting one tool changed, and what the target still rejects in it."""

    tool: str
    changes: tuple[Change, ...]
    left: tuple[Finding, ...]
    #: The BFCL question the tool belongs to; None for a tool that judges any call.
    question: str | None = None


@dataclass(frozen=True)
class FileConversion:
    """One schemas file converted: where it was written, and each of its tools."""

    file: str
    written: str
    tools: tuple[ToolConversion, ...]


#: Where a definition keeps its parameters schema: (the object holding it, its key).
_Slot = tuple[dict[str, Any], str]


def convert_schema_files(
    paths: str | Iterable[str],
    target_name: str,
    directory: str,
    *,
    storage_options: Mapping[str, Any] | None = None,
) -> list[FileConversion]:
    """Write each schemas file into ``directory`` (made if missing), under its own name,
    its tools' parameters converted for the target ``target_name``.

    Raises :class:`OptionError` for an unknown target, two files of one name, or a file
    that would be written over itself; :class:`InputError` or :class:`SchemaError` for a
    file that cannot be read or is of no known shape (``toolaudit schemas`` without
    --convert lists every defect). A definition of no known shape is written unchanged."""
    target = TARGETS.get(target_name)
    if target is None:
        raise OptionError(f"unknown target {target_name!r}: one of {', '.join(TARGETS)}")
    listed = [paths] if isinstance(paths, str) else list(paths)
    outputs = _outputs(listed, directory)
    Path(directory).mkdir(parents=True, exist_ok=True)
    done = []
    for path, written in zip(listed, outputs, strict=True):
        data = read_whole(path, storage_options, f"schemas file {path}")
        values, as_lines = _parsed(data, path)
        tools: list[ToolConversion] = []
        for definition, question in _definitions(values, path, as_lines):
            tools.extend(_converted(definition, question, target_name, path))
        tools = _with_request_findings(tools, target_name)
        Path(written).write_bytes(_written(values, as_lines))
        done.append(FileConversion(path, written, tuple(tools)))
    return done


def _outputs(paths: list[str], directory: str) -> list[str]:
    outputs = [os.path.join(directory, os.path.basename(path.rstrip("/"))) for path in paths]
    seen: dict[str, str] = {}
    for path, output in zip(paths, outputs, strict=True):
        if output in seen:
            raise OptionError(
                f"--convert: {seen[output]} and {path} would both be written to {output}"
            )
        if os.path.exists(path) and os.path.exists(output) and os.path.samefile(path, output):
            raise OptionError(f"--convert: {path} would be written over itself")
        seen[output] = path
    return outputs


def _parsed(data: bytes, path: str) -> tuple[list[Any], bool]:
    """The file's JSON value, or its lines' values (and whether it is lines)."""
    try:
        return [loads_json(data)], False
    except orjson.JSONDecodeError:
        pass
    values = []
    for number, line in enumerate(data.splitlines(), start=1):
        if line.strip():
            try:
                values.append(loads_json(line))
            except orjson.JSONDecodeError as error:
                reason = f"line {number}: not valid JSON ({error})"
                raise SchemaError(reason, source=f"schemas file {path}") from error
    return values, True


def _definitions(
    values: list[Any], path: str, as_lines: bool
) -> Iterator[tuple[tuple[str, dict[str, Any]] | object, str | None]]:
    """Each definition in the parsed file, as the parsed value itself (changed in place,
    it is written back), with its BFCL question; the contract's mapping's entries as
    (name, schema)."""
    if all(_is_question(value) for value in values):
        for question in values:
            for definition in question.get("function") or ():
                yield definition, str(question["id"])
        return
    if as_lines:
        yield from ((value, None) for value in values)
        return
    listed = read_document(path, values[0], f"schemas file {path}")
    for name, schema in listed.mapping.items():
        yield (name, schema), None
    for definitions in listed.lists:
        yield from ((definition, None) for definition in definitions.definitions)


def _is_question(value: object) -> bool:
    return (
        isinstance(value, dict)
        and "id" in value
        and not isinstance(value["id"], Mapping)
        and isinstance(value.get("function"), list)
    )


def _converted(
    definition: object, question: str | None, target_name: str, path: str
) -> Iterator[ToolConversion]:
    target = TARGETS[target_name]
    if isinstance(definition, tuple):  # the contract's mapping: name -> {"parameters": ...}
        name, schema = definition
        pairs = [(name, schema.get("parameters", {}), (schema, "parameters"))]
    else:
        try:
            tools = tool_definitions(definition, source=f"schemas file {path}")
        except SchemaError:
            return  # left as it is; the report of the file names the defect
        slots = list(_slots(definition))
        if len(slots) != len(tools):
            return
        pairs = [
            (tool.name, tool.schema["parameters"], slot)
            for tool, slot in zip(tools, slots, strict=True)
        ]
    for name, parameters, (holder, key) in pairs:
        if not isinstance(parameters, Mapping) or not isinstance(holder, dict):
            continue
        conversion = convert_parameters(target, parameters, name=name)
        if conversion.changes:
            holder[key] = conversion.parameters
        yield ToolConversion(name, conversion.changes, conversion.left, question)


def _with_request_findings(tools: list[ToolConversion], target_name: str) -> list[ToolConversion]:
    """Each tool with, in what is left, what the target rejects in the request it stands
    in (a file's tools, a BFCL question's): too many tools, on the first tool past it."""
    counted: dict[str | None, int] = {}
    judged = []
    for tool in tools:
        counted[tool.question] = counted.get(tool.question, 0) + 1
        found = request_findings(TARGETS[target_name], counted[tool.question])
        judged.append(replace(tool, left=(*tool.left, *found)) if found else tool)
    return judged


def _slots(definition: object) -> Iterator[_Slot]:
    """Where each tool of a definition keeps its parameters, in the order
    :func:`~toolaudit.schemas.tooldefs.tool_definitions` yields the tools."""
    if not isinstance(definition, dict):
        return
    declarations = definition.get("functionDeclarations", definition.get("function_declarations"))
    if isinstance(declarations, list):
        yield from (_declaration_slot(each) for each in declarations if isinstance(each, dict))
        return
    function = definition.get("function")
    if definition.get("type") == "function" and isinstance(function, dict):
        yield _declaration_slot(function)
        return
    spec = definition.get("toolSpec")
    if isinstance(spec, dict):
        schema = spec.setdefault("inputSchema", {})
        if isinstance(schema, dict):
            yield schema, "json"
        return
    for key in ("input_schema", "inputSchema"):
        if key in definition:
            yield definition, key
            return
    yield _declaration_slot(definition)


def _declaration_slot(declaration: dict[str, Any]) -> _Slot:
    for key in ("parametersJsonSchema", "parameters_json_schema"):
        if declaration.get(key) is not None:
            return declaration, key
    return declaration, "parameters"


def _written(values: list[Any], as_lines: bool) -> bytes:
    if as_lines:
        return b"".join(dumps_any(value) + b"\n" for value in values)
    return dumps_any(values[0], option=orjson.OPT_INDENT_2) + b"\n"
