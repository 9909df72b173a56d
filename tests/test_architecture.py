"""The shape of the code: every import points down a layer, none goes round in a cycle,
and no module above ``formats/`` knows a format by its name.

Imports are read from the source with ``ast``: at module level and inside
functions alike (a lazy import is still a dependency), except under ``if
TYPE_CHECKING:``, which never runs. The implicit import of a package's
``__init__`` by its submodules is not an edge, as in every import linter.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: Lower layers never import higher ones. Within a layer, imports may go sideways.
LAYERS = {
    "toolaudit._version": 0,
    "toolaudit.errors": 0,
    "toolaudit.jsonutil": 0,
    "toolaudit.compiled": 0,
    "toolaudit.lazy_names": 0,
    "toolaudit.values": 1,
    "toolaudit.deep": 2,
    "toolaudit.contract": 3,
    "toolaudit.typed": 3,
    "toolaudit.formats": 4,
    "toolaudit.schemas": 4,
    "toolaudit.sources": 4,
    "toolaudit.lines": 4,
    "toolaudit.log_files": 4,
    "toolaudit.storage": 4,
    "toolaudit.results": 4,
    "toolaudit.truth": 4,
    "toolaudit.history": 4,  # conversations: beside formats, whose helpers it reads with
    "toolaudit.pipeline": 5,
    "toolaudit.targets": 5,  # provider rules over schemas: above schemas, deep and values
    "toolaudit.output": 5,
    "toolaudit.runners": 6,
    "toolaudit.boundary": 6,
    "toolaudit.cli": 7,
    "toolaudit.__main__": 7,
    "toolaudit": 7,  # the public facade: imports the layers below it lazily
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, modules: set[str], this: str) -> set[str]:
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            # `from package import submodule` imports the submodule.
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return {name for name in found if name in modules and name != this}


def _graph() -> dict[str, set[str]]:
    paths = sorted(SRC.joinpath("toolaudit").rglob("*.py"))
    modules = {_module_name(path) for path in paths}
    return {
        _module_name(path): _imports(ast.parse(path.read_text()), modules, _module_name(path))
        for path in paths
    }


def _layer(module: str) -> int:
    while module not in LAYERS:
        module = module.rpartition(".")[0]
        assert module, "every module belongs to a layer: add its package to LAYERS"
    return LAYERS[module]


def test_the_import_graph_has_no_cycle() -> None:
    try:
        tuple(graphlib.TopologicalSorter(_graph()).static_order())
    except graphlib.CycleError as error:
        pytest.fail(f"import cycle: {' -> '.join(error.args[1])}")


def test_every_import_points_down() -> None:
    upward = [
        f"{module} (layer {_layer(module)}) imports {target} (layer {_layer(target)})"
        for module, targets in _graph().items()
        for target in sorted(targets)
        if _layer(target) > _layer(module)
    ]
    assert upward == []


def test_the_checker_sees_a_cycle() -> None:
    # The checks above must be able to fail: a made-up cycle is found.
    tree_a = ast.parse("from toolaudit.b import x\n")
    tree_b = ast.parse("def f():\n    import toolaudit.a\n")
    modules = {"toolaudit.a", "toolaudit.b"}
    graph = {
        "toolaudit.a": _imports(tree_a, modules, "toolaudit.a"),
        "toolaudit.b": _imports(tree_b, modules, "toolaudit.b"),
    }
    with pytest.raises(graphlib.CycleError):
        tuple(graphlib.TopologicalSorter(graph).static_order())
    typing_only = ast.parse("if TYPE_CHECKING:\n    import toolaudit.b\n")
    assert _imports(typing_only, modules, "toolaudit.a") == set()


# -- what modules above formats/ may know of a format ---------------------------------

#: On a line whose string equals a format's name but means something else, this comment
#: says so (an output layout called "flat", say): the rule then lets it be.
NOT_A_FORMAT = "# not a log format"


def _format_names_spelled(source: str, names: frozenset[str]) -> list[str]:
    """Each string literal of ``source`` equal to one of ``names`` (a format's name), as
    "line: name". Words in longer strings are not names; neither are docstrings and other
    bare strings, which are prose, nor strings on a line marked :data:`NOT_A_FORMAT`."""
    tree = ast.parse(source)
    lines = source.splitlines()
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        f"{node.lineno}: {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value in names
        and id(node) not in prose
        and not lines[node.lineno - 1].rstrip().endswith(NOT_A_FORMAT)
    ]


def test_no_module_above_formats_spells_a_format_name() -> None:
    # What the audit and the agent boundary need to know of a format is an attribute of
    # its Format (formats/declaration.py): a module above formats/ that tested a name
    # would be one more place to edit for each new format, and wrong when one is added.
    from toolaudit.formats import format_names

    names = frozenset(format_names())
    above = _layer("toolaudit.formats")
    spelled = [
        f"{module} line {where}"
        for path in sorted(SRC.joinpath("toolaudit").rglob("*.py"))
        if _layer(module := _module_name(path)) > above
        for where in _format_names_spelled(path.read_text(), names)
    ]
    assert spelled == []


def test_the_format_name_rule_sees_a_name() -> None:
    names = frozenset({"mcp", "flat"})
    source = '''"""flat"""
SHAPE = {"mcp": 1}
if kind == "flat":
    pass
LAYOUT = "flat"  # not a log format
NOTE = "a flat record, over mcp"
'''
    assert _format_names_spelled(source, names) == ["2: 'mcp'", "3: 'flat'"]


# -- the audit loop stays a place one would want to work in --------------------------

PIPELINE = SRC / "toolaudit" / "pipeline"
#: The audit keeps only the loop over sources and the choice of reader.
MOST_AUDIT_LINES = 250
#: The general reader's methods that a record goes through, and the most ``return``
#: statements they may hold between them (every exit is a path to keep in mind).
GENERAL_WALK = (
    "read_record",
    "_read",
    "_tally_of",
    "_judge_calls",
    "_feed_stream",
    "judge_stream",
)
MOST_WALK_RETURNS = 10
#: The most parameters of a callback handed to a function of the pipeline.
MOST_CALLBACK_PARAMETERS = 3


def _returns_in(tree: ast.AST, names: tuple[str, ...]) -> dict[str, int]:
    return {
        node.name: sum(isinstance(inner, ast.Return) for inner in ast.walk(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name in names
    }


def _wide_callbacks(tree: ast.AST) -> list[str]:
    """Parameters annotated ``Callable[[...], ...]`` with more than the allowed parameters."""
    wide = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        arguments = node.args
        for argument in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
            for inner in ast.walk(argument.annotation or ast.Constant(None)):
                if (
                    isinstance(inner, ast.Subscript)
                    and ast.unparse(inner.value).endswith("Callable")
                    and isinstance(inner.slice, ast.Tuple)
                    and isinstance(inner.slice.elts[0], ast.List)
                    and len(inner.slice.elts[0].elts) > MOST_CALLBACK_PARAMETERS
                ):
                    wide.append(f"{node.name}({argument.arg})")
    return wide


def test_the_audit_keeps_only_the_loop_over_sources() -> None:
    lines = len((PIPELINE / "audit.py").read_text().splitlines())
    assert lines < MOST_AUDIT_LINES


def test_the_general_readers_walk_has_few_exits() -> None:
    tree = ast.parse((PIPELINE / "general_reader.py").read_text())
    returns = _returns_in(tree, GENERAL_WALK)
    assert set(returns) == set(GENERAL_WALK), "a method of the walk was renamed: update the list"
    assert sum(returns.values()) < MOST_WALK_RETURNS, returns


def test_no_callback_of_the_pipeline_takes_more_than_three_parameters() -> None:
    wide = {
        path.name: found
        for path in sorted(PIPELINE.glob("*.py"))
        if (found := _wide_callbacks(ast.parse(path.read_text())))
    }
    assert wide == {}


def test_the_shape_checks_can_fail() -> None:
    wide = ast.parse("def f(judged: Callable[[int, int, str, object], None]) -> None: ...")
    assert _wide_callbacks(wide) == ["f(judged)"]
    narrow = ast.parse("def f(valid: Callable[[str], object]) -> None: ...")
    assert _wide_callbacks(narrow) == []
    many = ast.parse("def read_record():\n    if a:\n        return\n    return 1\n")
    assert _returns_in(many, ("read_record",)) == {"read_record": 2}
