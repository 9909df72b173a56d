"""OpenTelemetry traces: OTLP/JSON lines, as the Collector's file exporter writes
them, and spans dumped one a line (``ReadableSpan.to_json()``, backends' exports).

This module reads both into spans with plain attribute values, and decides what
a line of several spans comes to. What one span's attributes mean is for
:mod:`toolaudit.formats.otel_conventions`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import Call, Extracted, History, UnknownShape, as_dict, get_path
from toolaudit.formats.declaration import Format
from toolaudit.formats.otel_conventions import (
    INPUT_MESSAGES,
    SpanReading,
    input_messages,
    read_span,
)
from toolaudit.values import described, kind_phrase, shown

#: AnyValues nested deeper than this are refused rather than read by recursion.
MAX_NESTING = 100
_INTEGER = re.compile(r"-?[0-9]+")
#: What each kind of AnyValue holds in OTLP/JSON.
_EXPECTED = {
    "stringValue": "a string",
    "boolValue": "a boolean",
    "intValue": "a string of digits",
    "doubleValue": "a number",
    "bytesValue": "base64 text",
    "arrayValue": "an object {values}",
    "kvlistValue": "an object {values}",
}
_TOOLS = (
    "span attributes gen_ai.tool.definitions, llm.request.functions.N.*, "
    "llm.tools.N.tool.json_schema: they judge the calls of the line"
)


class Span:
    """One span: its attributes and its resource's, as plain values, and where it is."""

    __slots__ = ("at", "attributes", "resource", "where")

    def __init__(
        self, attributes: Mapping[str, Any], resource: Mapping[str, Any], where: str, at: str = ""
    ):
        self.attributes = attributes
        self.resource = resource
        #: How messages name it: 'span resourceSpans[0].scopeSpans[0].spans[1] "chat gpt-4o"'.
        self.where = where
        #: Its path in the line: "resourceSpans[0].scopeSpans[0].spans[1]" ("": the line).
        self.at = at


def otlp_json(record: Mapping[str, Any]) -> Extracted:
    """One ``ExportTraceServiceRequest``: ``resourceSpans[].scopeSpans[].spans[]``."""
    spans: list[Span] = []
    for r, resource_spans in enumerate(_array(record, "resourceSpans", "")):
        at_resource = f"resourceSpans[{r}]"
        resource_spans = _object(resource_spans, at_resource)
        resource = _attributes(
            get_path(resource_spans, "resource", "attributes"), f"{at_resource}.resource"
        )
        # instrumentationLibrarySpans: the older name, still in old exporters' files.
        scopes = "scopeSpans" if "scopeSpans" in resource_spans else "instrumentationLibrarySpans"
        for s, scope_spans in enumerate(_array(resource_spans, scopes, at_resource)):
            at_scope = f"{at_resource}.{scopes}[{s}]"
            for i, span in enumerate(_array(_object(scope_spans, at_scope), "spans", at_scope)):
                at_span = f"{at_scope}.spans[{i}]"
                span = _object(span, at_span)
                where = _span_name(f"span {at_span}", span.get("name"))
                attributes = _attributes(span.get("attributes"), where)
                spans.append(Span(attributes, resource, where, at_span))
    return line_of_spans("otlp-json", spans)


def span_dump(record: Mapping[str, Any]) -> Extracted:
    """One span as a flat object: ``{"name", "attributes": {...}, "resource":
    {"attributes": {...}}, ...}``, attribute values plain JSON."""
    attributes = record.get("attributes")
    if not isinstance(attributes, Mapping):
        raise UnknownShape("an OpenTelemetry span needs an attributes object")
    resource = as_dict(get_path(record, "resource", "attributes"))
    span = Span(attributes, resource, _span_name("span", record.get("name")))
    return line_of_spans("otel-span", [span])


def line_of_spans(format: str, spans: list[Span]) -> Extracted:
    """What a line's spans come to: each call once, the line's tools, its model,
    and the attributes ``--group-by`` may name.

    A call is the model's, from its inference span; an ``execute_tool`` span of
    the same call id is the same call (what the tool received), and counts only
    when the line holds no inference record of it. One call id is one call.
    """
    readings = [read_span(span.attributes, span.where) for span in spans]
    inferred = {key for reading in readings for call in reading.calls if (key := id_key(call))}
    calls: list[Call] = []
    seen: set[str] = set()
    first: tuple[Span, SpanReading] | None = None
    for span, reading in zip(spans, readings, strict=True):
        found = list(reading.calls)
        if reading.executed is not None and id_key(reading.executed) not in inferred:
            found.append(reading.executed)
        for call in found:
            key = id_key(call)
            if key is not None:
                if key in seen:
                    continue  # the same call recorded twice (a framework's span and an SDK's)
                seen.add(key)
            call.index = len(calls)
            calls.append(call)
            if first is None:
                first = span, reading
    model = first[1].model if first is not None else None
    if model is None:
        model = next((reading.model for reading in readings if reading.model), None)
    tools: list[object] | None = [tool for reading in readings for tool in reading.tools]
    if not tools or any(reading.tools_unrecorded for reading in readings):
        tools = None  # the line does not say what the tools accept: --schemas does
    grouped = first[0] if first is not None else (spans[0] if spans else None)
    fields = _fields(grouped) if grouped is not None else None
    history = _history(first[0] if first is not None else None, spans)
    return Extracted(format, calls, model=model, tools=tools, fields=fields, history=history)


def _history(calling: Span | None, spans: list[Span]) -> History | None:
    """The conversation of the line: the input messages of the span that holds its
    first call, else of its first span that records some."""
    for span in [calling, *spans] if calling is not None else spans:
        if span.attributes.get(INPUT_MESSAGES) is not None:
            at = f"{span.at}.attributes" if span.at else "attributes"
            return _SpanHistory(span.attributes, f"{at}.{INPUT_MESSAGES}")
    return None


class _SpanHistory(History):
    """A span's input messages, decoded from their JSON text when first read: a whole
    history, which an audit without the conversation check never reads."""

    __slots__ = ("_attributes", "_decoded")

    def __init__(self, attributes: Mapping[str, Any], path: str) -> None:
        self._attributes: Mapping[str, Any] | None = attributes
        self._decoded: object = None
        super().__init__("otel", None, path)

    @property
    def messages(self) -> object:
        if self._attributes is not None:
            self._decoded, self._attributes = input_messages(self._attributes), None
        return self._decoded

    @messages.setter
    def messages(self, value: object) -> None:
        # History.__init__ sets it: None until read. (Set otherwise, it is that value.)
        if value is not None:
            self._decoded, self._attributes = value, None

    @property
    def text(self) -> str | None:
        if self._attributes is None:
            return None
        held = self._attributes.get(INPUT_MESSAGES)
        return held if type(held) is str else None


def id_key(call: Call) -> str | None:
    if not isinstance(call.id, str):
        return None
    # Stripped: the GenAI conventions' own example ids differ by a leading space.
    return call.id.strip() or None


def _fields(span: Span) -> dict[str, object]:
    """``attributes.<key>`` (the span's attribute, else its resource's) and
    ``resource.attributes.<key>``: dotted paths cannot walk keys that hold dots."""
    fields: dict[str, object] = {f"resource.attributes.{k}": v for k, v in span.resource.items()}
    fields.update({f"attributes.{k}": v for k, v in span.resource.items()})
    fields.update({f"attributes.{k}": v for k, v in span.attributes.items()})
    return fields


def _span_name(where: str, name: object) -> str:
    return f"{where} {shown(name)}" if isinstance(name, str) else where


def _object(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise UnknownShape(f"{where} is {kind_phrase(value)}, not an object")
    return value


def _array(container: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = container.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        at = f"{where}.{key}" if where else key
        raise UnknownShape(f"{at} is {kind_phrase(value)}, not an array")
    return value


def _attributes(entries: object, where: str, depth: int = 0) -> dict[str, object]:
    """OTLP ``[{key, value: AnyValue}]`` -> ``{key: plain value}``."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        raise UnknownShape(f"{where}: attributes are {kind_phrase(entries)}, not an array")
    attributes: dict[str, object] = {}
    for position, entry in enumerate(entries):
        key = entry.get("key") if isinstance(entry, Mapping) else None
        if not isinstance(key, str):
            raise UnknownShape(f"{where}: attribute #{position + 1} is not a {{key, value}} pair")
        at = f"{where}, attribute {key}" if depth == 0 else f"{where}.{key}"
        attributes[key] = _any_value(entry.get("value"), at, depth)
    return attributes


def _any_value(value: object, where: str, depth: int) -> object:
    """An OTLP/JSON AnyValue -> its plain value. ``intValue`` is a JSON string
    (a 64-bit integer), ``bytesValue`` base64 text, kept as it is."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or len(value) > 1:
        raise UnknownShape(f"{where}: {shown(value)} is not an OTLP AnyValue")
    if not value:
        return None  # an AnyValue holding nothing, which OTLP allows
    ((kind, raw),) = value.items()
    if kind in ("stringValue", "bytesValue") and isinstance(raw, str):
        return raw
    if kind == "boolValue" and isinstance(raw, bool):
        return raw
    if kind == "intValue":
        if isinstance(raw, str) and _INTEGER.fullmatch(raw):
            return int(raw)
        if isinstance(raw, int) and not isinstance(raw, bool):
            return raw  # a number, as some writers put it
    if kind == "doubleValue":
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            return float(raw)
        if isinstance(raw, str):  # "NaN", "Infinity", as proto3 JSON writes them
            try:
                return float(raw)
            except ValueError:
                pass
    if kind in ("arrayValue", "kvlistValue") and isinstance(raw, Mapping):
        if depth >= MAX_NESTING:
            raise UnknownShape(f"{where}: values nested over {MAX_NESTING} levels deep")
        if kind == "kvlistValue":
            return _attributes(raw.get("values"), where, depth + 1)
        items = []
        for position, item in enumerate(_array(raw, "values", where)):
            items.append(_any_value(item, f"{where}[{position}]", depth + 1))
        return items
    if kind in _EXPECTED:
        raise UnknownShape(f"{where}: {kind} holds {described(raw)}, not {_EXPECTED[kind]}")
    raise UnknownShape(f"{where}: {shown(value)} is not an OTLP AnyValue")


def _is_otlp(record: Mapping[str, Any]) -> bool:
    return "resourceSpans" in record


def _is_span(record: Mapping[str, Any]) -> bool:
    return "name" in record and isinstance(record.get("attributes"), Mapping)


OTLP_JSON = Format(
    name="otlp-json",
    summary="OpenTelemetry traces as OTLP/JSON, one export request a line",
    recognises=_is_otlp,
    keys=("resourceSpans",),
    extract=otlp_json,
    tools=_TOOLS,
    history=f"span attribute {INPUT_MESSAGES}",
    family="OpenTelemetry",
    variant="OTLP/JSON",
    carries_tools=True,
)
OTEL_SPAN = Format(
    name="otel-span",
    summary="OpenTelemetry spans, one a line, attributes plain JSON",
    recognises=_is_span,
    keys=("attributes",),
    extract=span_dump,
    tools=_TOOLS,
    history=f"span attribute {INPUT_MESSAGES}",
    family="OpenTelemetry",
    variant="span",
    carries_tools=True,
)
