"""Tool schemas: schemas files of every shape, provider tool definitions, dialects."""

from toolaudit.schemas.loading import NO_SCHEMAS, SchemaSet, load_schemas, schema_set

__all__ = ["NO_SCHEMAS", "SchemaSet", "load_schemas", "schema_set"]
