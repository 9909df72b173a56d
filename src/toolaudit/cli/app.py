"""The command line: options in, one library call, outputs and an exit code out.

One module per group of commands (audit; validate; compare and merge), all on
the one typer app defined here. Imports of the audit machinery live inside the
commands, so that ``toolaudit --version`` and ``--help`` pay only for typer.
"""

from __future__ import annotations

import enum
import sys
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from toolaudit._version import __version__

if TYPE_CHECKING:
    from toolaudit.results.summary import Summary

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_CANNOT_RUN = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE

app = typer.Typer(
    name="toolaudit",
    help="Validate LLM tool calls against their schemas: one call, or gigabytes of JSONL logs.",
    add_completion=False,
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

class OutputFormat(str, enum.Enum):
    table = "table"
    json = "json"
    markdown = "markdown"


FormatOption = Annotated[
    OutputFormat, typer.Option("--format", "-f", metavar="FORMAT", help="How to print the result on stdout: table, json or markdown.")
]
HtmlOption = Annotated[
    Optional[str], typer.Option("--html", metavar="PATH", help="Also write a self-contained HTML page here.", show_default=False)
]


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


def _write_text(path: str, text: str) -> None:
    from toolaudit.output.files import AtomicOutput

    with AtomicOutput(path) as output:
        output.write(text.encode("utf-8", "surrogatepass"))


def _read_summary(path: str) -> Summary:
    import orjson

    from toolaudit.results.summary import Summary, SummaryError

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
