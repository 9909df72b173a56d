"""Write the tools/list results of MCP servers whose inputSchema is a pydantic model's
``model_json_schema()``, running the models' source alone (no server, no network).

    python generate.py <modelcontextprotocol/servers checkout> <commit> <out dir>
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Annotated, Any, Optional

from pydantic import AnyUrl, BaseModel, Field

TOOL = re.compile(
    r'Tool\(\s*name=([^,]+),\s*description=("""(?:.|\n)*?"""|"[^"]*"),'
    r"\s*inputSchema=(\w+)\.model_json_schema\(\)"
)


def source(repo: str, commit: str, path: str) -> str:
    shown = ["git", "-C", repo, "show", f"{commit}:{path}"]
    return subprocess.run(shown, capture_output=True, text=True, check=True).stdout


def tools_of(text: str, start: str, end: str, names: dict[str, str]) -> list[dict[str, Any]]:
    scope: dict[str, Any] = {
        "BaseModel": BaseModel,
        "Field": Field,
        "Optional": Optional,
        "Annotated": Annotated,
        "AnyUrl": AnyUrl,
        "DEFAULT_CONTEXT_LINES": 3,
    }
    models = text[text.index(start) : text.index(end)]  # the models' classes alone
    # (dont_inherit: this module's postponed annotations would leave the models unbuilt)
    exec(compile(models, "models", "exec", dont_inherit=True), scope)
    tools = []
    for found in TOOL.finditer(text):
        name = names.get(found.group(1).strip(), found.group(1).strip().strip('"'))
        description = json.loads(found.group(2).replace('"""', '"').replace("\n", "\\n"))
        schema = scope[found.group(3)].model_json_schema()
        tools.append({"name": name, "description": description, "inputSchema": schema})
    return tools


def main(repo: str, commit: str, out: str) -> None:
    git = source(repo, commit, "src/git/src/mcp_server_git/server.py")
    names = {f"GitTools.{k}": v for k, v in re.findall(r'\n    (\w+) = "(git_\w+)"', git)}
    fetch = source(repo, commit, "src/fetch/src/mcp_server_fetch/server.py")
    for name, tools in (
        ("git", tools_of(git, "class GitStatus", "class GitTools", names)),
        ("fetch", tools_of(fetch, "class Fetch(BaseModel)", "async def serve", {})),
    ):
        with open(f"{out}/{name}.tools-list.json", "w") as file:
            result = {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}
            file.write(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:4])
