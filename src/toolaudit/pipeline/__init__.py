"""The audit pipeline: sources -> records -> verdicts -> report rows + tally.

It knows nothing of processes: the runners (:mod:`toolaudit.runners`) decide
where the pipeline runs.
"""

from toolaudit.pipeline.audit import Audit
from toolaudit.pipeline.options import AuditOptions
from toolaudit.pipeline.stop import StopRequest

__all__ = ["Audit", "AuditOptions", "StopRequest"]
