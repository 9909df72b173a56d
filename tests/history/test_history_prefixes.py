"""The readers of a history's JSON text given a ``history_prefixes()`` cache: a log of
sessions (every turn's request carrying the whole history again, a turn longer, sessions
interleaved) is read on from each session's last history where a text starts with its very
bytes, and every answer is the answer read whole, whatever was kept before: histories one
byte away from a kept one anywhere in it, twin sessions that part after their first
messages, more sessions than are kept, budgets, and buffers that may change."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import msgspec
import orjson
import pytest

from toolaudit.history import fast
from toolaudit.history.model import NO_NAME

from .shapes import BY_NAME, Step, build
from .test_fast import without_ids

speedups = pytest.importorskip(
    "toolaudit.history._speedups", reason="the C speedups were not built (no C compiler)"
)

READERS: dict[str, Callable[..., Any]] = {
    "openai-chat": speedups.chat_json,
    "openai-responses": speedups.responses_json,
    "anthropic": speedups.anthropic_json,
    "bedrock": speedups.bedrock_json,
    "gemini": speedups.gemini_json,
    "otel": speedups.otel_json,
}
SHAPES = sorted(READERS)
TOOLS = ("get_weather", "search", "book", None)  # None: a call that names no tool


def clean(turns: int) -> list[Step]:
    """A conversation whose every call was answered: what the C readers are sure of."""
    steps: list[Step] = [("user", "You are helpful."), ("user", "What should I pack?")]
    for turn in range(turns):
        steps.append(("calls", [(f"c{turn}", "get_weather"), (f"d{turn}", "search")]))
        steps.append(
            ("results", [(f"c{turn}", "get_weather", False), (f"d{turn}", "search", False)])
        )
        steps.append(("user", f"and then ({turn})?"))
    return steps


def session(
    rng: random.Random,
    turns: int,
    number: int,
    *,
    calls: int = 3,
    tools: tuple[Any, ...] = TOOLS,
    faulty: bool = True,
) -> list[Step]:
    """A conversation's steps: turns of up to ``calls`` parallel calls (call ids of its
    own), their results (now and then one failed, missing, out of order or an orphan: each
    makes the C readers not sure of every later history of the session, whose later turns
    then test that a prefix they were not sure of is never kept), user turns between some."""
    steps: list[Step] = [("user", "You are helpful."), ("user", "What should I pack?")]
    for turn in range(turns):
        ids = [f"s{number}_{turn}_{k}" for k in range(rng.randint(1, calls))]
        named = [(call_id, rng.choice(tools)) for call_id in ids]
        steps.append(("calls", named))
        results = [(i, n, False) for i, n in named]
        if faulty:
            results = [(i, n, rng.random() < 0.02) for i, n, _ in results if rng.random() > 0.03]
            if rng.random() < 0.01:
                results.append(("nobody", "search", False))
            if rng.random() < 0.03:
                rng.shuffle(results)
        steps.append(("results", results))
        if rng.random() < 0.5:
            steps.append(("user", f"and then ({turn})?"))
    return steps


def edited(rng: random.Random, text: bytes) -> bytes:
    """``text`` with one byte replaced, dropped or added, anywhere in it."""
    at = rng.randrange(len(text))
    byte = bytes([rng.choice(b'{}[]",:\\ ax0nt')])
    return rng.choice(
        (
            text[:at] + byte + text[at + 1 :],
            text[:at] + text[at + 1 :],
            text[:at] + byte + text[at:],
        )
    )


def texts_of_sessions(
    rng: random.Random, shape: str, sessions: int, lines: int, **session_options: Any
) -> list[bytes]:
    """``lines`` histories as a log of ``sessions`` interleaved sessions holds them, each a
    turn or two longer than its session's last (or the same again), one in six edited by a
    byte. One session ``2k + 1`` in two is a twin of ``2k``: the same first turn (three
    messages), then its own."""
    built: list[list[Step]] = []
    if shape == "gemini":  # (a Gemini call naming no tool is left to Python)
        session_options.setdefault("tools", TOOLS[:-1])
    for number in range(sessions):
        steps = session(rng, rng.randint(2, 20), number, **session_options)
        if number % 2 and rng.random() < 0.5:
            steps[:3] = built[-1][:3]
        built.append(steps)
    cursors = [3] * sessions
    texts = []
    for _ in range(lines):
        which = rng.randrange(sessions)
        cursors[which] = min(len(built[which]), cursors[which] + rng.randint(0, 2))
        messages = build(BY_NAME[shape], built[which][: cursors[which]])
        if shape == "gemini" and which % 3 == 0:
            messages = without_ids(messages)  # paired by name and order
        elif shape == "gemini" and which % 3 == 1 and rng.random() < 0.3:
            messages[-2:] = without_ids(messages[-2:])  # by id, then by name: Python's
        text = orjson.dumps(messages)
        texts.append(edited(rng, text) if rng.random() < 1 / 6 else text)
    return texts


def kept(read: Callable[..., Any], text: bytes, prefixes: object) -> None:
    """``text`` read so that ``prefixes`` keeps it: twice (a session's first history is
    only seen, its second kept)."""
    for _ in range(2):
        assert read(text, NO_NAME, None, None, prefixes) is not None
    assert speedups.prefixes_held(prefixes)[0] == 1


def read_alike(shape: str, texts: list[bytes], prefixes: object) -> None:
    """Each text read with ``prefixes`` answers as read whole. Each is read from a copy of
    its own, freed after, and the memory it held written over: a state kept that still
    points into a text no longer held reads what is written there since."""
    read = READERS[shape]
    for text in texts:
        copy = bytes(bytearray(text))
        answer = read(copy, NO_NAME, None, None, prefixes)
        del copy
        _scribbled = [bytes([n]) * len(text) for n in range(8)]
        assert answer == read(text, NO_NAME), text[:300]


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("shape", SHAPES)
def test_a_log_of_sessions_is_read_as_each_history_read_whole(shape: str, seed: int):
    rng = random.Random(seed)
    texts = texts_of_sessions(rng, shape, sessions=12, lines=600)
    prefixes = speedups.history_prefixes()
    read_alike(shape, texts, prefixes)
    kept, held, resumed = speedups.prefixes_held(prefixes)
    # Not the reading whole compared with itself: most histories were read on.
    answered = sum(READERS[shape](text, NO_NAME) is not None for text in texts)
    assert answered > len(texts) // 4 and resumed > len(texts) // 3
    assert 0 < kept <= 256 and held > 0


@pytest.mark.parametrize("shape", SHAPES)
def test_a_history_one_byte_away_from_a_kept_one_is_read_whole(shape: str):
    steps = session(random.Random(7), 6, 0, faulty=False, tools=TOOLS[:-1])
    first = orjson.dumps(build(BY_NAME[shape], steps[:-2]))
    longer = orjson.dumps(build(BY_NAME[shape], steps))
    read = READERS[shape]
    for at in range(len(first)):
        for edit in (
            longer[:at] + b"x" + longer[at + 1 :],
            longer[:at] + longer[at + 1 :],
            longer[:at] + b" " + longer[at:],
            longer[:at] + b"\\" + longer[at + 1 :],
        ):
            prefixes = speedups.history_prefixes()
            kept(read, first, prefixes)
            assert read(edit, NO_NAME, None, None, prefixes) == read(edit, NO_NAME), (at, edit)
    prefixes = speedups.history_prefixes()
    kept(read, first, prefixes)  # (and not one byte away: read on)
    assert read(longer, NO_NAME, None, None, prefixes) == read(longer, NO_NAME)
    assert speedups.prefixes_held(prefixes)[2] == 1


@pytest.mark.parametrize("shape", SHAPES)
def test_a_history_read_again_as_it_was_and_cut_short(shape: str):
    steps = clean(5)
    read, prefixes = READERS[shape], speedups.history_prefixes()
    texts = [orjson.dumps(build(BY_NAME[shape], steps[:n])) for n in (12, 12, 12, 9, 15, 4, 15)]
    read_alike(shape, texts, prefixes)
    assert speedups.prefixes_held(prefixes)[2] >= 3  # the same again, 15 after 12, 15 again
    assert read(texts[0] + b" ", NO_NAME, None, None, prefixes) == read(texts[0], NO_NAME)


@pytest.mark.parametrize("shape", SHAPES)
def test_more_calls_than_a_history_holds_on_its_stack(shape: str):
    rng = random.Random(11)
    texts = texts_of_sessions(rng, shape, sessions=3, lines=150, calls=9, faulty=False)
    prefixes = speedups.history_prefixes()
    read_alike(shape, texts, prefixes)
    assert speedups.prefixes_held(prefixes)[2] > 50


def test_more_sessions_than_are_kept_are_read_alike():
    rng = random.Random(5)
    texts = texts_of_sessions(rng, "openai-chat", sessions=400, lines=3000)
    prefixes = speedups.history_prefixes()
    read_alike("openai-chat", texts, prefixes)
    kept, _, resumed = speedups.prefixes_held(prefixes)
    assert 200 <= kept <= 256 and resumed > 0


def test_the_texts_held_stay_within_the_budget():
    rng = random.Random(9)
    texts = texts_of_sessions(rng, "anthropic", sessions=20, lines=400)
    for budget in (0, 1, 3000, 20000):
        prefixes = speedups.history_prefixes(budget)
        for text in texts:
            read = speedups.anthropic_json
            assert read(text, NO_NAME, None, None, prefixes) == read(text, NO_NAME)
            assert speedups.prefixes_held(prefixes)[1] <= budget
        kept = speedups.prefixes_held(prefixes)[0]
        assert (kept == 0) == (budget < 1000)


def test_only_a_text_that_cannot_change_is_held():
    steps = clean(2)
    text = orjson.dumps(build(BY_NAME["openai-chat"], steps))
    raw = msgspec.json.decode(b'{"m":' + text + b"}", type=dict[str, msgspec.Raw])["m"]
    for buffer, held in (
        (bytearray(text), False),
        (memoryview(text), False),
        (raw, True),
        (text, True),
    ):
        prefixes = speedups.history_prefixes()
        for _ in range(2):  # (a session's second history is kept)
            answer = speedups.chat_json(buffer, NO_NAME, None, None, prefixes)
            assert answer == speedups.chat_json(text, NO_NAME)
        assert (speedups.prefixes_held(prefixes)[0] == 1) is held
    changing = bytearray(text)
    prefixes = speedups.history_prefixes()
    for _ in range(2):
        speedups.chat_json(changing, NO_NAME, None, None, prefixes)
    changing.extend(b" ")  # not held: it may still change (a held buffer refuses to)
    changing[-1:] = b""


def test_the_readers_refuse_anything_else_as_a_cache():
    with pytest.raises(TypeError):
        speedups.chat_json(b"[]", NO_NAME, None, None, object())
    with pytest.raises(TypeError):
        speedups.history_prefixes(-1)
    with pytest.raises(TypeError):
        speedups.prefixes_held(None)
    assert speedups.chat_json(b"[]", NO_NAME, None, None, None) == ([], {}, 0)


def test_checked_from_text_reads_on_where_given_prefixes():
    steps = clean(4)
    prefixes = fast.history_prefixes()
    if fast.fast_loop.SPEEDUPS is None:  # turned off (TOOLAUDIT_PURE_PYTHON): no cache
        assert prefixes is None
        return
    for n in (5, 5, 9, 13):
        text = orjson.dumps(build(BY_NAME["bedrock"], steps[:n]))
        assert fast.checked_from_text(text, "bedrock", "messages", prefixes=prefixes) == (
            fast.checked_from_text(text, "bedrock", "messages")
        )
    assert speedups.prefixes_held(prefixes)[2] == 2


def test_one_cache_for_every_shape_keeps_each_shapes_reading_apart():
    rng = random.Random(4)
    prefixes = speedups.history_prefixes()
    for shape in SHAPES:
        texts = texts_of_sessions(rng, shape, sessions=4, lines=60)
        for text in texts:  # each text read as every shape, one after the other
            for reader in READERS.values():
                assert reader(text, NO_NAME, None, None, prefixes) == reader(text, NO_NAME)


def chat_turn(*ids: object) -> dict[str, Any]:
    calls = [
        {"id": i, "type": "function", "function": {"name": "search", "arguments": "{}"}}
        for i in ids
    ]
    return {"role": "assistant", "content": None, "tool_calls": calls}


def test_a_history_the_reader_was_not_sure_of_is_not_kept():
    """The reader not sure of a message stops part way through it (here a call kept, the
    next one's id a number): nothing of that reading may be kept, or a later history that
    has the same messages before it would start with that call already made."""
    start = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        chat_turn("a"),
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
    ]
    unsure = orjson.dumps([*start, chat_turn("c1", 5)])
    fixed = orjson.dumps(
        [*start, chat_turn("c1", "c2"), {"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    )
    prefixes = speedups.history_prefixes()
    assert speedups.chat_json(unsure, NO_NAME, None, None, prefixes) is None
    answer = speedups.chat_json(fixed, NO_NAME, None, None, prefixes)
    assert (
        answer == speedups.chat_json(fixed, NO_NAME) == ([("c2", "search", 4, 1)], {"search": 2}, 6)
    )


def test_a_gemini_history_paired_by_id_then_by_name_is_left_to_python_read_on_or_not():
    # (the first call after the third content: read on from, not read before resuming)
    steps = [("user", "And one more thing."), ("user", "Sorry, two."), *clean(3)]
    first = build(BY_NAME["gemini"], steps[:-3])
    longer = build(BY_NAME["gemini"], steps)
    longer[-3:] = without_ids(longer[-3:])
    prefixes = speedups.history_prefixes()
    kept(speedups.gemini_json, orjson.dumps(first), prefixes)
    text = orjson.dumps(longer)
    assert speedups.gemini_json(text, NO_NAME, None, None, prefixes) is None
    assert speedups.gemini_json(text, NO_NAME) is None
    assert speedups.prefixes_held(prefixes)[2] == 1


def test_a_session_is_kept_from_its_second_history_on():
    """A log whose every line is a conversation of its own keeps nothing (each line costs a
    hash and a look-up); a session's first history is seen, its second kept, its third
    read on from the second."""
    read, prefixes = speedups.chat_json, speedups.history_prefixes()
    for number in range(50):
        steps = [("user", f"conversation {number}"), *clean(3)]
        assert read(
            orjson.dumps(build(BY_NAME["openai-chat"], steps)), NO_NAME, None, None, prefixes
        )
    assert speedups.prefixes_held(prefixes) == (0, 0, 0)
    steps = clean(4)
    texts = [orjson.dumps(build(BY_NAME["openai-chat"], steps[:n])) for n in (6, 9, 12)]
    for text, held in zip(
        texts, [(0, 0, 0), (1, len(texts[1]), 0), (1, len(texts[2]), 1)], strict=True
    ):
        assert read(text, NO_NAME, None, None, prefixes) == read(text, NO_NAME)
        assert speedups.prefixes_held(prefixes) == held
