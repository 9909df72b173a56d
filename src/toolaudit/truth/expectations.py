"""What an audit needs to score its records: the expected entries, how a record's id is
found, how calls are compared, and what the schemas say beyond validation (defaults,
BFCL's function docs).

:func:`load_expectations` builds one from the command line's files;
:meth:`Expectations.score` scores one record. The audit decides which records are
scored and counts the scores (see :mod:`toolaudit.pipeline.scoring`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolaudit.errors import ExpectedError, OptionError
from toolaudit.formats import Extracted, get_format, is_format
from toolaudit.formats.base import ABSENT, JSON_STRING, OBJECT, Call
from toolaudit.jsonutil import dumps_any
from toolaudit.schemas.files import loads_json
from toolaudit.schemas.loading import SchemaSet
from toolaudit.truth.bfcl import relevance_expected, score_bfcl
from toolaudit.truth.entries import Expected, ExpectedSet, LocatedProblem, id_text
from toolaudit.truth.expected import no_collection, read_expected
from toolaudit.truth.match import UNREADABLE, MadeCall, Score, score
from toolaudit.values import shown

#: How calls are compared with the expected ones: toolaudit's own rules, or BFCL's.
MATCHES = ("default", "bfcl")

#: Tool -> parameter -> the default its schema declares.
Defaults = Mapping[str, Mapping[str, object]]


@dataclass(frozen=True)
class Expectations:
    """The expected calls of an audit and how to score records against them.

    ``key`` is the dotted path of a record's id (``metadata.eval_id``); None takes the
    id the record's format names (a BFCL line's ``id``, a Batch line's ``custom_id``),
    else the record's ``id``. ``functions`` holds each BFCL question's function docs as
    its file gives them (for ``match="bfcl"``); ``defaults`` the schemas' defaults, for
    every call (``""``) and for each question's own tools (by its id).
    """

    entries: ExpectedSet
    match: str = "default"
    key: str | None = None
    functions: Mapping[str, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    defaults: Mapping[str, Defaults] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.match not in MATCHES:
            raise OptionError(f"--match must be one of {', '.join(MATCHES)}, not {self.match!r}")
        if self.key is not None and (not self.key or "" in self.key.split(".")):
            raise OptionError(
                f"--expected-key needs a dotted field path such as metadata.eval_id, not "
                f"{self.key!r}"
            )

    def entry_for(self, id: str) -> Expected | None:
        """The entry a record of this id is scored against: its expected line, else for a
        BFCL relevance or irrelevance prompt (which have no possible answers) whether
        any call, or none, was wanted; None: the record is not scored."""
        entry = self.entries.entries.get(id)
        return entry if entry is not None else relevance_expected(id)

    def id_of(self, record: Mapping[str, Any], extracted: Extracted | None) -> str | None:
        """The id a record is scored under; None when it has none (a string or an integer)."""
        if self.key is None:
            if extracted is not None and extracted.key is not None:
                return id_text(extracted.key)
            return id_text(record.get("id"))
        value: object = record
        for step in self.key.split("."):
            value = value.get(step) if isinstance(value, Mapping) else None
        return id_text(value)

    def score(
        self, expected: Expected, record: Mapping[str, Any], extracted: Extracted | None
    ) -> tuple[Score, list[str]]:
        """Score a record against its entry: the score, and the names of the tools the
        record called (as many times as it called them). ``extracted`` is None for a
        record that could not be read as any format's (then ``unparseable``)."""
        made = self.made_of(extracted)
        if self.match == "bfcl":
            made_tools = [] if made is None else [_tool_name(call.name) for call in made]
            raw = None if extracted is None else _logged_output(record, extracted)
            functions = self.functions.get(expected.id, ())
            return score_bfcl(expected, raw, functions), made_tools
        return self.score_made(expected, made, self.defaults_for(extracted))

    @staticmethod
    def made_of(extracted: Extracted | None) -> list[MadeCall] | None:
        """A record's calls as :meth:`score` reads them (None: ``unparseable``)."""
        calls = extracted.calls if extracted is not None else None
        return None if calls is None else made_calls(calls)

    def score_made(
        self, expected: Expected, made: list[MadeCall] | None, defaults: Defaults | None = None
    ) -> tuple[Score, list[str]]:
        """:meth:`score` of calls already read as the scorer reads them (None: the output
        could not be read as calls), under the default match; ``defaults``: those of the
        tools that judge any call, unless given."""
        made_tools = [] if made is None else [_tool_name(call.name) for call in made]
        if defaults is None:
            defaults = self.defaults.get("", {})
        return score(expected, made, defaults=defaults), made_tools

    def defaults_for(self, extracted: Extracted | None) -> Defaults:
        """The defaults a record's calls are scored with: those of its question's tools
        (by the format's key), else those of the tools that judge any call."""
        key = None if extracted is None else id_text(extracted.key)
        if key is not None and key in self.defaults:
            return self.defaults[key]
        return self.defaults.get("", {})


def made_calls(calls: Iterable[Call]) -> list[MadeCall] | None:
    """A record's calls as the scorer reads them; None when one could not be read at all
    (no name: a call attempt in text that did not parse), which makes the output
    ``unparseable``."""
    made = []
    for call in calls:
        if call.name is None and call.failure is not None:
            return None
        made.append(MadeCall(call.index, call.name, _arguments(call)))
    return made


def _arguments(call: Call) -> object:
    """A call's arguments as an object, or UNREADABLE."""
    arguments = call.arguments
    if arguments is ABSENT:
        return {}
    if isinstance(arguments, str) and call.encoding in (JSON_STRING, OBJECT):
        try:
            arguments = loads_json(arguments.encode("utf-8", "surrogatepass"))
        except (ValueError, RecursionError):
            return UNREADABLE
    return arguments if isinstance(arguments, dict) else UNREADABLE


def _tool_name(name: object) -> str:
    return name if isinstance(name, str) else shown(name)


def _logged_output(record: Mapping[str, Any], extracted: Extracted) -> object:
    """The model's output as BFCL's decoder reads it: the format's own logged output (a
    BFCL result's ``result``), else the record's calls written as a function-calling
    model's (``[{name: "<JSON arguments>"}]``); None for calls that cannot be."""
    fmt = get_format(extracted.format) if is_format(extracted.format) else None
    if fmt is not None and fmt.logged_output is not None:
        return record.get(fmt.logged_output)
    output: list[dict[str, object]] = []
    for call in extracted.calls:
        if not isinstance(call.name, str):
            return None
        arguments = call.arguments
        if arguments is ABSENT:
            arguments = "{}"
        elif not isinstance(arguments, str):
            try:
                arguments = dumps_any(arguments).decode()
            except (TypeError, ValueError):
                return None
        output.append({call.name: arguments})
    return output


def load_expectations(
    paths: str | Sequence[str],
    *,
    match: str = "default",
    key: str | None = None,
    schemas: SchemaSet | None = None,
    schema_paths: Sequence[str] = (),
    storage_options: Mapping[str, Any] | None = None,
) -> Expectations:
    """Read expected-calls files (paths or URLs) and what the schemas tell the scorer.

    Raises :class:`~toolaudit.errors.InputError` or
    :class:`~toolaudit.errors.ExpectedError` for a file that cannot be used (an id
    expected twice, in one file or in two); their other bad lines are the entries'
    ``problems``.
    """
    # Nothing read here is garbage, and none of it holds cycles: the collector, run as
    # it is made, would only walk it (and the schemas, as large) again and again.
    if match == "bfcl":
        # here: msgspec, which it loads, stays out of audits of no typed format
        from toolaudit.truth.bfcl_functions import question_functions
    with no_collection():
        entries = _read_all([paths] if isinstance(paths, str) else paths, storage_options)
        functions: Mapping[str, Sequence[Mapping[str, Any]]] = (
            question_functions(schema_paths, storage_options) if match == "bfcl" else {}
        )
        # (BFCL's checker reads no defaults.)
        defaults = schema_defaults(schemas) if schemas is not None and match != "bfcl" else {}
    return Expectations(entries, match, key, functions, defaults)


def _read_all(paths: Sequence[str], storage_options: Mapping[str, Any] | None) -> ExpectedSet:
    """Several expected files as one set; an id in two of them is an error naming both."""
    if len(paths) == 1:
        return read_expected(paths[0], storage_options=storage_options)
    entries: dict[str, Expected] = {}
    problems: list[LocatedProblem] = []
    for path in paths:
        one = read_expected(path, storage_options=storage_options)
        for id, entry in one.items():
            earlier = entries.setdefault(id, entry)
            if earlier is not entry:
                raise ExpectedError(
                    f"id {id!r} is expected twice: in expected file {earlier.source}, line "
                    f"{earlier.line}, and in {path}, line {entry.line}"
                )
        problems.extend(one.problems)
    return ExpectedSet(entries, problems)


def schema_defaults(schemas: SchemaSet) -> dict[str, Defaults]:
    """The parameters' declared defaults: ``""`` -> those of the tools that judge any
    call, a question's id -> its own tools'."""
    definitions = schemas.definitions
    if definitions is None:
        return {}
    if isinstance(definitions, bytes):
        found = _declared_defaults(definitions)
        if found is not None:
            return found
        definitions = orjson.loads(definitions)
    tools, keyed = definitions
    found = {"": _defaults(tools)}
    for question, question_tools in keyed.items():
        defaults = _defaults(question_tools)
        if defaults:
            found[question] = defaults
    return found


def _declared_defaults(definitions: bytes) -> dict[str, Defaults] | None:
    """:func:`schema_defaults` of definitions as JSON text, parsing only the tools whose
    text may declare a default (BFCL's thousands of questions mostly declare none); None
    for text not of the expected shape (then parsed whole)."""
    import msgspec

    try:
        tools, keyed = msgspec.json.decode(
            definitions, type=tuple[msgspec.Raw, dict[str, msgspec.Raw]]
        )
    except msgspec.DecodeError:
        return None
    found: dict[str, Defaults] = {"": _defaults(orjson.loads(bytes(tools)))}
    for question, raw in keyed.items():
        text = bytes(raw)
        # (orjson wrote the text: a key "default" is written so, never with escapes.)
        if b'"default"' in text:
            defaults = _defaults(orjson.loads(text))
            if defaults:
                found[question] = defaults
    return found


def _defaults(tools: Mapping[str, Any]) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    for name, schema in tools.items():
        parameters = schema.get("parameters") if isinstance(schema, Mapping) else None
        properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
        if not isinstance(properties, Mapping):
            continue
        declared = {
            parameter: spec["default"]
            for parameter, spec in properties.items()
            if isinstance(spec, Mapping) and "default" in spec
        }
        if declared:
            found[name] = declared
    return found
