"""Streamed responses, reassembled: the steps of each stream (chunk and event
records, read by the stream formats into a :class:`StreamStep`) -> its calls.

:class:`StreamAssembler` keeps the streams open and gives each one's calls, once
it ends or is cut, as one record of its own (:class:`Finished`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

from toolaudit.formats.base import ABSENT, JSON_STRING, PROVIDER, Call, Extracted
from toolaudit.formats.stream_steps import (
    ACCOMPANIES,
    BEGINS,
    BEGINS_OR_CONTINUES,
    Fragment,
    StreamStep,
    Whole,
)

__all__ = ["Finished", "StreamAssembler", "StreamError", "StreamStep"]

#: Why a stream was cut (``Finished.cut``).
LOG_ENDED = "the log ended before the stream finished"
EVICTED = "evicted: more than --max-open-streams ({}) streams were open"
SUPERSEDED = "the next stream began on line {} before it finished"
#: The note on the calls of a cut stream ({} says why it was cut).
CUT_NOTE = "the stream was cut ({}), so these arguments may be incomplete"


class StreamError(Exception):
    """A record that cannot be placed in its stream (a delta of a stream or of a
    call that never started); ``str()`` is the detail of its ``malformed:record``."""


class Finished:
    """One stream, assembled (or cut): its calls as one record's."""

    __slots__ = ("context", "cut", "extracted", "line")

    def __init__(self, line: int, context: object, extracted: Extracted, cut: str | None) -> None:
        #: The line the stream began on (its report rows carry it).
        self.line = line
        #: What ``feed`` was given with the stream's first record.
        self.context = context
        self.extracted = extracted
        #: None when the stream finished; else why not.
        self.cut = cut


class _Call:
    """One call of an open stream, as assembled so far."""

    __slots__ = ("id", "name", "number", "pieces", "placeholder", "slot")

    def __init__(
        self,
        call_id: object,
        name: object,
        arguments: str | None,
        placeholder: str | None,
        slot: tuple[int, ...],
        number: int,
    ) -> None:
        self.id = call_id
        self.name = name
        #: Its calls are numbered by slot, then in the order they began.
        self.slot = slot
        self.number = number
        #: None until some event carries arguments (then absent, not empty).
        self.pieces = None if arguments is None else [arguments]
        self.placeholder = placeholder

    def add(self, fragment: Fragment) -> None:
        if isinstance(fragment, Whole):
            self.id = self.id if fragment.id is None else fragment.id
            self.name = self.name if fragment.name is None else fragment.name
            if fragment.arguments is not None:
                self.pieces = [fragment.arguments]
            return
        if self.name is None:
            self.name = fragment.name
        if fragment.arguments is not None:
            if self.pieces is None:
                self.pieces = []
            self.pieces.append(fragment.arguments)

    def arguments(self) -> object:
        if self.pieces is None:
            return ABSENT if self.placeholder is None else self.placeholder
        text = "".join(self.pieces)
        return text if text or self.placeholder is None else self.placeholder


class _Stream:
    """One open stream.

    Thousands may be open at once and live long, so it holds few containers the cyclic
    GC tracks and walks in every full collection: dicts of groups and notes hold no
    container (CPython does not track them), and what most streams never need is made
    when first needed."""

    __slots__ = (
        "at_slot",
        "context",
        "failure",
        "format",
        "groups",
        "line",
        "model",
        "notes",
        "replaced",
        "sequence",
        "skipped",
        "started",
    )

    def __init__(self, format: str, line: int, context: object, sequence: int) -> None:
        self.format = format
        self.line = line
        self.context = context
        self.sequence = sequence
        self.model: str | None = None
        #: The call each slot holds now (a later call at a slot takes its place here).
        self.at_slot: dict[tuple[int, ...], _Call] = {}
        #: The calls a later call at their slot took the place of (None: none).
        self.replaced: list[_Call] | None = None
        #: How many calls began.
        self.started = 0
        self.skipped: set[tuple[int, ...]] | None = None
        #: Each group (choice) seen -> whether it ended.
        self.groups: dict[int, bool] = {}
        self.notes: dict[int, str] = {}
        self.failure: str | None = None

    def knows(self, slot: tuple[int, ...]) -> bool:
        return slot in self.at_slot or (self.skipped is not None and slot in self.skipped)

    def apply(self, step: StreamStep) -> bool:
        """Add what the step brings; whether the stream ends with it."""
        if self.model is None:
            self.model = step.model
        for fragment in step.fragments:
            slot = fragment.slot
            if fragment.skipped:
                if self.skipped is None:
                    self.skipped = set()
                self.skipped.add(slot)
                continue
            current = self.at_slot.get(slot)
            if current is None:
                if fragment.begins or isinstance(fragment, Whole):
                    self._start(fragment)
                # else the slot is skipped (_check let nothing else through)
            elif fragment.begins and _other_call(fragment, current):
                self._start(fragment)
            else:
                current.add(fragment)
        groups = self.groups
        for group in step.groups:
            groups.setdefault(group, False)
        for group in step.ended_groups:  # (most chunks end nothing)
            groups[group] = True
        if step.notes:
            self.notes.update(step.notes)
        if step.failure is not None:
            self.failure = step.failure
        if step.ends or step.cut is not None:
            return True
        return bool(step.ended_groups) and all(groups.values())

    def _start(self, fragment: Fragment) -> None:
        self.start(
            fragment.slot, fragment.id, fragment.name, fragment.arguments, fragment.placeholder
        )

    def start(
        self,
        slot: tuple[int, ...],
        call_id: object,
        name: object,
        arguments: str | None,
        placeholder: str | None,
    ) -> None:
        """A call begins at ``slot``."""
        call = _Call(call_id, name, arguments, placeholder, slot, self.started)
        self.started += 1
        replaced = self.at_slot.get(slot)
        if replaced is not None:
            if self.replaced is None:
                self.replaced = []
            self.replaced.append(replaced)
        self.at_slot[slot] = call

    def only_call(self) -> _Call | None:
        """Its call if it has one alone."""
        if self.started != 1:
            return None
        return next(iter(self.at_slot.values()))

    def pending(self) -> list[_Call]:
        """Its calls, in the order they are numbered."""
        calls = list(self.at_slot.values())
        if self.replaced is not None:
            calls += self.replaced
        return calls if len(calls) < 2 else sorted(calls, key=_order)

    def finished(self, cut: str | None) -> Finished:
        cut_note = None if cut is None else CUT_NOTE.format(cut)
        calls: list[Call] = []
        # A stream's failure is its provider's report (StreamStep.failure).
        failure_kind = PROVIDER if self.failure is not None else None
        for pending in self.pending():
            notes = [n for n in (self.notes.get(pending.slot[0]), cut_note) if n is not None]
            calls.append(
                Call(
                    len(calls),
                    pending.name,
                    pending.arguments(),
                    id=pending.id,
                    encoding=JSON_STRING,
                    failure=self.failure,
                    failure_kind=failure_kind,
                    note="; ".join(notes) or None,
                )
            )
        if not calls and self.failure is not None:
            failed = Call(0, None, failure=self.failure, note=cut_note, failure_kind=failure_kind)
            calls.append(failed)
        extracted = Extracted(self.format, calls, model=self.model)
        return Finished(self.line, self.context, extracted, cut)


def _other_call(fragment: Fragment, current: _Call) -> bool:
    """Whether a call starting at an occupied slot is another call: some servers
    send parallel calls all at index 0, told apart only by their ids."""
    return fragment.id is not None and current.id is not None and fragment.id != current.id


def _order(call: _Call) -> tuple[tuple[int, ...], int]:
    return call.slot, call.number


#: Streams open at once before the one open longest is cut (--max-open-streams).
DEFAULT_MAX_OPEN_STREAMS = 10_000


class StreamAssembler:
    """The streams open now, fed one step at a time; at most ``max_open`` of them
    (the oldest is cut to make room), and as many ended ones remembered, to tell
    a late chunk of one (OpenAI's usage-only chunk) from a new stream."""

    def __init__(self, max_open: int = DEFAULT_MAX_OPEN_STREAMS) -> None:
        self.max_open = max(1, max_open)
        self._open: dict[Hashable, _Stream] = {}
        #: Ended streams' keys -> how they ended, for messages, oldest first: the line a
        #: stream finished on (worded "which already finished on line 9" only when a late
        #: line needs it: most never do), or how it was cut.
        self._ended: OrderedDict[Hashable, int | str] = OrderedDict()
        self._sequence = 0

    def __len__(self) -> int:
        return len(self._open)

    def feed(self, extracted: Extracted, line: int, context: object) -> tuple[bool, list[Finished]]:
        """Place one record's step (``extracted.stream``) in its stream: (whether it
        began a stream, the streams it finished or cut, oldest first). Raises
        :class:`StreamError` when it cannot be placed; nothing is changed then."""
        step = extracted.stream
        if not isinstance(step, StreamStep):
            raise TypeError("feed() takes the Extracted of a stream chunk or event")
        return self.feed_step(step, line, context)

    def feed_step(
        self, step: StreamStep, line: int, context: object
    ) -> tuple[bool, list[Finished]]:
        """:meth:`feed` of the step itself."""
        stream = self._open.get(step.key)
        if stream is not None and step.role != BEGINS:
            self._check(step, stream)
            return False, self._applied(step, stream, line, [])
        if not self._begins(step):
            self._check_alone(step)
            return False, []
        self._check(step, None)
        ended: list[tuple[_Stream, str | None]] = []
        if stream is not None:
            del self._open[step.key]
            ended.append((stream, SUPERSEDED.format(line)))
        if len(self._open) >= self.max_open:
            oldest_key = next(iter(self._open))
            evicted = self._open.pop(oldest_key)
            self._remember(oldest_key, f"which was cut on line {line} ({self._evicted})")
            ended.append((evicted, self._evicted))
        self._sequence += 1
        stream = _Stream(step.format, line, context, self._sequence)
        self._open[step.key] = stream
        return True, self._applied(step, stream, line, ended)

    def context_of(self, extracted: Extracted) -> object | None:
        """The context of the open stream whose next step this record holds (None when
        it begins a stream, or continues none)."""
        step = extracted.stream
        if not isinstance(step, StreamStep) or step.role == BEGINS:
            return None
        stream = self._open.get(step.key)
        return None if stream is None else stream.context

    def close(self) -> list[Finished]:
        """The source ended: every open stream, cut, in the order they began."""
        streams = list(self._open.values())
        self._open.clear()
        self._ended.clear()
        return [stream.finished(LOG_ENDED) for stream in streams]

    @property
    def _evicted(self) -> str:
        return EVICTED.format(self.max_open)

    def _begins(self, step: StreamStep) -> bool:
        """Whether a step whose stream is not open begins one."""
        if step.role == BEGINS:
            return True
        if step.role != BEGINS_OR_CONTINUES:
            return False
        # A chunk of a stream that ended is a late one (a usage-only chunk, a content
        # filter's), not a new stream. Streams without ids follow one another.
        return step.stream_id is None or step.key not in self._ended

    def _check(self, step: StreamStep, stream: _Stream | None) -> None:
        """Raise StreamError for a fragment of a call that never started."""
        if not step.fragments:
            return
        begun: set[tuple[int, ...]] = set()
        for fragment in step.fragments:
            slot = fragment.slot
            if fragment.begins or fragment.skipped or isinstance(fragment, Whole):
                begun.add(slot)
            elif slot not in begun and (stream is None or not stream.knows(slot)):
                raise StreamError(
                    f"a delta for {fragment.label} of {step.stream_name}, which never started"
                )

    def _check_alone(self, step: StreamStep) -> None:
        """A step of no open stream that begins none: fine if it adds nothing."""
        ended = self._ended.get(step.key)
        if step.role == ACCOMPANIES or (step.role == BEGINS_OR_CONTINUES and not step.fragments):
            return
        if ended is None:
            before = f" (no {step.begins_with} before it)" if step.begins_with else ""
            raise StreamError(f"a {step.event} of {step.stream_name}, which never started{before}")
        what = f"{step.fragments[0].label} of " if step.fragments else ""
        how = ended if isinstance(ended, str) else f"which already finished on line {ended}"
        raise StreamError(f"a {step.event} for {what}{step.stream_name}, {how}")

    def _applied(
        self,
        step: StreamStep,
        stream: _Stream,
        line: int,
        ended: list[tuple[_Stream, str | None]],
    ) -> list[Finished]:
        if stream.apply(step):
            del self._open[step.key]
            self._remember(step.key, line if step.cut is None else f"which was cut on line {line}")
            ended.append((stream, step.cut))
        if len(ended) > 1:
            ended.sort(key=lambda pair: pair[0].sequence)
        return [stream.finished(cut) for stream, cut in ended]

    def _remember(self, key: Hashable, how: int | str) -> None:
        self._ended[key] = how
        self._ended.move_to_end(key)
        if len(self._ended) > self.max_open:
            self._ended.popitem(last=False)
