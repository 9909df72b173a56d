"""``toolaudit schemas --target``'s findings over schemas files: each tool read as an
audit reads it, each named target's findings on its parameters schema.

What loading refuses is left to :func:`~toolaudit.schemas.report.inspect_schema_files`,
which reports it as a defect; the tools that do load are judged here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from toolaudit.schemas.loading import LoadedTool, ToolMerge
from toolaudit.targets.check import target_findings
from toolaudit.targets.registry import TARGETS
from toolaudit.targets.rules import REJECTS


@dataclass(frozen=True)
class TargetFinding:
    """One construct of one tool's parameters that a target rejects or ignores."""

    tool: str
    target: str
    severity: str
    #: ``target:<T>:<rule>``.
    code: str
    #: A JSON pointer into the tool's parameters schema ("" is the whole schema).
    pointer: str
    message: str
    #: The documentation page (or engine code) the rule comes from.
    source: str
    file: str
    question: str | None = None


@dataclass(frozen=True)
class TargetReport:
    """Every finding of the targets asked for, tool by tool in the order the files
    define them, each tool's sorted by where it points."""

    targets: tuple[str, ...]
    findings: tuple[TargetFinding, ...] = ()

    @property
    def rejected(self) -> bool:
        """Whether a target rejects a tool."""
        return any(finding.severity == REJECTS for finding in self.findings)

    def to_list(self) -> list[dict[str, Any]]:
        """Each finding as a dict, its fields in the order the class declares them."""
        return [asdict(finding) for finding in self.findings]


def check_schema_files(
    paths: str | Iterable[str],
    targets: Iterable[str],
    *,
    storage_options: Mapping[str, Any] | None = None,
) -> TargetReport:
    """Read schemas files as an audit does and say what each target (a name of
    :data:`~toolaudit.targets.registry.TARGETS`) rejects or ignores in each tool.

    Raises KeyError for a target not in the registry."""
    chosen = tuple(dict.fromkeys(targets))
    judged = [TARGETS[name] for name in chosen]
    listed = [paths] if isinstance(paths, str) else paths
    findings: list[TargetFinding] = []
    for found in ToolMerge().read(listed, storage_options=storage_options):
        if not isinstance(found, LoadedTool):
            continue
        tool = found.definition
        parameters = tool.schema.get("parameters", {})
        if not isinstance(parameters, Mapping):
            continue
        for target in judged:
            findings.extend(
                TargetFinding(tool.name, file=found.file, question=found.question, **asdict(each))
                for each in target_findings(target, parameters)
            )
    return TargetReport(chosen, tuple(findings))
