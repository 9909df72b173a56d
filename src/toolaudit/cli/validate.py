"""toolaudit validate: one call, the contract's result, an exit code."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from toolaudit.cli.app import (
    EXIT_INVALID,
    EXIT_OK,
    DeepOption,
    StorageOption,
    _fail,
    _storage_options,
    _tell,
    command,
)
from toolaudit.errors import ToolAuditError


@command(
    epilog="Exit codes: 0 the call is valid; 1 it is not; "
    "2 the schemas or the call could not be read."
)
def validate(
    call: Annotated[
        str,
        typer.Argument(
            metavar="CALL",
            help='The call as JSON: {"name": ..., "arguments": {...}}, or - for stdin.',
        ),
    ] = "-",
    schemas: Annotated[
        list[str],
        typer.Option(
            "--schemas",
            "-s",
            metavar="FILE",
            help="Tool schemas, in any shape audit takes. Repeatable.",
            show_default=False,
        ),
    ] = ...,  # type: ignore[assignment]
    deep: DeepOption = False,
    explain: Annotated[
        bool,
        typer.Option("--explain", help='Add "why": a short sentence for each error.'),
    ] = False,
    storage_option: StorageOption = None,
) -> None:
    """Validate one call and print the contract's result: {"ok": ..., "errors": [...]}."""
    import orjson

    from toolaudit.schemas.files import loads_json
    from toolaudit.schemas.loading import load_schemas

    storage_options = _storage_options(storage_option)
    try:
        schema_set = load_schemas(schemas, deep=deep, storage_options=storage_options)
    except ToolAuditError as error:
        raise _fail(str(error)) from None
    if schema_set.validator is None:
        raise _fail(
            "a BFCL question file holds one schema set per question; give the functions of one"
        )
    text = sys.stdin.buffer.read() if call == "-" else call.encode()
    try:
        parsed = loads_json(text)  # exactly where orjson may not be (as the audit reads)
    except orjson.JSONDecodeError as error:
        raise _fail(f"the call is not valid JSON: {error}") from None
    result = schema_set.validator.validate(parsed, explain=explain)
    sys.stdout.write(orjson.dumps(result).decode() + "\n")
    if result["errors"] == ["malformed:arguments"] and isinstance(parsed.get("arguments"), str):
        # The contract takes arguments as an object; a provider's call (OpenAI's) carries
        # them as JSON text, which `audit` decodes and `validate` does not.
        _tell(
            "arguments is a string; the contract takes an object "
            "(give the decoded arguments, or audit the call as a log line)"
        )
    raise typer.Exit(EXIT_OK if result["ok"] else EXIT_INVALID)
