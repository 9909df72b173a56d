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
from toolaudit.targets.check import Finding, request_findings, target_findings
from toolaudit.targets.registry import TARGETS
from toolaudit.targets.rules import REJECTS


@dataclass(frozen=True)
class TargetFinding(Finding):
    """A finding on one tool of a schemas file: what it says, and whose it is."""

    tool: str
    file: str
    #: The BFCL question the tool belongs to; None for a tool that judges any call.
    question: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Its fields, the tool's name first."""
        return {"tool": self.tool, **asdict(self)}


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
        return [finding.to_dict() for finding in self.findings]


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
    # Tools so far in each request: a file's, or a BFCL question's (its own request).
    requests: dict[tuple[str, str | None], int] = {}
    for found in ToolMerge().read(listed, storage_options=storage_options):
        if not isinstance(found, LoadedTool):
            continue
        tool = found.definition
        request = (found.file, found.question)
        requests[request] = requests.get(request, 0) + 1
        parameters = tool.schema.get("parameters", {})
        if not isinstance(parameters, Mapping):
            continue
        for target in judged:
            findings.extend(
                TargetFinding(
                    **asdict(each), tool=tool.name, file=found.file, question=found.question
                )
                for each in (
                    *target_findings(target, parameters, name=tool.name),
                    *request_findings(target, requests[request]),
                )
            )
    return TargetReport(chosen, tuple(findings))
