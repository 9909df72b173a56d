"""What a line is when orjson would not read it as a record: no record at all (blank, a
byte order mark, server-sent-event framing), a record after all (an event's data, valid
JSON that orjson refuses), or a located reason why it cannot be audited.

Every reader parses its lines with orjson first: this runs only on the lines it refused.
"""

from __future__ import annotations

import orjson

from toolaudit.jsonutil import is_beyond_exact_reading, loads_exact
from toolaudit.lines import OversizedLine

_BOM = b"\xef\xbb\xbf"
#: Server-sent-events lines that carry no data (a ":" line is a comment).
_SSE_FRAMING = (b"event:", b"id:", b"retry:", b":")
_SSE_DONE = b"[DONE]"
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError
#: How deep orjson parses; deeper lines are refused with a reason.
ORJSON_MAX_DEPTH = 1024

#: A record found on a refused line: (the record, the text orjson parsed it from, which
#: is parsed again exactly if a call fails and may hold a long integer; None when the
#: record was parsed exactly already).
Found = tuple[object, "bytes | None"]


def triage(line: bytes, error: ValueError) -> Found | str | None:
    """A line orjson refused with ``error``: None when it holds no record (it counts as
    blank), the record it holds, or why it cannot be audited (``malformed:json``)."""
    if type(line) is bytes and (not line.strip() or line == _BOM):
        return None
    if line.startswith(b"data:"):  # a server-sent event's data
        line = line[5:].strip()
        if line == _SSE_DONE:
            return None
        try:
            return _loads(line), line
        except _JSONDecodeError as data_error:
            error = data_error  # its column counts from after "data:"
    elif line.startswith(_SSE_FRAMING):
        return None  # framing between events, no record
    return _parse_refused(line, error)


def _parse_refused(line: bytes, error: ValueError) -> Found | str:
    """A line orjson refused that is not blank: the record when it is valid JSON after
    all, else why it cannot be audited."""
    if isinstance(line, OversizedLine):
        return f"line is {line.length} bytes, over the --max-line-bytes limit"
    message = getattr(error, "msg", str(error))
    if "depth limit" in message:
        return f"nested deeper than the parser's limit of {ORJSON_MAX_DEPTH} levels; not audited"
    try:
        # Valid JSON that orjson refuses: 1e400, a lone surrogate escape, a
        # UTF-8 byte order mark (an editor's, or from concatenated files).
        return loads_exact(line), None
    except UnicodeDecodeError as undecodable:
        byte = undecodable.object[undecodable.start]
        return f"not valid UTF-8: byte 0x{byte:02x} at byte {undecodable.start + 1}"
    except ValueError as refused:
        if is_beyond_exact_reading(refused):  # valid JSON, a number past what is read exactly
            return f"not audited: {refused}"
    except RecursionError:
        pass
    nul = line.find(0)
    if nul >= 0:
        return (
            f"not valid JSON: a NUL byte at byte {nul + 1} "
            "(UTF-16 or UTF-32 text? logs are read as UTF-8)"
        )
    return f"not valid JSON: {message} (column {getattr(error, 'colno', '?')})"
