"""Typed stream shapes: chunk and event lines decoded by msgspec into exactly what the
stream formats read, for the audit's typed stream reader.

A shape's :meth:`~TypedStreamShape.lane` says what a decoded line does to its stream
in the terms of the assembler's lanes (:mod:`toolaudit.formats.stream_lanes`), or its
:meth:`~TypedStreamShape.step` gives the line's
:class:`~toolaudit.formats.stream_steps.StreamStep`, made by the same functions
the format modules make it with. A line the shape cannot read exactly (a value of a
type the extractor would treat otherwise, a wrapped event, a provider's error event)
fails to decode or gives None, and the general path reads it, as for whole responses
(:mod:`toolaudit.formats.typed`, whose gate-key rules these shapes follow).

One module per format (typed_chat_stream.py, typed_anthropic_stream.py), what they
share in typed_stream_shape.py. msgspec is imported by these only: the registry imports
none of them.
"""

from __future__ import annotations

from toolaudit.formats.registry import REGISTRY, Registry
from toolaudit.formats.typed_anthropic_stream import anthropic_stream_shape
from toolaudit.formats.typed_chat_stream import openai_chat_stream_shape
from toolaudit.formats.typed_stream_shape import TypedStreamShape

__all__ = ["TypedStreamShape", "typed_stream_shapes"]


def typed_stream_shapes(registry: Registry = REGISTRY) -> dict[str, TypedStreamShape]:
    """The stream formats the typed path reads, by name, each only if detection would
    pick its format for every line it takes."""
    shapes = (openai_chat_stream_shape(registry), anthropic_stream_shape(registry))
    return {shape.format: shape for shape in shapes if shape is not None}
