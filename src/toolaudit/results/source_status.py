"""What happened to each input of an audit (:class:`SourceStatus`): how far it was read
and why it stopped, and how the statuses of an input's byte ranges join into one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["SourceStatus", "joined_statuses"]


@dataclass(slots=True)
class SourceStatus:
    """What happened to one input: how far it was read, and why it stopped."""

    path: str
    lines: int = 0
    complete: bool = True
    error: str | None = None

    def continued(self, later: SourceStatus) -> SourceStatus:
        """The status of this input with a later byte range of it read too."""
        return SourceStatus(
            self.path,
            self.lines + later.lines,
            self.complete and later.complete,
            self.error or later.error,
        )

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"path": self.path, "lines": self.lines, "complete": self.complete}
        if self.error is not None:
            entry["error"] = self.error
        return entry

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SourceStatus:
        return cls(
            path=data["path"],
            lines=int(data["lines"]),
            complete=bool(data["complete"]),
            error=data.get("error"),
        )


def joined_statuses(
    entries: Iterable[tuple[int, SourceStatus]],
) -> list[tuple[int, SourceStatus]]:
    """(input's number, status) pairs in input order, the consecutive statuses of one
    input (its byte ranges, read apart) joined into one: one status per input, as one
    process gives. (Joining by path would make one of an input given twice.)"""
    joined: list[tuple[int, SourceStatus]] = []
    for number, status in entries:
        if joined and joined[-1][0] == number:
            status = joined.pop()[1].continued(status)
        joined.append((number, status))
    return joined
