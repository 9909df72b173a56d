"""``check_response``: every call in a provider's response, judged by the contract."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolaudit.boundary.compiled import validator_for
from toolaudit.boundary.responses import calls_in
from toolaudit.contract import Validator, format_problems
from toolaudit.deep.reasons import sentence
from toolaudit.errors import ResponseError
from toolaudit.formats import Call, Extracted
from toolaudit.jsonutil import may_hold_long_integers
from toolaudit.pipeline.judge import judge_decoding, reasons

#: An error as the tool-result messages word it: (kind, subject, reason).
Finding = tuple[str, str, tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class CallCheck:
    """One call the model made, judged.

    ``errors`` are the contract's strings (with ``malformed:*`` for a call that
    cannot be read), ``why`` a sentence for each, ``arguments`` the arguments
    decoded (None when they could not be). ``format`` is the response's shape,
    which decides how :func:`~toolaudit.tool_result_messages` answers.
    """

    id: Any
    tool: str | None
    ok: bool
    errors: list[str]
    why: dict[str, str]
    arguments: Mapping[str, Any] | None
    format: str
    #: What the messages back to the model are worded from.
    findings: tuple[Finding, ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain data (what a log or an API would carry)."""
        return {
            "id": self.id,
            "tool": self.tool,
            "ok": self.ok,
            "errors": self.errors,
            "why": self.why,
            "arguments": self.arguments,
        }


def check_response(
    response: object, tools: object = None, *, deep: bool = False
) -> list[CallCheck]:
    """Judge every call in a provider's response against the tools the request sent.

    ``response`` is what the provider returned: an SDK object (openai, anthropic,
    google-genai, MCP, LangChain; anything with ``model_dump()``), a dict (boto3's
    Converse), their JSON text or bytes, or the assistant message alone. ``tools``
    is the list the request sent, in any shape ``--schemas`` accepts (None: the
    tools the record carries, for a logged request/response pair). ``deep``
    checks inside each argument too.

    Returns one :class:`CallCheck` per call, in order; none for a response
    without calls. Raises :class:`ResponseError` for a response of no known
    shape, :class:`SchemaError` for malformed tools. Compiled tools are cached
    by content, so sending the same tools every turn compiles them once.
    """
    extracted = calls_in(response)
    if not extracted.calls:
        return []
    validator = _validator(tools, extracted, deep)
    return [_checked(call, validator, extracted.format) for call in extracted.calls]


def _validator(tools: object, extracted: Extracted, deep: bool) -> Validator:
    if tools is None:
        tools = extracted.tools
        if tools is None:
            raise ResponseError("no tools to judge the calls by: pass the tools the request sent")
    return validator_for(tools, deep=deep)


def _checked(call: Call, validator: Validator, response_format: str) -> CallCheck:
    (tool, problems, _, why), decoded = judge_decoding(call, validator, None, exact=False)
    if problems and isinstance(call.arguments, str) and may_hold_long_integers(call.arguments):
        # orjson reads integers past 64 bits as floats: judge such arguments exactly.
        (tool, problems, _, why), decoded = judge_decoding(call, validator, None, exact=True)
    if not problems:
        return CallCheck(call.id, tool, True, [], {}, decoded, response_format)
    tool_validator = validator.tools.get(call.name) if isinstance(call.name, str) else None
    if decoded is not None and tool_validator is not None:
        findings = tuple(tool_validator.findings(decoded))
        reasons_of = {f"{kind}:{subject}": sentence(reason) for kind, subject, reason in findings}
    else:
        reasons_of = dict(reasons(why))
        findings = tuple(
            (kind, subject, ("text", reasons_of.get(f"{kind}:{subject}", "")))
            for kind, subject in problems
        )
        if problems and problems[0][0] == "unknown_tool":
            findings = (("unknown_tool", problems[0][1], ("unknown_tool", validator.tool_names)),)
    return CallCheck(
        call.id,
        tool,
        False,
        format_problems(problems),
        reasons_of,
        decoded,
        response_format,
        findings,
    )
