"""Which schemas judge a record's calls.

In order: the tools the record carries (a logged request's), tools keyed to
it (an OpenAI Batch input line's, by custom_id; a BFCL question's, by id),
the tools its stream last listed (MCP tools/list), then --schemas.
"""

from __future__ import annotations

from typing import Any

from toolaudit.contract import Validator, compile_schemas, kind_phrase
from toolaudit.errors import NoSchemasError, SchemaError
from toolaudit.formats import Extracted, get_format, is_format
from toolaudit.formats.declaration import KEY, STREAM
from toolaudit.jsonutil import canonical
from toolaudit.schemas.loading import SchemaSet
from toolaudit.schemas.tooldefs import normalize_tools
from toolaudit.values import quoted

#: Compiled tool sets of records (logged requests) kept for reuse, at most.
RECORD_TOOLS_CACHE = 1024
NO_TOOLS = Validator({})


def key_text(key: str | int) -> str:
    """A record's key as the schemas key their questions: an integer as its digits
    (one of more digits than Python writes names no question)."""
    if isinstance(key, str):
        return key
    try:
        return str(key)
    except ValueError:
        return ""


class RecordTools:
    """The tools that records define, for themselves or for the records after them."""

    def __init__(self, schemas: SchemaSet, *, deep: bool = False) -> None:
        self.schemas = schemas
        #: Compile the records' own tools for deep validation.
        self.deep = deep
        self._stream_tools: list[Any] | None = None
        self._stream_more_pages = False
        self._keyed_tools: dict[object, Validator | str] = {}
        self._compiled: dict[bytes, Validator | str] = {}
        #: Whether a record defined tools for later records (see parallel.py).
        self.defines_tools = False

    def new_stream(self) -> None:
        """A new source: an MCP tools/list of the last one does not judge its calls."""
        self._stream_tools, self._stream_more_pages = None, False

    def validator_for(
        self, extracted: Extracted, source: str, lineno: int
    ) -> tuple[Validator | None, str | None]:
        """(the validator, a note for unknown tools) or (None, why the record's own
        tools are malformed); raises NoSchemasError when nothing can judge it."""
        if extracted.tools is not None and extracted.defines is None:
            return self._as_result(self.compile(extracted.tools))
        key = extracted.key
        if isinstance(key, (str, int)):  # a key from the log may be any JSON value
            keyed = self._keyed_tools.get(key)
            if keyed is not None:
                return self._as_result(keyed)
            if self.schemas.keyed:
                question = self.schemas.keyed.get(key_text(key))
                if question is not None:
                    return question, None
                if self.schemas.validator is None:
                    return NO_TOOLS, f"no question with id {quoted(key)} in the schemas"
        # How the record's format takes tools an earlier record defined, if it does.
        defined = (
            get_format(extracted.format).uses_defined_tools if is_format(extracted.format) else None
        )
        if defined == STREAM and self._stream_tools is not None:
            return self._as_result(self.compile(self._stream_tools))
        if self.schemas.keyed and self.schemas.validator is None:
            # Only a string or a number names a question: the record's problem, not the run's.
            return NO_TOOLS, f"the record's id is {kind_phrase(key)}: no question has such an id"
        if self.schemas.validator is None:
            # A batch output line's tools are those of the input line of its custom_id,
            # which must have come first (the audit reads once, in order).
            earlier = (
                f" and no batch input line with custom_id {quoted(key)} came before it (give the "
                "input file before the output file)"
                if defined == KEY and isinstance(key, (str, int))
                else ""
            )
            raise NoSchemasError(
                f"{source}:{lineno}: no tool schemas for this call: the record carries no tool "
                f"definitions{earlier}, and no --schemas was given"
            )
        return self.schemas.validator, None

    def remember(self, extracted: Extracted) -> None:
        """Keep the tools a record defines for the records after it."""
        self.defines_tools = True
        if extracted.defines == STREAM:
            tools = list(extracted.tools) if isinstance(extracted.tools, list) else []
            if self._stream_more_pages and self._stream_tools is not None:
                tools = self._stream_tools + tools
            self._stream_tools, self._stream_more_pages = tools, extracted.more_pages
        elif (
            extracted.defines == KEY
            and isinstance(extracted.key, (str, int))
            and extracted.tools is not None
        ):
            self._keyed_tools[extracted.key] = self.compile(extracted.tools)

    def compile(self, tools: object) -> Validator | str:
        """A record's tool definitions, compiled (and cached by content), or why they cannot be."""
        cache_key = canonical(tools)
        if cache_key is None:
            return "they cannot be read (nested too deeply)"
        compiled = self._compiled.get(cache_key)
        if compiled is None:
            try:
                compiled = compile_schemas(
                    normalize_tools(tools if isinstance(tools, list) else [tools], source="record"),
                    deep=self.deep,
                )
            except SchemaError as error:
                compiled = str(error)
            if len(self._compiled) >= RECORD_TOOLS_CACHE:
                self._compiled.clear()
            self._compiled[cache_key] = compiled
        return compiled

    @staticmethod
    def _as_result(compiled: Validator | str) -> tuple[Validator | None, str | None]:
        return (None, compiled) if isinstance(compiled, str) else (compiled, None)
