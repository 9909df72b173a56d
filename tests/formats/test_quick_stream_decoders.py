"""The quick stream decoders change nothing: a line the quick record decodes, the full
record decodes to the same values, lane and step (and a line the full record refuses,
the quick one refuses too); and audits with the quick decoders and without them give the
same rows and summaries, byte for byte, on every stream case and on generated logs of
interleaved streams with mutated and odd lines, with the C speedups and without.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolaudit.formats import typed_stream_shape
from toolaudit.formats.registry import REGISTRY
from toolaudit.formats.typed import DECODE_FAILURES
from toolaudit.formats.typed_stream_shape import Extra, QuickDecoding, TypedStreamShape
from toolaudit.formats.typed_streams import typed_stream_shapes
from toolaudit.pipeline import typed_stream_reader
from toolaudit.pipeline.audit import Audit, AuditOptions
from toolaudit.schemas import SchemaSet, load_schemas
from toolaudit.sources import Source

from ..conftest import REPO, WEATHER_SCHEMAS
from ..pipeline.test_typed_streams import SLOW_AND_SCOPED, chat_chunk, event, speedups, stream_logs

__all__ = ["speedups"]  # (the fixture: every audit here with the C speedups and without)

CASES = REPO / "tests" / "cases" / "formats"
SHAPES = typed_stream_shapes()
#: The stream cases the typed shapes read.
STREAM_CASES = [CASES / name for name in sorted(SHAPES)]


def case_lines() -> Iterator[bytes]:
    for folder in STREAM_CASES:
        yield from (folder / "input.jsonl").read_bytes().splitlines()


def mutations(line: bytes) -> Iterator[bytes]:
    """The line, each byte of it dropped, doubled or replaced, and each of its values
    (as orjson reads it) of another type, absent, or beside another key."""
    yield line
    for at in range(len(line)):
        yield line[:at] + line[at + 1 :]
        yield line[:at] + line[at : at + 1] * 2 + line[at + 1 :]
        for byte in (b"0", b'"', b"}", b"x"):
            yield line[:at] + byte + line[at + 1 :]
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return
    for path, _ in values(record):
        for other in (None, 1, -1, True, "x", [], {}, 1.5):
            yield orjson.dumps(replaced(record, path, other))
        yield orjson.dumps(replaced(record, path, _ABSENT))
    if isinstance(record, dict):
        for key in ("usage", "created", "obfuscation", "x_other", *sorted(REGISTRY.gate_keys)):
            yield orjson.dumps({**record, key: {"total_tokens": 1}})


_ABSENT = object()


def values(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every value within ``value`` (not itself), with its path."""
    if isinstance(value, dict | list):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            yield (*path, key), item
            yield from values(item, (*path, key))


def replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the value at ``path`` replaced by ``new`` (or removed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        inner = replaced(value[head], rest, new)
        if inner is _ABSENT:
            del copy[head]
        else:
            copy[head] = inner
        return copy
    inner = replaced(value[head], rest, new)
    return (
        [item for i, item in enumerate(value) if i != head]
        if inner is _ABSENT
        else [inner if i == head else item for i, item in enumerate(value)]
    )


def decoded(decode: Any, line: bytes) -> Any:
    try:
        return decode(line)
    except DECODE_FAILURES:
        return None


def read_fields(record: Any) -> dict[str, Any]:
    """The fields of a record that the shape reads (not its extras, nor gate keys)."""
    return {
        field.name: getattr(record, field.name)
        for field in msgspec.structs.fields(record)
        if field.type is not Extra and field.type is not msgspec.UnsetType
    }


def slots(value: Any) -> Any:
    """A step (or a fragment, or anything else) as plain values, to compare."""
    if isinstance(value, tuple | list):
        return [slots(item) for item in value]
    names = [name for kind in type(value).__mro__ for name in getattr(kind, "__slots__", ())]
    if not names or isinstance(value, str | int | float | type(None)):
        return value
    return {name: slots(getattr(value, name)) for name in names}


def assert_same_record(shape: TypedStreamShape, line: bytes) -> bool:
    """Whether the quick record decodes ``line``; that the full one reads it the same."""
    assert shape.quick is not None
    quick = decoded(shape.quick.decode, line)
    full = decoded(shape.decoder.decode, line)
    if quick is None:
        return False
    assert full is not None, line
    assert read_fields(quick) == read_fields(full), line
    assert shape.lane(quick) == shape.lane(full), line
    assert slots(shape.step(quick)) == slots(shape.step(full)), line
    return True


@pytest.mark.slow  # generated records of every shape decoded both ways: a long run
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_what_the_quick_record_decodes_the_full_one_reads_the_same(name: str) -> None:
    shape = SHAPES[name]
    lines = list(case_lines())
    taken = sum(assert_same_record(shape, mutated) for line in lines for mutated in mutations(line))
    assert taken > len(lines)  # (it decodes the lines of its format, and some mutated)


@pytest.mark.parametrize(
    "line",
    [
        chat_chunk("s", [], usage={"total_tokens": 9}, created=1, system_fingerprint="fp"),
        chat_chunk("s", [{"index": 0, "delta": {"content": "Hi"}}], service_tier="default"),
        event("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 3}),
        event("ping"),
    ],
)
def test_the_keys_lines_commonly_hold_beside_decode_quickly(line: bytes) -> None:
    assert any(assert_same_record(shape, line) for shape in SHAPES.values())


@pytest.mark.parametrize(
    "line",
    [
        chat_chunk("s", [], response={"id": "r"}),  # a gate key: another format's record
        chat_chunk("s", [], x_other=1),  # a key it does not know
        event("message_stop", message={"model": "c"}, input={}),
        event("ping", usage=1, name="x"),
    ],
)
def test_a_line_of_another_key_is_the_full_records(line: bytes) -> None:
    for shape in SHAPES.values():
        assert shape.quick is not None
        assert decoded(shape.quick.decode, line) is None


def test_an_extra_the_registry_gates_on_is_left_out() -> None:
    fields = [("type", str), ("usage", Extra, msgspec.UNSET), ("response", Extra, msgspec.UNSET)]
    quick = typed_stream_shape.quick_decoder("Event", fields, REGISTRY)
    assert quick.decode(b'{"type": "x", "usage": [1]}').type == "x"
    with pytest.raises(msgspec.ValidationError):
        quick.decode(b'{"type": "x", "response": {}}')  # "response" is a gate key


def test_a_reader_stops_trying_the_quick_record_after_its_misses(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(typed_stream_shape, "MOST_QUICK_MISSES", 3)
    shape = SHAPES["openai-chat-stream"]
    decoding = QuickDecoding(shape)
    usual = chat_chunk("s", [])
    odd = chat_chunk("s", [], x_other=1)
    assert decoding.decode(usual).id == "s" and decoding.first is not decoding.full
    for _ in range(3):
        assert decoding.decode(odd).id == "s"
    assert decoding.first is decoding.full
    assert read_fields(decoding.decode(usual)) == read_fields(shape.decoder.decode(usual))


# -- whole audits, with the quick decoders and without ---------------------------------


class _FullOnly(QuickDecoding):
    """A reader's decoding without the quick record."""

    def __init__(self, shape: TypedStreamShape) -> None:
        super().__init__(shape)
        self.first = self.full


class _Counted(QuickDecoding):
    """A reader's decoding that counts the lines the quick record decoded."""

    quick_lines = 0

    def __init__(self, shape: TypedStreamShape) -> None:
        super().__init__(shape)
        quick = self.first

        def counted(line: bytes) -> Any:
            record = quick(line)
            _Counted.quick_lines += 1
            return record

        self.first = counted


def audited(data: bytes, schemas: SchemaSet, *, quick: bool, **options: Any) -> tuple[Any, ...]:
    """(the report, the summary) of an audit of ``data``, with the quick decoders or not."""
    run = Audit([Source("-")], schemas, AuditOptions(**options), stdin=io.BytesIO(data))
    report = io.BytesIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typed_stream_reader, "QuickDecoding", _Counted if quick else _FullOnly)
        summary = run.run(report)
    return report.getvalue().decode().splitlines(), summary.to_dict()


def assert_same_either_way(data: bytes, schemas: SchemaSet, **options: Any) -> None:
    assert audited(data, schemas, quick=True, **options) == audited(
        data, schemas, quick=False, **options
    )


@pytest.mark.parametrize("folder", STREAM_CASES, ids=[path.name for path in STREAM_CASES])
def test_every_stream_case_gives_the_same_report_and_summary(folder: Path) -> None:
    schemas = load_schemas(str(folder / "schemas.json"))
    data = (folder / "input.jsonl").read_bytes()
    assert_same_either_way(data, schemas)
    assert_same_either_way(data, schemas, max_open_streams=1)


def test_mutated_case_lines_give_the_same_report_and_summary() -> None:
    # Each case's lines, with every mutation of each beside it (interleaved, most odd).
    before = _Counted.quick_lines
    for folder in STREAM_CASES:
        schemas = load_schemas(str(folder / "schemas.json"))
        original = (folder / "input.jsonl").read_bytes().splitlines()
        mutated = [variant for line in original for variant in list(mutations(line))[::7]]
        assert_same_either_way(b"\n".join(mutated) + b"\n", schemas)
    assert _Counted.quick_lines > before  # (else this compared the full path with itself)


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=SLOW_AND_SCOPED)
@given(stream_logs(), st.sampled_from([1, 3, 10_000]))
def test_generated_streams_give_the_same_rows_and_summary(data: bytes, most_open: int) -> None:
    assert_same_either_way(data, WEATHER_SCHEMAS, max_open_streams=most_open)


@settings(max_examples=40, deadline=None, suppress_health_check=SLOW_AND_SCOPED)
@given(stream_logs(), st.data())
def test_generated_streams_with_mutated_lines_give_the_same_rows(data: bytes, draw: Any) -> None:
    lines = data.splitlines()
    at = draw.draw(st.integers(0, len(lines) - 1))
    variants = list(mutations(lines[at]))
    lines[at] = draw.draw(st.sampled_from(variants))
    assert_same_either_way(b"\n".join(lines) + b"\n", WEATHER_SCHEMAS, max_open_streams=3)
