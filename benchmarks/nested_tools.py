"""The six nested tools of the deep-mode benchmark log, written as specs (nested_specs.py).

Between them: objects in arrays (passengers, line items, attendees, receipts),
``$ref`` to shared ``$defs`` (an airport code, a date, an address), ``anyOf``
with null at the top level and inside arrays, a map checked by
``additionalProperties``, a ``const``, and constraints on numbers, strings and
arrays, patterns among them (``^[A-Z]{3}$``).
"""

from __future__ import annotations

from typing import Any

from nested_specs import Arr, Bool, Const, Enum, Int, Map, Nullable, Num, Obj, Ref, Spec, Str


def names(*words: str) -> tuple[str, ...]:
    return words


AIRPORT = Str(
    names("CDG", "ZRH", "GRU", "HND", "JFK", "LOS", "KEF", "BOM"),
    pattern="^[A-Z]{3}$",
    bad=names("cdg", "PARIS", "Z1H", ""),
)
DATE = Str(
    names("2026-12-04", "2026-12-12", "2026-12-31", "2027-01-09"),
    pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}$",
    bad=names("12/04/2026", "2026-1-9", "tomorrow"),
)
LOYALTY = Obj(
    {
        "program": Enum(names("skymiles", "miles_and_more", "flying_blue")),
        "number": Str(
            names("SK1234567", "MM7654321", "FB0000042"),
            pattern="^[A-Z]{2}[0-9]{7}$",
            bad=names("1234567", "sk1234567", "SK12"),
        ),
    },
    required=names("program", "number"),
)
PASSENGER = Obj(
    {
        "name": Str(
            names("Ada Lovelace", "Chen Wei", "Olu Adeyemi", "Søren Kierkegaard"),
            min_length=1,
            max_length=40,
            bad=names("", "Maximilian Alexander von und zu Liechtenstein-Habsburg"),
        ),
        "age": Int(1, 90, minimum=0, maximum=120),
        "seat": Nullable(
            Str(
                names("12A", "3F", "27C", "9K"),
                pattern="^[0-9]{1,2}[A-K]$",
                bad=names("A12", "12Z"),
            )
        ),
        "loyalty": Nullable(Ref("loyalty", LOYALTY), null_share=0.6),
    },
    required=names("name", "age"),
)
ADDRESS = Obj(
    {
        "street": Str(names("12 Rue de Rivoli", "Bahnhofstrasse 1", "221B Baker Street")),
        "city": Str(names("Paris", "Zürich", "London", "São Paulo")),
        "postcode": Str(
            names("75001", "8001", "NW1 6XE"), max_length=10, bad=names("75001-0000-1234")
        ),
        "country": Str(names("FR", "CH", "GB", "BR"), pattern="^[A-Z]{2}$", bad=names("fr", "FRA")),
    },
    required=names("street", "city", "country"),
)
LINE_ITEM = Obj(
    {
        "sku": Str(
            names("ABC-1234", "XYZ-0042", "KLM-9000"),
            pattern="^[A-Z]{3}-[0-9]{4}$",
            bad=names("abc-1234", "ABC1234", "AB-12"),
        ),
        "quantity": Int(1, 5, minimum=1, maximum=99),
        "options": Map(
            Str(names("red", "blue", "XL", "gift wrap")), names("color", "size", "wrap")
        ),
    },
    required=names("sku", "quantity"),
    optional_share=0.4,
)

#: tool name -> (its parameters, the required ones).
NESTED_TOOLS: dict[str, tuple[dict[str, Spec], tuple[str, ...]]] = {
    "book_flight": (
        {
            "origin": Ref("airport", AIRPORT),
            "destination": Ref("airport", AIRPORT),
            "date": Ref("date", DATE),
            "passengers": Arr(Ref("passenger", PASSENGER), 1, 3, min_items=1, max_items=9),
            "cabin": Enum(names("economy", "premium", "business", "first")),
        },
        names("origin", "destination", "date", "passengers"),
    ),
    "search_products": (
        {
            "query": Str(
                names("running shoes", "usb-c cable 2m", "espresso machine"),
                min_length=1,
                max_length=100,
                bad=names(""),
            ),
            "filters": Obj(
                {
                    "price": Obj({"min": Num(0, 50, minimum=0), "max": Num(50, 500, minimum=0)}),
                    "brands": Arr(
                        Str(names("acme", "globex", "initech", "umbrella", "hooli")),
                        1,
                        3,
                        max_items=5,
                        unique=True,
                    ),
                    "in_stock": Bool(),
                    "date": Nullable(Ref("date", DATE)),
                },
                optional_share=0.6,
            ),
            "sort": Enum(names("relevance", "price_asc", "price_desc", "newest")),
            "page": Int(1, 20, minimum=1),
            "tags": Arr(
                Str(
                    names("sale", "new", "eco", "bestseller"),
                    max_length=12,
                    bad=names("limited-edition-only"),
                ),
                0,
                3,
                max_items=8,
            ),
        },
        names("query"),
    ),
    "create_order": (
        {
            "customer_id": Str(names("cus_0042", "cus_1337", "cus_9001")),
            "items": Arr(Ref("line_item", LINE_ITEM), 1, 3, min_items=1, max_items=50),
            "shipping": Ref("address", ADDRESS),
            "billing": Nullable(Ref("address", ADDRESS), null_share=0.5),
            "gift_note": Nullable(
                Str(names("Happy birthday!", "Enjoy :)"), max_length=140, bad=names("x" * 141))
            ),
        },
        names("customer_id", "items", "shipping"),
    ),
    "schedule_meeting": (
        {
            "title": Str(
                names("Team sync", "Design review", "1:1"), max_length=80, bad=names("x" * 81)
            ),
            "attendees": Arr(
                Obj(
                    {
                        "email": Str(
                            names("ana@example.com", "bo@example.org", "chen@example.net"),
                            pattern="^[^@ ]+@[^@ ]+$",
                            bad=names("ana.example.com", "bo@"),
                        ),
                        "optional": Bool(),
                    },
                    required=names("email"),
                ),
                1,
                3,
                min_items=1,
                max_items=20,
            ),
            "when": Obj(
                {
                    "start": Str(
                        names("2026-12-01T09:30:00", "2027-01-05T08:00:00"),
                        pattern="^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}",
                        bad=names("next monday", "09:30"),
                    ),
                    "duration_minutes": Int(15, 120, minimum=5, maximum=480),
                    "timezone": Str(names("Europe/Paris", "America/New_York", "Asia/Tokyo")),
                },
                required=names("start", "duration_minutes"),
            ),
            "recurrence": Nullable(
                Obj(
                    {
                        "frequency": Enum(names("daily", "weekly", "monthly")),
                        "count": Int(2, 10, minimum=1, maximum=52),
                    },
                    required=names("frequency"),
                ),
                null_share=0.5,
            ),
        },
        names("title", "attendees", "when"),
    ),
    "update_settings": (
        {
            "schema_version": Const(2),
            "user_id": Int(1, 99999, minimum=1),
            "preferences": Obj(
                {
                    "notifications": Obj(
                        {
                            "email": Bool(),
                            "sms": Bool(),
                            "quiet_hours": Arr(
                                Int(0, 23, minimum=0, maximum=23), 2, 2, min_items=2, max_items=2
                            ),
                        },
                        optional_share=0.7,
                    ),
                    "theme": Enum(names("light", "dark", "system")),
                    "language": Str(
                        names("en", "de", "fr-CH", "pt-BR"),
                        pattern="^[a-z]{2}(-[A-Z]{2})?$",
                        bad=names("EN", "english", "pt_BR"),
                    ),
                },
                optional_share=0.7,
            ),
        },
        names("schema_version", "user_id", "preferences"),
    ),
    "log_expense": (
        {
            "amount": Num(1, 2000, minimum=0),
            "currency": Str(
                names("EUR", "USD", "CHF"), pattern="^[A-Z]{3}$", bad=names("eur", "€")
            ),
            "receipts": Arr(
                Obj(
                    {
                        "url": Str(
                            names("https://r.example.com/1.png", "https://r.example.com/2.pdf")
                        ),
                        "pages": Int(1, 4, minimum=1, maximum=50),
                    },
                    required=names("url"),
                ),
                0,
                2,
                max_items=10,
            ),
            "split_with": Nullable(
                Arr(Str(names("ana", "bo", "chen", "dana")), 1, 2, max_items=4, unique=True),
            ),
        },
        names("amount", "currency"),
    ),
}
NESTED_TOOL_NAMES = list(NESTED_TOOLS)


def nested_schemas() -> dict[str, Any]:
    """The schemas file: tool name -> {"parameters": JSON Schema with its $defs}."""
    schemas = {}
    for name, (params, required) in NESTED_TOOLS.items():
        defs: dict[str, Spec] = {}
        for spec in params.values():
            defs.update(spec.refs())
        parameters: dict[str, Any] = {
            "type": "object",
            "properties": {p: spec.schema() for p, spec in params.items()},
            "required": list(required),
        }
        if defs:
            parameters["$defs"] = {d: spec.schema() for d, spec in sorted(defs.items())}
        schemas[name] = {"parameters": parameters}
    return schemas
