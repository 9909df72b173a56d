"""What a provider or a generation engine rejects, or accepts and ignores, in a tool's
parameters schema: rules as data, one module per target (:mod:`.registry`); the
findings on one schema come from :func:`.check.target_findings`, on schemas files from
:func:`.files.check_schema_files`.

Only the registry is imported here: the CLI builds ``--target``'s choices from it at
start-up, which must not pay for the checker (deep mode, orjson).
"""

from toolaudit.targets.registry import TARGETS

__all__ = ["TARGETS"]
