"""BFCL's reading of Java and JavaScript arguments, which models give as strings of source
(``"5L"``, ``"new ArrayList<>(Arrays.asList(1, 2))"``, ``"[1, 'two']"``): the value BFCL
compares, or the string unchanged when it is not read as that type. Same behaviour as
BFCL's type converters (regular expressions, not parsers: their quirks are BFCL's).
"""

from __future__ import annotations

import re

#: Java's parameter types, as the Python type of a converted value.
JAVA_TYPES: dict[str, type] = {
    "byte": int,
    "short": int,
    "integer": int,
    "float": float,
    "double": float,
    "long": int,
    "boolean": bool,
    "char": str,
    "Array": list,
    "ArrayList": list,
    "Set": set,
    "HashMap": dict,
    "Hashtable": dict,
    "Queue": list,
    "Stack": list,
    "String": str,
    "any": str,
}

#: JavaScript's parameter types, likewise.
JS_TYPES: dict[str, type] = {
    "String": str,
    "integer": int,
    "float": float,
    "Bigint": int,
    "Boolean": bool,
    "dict": dict,
    "array": list,
    "any": str,
}

#: The types whose items have a declared type of their own.
NESTED_TYPES = ("Array", "ArrayList", "array")

_INT = re.compile(r"^-?\d+$")
_JAVA_FLOAT = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$")
_JAVA_DOUBLE = re.compile(r"^-?\d+(\.\d+)?([eE][+-]?\d+)?$")
_JAVA_LONG = re.compile(r"^-?\d+[lL]$")


class Unsupported(ValueError):
    """A type BFCL cannot convert (its evaluation stops on it)."""


def java_value(text: str, kind: str, nested: str | None = None) -> object:
    """A Java argument's text read as ``kind``; the text itself when it does not read."""
    if kind not in JAVA_TYPES or kind in ("Set", "Hashtable", "Queue", "Stack"):
        raise Unsupported(f"BFCL does not convert Java {kind}")
    if kind in ("byte", "short", "integer"):
        return int(text) if _INT.match(text) else text
    if kind == "float":
        return float(text[:-1]) if _JAVA_FLOAT.match(text) else text
    if kind == "double":
        return float(text) if _JAVA_DOUBLE.match(text) else text
    if kind == "long":
        return int(text[:-1]) if _JAVA_LONG.match(text) else text
    if kind == "boolean":
        return text == "true" if text in ("true", "false") else text
    if kind == "ArrayList":
        return _java_arraylist(text, nested)
    if kind == "Array":
        return _java_array(text, nested)
    if kind == "HashMap":
        return _java_hashmap(text)
    return text  # char (BFCL's check of quotes never matches), String, any


def _java_item(text: str, nested: str | None) -> object:
    if nested in ("char", "String"):
        return text[1:-1]  # the quotes dropped, whatever they are
    return java_value(text, nested) if nested else java_literal(text)


def _java_arraylist(text: str, nested: str | None) -> object:
    as_list = re.search(r"new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)", text)
    if as_list:
        return [_java_item(part.strip(), nested) for part in as_list.group(1).split(",")]
    adds = re.search(r"new\s+ArrayList<\w*>\(\)\s*\{\{\s*(.+?)\s*\}\}", text, re.DOTALL)
    if adds:
        found = re.findall(r"add\((.+?)\)", adds.group(1))
        return [_java_item(part.strip(), nested) for part in found]
    return [] if re.search(r"new\s+ArrayList<\w*>\(\)", text) else text


def _java_array(text: str, nested: str | None) -> object:
    found = re.search(r"new\s+\w+\[\]\s*\{(.*?)\}", text)
    if not found:
        return text
    parts = [part.strip() for part in found.group(1).split(",") if part.strip()]
    return [java_value(part, nested) if nested else java_literal(part) for part in parts]


def _java_hashmap(text: str) -> object:
    found = re.search(r"new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*(.*?)\s*\}?\s*\}", text, re.DOTALL)
    if found:
        puts = re.findall(r"put\(\"(.*?)\",\s*(.*?)\)", found.group(1))
        return {key: java_literal(value.strip()) for key, value in puts}
    return {} if re.search(r"new\s+HashMap<.*?>\s*\(\)", text) else text


def java_literal(text: str) -> object:
    """A Java literal of unknown type: boolean, string, long, float, int, double, or text."""
    if text in ("true", "false"):
        return text == "true"
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    if _JAVA_LONG.match(text):
        return int(text[:-1])
    if _JAVA_FLOAT.match(text):
        return float(text[:-1])
    return _number_or_text(text)


def _number_or_text(text: str) -> object:
    # Python's int() and float() as BFCL calls them: "1_000", " 3 ", "nan" and "inf" read.
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def js_value(text: str, kind: str, nested: str | None = None) -> object:
    """A JavaScript argument's text read as ``kind``; the text itself when it does not read."""
    if kind not in JS_TYPES:
        raise Unsupported(f"BFCL does not convert JavaScript {kind}")
    if kind == "String":
        quoted = len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'"
        return text[1:-1] if quoted else text
    if kind == "integer":
        return int(text) if _INT.match(text) else text
    if kind == "float":
        return float(text) if re.match(r"^-?\d+(\.\d+)?$", text) else text
    if kind == "Bigint":
        return int(text[:-1]) if re.match(r"^-?\d+n$", text) else text
    if kind == "Boolean":
        return text == "true" if text in ("true", "false") else text
    if kind == "dict":
        try:
            return _js_dict(text.strip())
        except Exception:  # as for arrays: the text kept
            return text.strip()
    if kind == "array":
        try:
            return _js_array(text.strip(), nested)
        except Exception:  # BFCL keeps the text when reading the array fails in any way
            return text.strip()
    return text  # any


_JS_2D = re.compile(
    r"\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\)"
)
_JS_1D = re.compile(r"\[(.*?)\]|\bnew\s+Array\((.*?)\)")


def _js_array(code: str, nested: str | None) -> object:
    two_d = _JS_2D.match(code)
    if two_d:
        rows = []
        for index, row in enumerate(re.findall(r"\[(.*?)\]", two_d.group(0))):
            row = row.strip()
            if index == 0 and row.startswith("["):
                row = row[1:]
            rows.append([js_literal(item.strip()) for item in row.split(",")])
        return rows
    one_d = _JS_1D.match(code)
    if not one_d:
        return code
    inside = one_d.group(1) if one_d.group(1) is not None else one_d.group(2)
    items = inside.strip().split(",") if inside is not None and inside.strip() else []
    if not nested:
        return [js_literal(item.strip()) for item in items]
    return [
        js_value(item.strip(), nested, "String" if item.strip()[:1] in ("'", '"') else None)
        for item in items
    ]


def _js_dict(code: str) -> object:
    if code == "{}":
        return {}
    found = re.match(r"\{(.*?)\}", code)
    if not found:
        return code
    pairs = re.findall(r"([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)", found.group(1))
    read: dict[str, object] = {}
    for key, value in pairs:
        value = value.strip()
        if value.startswith("[") and value.endswith("]"):
            item = js_value(value, "array")
        elif value.startswith("{") and value.endswith("}"):
            item = _js_dict(value)
        else:
            item = js_literal(value.strip("'\""))
        read[key.strip().strip("'\"")] = item
    return read


def js_literal(text: str) -> object:
    """A JavaScript literal of unknown type: boolean, quoted string, int, float, or text."""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 1 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return _number_or_text(text)
