"""The ``validate_tool_call`` contract and the compiled validator behind it.

A schema set is compiled once (:func:`compile_schemas`): every tool's schema is
checked for defects and turned into lookup tables. Validating a call is then,
for the common, valid case, one identity test of each argument's type and a
set test or two; a call that fails them takes the slower path, which alone
decides what is wrong and names every error. Nothing taken from a schema is
ever executed.

Errors are ``(kind, subject)`` pairs internally (``("type", "days")``) and
``"kind:subject"`` strings at the contract's boundary. Because no kind is a
prefix of another, sorting the pairs sorts the strings the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolaudit.errors import SchemaError
from toolaudit.values import (
    EXACT_TYPES_OF_KIND,
    SCALAR_TYPES,
    accepted_kinds,
    described,
    json_equal,
    kind_phrase,
    quoted,
    subject_of,
    value_kind,
)

if TYPE_CHECKING:
    from toolaudit.deep import DeepArguments
    from toolaudit.deep.check import Found
    from toolaudit.deep.reasons import ToolWords

# Error kinds, in the words of the contract.
UNKNOWN_TOOL = "unknown_tool"
MISSING = "missing"
UNEXPECTED = "unexpected"
TYPE = "type"
ENUM = "enum"
#: Deep mode only: a value breaks a constraint (minimum, maxLength, pattern...).
CONSTRAINT = "constraint"
MALFORMED = "malformed"

#: An error before it is formatted: (kind, subject), e.g. ("missing", "city").
Problem = tuple[str, str]

PARAMETER_KINDS = frozenset({MISSING, UNEXPECTED, TYPE, ENUM, CONSTRAINT})

#: Every kind, in the order outputs show them: a parameter's errors first, then a call's.
KINDS = (MISSING, UNEXPECTED, TYPE, ENUM, CONSTRAINT, UNKNOWN_TOOL, MALFORMED)

_NO_PROBLEMS: tuple[Problem, ...] = ()
_NOTHING_SKIPPED: frozenset[str] = frozenset()

#: What a check of the contract alone finds inside the arguments: nothing.
_NOTHING_INSIDE: Mapping[str, Found] = {}


class _Parameter:
    """One declared parameter: which value kinds it accepts and its enum."""

    __slots__ = ("accepted_kinds", "enum", "enum_fast", "enum_scalars_only", "name")

    def __init__(self, tool: str, name: str, spec: object) -> None:
        if type(spec) is not dict and not isinstance(
            spec, Mapping
        ):  # the exact test first: it is much faster
            raise SchemaError(
                f"the parameter's schema must be an object, not {kind_phrase(spec)}",
                tool=tool,
                parameter=name,
            )
        self.name = name
        #: None accepts any value.
        self.accepted_kinds: frozenset[str] | None = None
        if "type" in spec:
            try:
                self.accepted_kinds = accepted_kinds(spec["type"])
            except ValueError as error:
                raise SchemaError(str(error), tool=tool, parameter=name) from None
        self.enum: tuple[object, ...] | None = None
        #: For one-lookup membership of hashable scalars; see _enum_fast_values.
        self.enum_fast: frozenset[object] = frozenset()
        #: Whether every enum value is a plain scalar (no array, object or subclass).
        self.enum_scalars_only = False
        if "enum" in spec:
            enum = spec["enum"]
            if not isinstance(enum, (list, tuple)):
                raise SchemaError(
                    f"enum must be an array, not {kind_phrase(enum)}", tool=tool, parameter=name
                )
            self.enum = tuple(enum)
            self.enum_fast = _enum_fast_values(self.enum)
            self.enum_scalars_only = all(type(allowed) in SCALAR_TYPES for allowed in self.enum)

    def accepts(self, value: object) -> bool:
        return self.accepted_kinds is None or value_kind(value) in self.accepted_kinds

    def enum_allows(self, value: object) -> bool:
        assert self.enum is not None
        try:
            if (value if type(value) is str else (value, type(value))) in self.enum_fast:
                return True
        except TypeError:  # unhashable: only the structural comparison can tell
            pass
        else:
            if self.enum_scalars_only and type(value) in SCALAR_TYPES:
                return False  # the fast set holds every value such a scalar could equal
        return any(json_equal(value, allowed) for allowed in self.enum)


@functools.lru_cache(maxsize=256)
def _exact_types_of(kinds: frozenset[str] | None) -> frozenset[type]:
    """The exact value types that pass a type check; all of them without one."""
    return frozenset().union(
        *(
            EXACT_TYPES_OF_KIND.get(kind, ())
            for kind in (kinds if kinds is not None else EXACT_TYPES_OF_KIND)
        )
    )


def _enum_fast_values(enum: Iterable[object]) -> frozenset[object]:
    """What lets a hashable scalar be found in the enum by one set lookup.

    A string stands for itself: only a str equals a str. Any other scalar is
    paired with its exact type, which keeps ``True`` apart from ``1`` (their
    tuples differ in the type); numbers are listed under both int and float so
    that ``1`` finds ``1.0``. NaN is left out: it equals nothing, and a set
    lookup would match it by identity.
    """
    values: set[object] = set()
    for allowed in enum:
        allowed_type = type(allowed)
        if allowed_type is str:
            values.add(allowed)
        elif allowed_type in (int, float):
            if allowed == allowed:  # not NaN
                values.add((allowed, int))
                values.add((allowed, float))
        elif allowed_type in (bool, type(None)):
            values.add((allowed, allowed_type))
    return frozenset(values)


@functools.lru_cache(maxsize=256)
def _usual_type(types: frozenset[type]) -> type | None:
    for candidate in (str, int, bool, dict, list, float, type(None)):
        if candidate in types:
            return candidate
    return None


class ToolValidator:
    """The compiled schema of one tool."""

    __slots__ = (
        "_enums",
        "_exact_types",
        "_names",
        "_required_set",
        "_usual_type",
        "_words",
        "name",
        "parameters",
        "required",
    )

    def __init__(self, name: str, schema: object) -> None:
        self.name = name
        if not isinstance(schema, Mapping):
            raise SchemaError(
                f"the tool's schema must be an object, not {kind_phrase(schema)}", tool=name
            )
        parameters = schema.get("parameters", {})
        if not isinstance(parameters, Mapping):
            raise SchemaError(
                f"parameters must be an object, not {kind_phrase(parameters)}", tool=name
            )
        properties = parameters.get("properties", {})
        if not isinstance(properties, Mapping):
            raise SchemaError(
                f"properties must be an object, not {kind_phrase(properties)}", tool=name
            )
        required = parameters.get("required", ())
        if not isinstance(required, (list, tuple)):
            raise SchemaError(
                f"required must be an array of names, not {kind_phrase(required)}", tool=name
            )
        for entry in required:
            if not isinstance(entry, str):
                raise SchemaError(
                    f"required must hold parameter names, and {quoted(entry)} is not a string",
                    tool=name,
                )

        self.parameters: dict[str, _Parameter] = {
            param_name: _Parameter(name, param_name, spec)
            for param_name, spec in properties.items()
        }
        # What an unexpected argument's reason lists, as subjects are named (a Python
        # caller's name that is no string is said as str says it).
        self._names = tuple(map(subject_of, self.parameters))
        #: Its reasons' words (deep.reasons.ToolWords), made when a call first fails.
        self._words: ToolWords | None = None
        # A name listed twice is required once: dict.fromkeys keeps the first.
        self.required: tuple[str, ...] = tuple(dict.fromkeys(required))
        self._required_set = frozenset(self.required)
        # For each declared parameter, the exact value types that pass its type
        # check; an untyped parameter lists them all. A value of another type
        # (an OrderedDict, an IntEnum...) is not rejected here: it only sends
        # the call down the full path, which judges it properly.
        self._exact_types = {
            param_name: _exact_types_of(param.accepted_kinds)
            for param_name, param in self.parameters.items()
        }
        # The most common exact type of each parameter (str for a string...), or
        # None where no single type stands out: one identity test per argument
        # settles the common case before any set lookup.
        self._usual_type = {
            param_name: _usual_type(types) for param_name, types in self._exact_types.items()
        }
        self._enums = tuple(
            (param_name, param.enum_fast)
            for param_name, param in self.parameters.items()
            if param.enum is not None
        )

    @property
    def deep_arguments(self) -> DeepArguments | None:
        """The deep checks of a tool compiled for deep mode (None: the contract alone)."""
        return None

    def check(self, arguments: Mapping[Any, Any]) -> tuple[Problem, ...] | list[Problem]:
        """The problems of these arguments, sorted; an empty tuple when valid.

        The fast path below can only say "valid"; anything it is unsure of goes
        to the full path, which alone decides what is wrong. It is a plain loop
        because, measured on CPython 3.11, that beats set operations over
        zip/map for a handful of keys.
        """
        usual_type = self._usual_type
        try:
            for key, value in arguments.items():
                # KeyError: an undeclared argument.
                if usual_type[key] is not type(value) and type(value) not in self._exact_types[key]:
                    return self._check_fully(arguments)
        except KeyError:
            return self._check_fully(arguments)
        if self._required_set and not arguments.keys() >= self._required_set:
            return self._check_fully(arguments)
        for param_name, fast_values in self._enums:
            if param_name in arguments:
                value = arguments[param_name]
                try:
                    if (value if type(value) is str else (value, type(value))) in fast_values:
                        continue
                except TypeError:  # an unhashable value: compare it structurally
                    pass
                return self._check_fully(arguments)
        return _NO_PROBLEMS

    def _check_fully(self, arguments: Mapping[Any, Any]) -> list[Problem]:
        problems: list[Problem] = []
        parameters = self.parameters
        exact_types = self._exact_types
        for key, value in arguments.items():
            param = parameters.get(key)
            subject = key if isinstance(key, str) else subject_of(key)
            if param is None:
                problems.append((UNEXPECTED, subject))
            elif type(value) not in exact_types[key] and not param.accepts(value):
                problems.append((TYPE, subject))
            elif param.enum is not None and not param.enum_allows(value):
                problems.append((ENUM, subject))
        for name in self.required:
            if name not in arguments:
                problems.append((MISSING, name))
        problems.sort()
        return problems

    def explain(self, arguments: Mapping[Any, Any]) -> dict[str, str]:
        """A sentence for each error :meth:`check` finds in these arguments:
        ``{"type:days": "expected integer, got boolean true", ...}``, sorted."""
        from toolaudit.deep.reasons import sentence  # here: only a failing call is explained

        return {
            f"{kind}:{subject}": sentence(reason)
            for kind, subject, reason in self.findings(arguments)
        }

    def explain_problems(
        self, judged: tuple[Mapping[Any, Any], Sequence[Problem]]
    ) -> dict[str, str]:
        """:meth:`explain` of arguments and the problems :meth:`check` found in them, each
        reason worded from its problem without judging the arguments again (the report
        words the reasons of every failing call)."""
        return self.errors_explained(*judged)[1]

    def errors_explained(
        self, arguments: Mapping[Any, Any], problems: Sequence[Problem]
    ) -> tuple[list[str], dict[str, str]]:
        """:func:`format_problems` of the problems :meth:`check` found in these arguments,
        and :meth:`explain_problems` of them, made in one pass: a report row has both."""
        errors: list[str] = []
        inside = self._recorded_inside(problems)
        if inside is None:  # problems check() did not give: look for the reasons again
            why = self.explain(arguments)
        else:
            why = self._worded(arguments, problems, inside, errors)
        if len(errors) != len(problems):  # not all worded from the problems (see _worded)
            errors = format_problems(problems)
        return errors, why

    def _recorded_inside(self, problems: Sequence[Problem]) -> Mapping[str, Found] | None:
        """What the check recorded of the errors inside the arguments (none in the
        contract's own check); None where ``problems`` do not say."""
        return _NOTHING_INSIDE

    def _worded(
        self,
        arguments: Mapping[Any, Any],
        problems: Sequence[Problem],
        inside: Mapping[str, Found],
        errors: list[str],
    ) -> dict[str, str]:
        """The reasons of ``problems``: an error found inside an argument (deep mode) from
        what ``inside`` recorded of it, the contract's own from the arguments; each
        problem's error string appended to ``errors`` as it is worded (all of them,
        unless the reasons are looked for again by :meth:`explain`)."""
        words = self._words
        if words is None:
            from toolaudit.deep.reasons import ToolWords  # here: only a failing call is explained

            words = self._words = ToolWords(self._names)
        worded = {}
        for kind, subject in problems:
            found = inside.get(subject) if inside else None
            if found is not None:
                text = words.sentence(found[1])
            elif kind == UNEXPECTED:
                text = words.unexpected
            elif kind == MISSING:
                text = words.missing
            elif kind == TYPE and subject in arguments:
                accepted = self.parameters[subject].accepted_kinds
                assert accepted is not None  # a parameter with no type has no type errors
                text = words.wrong_type(subject, accepted, arguments[subject])
            elif kind == ENUM and subject in arguments:
                enum = self.parameters[subject].enum
                assert enum is not None
                text = words.not_allowed(subject, enum, arguments[subject])
            else:  # a key that is no string, say: as explain() finds it
                return self.explain(arguments)
            error = f"{kind}:{subject}"
            errors.append(error)
            worded[error] = text
        return worded

    def findings(self, arguments: Mapping[Any, Any]) -> list[tuple[str, str, tuple[Any, ...]]]:
        """(kind, subject, reason) of each error, sorted as :meth:`check` sorts them: the
        rules of _check_fully, with what the reasons are worded from."""
        found: list[tuple[str, str, tuple[Any, ...]]] = []
        parameters = self.parameters
        exact_types = self._exact_types
        for key, value in arguments.items():
            param = parameters.get(key)
            subject = key if isinstance(key, str) else subject_of(key)
            if param is None:
                found.append((UNEXPECTED, subject, ("unexpected_parameter", self._names)))
            elif type(value) not in exact_types[key] and not param.accepts(value):
                assert param.accepted_kinds is not None
                found.append((TYPE, subject, ("type", param.accepted_kinds, value)))
            elif param.enum is not None and not param.enum_allows(value):
                found.append((ENUM, subject, ("enum", param.enum, value)))
        for name in self.required:
            if name not in arguments:
                found.append((MISSING, name, ("missing",)))
        found.sort(key=_problem_of)
        return found


def _problem_of(found: tuple[str, str, tuple[Any, ...]]) -> Problem:
    return found[0], found[1]


class DeepProblems(list[Problem]):
    """A deep tool's problems, sorted, with what its walk recorded of each error found
    inside the arguments (path -> (kind, reason)): a report words their reasons from
    that record, without walking the arguments a second time."""

    __slots__ = ("inside",)

    #: path -> (kind, reason) of each error the walk found inside the arguments.
    inside: Mapping[str, Found]


def _deep_problems(problems: Iterable[Problem], inside: Mapping[str, Found]) -> DeepProblems:
    # (Made by list's own __init__, with no Python one: a failing call makes one.)
    made = DeepProblems(problems)
    made.inside = inside
    return made


class _DeepToolValidator(ToolValidator):
    """A tool judged in deep mode: the contract at the top level, then inside each
    argument the contract accepts (see :mod:`toolaudit.deep`)."""

    __slots__ = ("_deep",)

    def __init__(self, name: str, schema: object, deep: DeepArguments) -> None:
        super().__init__(name, schema)
        self._deep = deep

    @property
    def deep_arguments(self) -> DeepArguments:
        return self._deep

    def check(self, arguments: Mapping[Any, Any]) -> tuple[Problem, ...] | list[Problem]:
        problems = ToolValidator.check(self, arguments)
        # (No set made for the commonest case, nothing wrong at the top level.)
        skip = {subject for _, subject in problems} if problems else _NOTHING_SKIPPED
        inside = self._deep.found(arguments, skip)
        if not inside:
            return _deep_problems(problems, inside) if problems else problems
        found = _deep_problems(problems, inside)
        for path, (kind, _) in inside.items():
            found.append((kind, path))
        if len(found) > 1:
            found.sort()
        return found

    def _recorded_inside(self, problems: Sequence[Problem]) -> Mapping[str, Found] | None:
        return problems.inside if type(problems) is DeepProblems else None

    def findings(self, arguments: Mapping[Any, Any]) -> list[tuple[str, str, tuple[Any, ...]]]:
        found = super().findings(arguments)
        inside = self._deep.found(arguments, {subject for _, subject, _ in found})
        if not inside:
            return found
        found.extend((kind, path, reason) for path, (kind, reason) in inside.items())
        found.sort(key=_problem_of)
        return found


class Validator:
    """A compiled set of tool schemas; validates any number of calls against it.

    Build one with :func:`compile_schemas`. ``check_call`` (and each tool's
    ``check``) is the hot path (errors as ``(kind, subject)`` pairs); ``validate``
    is the contract (error strings).
    """

    __slots__ = ("_names", "deep", "tools")

    def __init__(self, tools: Mapping[str, ToolValidator], *, deep: bool = False) -> None:
        self.tools = dict(tools)
        #: Whether the tools were compiled for deep validation.
        self.deep = deep
        self._names: list[str] | None = None

    @property
    def tool_names(self) -> list[str]:
        """The defined tools' names, sorted (an alias is not a tool of its own); a Python
        caller's name that is no string as str says it, so that any names sort."""
        if self._names is None:
            self._names = sorted({subject_of(tool.name) for tool in self.tools.values()})
        return self._names

    def explain_unknown(self, name: str) -> dict[str, str]:
        """The reason of ``unknown_tool:<name>``, which lists the tools there are."""
        from toolaudit.deep.reasons import sentence  # here: only a failing call is explained

        return {f"{UNKNOWN_TOOL}:{name}": sentence(("unknown_tool", self.tool_names))}

    def with_aliases(self, aliases: Mapping[str, str]) -> Validator:
        """This validator, also knowing each tool under other names (alias -> defined
        name). A call under an alias is judged, and counted, as the defined tool."""
        if not aliases:
            return self
        tools = dict(self.tools)
        for alias, name in aliases.items():
            if name not in self.tools:
                raise SchemaError(f"the alias {quoted(alias)} names no tool: {quoted(name)}")
            tools.setdefault(alias, self.tools[name])
        return Validator(tools, deep=self.deep)

    def check_call(self, call: object) -> tuple[Problem, ...] | list[Problem]:
        """The sorted problems of one call given as ``{"name", "arguments"}``."""
        name = call.get("name") if isinstance(call, Mapping) else None
        if not isinstance(name, str):
            return [(MALFORMED, "name")]
        tool = self.tools.get(name)
        if tool is None:
            return [(UNKNOWN_TOOL, name)]
        assert isinstance(call, Mapping)
        if "arguments" not in call:
            return tool.check({})
        arguments = call["arguments"]
        if not isinstance(arguments, Mapping):
            return [(MALFORMED, "arguments")]
        return tool.check(arguments)

    def validate(self, call: object, *, explain: bool = False) -> dict[str, Any]:
        """The contract's result for one call: ``{"ok": bool, "errors": [...]}``;
        with ``explain``, also ``"why"``: a sentence for each error."""
        errors = format_problems(self.check_call(call))
        if not explain:
            return {"ok": not errors, "errors": errors}
        return {"ok": not errors, "errors": errors, "why": self.explain_call(call)}

    def explain_call(self, call: object) -> dict[str, str]:
        """A sentence for each error of :meth:`check_call`, keyed by the error string."""
        name = call.get("name") if isinstance(call, Mapping) else None
        if not isinstance(name, str):
            return explain_malformed_name(name if isinstance(call, Mapping) else call)
        tool = self.tools.get(name)
        if tool is None:
            return self.explain_unknown(name)
        assert isinstance(call, Mapping)
        arguments = call.get("arguments", {})
        if not isinstance(arguments, Mapping):
            return {
                f"{MALFORMED}:arguments": f"expected the arguments as an object, got "
                f"{described(arguments)}"
            }
        return tool.explain(arguments)


def explain_malformed_name(name: object) -> dict[str, str]:
    """The reason of ``malformed:name``, for a call whose name is ``name``."""
    return {f"{MALFORMED}:name": f"expected the tool's name as a string, got {described(name)}"}


def format_problems(problems: Iterable[Problem]) -> list[str]:
    """``[("missing", "city")]`` -> ``["missing:city"]``."""
    return [f"{kind}:{subject}" for kind, subject in problems]


def compile_schemas(schemas: Mapping[str, object], *, deep: bool = False) -> Validator:
    """Check every tool's schema once and compile it for fast validation.

    With ``deep``, calls are also checked inside each argument (nested objects
    and arrays, ``$ref``, combinators, constraints; see docs/deep.md).

    Raises :class:`SchemaError`, naming the tool and the parameter, when a
    schema is malformed or uses a type name the contract does not know (with
    ``deep``, also where deep mode could not judge by it).
    """
    if not isinstance(schemas, Mapping):
        raise SchemaError(f"schemas must map tool names to schemas, not {kind_phrase(schemas)}")
    compile_tool = _deep_tool if deep else ToolValidator
    tools: dict[str, ToolValidator] = {}
    for name, schema in schemas.items():
        try:
            tools[name] = compile_tool(name, schema)
        except (OverflowError, RecursionError) as error:
            # What a hostile schema holds (a maxLength of 400 digits, a type nested 1,000
            # levels deep) is a defect of the schema, never a crash of whoever compiles it.
            raise beyond_reach(name, error) from None
    return Validator(tools, deep=deep)


def beyond_reach(tool: str, error: OverflowError | RecursionError) -> SchemaError:
    """The defect of a tool whose schema compiling could not take in: a number beyond a
    double's range (OverflowError), or nesting too deep (RecursionError)."""
    if isinstance(error, OverflowError):
        reason = "a number in its schema is too large to judge by (beyond a double's range)"
    else:
        reason = "its schema is nested too deeply to be read"
    return SchemaError(reason, tool=tool)


def _deep_tool(name: str, schema: object) -> ToolValidator:
    from toolaudit.deep import DeepArguments  # here: only deep mode loads it

    plain = ToolValidator(name, schema)  # the contract's defects first
    assert isinstance(schema, Mapping)
    deep = DeepArguments(name, schema.get("parameters", {}))
    # A tool whose arguments hold nothing deep mode would look into is judged by
    # the contract alone, at the contract's speed.
    return _DeepToolValidator(name, schema, deep) if deep.nodes else plain


def validate_tool_call(
    schemas: Mapping[str, object], call: object, *, deep: bool = False, explain: bool = False
) -> dict[str, Any]:
    """Validate one tool call against a mapping of tool name -> schema.

    Returns ``{"ok": bool, "errors": [...]}`` with the errors sorted:
    ``unknown_tool:<name>`` (alone), ``missing:<param>``, ``unexpected:<param>``,
    ``type:<param>``, ``enum:<param>``, or ``malformed:name`` /
    ``malformed:arguments`` (alone) for a call that is not shaped like one.
    Raises :class:`SchemaError` when the schemas themselves are malformed.

    ``deep`` also checks inside each argument (errors such as
    ``type:filters.date`` and ``constraint:days``); ``explain`` adds ``"why"``,
    a short sentence for each error. Neither changes a result without them.
    """
    return compile_schemas(schemas, deep=deep).validate(call, explain=explain)
