"""BFCL's decoding of a prompt-mode model's output: text such as
``"[math.factorial(number=5), get_weather(city='Paris')]"`` -> ``[{name: {arg: value}}]``.

Same behaviour as BFCL's ``default_decode_ast_prompting`` for Python (read from the gorilla
repository and rewritten, not copied), quirks included: backticks, newlines and spaces are
stripped from both ends and the text wrapped in ``[...]`` when it is not; every item must be
a call; positional arguments are dropped; a value that is not a literal is read as BFCL reads
it (a name as its text, a call without keywords as its source, a call with keywords as a
nested call, ``+5`` as ``-5``). The text is parsed with :mod:`ast`, never run: where BFCL
evaluates an arithmetic expression with ``eval``, only literal operands are computed here.
Java and JavaScript, which BFCL reads with tree-sitter grammars, are not decoded.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable
from typing import Any

from toolaudit.truth.bfcl_checker import Decoded

#: A computed value larger than this (digits' bits, or items of a repeated sequence) is
#: refused rather than built: BFCL would build it, whatever it costs.
MAX_COMPUTED_SIZE = 1_000_000

_OPERATORS: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.BitAnd: operator.and_,
    ast.MatMult: operator.matmul,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
    ast.Invert: operator.invert,
}
#: A printf width or precision of seven digits, or one given by an argument (``*``).
_WIDE_FORMAT = re.compile(r"\d{7}|\*")


class DecoderError(ValueError):
    """The output is not function calls as BFCL decodes them (its ``decoder_failed``)."""


class UnsupportedDecode(DecoderError):
    """Output that BFCL decodes but toolaudit does not (Java and JavaScript prompt output)."""


def decode_prompt(text: str, language: str = "python") -> list[Decoded]:
    """A prompt-mode ``result`` as BFCL decodes it: ``"[f(a=1), m.g(b='x')]"`` ->
    ``[{"f": {"a": 1}}, {"m.g": {"b": "x"}}]``. ``language`` is BFCL's (``python``, ``java``,
    ``javascript``). Raises :class:`DecoderError` where BFCL's decoding fails, and
    :class:`UnsupportedDecode` for Java and JavaScript."""
    if language != "python":
        raise UnsupportedDecode(
            f"{language} prompt output is decoded by BFCL with a tree-sitter parser, "
            "which toolaudit does not reproduce"
        )
    text = text.strip("`\n ")
    text = text if text.startswith("[") else "[" + text
    text = text if text.endswith("]") else text + "]"
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise DecoderError(f"not Python: {error}") from None
    # Wrapped in [...], the text is a list of calls or nothing BFCL can read.
    if not isinstance(tree.body, ast.List):
        raise DecoderError("not a list of calls")
    try:
        return [_call(item) for item in tree.body.elts]
    except RecursionError:
        raise DecoderError("nested too deeply") from None


def _call(node: ast.expr) -> Decoded:
    if not isinstance(node, ast.Call):
        raise DecoderError(f"not a call: {ast.unparse(node)[:40]}")
    # Positional arguments are dropped; ``**kwargs`` is kept under the key None.
    arguments: dict[Any, Any] = {}
    for keyword in node.keywords:
        arguments[keyword.arg] = _value(keyword.value)
    return {_function_name(node.func): arguments}


def _function_name(node: ast.expr) -> str:
    """``a.b.c`` -> ``"a.b.c"``; the attributes alone when the chain does not start with a
    name (``x[0].f`` -> ``"f"``, ``f()`` called -> ``""``)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _value(node: ast.expr) -> Any:
    """An argument's value as BFCL reads it from the syntax tree."""
    if isinstance(node, ast.Constant):
        return "..." if node.value is Ellipsis else node.value
    if isinstance(node, ast.UnaryOp):
        # BFCL negates the operand whatever the operator: +5 and ~5 are -5, not True is -1.
        if not isinstance(node.operand, ast.Constant):
            raise DecoderError(f"a unary operator on a non-literal: {ast.unparse(node)[:40]}")
        return _computed(operator.neg, node.operand.value)
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return _dict(node, _value)
    if isinstance(node, ast.BinOp):
        return _evaluated(node)
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call):
        return _call(node) if node.keywords else ast.unparse(node)
    if isinstance(node, ast.Subscript):
        return f"{ast.unparse(node.value)}[{ast.unparse(node.slice)}]"
    raise DecoderError(f"a value BFCL does not read: {type(node).__name__}")


def _dict(node: ast.Dict, read: Callable[[ast.expr], Any]) -> dict[Any, Any]:
    result: dict[Any, Any] = {}
    for key, value in zip(node.keys, node.values, strict=True):
        if key is None:
            raise DecoderError("** inside a dict")
        try:
            result[read(key)] = read(value)
        except TypeError as error:  # a key that cannot be hashed (a list, a nested call)
            raise DecoderError(f"a dict key: {error}") from None
    return result


def _evaluated(node: ast.expr) -> Any:
    """An arithmetic expression, which BFCL evaluates as Python code: computed here when its
    operands are literals; any other operand is a decoder error (BFCL's evaluation fails on
    it too unless it names something its own module defines)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_evaluated(item) for item in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_evaluated(item) for item in node.elts)
    if isinstance(node, ast.Set):
        return _computed(set, [_evaluated(item) for item in node.elts])
    if isinstance(node, ast.Dict):
        return _dict(node, _evaluated)
    if isinstance(node, ast.UnaryOp):
        return _computed(_UNARY[type(node.op)], _evaluated(node.operand))
    if isinstance(node, ast.BinOp):
        left, right = _evaluated(node.left), _evaluated(node.right)
        _refuse_large(node.op, left, right)
        return _computed(_OPERATORS[type(node.op)], left, right)
    raise DecoderError(
        f"BFCL evaluates {ast.unparse(node)[:40]!r} as code; toolaudit computes literals only"
    )


def _computed(function: Callable[..., Any], *operands: Any) -> Any:
    try:
        return function(*operands)
    except (ArithmeticError, TypeError, ValueError, MemoryError) as error:
        raise DecoderError(f"cannot be computed: {error}") from None


def _refuse_large(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse what would take more than :data:`MAX_COMPUTED_SIZE` to build."""
    size = 0
    if isinstance(op, ast.Pow) and type(left) is int and type(right) is int and abs(left) > 1:
        size = left.bit_length() * right
    elif isinstance(op, ast.LShift) and type(left) is int and type(right) is int:
        size = right
    elif isinstance(op, ast.Mult) and type(left) is int and type(right) is int:
        size = left.bit_length() + right.bit_length()
    elif isinstance(op, ast.Mult):
        for sequence, times in ((left, right), (right, left)):
            if isinstance(sequence, (str, bytes, list, tuple)) and type(times) is int:
                size = len(sequence) * times
    elif isinstance(op, ast.Mod) and isinstance(left, (str, bytes)):
        size = MAX_COMPUTED_SIZE + 1 if _WIDE_FORMAT.search(str(left)) else 0
    if size > MAX_COMPUTED_SIZE:
        raise DecoderError("too large to compute")
