"""``check_response`` and ``tool_result_messages`` on the providers' own SDK types.

Each response is built from its SDK's models (openai, anthropic, google-genai), as
a client would return it, without a client and without the network. Every call
in it is one of a few known cases (valid, a required parameter missing, a bool
for an integer, several problems at once, an unknown tool, and for OpenAI
arguments that are not JSON), so that each result can be asserted exactly. The
object, its ``model_dump()`` and its JSON give the same results; the bare message
forms too. The messages back to the model validate as the same SDKs' request
parameter types and name each problem plainly.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pydantic
import pytest
from anthropic.types import (
    Message,
    MessageParam,
    TextBlock,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlock,
    Usage,
)
from google.genai import types as genai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionFunctionTool,
    ChatCompletionMessage,
    ChatCompletionMessageCustomToolCall,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
    ChatCompletionToolMessageParam,
    ChatCompletionToolParam,
)
from openai.types.chat.chat_completion import Choice
from openai.types.chat.chat_completion_message import FunctionCall as LegacyFunctionCall
from openai.types.chat.chat_completion_message_custom_tool_call import Custom
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.responses import (
    FunctionTool,
    FunctionToolParam,
    Response,
    ResponseFunctionToolCall,
    ResponseInputItemParam,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_input_item_param import FunctionCallOutput
from openai.types.shared import FunctionDefinition as FunctionDefinitionModel
from openai.types.shared_params import FunctionDefinition

import toolaudit

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
    "required": ["city"],
}
#: The same tool in the contract's own shape: what every SDK shape must amount to.
CONTRACT_TOOLS = {"get_weather": {"parameters": WEATHER}}


@dataclass(frozen=True)
class Spec:
    """One call the model makes, and what the contract says of it."""

    key: str  #: the call id is the provider's prefix + key
    tool: str
    arguments: dict[str, Any] | str  #: a string is sent as it is (OpenAI's JSON text)
    errors: list[str]
    why: dict[str, str]
    says: tuple[str, ...] = ()  #: what the note back to the model must say

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def as_text(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


VALID = Spec("ok", "get_weather", {"city": "Paris", "days": 3}, [], {})
MISSING = Spec(
    "missing",
    "get_weather",
    {"days": 2},
    ["missing:city"],
    {"missing:city": "required"},
    ("`city` is required", "Call `get_weather` again with corrected arguments."),
)
WRONG_TYPE = Spec(
    "bool",
    "get_weather",
    {"city": "Paris", "days": True},
    ["type:days"],
    {"type:days": "expected integer, got boolean true"},
    ("`days` must be an integer, got true",),
)
SEVERAL = Spec(
    "several",
    "get_weather",
    {"days": True, "tz": "UTC"},
    ["missing:city", "type:days", "unexpected:tz"],
    {
        "missing:city": "required",
        "type:days": "expected integer, got boolean true",
        "unexpected:tz": "not a parameter of this tool (parameters: city, days)",
    },
    (
        "`city` is required",
        "`days` must be an integer, got true",
        "`tz` is not a parameter of `get_weather` (its parameters are city, days)",
    ),
)
UNKNOWN = Spec(
    "unknown",
    "get_forecast",
    {"city": "Paris"},
    ["unknown_tool:get_forecast"],
    {"unknown_tool:get_forecast": "no tool of this name (tools: get_weather)"},
    (
        "there is no tool `get_forecast`; the tools are get_weather",
        "Call one of the tools instead.",
    ),
)
NOT_JSON = Spec(
    "json",
    "get_weather",
    '{"city": "Par',
    ["malformed:arguments"],
    {"malformed:arguments": "arguments are not valid JSON: unexpected end of data (column 14)"},
    (
        "its arguments must be one JSON object",
        "arguments are not valid JSON",
        "Call `get_weather` again with corrected arguments.",
    ),
)
#: Providers whose SDK holds the arguments as an object (no JSON text to break).
OBJECT_CALLS = (VALID, MISSING, WRONG_TYPE, SEVERAL, UNKNOWN)
#: OpenAI sends the arguments as JSON text, which may not parse.
TEXT_CALLS = (*OBJECT_CALLS, NOT_JSON)


# The responses, built with each SDK's models.


def chat_completion(specs: tuple[Spec, ...]) -> ChatCompletion:
    calls = [
        ChatCompletionMessageFunctionToolCall(
            id=f"call_{spec.key}",
            type="function",
            function=Function(name=spec.tool, arguments=spec.as_text),
        )
        for spec in specs
    ]
    message = ChatCompletionMessage(role="assistant", content=None, tool_calls=calls)
    return ChatCompletion(
        id="chatcmpl-1",
        object="chat.completion",
        created=1_730_000_000,
        model="gpt-4o-2024-08-06",
        choices=[Choice(index=0, finish_reason="tool_calls", logprobs=None, message=message)],
    )


def responses_response(specs: tuple[Spec, ...]) -> Response:
    text = ResponseOutputMessage(
        id="msg_1",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text="Let me check.", annotations=[])],
    )
    calls = [
        ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{spec.key}",
            call_id=f"call_{spec.key}",
            name=spec.tool,
            arguments=spec.as_text,
            status="completed",
        )
        for spec in specs
    ]
    return Response(
        id="resp_1",
        object="response",
        created_at=1_741_476_542,
        model="gpt-4.1-2025-04-14",
        status="completed",
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        output=[text, *calls],
    )


def anthropic_message(specs: tuple[Spec, ...]) -> Message:
    blocks = [
        ToolUseBlock(type="tool_use", id=f"toolu_{spec.key}", name=spec.tool, input=spec.arguments)
        for spec in specs
    ]
    return Message(
        id="msg_01",
        type="message",
        role="assistant",
        model="claude-sonnet-4-5",
        stop_reason="tool_use",
        stop_sequence=None,
        usage=Usage(input_tokens=472, output_tokens=89),
        content=[TextBlock(type="text", text="I'll check."), *blocks],
    )


def gemini_response(specs: tuple[Spec, ...], *, ids: bool = True) -> genai.GenerateContentResponse:
    parts = [
        genai.Part(
            function_call=genai.FunctionCall(
                id=f"fc_{spec.key}" if ids else None, name=spec.tool, args=spec.arguments
            )
        )
        for spec in specs
    ]
    return genai.GenerateContentResponse(
        candidates=[
            genai.Candidate(
                index=0,
                finish_reason=genai.FinishReason.STOP,
                content=genai.Content(role="model", parts=[genai.Part(text="Checking."), *parts]),
            )
        ],
        model_version="gemini-2.5-flash",
        response_id="r-1",
    )


# The tools, as each SDK's request parameters.

OPENAI_CHAT_TOOLS = [
    ChatCompletionToolParam(
        type="function",
        function=FunctionDefinition(
            name="get_weather", description="Current weather", parameters=WEATHER
        ),
    )
]
RESPONSES_TOOLS = [
    FunctionToolParam(
        type="function",
        name="get_weather",
        description="Current weather",
        parameters=WEATHER,
        strict=False,
    )
]
ANTHROPIC_TOOLS = [
    ToolParam(name="get_weather", description="Current weather", input_schema=WEATHER)
]
GEMINI_TOOLS = [
    genai.Tool(
        function_declarations=[
            genai.FunctionDeclaration(
                name="get_weather",
                description="Current weather",
                parameters=genai.Schema(
                    type=genai.Type.OBJECT,
                    properties={
                        "city": genai.Schema(type=genai.Type.STRING),
                        "days": genai.Schema(type=genai.Type.INTEGER),
                    },
                    required=["city"],
                ),
            )
        ]
    )
]


# The messages back to the model, validated as each SDK's request types.


@functools.cache
def adapter(typed: Any) -> pydantic.TypeAdapter[Any]:
    """One adapter per type: building one for a large union takes a good part of a second."""
    return pydantic.TypeAdapter(typed)


def exactly(typed: Any, value: object) -> Any:
    """``value`` validated as ``typed``, and nothing dropped or coerced on the way (a
    TypedDict ignores unknown keys: the round trip catches a misspelt one)."""
    validated = adapter(typed).validate_python(value)
    assert validated == value
    return validated


def openai_chat_answers(messages: list[dict[str, Any]]) -> list[tuple[Any, str]]:
    for message in messages:
        exactly(ChatCompletionToolMessageParam, message)
        exactly(ChatCompletionMessageParam, message)  # the type of `messages=`
    return [(message["tool_call_id"], message["content"]) for message in messages]


def responses_answers(messages: list[dict[str, Any]]) -> list[tuple[Any, str]]:
    for message in messages:
        exactly(FunctionCallOutput, message)
        exactly(ResponseInputItemParam, message)  # an item of `input=`
    return [(message["call_id"], message["output"]) for message in messages]


def anthropic_answers(messages: list[dict[str, Any]]) -> list[tuple[Any, str]]:
    [message] = messages  # every result of the turn in one user message
    validated = adapter(MessageParam).validate_python(message)
    assert validated["role"] == "user"
    # An Iterable is validated lazily: consume it (while its adapter is alive, or
    # pydantic-core panics).
    assert len(list(validated["content"])) == len(message["content"])
    for block in message["content"]:
        exactly(ToolResultBlockParam, block)
    return [(block["tool_use_id"], block["content"]) for block in message["content"]]


def gemini_answers(messages: list[dict[str, Any]]) -> list[tuple[Any, str]]:
    [message] = messages
    content = genai.Content.model_validate(message)  # extra="forbid": no stray key passes
    assert content.role == "user"
    assert content.model_dump(mode="json", by_alias=True, exclude_none=True) == message
    answers = []
    for part in content.parts or []:
        response = part.function_response
        assert response is not None and response.response is not None
        [(_, text)] = response.response.items()
        answers.append((response.id, text))
    return answers


@dataclass(frozen=True)
class Provider:
    name: str
    format: str
    prefix: str  #: of the call ids
    specs: tuple[Spec, ...]
    build: Callable[[tuple[Spec, ...]], pydantic.BaseModel]
    tools: list[Any]
    answers: Callable[[list[dict[str, Any]]], list[tuple[Any, str]]]
    #: The assistant message alone, as an agent may hold it.
    bare: Callable[[Any], dict[str, object]] | None = None

    @property
    def response(self) -> pydantic.BaseModel:
        return self.build(self.specs)

    def id_of(self, spec: Spec) -> str:
        return f"{self.prefix}{spec.key}"


def _openai_bare(response: ChatCompletion) -> dict[str, object]:
    message = response.choices[0].message
    return {
        "choices[0].message": message,
        "choices[0].message.model_dump()": message.model_dump(),
        "choices[0].message.model_dump_json()": message.model_dump_json(),
    }


def _anthropic_bare(response: Message) -> dict[str, object]:
    # What an agent appends to its history: the content blocks as dumped, or as params.
    dumped = {"role": "assistant", "content": [block.model_dump() for block in response.content]}
    param: dict[str, Any] = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
            if isinstance(block, ToolUseBlock)
            else {"type": "text", "text": block.text}
            for block in response.content
            if isinstance(block, (ToolUseBlock, TextBlock))
        ],
    }
    validated = adapter(MessageParam).validate_python(param)
    assert len(list(validated["content"])) == len(response.content)
    return {
        "content blocks dumped": dumped,
        "MessageParam": param,
        "MessageParam JSON": json.dumps(param),
    }


PROVIDERS = [
    Provider(
        "openai-chat",
        "openai-chat",
        "call_",
        TEXT_CALLS,
        chat_completion,
        OPENAI_CHAT_TOOLS,
        openai_chat_answers,
        _openai_bare,
    ),
    Provider(
        "openai-responses",
        "openai-responses",
        "call_",
        TEXT_CALLS,
        responses_response,
        RESPONSES_TOOLS,
        responses_answers,
    ),
    Provider(
        "anthropic",
        "anthropic",
        "toolu_",
        OBJECT_CALLS,
        anthropic_message,
        ANTHROPIC_TOOLS,
        anthropic_answers,
        _anthropic_bare,
    ),
    Provider(
        "google-genai",
        "gemini",
        "fc_",
        OBJECT_CALLS,
        gemini_response,
        GEMINI_TOOLS,
        gemini_answers,
    ),
]
BY_NAME = {provider.name: provider for provider in PROVIDERS}
each_provider = pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)


def forms_of(model: pydantic.BaseModel) -> dict[str, object]:
    """The ways an agent may hold one response."""
    return {
        "model_dump()": model.model_dump(),
        "model_dump(mode='json')": model.model_dump(mode="json"),
        "model_dump_json()": model.model_dump_json(),
        "model_dump_json() bytes": model.model_dump_json().encode(),
    }


def facts(results: list[toolaudit.CallCheck]) -> list[tuple[object, ...]]:
    """Everything a result says, findings (what the messages are worded from) included."""
    return [(r, r.to_dict(), r.format, r.findings) for r in results]


@each_provider
def test_the_results_are_what_the_contract_says(provider: Provider) -> None:
    results = toolaudit.check_response(provider.response, provider.tools)

    assert [r.id for r in results] == [provider.id_of(spec) for spec in provider.specs]
    for result, spec in zip(results, provider.specs, strict=True):
        assert result.tool == spec.tool
        assert result.ok is spec.ok
        assert result.errors == spec.errors
        assert result.why == spec.why
        assert result.format == provider.format
        if spec is NOT_JSON:
            assert result.arguments is None
        else:  # an unknown tool's arguments are decoded too, when they read as an object
            assert result.arguments == spec.arguments
        assert result.to_dict() == {
            "id": provider.id_of(spec),
            "index": result.index,
            "tool": spec.tool,
            "ok": spec.ok,
            "errors": spec.errors,
            "why": spec.why,
            "arguments": result.arguments,
            "detail": result.detail,
        }
        # A detail says what the errors cannot: here, only why arguments do not parse.
        assert (result.detail is not None) is (spec is NOT_JSON)
    assert [r.index for r in results] == list(range(len(results)))


@each_provider
def test_the_object_its_dump_and_its_json_give_the_same_results(provider: Provider) -> None:
    response = provider.response
    reference = toolaudit.check_response(response, provider.tools)
    messages = toolaudit.tool_result_messages(reference)
    assert len(reference) == len(provider.specs)

    for name, form in forms_of(response).items():
        results = toolaudit.check_response(form, provider.tools)
        assert facts(results) == facts(reference), name
        assert toolaudit.tool_result_messages(results) == messages, name


@pytest.mark.parametrize(
    ("provider", "form"),
    [
        pytest.param(provider, name, id=f"{provider.name}-{name}")
        for provider in PROVIDERS
        if provider.bare is not None
        for name in provider.bare(provider.response)
    ],
)
def test_the_bare_message_gives_the_same_results(provider: Provider, form: str) -> None:
    assert provider.bare is not None
    response = provider.response
    reference = toolaudit.check_response(response, provider.tools)

    results = toolaudit.check_response(provider.bare(response)[form], provider.tools)

    assert facts(results) == facts(reference)
    assert toolaudit.tool_result_messages(results) == toolaudit.tool_result_messages(reference)


@each_provider
def test_the_sdk_tool_params_mean_what_the_contract_mapping_means(provider: Provider) -> None:
    response = provider.response
    by_contract = toolaudit.check_response(response, CONTRACT_TOOLS)
    as_plain_json = json.loads(json.dumps(provider.tools, default=_dumped))

    assert facts(toolaudit.check_response(response, provider.tools)) == facts(by_contract)
    assert facts(toolaudit.check_response(response, as_plain_json)) == facts(by_contract)


def _dumped(model: pydantic.BaseModel) -> object:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_openai_tool_models_serve_as_tools_too() -> None:
    # The pydantic models of the tools (as a Response echoes them), not only the params.
    chat_tool = ChatCompletionFunctionTool(
        type="function",
        function=FunctionDefinitionModel(name="get_weather", parameters=WEATHER),
    )
    responses_tool = FunctionTool(
        type="function", name="get_weather", parameters=WEATHER, strict=False
    )
    for provider, tools in (
        (BY_NAME["openai-chat"], [chat_tool]),
        (BY_NAME["openai-responses"], [responses_tool]),
    ):
        response = provider.response
        assert facts(toolaudit.check_response(response, tools)) == facts(
            toolaudit.check_response(response, CONTRACT_TOOLS)
        )


@each_provider
def test_the_messages_validate_as_the_sdks_request_types(provider: Provider) -> None:
    results = toolaudit.check_response(provider.response, provider.tools)

    answers = provider.answers(toolaudit.tool_result_messages(results))

    failing = [spec for spec in provider.specs if not spec.ok]
    assert [call_id for call_id, _ in answers] == [provider.id_of(spec) for spec in failing]


@each_provider
def test_the_messages_name_each_problem(provider: Provider) -> None:
    results = toolaudit.check_response(provider.response, provider.tools)

    answers = dict(provider.answers(toolaudit.tool_result_messages(results)))

    for spec in provider.specs:
        if spec.ok:
            assert provider.id_of(spec) not in answers  # a valid call nobody ran: unanswered
            continue
        text = answers[provider.id_of(spec)]
        assert text.startswith("Error: ")
        for words in spec.says:
            assert words in text, (spec.key, text)


@each_provider
def test_outputs_answer_the_valid_calls_in_the_sdks_types_too(provider: Provider) -> None:
    results = toolaudit.check_response(provider.response, provider.tools)
    ran = {provider.id_of(VALID): {"city": "Paris", "temp_c": 18}}

    answers = provider.answers(toolaudit.tool_result_messages(results, outputs=ran))

    # Every call answered, in the order the model made them; the output as JSON text.
    expected_ids = [provider.id_of(spec) for spec in provider.specs if not spec.ok or spec is VALID]
    assert [call_id for call_id, _ in answers] == expected_ids
    assert json.loads(dict(answers)[provider.id_of(VALID)]) == {"city": "Paris", "temp_c": 18}


def test_anthropic_marks_errors_and_only_errors() -> None:
    provider = BY_NAME["anthropic"]
    results = toolaudit.check_response(provider.response, provider.tools)
    ran = {provider.id_of(VALID): "18C and sunny"}

    [message] = toolaudit.tool_result_messages(results, outputs=ran)

    flags = {block["tool_use_id"]: block.get("is_error", False) for block in message["content"]}
    assert flags == {provider.id_of(spec): not spec.ok for spec in provider.specs}
    assert message["content"][0]["content"] == "18C and sunny"  # a string output as it is


def test_gemini_answers_name_the_function_and_say_error_or_output() -> None:
    provider = BY_NAME["google-genai"]
    results = toolaudit.check_response(provider.response, provider.tools)

    [message] = toolaudit.tool_result_messages(
        results, outputs={provider.id_of(VALID): {"temp_c": 18}}
    )

    content = genai.Content.model_validate(message)
    responses = [part.function_response for part in content.parts or []]
    assert [(r.name, r.id, sorted(r.response)) for r in responses if r and r.response] == [
        (spec.tool, provider.id_of(spec), ["output"] if spec.ok else ["error"])
        for spec in provider.specs
    ]


def test_gemini_calls_without_ids() -> None:
    # The Gemini API often gives no call id: the results say None, the answers omit it.
    response = gemini_response(OBJECT_CALLS, ids=False)

    results = toolaudit.check_response(response, GEMINI_TOOLS)

    assert [(r.id, r.tool, r.errors) for r in results] == [
        (None, spec.tool, spec.errors) for spec in OBJECT_CALLS
    ]
    for form in forms_of(response).values():
        assert facts(toolaudit.check_response(form, GEMINI_TOOLS)) == facts(results)
    messages = toolaudit.tool_result_messages(results)
    assert [call_id for call_id, _ in gemini_answers(messages)] == [None] * 4
    parts = messages[0]["parts"]
    assert [part["functionResponse"]["name"] for part in parts] == [
        spec.tool for spec in OBJECT_CALLS if not spec.ok
    ]
    assert all("id" not in part["functionResponse"] for part in parts)


def test_gemini_tools_with_a_json_schema_declaration() -> None:
    tools = [
        genai.Tool(
            function_declarations=[
                genai.FunctionDeclaration(name="get_weather", parameters_json_schema=WEATHER)
            ]
        )
    ]
    response = gemini_response(OBJECT_CALLS)

    assert facts(toolaudit.check_response(response, tools)) == facts(
        toolaudit.check_response(response, CONTRACT_TOOLS)
    )


def test_gemini_nullable_and_enum_in_its_own_schema_type() -> None:
    tools = [
        genai.Tool(
            function_declarations=[
                genai.FunctionDeclaration(
                    name="get_weather",
                    parameters=genai.Schema(
                        type=genai.Type.OBJECT,
                        properties={
                            "city": genai.Schema(type=genai.Type.STRING),
                            "days": genai.Schema(type=genai.Type.INTEGER, nullable=True),
                            "units": genai.Schema(type=genai.Type.STRING, enum=["c", "f"]),
                        },
                        required=["city"],
                    ),
                )
            ]
        )
    ]
    response = gemini_response(
        (
            Spec("null", "get_weather", {"city": "Oslo", "days": None, "units": "c"}, [], {}),
            Spec("k", "get_weather", {"city": "Oslo", "units": "k"}, ["enum:units"], {}),
            Spec("str", "get_weather", {"city": "Oslo", "days": "2"}, ["type:days"], {}),
        )
    )

    results = toolaudit.check_response(response, tools)

    assert [r.errors for r in results] == [[], ["enum:units"], ["type:days"]]
    texts = [text for _, text in gemini_answers(toolaudit.tool_result_messages(results))]
    assert '`units` must be one of "c", "f", got "k"' in texts[0]
    assert '`days` must be an integer or null, got "2"' in texts[1]


def test_gemini_thought_signatures_bytes_do_not_get_in_the_way() -> None:
    # Gemini 2.5+ signs its function-call parts: bytes in model_dump(), base64 in JSON.
    response = genai.GenerateContentResponse(
        candidates=[
            genai.Candidate(
                finish_reason=genai.FinishReason.STOP,
                content=genai.Content(
                    role="model",
                    parts=[
                        genai.Part(
                            function_call=genai.FunctionCall(name="get_weather", args={}),
                            thought_signature=b"\x00\xff\x10signature",
                        )
                    ],
                ),
            )
        ]
    )

    reference = toolaudit.check_response(response, GEMINI_TOOLS)

    assert [r.errors for r in reference] == [["missing:city"]]
    for name, form in forms_of(response).items():
        assert facts(toolaudit.check_response(form, GEMINI_TOOLS)) == facts(reference), name


def _malformed_gemini_call() -> genai.GenerateContentResponse:
    return genai.GenerateContentResponse(
        candidates=[
            genai.Candidate(
                index=0,
                finish_reason=genai.FinishReason.MALFORMED_FUNCTION_CALL,
                finish_message="Malformed function call: print(get_weather(city=Paris))",
                content=genai.Content(role="model", parts=[]),
            )
        ],
        model_version="gemini-2.5-flash",
    )


MALFORMED_CALL = {
    "id": None,
    "index": 0,
    "tool": None,
    "ok": False,
    # The provider's own report of a failed call: its own kind, apart from a model's
    # unreadable call.
    "errors": ["malformed:provider"],
    "why": {
        "malformed:provider": (
            "Gemini reports MALFORMED_FUNCTION_CALL: the model's call could not be parsed"
        )
    },
    "arguments": None,
    "detail": "Gemini reports MALFORMED_FUNCTION_CALL: the model's call could not be parsed",
}


@pytest.mark.parametrize("form", ["object", "model_dump(mode='json')", "model_dump_json()"])
def test_gemini_malformed_function_call(form: str) -> None:
    response = _malformed_gemini_call()
    held = response if form == "object" else forms_of(response)[form]

    [result] = toolaudit.check_response(held, GEMINI_TOOLS)

    assert result.to_dict() == MALFORMED_CALL


def test_gemini_malformed_function_call_in_a_python_mode_dump() -> None:
    [result] = toolaudit.check_response(_malformed_gemini_call().model_dump(), GEMINI_TOOLS)

    assert result.to_dict() == MALFORMED_CALL


def test_openai_custom_tool_calls_are_not_judged() -> None:
    # A free-text custom tool has no JSON schema: its call is not one to validate.
    response = chat_completion((MISSING,))
    message = response.choices[0].message
    assert message.tool_calls is not None
    message.tool_calls.append(
        ChatCompletionMessageCustomToolCall(
            id="call_sql", type="custom", custom=Custom(name="run_sql", input="SELECT 1")
        )
    )

    for form in (response, *forms_of(response).values()):
        assert [(r.id, r.errors) for r in toolaudit.check_response(form, OPENAI_CHAT_TOOLS)] == [
            ("call_missing", ["missing:city"])
        ]


@pytest.mark.parametrize("provider", PROVIDERS, ids=lambda p: p.name)
def test_a_response_without_calls_gives_none(provider: Provider) -> None:
    response = provider.build(())
    if isinstance(response, ChatCompletion):  # tool_calls=[] is not what OpenAI sends
        response.choices[0].message.tool_calls = None
        response.choices[0].message.content = "It is sunny."

    for form in (response, *forms_of(response).values()):
        assert toolaudit.check_response(form, provider.tools) == []
        assert toolaudit.check_response(form) == []  # no tools needed when nothing is called


def _legacy_function_call() -> ChatCompletion:
    message = ChatCompletionMessage(
        role="assistant",
        content=None,
        function_call=LegacyFunctionCall(name="get_weather", arguments='{"days": 2}'),
    )
    return ChatCompletion(
        id="chatcmpl-legacy",
        object="chat.completion",
        created=1,
        model="gpt-3.5-turbo-0613",
        choices=[Choice(index=0, finish_reason="function_call", logprobs=None, message=message)],
    )


def test_openai_legacy_function_call_is_judged() -> None:
    [result] = toolaudit.check_response(_legacy_function_call(), OPENAI_CHAT_TOOLS)

    assert (result.id, result.tool, result.errors) == (None, "get_weather", ["missing:city"])


def test_openai_legacy_function_call_answer_validates() -> None:
    results = toolaudit.check_response(_legacy_function_call(), OPENAI_CHAT_TOOLS)

    [message] = toolaudit.tool_result_messages(results)

    exactly(ChatCompletionMessageParam, message)
