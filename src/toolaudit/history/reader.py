"""What every shape's reader shares: the turns read so far, the calls found, the
problems of messages of no readable shape, and the id rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolaudit.formats.base import ABSENT, id_key
from toolaudit.history.model import MALFORMED_HISTORY, HistoryCall, Item, Problem, Turn
from toolaudit.values import kind_phrase, shown


class Reader:
    """Reads one history's messages into turns; each shape's module fills it."""

    def __init__(self, path: str, *, calls: bool = True) -> None:
        self.path = path
        self.keep_calls = calls  #: False: the calls are not listed (nobody judges them)
        self.turns: list[Turn] = []
        self.calls: list[HistoryCall] = []
        #: (seq, problem): seq orders problems as the history reads.
        self.problems: list[tuple[int, Problem]] = []
        self.seq = 0

    def at(self, index: int) -> str:
        return f"{self.path}[{index}]"

    def malformed(self, path: str, detail: str) -> None:
        self.seq += 1
        self.problems.append((self.seq, Problem(MALFORMED_HISTORY, path, None, None, detail)))

    def not_an_object(self, path: str, what: str, value: object) -> None:
        self.malformed(path, f"{what} must be an object, got {kind_phrase(value)}")

    def call(
        self,
        turn: Turn,
        index: int,
        where: tuple[Any, ...],
        element: Mapping[str, Any],
        fields: tuple[str, str, str],
        encoding: str,
        *,
        id_required: bool,
        listed: bool = True,
    ) -> None:
        """A call: ``fields`` name its id, name and arguments in ``element``; ``listed``
        False leaves it out of the calls judged against the tools (a custom tool's text)."""
        id_field, name_field, arguments_field = fields
        path = self.path_of(index, where)
        call_id, name = element.get(id_field), element.get(name_field)
        arguments = element.get(arguments_field, ABSENT)
        if listed and self.keep_calls:
            self.calls.append(HistoryCall(name, arguments, call_id, path, encoding))
        key = self._key(call_id, path, "call", id_required)
        if key is None and id_required:
            return  # no result can name it: not paired (the malformed problem says why)
        self.seq += 1
        turn.calls.append(
            Item(True, index, where, path, call_id, key, name, (id_field,), seq=self.seq)
        )

    def result(
        self,
        turn: Turn,
        index: int,
        where: tuple[Any, ...],
        element: Mapping[str, Any],
        fields: tuple[str, str | None],
        failed: bool,
        *,
        id_required: bool,
        leading: bool = True,
    ) -> None:
        """A result: ``fields`` name its id and (where the shape names it) its tool."""
        id_field, name_field = fields
        path = self.path_of(index, where)
        call_id = element.get(id_field)
        key = self._key(call_id, path, "result", id_required)
        if key is None and id_required:
            return
        name = element.get(name_field) if name_field is not None else None
        named = isinstance(name, str)  # only a name the shape writes can disagree with the call
        self.seq += 1
        item = Item(False, index, where, path, call_id, key, name if named else None, (id_field,))
        item.name_at = (name_field,) if named else None
        item.failed, item.leading, item.seq = failed, leading, self.seq
        turn.results.append(item)

    def path_of(self, index: int, where: tuple[Any, ...]) -> str:
        if len(where) == 2 and type(where[1]) is int:  # a block, ("content", 2): at once
            return f"{self.path}[{index}].{where[0]}[{where[1]}]"
        tail = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in where)
        return f"{self.path}[{index}]{tail}"

    def _key(self, call_id: object, path: str, what: str, id_required: bool) -> object:
        """The id as pairing compares it; a missing id where the shape needs one, or an
        id that is no string, is a problem here."""
        if isinstance(call_id, str):
            return id_key(call_id)
        if call_id is None and not id_required:
            return None
        if call_id is None:
            self.malformed(path, f"the {what} has no id, so nothing can pair it")
        else:
            self.malformed(path, f"the {what}'s id must be a string, got {shown(call_id)}")
        return None
