"""The ten synthetic tools of the benchmark log: their parameters and schemas.

Each parameter knows its JSON Schema and how to make a valid value from the
seeded random generator, so the generator (synthetic.py) can write valid calls
and then break them on purpose.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Param:
    """One parameter of a synthetic tool: its schema and how to make a valid value."""

    name: str
    schema: dict[str, Any]
    make: Callable[[random.Random], object]
    required: bool = False

    @property
    def type_key(self) -> str:
        declared = self.schema["type"]
        return "|".join(declared) if isinstance(declared, list) else declared


def string(name: str, pool: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "string"}, lambda r: r.choice(pool), required)


def integer(name: str, low: int, high: int, required: bool = False) -> Param:
    return Param(name, {"type": "integer"}, lambda r: r.randint(low, high), required)


def number(name: str, low: float, high: float, required: bool = False) -> Param:
    return Param(name, {"type": "number"}, lambda r: round(r.uniform(low, high), 2), required)


def boolean(name: str, required: bool = False) -> Param:
    return Param(name, {"type": "boolean"}, lambda r: r.random() < 0.5, required)


def array(name: str, pool: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "array"}, lambda r: r.sample(pool, r.randint(1, 3)), required)


def obj(
    name: str, make: Callable[[random.Random], dict[str, Any]], required: bool = False
) -> Param:
    return Param(name, {"type": "object"}, make, required)


def enum(name: str, values: list[str], required: bool = False) -> Param:
    return Param(name, {"type": "string", "enum": values}, lambda r: r.choice(values), required)


def nullable(name: str, pool: list[str], required: bool = False) -> Param:
    def make(r: random.Random) -> str | None:
        return None if r.random() < 0.3 else r.choice(pool)

    return Param(name, {"type": ["string", "null"]}, make, required)


CITIES = ["Paris", "Zürich", "São Paulo", "Tokyo", "New York", "Lagos", "Reykjavík", "Mumbai"]
QUERIES = [
    "best hiking trails near Lake Geneva",
    "python asyncio timeout example",
    "how long to boil an egg",
    "latest results of the chess olympiad",
    "cheap flights Lisbon to Oslo in March",
    "symptoms of vitamin D deficiency",
]
EMAILS = [
    "ana@example.com",
    "bo@example.org",
    "chen@example.net",
    "dana@example.com",
    "eli@example.io",
]
SUBJECTS = ["Quarterly report", "Lunch on Friday?", "Re: invoice #4411", "Draft for review"]
BODIES = [
    "Hi, please find the figures attached. Let me know if anything looks off.",
    "Can we move our call to 3pm? Something came up this morning.",
    "Thanks for the quick turnaround, this looks great.",
]
TITLES = ["Dentist", "Team sync", "Flight to Berlin", "Yoga class", "1:1 with Sam"]
DATETIMES = [
    "2026-12-01T09:30:00",
    "2026-12-03T14:00:00",
    "2026-12-22T18:45:00",
    "2027-01-05T08:00:00",
]
DATES = ["2026-12-04", "2026-12-12", "2026-12-31", "2027-01-09"]
TIMES = ["12:30", "19:00", "20:15", "21:00"]
PLACES = ["Room 4.12", "Zoom", "Café Central", "HQ, 3rd floor"]
CURRENCIES = ["EUR", "USD", "GBP", "JPY", "CHF", "BRL", "INR", "CNY", "AUD", "CAD"]
LANGUAGES = ["en", "de", "fr", "es", "ja", "pt", "it"]
ROOMS = ["living room", "bedroom", "kitchen", "office"]
SQL = [
    "SELECT id, email FROM users WHERE created_at > ?",
    "SELECT count(*) FROM orders WHERE status = ?",
    "UPDATE sessions SET expired = 1 WHERE last_seen < ?",
]
RESTAURANTS = ["Le Petit Zinc", "Sushi Dai", "Trattoria da Enzo", "The Green Fork"]
NOTES = ["window seat please", "birthday, a small cake if possible", "we come with a stroller"]
DIETS = ["vegetarian", "vegan", "gluten-free", "nut allergy", "halal"]
URLS = ["https://cdn.example.com/img/4481.png", "https://example.org/photos/cat.jpg"]
TEXTS = [
    "Where is the nearest train station?",
    "The meeting has been moved to Thursday.",
    "Good morning!",
]


def schedule(r: random.Random) -> dict[str, Any]:
    return {
        "from": r.choice(TIMES),
        "to": r.choice(TIMES),
        "days": r.sample(["mon", "tue", "wed", "sat"], 2),
    }


def crop(r: random.Random) -> dict[str, Any]:
    return {"x": r.randint(0, 200), "y": r.randint(0, 200)}


TOOLS: dict[str, list[Param]] = {
    "get_weather": [
        string("city", CITIES, required=True),
        integer("days", 1, 14),
        enum("units", ["celsius", "fahrenheit", "kelvin"]),
        boolean("include_hourly"),
    ],
    "search_web": [
        string("query", QUERIES, required=True),
        integer("max_results", 1, 50),
        boolean("safe_search"),
        nullable("site", ["wikipedia.org", "stackoverflow.com", "github.com"]),
        enum("language", LANGUAGES),
    ],
    "send_email": [
        array("to", EMAILS, required=True),
        string("subject", SUBJECTS, required=True),
        string("body", BODIES, required=True),
        array("cc", EMAILS),
        enum("priority", ["low", "normal", "high"]),
        nullable("send_at", DATETIMES),
    ],
    "create_event": [
        string("title", TITLES, required=True),
        string("start", DATETIMES, required=True),
        integer("duration_minutes", 15, 240, required=True),
        array("attendees", EMAILS),
        nullable("location", PLACES),
        integer("reminder_minutes", 0, 60),
        boolean("all_day"),
        enum("visibility", ["public", "private", "default"]),
    ],
    "convert_currency": [
        number("amount", 1, 5000, required=True),
        enum("from_currency", CURRENCIES, required=True),
        enum("to_currency", CURRENCIES, required=True),
    ],
    "set_thermostat": [
        string("room", ROOMS, required=True),
        number("temperature", 15, 28, required=True),
        enum("mode", ["heat", "cool", "auto", "off"]),
        obj("schedule", schedule),
    ],
    "query_database": [
        string("sql", SQL, required=True),
        array("params", ["2026-01-01", "paid", "42", "eu-west"]),
        number("timeout_seconds", 0.5, 30),
        boolean("read_only"),
        integer("max_rows", 1, 10000),
    ],
    "translate_text": [
        string("text", TEXTS, required=True),
        enum("target_language", LANGUAGES, required=True),
        nullable("source_language", LANGUAGES),
        enum("formality", ["default", "more", "less"]),
    ],
    "book_restaurant": [
        string("restaurant", RESTAURANTS, required=True),
        integer("party_size", 1, 12, required=True),
        string("date", DATES, required=True),
        string("time", TIMES, required=True),
        nullable("notes", NOTES),
        boolean("outdoor"),
        array("dietary", DIETS),
    ],
    "resize_image": [
        string("url", URLS, required=True),
        integer("width", 16, 4096, required=True),
        integer("height", 16, 4096, required=True),
        enum("format", ["png", "jpeg", "webp"]),
        integer("quality", 1, 100),
        boolean("keep_aspect"),
        obj("crop", crop),
    ],
}
TOOL_NAMES = list(TOOLS)


def tool_schemas() -> dict[str, Any]:
    """The schemas file: tool name -> {"parameters": JSON Schema of the arguments}."""
    return {
        name: {
            "parameters": {
                "type": "object",
                "properties": {p.name: p.schema for p in params},
                "required": [p.name for p in params if p.required],
            }
        }
        for name, params in TOOLS.items()
    }
