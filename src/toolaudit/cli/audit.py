"""toolaudit audit: logs in; a report, a summary, a table, and an exit code out.

The options are declared in :mod:`toolaudit.cli.audit_options`; what the command tells
on stderr, in :mod:`toolaudit.cli.audit_notes`.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, NamedTuple

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
from toolaudit.cli.audit_notes import read_expectations, warn_incomplete, warn_unscored
from toolaudit.cli.audit_options import (
    AUTO,
    DEFAULT_MAX_KEYS,
    BlocksizeOption,
    ConversationsOption,
    DaskOption,
    ErrorsOnlyOption,
    ExpectedKeyOption,
    ExpectedOption,
    GroupByOption,
    HistoryOption,
    InputFormatOption,
    JobsOption,
    Match,
    MatchOption,
    MaxErrorRateOption,
    MaxKeysOption,
    MaxLineBytesOption,
    MaxOpenStreamsOption,
    PathsArgument,
    ProgressOption,
    ReportOption,
    SchemasOption,
    ScoresOption,
    SummaryOption,
    parse_max_keys,
)
from toolaudit.errors import Terminated, ToolAuditError
from toolaudit.formats.streams import DEFAULT_MAX_OPEN_STREAMS
from toolaudit.lines import DEFAULT_MAX_LINE_BYTES
from toolaudit.sources import DEFAULT_BLOCKSIZE

if TYPE_CHECKING:
    from distributed import Client

    from toolaudit.pipeline import AuditOptions
    from toolaudit.results.summary import Summary
    from toolaudit.runners import AuditJob

EXIT_CODES_HELP = (
    "Exit codes: 0 every call valid and no malformed record; 1 something invalid or "
    "malformed, or an input not read to the end (--max-error-rate R turns the first "
    "two into 0 when the error rate is at most R), or a conversation with a pairing "
    "problem; 2 the audit could not run; 130 / 143 "
    "interrupted by Ctrl-C / SIGTERM (the report keeps every complete row, the summary "
    "says complete: false)."
)


@command(epilog=EXIT_CODES_HELP)
def audit(
    paths: PathsArgument = None,
    schemas: SchemasOption = None,
    input_format: InputFormatOption = AUTO,
    report: ReportOption = None,
    summary_path: SummaryOption = None,
    errors_only: ErrorsOnlyOption = False,
    deep: DeepOption = False,
    conversations: ConversationsOption = True,
    history: HistoryOption = False,
    html: HtmlOption = None,
    output_format: FormatOption = "table",  # type: ignore[assignment]
    progress: ProgressOption = None,
    max_error_rate: MaxErrorRateOption = None,
    jobs: JobsOption = 1,
    dask_address: DaskOption = None,
    blocksize: BlocksizeOption = None,
    group_by: GroupByOption = None,
    max_keys: MaxKeysOption = DEFAULT_MAX_KEYS,
    max_line_bytes: MaxLineBytesOption = DEFAULT_MAX_LINE_BYTES,
    max_open_streams: MaxOpenStreamsOption = DEFAULT_MAX_OPEN_STREAMS,
    storage_option: StorageOption = None,
    expected: ExpectedOption = None,
    expected_key: ExpectedKeyOption = None,
    match: MatchOption = Match.default,
    scores: ScoresOption = None,
) -> None:
    """Audit logs of tool calls: a report row per call and a summary of what failed."""
    from toolaudit.pipeline import AuditOptions
    from toolaudit.sources import STDIN

    if not paths:
        if sys.stdin.isatty():
            raise _fail("no input: give log paths, or pipe a log into stdin")
        paths = [STDIN]
    max_tools, max_params = parse_max_keys(max_keys)
    _refuse_cluster_conflicts(jobs, dask_address, blocksize)
    storage_options = _storage_options(storage_option)
    _refuse_scoring_options(expected, scores, expected_key, match)
    outputs = _Outputs(report, summary_path, html, scores)
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
        inputs = _Inputs(paths, schemas or [], expected, (match.value, expected_key))
        job = _job(inputs, options, outputs, storage_options)
        run = _Run(jobs, dask_address, blocksize, progress)
        summary, interrupted = _run(job, run, outputs, storage_options)
        _write_files(summary, outputs, storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None

    warn_incomplete(summary)
    if summary.ground_truth is not None:
        warn_unscored(summary.ground_truth, expected_key)
    if summary.lines == 0 and summary.complete:
        # Exit 0 all the same (no call failed), but `zcat log.gz | toolaudit audit` where
        # zcat failed would otherwise pass in silence.
        _tell("the input is empty: no line to audit", kind="warning")
    if interrupted is not None:
        raise typer.Exit(
            EXIT_TERMINATED if issubclass(interrupted, Terminated) else EXIT_INTERRUPTED
        )
    _print_summary(summary, output_format.value, outputs)
    raise typer.Exit(_exit_code(summary, max_error_rate))


class _Inputs(NamedTuple):
    """What the audit reads: the logs, the schemas files, the expected files (or None),
    and how calls are scored against them (--match, --expected-key)."""

    paths: list[str]
    schemas: list[str]
    expected: list[str] | None
    how: tuple[str, str | None]


class _Outputs(NamedTuple):
    """Where the audit writes, by option (each None when not asked for)."""

    report: str | None
    summary: str | None
    html: str | None
    scores: str | None

    def by_option(self) -> dict[str, str | None]:
        return {
            "--report": self.report,
            "--summary": self.summary,
            "--html": self.html,
            "--scores": self.scores,
        }


class _Run(NamedTuple):
    """Where and how the audit runs: --jobs, --dask, --blocksize, --progress."""

    jobs: int
    dask_address: str | None
    blocksize: str | None
    progress: bool | None


def _refuse_cluster_conflicts(jobs: int, dask_address: str | None, blocksize: str | None) -> None:
    if dask_address is not None and jobs != 1:
        raise _fail("--dask and --jobs cannot be combined: the cluster's workers are the jobs")
    if blocksize is not None and dask_address is None:
        # Said, not ignored: without --dask, files are cut by --jobs, not into blocks.
        raise _fail("--blocksize is for --dask: without it, --jobs decides how files are cut")


def _refuse_scoring_options(
    expected: list[str] | None, scores: str | None, expected_key: str | None, match: Match
) -> None:
    if expected is None and (scores is not None or expected_key is not None):
        given = "--scores" if scores is not None else "--expected-key"
        raise _fail(f"{given} is for --expected: give the expected calls to score against")
    if expected is None and match is not Match.default:
        raise _fail("--match is for --expected: give the expected calls to score against")


def _job(
    inputs: _Inputs,
    options: AuditOptions,
    outputs: _Outputs,
    storage_options: dict[str, str] | None,
) -> AuditJob:
    """The audit to run: its schemas and expected calls loaded, its inputs found, and its
    outputs checked (none may overwrite an input)."""
    from toolaudit.output.files import check_outputs
    from toolaudit.runners import AuditJob
    from toolaudit.schemas import NO_SCHEMAS, load_schemas
    from toolaudit.sources import expand_paths

    schemas, expected = inputs.schemas, inputs.expected
    # The schemas and the expected calls live as long as the run and hold no cycles:
    # read with the cycle collector off and then frozen, it never walks them (with
    # BFCL's thousands of questions, a walk that came once the collector was on again
    # took a third of a second, and reading the expected calls after the schemas, two).
    gc.disable()
    try:
        schema_set = (
            load_schemas(schemas, deep=options.deep, storage_options=storage_options)
            if schemas
            else NO_SCHEMAS
        )
        expectations = (
            None
            if expected is None
            else read_expectations(expected, inputs.how, (schema_set, schemas), storage_options)
        )
        gc.freeze()
    finally:
        gc.enable()
    inputs_given = [*schemas, *(expected or ())]
    sources = expand_paths(inputs.paths, skip=inputs_given, storage_options=storage_options)
    check_outputs(
        outputs.by_option(),
        sources,
        schemas=schemas,
        expected=expected or (),
        storage_options=storage_options,
    )
    return AuditJob(sources, schema_set, options, expectations)


def _run(
    job: AuditJob, run: _Run, outputs: _Outputs, storage_options: dict[str, str] | None
) -> tuple[Summary, type[KeyboardInterrupt] | None]:
    """Run the audit, with progress and signals as asked: its summary, and the
    interruption that stopped it (None when it read every input)."""
    from toolaudit.cli.progress import block_progress, byte_progress
    from toolaudit.pipeline import StopRequest
    from toolaudit.pipeline.stop import stopped_by_signals
    from toolaudit.runners import Interrupted, RunHooks, run_job

    show_progress = sys.stderr.isatty() if run.progress is None else run.progress
    stop = StopRequest()
    block_size = DEFAULT_BLOCKSIZE
    if run.blocksize is not None:
        from toolaudit.runners.blocks import parse_blocksize  # (for --dask alone)

        block_size = parse_blocksize(run.blocksize)
    with (
        stopped_by_signals(stop),
        _cluster(run.dask_address) as client,
        byte_progress(job.sources, enabled=show_progress) as on_bytes,
        block_progress(enabled=show_progress and client is not None) as on_block,
    ):
        hooks = RunHooks(on_bytes=on_bytes, stop=stop, notify=_tell, on_block=on_block)
        try:
            summary = run_job(
                job,
                report=outputs.report,
                jobs=run.jobs,
                hooks=hooks,
                storage_options=storage_options,
                dask=client,
                blocksize=block_size,
                scores=outputs.scores,
            )
        except Interrupted as stopped:
            # The report keeps every complete row; the summary says it is incomplete.
            return stopped.summary, stopped.interruption
    return summary, None


def _write_files(
    summary: Summary, outputs: _Outputs, storage_options: dict[str, str] | None
) -> None:
    """--summary and --html (the report and the scores were written as the audit ran)."""
    if outputs.summary is not None:
        from toolaudit.output.json import render_json  # (what --summary needs alone)

        _write_text(outputs.summary, render_json(summary), storage_options)
    if outputs.html is not None:
        from toolaudit.output.html import render_html

        _write_text(outputs.html, render_html(summary), storage_options)


def _print_summary(summary: Summary, output_format: str, outputs: _Outputs) -> None:
    from toolaudit.output import render_summary
    from toolaudit.output.files import STDOUT

    rendered = render_summary(output_format, summary)
    if STDOUT in outputs:
        # stdout carries an output: the summary printed must not be mixed into it.
        sys.stderr.write(rendered)
    else:
        sys.stdout.write(rendered)


@contextmanager
def _cluster(address: str | None) -> Iterator[Client | None]:
    """The Dask client of --dask (Dask is imported only then), or None."""
    if address is None:
        yield None
        return
    from toolaudit.runners.dask import connect

    with connect(address) as client:
        yield client


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
