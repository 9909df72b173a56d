"""Regenerate the sample logs: `python sample_logs/make_sample.py` (deterministic).

The sample imitates an assistant product's tool-call log: a handful of tools,
two models, arguments logged as JSON strings (as providers return them) and
sometimes as objects, every kind of error, and a few broken lines.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

HERE = Path(__file__).parent

SCHEMAS = {
    "get_weather": {
        "description": "Current weather and forecast for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer"},
                "units": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
    "search_web": {
        "description": "Search the web.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "max_results": {"type": "integer"},
                "safe_search": {"type": "boolean"},
                "site": {"type": "string"},
            },
            "required": ["query"],
        },
    },
    "send_email": {
        "description": "Send an email on the user's behalf.",
        "parameters": {
            "type": "object",
            "properties": {
                "to": {"type": "array"},
                "subject": {"type": "string"},
                "body": {"type": "string"},
                "cc": {"type": "array"},
                "priority": {"type": "string", "enum": ["low", "normal", "high"]},
            },
            "required": ["to", "subject", "body"],
        },
    },
    "create_event": {
        "description": "Create a calendar event.",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "start": {"type": "string"},
                "duration_minutes": {"type": "integer"},
                "attendees": {"type": "array"},
                "reminder_minutes": {"type": ["integer", "null"]},
            },
            "required": ["title", "start"],
        },
    },
    "convert_currency": {
        "description": "Convert an amount between currencies.",
        "parameters": {
            "type": "object",
            "properties": {
                "amount": {"type": "number"},
                "from_currency": {"type": "string"},
                "to_currency": {"type": "string"},
            },
            "required": ["amount", "from_currency", "to_currency"],
        },
    },
    "set_thermostat": {
        "description": "Set the smart thermostat.",
        "parameters": {
            "type": "object",
            "properties": {
                "temperature": {"type": "number"},
                "mode": {"type": "string", "enum": ["heat", "cool", "auto", "off"]},
                "room": {"type": "string"},
            },
            "required": ["temperature", "mode"],
        },
    },
}

CITIES = ["Paris", "Tokyo", "Lagos", "São Paulo", "Reykjavík", "Mumbai", "Toronto", "Zürich"]
QUERIES = ["best hiking boots 2026", "python asyncio tutorial", "train times london edinburgh",
           "how to descale a kettle", "jwst latest images", "vegan lasagna recipe"]
PEOPLE = ["ana@example.com", "bo@example.com", "chen@example.org", "dee@example.net"]
CURRENCIES = ["EUR", "USD", "JPY", "GBP", "BRL", "INR"]


def valid_arguments(tool: str, rng: random.Random) -> dict:
    if tool == "get_weather":
        args = {"city": rng.choice(CITIES)}
        if rng.random() < 0.6:
            args["days"] = rng.randint(1, 7)
        if rng.random() < 0.5:
            args["units"] = rng.choice(["celsius", "fahrenheit"])
        return args
    if tool == "search_web":
        args = {"query": rng.choice(QUERIES)}
        if rng.random() < 0.5:
            args["max_results"] = rng.choice([3, 5, 10])
        if rng.random() < 0.3:
            args["safe_search"] = rng.random() < 0.5
        return args
    if tool == "send_email":
        args = {"to": rng.sample(PEOPLE, rng.randint(1, 2)), "subject": "Re: plans", "body": "See you at 7."}
        if rng.random() < 0.3:
            args["priority"] = rng.choice(["low", "normal", "high"])
        return args
    if tool == "create_event":
        args = {"title": "Dentist", "start": f"2026-12-{rng.randint(1, 28):02d}T09:30:00"}
        if rng.random() < 0.6:
            args["duration_minutes"] = rng.choice([15, 30, 60])
        if rng.random() < 0.4:
            args["reminder_minutes"] = rng.choice([None, 10, 30])
        return args
    if tool == "convert_currency":
        source, target = rng.sample(CURRENCIES, 2)
        return {"amount": rng.choice([12, 99.5, 1000, 0.75]), "from_currency": source, "to_currency": target}
    args = {"temperature": rng.choice([19, 20.5, 22, 68]), "mode": rng.choice(["heat", "cool", "auto"])}
    if rng.random() < 0.5:
        args["room"] = rng.choice(["living room", "bedroom", "office"])
    return args


# What a model gets wrong, as (tool, mutation) -> arguments; each yields one error kind.
def break_arguments(tool: str, args: dict, rng: random.Random) -> tuple[str, object]:
    """Return (name, arguments) with one realistic mistake."""
    mistake = rng.choice(["missing", "unexpected", "type", "enum", "unknown_tool", "malformed"])
    if mistake == "missing":
        required = SCHEMAS[tool]["parameters"]["required"]
        args.pop(rng.choice(required))
    elif mistake == "unexpected":
        extra = {"get_weather": ("location", "Paris"), "search_web": ("num_results", 5),
                 "send_email": ("attachments", []), "create_event": ("end", "2026-12-01T10:00:00"),
                 "convert_currency": ("date", "today"), "set_thermostat": ("fan", "on")}[tool]
        args[extra[0]] = extra[1]
    elif mistake == "type":
        wrong = {"get_weather": ("days", "3"), "search_web": ("max_results", True),
                 "send_email": ("to", "ana@example.com"), "create_event": ("duration_minutes", 30.5),
                 "convert_currency": ("amount", "12.50"), "set_thermostat": ("temperature", "warm")}[tool]
        args[wrong[0]] = wrong[1]
    elif mistake == "enum":
        wrong = {"get_weather": ("units", "kelvin"), "send_email": ("priority", "urgent"),
                 "set_thermostat": ("mode", "eco")}.get(tool)
        if wrong is None:
            return break_arguments(tool, args, rng)
        args[wrong[0]] = wrong[1]
    elif mistake == "unknown_tool":
        return rng.choice(["get_forecast", "browse", "web_search", "send_mail"]), args
    else:
        text = json.dumps(args)
        return tool, rng.choice([text[: len(text) // 2], json.dumps(text), text.replace('"', "'")])
    return tool, args


def main() -> None:
    rng = random.Random(20261129)
    models = {"gpt-4o-mini": 0.22, "claude-sonnet-4-5": 0.08}  # share of calls with a mistake
    lines = []
    for number in range(360):
        model = rng.choice(list(models))
        tool = rng.choice(list(SCHEMAS))
        args = valid_arguments(tool, rng)
        name: str = tool
        arguments: object = args
        if rng.random() < models[model]:
            name, arguments = break_arguments(tool, args, rng)
        record = {
            "id": f"call_{number:04d}",
            "model": model,
            "timestamp": f"2026-11-28T{8 + number // 60:02d}:{number % 60:02d}:00Z",
            "name": name,
            # Most providers log arguments as a JSON string; some loggers keep the object.
            "arguments": arguments if isinstance(arguments, str) or rng.random() < 0.3 else json.dumps(arguments),
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    # A few lines every real log has: a blank line, a logger's warning, a line cut off
    # by a crash, valid JSON that is not a call record, and a call with no name.
    lines.insert(40, "")
    lines.insert(97, "WARN upstream timeout after 30s, retrying")
    lines.insert(180, lines[179][:70])
    lines.insert(250, json.dumps(["get_weather", {"city": "Paris"}]))
    lines.insert(300, json.dumps({"id": "call_x", "model": "gpt-4o-mini", "arguments": "{}"}))
    (HERE / "calls.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (HERE / "schemas.json").write_text(json.dumps(SCHEMAS, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
