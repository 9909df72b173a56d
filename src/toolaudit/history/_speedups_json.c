/* The commonest histories' pairing read straight from their JSON text, part of the
 * _speedups extension (its module and method table are in _speedups.c).
 *
 * chat_json, responses_json, anthropic_json, bedrock_json, gemini_json and otel_json (each
 * (text, no_name)) take the JSON text of a history (any object with the buffer protocol: bytes,
 * msgspec.Raw, memoryview) and answer what chat(orjson.loads(text), no_name) (resp.
 * responses, ...) answers, with the count of messages: (unanswered, results,
 * message_count); or None wherever that answer is None, and wherever this reading is not
 * sure. It builds no Python object for the history: orjson's objects cost twice the check
 * itself. Given the summary's tables and the record's model too ((text, no_name, tables,
 * model): the pairs' typed path, once it has read the rest of the line), a history whose
 * every call was answered is counted there as count_answered counts it (count_into) and
 * the answer is True, where count_into can count it; else the answer as above. A fifth
 * argument, a history_prefixes() (the tables then None where not counted), lets a history
 * that starts as one read before be read on from where that one ended (Sessions, below).
 *
 * Not sure, so that Python parses the text and decides (never a wrong answer):
 *   - any text orjson would refuse or may read otherwise: the grammar, the escapes (a
 *     lone surrogate), the UTF-8 and the whitespace are checked (_json_grammar.h), never trusted to
 *     the caller; a number of 19 digits or more, or with an exponent of 3 digits
 *     (jsonutil.orjson_may_differ); nesting deeper than MAX_DEPTH;
 *   - a string the check compares or returns (a role, a type, an id, a name) holding an
 *     escape; a result text whose first character is escaped (the only one read);
 *   - in an object the check reads, a key holding an escape (it may spell a key read) or
 *     a key read given twice (orjson keeps the last);
 *   - a call's name that is neither a string nor null (its object would have to be built).
 * tests/history/test_speedups_json.py holds each to the dict function's answer.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "_call_table.h"
#include "_json_grammar.h"
#include "_speedups_json.h"

/* signals._DEPTH: how deep a result's content is looked into for a failure. */
#define FAILURE_DEPTH 4
/* _speedups.c's WINDOW_SIZE: a Chat message or a Gemini content of more calls is left to
   Python, as there. */
#define WINDOW_SIZE 64

static const Name TOOL = NAME("tool"), ASSISTANT = NAME("assistant"),
                  FUNCTION = NAME("function"), USER = NAME("user"),
                  TOOL_USE = NAME("tool_use"), TOOL_RESULT = NAME("tool_result"),
                  ERROR = NAME("error"), FUNCTION_CALL = NAME("function_call"),
                  FUNCTION_CALL_OUTPUT = NAME("function_call_output"),
                  CUSTOM_TOOL_CALL = NAME("custom_tool_call"),
                  CUSTOM_TOOL_CALL_OUTPUT = NAME("custom_tool_call_output"),
                  TOOL_CALL = NAME("tool_call"), TOOL_CALL_RESPONSE = NAME("tool_call_response");

/* A Gemini call's part field, as the dict function names it in a call left unanswered
   (Call.field: 0 for the other shapes, which name none). */
enum { NO_FIELD, FUNCTION_CALL_GEMINI, FUNCTION_CALL_SNAKE, FIELDS };
static PyObject *field_names[FIELDS];

/* What _speedups.c's no_failure reads of a result's content, `levels` down: a text's first
   character; an array's first element; an object's flags, then the first of its text, json
   or content there is. Here each content is read once, in place, as the message holding it
   is read (scan_no_failure), rather than scanned again after (a result's text is most of a
   history's bytes where tools answer at length). */
enum { IS_ERROR, IS_ERROR_SNAKE, TEXT, JSON, CONTENT_KEY, ERROR_KEY, FAILURE_KEYS };

/* 1 when a content that is not a container (at NULL: absent) surely reports no failure;
   0: not sure. */
static int
scalar_no_failure(Byte at, Byte end, int levels)
{
    if (levels <= 0 || at == NULL || *at != '"')
        return 1; /* null, a boolean, a number */
    /* only its first character is read: an escaped one is not (it may be an 'E') */
    unsigned first = end - at >= 2 ? at[1] : '\\';
    return first != 'E' && first != 'A' && first != '{' && first != '\\';
}

/* The verdict on each container under an object's text, json and content, as read. */
typedef struct {
    int levels;
    int sure[FAILURE_KEYS];
} Inside;

static int scan_no_failure(Byte *p, Byte end, int levels, int depth, int with_error, int *sure);

static int
read_inside(void *state, int key, Byte *p, Byte end, int depth)
{
    Inside *inside = state;
    if (key < TEXT || key > CONTENT_KEY)
        return skip_value(p, end, depth);
    return scan_no_failure(p, end, inside->levels - 1, depth, 0, &inside->sure[key]);
}

/* A content of one text block written without a space, [{"text":"..."}] (Bedrock's tool
   results, most of them), read as scan_no_failure reads it, with none of its steps (the
   array's first element read for its flags and text, its text's first character): 1 read
   (*p past it, *sure set), 0 where the content is not written so (scan_no_failure reads
   it, from its start). */
static int
scan_text_block(Byte *p, Byte end, int levels, int depth, int *sure)
{
    static const char opening[] = "[{\"text\":\"";
    Py_ssize_t length = sizeof(opening) - 2; /* up to the text's quote */
    Byte at = *p + length;
    Span text;
    if (levels < 2 || depth + 1 >= MAX_DEPTH || end - *p <= length ||
        memcmp(*p, opening, (size_t)length + 1) != 0 || !scan_string(&at, end, &text) ||
        end - at < 2 || at[0] != '}' || at[1] != ']')
        return 0;
    *sure = scalar_no_failure(*p + length, end, levels - 2);
    *p = at + 2;
    return 1;
}

/* A content of one pair written without a space, {"key":"..."}, its key none of the
   `keys` scan_no_failure reads (Gemini's responses, {"output":"..."}, most of them), read
   as scan_no_failure reads it, with none of its steps: a key it does not read and its value
   skipped, it surely reports no failure, however deep it is read. 1 read (*p past it,
   *sure set), 0 where the content is not written so (scan_no_failure reads it). */
static int
scan_plain_pair(Byte *p, Byte end, int depth, const Name *keys, int *sure)
{
    Byte at = *p + 1;
    Span key, value;
    if (depth >= MAX_DEPTH || end - at < 2 || *at != '"' ||
        named_key(at, end, keys, FAILURE_KEYS) < FAILURE_KEYS || !scan_string(&at, end, &key) ||
        key.escaped || end - at < 2 || at[0] != ':' || at[1] != '"')
        return 0;
    at++;
    if (!scan_string(&at, end, &value) || at >= end || *at != '}')
        return 0;
    *sure = 1;
    *p = at + 1;
    return 1;
}

/* The content at *p (at nesting `depth`), read once: *p past it, 1; 0 malformed or too
   deep. *sure: 1 when it surely reports no failure, read `levels` down (and, `with_error`,
   with no `error` in it: _speedups.c's gemini_no_failure), else 0. */
static int
scan_no_failure(Byte *p, Byte end, int levels, int depth, int with_error, int *sure)
{
    static const Name keys[FAILURE_KEYS] = {NAME("isError"), NAME("is_error"), NAME("text"),
                                            NAME("json"),    NAME("content"),  NAME("error")};
    Byte at = *p;
    if (*at == '[' ? scan_text_block(p, end, levels, depth, sure)
                   : *at == '{' && scan_plain_pair(p, end, depth, keys, sure))
        return 1;
    if (levels <= 0 || (*at != '[' && *at != '{')) {
        *sure = scalar_no_failure(at, end, levels);
        return skip_value(p, end, depth);
    }
    if (*at == '[') {
        Elements items;
        int more;
        if (depth >= MAX_DEPTH || !open_array(&items, at, end))
            return 0;
        *sure = 1;
        while ((more = next_of(&items)) > 0)
            if (!(items.j == 0 ? scan_no_failure(&items.p, end, levels - 1, depth + 1, 0, sure)
                               : skip_value(&items.p, end, depth + 1)))
                return 0;
        *p = items.p;
        return more == 0;
    }
    Field fields[FAILURE_KEYS];
    Inside inside = {levels, {1, 1, 1, 1, 1, 1}};
    if (!read_object_with(p, end, depth, keys, with_error ? FAILURE_KEYS : ERROR_KEY, fields,
                          read_inside, &inside)) {
        /* not sure of it (a key escaped or given twice): read again, only to be past it */
        *p = at;
        *sure = 0;
        return skip_value(p, end, depth);
    }
    *sure = 0;
    if (is_true(&fields[IS_ERROR]) || is_true(&fields[IS_ERROR_SNAKE]) ||
        (with_error && !is_null_or_absent(&fields[ERROR_KEY])))
        return 1;
    *sure = 1;
    for (int k = TEXT; k <= CONTENT_KEY; k++)
        if (fields[k].at != NULL) {
            *sure = *fields[k].at == '[' || *fields[k].at == '{'
                        ? inside.sure[k]
                        : scalar_no_failure(fields[k].at, end, levels - 1);
            break;
        }
    return 1;
}

/* A result's content read by read_object_with (`field`), a container read in place by
   scan_no_failure (its verdict `sure`): 1 when it surely reports no failure. */
static int
field_no_failure(const Field *field, int sure, Byte end)
{
    if (field->at != NULL && (*field->at == '[' || *field->at == '{'))
        return sure;
    return scalar_no_failure(field->at, end, FAILURE_DEPTH);
}

/* A result's content read in place (read_object_with's ReadInPlace for one key): `state`
   a Failure, its `key` the content's. */
typedef struct {
    int key, with_error, sure;
} Failure;

static int
read_failure(void *state, int key, Byte *p, Byte end, int depth)
{
    Failure *failure = state;
    if (key != failure->key)
        return skip_value(p, end, depth);
    return scan_no_failure(p, end, FAILURE_DEPTH, depth, failure->with_error, &failure->sure);
}

/* ---- The calls read so far, found by id. */

typedef struct {
    Span id, name; /* id.at NULL: none (Gemini's pairing by name); name.at NULL: None */
    Py_ssize_t index, j;
    int answered, field;
} Call;

/* A call or a result (`kind`: A_CALL, A_RESULT) of a message, its place `j` there. */
enum { NOT_SURE = 0, A_CALL = 1, A_RESULT = 2, NEITHER = 3 };
typedef struct Block {
    int kind;
    Field id, name;
    Py_ssize_t j;
    int field; /* a Gemini call's: its part's field */
} Block;

/* The calls and blocks a Reading holds itself (on read_history's stack), as many as the
   table's first two sizes (16, 32) and a message's blocks mostly: most histories then
   allocate neither (their growth was two allocations a history, 1k instructions). */
#define FIRST_CALLS FIRST_IDS
#define FIRST_BLOCKS 16

typedef struct {
    CallTable table; /* every call's id, by its place in `calls` */
    Call *calls;     /* every call, in history order */
    Py_ssize_t room; /* how many `calls` holds */
    /* the calls from here to `table.count` wait in the window (Chat: the last assistant
       message's; Anthropic and Bedrock: the last message's) */
    Py_ssize_t window;
    Span tools[MAX_TOOLS], no_name; /* each tool's results, in the order tools had one */
    long results[MAX_TOOLS];
    int tool_count;
    Byte end;
    /* the calls and results of the message being read, as its blocks are met */
    Block *blocks;
    Py_ssize_t block_count, block_capacity;
    int content_sure; /* a Chat message's content read in place: no failure in it */
    int failed;       /* a MemoryError is set */
    int by_id;  /* Gemini: -1 until the first call or response tells how it pairs */
    Py_ssize_t next; /* the place after the call last answered (waiting tries it first) */
    /* Anthropic's, Bedrock's or Gemini's block (a part); `field` set by Gemini's */
    int (*read_block)(Byte *p, Byte end, Field *id, Field *name, int *field);
    Call first_calls[FIRST_CALLS];    /* `calls` until more are wanted */
    Block first_blocks[FIRST_BLOCKS]; /* `blocks` likewise */
    IdText first_ids[FIRST_IDS];      /* the table's, likewise */
    Py_ssize_t first_slots[FIRST_SLOTS];
} Reading;

/* `array` (of `*room` entries of `size` bytes; `first` where it is the Reading's own)
   grown to `wanted` entries: the array, moved or not, or NULL with a MemoryError set
   (`array` then still to be freed). */
static void *
grown(void *array, void *first, size_t size, Py_ssize_t *room, Py_ssize_t wanted)
{
    if (*room >= wanted)
        return array;
    void *more = array == first ? PyMem_Malloc((size_t)wanted * size)
                                : PyMem_Realloc(array, (size_t)wanted * size);
    if (more == NULL)
        return PyErr_NoMemory();
    if (array == first)
        memcpy(more, first, (size_t)*room * size);
    *room = wanted;
    return more;
}


/* A new call's place in `calls`, its id (at NULL: none) kept in the table: the place, -1
   where a call had this id before, -2 an error (a MemoryError set). */
static Py_ssize_t
new_call(Reading *reading, Span id)
{
    Py_ssize_t place = table_add(&reading->table, (IdText){id.at, id.length, 1});
    if (place >= 0) {
        Call *calls = grown(reading->calls, reading->first_calls, sizeof(Call), &reading->room,
                            reading->table.capacity);
        if (calls == NULL)
            place = -2;
        else
            reading->calls = calls;
    }
    if (place == -2)
        reading->failed = 1;
    return place;
}

/* A call with id `id` and name `name`: 1, 0 not sure (an id not a plain string or seen
   before, a name neither a plain string nor null), -1 an error. */
static int
add_call(Reading *reading, const Field *id, const Field *name, Py_ssize_t index, Py_ssize_t j)
{
    if (!is_string(id) || id->text.escaped)
        return 0;
    Span called = {NULL, 0, 0};
    if (is_string(name)) {
        if (name->text.escaped)
            return 0;
        called = name->text;
    }
    else if (!is_null_or_absent(name))
        return 0;
    Py_ssize_t place = new_call(reading, id->text);
    if (place < 0)
        return place == -1 ? 0 : -1; /* an id seen before, or an error */
    reading->calls[place] = (Call){id->text, called, index, j, 0, NO_FIELD};
    return 1;
}

/* A call paired by name (Gemini's where its calls have no id): 1, or -1 an error. */
static int
add_named_call(Reading *reading, const Field *name, Py_ssize_t index, Py_ssize_t j)
{
    Py_ssize_t place = new_call(reading, (Span){NULL, 0, 0});
    if (place < 0)
        return -1;
    reading->calls[place] = (Call){{NULL, 0, 0}, name->text, index, j, 0, NO_FIELD};
    return 1;
}

/* The call a result with id `id` answers: one placed from `from` to `to` not answered
   yet; NULL where there is none (not sure: the full reading words it). */
static Call *
waiting(Reading *reading, const Field *id, Py_ssize_t from, Py_ssize_t to)
{
    if (!is_string(id) || id->text.escaped)
        return NULL;
    /* The commonest: the results in the order of their calls, this one answering the call
       after the last one answered. Ids are unique among the calls kept (a history with an
       id twice is not sure), so a call with these very bytes is the one the table finds:
       compared, not hashed. */
    Py_ssize_t place = reading->next;
    if (place < from || place >= to || reading->calls[place].id.at == NULL ||
        !same_span(reading->calls[place].id, id->text))
        place = table_find(&reading->table, (IdText){id->text.at, id->text.length, 1});
    if (place < from || place >= to || reading->calls[place].answered)
        return NULL;
    return &reading->calls[place];
}

/* A result for `call`, counted under its name: 1, or 0 where too many tools to count. */
static int
settle(Reading *reading, Call *call)
{
    Span tool = call->name.at != NULL ? call->name : reading->no_name;
    int k = 0;
    while (k < reading->tool_count && !same_span(reading->tools[k], tool))
        k++;
    if (k == MAX_TOOLS)
        return 0;
    if (k == reading->tool_count) {
        reading->tools[k] = tool;
        reading->results[reading->tool_count++] = 0;
    }
    reading->results[k]++;
    call->answered = 1;
    reading->next = call - reading->calls + 1;
    return 1;
}

/* Keeps a call or a result of the message being read: 1, or 0 (MemoryError). */
static int
keep_block(Reading *reading, int kind, const Field *id, const Field *name, Py_ssize_t j,
           int field)
{
    if (reading->block_count == reading->block_capacity) {
        Block *blocks = grown(reading->blocks, reading->first_blocks, sizeof(Block),
                              &reading->block_capacity, reading->block_capacity * 2);
        if (blocks == NULL) {
            reading->failed = 1;
            return 0;
        }
        reading->blocks = blocks;
    }
    reading->blocks[reading->block_count++] = (Block){kind, *id, *name, j, field};
    return 1;
}

/* A string at `at` (its quote): its Field, `at` past it; 0 where not (or malformed). */
static inline int
string_at(Byte *at, Byte end, Field *field)
{
    field->at = *at;
    return *at < end && **at == '"' && scan_string(at, end, &field->text);
}

/* ---- The shapes. Each reads one message at *p ('{', the `index`th): 1 read, 0 not
   sure, -1 an error. */

typedef int (*ReadMessage)(Reading *reading, Byte *p, Py_ssize_t index);

enum { ROLE, TOOL_CALL_ID, RESULT_NAME, CONTENT, LEGACY_CALL, TOOL_CALLS, CHAT_KEYS };

/* A Chat tool message (_speedups.c's chat_result). */
static int
chat_result(Reading *reading, const Field *fields)
{
    Call *call = waiting(reading, &fields[TOOL_CALL_ID], reading->window, reading->table.count);
    if (call == NULL)
        return 0;
    const Field *name = &fields[RESULT_NAME];
    if (is_string(name) && call->name.at != NULL &&
        (name->text.escaped || !same_span(name->text, call->name)))
        return 0; /* a name that disagrees: the full reading words it */
    if (!field_no_failure(&fields[CONTENT], reading->content_sure, reading->end))
        return 0;
    return settle(reading, call);
}

/* A Chat call's function, read in place: its name (into the Field `state`). */
static int
read_function(void *state, int key, Byte *p, Byte end, int depth)
{
    static const Name name_key[] = {NAME("name")};
    if (key != 1) /* the id: a container, skipped (the call is left to Python) */
        return skip_value(p, end, depth);
    return **p == '{' && read_object(p, end, depth, name_key, 1, (Field *)state);
}

static int read_chat_calls(void *state, int key, Byte *p, Byte end, int depth);

/* A Chat message's containers: its tool_calls and its content read in place, any other
   skipped. */
static int
read_chat_calls_only(void *state, int key, Byte *p, Byte end, int depth)
{
    Reading *reading = state;
    if (key == CONTENT)
        return scan_no_failure(p, end, FAILURE_DEPTH, depth, 0, &reading->content_sure);
    return key == TOOL_CALLS ? read_chat_calls(state, key, p, end, depth)
                             : skip_value(p, end, depth);
}

/* A Chat call written as the SDKs and orjson write it, with no space,
   {"id":"...","type":"function","function":{"name":"...","arguments":"..."}} (*p at its
   brace), read in one pass with none of read_object_with's steps: its id and name (both
   strings, as that reading gives them) in `id` and `name`, 1 (*p past it); 0 where it is
   not written so, nothing read (read_object_with reads it, from its start). A call so
   written names each key once, and skips its type and arguments as that reading skips
   them (arguments scanned, every byte checked). */
static int
tight_chat_call(Byte *p, Byte end, Field *id, Field *name)
{
    /* each literal up to the quote that opens the string after it */
    static const char id_key[] = "{\"id\":\"", type_function[] = ",\"type\":\"function\"",
                      function_name[] = ",\"function\":{\"name\":\"",
                      arguments[] = ",\"arguments\":\"";
    Span skipped;
    Byte at = *p;
    if (!WRITTEN(at, end, id_key))
        return 0;
    at += sizeof(id_key) - 2;
    Field call_id = {at};
    if (!scan_string(&at, end, &call_id.text))
        return 0;
    if (WRITTEN(at, end, type_function))
        at += sizeof(type_function) - 1;
    if (!WRITTEN(at, end, function_name))
        return 0;
    at += sizeof(function_name) - 2;
    Field called = {at};
    if (!scan_string(&at, end, &called.text) || !WRITTEN(at, end, arguments))
        return 0;
    at += sizeof(arguments) - 2;
    if (!scan_string(&at, end, &skipped) || end - at < 2 || at[0] != '}' || at[1] != '}')
        return 0;
    *id = call_id;
    *name = called;
    *p = at + 2;
    return 1;
}

/* A Chat message's tool_calls, read in place: each call kept (an id, a name). */
static int
read_chat_calls(void *state, int key, Byte *p, Byte end, int depth)
{
    static const Name call_keys[] = {NAME("id"), NAME("function")};
    Reading *reading = state;
    Elements calls;
    if (!open_array(&calls, *p, end))
        return 0;
    int more;
    while ((more = next_of(&calls)) > 0) {
        Field call[2], name = {NULL};
        if (calls.j == WINDOW_SIZE)
            return 0;
        if (depth + 2 >= MAX_DEPTH || !tight_chat_call(&calls.p, end, &call[0], &name)) {
            if (!read_object_with(&calls.p, end, depth + 1, call_keys, 2, call, read_function,
                                  &name) ||
                call[1].at == NULL || *call[1].at != '{')
                return 0; /* not an object, or a custom tool's call */
        }
        if (!keep_block(reading, A_CALL, &call[0], &name, calls.j, NO_FIELD))
            return 0;
    }
    *p = calls.p;
    return more == 0;
}

/* A Chat assistant message's calls (_speedups.c's chat_calls), kept as it was read. */
static int
chat_calls(Reading *reading, const Field *fields, Py_ssize_t index)
{
    if (!is_null_or_absent(&fields[LEGACY_CALL]))
        return 0; /* legacy functions pair by name: the full reading does that */
    if (is_null_or_absent(&fields[TOOL_CALLS]))
        return 1;
    if (*fields[TOOL_CALLS].at != '[')
        return 0;
    for (Py_ssize_t k = 0; k < reading->block_count; k++) {
        Block *call = &reading->blocks[k];
        int added = add_call(reading, &call->id, &call->name, index, call->j);
        if (added <= 0)
            return added;
    }
    return 1;
}

static const Name chat_keys[CHAT_KEYS] = {NAME("role"),    NAME("tool_call_id"),
                                           NAME("name"),    NAME("content"),
                                           NAME("function_call"), NAME("tool_calls")};

/* Which of chat_keys the key at `at` (its quote) spells as written (named_key's answer,
   CHAT_KEYS for none), found by its first letter: one name compared, where named_key
   compares up to six, each by a call of memcmp (tests/history/test_speedups_json.py holds every name near each). */
static inline int
chat_key(Byte at, Byte end, const Name *names, int count)
{
    (void)names, (void)count; /* chat_keys, CHAT_KEYS */
    if (end - at < 2)
        return CHAT_KEYS;
    switch (at[1]) {
    case 'r':
        return WRITTEN(at, end, "\"role\"") ? ROLE : CHAT_KEYS;
    case 'n':
        return WRITTEN(at, end, "\"name\"") ? RESULT_NAME : CHAT_KEYS;
    case 'c':
        return WRITTEN(at, end, "\"content\"") ? CONTENT : CHAT_KEYS;
    case 'f':
        return WRITTEN(at, end, "\"function_call\"") ? LEGACY_CALL : CHAT_KEYS;
    case 't':
        return WRITTEN(at, end, "\"tool_call_id\"") ? TOOL_CALL_ID
               : WRITTEN(at, end, "\"tool_calls\"") ? TOOL_CALLS
                                                    : CHAT_KEYS;
    default:
        return CHAT_KEYS;
    }
}

/* A Chat message written as the SDKs and orjson write it, with no space: its role first,
   then a tool message's tool_call_id, then its content (a string or null), then an
   assistant message's tool_calls, {"role":"...",["tool_call_id":"...",]"content":...[,
   "tool_calls":[...]]} (*p at its brace), read in one pass, its fields as read_object_by
   gives them: 1 (*p past it); 0 where it is not written so (read_object_by reads it, from
   its start: no call kept). Each key is given once, and its value read as that reading
   reads it (the strings scanned, the calls by read_chat_calls). */
static int
tight_chat_message(Reading *reading, Byte *p, Field *fields)
{
    /* each literal up to the quote that opens the string after it, or the bracket */
    static const char role[] = "{\"role\":\"", call_id[] = ",\"tool_call_id\":\"",
                      content_string[] = ",\"content\":\"", content_null[] = ",\"content\":null",
                      tool_calls[] = ",\"tool_calls\":[";
    Byte end = reading->end, at = *p;
    if (!WRITTEN(at, end, role))
        return 0;
    for (int k = 0; k < CHAT_KEYS; k++)
        fields[k].at = NULL;
    at += sizeof(role) - 2;
    fields[ROLE].at = at;
    if (!scan_string(&at, end, &fields[ROLE].text))
        return 0;
    if (WRITTEN(at, end, call_id)) {
        at += sizeof(call_id) - 2;
        fields[TOOL_CALL_ID].at = at;
        if (!scan_string(&at, end, &fields[TOOL_CALL_ID].text))
            return 0;
    }
    if (WRITTEN(at, end, content_string)) {
        at += sizeof(content_string) - 2;
        fields[CONTENT].at = at;
        if (!scan_string(&at, end, &fields[CONTENT].text))
            return 0;
    }
    else if (WRITTEN(at, end, content_null)) {
        at += sizeof(content_null) - 1;
        fields[CONTENT].at = at - 4; /* at its null */
    }
    else
        return 0;
    if (WRITTEN(at, end, tool_calls)) {
        at += sizeof(tool_calls) - 2;
        fields[TOOL_CALLS].at = at;
        if (!read_chat_calls(reading, TOOL_CALLS, &at, end, 2)) {
            reading->block_count = 0; /* the calls kept: read_object_by keeps them again */
            return 0;
        }
    }
    if (at >= end || *at != '}') {
        reading->block_count = 0;
        return 0;
    }
    *p = at + 1;
    return 1;
}

static int
chat_message(Reading *reading, Byte *p, Py_ssize_t index)
{
    Field fields[CHAT_KEYS];
    reading->block_count = 0;
    if (!tight_chat_message(reading, p, fields) &&
        !read_object_by(p, reading->end, 1, chat_keys, CHAT_KEYS, fields, chat_key,
                        read_chat_calls_only, reading))
        return 0;
    int tool = is_word(&fields[ROLE], &TOOL);
    if (tool != 0)
        return tool > 0 ? chat_result(reading, fields) : 0;
    reading->window = reading->table.count; /* any other message ends the run of tool messages */
    int assistant = is_word(&fields[ROLE], &ASSISTANT);
    if (assistant != 0)
        return assistant > 0 ? chat_calls(reading, fields, index) : 0;
    return is_word(&fields[ROLE], &FUNCTION) == 0;
}

enum { TYPE, CALL_ID, ITEM_NAME, OUTPUT, ITEM_KEYS };

/* A Responses item written as the SDKs and orjson write it, with no space: a message,
   {"role":"...","content":...}, or an item of a type, {"type":"...",["call_id":"...",]
   ["name":"...",]["arguments":"...",]["output":...]} in that order (*p at its brace),
   read in one pass, its fields as read_object_with gives them (`failure` its output's,
   read in place): 1 (*p past it); 0 where it is not written so (read_object_with reads
   it, from its start). */
static int
tight_responses_item(Reading *reading, Byte *p, Field *fields, Failure *failure)
{
    static const char role[] = "{\"role\":", content[] = ",\"content\":", type[] = "{\"type\":",
                      call_id[] = ",\"call_id\":", name[] = ",\"name\":",
                      arguments[] = ",\"arguments\":", output[] = ",\"output\":";
    Byte end = reading->end, at = *p;
    Field skipped;
    int sure = 1;
    for (int k = 0; k < ITEM_KEYS; k++)
        fields[k].at = NULL;
    if (WRITTEN(at, end, role)) { /* no key read: its role and content skipped */
        at += sizeof(role) - 1;
        if (!string_at(&at, end, &skipped) || !WRITTEN(at, end, content))
            return 0;
        at += sizeof(content) - 1;
        if (!skip_value(&at, end, 2))
            return 0;
    }
    else if (WRITTEN(at, end, type)) {
        at += sizeof(type) - 1;
        if (!string_at(&at, end, &fields[TYPE]))
            return 0;
        if (WRITTEN(at, end, call_id)) {
            at += sizeof(call_id) - 1;
            if (!string_at(&at, end, &fields[CALL_ID]))
                return 0;
        }
        if (WRITTEN(at, end, name)) {
            at += sizeof(name) - 1;
            if (!string_at(&at, end, &fields[ITEM_NAME]))
                return 0;
        }
        if (WRITTEN(at, end, arguments)) {
            at += sizeof(arguments) - 1;
            if (!string_at(&at, end, &skipped))
                return 0;
        }
        if (WRITTEN(at, end, output)) {
            at += sizeof(output) - 1;
            fields[OUTPUT].at = at;
            if (at < end && *at == '"' ? !scan_string(&at, end, &fields[OUTPUT].text)
                : at >= end || (*at != '[' && *at != '{') ||
                      !scan_no_failure(&at, end, FAILURE_DEPTH, 2, 0, &sure))
                return 0;
        }
    }
    else
        return 0;
    if (at >= end || *at != '}')
        return 0;
    failure->sure = sure;
    *p = at + 1;
    return 1;
}

static int
responses_item(Reading *reading, Byte *p, Py_ssize_t index)
{
    static const Name keys[ITEM_KEYS] = {NAME("type"), NAME("call_id"), NAME("name"),
                                         NAME("output")};
    Field fields[ITEM_KEYS];
    Failure failure = {OUTPUT, 0, 1};
    if (!tight_responses_item(reading, p, fields, &failure) &&
        !read_object_with(p, reading->end, 1, keys, ITEM_KEYS, fields, read_failure, &failure))
        return 0;
    const Field *type = &fields[TYPE];
    int is_call = is_word(type, &FUNCTION_CALL);
    if (is_call != 0)
        return is_call > 0 ? add_call(reading, &fields[CALL_ID], &fields[ITEM_NAME], index, 0) : 0;
    int is_output = is_word(type, &FUNCTION_CALL_OUTPUT);
    if (is_output != 0) {
        Call *call = is_output > 0 ? waiting(reading, &fields[CALL_ID], 0, reading->table.count) : NULL;
        if (call == NULL || !field_no_failure(&fields[OUTPUT], failure.sure, reading->end))
            return 0;
        return settle(reading, call);
    }
    return is_word(type, &CUSTOM_TOOL_CALL) == 0 && is_word(type, &CUSTOM_TOOL_CALL_OUTPUT) == 0;
}


/* ---- Blocks written as the SDKs and orjson write them, with no space, each read in one
   pass (tight_*_block): its kind and fields as the block's reader gives them (save a
   Gemini name that holds an escape, which gemini_part refuses and these give: gemini_message
   refuses it in turn, keeping the call (add_call) or pairing the response by its bytes),
   or NOT_WRITTEN where it is not written so (nothing read: the block's reader reads it,
   from its start, and decides). Every value is read as that reader reads it: its strings
   scanned, a call's input skipped, a result's content read in place (scan_no_failure). */
enum { NOT_WRITTEN = -1 };

/* A call's input or args skipped where it is an object of scalars written with no space,
   {"city":"Oslo","days":3} (*p at its brace, nesting `depth`), in one loop: its keys and
   values scanned by the scanners skip_value uses, with none of its steps between them: 1
   (*p past it); 0 where it is not written so (nothing moved: skip_value skips it, or
   refuses it). */
static int
skip_flat_object(Byte *p, Byte end, int depth)
{
    Byte at = *p + 1;
    Span text;
    if (depth >= MAX_DEPTH)
        return 0;
    if (at < end && *at == '}') {
        *p = at + 1;
        return 1;
    }
    for (;;) {
        if (at >= end || *at != '"' || !scan_string(&at, end, &text) || end - at < 2 ||
            *at != ':')
            return 0;
        at++;
        switch (*at) {
        case '"':
            if (!scan_string(&at, end, &text))
                return 0;
            break;
        case 't':
        case 'f':
        case 'n':
            if (!skip_value(&at, end, depth + 1)) /* a literal */
                return 0;
            break;
        case '{':
        case '[':
            return 0;
        default:
            if (!scan_number(&at, end))
                return 0;
        }
        if (at >= end)
            return 0;
        if (*at == '}') {
            *p = at + 1;
            return 1;
        }
        if (*at != ',')
            return 0;
        at++;
    }
}

/* A call {"<type>","<id key>":"...","name":"...","<input key>":...} from after its opening
   (`at` at the key of its id, `id_key` that key with its colon and the opening quote of
   the id, `input_key` likewise), its input skipped at `depth`, `close` braces after it:
   `at` past them, 1; 0 where not written so. */
static ALWAYS_INLINE int
tight_call(Byte *at, Byte end, const char *id_key, size_t id_length, const char *input_key,
           size_t input_length, int depth, int close, Field *id, Field *name)
{
    static const char name_key[] = ",\"name\":";
    if (!written_as(*at, end, id_key, id_length))
        return 0;
    *at += id_length;
    if (!string_at(at, end, id) || !WRITTEN(*at, end, name_key))
        return 0;
    *at += sizeof(name_key) - 1;
    if (!string_at(at, end, name) || !written_as(*at, end, input_key, input_length))
        return 0;
    *at += input_length;
    if (*at >= end || (!(**at == '{' && skip_flat_object(at, end, depth)) &&
                       !skip_value(at, end, depth)) ||
        end - *at < close)
        return 0;
    for (int k = 0; k < close; k++)
        if ((*at)[k] != '}')
            return 0;
    *at += close;
    return 1;
}

/* A call block from after its type (`at`; the rest tight_call's arguments): A_CALL, its
   id and name given and *p past it; NOT_WRITTEN, nothing given, where it is not written so.
   (A name that holds an escape is given too: add_call refuses it, every call read here
   having an id.) */
static ALWAYS_INLINE int
tight_call_block(Byte *p, Byte at, Byte end, const char *id_key, size_t id_length,
                 const char *input_key, size_t input_length, int depth, int close, Field *id,
                 Field *name)
{
    Field called, named; /* given only where read whole */
    if (!tight_call(&at, end, id_key, id_length, input_key, input_length, depth, close, &called,
                    &named))
        return NOT_WRITTEN;
    *id = called;
    *name = named;
    *p = at;
    return A_CALL;
}

/* A result's content at *at (in a block at nesting 3, read in place, with its `error`
   where `with_error`), then the two braces that close the result and its block: A_RESULT
   (*at past them); NOT_SURE where it may report a failure (Python counts it, and what
   follows it); NOT_WRITTEN where it is not written so. */
static int
tight_result_content(Byte *at, Byte end, int with_error)
{
    int sure;
    Field output = {*at};
    if (*at >= end || !scan_no_failure(at, end, FAILURE_DEPTH, 5, with_error, &sure) ||
        end - *at < 2 || (*at)[0] != '}' || (*at)[1] != '}')
        return NOT_WRITTEN;
    if (!field_no_failure(&output, sure, end))
        return NOT_SURE;
    *at += 2;
    return A_RESULT;
}

/* A text block, {"text":"..."} (`at` at its brace; `prefix` what comes before its text
   key, as Anthropic's type): NEITHER, or NOT_WRITTEN. */
static inline int
tight_text_block(Byte *p, Byte end, const char *prefix, size_t prefix_length)
{
    static const char text_key[] = "\"text\":";
    Byte at = *p;
    Field text;
    if (!written_as(at, end, prefix, prefix_length) ||
        !WRITTEN(at + prefix_length, end, text_key))
        return NOT_WRITTEN;
    at += prefix_length + sizeof(text_key) - 1;
    if (!string_at(&at, end, &text) || at >= end || *at != '}')
        return NOT_WRITTEN;
    *p = at + 1;
    return NEITHER;
}

#define LITERAL(text) text, sizeof(text) - 1

/* What a block's type names it (`call`, `result`): A_CALL, A_RESULT, NEITHER, or NOT_SURE
   where the type is escaped (it may spell either). */
static int
kind_of(const Field *type, const Name *call, const Name *result)
{
    int named = is_word(type, call);
    if (named != 0)
        return named > 0 ? A_CALL : NOT_SURE;
    return is_word(type, result) > 0 ? A_RESULT : NEITHER;
}

/* An Anthropic block: a tool_use, a tool_result whose content is a string, a text. */
static int
tight_anthropic_block(Byte *p, Byte end, Field *id, Field *name)
{
    static const char result[] = "{\"type\":\"tool_result\",\"tool_use_id\":",
                      content[] = ",\"content\":";
    Field called; /* the id, given only where read whole */
    Byte at = *p;
    if (WRITTEN(at, end, "{\"type\":\"tool_use\""))
        return tight_call_block(p, at + sizeof("{\"type\":\"tool_use\"") - 1, end,
                                LITERAL(",\"id\":"), LITERAL(",\"input\":"), 4, 1, id, name);
    if (WRITTEN(at, end, result)) {
        Field text;
        at += sizeof(result) - 1;
        if (!string_at(&at, end, &called) || !WRITTEN(at, end, content))
            return NOT_WRITTEN;
        at += sizeof(content) - 1;
        if (!string_at(&at, end, &text) || at >= end || *at != '}')
            return NOT_WRITTEN;
        if (!scalar_no_failure(text.at, end, FAILURE_DEPTH))
            return NOT_SURE; /* a failure: Python counts it, and what follows it */
        *id = called;
        *p = at + 1;
        return A_RESULT;
    }
    return tight_text_block(p, end, LITERAL("{\"type\":\"text\","));
}

/* A Bedrock block: a toolUse, a toolResult with no status, a text. */
static int
tight_bedrock_block(Byte *p, Byte end, Field *id, Field *name)
{
    static const char result[] = "{\"toolResult\":{\"toolUseId\":", content[] = ",\"content\":";
    Field called; /* the id, given only where read whole */
    Byte at = *p;
    if (WRITTEN(at, end, "{\"toolUse\":{"))
        return tight_call_block(p, at + sizeof("{\"toolUse\":") - 1, end,
                                LITERAL("{\"toolUseId\":"), LITERAL(",\"input\":"), 5, 2, id,
                                name);
    if (WRITTEN(at, end, result)) {
        at += sizeof(result) - 1;
        if (!string_at(&at, end, &called) || !WRITTEN(at, end, content))
            return NOT_WRITTEN;
        at += sizeof(content) - 1;
        int kind = tight_result_content(&at, end, 0);
        if (kind == A_RESULT) {
            *id = called;
            *p = at;
        }
        return kind;
    }
    return tight_text_block(p, end, LITERAL("{"));
}

/* A Gemini part: a functionCall, a functionResponse, a text (none of the snake_case
   keys). */
static int
tight_gemini_part(Byte *p, Byte end, Field *id, Field *name, int *field)
{
    static const char call[] = "{\"functionCall\":", response[] = "{\"functionResponse\":",
                      response_key[] = ",\"response\":";
    Field called, named; /* the id and name, given only where read whole */
    Byte at = *p;
    if (WRITTEN(at, end, call)) {
        /* (a name escaped is given, where gemini_part is not sure of one: a call read here
           has an id, and add_call refuses it as it does every shape's) */
        int kind = tight_call_block(p, at + sizeof(call) - 1, end, LITERAL("{\"id\":"),
                                    LITERAL(",\"args\":"), 5, 2, id, name);
        if (kind == A_CALL)
            *field = FUNCTION_CALL_GEMINI;
        return kind;
    }
    if (WRITTEN(at, end, response)) {
        at += sizeof(response) - 1;
        if (!WRITTEN(at, end, "{\"id\":"))
            return NOT_WRITTEN;
        at += sizeof("{\"id\":") - 1;
        if (!string_at(&at, end, &called) || !WRITTEN(at, end, ",\"name\":"))
            return NOT_WRITTEN;
        at += sizeof(",\"name\":") - 1;
        /* (a name escaped is given too: it names no call, each kept with a plain name, and
           gemini_message leaves the history to Python) */
        if (!string_at(&at, end, &named) || !WRITTEN(at, end, response_key))
            return NOT_WRITTEN;
        at += sizeof(response_key) - 1;
        int kind = tight_result_content(&at, end, 1);
        if (kind == A_RESULT) {
            *id = called;
            *name = named;
            *field = FUNCTION_CALL_SNAKE; /* as gemini_part sets it for a response */
            *p = at;
        }
        return kind;
    }
    return tight_text_block(p, end, LITERAL("{"));
}

/* An Anthropic content block (_speedups.c's anthropic_block). */
static int
anthropic_block(Byte *p, Byte end, Field *id, Field *name, int *field)
{
    enum { B_TYPE, B_ID, B_NAME, B_IS_ERROR, B_CONTENT, B_TOOL_USE_ID, B_KEYS };
    static const Name keys[B_KEYS] = {NAME("type"),     NAME("id"),      NAME("name"),
                                      NAME("is_error"), NAME("content"), NAME("tool_use_id")};
    Field fields[B_KEYS];
    Failure failure = {B_CONTENT, 0, 1};
    int kind = tight_anthropic_block(p, end, id, name);
    if (kind != NOT_WRITTEN)
        return kind;
    if (!read_object_with(p, end, 3, keys, B_KEYS, fields, read_failure, &failure))
        return NOT_SURE;
    kind = kind_of(&fields[B_TYPE], &TOOL_USE, &TOOL_RESULT);
    if (kind == A_CALL) {
        *id = fields[B_ID];
        *name = fields[B_NAME];
        return A_CALL;
    }
    if (kind != A_RESULT)
        return kind;
    if (is_true(&fields[B_IS_ERROR]) || !field_no_failure(&fields[B_CONTENT], failure.sure, end))
        return NOT_SURE; /* a failure: Python counts it, and what follows it */
    *id = fields[B_TOOL_USE_ID];
    return A_RESULT;
}

/* A Bedrock block's toolUse (key 0) and toolResult (key 1) objects, read in place. */
typedef struct {
    Field use[2], result[3]; /* toolUseId, name; toolUseId, status, content */
    Failure failure;         /* the result's content, read in place */
} BedrockInner;

static int
read_bedrock_inner(void *state, int key, Byte *p, Byte end, int depth)
{
    static const Name use_keys[] = {NAME("toolUseId"), NAME("name")},
                      result_keys[] = {NAME("toolUseId"), NAME("status"), NAME("content")};
    BedrockInner *inner = state;
    if (**p != '{')
        return 0; /* not an object: not sure */
    return key == 0 ? read_object(p, end, depth, use_keys, 2, inner->use)
                    : read_object_with(p, end, depth, result_keys, 3, inner->result,
                                       read_failure, &inner->failure);
}

/* A Bedrock content block (_speedups.c's bedrock_block). */
static int
bedrock_block(Byte *p, Byte end, Field *id, Field *name, int *field)
{
    static const Name keys[] = {NAME("toolUse"), NAME("toolResult")};
    Field fields[2];
    BedrockInner inner = {.failure = {2, 0, 1}};
    int kind = tight_bedrock_block(p, end, id, name);
    if (kind != NOT_WRITTEN)
        return kind;
    if (!read_object_with(p, end, 3, keys, 2, fields, read_bedrock_inner, &inner))
        return NOT_SURE;
    if (!is_null_or_absent(&fields[0])) {
        if (*fields[0].at != '{')
            return NOT_SURE;
        *id = inner.use[0];
        *name = inner.use[1];
        return A_CALL;
    }
    if (is_null_or_absent(&fields[1]))
        return NEITHER;
    if (*fields[1].at != '{' || is_word(&inner.result[1], &ERROR) != 0 ||
        !field_no_failure(&inner.result[2], inner.failure.sure, end))
        return NOT_SURE;
    *id = inner.result[0];
    return A_RESULT;
}

/* Whether a message of this role can hold results (fast_loop.RECEIVING): 1, 0, or -1
   for an escaped role. */
static int
receiving(const Field *role)
{
    if (is_null_or_absent(role))
        return 1;
    int said = is_word(role, &USER);
    if (said == 0)
        said = is_word(role, &FUNCTION);
    if (said == 0)
        said = is_word(role, &TOOL);
    return said;
}

/* A message's content blocks (a Gemini content's parts), read in place: each call and
   result kept. */
static int
read_blocks(void *state, int key, Byte *p, Byte end, int depth)
{
    Reading *reading = state;
    Elements blocks;
    if (key != 1) /* the role: a container, skipped */
        return skip_value(p, end, depth);
    if (!open_array(&blocks, *p, end))
        return 0; /* content (parts) an object: not sure */
    int more;
    while ((more = next_of(&blocks)) > 0) {
        Field id, name = {NULL};
        int field = NO_FIELD;
        int kind = reading->read_block(&blocks.p, end, &id, &name, &field);
        if (kind == NOT_SURE)
            return 0;
        if (kind != NEITHER && !keep_block(reading, kind, &id, &name, blocks.j, field))
            return 0;
    }
    *p = blocks.p;
    return more == 0;
}

/* Reads a message (a Gemini content) whose blocks (parts) are under keys[1] and its role
   under keys[0], keeping its calls and results: 1, 0 not sure. The calls of the message
   before are then those from *from to reading->window; this one's wait for the next. */
/* A message (a Gemini content) written as the SDKs and orjson write it, with no space,
   {"role":"...","content":[...]} (Gemini's "parts" where `parts`; the content a string
   too), *p at its brace, read in one pass, its fields as read_object_with gives them: 1
   (*p past it); 0 where it is not written so (read_object_with reads it, from its start:
   no block kept). */
static int
tight_message(Reading *reading, Byte *p, int parts, Field *fields)
{
    static const char role[] = "{\"role\":\"", content_key[] = ",\"content\":",
                      parts_key[] = ",\"parts\":";
    Byte end = reading->end, at = *p;
    if (!WRITTEN(at, end, role))
        return 0;
    at += sizeof(role) - 2;
    fields[0].at = at;
    if (!scan_string(&at, end, &fields[0].text))
        return 0;
    if (parts ? !WRITTEN(at, end, parts_key) : !WRITTEN(at, end, content_key))
        return 0;
    at += parts ? sizeof(parts_key) - 1 : sizeof(content_key) - 1;
    fields[1].at = at;
    if (at < end && *at == '"') {
        if (!scan_string(&at, end, &fields[1].text))
            return 0;
    }
    else if (at >= end || *at != '[' || !read_blocks(reading, 1, &at, end, 2)) {
        reading->block_count = 0; /* the blocks kept: read_object_with keeps them again */
        return 0;
    }
    if (at >= end || *at != '}') {
        reading->block_count = 0;
        return 0;
    }
    *p = at + 1;
    return 1;
}

static int
read_message(Reading *reading, Byte *p, const Name *keys, Field *fields, Py_ssize_t *from)
{
    reading->block_count = 0;
    int parts = keys[1].text[0] == 'p'; /* keys[1]: Gemini's "parts", else "content" */
    if (!tight_message(reading, p, parts, fields) &&
        !read_object_with(p, reading->end, 1, keys, 2, fields, read_blocks, reading))
        return 0;
    *from = reading->window;
    reading->window = reading->table.count;
    return 1;
}

/* One Anthropic or Bedrock message (_speedups.c's message_blocks): its calls wait for
   the next message, its results answer the calls of the message before. */
static int
blocks_message(Reading *reading, Byte *p, Py_ssize_t index, int anywhere)
{
    static const Name keys[] = {NAME("role"), NAME("content")};
    Field fields[2];
    Py_ssize_t from;
    if (!read_message(reading, p, keys, fields, &from))
        return 0;
    Py_ssize_t to = reading->window;
    const Field *content = &fields[1];
    if (content->at == NULL || *content->at != '[')
        return is_string(content);
    int takes_results = receiving(&fields[0]);
    if (takes_results < 0)
        return 0;
    Py_ssize_t answered = 0;
    for (Py_ssize_t k = 0; k < reading->block_count; k++) {
        Block *block = &reading->blocks[k];
        if (block->kind == A_CALL) {
            int added = add_call(reading, &block->id, &block->name, index, block->j);
            if (added <= 0)
                return added;
            continue;
        }
        /* Anthropic wants the results first in their message */
        Call *call = (anywhere || block->j == answered) && takes_results
                         ? waiting(reading, &block->id, from, to)
                         : NULL;
        if (call == NULL || !settle(reading, call))
            return 0;
        answered++;
    }
    return 1;
}

static int
anthropic_message(Reading *reading, Byte *p, Py_ssize_t index)
{
    reading->read_block = anthropic_block;
    return blocks_message(reading, p, index, 0);
}

static int
bedrock_message(Reading *reading, Byte *p, Py_ssize_t index)
{
    reading->read_block = bedrock_block;
    return blocks_message(reading, p, index, 1);
}

/* A Gemini part's four elements (functionCall, function_call, functionResponse,
   function_response), each read in place for its id, name and response. */
enum { G_ID, G_NAME, G_RESPONSE, G_KEYS };
typedef struct {
    Field element[4][G_KEYS];
    Failure failure[4]; /* each one's response, read in place (with its `error`) */
} GeminiElements;

static int
read_gemini_element(void *state, int key, Byte *p, Byte end, int depth)
{
    static const Name keys[G_KEYS] = {NAME("id"), NAME("name"), NAME("response")};
    if (**p != '{')
        return skip_value(p, end, depth); /* an array: not sure, once it is chosen */
    GeminiElements *elements = state;
    return read_object_with(p, end, depth, keys, G_KEYS, elements->element[key], read_failure,
                            &elements->failure[key]);
}

/* A Gemini part (_speedups.c's gemini_part): A_CALL, A_RESULT, NEITHER or NOT_SURE, with
   the element's id and name, and a call's field. */
static int
gemini_part(Byte *p, Byte end, Field *id, Field *name, int *field)
{
    enum { CALL, CALL_SNAKE, RESPONSE, RESPONSE_SNAKE, PART_KEYS };
    static const Name keys[PART_KEYS] = {NAME("functionCall"), NAME("function_call"),
                                         NAME("functionResponse"), NAME("function_response")};
    Field fields[PART_KEYS];
    GeminiElements elements;
    int kind = tight_gemini_part(p, end, id, name, field);
    if (kind != NOT_WRITTEN)
        return kind;
    for (int k = 0; k < PART_KEYS; k++)
        elements.failure[k] = (Failure){G_RESPONSE, 1, 1};
    if (!read_object_with(p, end, 3, keys, PART_KEYS, fields, read_gemini_element, &elements))
        return NOT_SURE;
    int call = fields[CALL].at != NULL ? CALL : CALL_SNAKE;
    int response = fields[RESPONSE].at != NULL ? RESPONSE : RESPONSE_SNAKE;
    int is_call = !is_null_or_absent(&fields[call]);
    int chosen = is_call ? call : response;
    if (is_null_or_absent(&fields[chosen]))
        return NEITHER;
    if (*fields[chosen].at != '{')
        return NOT_SURE;
    const Field *element = elements.element[chosen];
    if (!is_string(&element[G_NAME]) || element[G_NAME].text.escaped)
        return NOT_SURE; /* a name not a string, or one to compare escaped */
    if (!is_null_or_absent(&element[G_ID]) && !is_string(&element[G_ID]))
        return NOT_SURE;
    if (!is_call && !field_no_failure(&element[G_RESPONSE], elements.failure[chosen].sure, end))
        return NOT_SURE; /* a failure: Python counts it, and what follows it */
    *id = element[G_ID];
    *name = element[G_NAME];
    *field = call == CALL ? FUNCTION_CALL_GEMINI : FUNCTION_CALL_SNAKE;
    return is_call ? A_CALL : A_RESULT;
}

/* The call a Gemini response answers: the first of the content before's (from `from` to
   `to`) not answered yet with its id, or (paired by name) its name; NULL where none. */
static Call *
gemini_waiting(Reading *reading, const Block *response, int by_id, Py_ssize_t from,
               Py_ssize_t to)
{
    if (by_id)
        return waiting(reading, &response->id, from, to);
    for (Py_ssize_t place = from; place < to; place++) {
        Call *call = &reading->calls[place];
        if (!call->answered && same_span(call->name, response->name.text))
            return call;
    }
    return NULL;
}

/* One Gemini content (_speedups.c's gemini_content): its calls wait for the next content,
   its responses answer the calls of the content before, by id where every call and
   response has one, else by name (a history that mixes the two is not sure). */
static int
gemini_message(Reading *reading, Byte *p, Py_ssize_t index)
{
    static const Name keys[] = {NAME("role"), NAME("parts")};
    Field fields[2];
    Py_ssize_t from;
    reading->read_block = gemini_part;
    if (!read_message(reading, p, keys, fields, &from))
        return 0;
    Py_ssize_t to = reading->window;
    const Field *parts = &fields[1];
    if (parts->at == NULL || *parts->at != '[')
        return is_string(parts);
    int takes_results = -2; /* read when the first response comes */
    for (Py_ssize_t k = 0; k < reading->block_count; k++) {
        Block *block = &reading->blocks[k];
        int has_id = !is_null_or_absent(&block->id);
        if (reading->by_id < 0)
            reading->by_id = has_id;
        if (reading->by_id != has_id)
            return 0; /* ids and names mixed: the full reading pairs them */
        if (block->kind == A_CALL) {
            if (reading->table.count - to == WINDOW_SIZE)
                return 0;
            int added = has_id ? add_call(reading, &block->id, &block->name, index, block->j)
                               : add_named_call(reading, &block->name, index, block->j);
            if (added <= 0)
                return added;
            reading->calls[reading->table.count - 1].field = block->field;
            continue;
        }
        if (takes_results == -2)
            takes_results = receiving(&fields[0]);
        if (takes_results <= 0)
            return 0; /* a response out of place, or an escaped role */
        Call *call = gemini_waiting(reading, block, reading->by_id, from, to);
        if (call == NULL || !same_span(call->name, block->name.text))
            return 0; /* unpaired, or naming another tool */
        if (!settle(reading, call))
            return 0;
    }
    return 1;
}

/* An OpenTelemetry GenAI part's answer, its response (else its result), each read in place
   (with its `error`, as gemini_no_failure reads a payload). */
enum { O_TYPE, O_ID, O_NAME, O_RESPONSE, O_RESULT, O_KEYS };

static int
read_otel_answer(void *state, int key, Byte *p, Byte end, int depth)
{
    int *sure = state;
    if (key != O_RESPONSE && key != O_RESULT)
        return skip_value(p, end, depth);
    return scan_no_failure(p, end, FAILURE_DEPTH, depth, 1, &sure[key - O_RESPONSE]);
}

/* An OTel part written as the SDKs and orjson write it, with no space (as the blocks
   above): a tool_call, {"type":"tool_call","id":"...","name":"...","arguments":...}; a
   tool_call_response, {"type":"tool_call_response","id":"...","response":...}; a text,
   {"type":"text","content":"..."}. */
static int
tight_otel_part(Byte *p, Byte end, Field *id, Field *name)
{
    static const char call[] = "{\"type\":\"tool_call\"",
                      response[] = "{\"type\":\"tool_call_response\",\"id\":",
                      response_key[] = ",\"response\":",
                      text[] = "{\"type\":\"text\",\"content\":";
    Field called; /* the id, given only where read whole */
    Byte at = *p;
    if (WRITTEN(at, end, call))
        return tight_call_block(p, at + sizeof(call) - 1, end, LITERAL(",\"id\":"),
                                LITERAL(",\"arguments\":"), 4, 1, id, name);
    if (WRITTEN(at, end, response)) {
        int sure;
        at += sizeof(response) - 1;
        if (!string_at(&at, end, &called) || !WRITTEN(at, end, response_key))
            return NOT_WRITTEN;
        at += sizeof(response_key) - 1;
        Field answer = {at};
        if (at >= end || !scan_no_failure(&at, end, FAILURE_DEPTH, 4, 1, &sure) || at >= end ||
            *at != '}')
            return NOT_WRITTEN;
        if (!field_no_failure(&answer, sure, end))
            return NOT_SURE; /* a failure: Python counts it, and what follows it */
        *id = called;
        *p = at + 1;
        return A_RESULT;
    }
    if (WRITTEN(at, end, text)) {
        at += sizeof(text) - 1;
        if (!string_at(&at, end, &called) || at >= end || *at != '}')
            return NOT_WRITTEN;
        *p = at + 1;
        return NEITHER;
    }
    return NOT_WRITTEN;
}

/* An OpenTelemetry GenAI part (_speedups.c's otel_parts): A_CALL (a tool_call), A_RESULT (a
   tool_call_response whose answer surely reports no failure), NEITHER or NOT_SURE. */
static int
otel_part(Byte *p, Byte end, Field *id, Field *name, int *field)
{
    static const Name keys[O_KEYS] = {NAME("type"), NAME("id"), NAME("name"),
                                      NAME("response"), NAME("result")};
    Field fields[O_KEYS];
    int sure[2] = {1, 1}; /* the response's, the result's */
    (void)field;
    int written = tight_otel_part(p, end, id, name);
    if (written != NOT_WRITTEN)
        return written;
    if (!read_object_with(p, end, 3, keys, O_KEYS, fields, read_otel_answer, sure))
        return NOT_SURE;
    int kind = kind_of(&fields[O_TYPE], &TOOL_CALL, &TOOL_CALL_RESPONSE);
    *id = fields[O_ID];
    if (kind == A_CALL)
        *name = fields[O_NAME];
    if (kind != A_RESULT)
        return kind;
    /* the response where the part has one, even null; else its result */
    int answer = fields[O_RESPONSE].at != NULL ? O_RESPONSE : O_RESULT;
    if (!field_no_failure(&fields[answer], sure[answer - O_RESPONSE], end))
        return NOT_SURE; /* a failure: Python counts it, and what follows it */
    return A_RESULT;
}

/* One OpenTelemetry GenAI message (_speedups.c's otel): its tool_call parts wait for the
   messages after it; its tool_call_response parts answer any call of the messages before
   not answered yet (not one of its own: the full reading pairs a message's results before
   its calls are made). Its role is not read. */
static int
otel_message(Reading *reading, Byte *p, Py_ssize_t index)
{
    static const Name keys[] = {NAME("role"), NAME("parts")};
    Field fields[2];
    Py_ssize_t from;
    reading->read_block = otel_part;
    if (!read_message(reading, p, keys, fields, &from))
        return 0;
    Py_ssize_t before = reading->window; /* the calls of the messages before this one */
    const Field *parts = &fields[1];
    if (parts->at == NULL || *parts->at != '[')
        return is_string(parts);
    for (Py_ssize_t k = 0; k < reading->block_count; k++) {
        Block *block = &reading->blocks[k];
        if (block->kind == A_CALL) {
            int added = add_call(reading, &block->id, &block->name, index, block->j);
            if (added <= 0)
                return added;
            continue;
        }
        Call *call = waiting(reading, &block->id, 0, before);
        if (call == NULL || !settle(reading, call))
            return 0;
    }
    return 1;
}

/* ---- Sessions: each conversation's checked prefix, kept by its bytes.

   An agent or a gateway logs every turn's request with the whole history again, so the
   lines of one session share their prefix, and most of each line's reading repeats the
   last one's. A Prefixes (history_prefixes(), given as the readers' fifth argument) keeps,
   for the last sessions read, the text of a history read whole (its buffer held, not
   copied) and the Reading's state at the end of its last message. A later history whose
   text starts with those very bytes (compared whole, never by a hash alone) takes that
   state and reads on from there: its answer is the answer read from its start, since a
   message is read from its own bytes and the state before it alone (tests/history/
   test_history_prefixes.py holds the two to the same answer, and every byte of a prefix
   changed, dropped or added).

   A session is found by its first three messages (a system prompt and a first question
   are shared by many; the model's first answer, its call ids above all, mostly is not):
   the hash of the text to their end (its length and last PREFIX_KEY_BYTES bytes) picks a
   bucket, of PREFIX_WAYS entries, the least recently used replaced. A history is kept only
   once its session was seen before (its key in `seen`): in a log whose every line is a
   conversation of its own, nothing is kept, and each line costs a hash and a look-up. The
   held texts are bounded (PREFIX_BUDGET bytes in all): past it, a history is not kept. */
#define PREFIX_KEY_MESSAGES 3
#define PREFIX_KEY_BYTES 128
#define PREFIX_BUCKETS 64
#define PREFIX_WAYS 4
#define PREFIX_SEEN 1024
#define PREFIX_BUDGET ((Py_ssize_t)32 << 20)
#define PREFIXES_CAPSULE "toolaudit.history._speedups.Prefixes"

typedef struct {
    Py_buffer view; /* the text, held (view.obj NULL: the entry is empty) */
    size_t key;
    ReadMessage read; /* the shape it was read as */
    Py_ssize_t length; /* the text to the end of its last message */
    Py_ssize_t messages;
    unsigned long used;
    /* the Reading's state there, its spans into the held text */
    Py_ssize_t count, capacity, window, next;
    size_t mask;
    int by_id, tool_count;
    Span tools[MAX_TOOLS]; /* at NULL: the no_name */
    long results[MAX_TOOLS];
    IdText *ids;
    Call *calls;
    Py_ssize_t *slots;
    Py_ssize_t ids_room, calls_room, slots_room; /* how many the arrays hold */
} Prefix;

typedef struct {
    Prefix entries[PREFIX_BUCKETS][PREFIX_WAYS];
    size_t seen[PREFIX_SEEN]; /* the keys of the sessions seen last, by key */
    unsigned long clock;
    Py_ssize_t held, budget; /* the bytes of the texts held, and how many may be */
    Py_ssize_t resumed;      /* how many histories were read on from a prefix */
} Prefixes;

static void
prefix_release(Prefixes *prefixes, Prefix *entry)
{
    if (entry->view.obj == NULL)
        return;
    prefixes->held -= entry->view.len;
    PyBuffer_Release(&entry->view);
    entry->view.obj = NULL;
}

static void
prefixes_free(PyObject *capsule)
{
    Prefixes *prefixes = PyCapsule_GetPointer(capsule, PREFIXES_CAPSULE);
    if (prefixes == NULL)
        return;
    for (int bucket = 0; bucket < PREFIX_BUCKETS; bucket++)
        for (int way = 0; way < PREFIX_WAYS; way++) {
            Prefix *entry = &prefixes->entries[bucket][way];
            prefix_release(prefixes, entry);
            PyMem_Free(entry->ids);
            PyMem_Free(entry->calls);
            PyMem_Free(entry->slots);
        }
    PyMem_Free(prefixes);
}

/* history_prefixes([budget]): a new, empty Prefixes (budget: the bytes of text it may
   hold, PREFIX_BUDGET by default). */
PyObject *
history_prefixes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t budget = PREFIX_BUDGET;
    if (nargs > 1 || (nargs == 1 && (budget = PyLong_AsSsize_t(args[0])) < 0)) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "([budget: int >= 0])");
        return NULL;
    }
    Prefixes *prefixes = PyMem_Calloc(1, sizeof(Prefixes));
    if (prefixes == NULL)
        return PyErr_NoMemory();
    prefixes->budget = budget;
    PyObject *capsule = PyCapsule_New(prefixes, PREFIXES_CAPSULE, prefixes_free);
    if (capsule == NULL)
        PyMem_Free(prefixes);
    return capsule;
}

/* prefixes_held(prefixes): (histories kept, bytes of text held, histories read on from a
   prefix kept): what benchmarks and tests see of it. */
PyObject *
prefixes_held(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 1 || !PyCapsule_IsValid(args[0], PREFIXES_CAPSULE)) {
        PyErr_SetString(PyExc_TypeError, "(prefixes: a history_prefixes())");
        return NULL;
    }
    Prefixes *prefixes = PyCapsule_GetPointer(args[0], PREFIXES_CAPSULE);
    Py_ssize_t kept = 0;
    for (int bucket = 0; bucket < PREFIX_BUCKETS; bucket++)
        for (int way = 0; way < PREFIX_WAYS; way++)
            kept += prefixes->entries[bucket][way].view.obj != NULL;
    return Py_BuildValue("(nnn)", kept, prefixes->held, prefixes->resumed);
}

/* A span moved from one copy of a text to another (at NULL, or outside `from`, as it is). */
static inline Byte
moved(Byte at, Byte from, Py_ssize_t length, Byte to)
{
    return at != NULL && at >= from && at < from + length ? to + (at - from) : at;
}

/* What the readers keep of a session: where they look it up, and the entry they took. */
typedef struct {
    Prefixes *prefixes;
    ReadMessage read;
    size_t key;
    int keyed;      /* the history has PREFIX_KEY_MESSAGES messages: `key` is its */
    Prefix *resumed; /* the entry it read on from, or NULL */
} Session;

/* The Reading made what `entry` kept of a text whose first bytes, `start` on, are that
   text's: 1, or -1 with a MemoryError set. */
static int
prefix_restore(Reading *reading, const Prefix *entry, Byte start)
{
    Byte from = entry->view.buf;
    Py_ssize_t length = entry->length, count = entry->count;
    CallTable *table = &reading->table;
    table_free(table);
    if (reading->calls != reading->first_calls)
        PyMem_Free(reading->calls);
    reading->calls = reading->first_calls;
    reading->room = FIRST_CALLS;
    table->ids = NULL;
    table->slots = NULL;
    table->count = table->capacity = 0;
    table->mask = 0;
    if (entry->capacity > 0) {
        if (entry->capacity <= FIRST_IDS) {
            table->ids = table->first_ids;
            table->slots = table->first_slots;
        }
        else {
            table->ids = PyMem_Malloc((size_t)entry->capacity * sizeof(IdText));
            table->slots = PyMem_Malloc((entry->mask + 1) * sizeof(Py_ssize_t));
            reading->calls = PyMem_Malloc((size_t)entry->capacity * sizeof(Call));
            if (table->ids == NULL || table->slots == NULL || reading->calls == NULL) {
                PyMem_Free(table->ids);
                PyMem_Free(table->slots);
                PyMem_Free(reading->calls);
                table->ids = NULL;
                table->slots = NULL;
                reading->calls = reading->first_calls;
                reading->failed = 1;
                PyErr_NoMemory();
                return -1;
            }
            reading->room = entry->capacity;
        }
        table->capacity = entry->capacity;
        table->mask = entry->mask;
        table->count = count;
        memcpy(table->slots, entry->slots, (entry->mask + 1) * sizeof(Py_ssize_t));
        for (Py_ssize_t place = 0; place < count; place++) {
            IdText id = entry->ids[place];
            id.at = moved(id.at, from, length, start);
            table->ids[place] = id;
            Call call = entry->calls[place];
            call.id.at = moved(call.id.at, from, length, start);
            call.name.at = moved(call.name.at, from, length, start);
            reading->calls[place] = call;
        }
    }
    reading->window = entry->window;
    reading->next = entry->next;
    reading->by_id = entry->by_id;
    reading->tool_count = entry->tool_count;
    for (int k = 0; k < entry->tool_count; k++) {
        Span tool = entry->tools[k];
        if (tool.at == NULL)
            tool = reading->no_name;
        else
            tool.at = moved(tool.at, from, length, start);
        reading->tools[k] = tool;
        reading->results[k] = entry->results[k];
    }
    return 1;
}

/* Where the history at `start`, read to `*p` (the end of its PREFIX_KEY_MESSAGES'th
   message), may read on from: the longest prefix kept of its session whose bytes it
   starts with. Then the Reading takes its state, *p and *index move past it: 1; 0 none;
   -1 an error. */
static int
prefix_resume(Session *session, Reading *reading, Byte start, Byte *p, Py_ssize_t *index)
{
    Prefixes *prefixes = session->prefixes;
    Py_ssize_t keyed = *p - start, available = reading->end - start;
    Py_ssize_t hashed = keyed < PREFIX_KEY_BYTES ? keyed : PREFIX_KEY_BYTES;
    session->key = id_hash((IdText){*p - hashed, hashed, 1}) ^ (size_t)keyed;
    session->keyed = 1;
    Prefix *bucket = prefixes->entries[session->key % PREFIX_BUCKETS], *best = NULL;
    for (int way = 0; way < PREFIX_WAYS; way++) {
        Prefix *entry = &bucket[way];
        if (entry->view.obj != NULL && entry->key == session->key &&
            entry->read == session->read && entry->length <= available &&
            entry->messages > *index && (best == NULL || entry->length > best->length) &&
            memcmp(entry->view.buf, start, (size_t)entry->length) == 0)
            best = entry;
    }
    if (best == NULL)
        return 0;
    if (prefix_restore(reading, best, start) < 0)
        return -1;
    best->used = ++prefixes->clock;
    prefixes->resumed++;
    session->resumed = best;
    *p = start + best->length;
    *index = best->messages;
    return 1;
}

/* `array` (entries of `size` bytes, room for `*room`) with room for `wanted`: 1, or 0
   (no memory: the entry is then not kept). */
static int
entry_room(void **array, size_t size, Py_ssize_t *room, Py_ssize_t wanted)
{
    if (*room >= wanted)
        return 1;
    void *more = PyMem_Realloc(*array, (size_t)wanted * size);
    if (more == NULL)
        return 0;
    *array = more;
    *room = wanted;
    return 1;
}

/* Keeps what the Reading holds at the end of the history `view` holds (its last message
   ending `length` bytes in, the `messages`th): the view then the entry's (*view zeroed);
   where it is not kept (past the budget, no memory), the view stays the caller's. */
static void
prefix_keep(Session *session, const Reading *reading, Py_buffer *view, Py_ssize_t length,
            Py_ssize_t messages)
{
    Prefixes *prefixes = session->prefixes;
    Prefix *entry = session->resumed;
    if (entry == NULL) { /* the first history of its session: kept from the second on */
        size_t *seen = &prefixes->seen[session->key % PREFIX_SEEN];
        if (*seen != session->key) {
            *seen = session->key;
            return;
        }
    }
    /* Only a text that cannot change is held: bytes, or a msgspec Raw (which holds the
       line's bytes); any other buffer's history is read whole every time. */
    static PyTypeObject *raw_type = NULL; /* msgspec.Raw, once met */
    PyTypeObject *type = Py_TYPE(view->obj);
    if (type != &PyBytes_Type && type != raw_type) {
        if (strcmp(type->tp_name, "msgspec.Raw") != 0)
            return;
        raw_type = type;
    }
    if (entry == NULL) { /* a session not kept (or gone): its bucket's least used */
        Prefix *bucket = prefixes->entries[session->key % PREFIX_BUCKETS];
        entry = &bucket[0];
        for (int way = 1; way < PREFIX_WAYS && entry->view.obj != NULL; way++)
            if (bucket[way].view.obj == NULL || bucket[way].used < entry->used)
                entry = &bucket[way];
    }
    Py_ssize_t held = prefixes->held - (entry->view.obj != NULL ? entry->view.len : 0);
    if (held + view->len > prefixes->budget)
        return;
    /* (an array grown keeps what it held: where one cannot grow, the entry stays as it was) */
    const CallTable *table = &reading->table;
    Py_ssize_t count = table->count, slots = table->capacity > 0 ? (Py_ssize_t)table->mask + 1 : 0;
    if (!entry_room((void **)&entry->ids, sizeof(IdText), &entry->ids_room, count) ||
        !entry_room((void **)&entry->calls, sizeof(Call), &entry->calls_room, count) ||
        !entry_room((void **)&entry->slots, sizeof(Py_ssize_t), &entry->slots_room, slots))
        return;
    prefix_release(prefixes, entry);
    entry->view = *view;
    view->obj = NULL;
    view->buf = NULL;
    prefixes->held += entry->view.len;
    entry->key = session->key;
    entry->read = session->read;
    entry->length = length;
    entry->messages = messages;
    entry->used = ++prefixes->clock;
    entry->count = count;
    entry->capacity = table->capacity;
    entry->mask = table->mask;
    entry->window = reading->window;
    entry->next = reading->next;
    entry->by_id = reading->by_id;
    entry->tool_count = reading->tool_count;
    for (int k = 0; k < reading->tool_count; k++) {
        entry->tools[k] = reading->tools[k];
        if (reading->tools[k].at == reading->no_name.at)
            entry->tools[k].at = NULL;
        entry->results[k] = reading->results[k];
    }
    if (count > 0) {
        memcpy(entry->ids, table->ids, (size_t)count * sizeof(IdText));
        memcpy(entry->calls, reading->calls, (size_t)count * sizeof(Call));
    }
    if (slots > 0)
        memcpy(entry->slots, table->slots, (size_t)slots * sizeof(Py_ssize_t));
}

/* ---- The answer. */

static PyObject *
text_of(Span text)
{
    return PyUnicode_DecodeUTF8((const char *)text.at, text.length, NULL);
}

/* (unanswered, results, message_count), as _speedups.c's answer builds the first two. */
static PyObject *
answer(const Reading *reading, Py_ssize_t messages, PyObject *no_name)
{
    PyObject *unanswered = PyList_New(0), *results = PyDict_New();
    int failed = unanswered == NULL || results == NULL;
    for (Py_ssize_t place = 0; !failed && place < reading->table.count; place++) {
        const Call *call = &reading->calls[place];
        if (call->answered)
            continue;
        PyObject *name = call->name.at != NULL ? text_of(call->name) : Py_NewRef(Py_None);
        PyObject *id = call->id.at != NULL ? text_of(call->id) : Py_NewRef(Py_None);
        PyObject *entry = call->field == NO_FIELD
                              ? Py_BuildValue("(NNnn)", id, name, call->index, call->j)
                              : Py_BuildValue("(NNnnO)", id, name, call->index, call->j,
                                              field_names[call->field]);
        failed = entry == NULL || PyList_Append(unanswered, entry) < 0;
        Py_XDECREF(entry);
    }
    for (int k = 0; !failed && k < reading->tool_count; k++) {
        Span tool = reading->tools[k];
        PyObject *name = tool.at == reading->no_name.at ? Py_NewRef(no_name) : text_of(tool);
        PyObject *count = PyLong_FromLong(reading->results[k]);
        failed = name == NULL || count == NULL || PyDict_SetItem(results, name, count) < 0;
        Py_XDECREF(name);
        Py_XDECREF(count);
    }
    PyObject *found = failed ? NULL : Py_BuildValue("(OOn)", unanswered, results, messages);
    Py_XDECREF(unanswered);
    Py_XDECREF(results);
    return found;
}

/* Whether every call read was answered. */
static int
all_answered(const Reading *reading)
{
    for (Py_ssize_t place = 0; place < reading->table.count; place++)
        if (!reading->calls[place].answered)
            return 0;
    return 1;
}

/* A history read whole, every call answered, counted straight into `tables` for `model`
   as count_answered counts its results per tool: 1, 0 where count_into cannot (Python
   counts it from the answer), -1 an error. */
static int
count_read(const Reading *reading, PyObject *no_name, PyObject *tables, PyObject *model)
{
    Results results = {.size = 0};
    int counted = 1;
    for (int k = 0; k < reading->tool_count; k++) {
        Span tool = reading->tools[k];
        PyObject *name = tool.at == reading->no_name.at ? Py_NewRef(no_name) : text_of(tool);
        if (name == NULL) {
            counted = -1;
            break;
        }
        results.names[results.size] = name;
        results.counts[results.size++] = reading->results[k];
    }
    if (counted > 0)
        counted = count_into(tables, model, &results, NULL, 0);
    for (int k = 0; k < results.size; k++)
        Py_DECREF(results.names[k]);
    return counted;
}

/* Reads the history's messages one by one with `read`: 1 read (*messages: how many,
   *last: where the last one ends), 0 not sure, -1 an error. Given a `session`, where the
   history starts as one read before (a Prefixes entry), it reads on from where that one
   ended. */
static int
read_messages(Reading *reading, Byte p, ReadMessage read, Py_ssize_t *messages, Byte *last,
              Session *session)
{
    Byte start = p, end = reading->end;
    p = space(p, end);
    if (p >= end || *p != '[')
        return 0;
    p++;
    Py_ssize_t index = 0;
    for (;; index++) {
        if (index == PREFIX_KEY_MESSAGES && session != NULL) {
            int resumed = prefix_resume(session, reading, start, &p, &index);
            if (resumed < 0)
                return -1;
            if (resumed > 0)
                *last = p;
        }
        int more = next_element(&p, end, index == 0, ']');
        if (more < 0)
            return 0;
        if (more == 0)
            break;
        if (*p != '{')
            return 0; /* a message not an object: the full reading words it */
        int sure = read(reading, &p, index);
        if (sure <= 0)
            return sure;
        *last = p;
    }
    if (space(p, end) != end)
        return 0;
    *messages = index;
    return 1;
}

static PyObject *
read_history(PyObject *const *args, Py_ssize_t nargs, ReadMessage read)
{
    if (nargs < 2 || nargs > 5 || nargs == 3 || !PyUnicode_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError,
                        "(text: a buffer of JSON, no_name: str[, tables, model[, prefixes]])");
        return NULL;
    }
    int counting = nargs >= 4 && args[2] != Py_None;
    Session session = {NULL, read, 0, 0, NULL}, *in_session = NULL;
    if (nargs == 5 && args[4] != Py_None) {
        if (!PyCapsule_IsValid(args[4], PREFIXES_CAPSULE)) {
            PyErr_SetString(PyExc_TypeError, "prefixes: a history_prefixes() or None");
            return NULL;
        }
        session.prefixes = PyCapsule_GetPointer(args[4], PREFIXES_CAPSULE);
        in_session = &session;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Reading reading;
    memset(&reading, 0, offsetof(Reading, first_calls)); /* (the arrays need no zeros) */
    reading.table.first_ids = reading.first_ids;
    reading.table.first_slots = reading.first_slots;
    reading.calls = reading.first_calls;
    reading.room = FIRST_CALLS;
    reading.blocks = reading.first_blocks;
    reading.block_capacity = FIRST_BLOCKS;
    reading.by_id = -1;
    reading.end = (Byte)view.buf + view.len;
    PyObject *found = NULL;
    Py_ssize_t no_name_length, messages = 0;
    Byte last = NULL;
    const char *no_name = PyUnicode_AsUTF8AndSize(args[1], &no_name_length);
    if (no_name != NULL) {
        reading.no_name = (Span){(Byte)no_name, no_name_length, 0};
        int sure = read_messages(&reading, (Byte)view.buf, read, &messages, &last, in_session);
        int counted = 0;
        if (sure > 0 && counting && all_answered(&reading))
            counted = count_read(&reading, args[1], args[2], args[3]);
        if (counted != 0) /* counted (True), or an error */
            found = counted > 0 ? Py_NewRef(Py_True) : NULL;
        else
            found = sure > 0 ? answer(&reading, messages, args[1]) : sure == 0 ? Py_NewRef(Py_None) : NULL;
        if (found != NULL && sure > 0 && !reading.failed && messages > PREFIX_KEY_MESSAGES &&
            session.keyed)
            prefix_keep(&session, &reading, &view, last - (Byte)view.buf, messages);
    }
    if (reading.failed)
        Py_CLEAR(found);
    if (reading.calls != reading.first_calls)
        PyMem_Free(reading.calls);
    table_free(&reading.table);
    if (reading.blocks != reading.first_blocks)
        PyMem_Free(reading.blocks);
    if (view.obj != NULL) /* (kept by a Prefixes entry otherwise) */
        PyBuffer_Release(&view);
    return found;
}

/* read_history of the reader of `shape` (_speedups_pairs.c's check): a case each, so that
   each reader is called by name where read_history is inlined, as in the functions below. */
PyObject *
read_json_history(JsonShape shape, PyObject *const *args, Py_ssize_t nargs)
{
    switch (shape) {
    case JSON_CHAT:
        return read_history(args, nargs, chat_message);
    case JSON_RESPONSES:
        return read_history(args, nargs, responses_item);
    case JSON_ANTHROPIC:
        return read_history(args, nargs, anthropic_message);
    case JSON_BEDROCK:
        return read_history(args, nargs, bedrock_message);
    case JSON_GEMINI:
        return read_history(args, nargs, gemini_message);
    default:
        Py_RETURN_NONE;
    }
}

PyObject *
chat_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, chat_message);
}

PyObject *
responses_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, responses_item);
}

PyObject *
anthropic_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, anthropic_message);
}

PyObject *
bedrock_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, bedrock_message);
}

PyObject *
gemini_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, gemini_message);
}

PyObject *
otel_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return read_history(args, nargs, otel_message);
}

int
init_speedups_json(void)
{
    init_plain();
    init_utf8();
    field_names[FUNCTION_CALL_GEMINI] = PyUnicode_InternFromString("functionCall");
    field_names[FUNCTION_CALL_SNAKE] = PyUnicode_InternFromString("function_call");
    return field_names[FUNCTION_CALL_GEMINI] && field_names[FUNCTION_CALL_SNAKE] ? 0 : -1;
}
