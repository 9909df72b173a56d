"""--group-by: a summary per value of some record fields (the model, a prompt version)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import orjson

from toolaudit.jsonutil import dumps_any
from toolaudit.results.conversations import either_or_both
from toolaudit.results.folding import NO_NAME, OTHER, Folding
from toolaudit.results.summary import MAX_GROUPS, NULL_GROUP, Summary
from toolaudit.results.tally import Tally
from toolaudit.results.tool_summary import ToolSummary, merged_history_calls, merged_tools

#: Strings that would read as another value, or as a bucket: written as JSON strings.
_RESERVED = frozenset({NULL_GROUP, "true", "false", OTHER, NO_NAME})
_JSON_OPENERS = ('"', "[", "{")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
SEPARATOR = " | "


def group_key(
    record: Mapping[str, Any] | None,
    model: str | None,
    fields: tuple[str, ...],
    answered: Mapping[str, object] | None = None,
) -> str:
    """The group of a record: the values of its --group-by fields, joined by " | ".

    A field is a dotted path into the record (``metadata.prompt_version``);
    ``model`` is the model the record's format names, wherever it keeps it. A
    missing field is ``null``, a value other than a string its JSON, and a
    string stands for itself, unless it would read as something else: then it
    is written as a JSON string. ``answered`` holds the values of fields the record's
    format found beyond its JSON, by field as written (an OpenTelemetry span's
    attributes, whose keys hold dots). So the string ``"null"`` is not the group of
    records that lack the field, ``"1"`` is not ``1``, ``"<other>"`` is not the
    bucket of folded groups, and with several fields a string holding ``|`` is
    quoted, so that no two different tuples of values join into one key.
    """
    several = len(fields) > 1
    values = []
    for field_path in fields:
        value: object = record
        if field_path == "model" and model is not None:
            value = model
        elif answered is not None and field_path in answered:
            value = answered[field_path]
        else:
            for step in field_path.split("."):
                value = value.get(step) if isinstance(value, Mapping) else None
        if isinstance(value, str):
            values.append(_quoted(value) if _is_ambiguous(value, several) else value)
        elif value is None:
            values.append(NULL_GROUP)
        else:
            values.append(dumps_any(value, option=orjson.OPT_SORT_KEYS).decode())
    return SEPARATOR.join(values)


def _is_ambiguous(value: str, several: bool) -> bool:
    """Whether a string, written as itself, could be read as another value."""
    return (
        value in _RESERVED
        or value.startswith(_JSON_OPENERS)
        or _NUMBER.fullmatch(value) is not None
        or (several and "|" in value)
    )


def _quoted(value: str) -> str:
    return dumps_any(value).decode()


class Groups:
    """A tally per group, bounded to MAX_GROUPS groups (see folding.py)."""

    def __init__(self, fields: tuple[str, ...], max_tools: int, max_params: int) -> None:
        self.fields = fields
        self._tallies: dict[str, Tally] = {}
        self._folding = Folding(MAX_GROUPS)
        self._limits = (max_tools, max_params)

    def tally_for(
        self,
        record: Mapping[str, Any] | None,
        model: str | None,
        answered: Mapping[str, object] | None = None,
    ) -> Tally:
        """The tally that counts this record (one more record in it)."""
        key = group_key(record, model, self.fields, answered)
        _, tally = self._folding.entry(
            self._tallies, key, lambda: Tally(*self._limits), Tally.absorbed
        )
        tally.records += 1
        return tally

    def tallies(self) -> list[Tally]:
        """The groups' tallies (``<other>``'s too, once some were folded into it)."""
        return list(self._tallies.values())

    def summary(self, total: Summary) -> Summary:
        """``total`` (which counted the lines) with the groups' counts and the groups."""
        groups = {}
        for key, tally in self._tallies.items():
            tally.lines = (
                tally.records
            )  # a group has records, not lines (blank lines have no group)
            groups[key] = tally.summary(
                version=total.toolaudit_version,
                schemas_digest=total.schemas_digest,
                deep=total.deep,
                sources=[],
                complete=True,
            )
        # The whole counted the lines; its groups, all else.
        counts = total.of_the_input()
        by_tool: dict[str, ToolSummary] = {}
        ground_truth = total.ground_truth
        conversations = total.conversations
        history_calls = total.history_calls
        for group in groups.values():
            counts += group.of_the_records()
            by_tool = merged_tools(by_tool, group.by_tool)
            if group.ground_truth is not None:
                # Imported here, as only an audit with --expected has a section: the ground-truth
                # machinery is a start-up cost a plain audit would pay for nothing.
                from toolaudit.results.ground_truth import GroundTruth

                ground_truth = (ground_truth or GroundTruth()).merged(group.ground_truth)
            conversations = either_or_both(conversations, group.conversations)
            history_calls = merged_history_calls(history_calls, group.history_calls)
        return replace(
            total,
            **counts.record_counts(),
            by_tool=by_tool,
            group_by=self.fields,
            groups=groups,
            ground_truth=ground_truth,
            conversations=conversations,
            history_calls=history_calls,
        )
