"""The README and docs/ show real output, run their examples, and link to what exists.

Generated blocks, ``<!-- name:start -->`` ... ``<!-- name:end -->``, hold the output of
real runs (the demo's table, the commands' --help, the evaluation walkthrough). A block
may live in README.md or in a page of docs/, or in several: every copy is checked.
TOOLAUDIT_UPDATE_GOLDEN=1 rewrites every copy from the current code.
"""

from __future__ import annotations

import doctest
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toolaudit.cli import app

from .conftest import REPO, update_golden

README = REPO / "README.md"
DOCS = REPO / "docs"

#: Every generated block, each written by a test below.
GENERATED_BLOCKS = (
    "demo",
    "help:audit",
    "validate",
    "groups",
    "compare",
    "compare:verdict",
    "bfcl",
    "bfcl:compare",
    "conversations",
)

MARKER = re.compile(r"^<!-- ([\w:.-]+):(start|end) -->$", re.M)
FENCE = re.compile(r"^(```|~~~)")


def pages() -> list[Path]:
    """README.md and the pages of docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def shown(page: Path) -> str:
    return str(page.relative_to(REPO))


def block(name: str, text: str) -> str:
    return f"<!-- {name}:start -->\n```text\n{text}```\n<!-- {name}:end -->"


def block_pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"<!-- {re.escape(name)}:start -->.*?<!-- {re.escape(name)}:end -->", re.S)


def check_block(name: str, text: str) -> None:
    """Every copy of the block, wherever it lives, is ``text`` (or is rewritten to it)."""
    assert name in GENERATED_BLOCKS, f"add {name} to GENERATED_BLOCKS"
    pattern, expected = block_pattern(name), block(name, text)
    holders = [page for page in pages() if pattern.search(page.read_text(encoding="utf-8"))]
    assert holders, f"neither README.md nor docs/ has a {name} block"
    for page in holders:
        content = page.read_text(encoding="utf-8")
        if update_golden():
            page.write_text(pattern.sub(lambda _: expected, content), encoding="utf-8")
            continue
        for found in pattern.finditer(content):
            stale = f"{shown(page)}'s {name} block is stale (TOOLAUDIT_UPDATE_GOLDEN=1)"
            assert found.group(0) == expected, stale


def test_pages_are_rewritten_in_one_process(pytestconfig, monkeypatch):
    # Under `make test`'s -n auto, two workers would each read a page, replace their block
    # and write the page back, one undoing the other: while rewriting, -n auto is no worker.
    from . import conftest

    monkeypatch.setenv("TOOLAUDIT_UPDATE_GOLDEN", "1")
    assert conftest.pytest_xdist_auto_num_workers(pytestconfig) == 0
    monkeypatch.delenv("TOOLAUDIT_UPDATE_GOLDEN")
    assert conftest.pytest_xdist_auto_num_workers(pytestconfig) is None  # xdist's own count


#: The sample audit, as the demo and the walkthroughs run it.
SAMPLE = ["sample_logs/calls.jsonl", "--schemas", "sample_logs/schemas.json"]


def test_the_demo_output_in_the_readme_is_what_make_demo_prints(in_repo):
    result = CliRunner().invoke(app, ["audit", *SAMPLE])
    check_block("demo", result.stdout)


@pytest.mark.parametrize("command", ["audit"])
def test_the_help_in_the_docs_is_the_commands_help(command):
    result = CliRunner().invoke(app, [command, "--help"], prog_name="toolaudit")
    check_block(f"help:{command}", result.stdout)


def test_the_validate_example_shows_real_output(in_repo):
    arguments = ["validate", "--schemas", "sample_logs/schemas.json"]
    call = '{"name": "get_weather", "arguments": {"city": "Paris", "days": "3", "units": "kelvin"}}'
    result = CliRunner().invoke(app, [*arguments, call])
    assert result.exit_code == 1
    check_block("validate", f"$ toolaudit {' '.join(arguments)} '{call}'\n{result.stdout}")


def test_the_evaluation_walkthrough_shows_real_output(in_repo, tmp_path, monkeypatch):
    runner = CliRunner()
    grouped = runner.invoke(app, ["audit", *SAMPLE, "--group-by", "model"]).stdout
    check_block("groups", grouped[grouped.index("by model") :])
    summary = tmp_path / "out" / "by-model.json"
    summary.parent.mkdir()
    runner.invoke(app, ["audit", *SAMPLE, "-g", "model", "--summary", str(summary)])
    monkeypatch.chdir(tmp_path)
    arguments = ["compare", "out/by-model.json", "out/by-model.json"]
    arguments += ["--base-group", "claude-sonnet-4-5", "--new-group", "gpt-4o-mini"]
    compared = runner.invoke(app, arguments)
    assert compared.exit_code == 1
    check_block("compare", f"$ toolaudit {' '.join(arguments)}\n{compared.stdout}")
    verdict = compared.stdout[: compared.stdout.index("\n\n") + 1]  # the README's: no tables
    check_block("compare:verdict", f"$ toolaudit {' '.join(arguments)}\n{verdict}...\n")


def test_the_conversations_example_shows_real_output(in_repo):
    """The README's request log: its conversations' problems, as the audit prints them."""
    result = CliRunner().invoke(app, ["audit", "sample_logs/requests.jsonl"])
    assert result.exit_code == 1  # requests a provider would refuse
    out = result.stdout
    start = out.rfind("\n", 0, out.index("conversations checked")) + 1
    shown = out[start : out.index("\n\n", out.index("\nproblem ")) + 1]  # the problems
    check_block("conversations", f"$ toolaudit audit sample_logs/requests.jsonl\n...\n{shown}")


#: The README's BFCL example, as shown: one category of one model, with BFCL's score file.
BFCL_COMMAND = """\
toolaudit audit sample_logs/bfcl/glyphh-ada-1.1_simple_python_result.json \\
    --schemas sample_logs/bfcl/BFCL_v4_simple_python.json \\
    --expected sample_logs/bfcl/BFCL_v4_simple_python_possible_answer.json --match bfcl
"""
BFCL_ARGUMENTS = BFCL_COMMAND.replace("\\\n", " ").split()[1:]
BFCL_SCORE = REPO / "sample_logs/bfcl/glyphh-ada-1.1_simple_python_score.json"
#: A second model's answers to the same category, for the walkthrough's comparison.
CLAUDE_RESULT = (
    "tests/fixtures/bfcl/reproduce/claude-sonnet-4-5-20250929-FC.simple_python.result.jsonl.gz"
)


def test_the_bfcl_example_prints_bfcls_own_accuracy(in_repo):
    """The command the README shows, run as shown, finds the accuracy of BFCL's score file."""
    result = CliRunner().invoke(app, BFCL_ARGUMENTS)
    assert result.exit_code == 0, result.output
    truth = result.stdout[result.stdout.index("ground truth:") :]
    truth = truth[: truth.index("\n\n") + 1]  # the ground truth's first lines
    bfcl = json.loads(BFCL_SCORE.read_text(encoding="utf-8").splitlines()[0])
    found = f"{bfcl['correct_count']}/{bfcl['total_count']} correct ({bfcl['accuracy']:.1%},"
    assert truth.startswith(f"ground truth: {found}"), truth
    check_block("bfcl", f"$ {BFCL_COMMAND}...\n{truth}")


def test_the_bfcl_walkthrough_compares_two_models_paired(in_repo, tmp_path, monkeypatch):
    """docs/evaluation.md scores a second model of the category and compares the two."""
    command, glyphh, *options = BFCL_ARGUMENTS
    (tmp_path / "out").mkdir()
    for model, result in (("glyphh", glyphh), ("claude", CLAUDE_RESULT)):
        scores = tmp_path / "out" / f"{model}.scores.jsonl"
        audited = CliRunner().invoke(app, [command, result, *options, "--scores", str(scores)])
        assert audited.exit_code == 0, audited.output
    monkeypatch.chdir(tmp_path)
    compare = ["compare", "out/claude.scores.jsonl", "out/glyphh.scores.jsonl"]
    compared = CliRunner().invoke(app, compare)
    assert compared.exit_code == 1
    check_block("bfcl:compare", f"$ toolaudit {' '.join(compare)}\n{compared.stdout}")


#: The records the walkthrough's own eval set is scored on (it shows the second).
EVAL_RUN = [
    {
        "metadata": {"eval_id": "q-1"},
        "name": "get_weather",
        "arguments": {"city": "paris", "days": 3},
    },
    {
        "metadata": {"eval_id": "q-2"},
        "name": "convert_currency",
        "arguments": {"amount": 12, "from_currency": "USD", "to_currency": "BRL"},
    },
    {"metadata": {"eval_id": "q-3"}, "name": "search_web", "arguments": {"query": "hello"}},
]


def test_the_walkthroughs_own_eval_set_scores_as_shown(tmp_path, monkeypatch):
    """Step 3 of docs/evaluation.md: its eval.jsonl, scored by --expected-key, prints its lines."""
    text = (DOCS / "evaluation.md").read_text(encoding="utf-8")
    step = text[text.index("**3. Your own eval set.**") :]
    entries = re.search(r"^```json\n(.*?)^```", step, re.S | re.M)
    shown_run = re.search(r"^```console\n\$ (.*?)^```", step, re.S | re.M)
    assert entries and shown_run
    (tmp_path / "eval.jsonl").write_text(entries.group(1), encoding="utf-8")
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(r) + "\n" for r in EVAL_RUN))
    (tmp_path / "sample_logs").symlink_to(REPO / "sample_logs")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    command, *output = shown_run.group(1).replace("\\\n", " ").splitlines()
    result = CliRunner().invoke(app, command.split()[1:])
    assert result.exit_code == 0, result.output
    printed = iter(result.stdout.splitlines())
    for line in output:  # in order, each "..." standing for lines left out
        assert line == "..." or line in printed, f"{line!r} not printed in order:\n{result.stdout}"
    assert (tmp_path / "out" / "run.scores.jsonl").exists()


@pytest.mark.parametrize("page", pages(), ids=shown)
def test_every_generated_block_is_closed_and_checked(page):
    """A block no test writes, or one missing its end, would go stale unseen."""
    open_block = None
    for match in MARKER.finditer(page.read_text(encoding="utf-8")):
        name, edge = match.groups()
        assert name in GENERATED_BLOCKS, f"{shown(page)}: no test generates the {name} block"
        if edge == "start":
            unclosed = f"{shown(page)}: the {open_block} block has no end before {name} starts"
            assert open_block is None, unclosed
            open_block = name
        else:
            assert open_block == name, f"{shown(page)}: {name}:end without its start"
            open_block = None
    assert open_block is None, f"{shown(page)}: the {open_block} block has no end"


# Links ---------------------------------------------------------------------------------

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def github_slug(heading: str) -> str:
    """A heading's anchor: lower case, punctuation (backticks too) dropped, spaces -> hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The #anchors of a page's headings, as GitHub makes them."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in prose_lines(page.read_text(encoding="utf-8")):
        heading = HEADING.match(line)
        if heading is None:
            continue
        slug = github_slug(heading.group(2))
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        found.add(slug if seen == 0 else f"{slug}-{seen}")
    return found


def links(page: Path) -> list[str]:
    targets = []
    for line in prose_lines(page.read_text(encoding="utf-8")):
        line = re.sub(r"`[^`]*`", "", line)  # a link inside inline code is text
        targets.extend(LINK.findall(line))
    return targets


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("The fine print", "the-fine-print"),
        ("Parallel audits: `--jobs`", "parallel-audits---jobs"),
        ("The report: one JSON line per call", "the-report-one-json-line-per-call"),
    ],
)
def test_anchors_are_made_as_github_makes_them(heading, anchor):
    assert github_slug(heading) == anchor


@pytest.mark.parametrize("page", pages(), ids=shown)
def test_every_relative_link_leads_to_a_file_and_a_heading(page):
    broken = []
    for target in links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{target} (no such heading in {shown(linked)})")
    assert not broken, f"{shown(page)} has broken links: {broken}"


def test_the_readme_links_every_page_of_the_docs():
    linked = {(README.parent / target.partition("#")[0]).resolve() for target in links(README)}
    unlisted = sorted(shown(page) for page in set(DOCS.rglob("*.md")) - linked)
    assert not unlisted, f"list {unlisted} under the README's Documentation"


# Examples ------------------------------------------------------------------------------

PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


@pytest.mark.parametrize("page", pages(), ids=shown)
def test_the_python_examples_run_as_shown(page, in_repo):
    """The ``>>>`` examples of a page run in order, sharing their names, from the repository."""
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    names: dict[str, object] = {}
    report: list[str] = []
    text = page.read_text(encoding="utf-8")
    for example in PYTHON_BLOCK.finditer(text):
        if ">>>" not in example.group(1):
            continue
        lineno = text.count("\n", 0, example.start(1))
        test = parser.get_doctest(example.group(1), names, shown(page), str(page), lineno)
        runner.run(test, out=report.append, clear_globs=False)
        names = test.globs
    assert runner.failures == 0, "".join(report)
