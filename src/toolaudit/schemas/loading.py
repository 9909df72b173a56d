"""Loading tool schemas from files, before any log line is read.

A schemas file may be the contract's mapping (tool name -> schema), a JSON list
or a JSON-lines file of tool definitions in any provider's shape (see
:mod:`toolaudit.schemas.tooldefs`), an MCP ``tools/list`` result, or a BFCL question
file (one question per line, each with its own functions). Files are checked
whole: unreadable, not JSON, of no known shape, or holding a defective
schema, they stop the run with one line naming the file, tool and parameter.
"""

from __future__ import annotations

import gc
import hashlib
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

import orjson

from toolaudit.contract import Validator, compile_schemas
from toolaudit.errors import InputError, SchemaError
from toolaudit.jsonutil import canonical, loads_exact
from toolaudit.schemas.tooldefs import Schemas, normalize_tools
from toolaudit.storage import is_url, read_bytes


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
    merged: Schemas = {}
    origin: dict[str, str] = {}
    keyed: dict[str, Schemas] = {}
    for path in paths:
        tools, questions = _merged(read_schemas_file(path, storage_options=storage_options))
        if not tools and not questions:
            raise no_tools_error(path)
        for name, schema in tools.items():
            if name in merged and merged[name] != schema:
                raise SchemaError(
                    f"defined differently in schemas files {origin[name]} and {path}", tool=name
                )
            merged[name] = schema
            origin.setdefault(name, path)
        for key, schemas in questions.items():
            if key in keyed and keyed[key] != schemas:
                raise SchemaError(
                    f"question {key!r} is defined differently in two schemas files (the second: "
                    f"{path})"
                )
            keyed[key] = schemas
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


@dataclass(frozen=True)
class DefinitionList:
    """A list of provider tool definitions as a schemas file holds it, not yet normalised."""

    #: Where the list stands, as messages name it: "schemas file tools.jsonl, line 3".
    where: str
    definitions: list[object]
    #: The BFCL question whose tools these are; None for tools that judge any call.
    question: str | None = None


@dataclass(frozen=True)
class SchemasFile:
    """A schemas file as read: lists of tool definitions, or the contract's own mapping."""

    path: str
    lists: list[DefinitionList]
    #: Tool name -> schema, when the file is in the contract's shape (then ``lists`` is empty).
    mapping: Schemas


def read_schemas_file(
    path: str, *, storage_options: Mapping[str, Any] | None = None
) -> SchemasFile:
    """Read a schemas file (a path, or a URL read with ``storage_options``) and find its
    tool definitions, in whatever shape it holds them.

    Raises :class:`InputError` for a file that cannot be read, and
    :class:`SchemaError` naming the file for one that is not JSON (or lines of it)
    or of no known shape. The definitions themselves are not checked here: see
    :func:`~toolaudit.schemas.tooldefs.normalize_tools`.
    """
    where = f"schemas file {path}"
    try:
        if is_url(path):
            data = read_bytes(path, storage_options, what=where)
        else:
            with open(path, "rb") as file:
                data = file.read()
    except OSError as error:
        raise InputError(f"{where}: cannot read: {error.strerror or error}") from error
    try:
        document = _loads(data)
    except orjson.JSONDecodeError as whole_error:
        lines = _json_lines(data, where)
        if lines is None:
            raise SchemaError(f"not valid JSON ({whole_error})", source=where) from whole_error
        return SchemasFile(path, _lists_in_lines(lines, where), {})
    if _is_bfcl_question(document):  # a question file of one question: its one line
        return SchemasFile(path, _lists_in_lines([(_first_line(data), document)], where), {})
    return _in_document(path, document, where)


def _loads(data: bytes) -> Any:
    """JSON text -> its value, as the audit reads a log line: with orjson, and what orjson
    refuses (a byte order mark, ``1e400``, an integer of 400 digits, a lone surrogate)
    with the standard library, exactly. Raises orjson's error when neither can."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as error:
        try:
            return loads_exact(data)
        except (ValueError, RecursionError):
            raise error from None


def _first_line(data: bytes) -> int:
    """The number of the line a JSON text's value starts on."""
    return data[: len(data) - len(data.lstrip())].count(b"\n") + 1


def no_tools_error(path: str) -> SchemaError:
    """What a schemas file that defines no tools is told."""
    return SchemaError(
        "defines no tools (a BFCL multi-turn question file lists its functions in "
        "multi_turn_func_doc/ instead)"
        if path.endswith(".json") and "multi_turn" in path
        else "defines no tools",
        source=f"schemas file {path}",
    )


def tools_in_document(document: object, *, source: str = "tools") -> Schemas:
    """Tool definitions already parsed, in any shape a schemas file may hold them (a list
    of provider definitions, ``{"tools": [...]}``, an MCP tools/list result, the
    contract's mapping) -> tool name -> schema. ``source`` names them in messages."""
    tools, _ = _merged(_in_document(source, document, source))
    return tools


def _merged(listed: SchemasFile) -> tuple[Schemas, dict[str, Schemas]]:
    """A file's tools, normalised and merged (one name, one schema), and its BFCL questions'."""
    tools: Schemas = dict(listed.mapping)
    questions: dict[str, Schemas] = {}
    for definitions in listed.lists:
        normalized = normalize_tools(definitions.definitions, source=definitions.where)
        if definitions.question is not None:
            questions[definitions.question] = normalized
            continue
        for name, schema in normalized.items():
            if name in tools and tools[name] != schema:
                raise SchemaError("defined twice, differently", tool=name, source=definitions.where)
            tools[name] = schema
    return tools, questions


def _json_lines(data: bytes, where: str) -> list[tuple[int, Any]] | None:
    """A JSON-lines file's values with their line numbers; None if the first line is not JSON."""
    values = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            values.append((number, _loads(line)))
        except orjson.JSONDecodeError as error:
            if not values:
                return None
            raise SchemaError(f"line {number}: not valid JSON ({error})", source=where) from error
    return values


def _lists_in_lines(lines: list[tuple[int, Any]], where: str) -> list[DefinitionList]:
    """Lines of tool definitions, or of BFCL questions (``{"id", "function": [...]}``)."""
    if lines and all(_is_bfcl_question(value) for _, value in lines):
        return [
            DefinitionList(f"{where}, line {number}", question["function"], str(question["id"]))
            for number, question in lines
            if isinstance(question.get("function"), list) and question["function"]
        ]
    return [DefinitionList(f"{where}, line {number}", [definition]) for number, definition in lines]


def _is_bfcl_question(value: object) -> bool:
    """Whether a value is a BFCL question: ``{"id", "question", "function": [...]}``."""
    return (
        isinstance(value, Mapping)
        and "id" in value
        and not isinstance(value["id"], Mapping)  # then a tool named "id", not a question's
        and ("function" in value or "question" in value)
    )


def _in_document(path: str, document: object, where: str) -> SchemasFile:
    if isinstance(document, list):
        return SchemasFile(path, [DefinitionList(where, document)], {})
    if not isinstance(document, Mapping):
        raise SchemaError(_EXPECTED, source=where)
    if document.get("jsonrpc") == "2.0":  # an MCP tools/list response
        document = document.get("result")
        if not isinstance(document, Mapping):
            raise SchemaError("an MCP message without a result holds no tools", source=where)
    for key in ("tools", "functions"):
        if isinstance(document.get(key), list):
            return SchemasFile(path, [DefinitionList(where, document[key])], {})
    config = document.get("toolConfig")  # a Bedrock Converse request keeps its tools here
    if isinstance(config, Mapping) and isinstance(config.get("tools"), list):
        return SchemasFile(path, [DefinitionList(where, config["tools"])], {})
    if _is_one_tool(document):
        return SchemasFile(path, [DefinitionList(where, [document])], {})
    if all(isinstance(schema, Mapping) for schema in document.values()):
        # The contract's own shape: name -> {"parameters": ...}
        return SchemasFile(path, [], dict(document))
    raise SchemaError(_EXPECTED, source=where)


_EXPECTED = (
    "expected a JSON object mapping tool names to schemas, a list (or lines) of tool "
    "definitions, a request holding them, an MCP tools/list result, or a BFCL question file"
)
#: Keys of a lone tool definition that has no top-level name (a Gemini tool
#: holding its declarations, a Bedrock tool holding its toolSpec).
_NAMELESS_TOOL_KEYS = ("functionDeclarations", "function_declarations", "toolSpec")


def _is_one_tool(document: Mapping[str, Any]) -> bool:
    if document.get("type") == "function" and isinstance(document.get("function"), Mapping):
        return True
    return isinstance(document.get("name"), str) or any(
        key in document for key in _NAMELESS_TOOL_KEYS
    )
