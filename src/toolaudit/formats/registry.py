"""Every log format, and what follows from their declarations: the detection
order, the ``--input-format`` choices and what an unknown record is told.

Adding a format: a module declaring its :class:`~toolaudit.formats.base.Format`,
and its line in :data:`FORMATS`. Format modules never import this one (it
imports them); a format that wraps others is lent :class:`Inner` instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from toolaudit.formats.anthropic import ANTHROPIC, ANTHROPIC_BATCH
from toolaudit.formats.anthropic_stream import ANTHROPIC_STREAM
from toolaudit.formats.base import (
    Extracted,
    Extractor,
    Format,
    Inner,
    NestedExtractor,
    Recogniser,
    UnknownShape,
)
from toolaudit.formats.bedrock import BEDROCK
from toolaudit.formats.bedrock_stream import BEDROCK_STREAM
from toolaudit.formats.bfcl import BFCL
from toolaudit.formats.completions import OPENAI_COMPLETIONS, TGI
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
from toolaudit.formats.single_call import SINGLE_CALL

#: Every format, in ``--input-format`` order (the "expected" message names
#: their families in this order too). Detection order is their priorities'.
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
)


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
    """Formats by name, and detection over them in priority order."""

    def __init__(self, formats: Iterable[Format]) -> None:
        self.formats = tuple(formats)
        self._by_name = {fmt.name: fmt for fmt in self.formats}
        if len(self._by_name) != len(self.formats):
            raise ValueError("two formats share a name")
        if len({fmt.priority for fmt in self.formats}) != len(self.formats):
            # Equal priorities would leave detection to the order of FORMATS, unsaid.
            raise ValueError("two formats share a priority")
        self.expected = expected_message(self.formats)
        #: Tried in this order; the formats' fallbacks only after all of them.
        self.detection_order = tuple(sorted(self.formats, key=lambda fmt: fmt.priority))
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


REGISTRY = Registry(FORMATS)
EXPECTED = REGISTRY.expected
detect = REGISTRY.detect
extract = REGISTRY.extract
format_names = REGISTRY.names
is_format = REGISTRY.is_format
get_format = REGISTRY.get
