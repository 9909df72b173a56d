"""What the typed stream shapes share (:mod:`toolaudit.formats.typed_streams`): the shape,
the lanes a decoded line may take into the open streams
(:mod:`toolaudit.formats.stream_lanes`), the types of indices and texts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import msgspec

from toolaudit.formats.stream_steps import MOST_INDEX, StreamStep

#: The lanes, each the first item of its tuples, the rest the arguments of the
#: StreamLanes method it names, the line and its context left out:
APPEND = 0  # append(key, slot, group, text, model)
ACCOMPANY = 1  # touch(key, model, accompanies=True)
CONTINUE = 2  # touch(key, model, accompanies=False)
BEGIN_CALL = 3  # begin_call(key, slot, group, call_id, name, text, placeholder, model, may_begin)
BEGIN_STREAM = 4  # begin_stream(key, model)
END = 5  # end(key, group, model)
Lane = tuple[Any, ...]

#: A choice, call or block index, as :func:`~toolaudit.formats.stream_steps.is_index`
#: takes one (msgspec's strict ``int`` refuses booleans).
Index = Annotated[int, msgspec.Meta(ge=0, le=MOST_INDEX)]
#: A text read as it is: any other type is refused, never converted.
Text = str | None


class TypedStreamShape:
    """One stream format's typed line: its decoder, its lane, its step."""

    __slots__ = ("decoder", "format", "lane", "step")

    def __init__(
        self,
        format: str,  # shadows the builtin: the format's name
        decoder: msgspec.json.Decoder[Any],
        lane: Callable[[Any], Lane | None],
        step: Callable[[Any], StreamStep | None],
    ) -> None:
        self.format = format
        self.decoder = decoder
        #: The lane of a decoded line, or None: make its step.
        self.lane = lane
        #: The step of a decoded line, or None: the general path reads the line.
        self.step = step
