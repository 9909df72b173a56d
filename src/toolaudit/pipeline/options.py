"""What to audit and what to keep: the options of one audit, checked when made.

The CLI and the library build the same :class:`AuditOptions`, so a bad value
is refused with the same :class:`~toolaudit.errors.OptionError` from either,
before anything is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolaudit.errors import OptionError
from toolaudit.formats import format_names, is_format
from toolaudit.formats.streams import DEFAULT_MAX_OPEN_STREAMS
from toolaudit.lines import DEFAULT_MAX_LINE_BYTES
from toolaudit.results.folding import DEFAULT_MAX_PARAMS, DEFAULT_MAX_TOOLS

if TYPE_CHECKING:
    from toolaudit.schemas import SchemaSet

# The defaults (DEFAULT_MAX_LINE_BYTES...) live where they are applied, below the
# pipeline: the CLI shows them in its --help without importing the pipeline.
#: A bounded table needs room for at least two names to sample from (see folding.py).
MIN_MAX_KEYS = 2


@dataclass(frozen=True)
class AuditOptions:
    """What to audit and what to keep, beyond the inputs and the schemas."""

    #: Keep report rows only for calls and records that fail.
    errors_only: bool = False
    #: A longer line is reported as malformed instead of being parsed.
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    #: Read every record as this format (see formats.format_names()); None recognises each line's.
    input_format: str | None = None
    #: Distinct tool names, and parameter names per tool, kept in the summary;
    #: the others are folded into "<other>" (see results/folding.py).
    max_tools: int = DEFAULT_MAX_TOOLS
    max_params: int = DEFAULT_MAX_PARAMS
    #: Record fields to group the summary by (dotted paths; "model" is the model
    #: the record's format names); see results.summary.Summary.groups.
    group_by: tuple[str, ...] = ()
    #: Judge calls in deep mode: inside each argument too (nested objects, arrays,
    #: $ref, combinators, constraints). The schemas must be compiled for it.
    deep: bool = False
    #: Streamed responses being reassembled at once (per input): past it, the one
    #: open longest is judged as cut (memory stays bounded whatever the log).
    max_open_streams: int = DEFAULT_MAX_OPEN_STREAMS
    #: Check the conversations records carry (a logged request's messages): calls left
    #: unanswered, results that answer no call, tool failures (see docs/conversations.md).
    conversations: bool = True
    #: Judge the calls those conversations hold too, counted apart from the model's own.
    history: bool = False

    def __post_init__(self) -> None:
        for name in ("deep", "conversations", "history"):
            if type(getattr(self, name)) is not bool:
                raise OptionError(f"{name} must be true or false, not {getattr(self, name)!r}")
        if self.input_format is not None and not is_format(self.input_format):
            raise OptionError(
                f"unknown input format {self.input_format!r}: "
                f"expected one of {', '.join(format_names())}"
            )
        if not _is_count(self.max_line_bytes) or self.max_line_bytes < 1:
            raise OptionError(
                f"max_line_bytes must be a whole number of at least 1, not {self.max_line_bytes!r}"
            )
        if not _is_count(self.max_open_streams) or self.max_open_streams < 1:
            raise OptionError(
                "max_open_streams (--max-open-streams) must be a whole number of at least 1, "
                f"not {self.max_open_streams!r}"
            )
        for name in ("max_tools", "max_params"):
            value = getattr(self, name)
            if not _is_count(value) or value < MIN_MAX_KEYS:
                raise OptionError(
                    f"{name} (--max-keys) must be a whole number of at least {MIN_MAX_KEYS}, not "
                    f"{value!r}"
                )
        # A lone field is one field, not the characters of one.
        group_by = (self.group_by,) if isinstance(self.group_by, str) else tuple(self.group_by)
        for field_path in group_by:
            if not isinstance(field_path, str) or not field_path or "" in field_path.split("."):
                raise OptionError(
                    "--group-by needs a dotted field path such as metadata.prompt_version, not "
                    f"{field_path!r}"
                )
        if len(set(group_by)) != len(group_by):
            raise OptionError(f"--group-by names a field twice: {', '.join(group_by)}")
        object.__setattr__(self, "group_by", group_by)

    def check_schemas(self, schemas: SchemaSet) -> None:
        """Refuse schemas compiled for the other mode (deep or not) than this audit's."""
        if self.deep != schemas.deep and not schemas.empty:
            raise OptionError(
                "deep validation needs schemas compiled for it: load them with deep=True"
                if self.deep
                else "these schemas were compiled for deep validation: audit with deep=True"
            )


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
