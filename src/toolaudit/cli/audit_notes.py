"""What ``toolaudit audit`` tells on stderr besides progress: the expected files' unreadable
lines, the records that could not be scored, the inputs not read to the end."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from toolaudit.cli.app import _tell

if TYPE_CHECKING:
    from toolaudit.results.ground_truth import GroundTruth
    from toolaudit.results.summary import Summary
    from toolaudit.schemas import SchemaSet
    from toolaudit.truth.expectations import Expectations

#: Unreadable expected lines told one by one on stderr; the rest are counted.
MAX_TOLD = 10


def read_expectations(
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


def warn_incomplete(summary: Summary) -> None:
    """Tell each input that was not read to the end, and why."""
    for source in summary.sources:
        if not source.complete:
            from toolaudit.output.text import printable

            typer.echo(
                f"toolaudit: warning: {printable(source.path)}: {printable(source.error or '')}",
                err=True,
            )


def warn_unscored(section: GroundTruth, expected_key: str | None) -> None:
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
