"""Amazon Bedrock's Converse API, ``toolSpec.inputSchema.json`` without ``strict``: the
schema must describe an object and the tool's name is restricted; the model (Claude,
Nova, Llama...) is not held to the schema."""

from __future__ import annotations

from toolaudit.targets.rules import REJECTS, Rule, Structure, Target, ToolName, not_enforced

API = "https://docs.aws.amazon.com/bedrock/latest/APIReference"
SCHEMA_SOURCE = f"{API}/API_runtime_ToolInputSchema.html"
NAME_SOURCE = f"{API}/API_runtime_ToolSpecification.html"
#: Nova's guide says it outright; Claude behind Converse is Anthropic's non-strict tool use.
ENFORCED_SOURCE = "https://docs.aws.amazon.com/nova/latest/userguide/tool-use.html"
CHECKED = "2026-12-05"

TARGET = Target(
    "bedrock",  # not a log format
    "Amazon Bedrock Converse toolSpec.inputSchema.json, without strict",
    (
        Rule("root-not-object", REJECTS, Structure("root-not-object"),
             "the top level schema type must be object (type is {value}): ValidationException"
             " (inputSchema.json.type must be one of the following: object)",
             SCHEMA_SOURCE, CHECKED),
        Rule("tool-name", REJECTS,
             ToolName(r"[a-zA-Z0-9_-]{1,64}", "of 1 to 64 characters of `[a-zA-Z0-9_-]`"),
             "tool name {value}: 1 to 64 letters, digits, _ or -", NAME_SOURCE, CHECKED),
        not_enforced(
            "without strict: true, the model's inputs are not held to the schema: validate"
            " that they are formatted correctly", ENFORCED_SOURCE, CHECKED),
    ),
)  # fmt: skip
