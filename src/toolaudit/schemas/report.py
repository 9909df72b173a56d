"""What ``toolaudit schemas`` says of schemas files: the tools, what deep mode will not
check, what looks wrong, and the defects that stop an audit.

Files are read and merged as an audit loads them, one definition at a time
(:class:`~toolaudit.schemas.loading.ToolMerge`): each defect loading finds is a value
on the report, and the other tools are still listed. Defects are what loading and
compiling reject (the contract's and deep mode's); warnings are what compiles but
will not be checked, or can never be met (:mod:`toolaudit.schemas.lint`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from toolaudit.contract import beyond_reach, compile_schemas
from toolaudit.deep import inspect_parameters
from toolaudit.errors import SchemaError, ToolAuditError
from toolaudit.schemas.lint import schema_warnings
from toolaudit.schemas.loading import (
    LoadDefect,
    LoadedTool,
    ToolMerge,
    schemas_digest,
)
from toolaudit.schemas.tooldefs import ToolDefinition


@dataclass(frozen=True)
class ToolEntry:
    """One tool a schemas file defines, as deep mode compiled it."""

    name: str
    file: str
    shape: str
    strict: bool
    #: How many parameters (top-level properties) the tool declares.
    parameters: int
    #: Levels of nesting (1: every argument is a leaf); None for a recursive schema.
    depth: int | None
    #: The BFCL question the tool belongs to; None for a tool that judges any call.
    question: str | None = None


@dataclass(frozen=True)
class SchemaWarning:
    """Something a tool's schema says that deep mode will not check, or no call can meet."""

    code: str
    tool: str
    #: A JSON pointer into the tool's parameters schema ("" is the whole schema).
    path: str
    message: str
    file: str
    question: str | None = None


@dataclass(frozen=True)
class SchemaDefect:
    """What stops an audit: a file that cannot be read, or a schema that cannot compile.

    ``message`` is the one line the audit would stop with, naming the file.
    """

    file: str
    tool: str | None
    message: str


@dataclass(frozen=True)
class SchemaReport:
    """Everything ``toolaudit schemas`` prints, in the order the files define it."""

    tools: tuple[ToolEntry, ...] = ()
    warnings: tuple[SchemaWarning, ...] = ()
    defects: tuple[SchemaDefect, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """``{"tools": [...], "warnings": [...], "defects": [...]}``, each entry's fields
        in the order its class declares them."""
        return {
            "tools": [asdict(tool) for tool in self.tools],
            "warnings": [asdict(warning) for warning in self.warnings],
            "defects": [asdict(defect) for defect in self.defects],
        }


def inspect_schema_files(
    paths: str | Iterable[str], *, storage_options: Mapping[str, Any] | None = None
) -> SchemaReport:
    """Read schemas files as an audit does (URLs with ``storage_options``) and report
    each tool, warning and defect.

    Never raises for what is in the files: an unreadable file, one of no known
    shape, or a defective tool is a :class:`SchemaDefect`, and the other files
    and tools are still read.
    """
    tools: list[ToolEntry] = []
    warnings: list[SchemaWarning] = []
    defects: list[SchemaDefect] = []
    listed = [paths] if isinstance(paths, str) else paths
    for found in ToolMerge().read(listed, storage_options=storage_options):
        report = (
            _defect(found.file, found.error) if isinstance(found, LoadDefect) else _inspected(found)
        )
        tools.extend(report.tools)
        warnings.extend(report.warnings)
        defects.extend(report.defects)
    return SchemaReport(tuple(tools), tuple(warnings), tuple(defects))


def _inspected(found: LoadedTool) -> SchemaReport:
    tool, where = found.definition, found.where
    try:
        # Loading digests the schemas: one nested too deeply to be written stops an audit.
        schemas_digest({tool.name: tool.schema})
    except SchemaError as error:
        return _defect(found.file, SchemaError(error.reason, tool=tool.name, source=where))
    return inspect_tool(tool, file=found.file, source=where, question=found.question)


def inspect_tool(
    tool: ToolDefinition, *, file: str, source: str | None = None, question: str | None = None
) -> SchemaReport:
    """One tool's entry and warnings, or its defect. ``source`` (default: the file)
    is where a defect says the tool stands: "schemas file tools.jsonl, line 3"."""
    where = source or f"schemas file {file}"
    parameters = tool.schema.get("parameters", {})
    try:
        compile_schemas({tool.name: tool.schema})  # the contract's defects
        # Deep mode's defects: this compiles the parameters as compile_schemas(deep=True)
        # does, so compiling them that way too would only double the time.
        info = inspect_parameters(tool.name, parameters)
    except SchemaError as error:
        return _defect(file, error.located(where))
    except (OverflowError, RecursionError) as error:  # as compile_schemas says it
        return _defect(file, beyond_reach(tool.name, error).located(where))
    properties = parameters.get("properties", {})
    entry = ToolEntry(
        tool.name,
        file,
        tool.shape,
        tool.strict,
        len(properties) if isinstance(properties, Mapping) else 0,
        info.depth,
        question,
    )
    warnings = tuple(
        SchemaWarning(code, tool.name, path, message, file, question)
        for code, path, message in schema_warnings(info, parameters, strict=tool.strict)
    )
    return SchemaReport((entry,), warnings)


def _defect(file: str, error: ToolAuditError) -> SchemaReport:
    tool = error.tool if isinstance(error, SchemaError) else None
    return SchemaReport(
        defects=(SchemaDefect(file, None if tool is None else str(tool), str(error)),)
    )
