"""Writes sample_logs/requests.jsonl: OpenAI Chat request bodies as a gateway logs them,
one a line, with the history faults a provider refuses (see the comments below).

Run from the repository root: python3 sample_logs/make_requests.py
"""
import json

WEATHER = {"type": "function", "function": {"name": "get_weather", "description": "Current weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, "required": ["city"], "additionalProperties": False}}}
BOOK = {"type": "function", "function": {"name": "book_table", "description": "Book a restaurant table", "parameters": {"type": "object", "properties": {"restaurant": {"type": "string"}, "people": {"type": "integer"}, "time": {"type": "string"}}, "required": ["restaurant", "people", "time"]}}}
TOOLS = [WEATHER, BOOK]

def call(id, name, args):
    return {"id": id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}

def assistant(*calls):
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}

def result(id, content):
    return {"role": "tool", "tool_call_id": id, "content": content}

def user(text):
    return {"role": "user", "content": text}


system = {"role": "system", "content": "You are a concierge."}

lines = []
# 1. healthy: asked, called, answered, asked again
lines.append({"model": "gpt-4o", "messages": [system, user("Weather in Paris?"), assistant(call("call_a1", "get_weather", {"city": "Paris"})), result("call_a1", "18C, sunny"), user("And in Rome?")], "tools": TOOLS})
# 2. parallel calls, only one answered (an interrupted run)
lines.append({"model": "gpt-4o", "messages": [system, user("Weather in Paris and Rome?"), assistant(call("call_b1", "get_weather", {"city": "Paris"}), call("call_b2", "get_weather", {"city": "Rome"})), result("call_b1", "18C"), user("Well?")], "tools": TOOLS})
# 3. history trimmed: the assistant turn was cut, its result stays
lines.append({"model": "gpt-4o-mini", "messages": [system, result("call_c1", "Table booked for 4 at 8pm"), user("Thanks! And the weather?")], "tools": TOOLS})
# 4. a tool failed, the model retried with other arguments and it worked
lines.append({"model": "gpt-4o-mini", "messages": [system, user("Book Chez Nous for four at 8"), assistant(call("call_d1", "book_table", {"restaurant": "Chez Nous", "people": "four", "time": "20:00"})), result("call_d1", "Error: people must be an integer"), assistant(call("call_d2", "book_table", {"restaurant": "Chez Nous", "people": 4, "time": "20:00"})), result("call_d2", "Booked."), user("Great")], "tools": TOOLS})
# 5. a user message slipped between the calls and their results
lines.append({"model": "gpt-4o", "messages": [system, user("Weather in Oslo?"), assistant(call("call_e1", "get_weather", {"city": "Oslo"})), user("in celsius please"), result("call_e1", "-3C")], "tools": TOOLS})
# 6. two calls sharing one id (a proxy that renumbered them)
lines.append({"model": "gpt-4o-mini", "messages": [user("Weather in Lima and Quito?"), assistant(call("call_1", "get_weather", {"city": "Lima"}), call("call_1", "get_weather", {"city": "Quito"})), result("call_1", "24C"), result("call_1", "14C")], "tools": TOOLS})
# 7. healthy, nothing called yet
lines.append({"model": "gpt-4o", "messages": [system, user("Hi!")], "tools": TOOLS})
# 8. healthy, the tool failed and the model gave up
lines.append({"model": "gpt-4o", "messages": [system, user("Weather on Mars?"), assistant(call("call_h1", "get_weather", {"city": "Mars", "unit": "kelvin"})), result("call_h1", "Error: unknown city"), {"role": "assistant", "content": "Sorry, I can't get the weather on Mars."}, user("ok")], "tools": TOOLS})

with open("sample_logs/requests.jsonl", "w") as out:
    for line in lines:
        out.write(json.dumps(line, separators=(",", ":")) + "\n")
