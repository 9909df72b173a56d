"""What a provider or a generation engine rejects, or accepts and ignores, in a tool's
parameters schema: rules as data, one module per target (:mod:`.registry`)."""

from toolaudit.targets.check import Finding, target_findings
from toolaudit.targets.registry import TARGETS

__all__ = ["TARGETS", "Finding", "target_findings"]
