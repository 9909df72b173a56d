"""toolaudit: validate LLM tool calls against their schemas, one call or gigabytes of logs."""

from toolaudit.errors import InputError, OutputError, SchemaError, ToolAuditError
from toolaudit.validate import (
    ToolValidator,
    Validator,
    compile_schemas,
    json_equal,
    validate_tool_call,
)

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "OutputError",
    "SchemaError",
    "ToolAuditError",
    "ToolValidator",
    "Validator",
    "__version__",
    "compile_schemas",
    "json_equal",
    "validate_tool_call",
]
