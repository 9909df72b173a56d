"""The typed path's lanes into the open streams: what :meth:`StreamAssembler.feed` does
with the commonest steps, done without making the step.

Each lane does all that ``feed()`` would do with its step, or nothing at all and says
so (then the step is fed, and ``feed()`` decides: an eviction, a stream superseded, a
line it cannot place). A lane's stream key is ``(format, stream id)``, as a step's.
"""

from __future__ import annotations

from collections.abc import Hashable

from toolaudit.formats import anthropic_stream, openai_chat_stream
from toolaudit.formats.streams import StreamAssembler, _Call, _Stream

__all__ = [
    "BEGAN",
    "NOT_PLACED",
    "PLACED",
    "TYPED_STREAM_FORMATS",
    "OpenCall",
    "OpenStream",
    "StreamLanes",
]

#: The stream formats whose lines the audit's typed path reads
#: (:mod:`toolaudit.formats.typed_streams`).
TYPED_STREAM_FORMATS = frozenset({openai_chat_stream.NAME, anthropic_stream.NAME})

#: What :meth:`StreamLanes.begin_call` did.
NOT_PLACED, PLACED, BEGAN = 0, 1, 2

#: A stream a lane ended: ``pending()`` its calls, ``finished(None)`` the record of them.
OpenStream = _Stream
#: One call of an open stream: its ``arguments()`` so far.
OpenCall = _Call


class StreamLanes(StreamAssembler):
    """A :class:`StreamAssembler` (the general reader's) with the typed path's lanes.

    The C speedups' placers (:mod:`toolaudit.formats.stream_speedups`) take the same
    lanes on the same state (its ``_open``, ``_ended``, ``max_open`` and ``_sequence``),
    making the streams with ``_Stream`` as :meth:`_begin` does."""

    def append(
        self, key: Hashable, slot: tuple[int, ...], group: int | None, text: str, model: object
    ) -> bool:
        """A step (not one that begins a stream) holding one fragment that only adds
        ``text`` to the call at ``slot`` (and, with choices, speaks for ``group``): False
        unless the stream is open with a call at that slot."""
        stream = self._open.get(key)
        if stream is None:
            return False
        call = stream.at_slot.get(slot)
        if call is None:
            return False
        if stream.model is None:
            stream.model = model if isinstance(model, str) else None
        pieces = call.pieces
        if pieces is None:
            call.pieces = [text]
        else:
            pieces.append(text)
        if group is not None and group not in stream.groups:
            stream.groups[group] = False
        return True

    def touch(self, key: Hashable, model: object, *, accompanies: bool) -> bool:
        """A step that adds and ends nothing (it may name the model), of the role
        ACCOMPANIES if ``accompanies``, else CONTINUES: False unless its stream is open
        or it accompanies."""
        stream = self._open.get(key)
        if stream is None:
            return accompanies
        if stream.model is None:
            stream.model = model if isinstance(model, str) else None
        return True

    def begin_call(
        self,
        key: Hashable,
        slot: tuple[int, ...],
        group: int | None,
        call_id: object,
        name: object,
        text: str | None,
        placeholder: str | None,
        model: object,
        may_begin: bool,
        line: int,
        context: object,
    ) -> int:
        """A step holding one fragment that begins a call at ``slot`` (its ``call_id`` or
        ``name`` given), of the role BEGINS_OR_CONTINUES if ``may_begin``, else CONTINUES:
        BEGAN (a stream, on ``line``, with ``context``), PLACED or NOT_PLACED."""
        stream = self._open.get(key)
        done = PLACED
        if stream is None:
            stream_id = key[1] if isinstance(key, tuple) else None
            if (
                not may_begin
                or (stream_id is not None and key in self._ended)
                or len(self._open) >= self.max_open
            ):
                return NOT_PLACED
            stream = self._begin(key, line, context)
            done = BEGAN
        if stream.model is None:
            stream.model = model if isinstance(model, str) else None
        current = stream.at_slot.get(slot)
        if current is None or (
            call_id is not None and current.id is not None and call_id != current.id
        ):
            stream.start(slot, call_id, name, text, placeholder)
        else:
            if current.name is None:
                current.name = name
            if text is not None:
                if current.pieces is None:
                    current.pieces = []
                current.pieces.append(text)
        if group is not None:
            stream.groups.setdefault(group, False)
        return done

    def begin_stream(self, key: Hashable, model: object, line: int, context: object) -> bool:
        """A step of the role BEGINS that adds nothing: False when a stream of its key is
        open (it is cut) or the open streams are at their limit."""
        if key in self._open or len(self._open) >= self.max_open:
            return False
        stream = self._begin(key, line, context)
        stream.model = model if isinstance(model, str) else None
        return True

    def end(
        self, key: Hashable, group: int | None, model: object, line: int
    ) -> list[OpenStream] | None:
        """A step of an open stream that adds nothing and ends ``group`` (None: ends the
        stream): the stream if it ended, or None unless the stream is open."""
        stream = self._open.get(key)
        if stream is None:
            return None
        if stream.model is None:
            stream.model = model if isinstance(model, str) else None
        if group is not None:
            groups = stream.groups
            groups[group] = True
            if not all(groups.values()):
                return []
        del self._open[key]
        self._remember(key, line)  # (the line it finished on: see StreamAssembler._ended)
        return [stream]

    def _begin(self, key: Hashable, line: int, context: object) -> OpenStream:
        assert isinstance(key, tuple)
        self._sequence += 1
        stream = self._open[key] = _Stream(key[0], line, context, self._sequence)
        return stream
