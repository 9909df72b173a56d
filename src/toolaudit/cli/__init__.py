"""The command line: options in, one library call, outputs and an exit code out.

The typer app and what its commands share live in :mod:`toolaudit.cli.app`;
each group of commands (audit; validate; compare and merge) is a module that
registers itself on it when imported, here.
"""

from toolaudit.cli import audit, compare, schemas_command, validate  # noqa: F401  (registers the commands)
from toolaudit.cli.app import app, main

__all__ = ["app", "main"]
