"""The defaults the scorer reads from definitions written as JSON text (a loaded schema
set's) parse only the tools whose text may declare one: the same defaults as parsing
them all, on BFCL's question files and on keys written with escapes."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from toolaudit.schemas import load_schemas
from toolaudit.schemas.loading import SchemaSet
from toolaudit.truth.expectations import schema_defaults

REPRODUCE = Path(__file__).resolve().parents[1] / "fixtures" / "bfcl" / "reproduce"
QUESTIONS = sorted(REPRODUCE.glob("*.function.jsonl.gz"))


def parsed_whole(schemas: SchemaSet) -> object:
    assert isinstance(schemas.definitions, bytes)
    return schema_defaults(replace(schemas, definitions=tuple(orjson.loads(schemas.definitions))))


@pytest.mark.parametrize("path", QUESTIONS, ids=[p.name for p in QUESTIONS])
def test_question_files_give_the_defaults_of_the_whole_parse(path: Path, tmp_path: Path) -> None:
    questions = tmp_path / path.name.removesuffix(".gz")
    questions.write_bytes(gzip.decompress(path.read_bytes()))
    schemas = load_schemas(str(questions))
    assert isinstance(schemas.definitions, bytes)
    assert schema_defaults(schemas) == parsed_whole(schemas)


def test_a_default_written_with_escapes_is_read(tmp_path: Path) -> None:
    tool = {
        "name": "f",
        "parameters": {"type": "object", "properties": {"x": {"type": "integer", "default": 3}}},
    }
    lines = [
        orjson.dumps({"id": "q1", "function": [tool]}),
        orjson.dumps({"id": "q2", "function": [tool]}).replace(b'"default"', b'"def\\u0061ult"'),
        orjson.dumps({"id": "q3", "function": [{**tool, "parameters": {"type": "object"}}]}),
    ]
    path = tmp_path / "questions.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    schemas = load_schemas(str(path))
    found = schema_defaults(schemas)
    assert found == parsed_whole(schemas)
    assert found["q1"] == found["q2"] == {"f": {"x": 3}} and "q3" not in found
