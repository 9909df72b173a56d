"""The conversations' counts: what one history adds, how parts and groups add up, and
the summary's ``conversations`` / ``tool_results`` / ``history_calls`` round trip."""

from __future__ import annotations

from dataclasses import dataclass

import orjson

from toolaudit.results.conversations import Conversations, Outcomes, either_or_both
from toolaudit.results.summary import Summary
from toolaudit.results.tool_summary import ToolSummary


@dataclass
class Problem:
    code: str
    tool: str | None = "search"


def history(conversations: Conversations, model: str | None, *codes: str, **tools: Outcomes):
    conversations.count(model, [Problem(code) for code in codes], tools)


def test_a_history_counts_once_however_many_problems_it_has():
    conversations = Conversations()
    history(conversations, "gpt-4o", "pairing:unanswered", "pairing:unanswered")
    history(conversations, "gpt-4o")
    history(conversations, None, "pairing:orphan_result")
    conversations_dict, _ = conversations.to_dicts()
    assert conversations_dict == {
        "checked": 3,
        "with_problems": 2,
        "problems": {"pairing:orphan_result": 1, "pairing:unanswered": 2},
        "by_model": {
            "<no name>": {
                "checked": 1,
                "with_problems": 1,
                "problems": {"pairing:orphan_result": 1},
            },
            "gpt-4o": {"checked": 2, "with_problems": 1, "problems": {"pairing:unanswered": 2}},
        },
        "by_tool": {"search": {"pairing:orphan_result": 1, "pairing:unanswered": 2}},
    }


def test_outcomes_add_up_per_tool():
    conversations = Conversations()
    history(conversations, "m", search=Outcomes(3, 2, 1, 1))
    history(conversations, "m", search=Outcomes(1, 1, 0, 0), book=Outcomes(2, 0, 0, 0))
    _, tool_results = conversations.to_dicts()
    assert tool_results == {
        "by_tool": {
            "book": {"results": 2, "failures": 0, "retried": 0, "recovered": 0},
            "search": {"results": 4, "failures": 3, "retried": 1, "recovered": 1},
        }
    }


def test_merging_parts_equals_counting_the_whole_and_leaves_the_parts_alone():
    whole, first, second = Conversations(), Conversations(), Conversations()
    for target in (whole, first):
        history(target, "a", "pairing:unanswered", search=Outcomes(2, 1, 1, 0))
    for target in (whole, second):
        history(target, "b", "pairing:misplaced_result", search=Outcomes(1, 1, 0, 0))
        history(target, "a")
    before = first.to_dicts()
    assert first.merged(second) == whole
    assert first.to_dicts() == before
    assert either_or_both(None, second) is second
    assert either_or_both(first, None) is first


def test_model_names_from_logs_are_bounded():
    conversations = Conversations(max_keys=2)
    for index in range(50):
        history(conversations, f"model-{index}", "pairing:unanswered")
    by_model = conversations.to_dicts()[0]["by_model"]
    assert len(by_model) == 3  # two names and <other>
    assert sum(h["checked"] for h in by_model.values()) == 50


def summary_with_conversations() -> Summary:
    conversations = Conversations()
    history(conversations, "m", "pairing:orphan_result", search=Outcomes(2, 1, 1, 1))
    calls = {"search": ToolSummary(calls=2, ok=1, invalid=1, by_kind={"missing": 1})}
    return Summary(toolaudit_version="x", conversations=conversations, history_calls=calls)


def test_the_summary_round_trips_its_conversations():
    summary = summary_with_conversations()
    data = orjson.loads(orjson.dumps(summary.to_dict()))
    assert data["conversations"]["problems"] == {"pairing:orphan_result": 1}
    assert data["tool_results"]["by_tool"]["search"]["recovered"] == 1
    assert data["history_calls"]["calls"] == 2
    assert data["history_calls"]["by_kind"] == {"missing": 1}
    assert Summary.from_dict(data).to_dict() == summary.to_dict()


def test_a_summary_without_conversations_has_no_such_sections():
    data = Summary(toolaudit_version="x").to_dict()
    assert not {"conversations", "tool_results", "history_calls"} & data.keys()


def test_merged_summaries_add_their_conversations():
    one, other = summary_with_conversations(), Summary(toolaudit_version="x")
    merged = one.merged(other).merged(one)
    assert merged.conversations is not None
    assert merged.conversations.all.checked == 2
    assert merged.history_calls is not None
    assert merged.history_calls["search"].calls == 4


def test_a_history_all_answered_counts_as_one_without_problems_or_failures():
    # Names that fold or need escaping, no name, and more than the tables keep.
    # (Names beginning as the buckets or their escapes do are each their own case.)
    odd = ["<other>", "<no name>", "\\<other>", "\\\\<no name>", "\\", "<", "<x", "\\x", ""]
    tools = ["search", *odd, *(f"tool{k}" for k in range(12))]
    models = ["gpt-4o", None, *odd, *(f"model{k}" for k in range(12))]
    counted, answered = Conversations(max_keys=5), Conversations(max_keys=5)
    for turn in range(60):
        model = models[turn % len(models)]
        results = {tools[(turn + k) % len(tools)]: k + 1 for k in range(turn % 3 + 1)}
        counted.count(model, [], {tool: Outcomes(results=n) for tool, n in results.items()})
        answered.count_all_answered(model, results)
    assert answered.to_dicts() == counted.to_dicts()
    assert answered.to_dicts()[1]["by_tool"]["<other>"]["results"] > 0  # some were folded
