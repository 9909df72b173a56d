"""``PairHistories`` (history/_speedups_pairs.c), the C speedups' conversation check of a
pair's request, against ``PythonHistories``, its pure-Python twin: on requests of each of
the five shapes their SDKs write, with every fault, failures, odd shapes, text orjson
refuses or may read otherwise, tools changing from one line to the next, worded or not,
the audit's tables given or not, each answer is the twin's (the same value, of the same
type), the tables are counted alike, and the commonest requests are answered in C with
no call to the twin."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolaudit.formats.typed import _Request
from toolaudit.history import fast_loop
from toolaudit.pipeline import typed_histories
from toolaudit.pipeline.typed_histories import UNREAD, PythonHistories, TypedHistories
from toolaudit.results.conversations import Conversations

from ..history.shapes import ANTHROPIC, BEDROCK, CHAT, GEMINI, RESPONSES, Shape, build
from ..history.test_pairing import ASK, FAULTS, W
from .test_typed_histories import FIELDS, ODD_REQUESTS, REQUEST_TOOLS, VALUES, request_of

pytestmark = pytest.mark.skipif(fast_loop.SPEEDUPS is None, reason="the C speedups were not built")

DECODER = msgspec.json.Decoder(_Request)
SHAPES = (CHAT, RESPONSES, ANTHROPIC, BEDROCK, GEMINI)
#: More faults than FAULTS: results that report a failure, retried or not.
STEPS: dict[str, list[Any]] = {
    **{fault: steps for fault, (steps, *_) in FAULTS.items()},
    "failed": [ASK, ("calls", [("c1", W)]), ("results", [("c1", W, True)])],
    "retried": [
        ASK,
        ("calls", [("c1", W)]),
        ("results", [("c1", W, True)]),
        ("calls", [("c2", W)]),
        ("results", [("c2", W, False)]),
    ],
    "two tools": [
        ASK,
        ("calls", [("c1", W), ("c2", "other")]),
        ("results", [("c1", W, False), ("c2", "other", False)]),
    ],
    "unanswered of two tools": [ASK, ("calls", [("c1", W), ("c2", "other")])],
    "no calls": [ASK, ("user", "thanks")],
}
MODELS = ["m", None, "other"]
#: The ways the typed reader asks: (worded, whether the tables are given).
WAYS = [(True, False), (False, False), (True, True), (False, True)]


class Handed:
    """What the C check handed its twin: how many whole checks, how many parsed
    histories (the twin's own calls, made to compare, are not counted)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.checks = self.parsed = 0
        self.twins: list[PythonHistories] = []
        check, parsed = PythonHistories.check, PythonHistories.parsed

        def counted_check(twin: PythonHistories, *args: Any, **kwargs: Any) -> Any:
            if any(twin is mine for mine in self.twins):
                self.checks += 1
            return check(twin, *args, **kwargs)

        def counted_parsed(twin: PythonHistories, *args: Any) -> Any:
            if any(twin is mine for mine in self.twins):
                self.parsed += 1
            return parsed(twin, *args)

        monkeypatch.setattr(PythonHistories, "check", counted_check)
        monkeypatch.setattr(PythonHistories, "parsed", counted_parsed)

    def histories(self) -> TypedHistories:
        histories = TypedHistories()
        self.twins.append(histories.twin)
        return histories

    @property
    def total(self) -> int:
        return self.checks + self.parsed


@pytest.fixture
def handed(monkeypatch: pytest.MonkeyPatch) -> Iterator[Handed]:
    yield Handed(monkeypatch)


def tables_with(models: list[Any]) -> Conversations:
    """Tables where the readers can count a history of get_weather for each of ``models``
    (every entry there already: see know_tables)."""
    tables = Conversations()
    for model in models:
        tables.count_all_answered(model, {W: 1, "other": 1})
    return tables


def same(found: Any, expected: Any) -> None:
    if expected is UNREAD or found is UNREAD:
        assert found is expected
    else:
        assert type(found) is type(expected)
        assert found == expected


def assert_twins(
    texts: list[bytes], worded: bool, with_tables: bool, handed: Handed | None = None
) -> list[Any]:
    """Each request text checked by one C check and one twin, in order (each keeping the
    tools of the line before), alike; the answers."""
    histories = handed.histories() if handed is not None else TypedHistories()
    assert type(histories.check).__name__ == "builtin_function_or_method"
    twin = PythonHistories()
    tables = tables_with(MODELS) if with_tables else None
    twin_tables = tables_with(MODELS) if with_tables else None
    answers = []
    for number, text in enumerate(texts):
        try:
            request = DECODER.decode(text)
        except msgspec.ValidationError:
            continue  # (the typed path leaves such a pair to the general one)
        line = b'{"request": ' + text + b', "response": {}}'
        model = MODELS[number % len(MODELS)]
        if tables is None:
            found = histories.check(request, line, worded)
            expected = twin.check(request, line, worded)
        else:
            found = histories.check(request, line, worded, tables, model)
            expected = twin.check(request, line, worded, twin_tables, model)
        same(found, expected)
        if tables is not None:
            assert twin_tables is not None
            assert tables.to_dicts() == twin_tables.to_dicts()
        answers.append(found)
    return answers


def texts_of(requests: list[dict[str, Any]]) -> list[bytes]:
    return [orjson.dumps(request) for request in requests]


@pytest.mark.parametrize("way", WAYS, ids=str)
@pytest.mark.parametrize("fault", sorted(STEPS))
@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_every_fault_in_every_shape_is_answered_as_the_twin_answers(
    shape: Shape, fault: str, way: tuple[bool, bool], handed: Handed
) -> None:
    worded, with_tables = way
    requests = [request_of(shape, STEPS[fault]) for _ in range(3)]
    answers = assert_twins(texts_of(requests), worded, with_tables, handed)
    assert len(answers) == 3
    if fault in ("clean", "two tools", "unanswered", "unanswered of two tools", "no calls"):
        # The commonest histories: answered in C, the twin never asked.
        assert handed.total == 0
    if with_tables and fault in ("clean", "two tools", "no calls"):
        assert answers == [True, True, True]


def test_a_plain_history_is_counted_in_c(handed: Handed) -> None:
    text = orjson.dumps(request_of(CHAT, STEPS["clean"]))
    histories = handed.histories()
    request, line = DECODER.decode(text), b'{"request": ' + text + b"}"
    assert histories.check(request, line) == {W: 2}
    tables = tables_with(["m"])
    assert histories.check(request, line, True, tables, "m") is True
    assert tables.all.checked == 2
    assert histories.check(request, line, False, tables, "new") == {W: 2}
    assert handed.total == 0


def test_unanswered_calls_are_worded_or_not_as_the_twin_finishes_them(handed: Handed) -> None:
    for shape in SHAPES:
        text = orjson.dumps(request_of(shape, STEPS["unanswered of two tools"]))
        request, line = DECODER.decode(text), b'{"request": ' + text + b"}"
        worded = handed.histories().check(request, line, True)
        unworded = handed.histories().check(request, line, False)
        assert type(worded).__name__ == "Checked"
        assert worded.problems and worded.problems[0].path.startswith("request.")
        assert isinstance(unworded, tuple) and len(unworded[0]) == 2
        same(worded, PythonHistories().check(request, line, True))
        same(unworded, PythonHistories().check(request, line, False))
    assert handed.total == 0


#: Each shape's request, its tools of another shape or none, or odd.
TOOLS_BY_LINE = [
    REQUEST_TOOLS["openai-chat"]["tools"],
    REQUEST_TOOLS["anthropic"]["tools"],
    REQUEST_TOOLS["openai-chat"]["tools"],
    REQUEST_TOOLS["bedrock"]["toolConfig"]["tools"],
    REQUEST_TOOLS["openai-responses"]["tools"],
    REQUEST_TOOLS["gemini"]["tools"],
    [],
    "not a list",
    [1],
    None,
    {"function": {}},
    [{"function": {}}],
    [{"input_schema": {}}],
    [{"toolSpec": {}}],
]


@pytest.mark.parametrize("way", WAYS, ids=str)
@pytest.mark.parametrize("shape", (CHAT, ANTHROPIC, BEDROCK), ids=lambda shape: shape.name)
def test_tools_changing_from_line_to_line_tell_each_request_as_the_twin(
    shape: Shape, way: tuple[bool, bool]
) -> None:
    for fault in ("clean", "unanswered", "orphan", "misplaced"):
        messages = build(shape, STEPS[fault])
        requests = [{"messages": messages, "tools": tools} for tools in TOOLS_BY_LINE]
        # Each after each, and again after itself.
        for first in requests:
            assert_twins(texts_of([first, *requests, *reversed(requests)]), *way)


def test_the_same_tools_written_otherwise_are_read_again() -> None:
    messages = build(ANTHROPIC, STEPS["misplaced"])
    chat, anthropic = REQUEST_TOOLS["openai-chat"]["tools"], REQUEST_TOOLS["anthropic"]["tools"]
    texts = [
        orjson.dumps({"messages": messages, "tools": chat}),
        # The same length, another shape: a byte compared, not the length alone.
        orjson.dumps({"messages": messages, "tools": [{"function": 1}]}),
        orjson.dumps({"messages": messages, "tools": [{"functioN": 1}]}),
        orjson.dumps({"messages": messages, "tools": anthropic}),
        orjson.dumps({"messages": messages, "tools": anthropic}).replace(b"[{", b"[ {"),
        orjson.dumps({"messages": messages, "tools": chat}),
    ]
    answers = assert_twins(texts, True, False)
    assert type(answers[0]) is not type(answers[3])  # told Chat, then Anthropic


HOSTILE = [
    # Tools orjson refuses and msgspec reads (a number past a double's range, a surrogate
    # written in UTF-8): the line is UNREAD.
    b'{"messages": %s, "tools": [{"function": {"name": 1e999}}]}',
    b'{"messages": %s, "tools": [{"input_schema": {}}, "\xed\xa0\x80"]}',
    # Numbers orjson may read otherwise, in the history and beside it.
    b'{"messages": %s, "tools": %s, "n": 18446744073709551617}',
    b'{"messages": %s, "tools": %s, "n": 1e400}',
    b'{"messages": %s, "tools": %s, "n": -1e-400}',
    # Not a list, a key twice, whitespace.
    b'{"messages": {"role": "user"}, "tools": %s, "x": %s}',
    b'{"messages": [], "messages": %s, "tools": %s}',
    b'{"messages" : %s ,\n "tools" :\t%s }',
    b'{"tools": %s, "messages": %s}',
]


@pytest.mark.parametrize("way", WAYS, ids=str)
@pytest.mark.parametrize("template", HOSTILE)
@pytest.mark.parametrize("fault", ["clean", "unanswered", "failed"])
def test_hostile_requests_are_answered_as_the_twin_answers(
    template: bytes, fault: str, way: tuple[bool, bool]
) -> None:
    messages = orjson.dumps(build(CHAT, STEPS[fault]))
    tools = orjson.dumps(REQUEST_TOOLS["openai-chat"]["tools"])
    hostile = template % ((messages, tools) if template.count(b"%s") == 2 else (messages,))
    good = orjson.dumps({"messages": orjson.loads(messages), "tools": orjson.loads(tools)})
    assert_twins([good, hostile, good, hostile, hostile], *way)


@pytest.mark.parametrize("number", [b"18446744073709551617", b"1e400", b"-1e-400", b"1.5"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda shape: shape.name)
def test_a_number_in_a_history_is_answered_as_the_twin_answers(shape: Shape, number: bytes):
    history = orjson.dumps(request_of(shape, STEPS["clean"]))
    # In a call's id (the reader is not sure: the twin parses), and beside the history.
    for text in (
        history.replace(b'"c1"', number, 1),
        history.replace(b'"c1"', number),
        history.replace(b'"model":"m"', b'"model":"m","n":' + number),
    ):
        for way in WAYS:
            assert_twins([history, text, history], *way)


@pytest.mark.parametrize("way", WAYS, ids=str)
def test_requests_that_tell_their_api_every_way_are_answered_as_the_twin(way: tuple[bool, bool]):
    texts = texts_of(ODD_REQUESTS)
    assert_twins(texts, *way)
    assert_twins(list(reversed(texts)), *way)


CHAT_TOOLS = REQUEST_TOOLS["openai-chat"]["tools"]
ANTHROPIC_TOOLS = REQUEST_TOOLS["anthropic"]["tools"]
#: Requests holding more than one API's fields, which tell one first (request_shape):
#: Gemini's contents before messages and tools, messages and tools before Responses'
#: input, tools before Bedrock's toolConfig or modelId.
FIRST_TOLD: list[dict[str, Any]] = [
    {"contents": build(GEMINI, STEPS[fault]), "messages": build(CHAT, STEPS[fault]), "tools": tools}
    for fault in ("clean", "unanswered")
    for tools in (CHAT_TOOLS, ANTHROPIC_TOOLS)
] + [
    {"input": build(RESPONSES, STEPS["clean"]), "messages": build(CHAT, STEPS["unanswered"])},
    {"input": build(RESPONSES, STEPS["unanswered"]), "messages": [], "tools": CHAT_TOOLS},
    {"messages": build(ANTHROPIC, STEPS["misplaced"]), "toolConfig": {}, "tools": CHAT_TOOLS},
    {"messages": build(BEDROCK, STEPS["unanswered"]), "modelId": "m", "tools": ANTHROPIC_TOOLS},
    {"messages": build(BEDROCK, STEPS["misplaced"]), "modelId": None},
    {"messages": build(BEDROCK, STEPS["misplaced"]), "toolConfig": None, "modelId": "m"},
]


@pytest.mark.parametrize("way", WAYS, ids=str)
def test_an_api_told_first_is_the_one_read_as_by_the_twin(way: tuple[bool, bool], handed: Handed):
    answers = assert_twins(texts_of(FIRST_TOLD), *way, handed)
    assert len(answers) == len(FIRST_TOLD)
    # Each told in C but the one of messages and input alone, whose messages tell (its
    # misplaced results are parsed, as the twin parses them).
    assert (handed.checks, handed.parsed) == (1, 3)


def test_tools_orjson_refuses_are_unread_in_c(handed: Handed) -> None:
    messages = orjson.dumps(build(CHAT, STEPS["clean"]))
    for tools in (b'[{"function": 1e999}]', b'[{"function": "\xed\xa0\x80"}]'):
        text = b'{"messages": %s, "tools": %s}' % (messages, tools)
        request, line = DECODER.decode(text), b'{"request": ' + text + b"}"
        assert handed.histories().check(request, line) is UNREAD
        assert PythonHistories().check(request, line) is UNREAD
    assert handed.total == 0


def test_keywords_are_the_twins(handed: Handed) -> None:
    text = orjson.dumps(request_of(GEMINI, STEPS["clean"]))
    request, line = DECODER.decode(text), b'{"request": ' + text + b"}"
    histories = handed.histories()
    assert histories.check(request, line, worded=False) == {W: 2}
    assert handed.checks == 1


def test_a_request_of_another_class_is_read_by_name(handed: Handed) -> None:
    class Request:
        def __init__(self, **fields: Any) -> None:
            for name in _Request.__struct_fields__:
                setattr(self, name, fields.get(name, msgspec.UNSET))

    text = orjson.dumps(build(CHAT, STEPS["clean"]))
    tools = msgspec.Raw(orjson.dumps(REQUEST_TOOLS["openai-chat"]["tools"]))
    histories = handed.histories()
    request = Request(messages=msgspec.Raw(text), tools=tools)
    assert histories.check(request, text) == {W: 2}
    gemini = DECODER.decode(orjson.dumps({"contents": 1}))
    same(histories.check(gemini, text), PythonHistories().check(gemini, text))
    assert histories.check(request, text) == {W: 2}
    assert handed.total == 1  # (the Gemini contents that are not a list: parsed)


def test_without_the_c_speedups_the_twin_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_loop, "SPEEDUPS", None)
    histories = typed_histories.TypedHistories()
    assert histories.check == histories.twin.check


REQUESTS = st.lists(
    st.one_of(
        st.dictionaries(st.sampled_from(FIELDS), VALUES, max_size=5),
        st.builds(
            request_of,
            st.sampled_from(SHAPES),
            st.sampled_from([steps for steps in STEPS.values()]),
        ),
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests=REQUESTS, way=st.sampled_from(WAYS))
def test_any_requests_in_any_order_are_answered_as_the_twin_answers(
    requests: list[dict[str, Any]], way: tuple[bool, bool]
) -> None:
    assert_twins(texts_of(requests), *way)
