"""What a stream format reads one chunk or event into (:class:`StreamStep`: which
stream, what it adds to which call, what it ends), and what the stream formats share
in reading a line: the wrapper that names a line's stream, indices, fragments as text,
a provider's error event."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, TypeGuard

from toolaudit.formats.base import UnknownShape, as_dict
from toolaudit.jsonutil import dumps_any
from toolaudit.values import text_of

#: How a step relates to its stream (``StreamStep.role``).
BEGINS = "begins"  # message_start and the like: a new stream (an open one of its key is cut)
CONTINUES = "continues"  # needs its stream open (else StreamError)
BEGINS_OR_CONTINUES = "begins-or-continues"  # continues its open stream, else begins one
ACCOMPANIES = "accompanies"  # carries nothing to assemble (ping, usage): its open stream's, if any

#: A line may wrap one event with the stream it belongs to, ``{"stream_id": "s1",
#: "event": {...}}`` (or ``request_id``; ``model`` too), so that streams whose
#: events carry no id of their own may interleave.
WRAPPED_EVENT = "event"
WRAPPER_IDS = ("stream_id", "request_id")


def unwrap(record: Mapping[str, Any]) -> tuple[Mapping[str, Any], Hashable | None, object]:
    """(the event, the wrapper's stream id or None, the wrapper's model) of a line."""
    event = record.get(WRAPPED_EVENT)
    if event is None or not isinstance(event, Mapping):  # (None first: most lines)
        return record, None, None
    stream_id = next((record[f] for f in WRAPPER_IDS if record.get(f) is not None), None)
    if stream_id is not None and not is_index(stream_id) and not isinstance(stream_id, str):
        raise UnknownShape(
            "a wrapped stream event's stream_id or request_id must be a string or an integer"
        )
    return event, stream_id, record.get("model")


def wrapped(record: Mapping[str, Any]) -> Mapping[str, Any]:
    """The event a line wraps ({} if none), for the formats' recognisers."""
    return as_dict(record.get(WRAPPED_EVENT))


def alone_or_wrapped(
    is_event: Callable[[Mapping[str, Any]], bool],
) -> Callable[[Mapping[str, Any]], bool]:
    """A stream format's recogniser: a line that is one of its events, or wraps one."""

    def recognises(record: Mapping[str, Any]) -> bool:
        return is_event(record) or is_event(wrapped(record))

    return recognises


#: Past this, an index is no position in a stream (a hostile or broken value): the
#: largest integer JSON parsers commonly read exactly, and one every message can write.
MOST_INDEX = 2**63 - 1


def is_index(value: object) -> TypeGuard[int]:
    """A choice, call or block index: an integer (not a boolean), not negative, and
    no larger than :data:`MOST_INDEX`."""
    return type(value) is int and 0 <= value <= MOST_INDEX


def as_text(value: object) -> str | None:
    """An arguments fragment as text: a server that sends an object is written out."""
    if value is None or isinstance(value, str):
        return value
    return dumps_any(value).decode()


def reported(what: str, error: Mapping[str, Any], *fields: str) -> str:
    """A provider's error event as the reason its stream was cut: "Anthropic
    reported an error: overloaded_error: Overloaded"."""
    said = [text_of(error[field]) for field in fields if error.get(field) is not None]
    return ": ".join([what, *said])


class Fragment:
    """What one event adds to one call of its stream."""

    __slots__ = ("arguments", "begins", "id", "label", "name", "placeholder", "skipped", "slot")

    def __init__(
        self,
        slot: tuple[int, ...],
        label: str,
        *,
        begins: bool = False,
        skipped: bool = False,
        id: object = None,  # shadows the builtin: the call's field name
        name: object = None,
        arguments: str | None = None,
        placeholder: str | None = None,
    ) -> None:
        #: Where the call sits in the assembled message, its first item the choice
        #: (0 where a stream has one): calls are numbered in slot order.
        self.slot = slot
        #: How messages name the slot: "tool call index 1".
        self.label = label
        #: The call starts here; at a slot holding a call of another id, a new call.
        self.begins = begins
        #: The slot holds no call to audit (text, a provider's own tool): its
        #: deltas are ignored.
        self.skipped = skipped
        self.id = id
        self.name = name
        #: Appended to the call's arguments (a :class:`Whole`'s replaces them).
        self.arguments = arguments
        #: The arguments if no fragment brings any text (Anthropic's start input).
        self.placeholder = placeholder


class Whole(Fragment):
    """A whole call, repeated at the end (OpenAI Responses' ``.done`` events): it
    replaces what was assembled at its slot, or begins the call there."""

    __slots__ = ()


class StreamStep:
    """One chunk or event of a stream: which stream, and what it adds or ends."""

    __slots__ = (
        "begins_with",
        "cut",
        "ended_groups",
        "ends",
        "event",
        "failure",
        "format",
        "fragments",
        "groups",
        "key",
        "label",
        "model",
        "notes",
        "role",
        "stream_id",
    )

    def __init__(
        self,
        format: str,  # shadows the builtin: Extracted's field name
        stream_id: Hashable | None,
        role: str,
        event: str,
        *,
        label: str,
        begins_with: str | None = None,
        model: object = None,
        fragments: tuple[Fragment, ...] = (),
        groups: tuple[int, ...] = (),
        ended_groups: tuple[int, ...] = (),
        ends: bool = False,
        notes: tuple[tuple[int, str], ...] = (),
        failure: str | None = None,
        cut: str | None = None,
    ) -> None:
        self.format = format
        #: None: the stream's events carry no id, so they are consecutive in the log.
        self.stream_id = stream_id
        self.key: Hashable = (format, stream_id)
        self.role = role
        #: For messages: the event's type, the provider ("Anthropic") and the
        #: event a stream begins with ("message_start").
        self.event = event
        self.label = label
        self.begins_with = begins_with
        self.model = model if isinstance(model, str) else None
        self.fragments = fragments
        #: The choices this chunk speaks for, and those it finishes: a stream with
        #: choices ends when every choice seen has finished (OpenAI Chat).
        self.groups = groups
        self.ended_groups = ended_groups
        #: The stream ends here (message_stop, response.completed, messageStop).
        self.ends = ends
        #: (choice, note) for the calls of a choice: a length limit hit.
        self.notes = notes
        #: The provider says the calls are broken (Bedrock's malformed_tool_use).
        self.failure = failure
        #: The provider reported an error: the stream ends here, cut for this reason.
        self.cut = cut

    @property
    def stream_name(self) -> str:
        if self.stream_id is None:
            return f"{'an' if self.label[0] in 'AEIOU' else 'a'} {self.label} stream"
        return f"stream {self.stream_id!r}"
