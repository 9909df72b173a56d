"""Reading a summary file back: its bytes (a path or a URL), its JSON, and the checked
fields a :class:`~toolaudit.results.summary.Summary` (and each of its groups) is made of.

What is wrong with a file is a :class:`~toolaudit.errors.SummaryError` that says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson

from toolaudit.errors import SummaryError
from toolaudit.jsonutil import loads_exact
from toolaudit.results.conversations import Conversations
from toolaudit.results.counts import RecordCounts
from toolaudit.results.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS
from toolaudit.results.tool_summary import ToolSummary

if TYPE_CHECKING:
    from toolaudit.results.ground_truth import GroundTruth

__all__ = ["counts_fields", "decoded_summary", "read_summary_file"]


def read_summary_file(path: str, storage_options: Mapping[str, Any] | None = None) -> bytes:
    """The bytes of a file given to ``compare`` or ``merge``, a path or a URL;
    :class:`SummaryError` when it cannot be read."""
    from toolaudit.storage.filesystems import is_url
    from toolaudit.storage.reading import read_bytes

    try:
        if is_url(path):
            return read_bytes(path, storage_options, what=path)
        with open(path, "rb") as file:
            return file.read()
    except OSError as error:
        raise SummaryError(f"{path}: cannot read: {error.strerror or error}") from error


def decoded_summary(raw: bytes, path: str) -> object:
    """A summary file's JSON (``path`` names it in the error when it is not JSON)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as error:
        try:  # a sample row may hold a number from a log past orjson's range
            return loads_exact(raw)
        except (ValueError, RecursionError):
            raise SummaryError(f"{path}: not valid JSON ({error})") from error


def counts_fields(
    data: Mapping[str, Any], version: str, digest: str | None, deep: bool
) -> dict[str, Any]:
    """The keyword arguments of a summary, or of one of its groups, from its JSON: all
    but what only the whole run has (its inputs, its groups). Missing or odd fields
    raise KeyError, TypeError or ValueError, for the caller to name."""
    limits = data.get("max_keys", {})
    return {
        "toolaudit_version": version,
        "schemas_digest": digest,
        "deep": deep,
        **RecordCounts.record_counts_from(data).record_counts(),
        "by_tool": {name: ToolSummary.from_dict(t) for name, t in data["by_tool"].items()},
        "max_tools": int(limits.get("tools", DEFAULT_MAX_TOOLS)),
        "max_params": int(limits.get("params", DEFAULT_MAX_PARAMS)),
        "samples": [dict(row) for row in data.get("samples", [])],
        "ground_truth": _ground_truth(data["ground_truth"]) if "ground_truth" in data else None,
        "conversations": (
            Conversations.from_dicts(data["conversations"], data.get("tool_results"))
            if "conversations" in data
            else None
        ),
        "history_calls": (
            {
                name: ToolSummary.from_dict(tool)
                for name, tool in data["history_calls"]["by_tool"].items()
            }
            if "history_calls" in data
            else None
        ),
    }


def _ground_truth(section: Mapping[str, Any]) -> GroundTruth:
    """A summary file's ``ground_truth`` section (written by an audit with --expected)."""
    # Imported here: this module loads with every Summary (each audit's start), and the
    # ground-truth machinery is needed only for a file that has the section.
    from toolaudit.results.ground_truth import GroundTruth

    return GroundTruth.from_dict(section)
