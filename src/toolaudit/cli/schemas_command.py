"""toolaudit schemas: schemas files in; their tools, warnings and defects out.

The report is data, so all of it goes to stdout, defects too; the exit code says
what the worst finding was.
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from toolaudit.cli.app import (
    EXIT_CANNOT_RUN,
    EXIT_INVALID,
    EXIT_OK,
    StorageOption,
    _fail,
    _storage_options,
    command,
)
from toolaudit.targets.registry import TARGETS

if TYPE_CHECKING:
    from toolaudit.schemas.report import SchemaReport, SchemaWarning, ToolEntry
    from toolaudit.targets.convert_files import FileConversion
    from toolaudit.targets.files import TargetFinding, TargetReport

#: Tool names and paths are cut to this in a column; past it a line simply grows.
COLUMN_WIDTH = 40


def render_text(report: SchemaReport, targets: TargetReport | None = None) -> str:
    """The tools as a table, then one line per warning, per target finding (with the
    sources the findings cite) and per defect, then the totals."""
    sections = []
    if report.tools:
        sections.append(_tool_table(report.tools))
    if report.warnings:
        sections.append(["warnings", *_warning_lines(report.warnings)])
    if targets is not None and targets.findings:
        sections.append(["targets", *_target_lines(targets.findings)])
        sections.append(["sources", *_source_lines(targets.findings)])
    if report.defects:
        sections.append(["defects", *(_unprintables_escaped(d.message) for d in report.defects)])
    names = len({tool.name for tool in report.tools})
    tools = _counted(names, "tool")
    if names != len(report.tools):  # a tool defined in several files (alike, or a defect)
        tools += f" ({len(report.tools)} definitions)"
    totals = [
        tools,
        _counted(len(report.warnings), "warning"),
        *([_target_totals(targets)] if targets is not None else []),
        _counted(len(report.defects), "defect"),
    ]
    sections.append([", ".join(totals)])
    return "\n\n".join("\n".join(lines) for lines in sections) + "\n"


def render_json(report: SchemaReport, targets: TargetReport | None = None) -> str:
    """One JSON object: ``{"tools": [...], "warnings": [...], "defects": [...]}``, and
    with targets asked for, ``"findings": [...]`` (each with its target and severity)."""
    import orjson

    from toolaudit.jsonutil import dumps_any

    shown = report.to_dict()
    if targets is not None:
        shown["findings"] = targets.to_list()
    # dumps_any: a tool name from a schemas file may hold what orjson cannot write.
    return dumps_any(shown, option=orjson.OPT_INDENT_2).decode() + "\n"


#: --format choices, and what renders each.
RENDERERS: dict[str, Callable[[SchemaReport, TargetReport | None], str]] = {
    "text": render_text,
    "json": render_json,
}
ReportFormat = enum.Enum(  # type: ignore[misc]
    "ReportFormat", {name: name for name in RENDERERS}, type=str
)
#: --target choices: the registry's targets.
TargetName = enum.Enum(  # type: ignore[misc]
    "TargetName", {name: name for name in TARGETS}, type=str
)


@command(
    name="schemas",
    epilog="Exit codes: 0 no warning and no defect; 1 warnings only, or a --target that "
    "rejects a tool; 2 a defect: a file that cannot be read, or a schema that loading or "
    "compiling (deep mode included) rejects.",
)
def schemas_command(
    paths: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            help="Schemas files, in any shape audit --schemas takes.",
            show_default=False,
        ),
    ],
    output_format: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help=f"How to print the report on stdout: {' or '.join(RENDERERS)}.",
        ),
    ] = "text",  # type: ignore[assignment]
    target_names: Annotated[
        list[TargetName] | None,
        typer.Option(
            "--target",
            "-t",
            metavar="TARGET",
            help="Also say what this provider mode or engine rejects or ignores in each "
            f"tool (repeatable): {', '.join(TARGETS)}.",
            show_default=False,
        ),
    ] = None,
    convert: Annotated[
        str | None,
        typer.Option(
            "--convert",
            metavar="DIR",
            help="Write each file into DIR, in its own shape, its tools' parameters "
            "converted for the one --target; say what changed on stderr, and report on "
            "the files written.",
            show_default=False,
        ),
    ] = None,
    storage_option: StorageOption = None,
) -> None:
    """Check schemas files: list their tools, what deep mode will not check, and defects."""
    from toolaudit.schemas.report import inspect_schema_files
    from toolaudit.targets.files import check_schema_files

    storage_options = _storage_options(storage_option)
    if convert is not None:
        paths = _converted(paths, target_names, convert, storage_options)
    report = inspect_schema_files(paths, storage_options=storage_options)
    targets = None
    if target_names:
        names = [name.value for name in target_names]
        targets = check_schema_files(paths, names, storage_options=storage_options)
    sys.stdout.write(RENDERERS[output_format.value](report, targets))
    if report.defects:
        raise typer.Exit(EXIT_CANNOT_RUN)
    rejected = targets is not None and targets.rejected
    raise typer.Exit(EXIT_INVALID if report.warnings or rejected else EXIT_OK)


def _converted(
    paths: list[str],
    target_names: list[TargetName] | None,
    directory: str,
    storage_options: dict[str, Any],
) -> list[str]:
    """Convert the files for the one target, say what changed on stderr, and return the
    paths written (the report is then of them)."""
    from toolaudit.errors import ToolAuditError
    from toolaudit.targets.convert_files import convert_schema_files

    names = list(dict.fromkeys(name.value for name in target_names or ()))
    if len(names) != 1:
        raise _fail("--convert takes exactly one --target: the one to convert for")
    try:
        done = convert_schema_files(paths, names[0], directory, storage_options=storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None
    for converted in done:
        sys.stderr.write(render_conversion(converted, names[0]))
    return [converted.written for converted in done]


def render_conversion(converted: FileConversion, target: str) -> str:
    """What converting one file changed, tool by tool: each change (and whether it
    widens or narrows what the target takes), then what the target still rejects."""
    lines = [
        f"converted {_printable(converted.file)} for {target}: {_printable(converted.written)}"
    ]
    for tool in converted.tools:
        name = _printable(tool.tool if tool.question is None else f"{tool.tool} ({tool.question})")
        if not tool.changes and not tool.left:
            lines.append(f"  {name}: unchanged")
        for change in tool.changes:
            said = f"  [{change.alters}: {ALTERS[change.alters]}]" if change.alters else ""
            where = _printable(change.pointer or "(root)")
            lines.append(f"  {name}  {where}  {_unprintables_escaped(change.message)}{said}")
        for finding in tool.left:
            where = _printable(finding.pointer or "(root)")
            message = _unprintables_escaped(finding.message)
            lines.append(f"  {name}  {where}  still rejected: {message} [{finding.code}]")
    return "\n".join(lines) + "\n"


#: What a change that alters the calls a target takes means, in its line.
ALTERS = {
    "widens": "the target no longer refuses calls the original schema refuses",
    "narrows": "the target refuses calls the original schema takes",
}


def _tool_table(tools: tuple[ToolEntry, ...]) -> list[str]:
    with_questions = any(tool.question is not None for tool in tools)
    header = ["tool", "shape", "parameters", "depth", *(["question"] if with_questions else [])]
    rows = [[*header, "file"]]
    for tool in tools:
        rows.append(
            [
                _printable(tool.name, COLUMN_WIDTH),
                tool.shape + (" (strict)" if tool.strict else ""),
                str(tool.parameters),
                "recursive" if tool.depth is None else str(tool.depth),
                *([_printable(tool.question or "-")] if with_questions else []),
                _printable(tool.file),
            ]
        )
    # Counts are right-aligned, words left-aligned; the last column is not padded.
    numeric = {2, 3}
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return [
        "  ".join(
            [
                *(
                    cell.rjust(width) if i in numeric else cell.ljust(width)
                    for i, (cell, width) in enumerate(zip(row, widths, strict=False))
                ),
                row[-1],
            ]
        )
        for row in rows
    ]


def _warning_lines(warnings: tuple[SchemaWarning, ...]) -> list[str]:
    cells = [
        (
            _printable(w.tool if w.question is None else f"{w.tool} ({w.question})", COLUMN_WIDTH),
            _printable(w.path or "(root)"),
            _unprintables_escaped(w.message),
        )
        for w in warnings
    ]
    tool_width = max(len(tool) for tool, _, _ in cells)
    path_width = min(max(len(path) for _, path, _ in cells), COLUMN_WIDTH)
    return [
        f"{tool.ljust(tool_width)}  {path.ljust(path_width)}  {message}"
        for tool, path, message in cells
    ]


def _target_lines(findings: tuple[TargetFinding, ...]) -> list[str]:
    cells = [
        (
            _printable(f.tool if f.question is None else f"{f.tool} ({f.question})", COLUMN_WIDTH),
            f.severity,
            _printable(f.pointer or "(root)"),
            f"{_unprintables_escaped(f.message)} [{f.code}]",
        )
        for f in findings
    ]
    tool_width = max(len(tool) for tool, _, _, _ in cells)
    severity_width = max(len(severity) for _, severity, _, _ in cells)
    path_width = min(max(len(path) for _, _, path, _ in cells), COLUMN_WIDTH)
    return [
        f"{tool.ljust(tool_width)}  {severity.ljust(severity_width)}  "
        f"{path.ljust(path_width)}  {message}"
        for tool, severity, path, message in cells
    ]


def _source_lines(findings: tuple[TargetFinding, ...]) -> list[str]:
    """Each rule that fired, once, with the page it comes from."""
    sources = {f.code: f.source for f in findings if f.source}
    width = max((len(code) for code in sources), default=0)
    return [f"{code.ljust(width)}  {source}" for code, source in sorted(sources.items())]


def _target_totals(targets: TargetReport) -> str:
    rejecting = sum(1 for f in targets.findings if f.severity == "rejects")
    return f"{_counted(len(targets.findings), 'target finding')} ({rejecting} rejecting)"


def _printable(text: str, max_width: int | None = None) -> str:
    from toolaudit.output.text import printable

    # Names, paths and messages quote the schemas file: escape what would repaint a terminal.
    return printable(text, max_width)


def _unprintables_escaped(message: str) -> str:
    """A message, its control and bidi characters escaped. Its backslashes are left
    alone: the values it quotes are already escaped (a pattern's ``\\d`` shows as it
    is written in the file, not doubled again)."""
    if message.isprintable():
        return message
    return "".join(ch if ch.isprintable() else _printable(ch) for ch in message)


def _counted(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
