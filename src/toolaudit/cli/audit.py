"""toolaudit audit: logs in; a report, a summary, a table, and an exit code out."""

from __future__ import annotations

import enum
import gc
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from toolaudit.cli.app import (
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_TERMINATED,
    DeepOption,
    FormatOption,
    HtmlOption,
    StorageOption,
    _fail,
    _storage_options,
    _tell,
    _write_text,
    command,
)
from toolaudit.errors import Terminated, ToolAuditError
from toolaudit.formats import format_names

# The library's defaults, from the light modules that apply them: the pipeline and
# the runners are imported only when a command runs (see app.py).
from toolaudit.formats.streams import DEFAULT_MAX_OPEN_STREAMS
from toolaudit.results.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS
from toolaudit.sources import DEFAULT_BLOCKSIZE, DEFAULT_MAX_LINE_BYTES

if TYPE_CHECKING:
    from distributed import Client

    from toolaudit.pipeline import StopRequest
    from toolaudit.results.ground_truth import GroundTruth
    from toolaudit.results.summary import Summary
    from toolaudit.schemas import SchemaSet
    from toolaudit.truth.expectations import Expectations

EXIT_CODES_HELP = (
    "Exit codes: 0 every call valid and no malformed record; 1 something invalid or "
    "malformed, or an input not read to the end (--max-error-rate R turns the first "
    "two into 0 when the error rate is at most R), or a conversation with a pairing "
    "problem; 2 the audit could not run; 130 / 143 "
    "interrupted by Ctrl-C / SIGTERM (the report keeps every complete row, the summary "
    "says complete: false)."
)

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


@command(epilog=EXIT_CODES_HELP)
def audit(
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH",
            help="Log files (JSONL, plain or gzip), directories (walked for *.jsonl, *.ndjson, "
            "*.json and their .gz), URLs (s3://bucket/prefix/, globs too: see --storage-option), "
            "or - for stdin. None: read stdin.",
            show_default=False,
        ),
    ] = None,
    schemas: Annotated[
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
    ] = AUTO,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            "-r",
            metavar="PATH",
            help="Write one JSON line per call here (- for stdout; a URL too).",
            show_default=False,
        ),
    ] = None,
    summary_path: Annotated[
        str | None,
        typer.Option(
            "--summary", metavar="PATH", help="Write the summary JSON here.", show_default=False
        ),
    ] = None,
    errors_only: Annotated[
        bool,
        typer.Option("--errors-only", help="Keep only failing calls and records in the report."),
    ] = False,
    deep: DeepOption = False,
    conversations: Annotated[
        bool,
        typer.Option(
            "--conversations/--no-conversations",
            help="Check the conversations records carry (a logged request's messages): calls "
            "left unanswered, results answering no call, misplaced results, tool failures. "
            "See docs/conversations.md.",
        ),
    ] = True,
    history: Annotated[
        bool,
        typer.Option(
            "--history",
            help="Also judge the calls those conversations hold against the record's tools, "
            "counted apart from the model's own calls (history_calls).",
        ),
    ] = False,
    html: HtmlOption = None,
    output_format: FormatOption = "table",  # type: ignore[assignment]
    progress: Annotated[
        bool | None,
        typer.Option(
            "--progress/--no-progress",
            help="Show progress on stderr. Default: only when stderr is a terminal.",
            show_default=False,
        ),
    ] = None,
    max_error_rate: Annotated[
        float | None,
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
    dask_address: Annotated[
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
    ] = None,
    blocksize: Annotated[
        str | None,
        typer.Option(
            "--blocksize",
            metavar="SIZE",
            help="With --dask: the size of a block of a plain file, in bytes or such as 64MiB "
            f"or 1GB (a gzip file is one block).  [default: {DEFAULT_BLOCKSIZE >> 20}MiB]",
            show_default=False,
        ),
    ] = None,
    group_by: Annotated[
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
    ] = None,
    max_keys: Annotated[
        str,
        typer.Option(
            "--max-keys",
            metavar="TOOLS[,PARAMS]",
            help="Distinct tool names, and parameter names per tool, to keep in the summary; "
            "the rest are folded into <other> (a model that invents names cannot grow memory).",
        ),
    ] = f"{DEFAULT_MAX_TOOLS},{DEFAULT_MAX_PARAMS}",
    max_line_bytes: Annotated[
        int,
        typer.Option(
            "--max-line-bytes",
            metavar="BYTES",
            help="Longer lines are reported as malformed, not parsed.",
        ),
    ] = DEFAULT_MAX_LINE_BYTES,
    max_open_streams: Annotated[
        int,
        typer.Option(
            "--max-open-streams",
            metavar="N",
            help="Streamed responses reassembled at once per input; past it, the one open "
            "longest is judged as cut.",
        ),
    ] = DEFAULT_MAX_OPEN_STREAMS,
    storage_option: StorageOption = None,
    expected: Annotated[
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
    ] = None,
    expected_key: Annotated[
        str | None,
        typer.Option(
            "--expected-key",
            metavar="FIELD",
            help="The record field holding its id (a dotted path, e.g. metadata.eval_id). "
            "Default: the id its format names (BFCL's id, a Batch line's custom_id), else id.",
            show_default=False,
        ),
    ] = None,
    match: Annotated[
        Match,
        typer.Option(
            "--match",
            help="How calls are compared with the expected ones: toolaudit's rules, or "
            "BFCL's checker exactly (give the BFCL question files as --schemas).",
        ),
    ] = Match.default,
    scores: Annotated[
        str | None,
        typer.Option(
            "--scores",
            metavar="PATH",
            help="With --expected: write one JSON line per expected entry here (- for stdout; "
            "a URL too).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Audit logs of tool calls: a report row per call and a summary of what failed."""
    from toolaudit.cli.progress import byte_progress
    from toolaudit.output import render_summary
    from toolaudit.output.files import STDOUT, check_outputs
    from toolaudit.pipeline import AuditOptions, StopRequest
    from toolaudit.runners import AuditJob, Interrupted, RunHooks, run_job
    from toolaudit.schemas import NO_SCHEMAS, load_schemas
    from toolaudit.sources import STDIN, expand_paths

    if not paths:
        if sys.stdin.isatty():
            raise _fail("no input: give log paths, or pipe a log into stdin")
        paths = [STDIN]
    max_tools, max_params = _parse_max_keys(max_keys)
    if dask_address is not None and jobs != 1:
        raise _fail("--dask and --jobs cannot be combined: the cluster's workers are the jobs")
    if blocksize is not None and dask_address is None:
        # Said, not ignored: without --dask, files are cut by --jobs, not into blocks.
        raise _fail("--blocksize is for --dask: without it, --jobs decides how files are cut")
    storage_options = _storage_options(storage_option)
    if expected is None and (scores is not None or expected_key is not None):
        given = "--scores" if scores is not None else "--expected-key"
        raise _fail(f"{given} is for --expected: give the expected calls to score against")
    if expected is None and match is not Match.default:
        raise _fail("--match is for --expected: give the expected calls to score against")
    try:
        options = AuditOptions(
            errors_only=errors_only,
            max_line_bytes=max_line_bytes,
            input_format=None if input_format.value == "auto" else input_format.value,
            max_tools=max_tools,
            max_params=max_params,
            group_by=tuple(group_by or ()),
            deep=deep,
            max_open_streams=max_open_streams,
            conversations=conversations,
            history=history,
        )
        schema_set = (
            load_schemas(schemas, deep=deep, storage_options=storage_options)
            if schemas
            else NO_SCHEMAS
        )
        # The schemas live as long as the run: keep the cycle collector from
        # walking them again and again (it costs with large schemas).
        expectations = (
            None
            if expected is None
            else _expectations(
                expected,
                (match.value, expected_key),
                (schema_set, schemas or []),
                storage_options,
            )
        )
        gc.freeze()
        inputs_given = [*(schemas or ()), *(expected or ())]
        sources = expand_paths(paths, skip=inputs_given, storage_options=storage_options)
        outputs = {
            "--report": report,
            "--summary": summary_path,
            "--html": html,
            "--scores": scores,
        }
        check_outputs(
            outputs,
            sources,
            schemas=schemas or (),
            expected=expected or (),
            storage_options=storage_options,
        )
        job = AuditJob(sources, schema_set, options, expectations)
        show_progress = sys.stderr.isatty() if progress is None else progress
        interrupted: type[KeyboardInterrupt] | None = None
        stop = StopRequest()
        block_size = DEFAULT_BLOCKSIZE
        if blocksize is not None:
            from toolaudit.runners.blocks import parse_blocksize  # (for --dask alone)

            block_size = parse_blocksize(blocksize)
        with (
            _signals_stop(stop),
            _cluster(dask_address) as client,
            byte_progress(sources, enabled=show_progress) as on_bytes,
            _block_progress(enabled=show_progress and client is not None) as on_block,
        ):
            hooks = RunHooks(on_bytes=on_bytes, stop=stop, notify=_tell, on_block=on_block)
            try:
                summary = run_job(
                    job,
                    report=report,
                    jobs=jobs,
                    hooks=hooks,
                    storage_options=storage_options,
                    dask=client,
                    blocksize=block_size,
                    scores=scores,
                )
            except Interrupted as stopped:
                # The report keeps every complete row; the summary says it is incomplete.
                interrupted, summary = stopped.interruption, stopped.summary
        if summary_path is not None:
            from toolaudit.output.json import render_json  # (what --summary needs alone)

            _write_text(summary_path, render_json(summary), storage_options)
        if html is not None:
            from toolaudit.output.html import render_html

            _write_text(html, render_html(summary), storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None

    _warn_incomplete(summary)
    if summary.ground_truth is not None:
        _warn_unscored(summary.ground_truth, expected_key)
    if summary.lines == 0 and summary.complete:
        # Exit 0 all the same (no call failed), but `zcat log.gz | toolaudit audit` where
        # zcat failed would otherwise pass in silence.
        _tell("the input is empty: no line to audit", kind="warning")
    if interrupted is not None:
        raise typer.Exit(
            EXIT_TERMINATED if issubclass(interrupted, Terminated) else EXIT_INTERRUPTED
        )
    rendered = render_summary(output_format.value, summary)
    if STDOUT in (report, summary_path, html, scores):
        # stdout carries an output: the summary printed must not be mixed into it.
        sys.stderr.write(rendered)
    else:
        sys.stdout.write(rendered)
    raise typer.Exit(_exit_code(summary, max_error_rate))


@contextmanager
def _signals_stop(stop: StopRequest) -> Iterator[None]:
    """Within, Ctrl-C and SIGTERM stop the audit at the end of the batch of lines
    being audited, so that every line read is counted (see StopRequest)."""

    def handler(signum: int, frame: object) -> None:
        stop.request(Terminated if signum == signal.SIGTERM else KeyboardInterrupt)

    previous = {
        signum: signal.signal(signum, handler) for signum in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        yield
    finally:
        for signum, previous_handler in previous.items():
            signal.signal(signum, previous_handler)


@contextmanager
def _cluster(address: str | None) -> Iterator[Client | None]:
    """The Dask client of --dask (Dask is imported only then), or None."""
    if address is None:
        yield None
        return
    from toolaudit.runners.dask import connect

    with connect(address) as client:
        yield client


@contextmanager
def _block_progress(*, enabled: bool) -> Iterator[Callable[[int, int], object] | None]:
    """With --dask, a second bar under the bytes' one: the blocks finished."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        desc="blocks", unit="block", file=sys.stderr, dynamic_ncols=True, leave=False, position=1
    ) as bar:

        def update(done: int, total: int) -> None:
            bar.total, bar.n = total, done
            bar.refresh()

        yield update


def _expectations(
    paths: list[str],
    how: tuple[str, str | None],
    schemas: tuple[SchemaSet, list[str]],
    storage_options: dict[str, str] | None,
) -> Expectations:
    """The expected calls, read before any log line; their unreadable lines told on stderr.
    ``how``: --match and --expected-key; ``schemas``: the loaded set and its files."""
    from toolaudit.truth.expectations import load_expectations

    (match, key), (schema_set, schema_paths) = how, schemas
    expectations = load_expectations(
        paths,
        match=match,
        key=key,
        schemas=schema_set,
        schema_paths=schema_paths,
        storage_options=storage_options,
    )
    problems = expectations.entries.problems
    for problem in problems[:MAX_TOLD]:
        _tell(f"expected file {problem} (not scored)", kind="warning")
    if len(problems) > MAX_TOLD:
        more = len(problems) - MAX_TOLD
        _tell(f"expected files: {more} more unreadable lines (not scored)", kind="warning")
    if not expectations.entries:
        _tell(
            f"no expected entry in {', '.join(paths)}: only BFCL relevance and irrelevance "
            "prompts (told by their ids) will be scored",
            kind="warning",
        )
    return expectations


#: Unreadable expected lines told one by one on stderr; the rest are counted.
MAX_TOLD = 10


def _parse_max_keys(text: str) -> tuple[int, int]:
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


def _warn_incomplete(summary: Summary) -> None:
    for source in summary.sources:
        if not source.complete:
            from toolaudit.output.text import printable

            typer.echo(
                f"toolaudit: warning: {printable(source.path)}: {printable(source.error or '')}",
                err=True,
            )


def _warn_unscored(section: GroundTruth, expected_key: str | None) -> None:
    """Tell the records that could not be scored for want of an id, or for an id that
    was scored already, and a run in which no record was scored at all."""
    key = f"--expected-key {expected_key}" if expected_key else "their format's id or `id`"
    if section.without_id.records:
        _tell(
            f"records with no id at {key}: {section.without_id.records:,} (the first at "
            f"{section.without_id.first}), not scored; --expected-key names the field",
            kind="warning",
        )
    if section.repeated_id.records:
        _tell(
            f"records repeating an id already scored: {section.repeated_id.records:,} (the "
            f"first at {section.repeated_id.first}); only the first record of an id is scored",
            kind="warning",
        )
    scored = section.total - section.outcomes.get("no_record", 0)
    if not scored and section.unscored > section.without_id.records + section.repeated_id.records:
        _tell(
            "no record was scored: none of the records read has an id of the expected "
            "files (is --expected-key the field that holds them?)",
            kind="warning",
        )


def _exit_code(summary: Summary, max_error_rate: float | None) -> int:
    if not summary.complete:
        return EXIT_INVALID
    # A conversation a provider would refuse fails the audit whatever the calls' error rate.
    if summary.conversations is not None and summary.conversations.with_problems:
        return EXIT_INVALID
    if summary.all_valid:
        return EXIT_OK
    if max_error_rate is not None and summary.error_rate <= max_error_rate:
        return EXIT_OK
    return EXIT_INVALID
