"""Every log format, the order detection tries them in, and what follows from their
declarations: the ``--input-format`` choices, what an unknown record is told, and
the formats the audit's typed fast path reads.

Adding a format: a module declaring its :class:`~toolaudit.formats.declaration.Format`,
its line in :data:`FORMATS` and its place in :data:`DETECTION_ORDER`. Format modules
never import this one (it imports them); a format that wraps others is lent
:class:`Inner` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolaudit.formats.anthropic import ANTHROPIC, ANTHROPIC_BATCH
from toolaudit.formats.anthropic_stream import ANTHROPIC_STREAM
from toolaudit.formats.base import Extracted, UnknownShape
from toolaudit.formats.bedrock import BEDROCK
from toolaudit.formats.bedrock_stream import BEDROCK_STREAM
from toolaudit.formats.bfcl import BFCL
from toolaudit.formats.completions import OPENAI_COMPLETIONS, TGI
from toolaudit.formats.declaration import Extractor, Format, Inner, NestedExtractor, Recogniser
from toolaudit.formats.envelope import ENVELOPE
from toolaudit.formats.flat import FLAT
from toolaudit.formats.gemini import GEMINI
from toolaudit.formats.langchain import LANGCHAIN, LANGSMITH
from toolaudit.formats.mcp import MCP
from toolaudit.formats.ollama import OLLAMA
from toolaudit.formats.openai import (
    OPENAI_BATCH,
    OPENAI_BATCH_INPUT,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
)
from toolaudit.formats.openai_chat_stream import OPENAI_CHAT_STREAM
from toolaudit.formats.openai_responses_stream import OPENAI_RESPONSES_STREAM
from toolaudit.formats.otel import OTEL_SPAN, OTLP_JSON
from toolaudit.formats.requests import (
    ANTHROPIC_REQUEST,
    BEDROCK_REQUEST,
    GEMINI_REQUEST,
    OPENAI_CHAT_REQUEST,
    OPENAI_RESPONSES_REQUEST,
)
from toolaudit.formats.single_call import SINGLE_CALL

#: Every format, in ``--input-format`` order (the "expected" message names
#: their families in this order too).
FORMATS = (
    FLAT,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    OPENAI_BATCH,
    OPENAI_BATCH_INPUT,
    OPENAI_COMPLETIONS,
    OPENAI_CHAT_STREAM,
    OPENAI_RESPONSES_STREAM,
    ANTHROPIC,
    ANTHROPIC_BATCH,
    ANTHROPIC_STREAM,
    GEMINI,
    MCP,
    LANGCHAIN,
    LANGSMITH,
    BFCL,
    BEDROCK,
    BEDROCK_STREAM,
    OLLAMA,
    TGI,
    OTLP_JSON,
    OTEL_SPAN,
    ENVELOPE,
    SINGLE_CALL,
    OPENAI_CHAT_REQUEST,
    OPENAI_RESPONSES_REQUEST,
    ANTHROPIC_REQUEST,
    BEDROCK_REQUEST,
    GEMINI_REQUEST,
)

#: The order detection tries the formats' recognisers in (then their fallbacks, in
#: the same order): a format need not rule out the formats before it. Each place says
#: why it is there, as where a format goes depends on what the others take.
DETECTION_ORDER = (
    # First: name + arguments is a flat call whatever else the record holds. The
    # audit's inline fast path reads such records without the registry, so this
    # rule is what keeps both paths in agreement.
    FLAT,
    # First of the custom_id lines: a "result" tells it from OpenAI's Batch lines.
    ANTHROPIC_BATCH,
    OPENAI_BATCH_INPUT,
    # Before envelope, since an output line's "response" is an object too; after
    # anthropic-batch and openai-batch-input, the more specific custom_id lines.
    OPENAI_BATCH,
    # Before envelope, which would take response.created's "response" for a pair's.
    OPENAI_RESPONSES_STREAM,
    # After the Batch lines (an OpenAI output line's "response" is an object too),
    # before every provider format (a pair's response is one of them).
    ENVELOPE,
    # Before the provider formats: "jsonrpc" is certain, whatever a result holds.
    MCP,
    # Before openai-chat, which would read a chunk's choices as a completion's.
    OPENAI_CHAT_STREAM,
    # Before openai-chat, which takes any record with choices.
    OPENAI_COMPLETIONS,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    # Before anthropic, and before ollama, which would read message_start's message.
    ANTHROPIC_STREAM,
    ANTHROPIC,
    GEMINI,
    LANGSMITH,
    LANGCHAIN,
    # After MCP and Anthropic's batch lines, whose "result" and "id" mean otherwise.
    BFCL,
    BEDROCK_STREAM,
    # Late: an object two levels down is a weaker sign than the top-level keys tried before.
    BEDROCK,
    TGI,
    # Last but for the vaguest: these keys say little about the rest of the record.
    SINGLE_CALL,
    # Last of the responses: a top-level "message" object is the vaguest sign of all.
    OLLAMA,
    # After every response format: a response may log its request beside it. Each
    # takes only the requests request_shapes.py reads as its API's, and never half a
    # call (flat's fallback), so their order among themselves does not matter.
    OPENAI_CHAT_REQUEST,
    OPENAI_RESPONSES_REQUEST,
    ANTHROPIC_REQUEST,
    BEDROCK_REQUEST,
    GEMINI_REQUEST,
    # Late, with the other traces: no other format has resourceSpans.
    OTLP_JSON,
    # Last: a name and an attributes object are the weakest sign of all.
    OTEL_SPAN,
)

#: The tool-result shape of calls whose record names no format of its own (a pair
#: holding a request alone): OpenAI Chat's tool message, which compatible servers take.
FALLBACK_REPLY_SHAPE = OPENAI_CHAT.name

#: Detection plans kept at most (one per shape of keys met).
MAX_PLANS = 1024

_Plan = tuple[
    tuple[tuple[Recogniser, str], ...],
    tuple[tuple[Recogniser, str], ...],
]


def expected_message(formats: Iterable[Format]) -> str:
    """What a record of no known shape is told: "expected a tool call {name, arguments}
    or a record of OpenAI (chat, ...), ... or Ollama". Each family is named once, in
    the order given, with its formats' variants in parentheses."""
    families: dict[str, list[str]] = {}
    for fmt in formats:
        if fmt.family is None:
            continue
        variants = families.setdefault(fmt.family, [])
        if fmt.variant is not None and fmt.variant not in variants:
            variants.append(fmt.variant)
    named = [f"{family} ({', '.join(v)})" if v else family for family, v in families.items()]
    # A flat record is the contract's own call, not "a record of" anyone's.
    expected = "expected a tool call {name, arguments}"
    if not named:
        return expected
    if len(named) > 1:
        named = [", ".join(named[:-1]), named[-1]]  # "A, B or C"
    return f"{expected} or a record of {' or '.join(named)}"


def _bind(extract_nested: NestedExtractor, inner: Inner) -> Extractor:
    def extract(record: Mapping[str, Any]) -> Extracted:
        return extract_nested(record, inner)

    return extract


class Registry:
    """Formats by name, and detection over them in order."""

    def __init__(
        self, formats: Iterable[Format], detection_order: Iterable[Format] | None = None
    ) -> None:
        """``formats`` in ``--input-format`` order; ``detection_order``, the same
        formats in the order detection tries them (None: that order)."""
        self.formats = tuple(formats)
        self._by_name = {fmt.name: fmt for fmt in self.formats}
        if len(self._by_name) != len(self.formats):
            raise ValueError("two formats share a name")
        #: Tried in this order; the formats' fallbacks only after all of them.
        self.detection_order = self.formats if detection_order is None else tuple(detection_order)
        if sorted(map(id, self.detection_order)) != sorted(map(id, self.formats)):
            raise ValueError("the detection order must hold each format once")
        self.expected = expected_message(self.formats)
        #: The formats the audit's typed fast path reads (see formats/typed.py).
        self.typed = frozenset(fmt.name for fmt in self.formats if fmt.typed_shape is not None)
        #: The formats whose records may carry a conversation (Extracted.history).
        self.histories = frozenset(fmt.name for fmt in self.formats if fmt.history is not None)
        #: Every key some format recognises records by.
        self._gate = frozenset().union(*(fmt.keys for fmt in self.formats))
        #: The gate keys a record holds -> the recognisers and fallbacks worth
        #: calling on it, in order (see _plan). Logs repeat a few shapes.
        self._plans: dict[frozenset[str], _Plan] = {}
        inner = Inner(detect=self.detect, extract=self.extract, expected=self.expected)
        # Bound once, so that extracting a record is one dict lookup and one call.
        self._extractors: dict[str, Extractor] = {}
        for fmt in self.formats:
            if fmt.extract is not None:
                self._extractors[fmt.name] = fmt.extract
            elif fmt.extract_nested is not None:
                self._extractors[fmt.name] = _bind(fmt.extract_nested, inner)

    @property
    def gate_keys(self) -> frozenset[str]:
        """Every top-level key some format recognises records by."""
        return self._gate

    def candidates(self, present: frozenset[str]) -> tuple[str, ...]:
        """The formats whose recognisers detection tries, in order, on a record whose
        gate keys are ``present`` (then their fallbacks)."""
        recognisers, _ = self._plans.get(present) or self._plan(present)
        return tuple(name for _, name in recognisers)

    def names(self) -> tuple[str, ...]:
        """The format names, in ``--input-format`` order."""
        return tuple(self._by_name)

    def is_format(self, name: object) -> bool:
        """Whether ``name`` names a format (False for any non-string, hashable or not)."""
        return isinstance(name, str) and name in self._by_name

    def get(self, name: str) -> Format:
        """The format of this name; KeyError if there is none."""
        return self._by_name[name]

    def detect(self, record: Mapping[str, Any]) -> str:
        """The name of the format this record is shaped as; raises :class:`UnknownShape`.

        A record with both ``name`` and ``arguments`` is a flat call whatever else
        it holds: the audit's fast path relies on exactly that rule. One with only
        one of them is flat too, but only if no format recognises it.
        """
        present = self._gate.intersection(record)
        plan = self._plans.get(present)
        if plan is None:
            plan = self._plan(present)
        recognisers, fallbacks = plan
        for recognises, name in recognisers:
            if recognises(record):
                return name
        for claims, name in fallbacks:
            if claims(record):
                return name
        raise UnknownShape(f"no known log format: {self.expected}")

    def _plan(self, present: frozenset[str]) -> _Plan:
        """What to try on a record holding the gate keys ``present``: the formats
        whose keys it has, in detection order. Calling only those gives what
        calling every format would, as each format's ``keys`` are necessary."""
        candidates = [fmt for fmt in self.detection_order if not fmt.keys.isdisjoint(present)]
        plan = (
            tuple((fmt.recognises, fmt.name) for fmt in candidates),
            tuple((fmt.fallback, fmt.name) for fmt in candidates if fmt.fallback is not None),
        )
        if len(self._plans) >= MAX_PLANS:
            self._plans.clear()  # a log of ever new shapes: keep memory bounded
        self._plans[present] = plan
        return plan

    def extract(self, record: Mapping[str, Any], forced: str | None = None) -> Extracted:
        """The calls (and context) of one record, read as ``forced`` or as detected;
        :class:`UnknownShape` if it has none (KeyError for a name of no format)."""
        return self._extractors[forced or self.detect(record)](record)


REGISTRY = Registry(FORMATS, DETECTION_ORDER)
EXPECTED = REGISTRY.expected
#: The formats the audit's typed fast path reads: those with a typed shape.
TYPED_FORMATS = REGISTRY.typed
#: The formats whose records may carry a conversation: the typed fast path leaves its
#: history unread (it reads envelope's calls), so a conversation check reads them all.
HISTORY_FORMATS = REGISTRY.histories
detect = REGISTRY.detect
extract = REGISTRY.extract
format_names = REGISTRY.names
is_format = REGISTRY.is_format
get_format = REGISTRY.get
