"""toolaudit compare and merge: summaries in, a verdict or a merged summary out."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from toolaudit.cli.app import (
    EXIT_INVALID,
    EXIT_OK,
    FormatOption,
    HtmlOption,
    StorageOption,
    _fail,
    _storage_options,
    _tell,
    _write_text,
    command,
)
from toolaudit.errors import ToolAuditError

if TYPE_CHECKING:
    from toolaudit.results.score_compare import AnyComparison
    from toolaudit.results.summary import Summary

SUMMARY_FILE_HELP = "A summary written by toolaudit audit --summary (or merge); a URL too."
COMPARED_FILE_HELP = (
    "A summary written by toolaudit audit --summary (or merge), or a score file written by "
    "--scores (both sides the same kind); a URL too."
)


@command(
    epilog="Exit codes: 0 NEW is not worse than BASE (within --tolerance; with "
    "--fail-on-regression, or not significantly); 1 it is; 2 a file could not be read."
)
def compare(
    base: Annotated[
        str, typer.Argument(metavar="BASE", help=COMPARED_FILE_HELP, show_default=False)
    ],
    new: Annotated[str, typer.Argument(metavar="NEW", help=COMPARED_FILE_HELP, show_default=False)],
    tolerance: Annotated[
        float,
        typer.Option(
            "--tolerance",
            metavar="RATE",
            min=0.0,
            max=1.0,
            help="How much higher NEW's error rate (or lower its accuracy, for score files) "
            "may be than BASE's (absolute: 0.01 is one point).",
        ),
    ] = 0.0,
    fail_on_regression: Annotated[
        bool,
        typer.Option(
            "--fail-on-regression",
            help="Fail only on a significant regression: worse by more than --tolerance "
            "and p < --alpha (exact McNemar test on the shared ids of score files; "
            "a two-proportion z-test otherwise).",
        ),
    ] = False,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            metavar="LEVEL",
            min=0.0,
            max=1.0,
            help="The significance level of the tests.",
        ),
    ] = 0.05,
    group: Annotated[
        str | None,
        typer.Option(
            "--group",
            metavar="VALUE",
            help="Compare this --group-by group of both summaries (of score files: this model).",
            show_default=False,
        ),
    ] = None,
    base_group: Annotated[
        str | None,
        typer.Option(
            "--base-group",
            metavar="VALUE",
            help="The group of BASE to compare (default: --group).",
            show_default=False,
        ),
    ] = None,
    new_group: Annotated[
        str | None,
        typer.Option(
            "--new-group",
            metavar="VALUE",
            help="The group of NEW to compare (default: --group).",
            show_default=False,
        ),
    ] = None,
    output_format: FormatOption = "table",  # type: ignore[assignment]
    html: HtmlOption = None,
    storage_option: StorageOption = None,
) -> None:
    """Compare two audits' summaries per tool and per error kind, or two score files' accuracy
    with a significance test; fail if NEW got worse."""
    from toolaudit.output import render_comparison
    from toolaudit.results.compare import compare as compare_summaries
    from toolaudit.results.score_compare import compare_scores, load_compared
    from toolaudit.results.summary import Summary

    storage_options = _storage_options(storage_option)
    base_group = base_group if base_group is not None else group
    new_group = new_group if new_group is not None else group
    comparison: AnyComparison
    try:
        base_read = load_compared(base, storage_options=storage_options, group=base_group)
        new_read = load_compared(new, storage_options=storage_options, group=new_group)
        if isinstance(base_read, Summary) and isinstance(new_read, Summary):
            _warn_incomplete(((base, base_read), (new, new_read)))
            comparison = compare_summaries(
                base_read,
                new_read,
                base_label=base,
                new_label=new,
                tolerance=tolerance,
                base_group=base_group,
                new_group=new_group,
                alpha=alpha,
                fail_on_regression=fail_on_regression,
            )
        elif isinstance(base_read, dict) and isinstance(new_read, dict):
            comparison = compare_scores(
                base_read,
                new_read,
                base_label=base,
                new_label=new,
                tolerance=tolerance,
                alpha=alpha,
                fail_on_regression=fail_on_regression,
                base_group=base_group,
                new_group=new_group,
            )
        else:
            kinds = ("a summary", "a score file")
            raise _fail(
                f"{base} is {kinds[isinstance(base_read, dict)]} and {new} is "
                f"{kinds[isinstance(new_read, dict)]}: compare two of a kind"
            )
        if html is not None:
            from toolaudit.output.html import render_comparison_html

            _write_text(html, render_comparison_html(comparison), storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None
    sys.stdout.write(render_comparison(output_format.value, comparison))
    raise typer.Exit(EXIT_INVALID if comparison.regressed else EXIT_OK)


def _warn_incomplete(loaded: tuple[tuple[str, Summary], ...]) -> None:
    for label, summary in loaded:
        if not summary.complete:
            _tell(
                f"{label}: its audit did not read all of its input (complete: false): "
                "the rates compared are of what it read",
                kind="warning",
            )


@command(
    epilog="Exit codes: 0 merged; 2 a summary could not be read, or the summaries "
    "cannot be merged honestly."
)
def merge(
    summaries: Annotated[
        list[str], typer.Argument(metavar="SUMMARY...", help=SUMMARY_FILE_HELP, show_default=False)
    ],
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Where to write the merged summary (- for stdout; a URL too).",
        ),
    ] = "-",
    storage_option: StorageOption = None,
) -> None:
    """Merge the summaries of shards of one log into the summary of the whole."""
    from toolaudit.output.json import render_json
    from toolaudit.results.merging import merge_summaries
    from toolaudit.results.summary import Summary

    storage_options = _storage_options(storage_option)
    same = next(
        (path for i, path in enumerate(summaries) if _given_before(path, summaries[:i])), None
    )
    if same is not None:
        raise _fail(f"{same}: given twice: its counts would be added twice")
    try:
        loaded = [(path, Summary.load(path, storage_options=storage_options)) for path in summaries]
        _note_shared_sources(loaded)
        merged = merge_summaries(summary for _, summary in loaded)
        _write_text(output, render_json(merged), storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None


def _given_before(path: str, earlier: list[str]) -> bool:
    """Whether ``path`` names the same summary as one of ``earlier``."""
    from toolaudit.storage.filesystems import is_url

    for other in earlier:
        if is_url(path) or is_url(other):
            if path == other:
                return True
        elif os.path.exists(path) and os.path.exists(other) and os.path.samefile(path, other):
            return True
    return False


def _note_shared_sources(loaded: list[tuple[str, Summary]]) -> None:
    """Say so when two summaries counted one input: merged, its counts are added (right
    for parts of one file audited apart, wrong for one audit merged twice)."""
    first_in: dict[str, str] = {}
    for path, summary in loaded:
        for source in summary.sources:
            earlier = first_in.setdefault(source.path, path)
            if earlier != path:
                _tell(
                    f"{source.path} is in {earlier} and in {path}: its counts are added, "
                    "as for parts of one input audited apart"
                )
