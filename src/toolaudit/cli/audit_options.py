"""The options of ``toolaudit audit``, declared once each (its signature reads them), and
the parsing of the one that typer cannot parse alone (--max-keys).

The defaults are the library's, from the light modules that apply them: the pipeline
and the runners are imported only when the command runs (see app.py).
"""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from toolaudit.formats import format_names
from toolaudit.results.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS
from toolaudit.sources import DEFAULT_BLOCKSIZE

#: --max-keys unless told otherwise: the library's limits.
DEFAULT_MAX_KEYS = f"{DEFAULT_MAX_TOOLS},{DEFAULT_MAX_PARAMS}"

#: --input-format choices: "auto" and the registered formats, in the registry's order.
#: (Importing the registry imports every format module; they import nothing heavy.)
InputFormat = enum.Enum(  # type: ignore[misc]
    "InputFormat", {name: name for name in ("auto", *format_names())}, type=str
)
AUTO = InputFormat("auto")


class Match(str, enum.Enum):
    """--match: how made calls are compared with the expected ones."""

    default = "default"
    bfcl = "bfcl"  # not a log format


PathsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="PATH...",
        help="Log files (JSONL, plain or gzip), directories (walked for *.jsonl, *.ndjson, "
        "*.json and their .gz), URLs (s3://bucket/prefix/, globs too: see --storage-option), "
        "or - for stdin. None: read stdin.",
        show_default=False,
    ),
]

SchemasOption = Annotated[
    list[str] | None,
    typer.Option(
        "--schemas",
        "-s",
        metavar="FILE",
        help="Tool schemas: a JSON mapping tool name -> schema, a list or lines of OpenAI, "
        "Anthropic, MCP, Gemini or BFCL tool definitions, or a BFCL question file. Repeatable. "
        "Optional when every record carries its tools (a logged request).",
        show_default=False,
    ),
]

InputFormatOption = Annotated[
    InputFormat,
    typer.Option(
        "--input-format",
        metavar="NAME",
        help="Read every line as this format instead of recognising each line's own: "
        + ", ".join(f.value for f in InputFormat)
        + ".",
    ),
]

ReportOption = Annotated[
    str | None,
    typer.Option(
        "--report",
        "-r",
        metavar="PATH",
        help="Write one JSON line per call here (- for stdout; a URL too).",
        show_default=False,
    ),
]

SummaryOption = Annotated[
    str | None,
    typer.Option(
        "--summary", metavar="PATH", help="Write the summary JSON here.", show_default=False
    ),
]

ErrorsOnlyOption = Annotated[
    bool,
    typer.Option("--errors-only", help="Keep only failing calls and records in the report."),
]

ConversationsOption = Annotated[
    bool,
    typer.Option(
        "--conversations/--no-conversations",
        help="Check the conversations records carry (a logged request's messages): calls "
        "left unanswered, results answering no call, misplaced results, tool failures. "
        "See docs/conversations.md.",
    ),
]

HistoryOption = Annotated[
    bool,
    typer.Option(
        "--history",
        help="Also judge the calls those conversations hold against the record's tools, "
        "counted apart from the model's own calls (history_calls).",
    ),
]

ProgressOption = Annotated[
    bool | None,
    typer.Option(
        "--progress/--no-progress",
        help="Show progress on stderr. Default: only when stderr is a terminal.",
        show_default=False,
    ),
]

MaxErrorRateOption = Annotated[
    float | None,
    typer.Option(
        "--max-error-rate",
        metavar="RATE",
        min=0.0,
        max=1.0,
        help="Exit 0 when the error rate is at most this (0..1), though some calls failed.",
        show_default=False,
    ),
]

JobsOption = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        metavar="N",
        min=0,
        help="Audit in N processes (0: one per core). Outputs are identical to --jobs 1.",
    ),
]

DaskOption = Annotated[
    str | None,
    typer.Option(
        "--dask",
        metavar="ADDRESS",
        help="Audit on a Dask cluster: a scheduler's address (tcp://10.0.0.5:8786), or "
        "local[:N] for N worker processes here (default: one per core). --report then names "
        "a directory or URL prefix that receives part-00000.jsonl, part-00001.jsonl... "
        "(needs toolaudit[dask]).",
        show_default=False,
    ),
]

BlocksizeOption = Annotated[
    str | None,
    typer.Option(
        "--blocksize",
        metavar="SIZE",
        help="With --dask: the size of a block of a plain file, in bytes or such as 64MiB "
        f"or 1GB (a gzip file is one block).  [default: {DEFAULT_BLOCKSIZE >> 20}MiB]",
        show_default=False,
    ),
]

GroupByOption = Annotated[
    list[str] | None,
    typer.Option(
        "--group-by",
        "-g",
        metavar="FIELD",
        help="Group the summary by this record field (a dotted path, e.g. "
        "metadata.prompt_version; "
        "'model' is the model the record's format names). Repeatable. Records without it: "
        "group null.",
        show_default=False,
    ),
]

MaxKeysOption = Annotated[
    str,
    typer.Option(
        "--max-keys",
        metavar="TOOLS[,PARAMS]",
        help="Distinct tool names, and parameter names per tool, to keep in the summary; "
        "the rest are folded into <other> (a model that invents names cannot grow memory).",
    ),
]

MaxLineBytesOption = Annotated[
    int,
    typer.Option(
        "--max-line-bytes",
        metavar="BYTES",
        help="Longer lines are reported as malformed, not parsed.",
    ),
]

MaxOpenStreamsOption = Annotated[
    int,
    typer.Option(
        "--max-open-streams",
        metavar="N",
        help="Streamed responses reassembled at once per input; past it, the one open "
        "longest is judged as cut.",
    ),
]

ExpectedOption = Annotated[
    list[str] | None,
    typer.Option(
        "--expected",
        "-e",
        metavar="FILE",
        help="Expected calls, one entry per line keyed by record id: BFCL possible answers "
        'or {"id", "calls": [...]} (see docs/evaluation.md). Scores each record: was it '
        "the right call? Repeatable.",
        show_default=False,
    ),
]

ExpectedKeyOption = Annotated[
    str | None,
    typer.Option(
        "--expected-key",
        metavar="FIELD",
        help="The record field holding its id (a dotted path, e.g. metadata.eval_id). "
        "Default: the id its format names (BFCL's id, a Batch line's custom_id), else id.",
        show_default=False,
    ),
]

MatchOption = Annotated[
    Match,
    typer.Option(
        "--match",
        help="How calls are compared with the expected ones: toolaudit's rules, or "
        "BFCL's checker exactly (give the BFCL question files as --schemas).",
    ),
]

ScoresOption = Annotated[
    str | None,
    typer.Option(
        "--scores",
        metavar="PATH",
        help="With --expected: write one JSON line per expected entry here (- for stdout; "
        "a URL too).",
        show_default=False,
    ),
]


def parse_max_keys(text: str) -> tuple[int, int]:
    """--max-keys TOOLS[,PARAMS] -> (tools, params); AuditOptions checks their range."""
    from toolaudit.pipeline.options import MIN_MAX_KEYS

    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        numbers = []
    if len(numbers) not in (1, 2):
        raise typer.BadParameter(
            f"expected TOOLS or TOOLS,PARAMS, whole numbers of at least {MIN_MAX_KEYS}",
            param_hint="--max-keys",
        )
    return numbers[0], numbers[1] if len(numbers) == 2 else DEFAULT_MAX_PARAMS
