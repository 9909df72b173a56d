"""The generator of the nested log: calls of the nested tools, about 20% broken at depth.

Each broken call carries one error (and one call in ten a second) inside its
arguments, where only deep mode looks: a value of the wrong type nested in an
argument (``type:passengers[1].age``), a required name left out of a nested
object (``missing:when.start``), an undeclared key in one
(``unexpected:filters.price.verbose``), or a value that breaks a constraint or
a pattern, nested or an argument's own (``constraint:items[0].sku``,
``constraint:page``). The top level of every call is valid, so plain mode
finds nothing wrong in the log. Each error is the one deep mode gives: the
second error is never at, above or below the first one's path, where one would
hide the other. Everything is drawn from one seeded ``random.Random``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from nested_specs import Obj, Spec
from nested_tools import NESTED_TOOL_NAMES, NESTED_TOOLS

#: Bump whenever the generated log or schemas change: it is part of the cache names.
NESTED_GENERATOR_VERSION = 1
ERROR_SHARE = 0.20
SECOND_ERROR_SHARE = 0.1
OPTIONAL_SHARE = 0.6
ERROR_KIND_WEIGHTS = {"type": 30, "missing": 20, "unexpected": 20, "constraint": 30}
EXTRA_KEYS = ["verbose", "comment", "debug", "legacy_id", "x_trace", "notes"]
EXTRA_VALUES: list[object] = [True, "yes", 1, None]


@dataclass(frozen=True)
class Site:
    """A value inside a call's arguments: where it is, its spec, and its container."""

    path: str
    depth: int  # 1: an argument's own value
    spec: Spec
    container: dict[str, Any] | list[Any]
    key: str | int

    @property
    def value(self) -> Any:
        return self.container[self.key]  # type: ignore[index]


def sites(args: dict[str, Any], params: dict[str, Spec]) -> Iterator[Site]:
    """Every value of the arguments that has a spec, depth first."""
    stack = [Site(name, 1, params[name], args, name) for name in reversed(list(args))]
    while stack:
        site = stack.pop()
        yield site
        value = site.value
        inside = [
            Site(
                f"{site.path}.{key}" if isinstance(key, str) else f"{site.path}[{key}]",
                site.depth + 1,
                spec,
                value,
                key,
            )
            for key, spec in site.spec.children(value)
        ]
        stack.extend(reversed(inside))


def related(path: str, other: str) -> bool:
    """Whether one path is the other, or lies inside it."""
    short, long = sorted((path, other), key=len)
    return long == short or long.startswith((short + ".", short + "["))


def break_call(
    r: random.Random, args: dict[str, Any], params: dict[str, Spec], kind: str, touched: list[str]
) -> str | None:
    """Inject one error of ``kind`` into ``args``: deep mode's error, or None if impossible."""
    free = [s for s in sites(args, params) if not any(related(s.path, t) for t in touched)]
    if kind == "type":
        candidates = [s for s in free if s.depth >= 2 and s.spec.wrong_types()]
        if not candidates:
            return None
        site = r.choice(candidates)
        # Never a duplicate in an array: it could break the array's uniqueItems instead.
        taken = site.container if isinstance(site.container, list) else ()
        wrong = [v for v in site.spec.wrong_types() if v not in taken]
        site.container[site.key] = r.choice(wrong)  # type: ignore[index]
        path = site.path
    elif kind == "constraint":
        candidates = [s for s in free if s.spec.breakable(s.value)]
        if not candidates:
            return None
        site = r.choice(candidates)
        site.container[site.key] = site.spec.broken(r, site.value)  # type: ignore[index]
        path = site.path
    else:
        objects = [(s, obj) for s in free if (obj := closed_object(s)) is not None]
        if kind == "missing":
            choices = [(s, name) for s, obj in objects for name in obj.required if name in s.value]
            if not choices:
                return None
            site, name = r.choice(choices)
            del site.value[name]
        else:
            if not objects:
                return None
            site, obj = r.choice(objects)
            name = r.choice([k for k in EXTRA_KEYS if k not in obj.properties])
            site.value[name] = r.choice(EXTRA_VALUES)
        path = f"{site.path}.{name}"
    touched.append(path)
    return f"{kind}:{path}"


def closed_object(site: Site) -> Obj | None:
    """The closed object spec a site's value is checked against, if it is one."""
    spec, value = site.spec, site.value
    while not isinstance(spec, Obj):
        inner = getattr(spec, "target", None) or getattr(spec, "spec", None)
        if inner is None:
            return None
        spec = inner
    return spec if isinstance(value, dict) else None


def valid_arguments(
    r: random.Random, params: dict[str, Spec], required: tuple[str, ...]
) -> dict[str, Any]:
    return {
        name: spec.make(r)
        for name, spec in params.items()
        if name in required or r.random() < OPTIONAL_SHARE
    }


def generate_nested_lines(calls: int, seed: int) -> Iterator[tuple[str, str, list[str]]]:
    """(line, tool, its expected errors, sorted) for each call of the nested log."""
    r = random.Random(seed)
    kinds = list(ERROR_KIND_WEIGHTS)
    weights = list(ERROR_KIND_WEIGHTS.values())
    dumps = json.dumps
    for index in range(calls):
        name = r.choice(NESTED_TOOL_NAMES)
        params, required = NESTED_TOOLS[name]
        args = valid_arguments(r, params, required)
        errors: list[str] = []
        if r.random() < ERROR_SHARE:
            touched: list[str] = []
            wanted = r.choices(kinds, weights, k=2 if r.random() < SECOND_ERROR_SHARE else 1)
            for kind in wanted:
                # A kind the call has no room for (no closed object to leave a name
                # out of, say) gives way to another, so that the share stays 20%.
                others = [k for k in kinds if k != kind]
                r.shuffle(others)
                for each in [kind, *others]:
                    error = break_call(r, args, params, each, touched)
                    if error is not None:
                        errors.append(error)
                        break
        line = dumps(
            {"id": f"call_{index:08d}", "name": name, "arguments": args}, ensure_ascii=False
        )
        yield line, name, sorted(errors)
