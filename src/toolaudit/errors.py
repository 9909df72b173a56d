"""The few exceptions that stop toolaudit from doing its job.

Bad data inside a log is never one of these: it becomes a value on the report
(an error string such as ``malformed:json``). These are for what the user must
fix before a run can happen at all: a broken schema, an unreadable file, an
output that cannot be written.
"""

from __future__ import annotations


class ToolAuditError(Exception):
    """Base class: something stops toolaudit from running; the message says what."""


class SchemaError(ToolAuditError, ValueError):
    """A tool schema is itself malformed, so no call against it can be judged.

    ``tool`` and ``parameter`` locate the defect (``parameter`` is None when the
    defect is in the tool's own shape); ``source`` names the file it came from,
    when there is one.
    """

    def __init__(
        self,
        reason: str,
        *,
        tool: object = None,
        parameter: object = None,
        source: str | None = None,
    ) -> None:
        self.reason = reason
        self.tool = tool
        self.parameter = parameter
        self.source = source
        super().__init__(self._message())

    def _message(self) -> str:
        where = []
        if self.source is not None:
            where.append(self.source)
        if self.tool is not None:
            where.append(f"tool {self.tool!r}")
        if self.parameter is not None:
            where.append(f"parameter {self.parameter!r}")
        return ": ".join([*where, self.reason]) if where else self.reason

    def located(self, source: str) -> SchemaError:
        """The same defect, now also naming the file it was read from."""
        return SchemaError(self.reason, tool=self.tool, parameter=self.parameter, source=source)


class InputError(ToolAuditError):
    """An input (log or schemas file) cannot be opened or read at all."""


class OutputError(ToolAuditError):
    """An output (report, summary) cannot be written."""


class OptionError(ToolAuditError, ValueError):
    """An option of the audit is out of range or unknown (the same error from the
    library as from the CLI)."""


class NoSchemasError(ToolAuditError):
    """A call has no schemas to be judged by: no --schemas, and its record carries no tools."""


class SummaryError(ToolAuditError):
    """A summary file cannot be read, or summaries cannot be merged honestly."""


class ExpectedError(ToolAuditError, ValueError):
    """An expected-calls file cannot be used as a whole: an id is expected twice."""


class ResponseError(ToolAuditError, ValueError):
    """A response given to ``check_response`` is of no shape a provider returns."""


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that an audit stops the same way for both."""
