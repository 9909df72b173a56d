"""toolaudit: validate LLM tool calls against their schemas, one call or gigabytes of logs.

The contract (:func:`validate_tool_call`) and its compiled form
(:func:`compile_schemas`) import nothing heavy. The audit machinery loads on
first use, so that ``toolaudit --version`` stays quick.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from toolaudit._version import __version__
from toolaudit.contract import (
    ToolValidator,
    Validator,
    compile_schemas,
    json_equal,
    validate_tool_call,
)
from toolaudit.errors import (
    InputError,
    OptionError,
    OutputError,
    ResponseError,
    SchemaError,
    SummaryError,
    ToolAuditError,
)
from toolaudit.lazy_names import lazy_names

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import BinaryIO

    from distributed import Client

    from toolaudit.boundary import CallCheck, check_response, tool_result_messages
    from toolaudit.history import check_history
    from toolaudit.pipeline import Audit, AuditOptions, StopRequest
    from toolaudit.results.merging import merge_summaries
    from toolaudit.results.summary import Summary
    from toolaudit.runners import Interrupted
    from toolaudit.schemas import SchemaSet, load_schemas

__all__ = [
    "Audit",
    "AuditOptions",
    "CallCheck",
    "InputError",
    "Interrupted",
    "OptionError",
    "OutputError",
    "ResponseError",
    "SchemaError",
    "SchemaSet",
    "StopRequest",
    "Summary",
    "SummaryError",
    "ToolAuditError",
    "ToolValidator",
    "Validator",
    "__version__",
    "audit",
    "check_history",
    "check_response",
    "compile_schemas",
    "json_equal",
    "load_schemas",
    "merge_summaries",
    "run_audit",
    "tool_result_messages",
    "validate_tool_call",
]

_LAZY = {
    "Audit": "toolaudit.pipeline",
    "AuditOptions": "toolaudit.pipeline",
    "StopRequest": "toolaudit.pipeline",
    "Interrupted": "toolaudit.runners",
    "SchemaSet": "toolaudit.schemas",
    "load_schemas": "toolaudit.schemas",
    "Summary": "toolaudit.results.summary",
    "merge_summaries": "toolaudit.results.merging",
    "CallCheck": "toolaudit.boundary",
    "check_response": "toolaudit.boundary",
    "tool_result_messages": "toolaudit.boundary",
    "check_history": "toolaudit.history",
}
__getattr__ = lazy_names(__name__, _LAZY, globals())


def audit(
    paths: Iterable[str],
    schemas: SchemaSet | Mapping[str, Any] | str | Iterable[str] | None = None,
    *,
    storage_options: Mapping[str, Any] | None = None,
    **options: Any,
) -> Audit:
    """Audit log files, directories (walked), URLs (``s3://bucket/prefix/``, globs
    too) or ``-`` (stdin), in this process.

    ``schemas`` is a schemas file path or URL (or several), a mapping of tool name ->
    schema, a loaded :class:`SchemaSet`, or None when every record carries its
    tools; ``storage_options`` go to the filesystem of every URL (credentials, an
    endpoint: fsspec's own configuration applies too); ``options`` are the fields
    of :class:`AuditOptions`. Iterate the
    result for report rows, or call its ``run(report)``; its ``summary`` is set
    once the inputs are exhausted::

        run = toolaudit.audit(["calls.jsonl"], "schemas.json", errors_only=True)
        for row in run:
            print(row["line"], row["errors"])
        print(run.summary.error_rate)

    Bad options raise :class:`OptionError`, a broken schema :class:`SchemaError`,
    a missing input :class:`InputError`: all are :class:`ToolAuditError`.
    """
    from toolaudit.pipeline import Audit

    audit_options = _options(options)
    schema_set = _schema_set(schemas, audit_options.deep, storage_options)
    return Audit.of_paths(paths, schema_set, audit_options, storage_options=storage_options)


def run_audit(
    paths: Iterable[str],
    schemas: SchemaSet | Mapping[str, Any] | str | Iterable[str] | None = None,
    *,
    report: str | BinaryIO | None = None,
    jobs: int = 1,
    on_bytes: Callable[[int], object] | None = None,
    stop: StopRequest | None = None,
    notify: Callable[[str], None] | None = None,
    storage_options: Mapping[str, Any] | None = None,
    dask: Client | str | None = None,
    blocksize: int | str | None = None,
    **options: Any,
) -> Summary:
    """Audit, as ``toolaudit audit`` does, and return the summary.

    ``report`` is a path or a URL (written whole at the end, never half-written) or a
    binary file; ``storage_options`` go to the filesystem of every URL; ``jobs``
    shares the work among processes (0: one per core), with exactly the outputs of
    one. ``notify`` is told, in one line, what a person should know (a run kept in
    one process says why; by default a RuntimeWarning). Stopped by Ctrl-C or SIGTERM, it raises
    :class:`Interrupted`, whose ``summary`` counts what was audited.

    ``dask`` runs the audit on a Dask cluster: a ``distributed.Client``, or an address
    as ``--dask`` takes it (``tcp://10.0.0.5:8786``, ``local``, ``local:4``), in blocks
    of ``blocksize`` bytes (None: ``sources.DEFAULT_BLOCKSIZE``, 64 MiB); a ``report``
    path or URL then names the directory or prefix that receives the report as parts,
    ``part-00000.jsonl``... (see docs/storage.md).
    """
    from contextlib import nullcontext

    from toolaudit.pipeline import StopRequest
    from toolaudit.runners import AuditJob, RunHooks, run_job
    from toolaudit.runners.dask import connect
    from toolaudit.sources import DEFAULT_BLOCKSIZE, expand_paths

    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 0:
        raise OptionError(f"jobs must be a whole number, 0 for one per core, not {jobs!r}")
    audit_options = _options(options)
    schema_set = _schema_set(schemas, audit_options.deep, storage_options)
    job = AuditJob(expand_paths(paths, storage_options=storage_options), schema_set, audit_options)
    hooks = RunHooks(on_bytes, stop if stop is not None else StopRequest(), notify)
    with connect(dask) if isinstance(dask, str) else nullcontext(dask) as client:
        return run_job(
            job,
            report=report,
            jobs=jobs,
            hooks=hooks,
            storage_options=storage_options,
            dask=client,
            blocksize=DEFAULT_BLOCKSIZE if blocksize is None else blocksize,
        )


def _schema_set(
    schemas: SchemaSet | Mapping[str, Any] | str | Iterable[str] | None,
    deep: bool,
    storage_options: Mapping[str, Any] | None = None,
) -> SchemaSet:
    """The schemas of an audit, loaded and compiled (for deep validation with ``deep``;
    files that are URLs with ``storage_options``); a SchemaSet given ready is used as it is."""
    from toolaudit.schemas import NO_SCHEMAS, SchemaSet, load_schemas, schema_set

    if schemas is None:
        return NO_SCHEMAS
    if isinstance(schemas, SchemaSet):
        return schemas
    if isinstance(schemas, str):
        return load_schemas(schemas, deep=deep, storage_options=storage_options)
    if isinstance(schemas, Mapping):
        return schema_set(schemas, deep=deep)
    return load_schemas(list(schemas), deep=deep, storage_options=storage_options)


def _options(options: Mapping[str, Any]) -> AuditOptions:
    """The options of an audit; an unknown name is an OptionError that lists the known ones."""
    import dataclasses

    from toolaudit.pipeline import AuditOptions

    known = [f.name for f in dataclasses.fields(AuditOptions)]
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise OptionError(f"unknown option {unknown[0]!r}: expected one of {', '.join(known)}")
    return AuditOptions(**options)
