"""The text readers' scan of a string's body (``past_plain`` in history/_json_grammar.h,
and ``past_plain_and_escapes`` past a run of two-byte escapes) at each of its widths: 16
bytes at once (SSE2, the build's own on x86-64), 8 in a word (SWAR, builds without SSE2)
and 1 (any other). The extension is built again here with ``-DSCAN_WIDTH=8`` and
``-DSCAN_WIDTH=1``; on texts whose strings hold what a scan may
trip on (a quote, a backslash or a control byte at a block's edge, an escape cut by the
text's end, UTF-8 split across blocks, overlong or surrogate UTF-8, NUL bytes), every width
answers the same, and answers exactly where orjson accepts the text."""

from __future__ import annotations

import importlib.util
import sysconfig
from pathlib import Path
from types import ModuleType

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolaudit.history.model import NO_NAME

from .test_speedups_json import FENCED

speedups = pytest.importorskip(
    "toolaudit.history._speedups", reason="the C speedups were not built (no C compiler)"
)

SOURCES = Path(speedups.__file__).parent
WIDTHS = (8, 1)


def built(width: int, folder: Path) -> ModuleType:
    """The speedups built with their string scan ``width`` bytes at a time."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    extension = Extension(
        "_speedups",
        [str(SOURCES / name) for name in ("_speedups.c", "_speedups_json.c", "_speedups_pairs.c")],
        define_macros=[("SCAN_WIDTH", str(width))],
    )
    command = build_ext(Distribution({"ext_modules": [extension]}))
    command.build_lib, command.build_temp = str(folder), str(folder / "temp")
    command.ensure_finalized()
    command.run()
    path = folder / f"_speedups{sysconfig.get_config_var('EXT_SUFFIX')}"
    spec = importlib.util.spec_from_file_location("_speedups", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def narrow(tmp_path_factory: pytest.TempPathFactory) -> dict[int, ModuleType]:
    if sysconfig.get_config_var("CC") is None:
        pytest.skip("no C compiler known to this Python")
    return {width: built(width, tmp_path_factory.mktemp(f"width{width}")) for width in WIDTHS}


def histories(body: bytes) -> list[tuple[str, bytes]]:
    """Histories holding ``body`` as a string's contents where each reader scans one: a
    text it skips, a result's text it reads in place, a key of an object it skips."""
    return [
        ("chat_json", b'[{"role":"user","content":"' + body + b'"}]'),
        ("chat_json", b'[{"role":"user","content":"x","extra":{"' + body + b'":1}}]'),
        (
            "anthropic_json",
            b'[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f",'
            b'"input":{}}]},{"role":"user","content":[{"type":"tool_result",'
            b'"tool_use_id":"a","content":[{"type":"text","text":"x' + body + b'"}]}]}]',
        ),
        (
            "bedrock_json",
            b'[{"role":"assistant","content":[{"toolUse":{"toolUseId":"a","name":"f",'
            b'"input":{}}}]},{"role":"user","content":[{"toolResult":{"toolUseId":"a",'
            b'"content":[{"text":"x' + body + b'"}]}}]}]',
        ),
        (  # a call's arguments, read by the one-pass call reader
            "chat_json",
            b'[{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function",'
            b'"function":{"name":"f","arguments":"' + body + b'"}}]},'
            b'{"role":"tool","tool_call_id":"c","content":"ok"}]',
        ),
    ]


def accepted(text: bytes) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True


def holds_every_width(body: bytes, narrow: dict[int, ModuleType]) -> None:
    """Each history holding ``body``, at each offset from a 16-byte block's start: every
    width answers alike, and answers (not None) exactly where orjson accepts the text."""
    for function, history in histories(body):
        for shift in range(17):
            text = history.replace(b'"role"', b" " * shift + b'"role"', 1)
            found = getattr(speedups, function)(text, NO_NAME)
            for width, module in narrow.items():
                assert getattr(module, function)(text, NO_NAME) == found, (width, text)
            assert (found is not None) == accepted(text), text


#: Bytes a string's body may trip a scan on, and pieces that are always valid in one.
HOSTILE = [
    b'"', b"\\", b'\\"', b"\\\\", b"\\n", b"\\/", b"\\u0041", b"\\u00e9", b"\\ud83d\\ude00",
    b"\\ud800", b"\\udc00", b"\\ud800\\u0041", b"\\u12", b"\\x", b"\x00", b"\x01", b"\x1f",
    b"\x7f", b"\t", b"\n", b"\xc3\xa9", b"\xe2\x80\x94", b"\xe5\xa4\xa9", b"\xf0\x9f\x98\x80",
    b"\xc3", b"\xe2\x80", b"\xf0\x9f\x98", b"\xa9", b"\x80", b"\xc0\xaf", b"\xc1\xbf",
    b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\xfe",
]  # fmt: skip
PLAIN = [b"a", b"0123456789abcdef", b" ", b"ab", b"xyz" * 5, b"\xe5\xa4\xa9" * 6]


@pytest.mark.slow  # the extension built again at each width first, then every place of a block
@pytest.mark.parametrize("piece", HOSTILE, ids=repr)
def test_each_hostile_piece_at_every_place_of_a_block(piece: bytes, narrow):
    for before in range(0, 34, 3):
        holds_every_width(b"p" * before + piece + b"q" * (33 - before), narrow)
        holds_every_width(b"p" * before + piece, narrow)  # the piece against the quote


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(HOSTILE + PLAIN), max_size=12))
@example(pieces=[b"\xe5\xa4\xa9"] * 5 + [b"\\n"])
@example(pieces=[b"a" * 15, b"\\"])
def test_any_body_is_scanned_alike_at_every_width(pieces: list[bytes], narrow):
    holds_every_width(b"".join(pieces), narrow)


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=40))
def test_any_bytes_in_a_string_are_scanned_alike_at_every_width(body: bytes, narrow):
    holds_every_width(body, narrow)


@pytest.mark.skipif(FENCED is None, reason="mprotect through ctypes: Linux only")
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(HOSTILE + PLAIN), max_size=8), cut=st.integers(0, 40))
def test_no_width_reads_past_the_end_of_a_string_cut_short(pieces: list[bytes], cut: int, narrow):
    assert FENCED is not None
    for function, history in histories(b"".join(pieces)):
        text = history[: max(0, len(history) - cut)]
        for fenced in FENCED.texts(text):
            for module in (speedups, *narrow.values()):
                found = getattr(module, function)(fenced, NO_NAME)  # a fault kills the run
                assert found == getattr(speedups, function)(text, NO_NAME)


#: The escapes of two bytes (a block's run of them is read from its one mask: each
#: letter that is itself special, a quote or a backslash, passed over with its backslash),
#: and what may follow a run of them: the string's end, an escape read otherwise (a good
#: or bad \u, an unknown letter), a control byte, UTF-8, a bare backslash, plain bytes.
SHORT_ESCAPES = [b'\\"', b"\\\\", b"\\n", b"\\/", b'\\"\\\\', b'\\\\\\"']
AFTER_ESCAPES = [
    b"", b"a", b"\\u0041", b"\\ud800", b"\\ud83d\\ude00", b"\\x", b"\x01", b"\x00",
    b"\xc3\xa9", b"\xc3", b"\\", b'"', b"\\\\\\",
]  # fmt: skip


@pytest.mark.parametrize("escape", SHORT_ESCAPES, ids=repr)
@pytest.mark.parametrize("after", AFTER_ESCAPES, ids=repr)
def test_runs_of_escapes_at_every_place_of_a_block(escape: bytes, after: bytes, narrow):
    for count in (1, 2, 3, 7, 8, 9, 17):
        for before in (0, 1, 13, 14, 15):
            holds_every_width(b"p" * before + escape * count + after, narrow)
            holds_every_width(b"p" * before + escape * count + after + b"q" * 20, narrow)
    # the block read from the mask starts past the first escape: a second one at each
    # place of it, the last byte's (its letter in the next block) among them
    for gap in range(18):
        holds_every_width(escape + b"p" * gap + escape + after, narrow)
        holds_every_width(escape + b"p" * gap + escape * 2 + after + b"q" * 20, narrow)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(st.sampled_from(SHORT_ESCAPES + AFTER_ESCAPES + PLAIN[:2]), max_size=16))
@example(pieces=[b'\\"', b"a" * 15, b'\\"'])  # the second escape's letter in the next block
def test_any_mix_of_escapes_is_scanned_alike_at_every_width(pieces: list[bytes], narrow):
    holds_every_width(b"".join(pieces), narrow)
