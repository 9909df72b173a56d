"""Loading tool schemas from files, before any log line is read.

Files are read (:mod:`toolaudit.schemas.files`: any shape a schemas file may be
in), then merged one definition at a time by :class:`ToolMerge`, which yields each
tool and each defect as a value: a file that cannot be read or is of no known
shape, a definition of no known shape, a tool or a BFCL question defined twice
differently, a file that defines no tools. An audit stops at the first defect,
with one line naming the file, tool and parameter; ``toolaudit schemas`` lists
them all (:mod:`toolaudit.schemas.report`). Then the merged tools are compiled.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Generator, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from toolaudit.contract import Validator, compile_schemas
from toolaudit.errors import SchemaError, ToolAuditError
from toolaudit.jsonutil import canonical
from toolaudit.schemas.files import SchemasFile, no_tools_error, read_document, read_schemas_file
from toolaudit.schemas.tooldefs import (
    CONTRACT_SHAPE,
    Schemas,
    ToolDefinition,
    differ,
    tool_definitions,
)


@dataclass(frozen=True)
class SchemaSet:
    """The tool schemas of a run, compiled, and a digest that identifies them.

    ``validator`` judges any call (None when no file gave global tools);
    ``keyed`` holds the schema sets that apply only to records with that key
    (a BFCL question id).
    """

    validator: Validator | None
    digest: str | None
    keyed: Mapping[str, Validator] = field(default_factory=dict)
    #: Whether the schemas were compiled for deep validation (``deep=True``).
    deep: bool = False
    #: What the validators were compiled from, to send to other processes (see
    #: :meth:`__reduce__`): schemas files' as JSON text, a mapping given in Python as
    #: it is (tool name -> schema, and the keyed sets); None for a set built from
    #: validators alone.
    definitions: bytes | tuple[Mapping[str, Any], Mapping[str, Any]] | None = field(
        default=None, repr=False, compare=False
    )

    @property
    def empty(self) -> bool:
        return self.validator is None and not self.keyed

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (for a worker process, a Dask worker), a set travels as its
        definitions and is compiled again on arrival, once per process (see
        :func:`compiled_again`): the compiled form is larger, and may hold what
        does not pickle."""
        if self.definitions is None:
            return (SchemaSet, (self.validator, self.digest, self.keyed, self.deep))
        return (compiled_again, (self.definitions, self.digest, self.deep))


NO_SCHEMAS = SchemaSet(validator=None, digest=None)


def load_schemas(
    paths: str | Iterable[str],
    *,
    deep: bool = False,
    storage_options: Mapping[str, Any] | None = None,
) -> SchemaSet:
    """Read, check, merge and compile schemas files (``deep``: for deep validation).
    A file may be a URL, read with ``storage_options``.

    Two files defining one tool name differently is an error naming both.
    """
    listed = [paths] if isinstance(paths, str) else list(paths)
    with _collector_paused():
        return _load_schemas(listed, deep=deep, storage_options=storage_options)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cycle collector while building millions of acyclic objects.

    Each full collection walks every object alive; a schema of a million
    parameters made compiling 6x slower (measured), and none of it is garbage.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _load_schemas(
    paths: list[str], *, deep: bool, storage_options: Mapping[str, Any] | None
) -> SchemaSet:
    merge = ToolMerge()
    defect = _first_defect(merge.read(paths, storage_options=storage_options))
    if defect is not None:
        raise defect.error
    merged, keyed = merge.tools, merge.questions
    compiled = schema_set(merged, keyed=keyed, source=", ".join(paths), deep=deep)
    # Parsed by orjson, they are JSON text again exactly: a tenth of their size in memory.
    try:
        return replace(compiled, definitions=orjson.dumps([merged, keyed]))
    except (TypeError, orjson.JSONEncodeError):
        return compiled


def schema_set(
    schemas: Mapping[str, Any],
    *,
    keyed: Mapping[str, Schemas] | None = None,
    source: str | None = None,
    deep: bool = False,
) -> SchemaSet:
    """Compile tool name -> schema (and keyed sets); a defect names ``source`` too."""
    keyed = keyed or {}
    try:
        validator = compile_schemas(schemas, deep=deep) if schemas or not keyed else None
        compiled = {
            key: compile_schemas(tools, deep=deep).with_aliases(dotted_aliases(tools))
            for key, tools in keyed.items()
        }
        digest = schemas_digest(schemas, keyed)
    except SchemaError as error:
        raise (error.located(f"schemas file {source}") if source else error) from None
    # Compiled, they are all a run needs here; the schemas themselves are kept (the
    # caller's mapping, not a copy) only to be sent to other processes.
    return SchemaSet(
        validator=validator,
        digest=digest,
        keyed=compiled,
        deep=deep,
        definitions=(schemas, keyed),
    )


#: Schema sets compiled in this process from definitions sent to it, by digest and mode.
_COMPILED: dict[tuple[str | None, bool], SchemaSet] = {}
_COMPILED_KEPT = 4


def compiled_again(
    definitions: bytes | tuple[Mapping[str, Any], Mapping[str, Any]],
    digest: str | None,
    deep: bool,
) -> SchemaSet:
    """A schema set sent to this process, compiled once here and then reused (by
    digest): each task of a cluster that names it gets the same compiled set."""
    cached = _COMPILED.get((digest, deep))
    if cached is not None:
        return cached
    with _collector_paused():
        schemas, keyed = (
            orjson.loads(definitions) if isinstance(definitions, bytes) else definitions
        )
        compiled = schema_set(schemas, keyed=keyed, deep=deep)
    if compiled.digest != digest:
        # The mapping was changed after it was compiled: what judges the calls here
        # would not be what the digest in the summary names.
        raise SchemaError(f"the schemas changed after they were loaded (digest {digest})")
    if len(_COMPILED) >= _COMPILED_KEPT:
        _COMPILED.clear()
    _COMPILED[(digest, deep)] = compiled
    return compiled


def dotted_aliases(schemas: Mapping[str, Any]) -> dict[str, str]:
    """BFCL sends ``math.factorial`` to function-calling models as ``math_factorial``
    (their names may not hold dots): map the sent name back to the defined one."""
    return {
        name.replace(".", "_"): name
        for name in schemas
        if "." in name and name.replace(".", "_") not in schemas
    }


def schemas_digest(schemas: Mapping[str, Any], keyed: Mapping[str, Any] | None = None) -> str:
    content: Any = schemas if not keyed else {"tools": schemas, "keyed": keyed}
    text = canonical(content)
    if text is None:
        raise SchemaError("the schemas are nested too deeply to be read")
    return "sha256:" + hashlib.sha256(text).hexdigest()[:16]


def tools_in_document(document: object, *, source: str = "tools") -> Schemas:
    """Tool definitions already parsed, in any shape a schemas file may hold them (a list
    of provider definitions, ``{"tools": [...]}``, an MCP tools/list result, the
    contract's mapping) -> tool name -> schema. ``source`` names them in messages."""
    merge = ToolMerge()
    defect = _first_defect(merge.add_file(read_document(source, document, source)))
    if defect is not None:
        raise defect.error
    return merge.tools


def _first_defect(found: Iterable[LoadedTool | LoadDefect]) -> LoadDefect | None:
    """The defect a load stops with: a file's own before its conflicts with earlier files."""
    conflict: LoadDefect | None = None
    for each in found:
        if conflict is not None and each.file != conflict.file:
            break
        if isinstance(each, LoadDefect):
            if not each.with_earlier_file:
                return each
            conflict = conflict or each
    return conflict


# Merging, one definition at a time -------------------------------------------------


@dataclass(frozen=True)
class LoadedTool:
    """One tool a schemas file defines, as loading met it."""

    definition: ToolDefinition
    #: The file's path, and where in it the tool stands ("schemas file t.jsonl, line 3").
    file: str
    where: str
    #: The BFCL question the tool belongs to; None for a tool that judges any call.
    question: str | None = None


@dataclass(frozen=True)
class LoadDefect:
    """What loading refuses, in the file named: the error an audit stops with."""

    file: str
    error: ToolAuditError
    #: A tool this file defines otherwise than an earlier file did.
    with_earlier_file: bool = False


class ToolMerge:
    """Schemas files' tools merged as an audit merges them: ``tools`` (name -> schema)
    judge any call, ``questions`` hold each BFCL question's own.

    One name is one schema: in a file (or a question), the same definition again is
    the same tool, another is a defect; across files, a second file's other
    definition is a defect naming both. A question defined differently by two files
    is a defect too; within a file, a later line of one question replaces it.
    """

    def __init__(self) -> None:
        self.tools: Schemas = {}
        self.questions: dict[str, Schemas] = {}
        self._origin: dict[str, str] = {}

    def read(
        self, paths: Iterable[str], *, storage_options: Mapping[str, Any] | None = None
    ) -> Iterator[LoadedTool | LoadDefect]:
        """Each file's tools and defects, in the order the files define them."""
        for path in paths:
            try:
                listed = read_schemas_file(path, storage_options=storage_options)
            except ToolAuditError as error:
                yield LoadDefect(path, error)
                continue
            if not (yield from self.add_file(listed)):
                yield LoadDefect(path, no_tools_error(path))

    def add_file(self, listed: SchemasFile) -> Generator[LoadedTool | LoadDefect, None, bool]:
        """One file's tools and defects; returns whether it defines anything (a defective
        definition and a question of no tools count: they are not an empty file)."""
        path, found = listed.path, False
        in_file: Schemas = {}  # tools that judge any call: the scope of "defined twice"
        for name, schema in listed.mapping.items():
            found = True
            definition = ToolDefinition(name, dict(schema), CONTRACT_SHAPE)
            yield from self._add(LoadedTool(definition, path, f"schemas file {path}"), in_file)
        questions: dict[str, Schemas] = {}
        for definitions in listed.lists:
            scope: Schemas = in_file if definitions.question is None else {}
            if definitions.question is not None:
                found = True
                questions[definitions.question] = scope
            for position, entry in enumerate(definitions.definitions):
                where = f"{definitions.where}, tool #{position + 1}"
                try:
                    tools = tool_definitions(entry, source=where)
                except SchemaError as error:
                    found = True
                    yield LoadDefect(path, error)
                    continue
                for tool in tools:
                    found = True
                    loaded = LoadedTool(tool, path, definitions.where, definitions.question)
                    yield from self._add(loaded, scope)
        for key, schemas in questions.items():
            if differ(self.questions.setdefault(key, schemas), schemas):
                yield LoadDefect(
                    path,
                    SchemaError(
                        f"question {key!r} is defined differently in two schemas files "
                        f"(the second: {path})"
                    ),
                )
            self.questions[key] = schemas
        return found

    def _add(self, loaded: LoadedTool, scope: Schemas) -> Iterator[LoadedTool | LoadDefect]:
        name, schema = loaded.definition.name, loaded.definition.schema
        if name in scope:
            if differ(scope[name], schema):
                error = SchemaError("defined twice, differently", tool=name, source=loaded.where)
                yield LoadDefect(loaded.file, error)
            return  # the same definition again is the same tool: met once
        scope[name] = schema
        if loaded.question is None:
            first = self._origin.setdefault(name, loaded.file)
            if differ(self.tools.setdefault(name, schema), schema):
                reason = f"defined differently in schemas files {first} and {loaded.file}"
                yield LoadDefect(loaded.file, SchemaError(reason, tool=name), True)
        yield loaded
