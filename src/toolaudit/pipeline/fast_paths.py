"""When the typed fast path reads the lines: the choice the audit makes after each record
the other readers read.

The typed reader (typed_reader.py) is made only once the general path has read a record
of a format it reads (msgspec is loaded then, never for a log of none of them), and only
where it gives what the general path gives. After that, each record read elsewhere says
which shape the next lines are tried as.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolaudit.formats import HISTORY_FORMATS, TYPED_FORMATS, get_format
from toolaudit.formats.envelope import ENVELOPE
from toolaudit.formats.flat import FLAT
from toolaudit.formats.requests import REQUEST_FORMATS
from toolaudit.formats.stream_lanes import TYPED_STREAM_FORMATS
from toolaudit.pipeline.options import AuditOptions
from toolaudit.schemas import SchemaSet

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from toolaudit.contract import Validator
    from toolaudit.pipeline.general_reader import GeneralReader
    from toolaudit.pipeline.scoring import Scorer
    from toolaudit.pipeline.typed_reader import TypedReader

#: The formats whose typed shape reads a record's conversation, for the check (a
#: ``TypedShape`` with a ``request``: its record holds a logged request, or is one).
TYPED_HISTORY_FORMATS = frozenset({ENVELOPE.name, *(fmt.name for fmt in REQUEST_FORMATS)})


class FastPaths:
    """Whether the typed reader reads the next lines (:attr:`ready`), and the reader.

    ``enabled`` is False where a test turns the typed path off to compare.
    ``compile_tools`` compiles a record's own tools (a Validator, or why not).
    ``scorer`` (--expected) scores the records the typed path reads, as the general
    path scores them (the inline reader does not score: a scored run leaves it off).
    """

    __slots__ = (
        "_allowed",
        "_checks_histories",
        "_compile_tools",
        "_deep",
        "_forced",
        "_grouped",
        "_histories_general",
        "_scorer",
        "_validator",
        "general",
        "ready",
        "typed",
    )

    def __init__(
        self,
        schemas: SchemaSet,
        options: AuditOptions,
        compile_tools: Callable[[list[Any]], Validator | str],
        *,
        enabled: bool = True,
        scorer: Scorer | None = None,
    ) -> None:
        self._validator = schemas.validator
        self._forced = options.input_format
        self._compile_tools = compile_tools
        #: Scores the records the typed path reads (--expected), as the general path would.
        self._scorer = scorer
        forced = self._forced
        # The typed path gives what the general path gives only where the global schemas
        # judge every record it reads (none keyed), no group needs more of the record than
        # the model its shapes read, and a forced format is one it reads.
        self._deep = options.deep
        self._allowed = (
            enabled
            and not schemas.keyed
            and options.group_by in ((), ("model",))
            and (forced is None or forced in TYPED_FORMATS)
        )
        #: With the check on, the records of a format that may carry a conversation are
        #: the general path's, but pairs and requests logged alone, whose typed shapes
        #: check it; all of them with --history, whose calls the typed path does not judge.
        self._histories_general = (
            HISTORY_FORMATS
            if options.history
            else HISTORY_FORMATS - TYPED_HISTORY_FORMATS
            if options.conversations
            else frozenset()
        )
        self._checks_histories = options.conversations and not options.history
        self._grouped = bool(options.group_by)
        #: The typed reader, once made.
        self.typed: TypedReader | None = None
        #: The general reader (set by it), whose open streams the typed path reads on.
        self.general: GeneralReader | None = None
        #: Whether the typed reader reads the next line (it has a shape to try it as).
        self.ready = False

    @property
    def reads_flat_calls(self) -> bool:
        """Whether flat calls the inline reader judged are worth telling of."""
        return self._allowed

    def seen(self, format_name: str) -> None:
        """A record of this format was read: the typed path tries its shape next, made
        now if it was not yet (loading msgspec)."""
        if format_name in self._histories_general:
            self.ready = False
            return
        typed = self.typed
        if typed is None:
            if (
                not self._allowed
                or (format_name not in TYPED_FORMATS and format_name not in TYPED_STREAM_FORMATS)
                # Without --schemas, only records that carry their tools can be read.
                or (self._validator is None and not get_format(format_name).carries_tools)
            ):
                return
            from toolaudit.pipeline.typed_histories import TypedHistories
            from toolaudit.pipeline.typed_reader import TypedReader

            # A stream's lines count in the group of its first: the general path's to find.
            # (Deep mode judges streams' calls on the general path: the stream reader's
            # refused calls are judged by the plain contract.)
            streams = None if self._grouped or self._deep else self.general
            typed = self.typed = TypedReader(
                self._validator,
                self._forced,
                self._compile_tools,
                streams,
                scorer=self._scorer,
                histories=TypedHistories() if self._checks_histories else None,
                request_histories=TypedHistories(at="") if self._checks_histories else None,
            )
        typed.seen(format_name)
        self.ready = typed.current is not None

    def flat_call_seen(self, name: str) -> None:
        """A flat call to the tool called ``name`` was judged valid or not: the typed path
        reads the next lines as flat calls, that tool's among them."""
        if self.typed is None:
            self.seen(FLAT.name)
        if self.typed is not None:
            self.typed.flat_call_seen(name)
            self.ready = self.typed.current is not None

    def stop(self) -> None:
        """A record defined tools for the records after it (an MCP tools/list result, a
        batch input line): those are not the global schemas, so the typed path reads
        nothing from now on."""
        self._allowed = False
        if self.typed is not None:
            self.typed.stop()
        self.ready = False
