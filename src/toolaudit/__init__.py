"""toolaudit: validate LLM tool calls against their schemas, one call or gigabytes of logs.

The contract (:func:`validate_tool_call`) and its compiled form
(:func:`compile_schemas`) import nothing heavy. The audit machinery loads on
first use, so that ``toolaudit --version`` stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolaudit.errors import InputError, OutputError, SchemaError, ToolAuditError
from toolaudit.contract import (
    ToolValidator,
    Validator,
    compile_schemas,
    json_equal,
    validate_tool_call,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from toolaudit.pipeline.audit import Audit, AuditOptions
    from toolaudit.schemas.loading import SchemaSet, load_schemas
    from toolaudit.results.summary import Summary, SummaryError, merge_summaries

from toolaudit._version import __version__

__all__ = [
    "Audit",
    "AuditOptions",
    "InputError",
    "OutputError",
    "SchemaError",
    "SchemaSet",
    "Summary",
    "SummaryError",
    "ToolAuditError",
    "ToolValidator",
    "Validator",
    "__version__",
    "audit",
    "compile_schemas",
    "json_equal",
    "load_schemas",
    "merge_summaries",
    "validate_tool_call",
]

_LAZY = {
    "Audit": "toolaudit.pipeline.audit",
    "AuditOptions": "toolaudit.pipeline.audit",
    "SchemaSet": "toolaudit.schemas.loading",
    "load_schemas": "toolaudit.schemas.loading",
    "Summary": "toolaudit.results.summary",
    "SummaryError": "toolaudit.results.summary",
    "merge_summaries": "toolaudit.results.summary",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolaudit' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def audit(
    paths: Iterable[str],
    schemas: SchemaSet | Mapping[str, Any] | str,
    **options: Any,
) -> Audit:
    """Audit log files (or ``-`` for stdin) against tool schemas.

    ``schemas`` is a schemas file path, a mapping of tool name -> schema, or a
    loaded :class:`SchemaSet`; ``options`` are the fields of
    :class:`AuditOptions`. Iterate the result for report rows, or call its
    ``run()``; its ``summary`` is set once the inputs are exhausted::

        run = toolaudit.audit(["calls.jsonl"], "schemas.json", errors_only=True)
        for row in run:
            print(row["line"], row["errors"])
        print(run.summary.error_rate)
    """
    from toolaudit.pipeline.audit import Audit, AuditOptions
    from toolaudit.schemas.loading import SchemaSet, load_schemas, schema_set

    if isinstance(schemas, str):
        schemas = load_schemas(schemas)
    elif not isinstance(schemas, SchemaSet):
        schemas = schema_set(schemas)
    return Audit.of_paths(paths, schemas, AuditOptions(**options))
