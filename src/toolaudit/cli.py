"""The command line: options in, one library call, outputs and an exit code out.

Imports of the audit machinery live inside the commands, so that
``toolaudit --version`` and ``--help`` pay only for typer.
"""

from __future__ import annotations

import enum
import gc
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from toolaudit import __version__
from toolaudit.errors import Terminated, ToolAuditError

if TYPE_CHECKING:
    from toolaudit.summary import Summary

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_CANNOT_RUN = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE

EXIT_CODES_HELP = (
    "Exit codes: 0 every call valid and no malformed record; 1 something invalid or "
    "malformed, or an input not read to the end (--max-error-rate R turns the first "
    "two into 0 when the error rate is at most R); 2 the audit could not run; 130 / 143 "
    "interrupted by Ctrl-C / SIGTERM (the report keeps every complete row, the summary "
    "says complete: false)."
)

app = typer.Typer(
    name="toolaudit",
    help="Validate LLM tool calls against their schemas: one call, or gigabytes of JSONL logs.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


#: --input-format choices: "auto" and the keys of toolaudit.formats.EXTRACTORS
#: (spelled out so that --help need not import the formats; a test keeps them equal).
INPUT_FORMATS = (
    "flat", "openai-chat", "openai-responses", "openai-batch", "openai-batch-input", "anthropic",
    "anthropic-batch", "gemini", "mcp", "langchain", "langsmith", "bfcl", "bedrock", "ollama", "envelope",
)
InputFormat = enum.Enum("InputFormat", {name: name for name in ("auto", *INPUT_FORMATS)}, type=str)  # type: ignore[misc]


class SummaryFormat(str, enum.Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"toolaudit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Validate LLM tool calls against their schemas."""


def _fail(message: str) -> typer.Exit:
    typer.echo(f"toolaudit: error: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


@app.command(epilog=EXIT_CODES_HELP)
def audit(
    paths: Annotated[
        Optional[list[str]],
        typer.Argument(
            metavar="PATH",
            help="Log files (JSONL, plain or gzip), directories (walked for *.jsonl, *.ndjson, "
            "*.json and their .gz), or - for stdin. None: read stdin.",
            show_default=False,
        ),
    ] = None,
    schemas: Annotated[
        Optional[list[str]],
        typer.Option(
            "--schemas",
            "-s",
            metavar="FILE",
            help="Tool schemas: a JSON mapping tool name -> schema, a list or lines of OpenAI, "
            "Anthropic, MCP, Gemini or BFCL tool definitions, or a BFCL question file. Repeatable. "
            "Optional when every record carries its tools (a logged request).",
            show_default=False,
        ),
    ] = None,
    input_format: Annotated[
        InputFormat,
        typer.Option(
            "--input-format",
            metavar="NAME",
            help="Read every line as this format instead of recognising each line's own: "
            + ", ".join(f.value for f in InputFormat)
            + ".",
        ),
    ] = InputFormat.auto,
    report: Annotated[
        Optional[str],
        typer.Option("--report", "-r", metavar="PATH", help="Write one JSON line per call here (- for stdout).", show_default=False),
    ] = None,
    summary_path: Annotated[
        Optional[str], typer.Option("--summary", metavar="PATH", help="Write the summary JSON here.", show_default=False)
    ] = None,
    errors_only: Annotated[
        bool, typer.Option("--errors-only", help="Keep only failing calls and records in the report.")
    ] = False,
    html: Annotated[
        Optional[str],
        typer.Option("--html", metavar="PATH", help="Write a self-contained HTML report here.", show_default=False),
    ] = None,
    output_format: Annotated[
        SummaryFormat, typer.Option("--format", "-f", metavar="FORMAT", help="How to print the summary on stdout: table, json or markdown.")
    ] = SummaryFormat.table,
    progress: Annotated[
        Optional[bool],
        typer.Option(
            "--progress/--no-progress",
            help="Show progress on stderr. Default: only when stderr is a terminal.",
            show_default=False,
        ),
    ] = None,
    max_error_rate: Annotated[
        Optional[float],
        typer.Option(
            "--max-error-rate",
            metavar="RATE",
            min=0.0,
            max=1.0,
            help="Exit 0 when the error rate is at most this (0..1), though some calls failed.",
            show_default=False,
        ),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            min=0,
            help="Audit in N processes (0: one per core). Outputs are identical to --jobs 1.",
        ),
    ] = 1,
    group_by: Annotated[
        Optional[list[str]],
        typer.Option(
            "--group-by",
            "-g",
            metavar="FIELD",
            help="Group the summary by this record field (a dotted path, e.g. metadata.prompt_version; "
            "'model' is the model the record's format names). Repeatable. Records without it: group null.",
            show_default=False,
        ),
    ] = None,
    max_keys: Annotated[
        str,
        typer.Option(
            "--max-keys",
            metavar="TOOLS[,PARAMS]",
            help="Distinct tool names, and parameter names per tool, to keep in the summary; "
            "the rest are folded into <other> (a model that invents names cannot grow memory).",
        ),
    ] = "10000,1000",
    max_line_bytes: Annotated[
        int,
        typer.Option("--max-line-bytes", metavar="BYTES", min=1, help="Longer lines are reported as malformed, not parsed."),
    ] = 64 << 20,
) -> None:
    """Audit logs of tool calls: a report row per call and a summary of what failed."""
    from toolaudit.auditor import Audit, AuditOptions
    from toolaudit.output import RENDERERS, render_json
    from toolaudit.output.files import AtomicOutput, check_outputs_differ_from_inputs
    from toolaudit.progress import byte_progress
    from toolaudit.schemas import NO_SCHEMAS, load_schemas
    from toolaudit.sources import STDIN, expand_paths

    max_tools, max_params = _parse_max_keys(max_keys)
    if not paths:
        if sys.stdin.isatty():
            raise _fail("no input: give log paths, or pipe a log into stdin")
        paths = [STDIN]
    try:
        schema_set = load_schemas(schemas) if schemas else NO_SCHEMAS
        # The schemas live as long as the run: keep the cycle collector from
        # walking them again and again (it costs with large schemas).
        gc.freeze()
        sources = expand_paths(paths, skip=schemas or ())
        check_outputs_differ_from_inputs([report, summary_path, html], sources)
        options = AuditOptions(
            errors_only=errors_only,
            max_line_bytes=max_line_bytes,
            input_format=None if input_format.value == "auto" else input_format.value,
            jobs=jobs,
            max_tools=max_tools,
            max_params=max_params,
            group_by=tuple(group_by or ()),
        )
        show_progress = sys.stderr.isatty() if progress is None else progress
        auditor = Audit(sources, schema_set, options)
        interrupted: KeyboardInterrupt | None = None
        with _sigterm_raises_terminated():
            try:
                with byte_progress(sources, enabled=show_progress) as on_bytes:
                    auditor.on_bytes = on_bytes
                    if report is None:
                        summary = auditor.run()
                    else:
                        with AtomicOutput(report) as report_file:
                            summary = auditor.run(report_file)
            except KeyboardInterrupt as stop:
                # The report keeps every complete row; the summary says it is incomplete.
                interrupted, summary = stop, auditor.finish(interrupted=True)
            if summary_path is not None:
                with AtomicOutput(summary_path) as summary_file:
                    summary_file.write(render_json(summary).encode())
            if html is not None:
                from toolaudit.output.html import render_html

                _write_text(html, render_html(summary))
    except ToolAuditError as error:
        raise _fail(str(error)) from None

    _warn_incomplete(summary)
    if interrupted is not None:
        raise typer.Exit(EXIT_TERMINATED if isinstance(interrupted, Terminated) else EXIT_INTERRUPTED)
    rendered = RENDERERS[output_format.value](summary)
    if report == "-":
        # stdout carries the report: the summary must not be mixed into it.
        sys.stderr.write(rendered)
    else:
        sys.stdout.write(rendered)
    raise typer.Exit(_exit_code(summary, max_error_rate))


@contextmanager
def _sigterm_raises_terminated() -> Iterator[None]:
    """Within, SIGTERM stops the audit as Ctrl-C does (see errors.Terminated)."""

    def terminate(signum: int, frame: object) -> None:
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _parse_max_keys(text: str) -> tuple[int, int]:
    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 2) or min(numbers) < 2:
        raise typer.BadParameter("expected TOOLS or TOOLS,PARAMS, whole numbers of at least 2", param_hint="--max-keys")
    return numbers[0], numbers[-1] if len(numbers) == 2 else 1000


def _warn_incomplete(summary: Summary) -> None:
    for source in summary.sources:
        if not source.complete:
            from toolaudit.output.text import printable

            typer.echo(f"toolaudit: warning: {printable(source.path)}: {printable(source.error or '')}", err=True)


def _exit_code(summary: Summary, max_error_rate: float | None) -> int:
    if not summary.complete:
        return EXIT_INVALID
    if summary.all_valid:
        return EXIT_OK
    if max_error_rate is not None and summary.error_rate <= max_error_rate:
        return EXIT_OK
    return EXIT_INVALID


@app.command(epilog="Exit codes: 0 the call is valid; 1 it is not; 2 the schemas or the call could not be read.")
def validate(
    call: Annotated[
        str,
        typer.Argument(metavar="CALL", help='The call as JSON: {"name": ..., "arguments": {...}}, or - for stdin.'),
    ] = "-",
    schemas: Annotated[
        list[str],
        typer.Option(
            "--schemas", "-s", metavar="FILE", help="Tool schemas, in any shape audit takes. Repeatable.", show_default=False
        ),
    ] = ...,  # type: ignore[assignment]
) -> None:
    """Validate one call and print the contract's result: {"ok": ..., "errors": [...]}."""
    import orjson

    from toolaudit.schemas import load_schemas

    try:
        schema_set = load_schemas(schemas)
    except ToolAuditError as error:
        raise _fail(str(error)) from None
    if schema_set.validator is None:
        raise _fail("a BFCL question file holds one schema set per question; give the functions of one")
    text = sys.stdin.buffer.read() if call == "-" else call.encode()
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise _fail(f"the call is not valid JSON: {error}") from None
    result = schema_set.validator.validate(parsed)
    sys.stdout.write(orjson.dumps(result).decode() + "\n")
    raise typer.Exit(EXIT_OK if result["ok"] else EXIT_INVALID)


def _write_text(path: str, text: str) -> None:
    from toolaudit.output.files import AtomicOutput

    with AtomicOutput(path) as output:
        output.write(text.encode("utf-8", "surrogatepass"))


def _read_summary(path: str) -> Summary:
    import orjson

    from toolaudit.summary import Summary, SummaryError

    try:
        with open(path, "rb") as file:
            data = orjson.loads(file.read())
    except OSError as error:
        raise SummaryError(f"{path}: cannot read: {error.strerror or error}") from error
    except orjson.JSONDecodeError as error:
        raise SummaryError(f"{path}: not valid JSON ({error})") from error
    try:
        return Summary.from_dict(data)
    except SummaryError as error:
        raise SummaryError(f"{path}: {error}") from None


SUMMARY_FILE_HELP = "A summary written by toolaudit audit --summary (or merge)."


@app.command(
    epilog="Exit codes: 0 NEW is not worse than BASE (within --tolerance); 1 it is; 2 a summary could not be read."
)
def compare(
    base: Annotated[str, typer.Argument(metavar="BASE", help=SUMMARY_FILE_HELP, show_default=False)],
    new: Annotated[str, typer.Argument(metavar="NEW", help=SUMMARY_FILE_HELP, show_default=False)],
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            metavar="RATE",
            min=0.0,
            max=1.0,
            help="How much higher NEW's error rate may be than BASE's (absolute: 0.01 is one point).",
        ),
    ] = 0.0,
    group: Annotated[
        Optional[str],
        typer.Option("--group", metavar="VALUE", help="Compare this --group-by group of both summaries.", show_default=False),
    ] = None,
    base_group: Annotated[
        Optional[str],
        typer.Option("--base-group", metavar="VALUE", help="The group of BASE to compare (default: --group).", show_default=False),
    ] = None,
    new_group: Annotated[
        Optional[str],
        typer.Option("--new-group", metavar="VALUE", help="The group of NEW to compare (default: --group).", show_default=False),
    ] = None,
    output_format: Annotated[
        SummaryFormat, typer.Option("--format", "-f", metavar="FORMAT", help="table, json or markdown.")
    ] = SummaryFormat.table,
    html: Annotated[
        Optional[str],
        typer.Option("--html", metavar="PATH", help="Write a self-contained HTML comparison here.", show_default=False),
    ] = None,
) -> None:
    """Compare two audits' summaries per tool and per error kind; fail if NEW got worse."""
    from toolaudit.compare import compare as compare_summaries
    from toolaudit.output import COMPARISON_RENDERERS

    try:
        comparison = compare_summaries(
            _read_summary(base),
            _read_summary(new),
            base_label=base,
            new_label=new,
            tolerance=tolerance,
            base_group=base_group if base_group is not None else group,
            new_group=new_group if new_group is not None else group,
        )
        if html is not None:
            from toolaudit.output.html import render_comparison_html

            _write_text(html, render_comparison_html(comparison))
    except ToolAuditError as error:
        raise _fail(str(error)) from None
    sys.stdout.write(COMPARISON_RENDERERS[output_format.value](comparison))
    raise typer.Exit(EXIT_INVALID if comparison.regressed else EXIT_OK)


@app.command(epilog="Exit codes: 0 merged; 2 a summary could not be read, or the summaries cannot be merged honestly.")
def merge(
    summaries: Annotated[list[str], typer.Argument(metavar="SUMMARY...", help=SUMMARY_FILE_HELP, show_default=False)],
    output: Annotated[
        str, typer.Option("--output", "-o", metavar="PATH", help="Where to write the merged summary (- for stdout).")
    ] = "-",
) -> None:
    """Merge the summaries of shards of one log into the summary of the whole."""
    from toolaudit.output import render_json
    from toolaudit.summary import merge_summaries

    try:
        merged = merge_summaries(_read_summary(path) for path in summaries)
        _write_text(output, render_json(merged))
    except ToolAuditError as error:
        raise _fail(str(error)) from None


def main() -> None:
    """Console entry point."""
    try:
        app()
        sys.stdout.flush()  # here, so that a closed pipe is met inside the try
    except BrokenPipeError:
        # The reader went away (`toolaudit audit ... | head`): stop quietly. Point
        # stdout at /dev/null so that the interpreter's own last flush cannot fail.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(EXIT_BROKEN_PIPE)
