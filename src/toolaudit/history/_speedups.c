/* The commonest histories' pairing, in C: an optional speedup of toolaudit.history.fast.
 *
 * chat, responses, anthropic, bedrock, gemini and otel (each (messages, no_name)) read an
 * OpenAI Chat, OpenAI Responses, Anthropic, Bedrock Converse, Gemini or OpenTelemetry GenAI
 * history as the pure-Python fast paths
 * (fast.py, fast_blocks.py) do when no calls are listed, and
 * answer only when the history is of the plainest kind: every call with a string id of
 * its own, every result where its provider wants it, no result that could report a
 * failure (those, and everything else, are left to Python: the function returns None,
 * "not sure"). Their answer is (unanswered, results):
 *   unanswered: [(call_id, name, message index, index in the message), ...] in the
 *               order the pure fast path reports calls left without a result (Gemini's
 *               with the part's field last, its call_id None where calls go by name);
 *   results:    {tool name: how many results it had}, a name that is not a str counted
 *               under no_name, in the order tools first had a result.
 * tests/history/test_speedups.py holds them to the pure fast path's answers. Given the
 * audit's tables and a model too (messages, no_name, tables, model, left_too), they count
 * a history whose every call was answered (or, left_too, whose only problems are calls
 * left unanswered) straight into the tables and answer True, where they can (count_into;
 * know_tables tells them the tables' classes): tests/history/test_counted.py.
 * chat_json, responses_json, anthropic_json, bedrock_json, gemini_json and otel_json
 * (_speedups_json.c) answer the same read straight from a history's JSON text. Both
 * find a history's calls by their ids' text in one table (_call_table.h).
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the pure-Python fast path runs alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <structmember.h>

#include "_call_table.h"
#include "_speedups_json.h"

/* The keys read, each the str object last seen as that key in a logged dict: JSON
   parsers share one object per key text (orjson's cache of keys), so that a key is most
   often found by identity, its text compared only the first time (see pick). */
enum { K_ROLE, K_TOOL_CALL_ID, K_NAME, K_CONTENT, K_FUNCTION_CALL, K_TOOL_CALLS, K_ID,
       K_FUNCTION, K_TYPE, K_CALL_ID, K_OUTPUT, K_IS_ERROR, K_IS_ERROR_MCP, K_TEXT, K_JSON,
       K_TOOL_USE_ID, K_TOOL_USE, K_TOOL_RESULT, K_TOOL_USE_ID_BEDROCK, K_STATUS,
       K_PARTS, K_FUNCTION_CALL_GEMINI, K_FUNCTION_RESPONSE_GEMINI, K_FUNCTION_RESPONSE,
       K_RESPONSE, K_ERROR, K_RESULT, KEY_COUNT };
static const char *key_texts[KEY_COUNT] = {
    "role", "tool_call_id", "name", "content", "function_call", "tool_calls", "id",
    "function", "type", "call_id", "output", "is_error", "isError", "text", "json",
    "tool_use_id", "toolUse", "toolResult", "toolUseId", "status",
    "parts", "functionCall", "functionResponse", "function_response", "response", "error",
    "result",
};
static PyObject *keys[KEY_COUNT];

/* dict[key], or NULL when absent: as PyDict_GetItem, without saving and restoring the
   error state around every lookup (a lookup with a str key among str keys raises nothing;
   a key's own __eq__ that raises makes it absent, as PyDict_GetItem would). */
static inline PyObject *
get(PyObject *dict, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(dict, key);
    if (value == NULL && PyErr_Occurred())
        PyErr_Clear();
    return value;
}

/* The values compared with. */
static PyObject *s_tool, *s_assistant, *s_function, *s_function_call,
    *s_function_call_output, *s_custom_tool_call, *s_custom_tool_call_output, *s_user,
    *s_tool_use, *s_tool_result, *s_error, *s_tool_call, *s_tool_call_response;

/* Two exact strs of one text. (Their first bytes are compared before the call to memcmp:
   keys of one length, "role" and "type", "content" and "call_id", mostly differ there.) */
static inline int
same_text(PyObject *a, PyObject *b)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(a);
    if (a == b)
        return 1;
    if (length != PyUnicode_GET_LENGTH(b) || PyUnicode_KIND(a) != PyUnicode_KIND(b))
        return 0;
    const unsigned char *at = PyUnicode_DATA(a), *other = PyUnicode_DATA(b);
    return length == 0 || (at[0] == other[0] &&
                           memcmp(at, other, (size_t)length * PyUnicode_KIND(a)) == 0);
}

/* A dict of at most this many entries is read by one walk rather than by lookups. */
#define SMALL_DICT 4

/* One key of a small dict walked by pick: found[i] = its value where it is the key
   wanted[i], by identity, else by its text (the key then adopted, see pick). */
static inline void
pick_entry(PyObject *key, PyObject *value, const int *wanted, int count, PyObject **found)
{
    for (int i = 0; i < count; i++) {
        if (keys[wanted[i]] == key) {
            found[i] = value;
            return;
        }
    }
    for (int i = 0; i < count; i++) {
        if (same_text(keys[wanted[i]], key)) {
            found[i] = value;
            Py_INCREF(key);
            Py_SETREF(keys[wanted[i]], key);
            return;
        }
    }
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && !defined(PYPY_VERSION)
/* CPython 3.11's dict keys object, as Include/internal/pycore_dict.h lays it out: a
   combined table's entries follow its index, and where every key is an exact str
   (DICT_KEYS_UNICODE) each is a key and a value. Read so that pick walks a small dict's
   entries in place: PyDict_Next, a call an entry, was most of what reading a dict cost.
   Any other dict (split, general, another CPython) is walked by PyDict_Next. */
typedef struct {
    Py_ssize_t dk_refcnt;
    uint8_t dk_log2_size, dk_log2_index_bytes, dk_kind;
    uint32_t dk_version;
    Py_ssize_t dk_usable, dk_nentries;
    char dk_indices[];
} DictKeys;
typedef struct {
    PyObject *key, *value;
} StrEntry;
#define DICT_KEYS_UNICODE 1

/* 1 where `dict` was walked in place (every key of it passed to pick_entry), 0 where it
   is not laid out so. */
static inline int
walk_in_place(PyObject *dict, const int *wanted, int count, PyObject **found)
{
    PyDictObject *table = (PyDictObject *)dict;
    const DictKeys *layout = (const DictKeys *)table->ma_keys;
    if (table->ma_values != NULL || layout->dk_kind != DICT_KEYS_UNICODE)
        return 0;
    const StrEntry *entry =
        (const StrEntry *)(layout->dk_indices + ((size_t)1 << layout->dk_log2_index_bytes));
    for (Py_ssize_t n = layout->dk_nentries; n > 0; n--, entry++)
        if (entry->value != NULL) /* (NULL: a deleted entry) */
            pick_entry(entry->key, entry->value, wanted, count, found);
    return 1;
}
#else
static inline int
walk_in_place(PyObject *dict, const int *wanted, int count, PyObject **found)
{
    return 0;
}
#endif

/* found[i] = get(dict, keys[wanted[i]]) for the `count` keys wanted: where the dict is
   small and its keys are all exact str (a message, a block, a part, a payload: two to
   four keys), by one walk, which spares a lookup for each key it does not hold. A key
   is the one wanted by identity, else by its text; one found by its text is taken as
   the key to look for from then on (adopted), so that the next dicts of the log, whose
   keys are the same objects, are read by identity. */
static void
pick(PyObject *dict, const int *wanted, int count, PyObject **found)
{
    for (int i = 0; i < count; i++)
        found[i] = NULL;
    Py_ssize_t size = PyDict_GET_SIZE(dict);
    if (size <= SMALL_DICT) {
        if (walk_in_place(dict, wanted, count, found))
            return;
        PyObject *key, *value;
        Py_ssize_t position = 0;
        int walked = 1;
        for (Py_ssize_t n = 0; walked && n < size && PyDict_Next(dict, &position, &key, &value);
             n++) {
            walked = PyUnicode_CheckExact(key);
            if (walked)
                pick_entry(key, value, wanted, count, found);
        }
        if (walked)
            return;
        for (int i = 0; i < count; i++)
            found[i] = NULL; /* (a key of a str subclass: its own == may say otherwise) */
    }
    for (int i = 0; i < count; i++)
        found[i] = get(dict, keys[wanted[i]]);
}

/* 1: an exact str equal to `constant` (an interned str); 0: not; -1: a str subclass (its
   == may be its own: not sure). */
static int
is_word(PyObject *value, PyObject *constant)
{
    if (value == NULL || value == Py_None)
        return 0;
    if (PyUnicode_CheckExact(value))
        return same_text(value, constant);
    return PyUnicode_Check(value) ? -1 : 0;
}

/* 1 when a result's content surely reports no failure, as signals.failed_payload reads
   it `depth` levels down: a text that does not begin as a failure text or a JSON object
   may, an empty list, a list whose first block reports none, an object with no failure
   flag whose text reports none, null, a boolean or a number. 0: not sure (a text that
   may be a failure, an object of another type), or a failure: Python decides. */
static int object_no_failure(PyObject *payload, int depth, int error_too);

static int
no_failure(PyObject *payload, int depth)
{
    if (depth <= 0 || payload == NULL || payload == Py_None || PyBool_Check(payload) ||
        PyLong_CheckExact(payload) || PyFloat_CheckExact(payload))
        return 1;
    if (PyUnicode_CheckExact(payload)) {
        if (PyUnicode_GET_LENGTH(payload) == 0)
            return 1;
        Py_UCS4 first = PyUnicode_READ_CHAR(payload, 0);
        return first != 'E' && first != 'A' && first != '{';
    }
    if (PyList_CheckExact(payload))
        return PyList_GET_SIZE(payload) == 0 || no_failure(PyList_GET_ITEM(payload, 0), depth - 1);
    return PyDict_CheckExact(payload) && object_no_failure(payload, depth, 0);
}

/* no_failure of an object (an exact dict); `error_too`: not sure either where it holds
   an `error` that is not null (a Gemini response's, read in the same walk). */
static int
object_no_failure(PyObject *payload, int depth, int error_too)
{
    static const int wanted[] = {K_IS_ERROR_MCP, K_IS_ERROR, K_TEXT, K_JSON, K_CONTENT, K_ERROR};
    PyObject *found[6];
    pick(payload, wanted, error_too ? 6 : 5, found);
    if (error_too && found[5] != NULL && found[5] != Py_None)
        return 0;
    if (found[0] == Py_True || found[1] == Py_True)
        return 0;
    for (int k = 2; k < 5; k++)
        if (found[k] != NULL)
            return no_failure(found[k], depth - 1);
    return 1;
}

/* signals._DEPTH: how deep failed_payload looks. */
#define FAILURE_DEPTH 4

/* (Results, each tool's results so far, and MAX_TOOLS are in _speedups_json.h.) */

/* One more result of the tool named `name` (no_name unless an exact str): 1, or 0 when
   there are too many tools to count here. */
static int
count_result(Results *results, PyObject *name, PyObject *no_name)
{
    PyObject *tool = (name != NULL && PyUnicode_CheckExact(name)) ? name : no_name;
    for (int k = 0; k < results->size; k++) {
        if (same_text(results->names[k], tool)) {
            results->counts[k]++;
            return 1;
        }
    }
    if (results->size == MAX_TOOLS)
        return 0;
    results->names[results->size] = tool;
    results->counts[results->size++] = 1;
    return 1;
}

/* Moves what is left in `window` (call_id -> (name, index, j)) onto `unanswered` as
   (call_id, name, index, j), in the window's order, and empties it. */
static int
close_window(PyObject *window, PyObject *unanswered)
{
    PyObject *call_id, *at;
    Py_ssize_t position = 0;
    while (PyDict_Next(window, &position, &call_id, &at)) {
        PyObject *entry = PyTuple_Pack(
            4, call_id, PyTuple_GET_ITEM(at, 0), PyTuple_GET_ITEM(at, 1),
            PyTuple_GET_ITEM(at, 2));
        if (entry == NULL || PyList_Append(unanswered, entry) < 0) {
            Py_XDECREF(entry);
            return -1;
        }
        Py_DECREF(entry);
    }
    PyDict_Clear(window);
    return 0;
}

/* A new call: `call_id` must be an exact str not seen before (else 0: not sure). */
static int
open_call(PyObject *window, PyObject *seen, PyObject *call_id, PyObject *name,
          Py_ssize_t index, Py_ssize_t j)
{
    if (call_id == NULL || !PyUnicode_CheckExact(call_id))
        return 0;
    if (name != NULL && PyUnicode_Check(name) && !PyUnicode_CheckExact(name))
        return 0; /* a str subclass: Python's isinstance and == may see it otherwise */
    int known = PySet_Contains(seen, call_id);
    if (known != 0)
        return known < 0 ? -1 : 0;
    if (PySet_Add(seen, call_id) < 0)
        return -1;
    PyObject *where = PyLong_FromSsize_t(index), *within = PyLong_FromSsize_t(j);
    PyObject *at = (where && within) ? PyTuple_Pack(3, name == NULL ? Py_None : name, where, within)
                                     : NULL;
    Py_XDECREF(where);
    Py_XDECREF(within);
    if (at == NULL)
        return -1;
    int failed = PyDict_SetItem(window, call_id, at);
    Py_DECREF(at);
    return failed < 0 ? -1 : 1;
}

/* Where the audit counts a history (toolaudit.results.conversations): the classes of its
   tables, told once by know_tables, and where their instances hold the slots counted
   (their member descriptors' offsets). Unknown until told: nothing is counted here. */
static PyTypeObject *conversations_type, *histories_type, *outcomes_type;
static Py_ssize_t slot_all, slot_by_model, slot_by_tool, slot_problems_by_tool, slot_checked,
    slot_with_problems, slot_problems, slot_results;
/* The code a call left without a result is counted under (history.model.UNANSWERED), and
   the key of the histories of no model (folding.NO_NAME, what table_key(None) is). */
static PyObject *unanswered_code, *no_model;

/* The offset of the slot `name` of the class `cls` (a __slots__ entry): 0, or -1 with an
   error set. */
static int
slot_offset(PyObject *cls, const char *name, Py_ssize_t *offset)
{
    PyObject *descriptor = PyObject_GetAttrString(cls, name);
    if (descriptor == NULL)
        return -1;
    int slot = Py_IS_TYPE(descriptor, &PyMemberDescr_Type) &&
               ((PyMemberDescrObject *)descriptor)->d_member->type == T_OBJECT_EX;
    if (slot)
        *offset = ((PyMemberDescrObject *)descriptor)->d_member->offset;
    Py_DECREF(descriptor);
    if (!slot)
        PyErr_Format(PyExc_TypeError, "%s is not a slot", name);
    return slot ? 0 : -1;
}

/* know_tables(Conversations, Histories, Outcomes, unanswered, no_model): the classes the
   counting functions count into, the code of a call left unanswered and the key of the
   histories of no model (see count_into). */
static PyObject *
know_tables(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyType_Check(args[0]) || !PyType_Check(args[1]) ||
        !PyType_Check(args[2]) || !PyUnicode_CheckExact(args[3]) ||
        !PyUnicode_CheckExact(args[4])) {
        PyErr_SetString(
            PyExc_TypeError,
            "know_tables(Conversations, Histories, Outcomes, unanswered: str, no_model: str)");
        return NULL;
    }
    if (slot_offset(args[0], "all", &slot_all) || slot_offset(args[0], "by_model", &slot_by_model) ||
        slot_offset(args[0], "by_tool", &slot_by_tool) ||
        slot_offset(args[0], "problems_by_tool", &slot_problems_by_tool) ||
        slot_offset(args[1], "checked", &slot_checked) ||
        slot_offset(args[1], "with_problems", &slot_with_problems) ||
        slot_offset(args[1], "problems", &slot_problems) ||
        slot_offset(args[2], "results", &slot_results))
        return NULL;
    for (int k = 0; k < 5; k++)
        Py_INCREF(args[k]);
    Py_XSETREF(conversations_type, (PyTypeObject *)args[0]);
    Py_XSETREF(histories_type, (PyTypeObject *)args[1]);
    Py_XSETREF(outcomes_type, (PyTypeObject *)args[2]);
    Py_XSETREF(unanswered_code, args[3]);
    Py_XSETREF(no_model, args[4]);
    Py_RETURN_NONE;
}

/* The value of the slot at `offset` of `object`: borrowed, NULL when unset. */
static inline PyObject **
slot_of(PyObject *object, Py_ssize_t offset)
{
    return (PyObject **)((char *)object + offset);
}

/* Whether a model's or tool's name is its own key in the tables: an exact str that does
   not begin as a bucket (`<`) or its escape (`\`) does (folding.NOT_OWN_KEY_STARTS). */
static int
own_key(PyObject *name)
{
    if (name == NULL || !PyUnicode_CheckExact(name) || PyUnicode_GET_LENGTH(name) == 0)
        return 0;
    Py_UCS4 first = PyUnicode_READ_CHAR(name, 0);
    return first != '<' && first != '\\';
}

/* The entry of `table` (an exact dict) at `name` (its own key), of exact type `type`, or
   NULL (none such: Python counts). */
static PyObject *
entry_of(PyObject *table, PyObject *name, PyTypeObject *type)
{
    if (table == NULL || !PyDict_CheckExact(table) || !own_key(name))
        return NULL;
    PyObject *entry = get(table, name);
    return entry != NULL && Py_IS_TYPE(entry, type) ? entry : NULL;
}

/* The slot at `offset` of `entry`, where it holds an exact int (else NULL). */
static PyObject **
int_slot(PyObject *entry, Py_ssize_t offset)
{
    PyObject **slot = entry == NULL ? NULL : slot_of(entry, offset);
    return slot != NULL && *slot != NULL && PyLong_CheckExact(*slot) ? slot : NULL;
}

/* Whether `table` is an exact dict holding an exact int at `key`. */
static int
int_entry(PyObject *table, PyObject *key)
{
    PyObject *count = table != NULL && PyDict_CheckExact(table) ? get(table, key) : NULL;
    return count != NULL && PyLong_CheckExact(count);
}

/* `count` more than `value` (an int): a new reference, or NULL with an error set. */
static PyObject *
plus(PyObject *value, long count)
{
    PyObject *more = PyLong_FromLong(count);
    PyObject *total = more == NULL ? NULL : PyNumber_Add(value, more);
    Py_XDECREF(more);
    return total;
}

/* `count` more in the int slot `slot`: 0, or -1 with an error set. */
static int
add_to(PyObject **slot, long count)
{
    PyObject *total = plus(*slot, count);
    if (total == NULL)
        return -1;
    Py_SETREF(*slot, total);
    return 0;
}

/* `count` more in `table[key]`, an int there: 0, or -1 with an error set. */
static int
add_at(PyObject *table, PyObject *key, long count)
{
    PyObject *total = plus(get(table, key), count);
    int failed = total == NULL || PyDict_SetItem(table, key, total) < 0;
    Py_XDECREF(total);
    return failed ? -1 : 0;
}

/* The most calls left unanswered a history counted here may have. */
#define MAX_LEFT 64

/* A history whose only problems are the `left_count` calls `left` (their names) left
   without a result and none of whose results failed, of `model`, counted straight into
   `tables` (a Conversations) as Conversations.count_all_answered (none left) or
   count_results (its problems each a CountedProblem(UNANSWERED, name)) counts it: one
   more history read, for all and for its model, with a problem if any is left (the
   code's count, for all, the model and each call's tool), and each tool's results. Only
   where every entry it adds to is already there and plain (a name its own key, a count
   an int): 1 counted; 0 not (a first model, tool or problem, a name that may fold...:
   Python counts it); -1 an error. (The text readers count so too: _speedups_json.h.) */
int
count_into(PyObject *tables, PyObject *model, const Results *results, PyObject *const *left,
           Py_ssize_t left_count)
{
    if (conversations_type == NULL || tables == NULL || !Py_IS_TYPE(tables, conversations_type) ||
        left_count > MAX_LEFT)
        return 0;
    PyObject *all = *slot_of(tables, slot_all), *by_tool = *slot_of(tables, slot_by_tool);
    PyObject *by_model = *slot_of(tables, slot_by_model), *histories[2] = {
        all != NULL && Py_IS_TYPE(all, histories_type) ? all : NULL,
        entry_of(by_model, model, histories_type)};
    if (model == Py_None && by_model != NULL && PyDict_CheckExact(by_model)) {
        histories[1] = get(by_model, no_model); /* (the histories of no model) */
        if (histories[1] != NULL && !Py_IS_TYPE(histories[1], histories_type))
            histories[1] = NULL;
    }
    PyObject **checked[2], **with_problems[2], **counts[MAX_TOOLS];
    PyObject *problems[2], *by_code[MAX_LEFT];
    for (int k = 0; k < 2; k++) {
        checked[k] = int_slot(histories[k], slot_checked);
        if (checked[k] == NULL)
            return 0;
        if (left_count == 0)
            continue;
        with_problems[k] = int_slot(histories[k], slot_with_problems);
        problems[k] = *slot_of(histories[k], slot_problems);
        if (with_problems[k] == NULL || !int_entry(problems[k], unanswered_code))
            return 0;
    }
    for (Py_ssize_t k = 0; k < left_count; k++) {
        by_code[k] = *slot_of(tables, slot_problems_by_tool);
        by_code[k] = by_code[k] != NULL && PyDict_CheckExact(by_code[k]) && own_key(left[k])
                         ? get(by_code[k], left[k])
                         : NULL;
        if (by_code[k] == NULL || !PyDict_CheckExact(by_code[k]) ||
            !int_entry(by_code[k], unanswered_code))
            return 0;
    }
    for (int k = 0; k < results->size; k++) {
        counts[k] = int_slot(entry_of(by_tool, results->names[k], outcomes_type), slot_results);
        if (counts[k] == NULL)
            return 0;
    }
    /* every entry is there: counted (each read as it is added to, should two be one) */
    for (int k = 0; k < 2; k++) {
        if (add_to(checked[k], 1) < 0)
            return -1;
        if (left_count > 0 && (add_to(with_problems[k], 1) < 0 ||
                               add_at(problems[k], unanswered_code, (long)left_count) < 0))
            return -1;
    }
    for (Py_ssize_t k = 0; k < left_count; k++)
        if (add_at(by_code[k], unanswered_code, 1) < 0)
            return -1;
    for (int k = 0; k < results->size; k++)
        if (add_to(counts[k], results->counts[k]) < 0)
            return -1;
    return 1;
}

/* count_answered(tables, model, results[, left]): a history whose every call was answered
   (or whose only problems are the calls `left`, a list of tuples each with its call's
   name second, as the readers give them) and no result failed, read elsewhere (from its
   text: the pairs' typed path), its results per tool given (a dict of ints), counted
   straight into `tables` as count_into counts it: True, or False where it cannot be
   (Python counts it). */
static PyObject *
count_answered(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 && nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "count_answered(tables, model, results[, left])");
        return NULL;
    }
    if (!PyDict_CheckExact(args[2]))
        Py_RETURN_FALSE; /* a Mapping of another type: Python reads it */
    PyObject *left[MAX_LEFT];
    Py_ssize_t left_count = 0;
    if (nargs == 4) {
        if (!PyList_CheckExact(args[3]) || PyList_GET_SIZE(args[3]) > MAX_LEFT)
            Py_RETURN_FALSE;
        for (; left_count < PyList_GET_SIZE(args[3]); left_count++) {
            PyObject *call = PyList_GET_ITEM(args[3], left_count);
            if (!PyTuple_CheckExact(call) || PyTuple_GET_SIZE(call) < 2)
                Py_RETURN_FALSE;
            left[left_count] = PyTuple_GET_ITEM(call, 1);
        }
    }
    Results results = {.size = 0};
    PyObject *tool, *count;
    Py_ssize_t position = 0;
    while (PyDict_Next(args[2], &position, &tool, &count)) {
        long value = PyLong_CheckExact(count) ? PyLong_AsLong(count) : -1;
        if (value < 0 || results.size == MAX_TOOLS) {
            PyErr_Clear(); /* (an int past a long: not counted here) */
            Py_RETURN_FALSE;
        }
        results.names[results.size] = tool;
        results.counts[results.size++] = value;
    }
    int counted = count_into(args[0], args[1], &results, left, left_count);
    if (counted < 0)
        return NULL;
    return PyBool_FromLong(counted);
}

/* Where a reading may count the history itself: the tables and the model of the third
   and fourth arguments (tables NULL: not given, the answer is always returned), and
   whether one with calls left unanswered may be counted there too (the fifth: true where
   no report row is written, so that its problems need no words). */
typedef struct {
    PyObject *tables, *model;
    int left_too;
} Counting;

/* The arguments of a dict reader, `usage` its signature: (messages, no_name) or
   (messages, no_name, tables, model, left_too); 0, or -1 with a TypeError set. */
static int
reader_arguments(PyObject *const *args, Py_ssize_t nargs, const char *usage, Counting *counting)
{
    if ((nargs != 2 && nargs != 5) || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    *counting = (Counting){NULL, NULL, 0};
    if (nargs == 5) {
        int left_too = PyObject_IsTrue(args[4]);
        if (left_too < 0)
            return -1;
        *counting = (Counting){args[2], args[3], left_too};
    }
    return 0;
}

/* The answer, or None when not sure (`sure` 0) or NULL on an error (`sure` -1). */
static PyObject *
answer(int sure, PyObject *unanswered, Results *results)
{
    if (sure < 0)
        return NULL;
    if (sure == 0)
        Py_RETURN_NONE;
    PyObject *counts = PyDict_New();
    for (int k = 0; counts != NULL && k < results->size; k++) {
        PyObject *count = PyLong_FromLong(results->counts[k]);
        if (count == NULL || PyDict_SetItem(counts, results->names[k], count) < 0)
            Py_CLEAR(counts);
        Py_XDECREF(count);
    }
    if (counts == NULL)
        return NULL;
    PyObject *found = PyTuple_Pack(2, unanswered, counts);
    Py_DECREF(counts);
    return found;
}

/* answer(), or True where the history, read sure, was counted in the tables of
   `counting` (see count_into): `unanswered` holds the calls left, each with its name
   second. */
static PyObject *
answer_or_count(int sure, PyObject *unanswered, Results *results, const Counting *counting)
{
    Py_ssize_t left_count = sure > 0 ? PyList_GET_SIZE(unanswered) : 0;
    if (sure > 0 && counting->tables != NULL && (left_count == 0 || counting->left_too) &&
        left_count <= MAX_LEFT) {
        PyObject *left[MAX_LEFT];
        for (Py_ssize_t k = 0; k < left_count; k++)
            left[k] = PyTuple_GET_ITEM(PyList_GET_ITEM(unanswered, k), 1);
        int counted = count_into(counting->tables, counting->model, results, left, left_count);
        if (counted < 0)
            return NULL;
        if (counted > 0)
            Py_RETURN_TRUE;
    }
    return answer(sure, unanswered, results);
}

/* What the dict readers keep of the calls of a history, by their places in its table
   (_call_table.h): the id and the name borrowed from the history, which outlives the
   reading. */
typedef struct {
    PyObject *id, *name;
    Py_ssize_t index, j;
    int answered;
} Made;
typedef struct {
    CallTable table;
    Made *made;
    Py_ssize_t room; /* how many `made` holds */
} Calls;

/* An id's text, where the table reads it: an exact str; at NULL where not (not sure:
   Python reads it). */
static IdText
id_text(PyObject *id)
{
    if (id == NULL || !PyUnicode_CheckExact(id) || !PyUnicode_IS_READY(id))
        return (IdText){NULL, 0, 0};
    int width = PyUnicode_KIND(id);
    return (IdText){PyUnicode_DATA(id), PyUnicode_GET_LENGTH(id) * width, width};
}

/* Whether `id` is new to `table` (and from now on known): 1; 0 not sure (seen before, or
   not an id the table reads); -1 an error. */
static int
first_seen(CallTable *table, PyObject *id)
{
    IdText text = id_text(id);
    if (text.at == NULL)
        return 0;
    Py_ssize_t place = table_add(table, text);
    return place >= 0 ? 1 : place == -1 ? 0 : -1;
}

/* A new call (made_call): 1; 0 not sure (an id seen before or not read, a name of a str
   subclass, whose == and isinstance may be its own); -1 an error. */
static int
made_call(Calls *calls, PyObject *id, PyObject *name, Py_ssize_t index, Py_ssize_t j)
{
    if (name != NULL && PyUnicode_Check(name) && !PyUnicode_CheckExact(name))
        return 0;
    int added = first_seen(&calls->table, id);
    if (added <= 0)
        return added;
    Made *made = table_array(&calls->table, calls->made, sizeof(Made), &calls->room);
    if (made == NULL)
        return -1;
    calls->made = made;
    calls->made[calls->table.count - 1] = (Made){id, name == NULL ? Py_None : name, index, j, 0};
    return 1;
}

/* The call a result with id `id` answers: one placed from `from` to `to` not answered
   yet; NULL where there is none (not sure: the full reading words it). */
static Made *
waiting(Calls *calls, PyObject *id, Py_ssize_t from, Py_ssize_t to)
{
    IdText text = id_text(id);
    Py_ssize_t place = text.at == NULL ? -1 : table_find(&calls->table, text);
    if (place < from || place >= to || calls->made[place].answered)
        return NULL;
    return &calls->made[place];
}

/* The calls not answered, as (call_id, name, index, j) in the order they were made; NULL
   on an error. */
static PyObject *
unanswered_calls(const Calls *calls)
{
    PyObject *unanswered = PyList_New(0);
    for (Py_ssize_t place = 0; unanswered != NULL && place < calls->table.count; place++) {
        const Made *call = &calls->made[place];
        if (call->answered)
            continue;
        PyObject *entry = Py_BuildValue("(OOnn)", call->id, call->name, call->index, call->j);
        if (entry == NULL || PyList_Append(unanswered, entry) < 0)
            Py_CLEAR(unanswered);
        Py_XDECREF(entry);
    }
    return unanswered;
}

/* Whether the history of `calls` may be counted in the tables of `counting`: where
   every call was answered, or calls were left (their names into `left`, `*left_count` of
   them) and may be counted. */
static int
countable(const Calls *calls, const Counting *counting, PyObject **left, Py_ssize_t *left_count)
{
    *left_count = 0;
    if (counting->tables == NULL)
        return 0;
    for (Py_ssize_t place = 0; place < calls->table.count; place++) {
        if (calls->made[place].answered)
            continue;
        if (!counting->left_too || *left_count == MAX_LEFT)
            return 0;
        left[(*left_count)++] = calls->made[place].name;
    }
    return 1;
}

/* The answer of a reading of `calls` (see answer), the table freed; True where the
   history was counted in the tables of `counting` (see count_into). */
static PyObject *
answer_calls(int sure, Calls *calls, Results *results, const Counting *counting)
{
    PyObject *left[MAX_LEFT];
    Py_ssize_t left_count;
    int counted = sure > 0 && countable(calls, counting, left, &left_count)
                      ? count_into(counting->tables, counting->model, results, left, left_count)
                      : 0;
    if (counted != 0) {
        table_free(&calls->table);
        PyMem_Free(calls->made);
        if (counted < 0)
            return NULL;
        Py_RETURN_TRUE;
    }
    PyObject *unanswered = sure > 0 ? unanswered_calls(calls) : NULL;
    PyObject *found = sure > 0 && unanswered == NULL ? NULL : answer(sure, unanswered, results);
    Py_XDECREF(unanswered);
    table_free(&calls->table);
    PyMem_Free(calls->made);
    return found;
}

/* A Chat message's calls wait for their results in the tool messages right after it. */
#define WINDOW_SIZE 64

/* The fields of a Chat message read, by one pick (a message holds two to four keys). */
static const int chat_keys[] = {K_ROLE,    K_TOOL_CALL_ID,  K_NAME,
                                K_CONTENT, K_FUNCTION_CALL, K_TOOL_CALLS};
enum { M_ROLE, M_TOOL_CALL_ID, M_NAME, M_CONTENT, M_FUNCTION_CALL, M_TOOL_CALLS, M_COUNT };

/* A Chat tool message, answering a call of the calls from place `window` on: 1 answered,
   0 not sure, -1 error. */
static int
chat_result(PyObject **field, Calls *calls, Py_ssize_t window, Results *results,
            PyObject *no_name)
{
    Made *call = waiting(calls, field[M_TOOL_CALL_ID], window, calls->table.count);
    if (call == NULL)
        return 0;
    PyObject *called = call->name, *name = field[M_NAME];
    if (name != NULL && name != Py_None && PyUnicode_Check(name) && PyUnicode_Check(called)) {
        if (!PyUnicode_CheckExact(name) || !PyUnicode_CheckExact(called))
            return 0;
        if (!same_text(name, called))
            return 0; /* a name that disagrees: the full reading words it */
    }
    if (!no_failure(field[M_CONTENT], FAILURE_DEPTH))
        return 0;
    if (!count_result(results, called, no_name))
        return 0;
    call->answered = 1;
    return 1;
}

/* A Chat assistant message's calls: 1 read, 0 not sure, -1 error. */
static int
chat_calls(PyObject **field, Py_ssize_t index, Calls *calls)
{
    PyObject *legacy = field[M_FUNCTION_CALL];
    if (legacy != NULL && legacy != Py_None)
        return 0; /* legacy functions pair by name: the full reading does that */
    PyObject *tool_calls = field[M_TOOL_CALLS];
    if (tool_calls == NULL || tool_calls == Py_None)
        return 1;
    if (!PyList_CheckExact(tool_calls) || PyList_GET_SIZE(tool_calls) > WINDOW_SIZE)
        return 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(tool_calls); j++) {
        PyObject *tool_call = PyList_GET_ITEM(tool_calls, j);
        if (!PyDict_CheckExact(tool_call))
            return 0;
        static const int call_keys[] = {K_FUNCTION, K_ID}, function_keys[] = {K_NAME};
        PyObject *call[2], *name;
        pick(tool_call, call_keys, 2, call);
        PyObject *function = call[0];
        if (function == NULL || !PyDict_CheckExact(function))
            return 0; /* not an object, or a custom tool's call */
        pick(function, function_keys, 1, &name);
        int made = made_call(calls, call[1], name, index, j);
        if (made <= 0)
            return made;
    }
    return 1;
}

static PyObject *
chat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Counting counting;
    if (reader_arguments(args, nargs,
                         "chat(messages: list, no_name: str[, tables, model, left_too])",
                         &counting) < 0)
        return NULL;
    PyObject *messages = args[0], *no_name = args[1];
    Calls calls = {{NULL}};
    Py_ssize_t window = 0; /* the calls from this place on wait for tool messages */
    Results results = {.size = 0};
    int sure = 1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(messages); index++) {
        PyObject *message = PyList_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) {
            sure = 0;
            break;
        }
        PyObject *field[M_COUNT];
        pick(message, chat_keys, M_COUNT, field);
        PyObject *role = field[M_ROLE];
        int tool = is_word(role, s_tool);
        if (tool != 0) {
            sure = tool < 0 ? 0 : chat_result(field, &calls, window, &results, no_name);
            continue;
        }
        window = calls.table.count; /* any other message ends the run of tool messages */
        int assistant = is_word(role, s_assistant);
        if (assistant != 0)
            sure = assistant < 0 ? 0 : chat_calls(field, index, &calls);
        else if (is_word(role, s_function) != 0)
            sure = 0;
    }
    return answer_calls(sure, &calls, &results, &counting);
}

/* A Responses item: 1 read, 0 not sure, -1 error. */
static int
responses_item(PyObject *item, Py_ssize_t index, Calls *calls, Results *results,
               PyObject *no_name)
{
    static const int wanted[] = {K_TYPE, K_CALL_ID, K_NAME, K_OUTPUT};
    PyObject *found[4];
    pick(item, wanted, 4, found);
    PyObject *kind = found[0], *call_id = found[1];
    int is_call = is_word(kind, s_function_call);
    if (is_call != 0)
        return is_call < 0 ? 0 : made_call(calls, call_id, found[2], index, 0);
    int is_output = is_word(kind, s_function_call_output);
    if (is_output != 0) {
        Made *call = is_output > 0 ? waiting(calls, call_id, 0, calls->table.count) : NULL;
        if (call == NULL || !no_failure(found[3], FAILURE_DEPTH) ||
            !count_result(results, call->name, no_name))
            return 0;
        call->answered = 1;
        return 1;
    }
    if (is_word(kind, s_custom_tool_call) != 0 || is_word(kind, s_custom_tool_call_output) != 0)
        return 0;
    return 1;
}

static PyObject *
responses(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Counting counting;
    if (reader_arguments(args, nargs,
                         "responses(messages: list, no_name: str[, tables, model, left_too])",
                         &counting) < 0)
        return NULL;
    PyObject *items = args[0], *no_name = args[1];
    Calls calls = {{NULL}};
    Results results = {.size = 0};
    int sure = 1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(items); index++) {
        PyObject *item = PyList_GET_ITEM(items, index);
        if (!PyDict_CheckExact(item)) {
            sure = 0;
            break;
        }
        sure = responses_item(item, index, &calls, &results, no_name);
    }
    return answer_calls(sure, &calls, &results, &counting);
}

/* What a block is: a call, a result, neither; or not sure (0), or an error (-1). */
enum { NOT_SURE = 0, A_CALL = 1, A_RESULT = 2, NEITHER = 3 };

/* An Anthropic content block (fast_blocks._anthropic_block): its id, and a call's name. */
static int
anthropic_block(PyObject *block, PyObject **id, PyObject **name)
{
    static const int wanted[] = {K_TYPE, K_ID, K_NAME, K_IS_ERROR, K_CONTENT, K_TOOL_USE_ID};
    PyObject *found[6];
    pick(block, wanted, 6, found);
    int use = is_word(found[0], s_tool_use), result = is_word(found[0], s_tool_result);
    if (use < 0 || result < 0)
        return NOT_SURE;
    if (use) {
        *id = found[1];
        *name = found[2];
        return A_CALL;
    }
    if (!result)
        return NEITHER;
    if (found[3] == Py_True || !no_failure(found[4], FAILURE_DEPTH))
        return NOT_SURE; /* a failure: Python counts it, and what follows it */
    *id = found[5];
    return A_RESULT;
}

/* A Bedrock content block (fast_blocks._bedrock_block). */
static int
bedrock_block(PyObject *block, PyObject **id, PyObject **name)
{
    static const int wanted[] = {K_TOOL_USE, K_TOOL_RESULT};
    PyObject *found[2];
    pick(block, wanted, 2, found);
    PyObject *use = found[0];
    if (use != NULL && use != Py_None) {
        if (!PyDict_CheckExact(use))
            return NOT_SURE;
        static const int call_keys[] = {K_TOOL_USE_ID_BEDROCK, K_NAME};
        PyObject *call[2];
        pick(use, call_keys, 2, call);
        *id = call[0];
        *name = call[1];
        return A_CALL;
    }
    PyObject *result = found[1];
    if (result == NULL || result == Py_None)
        return NEITHER;
    if (!PyDict_CheckExact(result))
        return NOT_SURE;
    static const int result_keys[] = {K_STATUS, K_CONTENT, K_TOOL_USE_ID_BEDROCK};
    PyObject *field[3];
    pick(result, result_keys, 3, field);
    if (is_word(field[0], s_error) || !no_failure(field[1], FAILURE_DEPTH))
        return NOT_SURE;
    *id = field[2];
    return A_RESULT;
}

/* Whether a message of this role can hold results (fast_loop.RECEIVING: user, function,
   tool, or no role): 1, 0, or -1 for a str subclass. */
static int
receiving(PyObject *role)
{
    if (role == NULL || role == Py_None)
        return 1;
    int said = is_word(role, s_user);
    if (said == 0)
        said = is_word(role, s_function);
    if (said == 0)
        said = is_word(role, s_tool);
    return said;
}

/* One message's blocks (fast_blocks._windowed_blocks): its calls into `made`, its results
   paired with the calls of the message before (`window`). 1 read, 0 not sure, -1 error. */
static int
message_blocks(PyObject *message, Py_ssize_t index, int bedrock, Calls *calls,
               Py_ssize_t from, Py_ssize_t to, Results *results, PyObject *no_name)
{
    static const int wanted[] = {K_CONTENT, K_ROLE};
    PyObject *found[2];
    pick(message, wanted, 2, found);
    PyObject *content = found[0];
    if (content == NULL || !PyList_CheckExact(content))
        return content != NULL && PyUnicode_CheckExact(content);
    int takes_results = receiving(found[1]);
    if (takes_results < 0)
        return 0;
    Py_ssize_t answered = 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(content); j++) {
        PyObject *block = PyList_GET_ITEM(content, j), *id = NULL, *name = NULL;
        if (!PyDict_CheckExact(block))
            return 0;
        int kind = bedrock ? bedrock_block(block, &id, &name) : anthropic_block(block, &id, &name);
        if (kind == NOT_SURE)
            return 0;
        if (kind == A_CALL) {
            int made = made_call(calls, id, name, index, j);
            if (made <= 0)
                return made;
            continue;
        }
        if (kind == NEITHER)
            continue;
        /* Anthropic wants the results first in their message */
        if ((!bedrock && j != answered) || !takes_results)
            return 0;
        Made *call = waiting(calls, id, from, to);
        if (call == NULL || !count_result(results, call->name, no_name))
            return 0;
        call->answered = 1;
        answered++;
    }
    return 1;
}

/* Anthropic's or Bedrock's history: a message's calls answered in the very next one. */
static PyObject *
windowed_blocks(PyObject *const *args, Py_ssize_t nargs, int bedrock)
{
    Counting counting;
    if (reader_arguments(args, nargs, "(messages: list, no_name: str[, tables, model, left_too])",
                         &counting) < 0)
        return NULL;
    PyObject *messages = args[0], *no_name = args[1];
    Calls calls = {{NULL}};
    Results results = {.size = 0};
    /* the calls from place `window` on were made by the message before this one */
    Py_ssize_t window = 0;
    int sure = 1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(messages); index++) {
        PyObject *message = PyList_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) {
            sure = 0;
            break;
        }
        Py_ssize_t from = window, to = calls.table.count;
        window = to; /* the calls this message makes wait for the next */
        sure = message_blocks(message, index, bedrock, &calls, from, to, &results, no_name);
    }
    return answer_calls(sure, &calls, &results, &counting);
}

static PyObject *
anthropic(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return windowed_blocks(args, nargs, 0);
}

static PyObject *
bedrock(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    return windowed_blocks(args, nargs, 1);
}

/* The calls of the last Gemini content, waiting for their responses in the next one, in
   the order they were made (a content with more calls than it holds is left to Python).
   Each is found by its id, or by its name where the history pairs by name. */
typedef struct {
    PyObject *id, *name; /* borrowed from the history; id NULL: none (pairing by name) */
    Py_ssize_t index, j;
    int field; /* the key its part holds it by: keys[field] (a key object may be replaced
                  by pick meanwhile, so it is not held here) */
    int answered;
} GeminiCall;
typedef struct {
    GeminiCall calls[WINDOW_SIZE];
    int count;
} GeminiWindow;

/* A Gemini part (fast_blocks._gemini_part): A_CALL, A_RESULT, NEITHER or NOT_SURE, with
   its element (the call or the response object), its id (NULL: none), its name and its
   field (the index of its key in keys). */
static int
gemini_part(PyObject *part, PyObject **element, PyObject **id, PyObject **name,
            PyObject **response, int *field)
{
    if (!PyDict_CheckExact(part))
        return NOT_SURE;
    static const int wanted[] = {K_FUNCTION_CALL_GEMINI, K_FUNCTION_CALL,
                                 K_FUNCTION_RESPONSE_GEMINI, K_FUNCTION_RESPONSE};
    PyObject *found[4];
    pick(part, wanted, 4, found);
    int camel_call = found[0] != NULL, camel_result = found[2] != NULL;
    PyObject *call = camel_call ? found[0] : found[1];
    int is_call = call != NULL && call != Py_None;
    *field = is_call ? (camel_call ? K_FUNCTION_CALL_GEMINI : K_FUNCTION_CALL)
                     : (camel_result ? K_FUNCTION_RESPONSE_GEMINI : K_FUNCTION_RESPONSE);
    *element = is_call ? call : camel_result ? found[2] : found[3];
    if (*element == NULL || *element == Py_None)
        return NEITHER;
    if (!PyDict_CheckExact(*element))
        return NOT_SURE;
    static const int element_keys[] = {K_ID, K_NAME, K_RESPONSE};
    PyObject *value[3];
    pick(*element, element_keys, 3, value);
    *id = value[0];
    *name = value[1];
    *response = value[2];
    if (*name == NULL || !PyUnicode_CheckExact(*name))
        return NOT_SURE;
    if (*id == Py_None)
        *id = NULL;
    if (*id != NULL && !PyUnicode_CheckExact(*id))
        return NOT_SURE;
    return is_call ? A_CALL : A_RESULT;
}

/* Moves the window's calls not answered onto `unanswered` as (call_id, name, index, j,
   field), in the order they were made (which is their parts' order), and empties it. */
static int
close_gemini_window(GeminiWindow *window, PyObject *unanswered)
{
    for (int k = 0; k < window->count; k++) {
        GeminiCall *call = &window->calls[k];
        if (call->answered)
            continue;
        PyObject *index = PyLong_FromSsize_t(call->index), *j = PyLong_FromSsize_t(call->j);
        PyObject *entry = (index && j) ? PyTuple_Pack(5, call->id == NULL ? Py_None : call->id,
                                                      call->name, index, j, keys[call->field])
                                       : NULL;
        Py_XDECREF(index);
        Py_XDECREF(j);
        if (entry == NULL || PyList_Append(unanswered, entry) < 0) {
            Py_XDECREF(entry);
            return -1;
        }
        Py_DECREF(entry);
    }
    window->count = 0;
    return 0;
}

/* A Gemini response's payload surely reports no failure (blocks.failed_response). */
static int
gemini_no_failure(PyObject *response)
{
    if (response != NULL && PyDict_Check(response))
        /* (a Mapping of another type: Python reads it) */
        return PyDict_CheckExact(response) && object_no_failure(response, FAILURE_DEPTH, 1);
    return no_failure(response, FAILURE_DEPTH);
}

/* One Gemini content's parts (fast_blocks.gemini): its calls into `made`, its responses
   paired with the calls of the content before (`window`). `by_id`: -1 until the first
   call or response tells how this history pairs. 1 read, 0 not sure, -1 error. */
static int
gemini_content(PyObject *content, Py_ssize_t index, GeminiWindow *window, GeminiWindow *made,
               int *by_id, CallTable *seen, Results *results, PyObject *no_name)
{
    static const int wanted[] = {K_PARTS, K_ROLE};
    PyObject *found[2];
    pick(content, wanted, 2, found);
    PyObject *parts = found[0];
    if (parts == NULL || !PyList_CheckExact(parts))
        return parts != NULL && PyUnicode_CheckExact(parts);
    int takes_results = -2; /* read when the first response comes */
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(parts); j++) {
        PyObject *element, *id = NULL, *name, *response;
        int field;
        int kind = gemini_part(PyList_GET_ITEM(parts, j), &element, &id, &name, &response, &field);
        if (kind == NOT_SURE)
            return 0;
        if (kind == NEITHER)
            continue;
        if (*by_id < 0)
            *by_id = id != NULL;
        if (*by_id != (id != NULL))
            return 0; /* ids and names mixed: the full reading pairs them */
        PyObject *key = id != NULL ? id : name;
        if (kind == A_CALL) {
            int first = *by_id ? first_seen(seen, key) : 1;
            if (first <= 0)
                return first;
            if (made->count == WINDOW_SIZE)
                return 0;
            GeminiCall *call = &made->calls[made->count++];
            *call = (GeminiCall){id, name, index, j, field, 0};
            continue;
        }
        if (takes_results == -2)
            takes_results = receiving(found[1]);
        if (takes_results <= 0)
            return 0; /* a response out of place, or a role of a str subclass */
        GeminiCall *call = NULL;
        for (int k = 0; k < window->count; k++) {
            GeminiCall *waiting = &window->calls[k];
            if (!waiting->answered && same_text(*by_id ? waiting->id : waiting->name, key)) {
                call = waiting;
                break;
            }
        }
        if (call == NULL || !same_text(call->name, name))
            return 0; /* unpaired, or naming another tool */
        if (!gemini_no_failure(response))
            return 0; /* a failure: Python counts it, and what follows it */
        if (!count_result(results, name, no_name))
            return 0;
        call->answered = 1;
    }
    return 1;
}

static PyObject *
gemini(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Counting counting;
    if (reader_arguments(args, nargs,
                         "gemini(messages: list, no_name: str[, tables, model, left_too])",
                         &counting) < 0)
        return NULL;
    PyObject *contents = args[0], *no_name = args[1];
    Results results = {.size = 0};
    /* Two windows, swapped: the calls of the content before, and those of this one. */
    GeminiWindow windows[2] = {{.count = 0}, {.count = 0}};
    GeminiWindow *window = &windows[0], *made = &windows[1];
    CallTable seen = {NULL};
    PyObject *unanswered = PyList_New(0);
    int sure = unanswered ? 1 : -1, by_id = -1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(contents); index++) {
        PyObject *content = PyList_GET_ITEM(contents, index);
        if (!PyDict_CheckExact(content)) {
            sure = 0;
            break;
        }
        made->count = 0;
        sure = gemini_content(content, index, window, made, &by_id, &seen, &results, no_name);
        if (sure > 0 && close_gemini_window(window, unanswered) < 0)
            sure = -1;
        GeminiWindow *swap = window; /* the calls this content made wait for the next */
        window = made;
        made = swap;
    }
    if (sure > 0 && close_gemini_window(window, unanswered) < 0)
        sure = -1;
    PyObject *found = answer_or_count(sure, unanswered, &results, &counting);
    table_free(&seen);
    Py_XDECREF(unanswered);
    return found;
}

/* One OpenTelemetry GenAI message's parts (fast_by_id.otel): its tool_call parts into
   `made` (answered from the next message on), its tool_call_response parts paired with
   the calls of the messages before (`unpaired`). 1 read, 0 not sure, -1 error. */
static int
otel_parts(PyObject *message, Py_ssize_t index, PyObject *unpaired, PyObject *made,
           PyObject *seen, Results *results, PyObject *no_name)
{
    PyObject *parts = get(message, keys[K_PARTS]);
    if (parts == NULL || !PyList_CheckExact(parts))
        return parts != NULL && PyUnicode_CheckExact(parts);
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(parts); j++) {
        PyObject *part = PyList_GET_ITEM(parts, j);
        if (!PyDict_CheckExact(part))
            return 0;
        PyObject *kind = get(part, keys[K_TYPE]), *call_id = get(part, keys[K_ID]);
        int call = is_word(kind, s_tool_call), response = is_word(kind, s_tool_call_response);
        if (call < 0 || response < 0)
            return 0;
        if (call) {
            int opened = open_call(made, seen, call_id, get(part, keys[K_NAME]), index, j);
            if (opened <= 0)
                return opened;
            continue;
        }
        if (!response)
            continue;
        if (call_id == NULL || !PyUnicode_CheckExact(call_id))
            return 0;
        PyObject *answered = PyDict_GetItemWithError(unpaired, call_id);
        if (answered == NULL)
            return PyErr_Occurred() ? -1 : 0;
        PyObject *answer = get(part, keys[K_RESPONSE]);
        if (answer == NULL)
            answer = get(part, keys[K_RESULT]);
        if (!gemini_no_failure(answer))
            return 0; /* a failure: Python counts it, and what follows it */
        if (!count_result(results, PyTuple_GET_ITEM(answered, 0), no_name))
            return 0;
        if (PyDict_DelItem(unpaired, call_id) < 0)
            return -1;
    }
    return 1;
}

static PyObject *
otel(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Counting counting;
    if (reader_arguments(args, nargs,
                         "otel(messages: list, no_name: str[, tables, model, left_too])",
                         &counting) < 0)
        return NULL;
    PyObject *messages = args[0], *no_name = args[1];
    Results results = {.size = 0};
    PyObject *unpaired = PyDict_New(), *seen = PySet_New(NULL), *unanswered = PyList_New(0);
    int sure = (unpaired && seen && unanswered) ? 1 : -1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(messages); index++) {
        PyObject *message = PyList_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) {
            sure = 0;
            break;
        }
        PyObject *made = PyDict_New();
        sure = made == NULL ? -1
                            : otel_parts(message, index, unpaired, made, seen, &results, no_name);
        if (sure > 0 && PyDict_Update(unpaired, made) < 0)
            sure = -1;
        Py_XDECREF(made);
    }
    if (sure > 0 && close_window(unpaired, unanswered) < 0)
        sure = -1;
    PyObject *found = answer_or_count(sure, unanswered, &results, &counting);
    Py_XDECREF(unpaired);
    Py_XDECREF(seen);
    Py_XDECREF(unanswered);
    return found;
}

static PyMethodDef methods[] = {
    {"know_tables", (PyCFunction)(void (*)(void))know_tables, METH_FASTCALL,
     "Tell the classes of the audit's tables, which the readers then count into."},
    {"count_answered", (PyCFunction)(void (*)(void))count_answered, METH_FASTCALL,
     "Count a history whose every call was answered, by its results per tool, in the tables."},
    {"chat", (PyCFunction)(void (*)(void))chat, METH_FASTCALL,
     "An OpenAI Chat history's (unanswered, results), or None when not sure."},
    {"responses", (PyCFunction)(void (*)(void))responses, METH_FASTCALL,
     "An OpenAI Responses history's (unanswered, results), or None when not sure."},
    {"anthropic", (PyCFunction)(void (*)(void))anthropic, METH_FASTCALL,
     "An Anthropic history's (unanswered, results), or None when not sure."},
    {"bedrock", (PyCFunction)(void (*)(void))bedrock, METH_FASTCALL,
     "A Bedrock Converse history's (unanswered, results), or None when not sure."},
    {"gemini", (PyCFunction)(void (*)(void))gemini, METH_FASTCALL,
     "A Gemini history's (unanswered, results), or None when not sure."},
    {"otel", (PyCFunction)(void (*)(void))otel, METH_FASTCALL,
     "An OpenTelemetry GenAI history's (unanswered, results), or None when not sure."},
    {"chat_json", (PyCFunction)(void (*)(void))chat_json, METH_FASTCALL,
     "chat's answer and the count of messages, read from the JSON text of the history."},
    {"responses_json", (PyCFunction)(void (*)(void))responses_json, METH_FASTCALL,
     "responses' answer and the count of items, read from the JSON text of the history."},
    {"anthropic_json", (PyCFunction)(void (*)(void))anthropic_json, METH_FASTCALL,
     "anthropic's answer and the count of messages, read from the JSON text of the history."},
    {"bedrock_json", (PyCFunction)(void (*)(void))bedrock_json, METH_FASTCALL,
     "bedrock's answer and the count of messages, read from the JSON text of the history."},
    {"gemini_json", (PyCFunction)(void (*)(void))gemini_json, METH_FASTCALL,
     "gemini's answer and the count of contents, read from the JSON text of the history."},
    {"otel_json", (PyCFunction)(void (*)(void))otel_json, METH_FASTCALL,
     "otel's answer and the count of messages, read from the JSON text of the history."},
    {"history_prefixes", (PyCFunction)(void (*)(void))history_prefixes, METH_FASTCALL,
     "A new cache of the histories read, for the _json readers to read on from their prefix."},
    {"prefixes_held", (PyCFunction)(void (*)(void))prefixes_held, METH_FASTCALL,
     "(histories kept, bytes held, histories read on from a prefix) of a history_prefixes()."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_speedups",
    "The commonest histories' pairing, in C (see toolaudit.history.fast).", -1, methods,
};

static int
intern(PyObject **slot, const char *text)
{
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC
PyInit__speedups(void)
{
    for (int k = 0; k < KEY_COUNT; k++)
        if (intern(&keys[k], key_texts[k]))
            return NULL;
    if (intern(&s_tool, "tool") || intern(&s_assistant, "assistant") ||
        intern(&s_function, "function") || intern(&s_function_call, "function_call") ||
        intern(&s_function_call_output, "function_call_output") ||
        intern(&s_custom_tool_call, "custom_tool_call") ||
        intern(&s_custom_tool_call_output, "custom_tool_call_output") ||
        intern(&s_user, "user") || intern(&s_tool_use, "tool_use") ||
        intern(&s_tool_result, "tool_result") || intern(&s_error, "error") ||
        intern(&s_tool_call, "tool_call") || intern(&s_tool_call_response, "tool_call_response"))
        return NULL;
    if (init_speedups_json() < 0)
        return NULL;
    PyObject *module = PyModule_Create(&module_definition);
    if (module != NULL && add_pair_histories(module) < 0)
        Py_CLEAR(module);
    return module;
}
