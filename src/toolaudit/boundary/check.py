"""``check_response``: every call in a provider's response, judged by the contract."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from toolaudit.boundary.compiled import validator_for
from toolaudit.boundary.responses import calls_in
from toolaudit.contract import UNKNOWN_TOOL, Validator, format_problems
from toolaudit.deep.reasons import sentence
from toolaudit.errors import NoSchemasError, ResponseError, SchemaError, ToolAuditError
from toolaudit.formats import FALLBACK_REPLY_SHAPE, Call
from toolaudit.jsonutil import dumps_any
from toolaudit.pipeline.judge import judge_apart, reasons

#: An error as the tool-result messages word it: (kind, subject, reason).
Finding = tuple[str, str, tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class CallCheck:
    """One call the model made, judged.

    ``index`` is the call's place in the response; ``errors`` are the contract's
    strings (with ``malformed:*`` for a call that cannot be read), ``why`` a
    sentence for each, ``arguments`` the arguments decoded (None when they could
    not be), ``detail`` what else a person should know (the response was cut
    off by its length limit...). ``format`` is the response's format.
    """

    id: Any
    index: int
    tool: str | None
    ok: bool
    errors: list[str]
    why: dict[str, str]
    arguments: Mapping[str, Any] | None
    detail: str | None
    format: str
    #: The tool-result shape the call is answered in (see tool_result_messages).
    reply_shape: str = field(default=FALLBACK_REPLY_SHAPE, repr=False)
    #: What the messages back to the model are worded from.
    findings: tuple[Finding, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (what a log or an API would carry)."""
        return {
            "id": self.id,
            "index": self.index,
            "tool": self.tool,
            "ok": self.ok,
            "errors": self.errors,
            "why": self.why,
            "arguments": self.arguments,
            "detail": self.detail,
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text, exact for every value the arguments can hold
        (``json.dumps`` refuses a number read beyond a double's range, an
        :class:`~toolaudit.jsonutil.ExactNumber`, and writes NaN and infinities as no
        JSON; here those are written exactly, and as null)."""
        return dumps_any(self.to_dict()).decode()


def check_response(
    response: object, tools: object = None, *, deep: bool = False
) -> list[CallCheck]:
    """Judge every call in a provider's response against the tools the request sent.

    ``response`` is what the provider returned: an SDK object (openai, anthropic,
    google-genai, MCP, LangChain; anything with ``model_dump()``), a dict (boto3's
    Converse), their JSON text or bytes, or the assistant message alone. ``tools``
    is the list the request sent, in any shape ``--schemas`` accepts, or a
    :class:`~toolaudit.SchemaSet` from ``load_schemas`` (None: the tools the
    record carries, for a logged request/response pair). ``deep`` checks inside
    each argument too.

    Returns one :class:`CallCheck` per call, in order; none for a response
    without calls. Raises :class:`ResponseError` for a response of no known
    shape, :class:`SchemaError` for malformed tools, :class:`NoSchemasError` when
    there are no tools to judge by. Compiled tools are cached by content, so
    sending the same tools every turn compiles them once.
    """
    # Nesting deeper than the interpreter's stack (a block's type, a BFCL result, tools
    # near the parser's 1,024 levels) is the input's defect, said as one, never a
    # RecursionError; caught here, once, rather than at each place that recurses.
    try:
        extracted, shape = calls_in(response)
    except RecursionError:
        raise ResponseError(_TOO_DEEP.format("the response")) from None
    except ValueError as error:  # an integer str() will not write (4,300 digits), say
        if isinstance(error, ToolAuditError):
            raise
        raise ResponseError(f"the response cannot be read: {error}") from None
    if tools is None and extracted.tools is None:
        if not extracted.calls:
            return []
        raise NoSchemasError("no tools to judge the calls by: pass the tools the request sent")
    # Compiled even for a response without calls: malformed tools are said at once.
    try:
        validator = validator_for(tools if tools is not None else extracted.tools, deep=deep)
    except RecursionError:
        raise SchemaError(_TOO_DEEP.format("the tools")) from None
    try:
        return [_checked(call, validator, extracted.format, shape) for call in extracted.calls]
    except RecursionError:
        raise ResponseError(_TOO_DEEP.format("a call of the response")) from None


_TOO_DEEP = "{} is nested too deeply to read (deeper than Python's recursion limit)"


def _checked(call: Call, validator: Validator, response_format: str, shape: str) -> CallCheck:
    (tool, problems, detail, why), decoded = judge_apart(call, validator, None)
    if not problems:
        return CallCheck(
            call.id, call.index, tool, True, [], {}, decoded, detail, response_format, shape
        )
    tool_validator = validator.tools.get(call.name) if isinstance(call.name, str) else None
    # Each error's finding: the tool's own where it judged the arguments; the reason the
    # verdict gives for the others (unreadable arguments, where a call was found...).
    by_tool: dict[tuple[str, str], tuple[str, str, tuple[Any, ...]]] = {}
    if decoded is not None and tool_validator is not None:
        by_tool = {finding[:2]: finding for finding in tool_validator.findings(decoded)}
    said: Mapping[str, str] | None = None
    findings = []
    reasons_of = {}
    for kind, subject in problems:
        error = f"{kind}:{subject}"
        finding = by_tool.get((kind, subject))
        if finding is not None:
            reasons_of[error] = sentence(finding[2])
        else:
            said = said if said is not None else reasons(why)
            reasons_of[error] = said.get(error, "")
            reason = ("unknown_tool", validator.tool_names) if kind == UNKNOWN_TOOL else None
            finding = (kind, subject, reason or ("text", reasons_of[error]))
        findings.append(finding)
    if (UNKNOWN_TOOL, call.name) in problems:
        decoded = _decoded_anyway(call.arguments)
    return CallCheck(
        call.id,
        call.index,
        tool,
        False,
        format_problems(problems),
        reasons_of,
        decoded,
        detail,
        response_format,
        shape,
        tuple(findings),
    )


def _decoded_anyway(arguments: object) -> Mapping[str, Any] | None:
    """The arguments of a call to an unknown tool, when they read as an object."""
    if isinstance(arguments, Mapping):
        return arguments
    if isinstance(arguments, str):
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return None
        return decoded if isinstance(decoded, dict) else None
    return None
