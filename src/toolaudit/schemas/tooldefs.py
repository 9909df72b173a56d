"""Tool definitions in every shape users have -> the contract's ``{name: {"parameters": ...}}``.

Shapes: OpenAI Chat (``{"type": "function", "function": {...}}``), OpenAI
Responses (flat, ``parameters`` may be null), legacy OpenAI ``functions``,
Anthropic (``input_schema``), MCP (``inputSchema``), Gemini (``functionDeclarations``,
OpenAPI type names such as ``STRING``, ``nullable``), Bedrock (``toolSpec``)
and BFCL (``"type": "dict"``, ``float``, ``tuple``, ``any``, Java/JS names).

Dialects are translated only where a schema declares itself in one (a
Gemini wrapper, a BFCL ``"type": "dict"`` root, uppercase OpenAPI names);
anything else is taken as JSON Schema and judged by the contract's rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolaudit.errors import SchemaError
from toolaudit.formats.base import as_dict, first_present, get_path
from toolaudit.jsonutil import canonical

Schemas = dict[str, dict[str, Any]]

# BFCL's own type names (and its Java/JS test files' names) -> JSON Schema.
# None means "any value": the parameter keeps no type.
BFCL_TYPES: dict[str, str | None] = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": None,
    "": None,
    "String": "string",
    "char": "string",
    "Boolean": "boolean",
    "long": "integer",
    "int": "integer",
    "Integer": "integer",
    "Long": "integer",
    "short": "integer",
    "byte": "integer",
    "double": "number",
    "Double": "number",
    "Float": "number",
    "Array": "array",
    "ArrayList": "array",
    "List": "array",
    "HashMap": "object",
    "Map": "object",
}
GEMINI_UNSPECIFIED = "TYPE_UNSPECIFIED"

# The shapes a tool definition is recognised in, in the words `toolaudit schemas` prints.
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
OPENAI_FUNCTIONS = "openai-functions"  # legacy ``functions``: a bare name and parameters
ANTHROPIC = "anthropic"
MCP = "mcp"
GEMINI = "gemini"
BEDROCK = "bedrock"
BFCL = "bfcl"
#: A file in the contract's own mapping (tool name -> {"parameters": ...}).
CONTRACT_SHAPE = "contract"


@dataclass(frozen=True)
class ToolDefinition:
    """One tool as a definition gives it: its schema in the contract's shape, the
    shape the definition was written in, and whether it asks for the provider's
    strict mode (``strict: true``, which the contract's shape has no place for)."""

    name: str
    schema: dict[str, Any]
    shape: str
    strict: bool = False


def normalize_tools(definitions: Iterable[object], *, source: str) -> Schemas:
    """Tool definitions (any supported shape) -> tool name -> schema, in the contract's shape.

    Tools without a user schema (Anthropic server tools, OpenAI built-ins,
    custom free-text tools, Gemini's googleSearch...) are skipped: no call to
    them is a JSON call to validate. Raises :class:`SchemaError` naming
    ``source`` for a definition of no known shape, or a tool defined twice
    in two different ways.
    """
    schemas: Schemas = {}
    for position, definition in enumerate(definitions):
        for tool in _tools_of(definition, f"{source}, tool #{position + 1}"):
            if tool.name in schemas and differ(schemas[tool.name], tool.schema):
                raise SchemaError("defined twice, differently", tool=tool.name, source=source)
            schemas[tool.name] = tool.schema
    return schemas


def differ(first: object, second: object) -> bool:
    """Whether two definitions differ, however deep: past the depth Python compares at,
    by their canonical JSON (two too deep to be written are left to the digest of the
    schemas, which refuses them)."""
    try:
        return bool(first != second)
    except RecursionError:
        return canonical(first) != canonical(second)


def tool_definitions(definition: object, *, source: str) -> list[ToolDefinition]:
    """The tools one entry of a tools list defines, as :func:`normalize_tools` reads
    them, with the shape each was recognised in: one entry at a time, so that a
    caller can tell which entry is defective and still read the others.

    A Gemini Tool defines several; a provider's own tool (web search...) none.
    """
    return list(_tools_of(definition, source))


def _tools_of(definition: object, where: str) -> Iterator[ToolDefinition]:
    if not isinstance(definition, Mapping):
        raise SchemaError(
            f"a tool definition must be an object, not {type(definition).__name__}", source=where
        )
    declarations = first_present(definition, "functionDeclarations", "function_declarations")
    if isinstance(declarations, list):  # a Gemini Tool
        for declaration in declarations:
            yield _declaration(declaration, where, shape=GEMINI, dialect="gemini")
        return
    function = definition.get("function")
    if definition.get("type") == "function" and isinstance(function, Mapping):  # OpenAI Chat
        yield _declaration(function, where, shape=OPENAI_CHAT)
        return
    spec = definition.get("toolSpec")
    if isinstance(spec, Mapping):  # Bedrock Converse
        schema = _json_schema(get_path(spec, "inputSchema", "json"), where)
        yield ToolDefinition(_named(spec, where), {"parameters": schema}, BEDROCK)
        return
    for key, shape in (("input_schema", ANTHROPIC), ("inputSchema", MCP)):
        if key in definition:
            yield ToolDefinition(
                _named(definition, where),
                {"parameters": _json_schema(definition[key], where)},
                shape,
                strict=definition.get("strict") is True,
            )
            return
    if _is_provider_tool(definition):
        return
    if "name" in definition:  # OpenAI Responses / legacy functions, Gemini or BFCL declarations
        flat = definition.get("type") == "function"
        yield _declaration(definition, where, shape=OPENAI_RESPONSES if flat else None)
        return
    raise SchemaError(
        "unrecognised tool definition: expected an OpenAI, Anthropic, MCP, Gemini, Bedrock or "
        "BFCL tool",
        source=where,
    )


_PROVIDER_TOOL_KEYS = (
    "googleSearch",
    "google_search",
    "googleSearchRetrieval",
    "codeExecution",
    "code_execution",
    "urlContext",
)


def _is_provider_tool(definition: Mapping[str, Any]) -> bool:
    """A tool with no user schema: a provider's own (web search, code execution:
    Anthropic's versioned types, OpenAI's built-ins and hosted MCP, Gemini's
    googleSearch), or a custom tool that takes free text."""
    kind = definition.get("type")
    if isinstance(kind, str) and kind != "function" and "parameters" not in definition:
        return True
    return any(key in definition for key in _PROVIDER_TOOL_KEYS)


def _declaration(
    declaration: object, where: str, *, shape: str | None, dialect: str | None = None
) -> ToolDefinition:
    """A function declaration (name, parameters) -> its tool. ``shape`` is the
    wrapper's; None for a bare declaration, whose dialect alone tells its shape."""
    declaration = as_dict(declaration)
    name = _named(declaration, where)
    strict = declaration.get("strict") is True
    for key in ("parametersJsonSchema", "parameters_json_schema"):
        if declaration.get(key) is not None:
            schema = _json_schema(declaration[key], where)
            return ToolDefinition(name, {"parameters": schema}, shape or GEMINI, strict)
    parameters = declaration.get("parameters")
    if parameters is None:
        # OpenAI: omitted parameters mean an empty parameter list (Responses may send null).
        empty = {"type": "object", "properties": {}}
        return ToolDefinition(name, {"parameters": empty}, shape or OPENAI_FUNCTIONS, strict)
    if not isinstance(parameters, Mapping):
        raise SchemaError("parameters must be an object", tool=name, source=where)
    root_type = parameters.get("type")
    if dialect == "gemini" or (isinstance(root_type, str) and root_type.isupper()):
        schema = gemini_to_json_schema(parameters)
        return ToolDefinition(name, {"parameters": schema}, shape or GEMINI, strict)
    if root_type == "dict":
        schema = bfcl_to_json_schema(parameters)
        return ToolDefinition(name, {"parameters": schema}, shape or BFCL, strict)
    return ToolDefinition(name, {"parameters": dict(parameters)}, shape or OPENAI_FUNCTIONS, strict)


def _named(definition: Mapping[str, Any], where: str) -> str:
    name = definition.get("name")
    if not isinstance(name, str):
        raise SchemaError("a tool definition needs a name (a string)", source=where)
    return name


def _json_schema(schema: object, where: str) -> dict[str, Any]:
    if schema is None:
        return {"type": "object", "properties": {}}
    if not isinstance(schema, Mapping):
        raise SchemaError("the tool's input schema must be an object", source=where)
    return dict(schema)


def bfcl_to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """BFCL's dialect -> JSON Schema: dict->object, float->number, tuple->array,
    any->(no type), and Java/JS type names to their JSON kinds."""
    return _translate(schema, _bfcl_type)


def gemini_to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Gemini's OpenAPI subset -> JSON Schema: lowercase type names,
    ``nullable: true`` -> ``[type, "null"]``, string enums of numbers made numbers,
    int64 bounds written as strings (``"maxItems": "3"``, as proto-JSON writes them)
    made integers."""
    return _translate(schema, _gemini_type, _gemini_bounds)


def _bfcl_type(declared: object, schema: dict[str, Any]) -> object:
    if isinstance(declared, str) and declared in BFCL_TYPES:
        return BFCL_TYPES[declared]
    return declared


def _gemini_type(declared: object, schema: dict[str, Any]) -> object:
    if not isinstance(declared, str):
        return declared
    if declared == GEMINI_UNSPECIFIED:
        return None
    lowered = declared.lower()
    if lowered in ("integer", "number") and isinstance(schema.get("enum"), list):
        # Vertex allows INTEGER with format enum and string values ("101"): compare as numbers.
        schema["enum"] = [_number_or_same(value) for value in schema["enum"]]
    if schema.pop("nullable", False) is True:
        return [lowered, "null"]
    return lowered


#: The bounds Gemini's Schema declares as int64, which its REST (proto-JSON) form writes
#: as strings.
GEMINI_INT64_BOUNDS = (
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
)
_INTEGER_TEXT = re.compile(r"-?[0-9]+")


def _gemini_bounds(schema: dict[str, Any]) -> None:
    for key in GEMINI_INT64_BOUNDS:
        value = schema.get(key)
        if isinstance(value, str) and _INTEGER_TEXT.fullmatch(value):
            schema[key] = int(value)


def _number_or_same(value: object) -> object:
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                return value
    return value


def _translate(
    schema: Mapping[str, Any],
    translate_type: Callable[[object, dict[str, Any]], object],
    each_node: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Copy ``schema`` with every ``type`` rewritten by ``translate_type`` (and each node
    given to ``each_node`` to rewrite), through ``properties`` and ``items`` at any
    depth (iteratively)."""
    root: dict[str, Any] = dict(schema)
    pending = [root]
    while pending:
        node = pending.pop()
        if each_node is not None:
            each_node(node)
        if "type" in node:
            translated = translate_type(node["type"], node)
            if translated is None:
                del node["type"]
            else:
                node["type"] = translated
        properties = node.get("properties")
        if isinstance(properties, Mapping):
            node["properties"] = {
                k: dict(v) if isinstance(v, Mapping) else v for k, v in properties.items()
            }
            pending.extend(v for v in node["properties"].values() if isinstance(v, dict))
        items = node.get("items")
        if isinstance(items, Mapping):
            node["items"] = dict(items)
            pending.append(node["items"])
    return root
