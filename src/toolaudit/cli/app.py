"""The typer app and what its commands share: exit codes, common options, the
``command`` decorator (help by metavar, a quiet exit on a closed stdout), the
entry point.

One module per group of commands (audit; validate; compare and merge) registers
on this app. Imports of the audit machinery live inside the commands, so that
``toolaudit --version`` and ``--help`` pay only for typer and the registries'
names.
"""

from __future__ import annotations

import enum
import functools
import os
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
import typer.core

from toolaudit._version import __version__
from toolaudit.output import FORMATS

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_CANNOT_RUN = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE

F = TypeVar("F", bound=Callable[..., Any])

app = typer.Typer(
    name="toolaudit",
    help="Validate LLM tool calls against their schemas: one call, or gigabytes of JSONL logs.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

#: --format choices: the names in the renderer registry (which imports no renderer to list them).
OutputFormat = enum.Enum(  # type: ignore[misc]
    "OutputFormat", {name: name for name in FORMATS}, type=str
)
_FORMATS_LISTED = f"{', '.join(FORMATS[:-1])} or {FORMATS[-1]}" if len(FORMATS) > 1 else FORMATS[0]

FormatOption = Annotated[
    OutputFormat,
    typer.Option(
        "--format",
        "-f",
        metavar="FORMAT",
        help=f"How to print the result on stdout: {_FORMATS_LISTED}.",
    ),
]
HtmlOption = Annotated[
    str | None,
    typer.Option(
        "--html",
        metavar="PATH",
        help="Also write a self-contained HTML page here.",
        show_default=False,
    ),
]

StorageOption = Annotated[
    list[str] | None,
    typer.Option(
        "--storage-option",
        metavar="KEY=VALUE",
        help="An option for the filesystem of URL inputs and outputs (s3://, gs://, az://...), "
        "e.g. endpoint_url=http://127.0.0.1:9000 or anon=true; VALUE is read as JSON when it "
        "parses. Repeatable. fsspec's own config and the usual environment (AWS_*...) apply "
        "too. See docs/storage.md.",
        show_default=False,
    ),
]

DeepOption = Annotated[
    bool,
    typer.Option(
        "--deep",
        help="Also check inside each argument: nested objects and arrays, $ref, anyOf/oneOf/"
        "allOf, const and constraints (minimum, maxLength, pattern...). See docs/deep.md.",
    ),
]


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"toolaudit {__version__}")
        raise typer.Exit()


class _Settings:
    """What the global options set for the whole run."""

    #: --debug: an unexpected error prints its traceback too.
    debug = False


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    debug: Annotated[
        bool,
        typer.Option(
            "--debug",
            help='When toolaudit fails unexpectedly (exit 2, "unexpected ...": a bug), print '
            "the traceback too. Give it before the command: toolaudit --debug audit ...",
        ),
    ] = False,
) -> None:
    """Validate LLM tool calls against their schemas."""
    _Settings.debug = debug


def _fail(message: str) -> typer.Exit:
    typer.echo(f"toolaudit: error: {message}", err=True)
    return typer.Exit(EXIT_CANNOT_RUN)


def _tell(message: str, *, kind: str = "note") -> None:
    """One line on stderr that does not stop the command: a note, or a warning."""
    from toolaudit.output.text import printable

    typer.echo(f"toolaudit: {kind}: {printable(message)}", err=True)


def _storage_options(pairs: list[str] | None) -> dict[str, Any]:
    """--storage-option KEY=VALUE pairs -> storage options; a bad pair stops the command."""
    from toolaudit.errors import OptionError
    from toolaudit.storage.filesystems import parse_storage_options

    try:
        return parse_storage_options(pairs or ())
    except OptionError as error:
        raise _fail(str(error)) from None


def _write_text(path: str, text: str, storage_options: Mapping[str, Any] | None = None) -> None:
    from toolaudit.output.files import AtomicOutput

    with AtomicOutput(path, storage_options=storage_options) as output:
        output.write(text.encode("utf-8", "surrogatepass"))


class _Command(typer.core.TyperCommand):
    """A command whose help lists each argument by its metavar alone: typer
    would add the Python type (``PATH <list[str]>``), which means nothing to a user."""

    def format_options(self, ctx: Any, formatter: Any) -> None:
        arguments, options = [], []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((param.metavar or (param.name or "").upper(), record[1]))
            elif param.param_type_name == "option":
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


def command(**settings: Any) -> Callable[[F], F]:
    """Register a command on the app, as ``app.command(**settings)`` does, such
    that a closed stdout ends it quietly (see :func:`main`)."""

    def register(function: F) -> F:
        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return function(*args, **kwargs)
            except BrokenPipeError:
                # Caught here: typer would turn it into exit status 1.
                _point_stdout_at_devnull()
                raise typer.Exit(EXIT_BROKEN_PIPE) from None

        app.command(cls=_Command, **settings)(run)
        return function

    return register


def main() -> None:
    """Console entry point.

    When the reader of stdout goes away (``toolaudit audit ... -r - | head``),
    toolaudit stops quietly with status 141 (128 + SIGPIPE), what a shell
    reports for a program that a closed pipe ended.

    Any other exception that reaches here is a failure nothing foresaw: it ends
    with one line on stderr and status 2 (toolaudit could not do its job), never 1,
    which scripts read as "invalid calls found"; ``--debug`` adds the traceback.
    Ctrl-C outside an audit is left to click ("Aborted!").
    """
    try:
        try:
            app()
        finally:
            sys.stdout.flush()  # here, so that a closed pipe is met inside the try
    except BrokenPipeError:
        _point_stdout_at_devnull()
        sys.exit(EXIT_BROKEN_PIPE)
    except Exception as error:
        if _Settings.debug:
            traceback.print_exception(error)
        typer.echo(f"toolaudit: error: {unexpected_error(error, debug=_Settings.debug)}", err=True)
        sys.exit(EXIT_CANNOT_RUN)


def unexpected_error(error: Exception, *, debug: bool = False) -> str:
    """One printable line on an exception nothing caught: its type, its message, and
    where it was raised (a ToolAuditError is its message alone)."""
    from toolaudit.errors import ToolAuditError
    from toolaudit.output.text import printable

    if isinstance(error, ToolAuditError):
        return printable(str(error))
    said = printable(str(error), max_width=300)
    message = f"unexpected {type(error).__name__}{': ' + said if said else ''}"
    frames = traceback.extract_tb(error.__traceback__)
    if frames:
        last = frames[-1]
        parts = Path(last.filename).parts
        # The package's own path (toolaudit/...), not where it is installed.
        ours = [i for i, part in enumerate(parts) if part == "toolaudit"]
        where = str(Path(*parts[ours[-1] :])) if ours else last.filename
        message += f" (raised in {last.name}, at {printable(where)}:{last.lineno})"
    more = "" if debug else "; toolaudit --debug ... shows the traceback"
    return f"{message}: a bug in toolaudit, please report it{more}"


def _point_stdout_at_devnull() -> None:
    """So that the interpreter's own last flush of stdout cannot fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
