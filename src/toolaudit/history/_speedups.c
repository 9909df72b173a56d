/* The commonest histories' pairing, in C: an optional speedup of toolaudit.history.fast.
 *
 * chat, responses, anthropic and bedrock (each (messages, no_name)) read an OpenAI Chat,
 * OpenAI Responses, Anthropic or Bedrock Converse history as the pure-Python fast paths
 * (fast.py, fast_blocks.py) do when no calls are listed, and
 * answer only when the history is of the plainest kind: every call with a string id of
 * its own, every result where its provider wants it, no result that could report a
 * failure (those, and everything else, are left to Python: the function returns None,
 * "not sure"). Their answer is (unanswered, results):
 *   unanswered: [(call_id, name, message index, index in the message), ...] in the
 *               order the pure fast path reports calls left without a result;
 *   results:    {tool name: how many results it had}, a name that is not a str counted
 *               under no_name, in the order tools first had a result.
 * tests/history/test_speedups.py holds them to the pure fast path's answers.
 * chat_json, responses_json, anthropic_json and bedrock_json (_speedups_json.c) answer the
 * same read straight from a history's JSON text.
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the pure-Python fast path runs alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "_speedups_json.h"

/* The keys read, each the str object last seen as that key in a logged dict: JSON
   parsers share one object per key text, so that a lookup with it matches by identity
   and skips comparing the texts (see adopt_keys). */
enum { K_ROLE, K_TOOL_CALL_ID, K_NAME, K_CONTENT, K_FUNCTION_CALL, K_TOOL_CALLS, K_ID,
       K_FUNCTION, K_TYPE, K_CALL_ID, K_OUTPUT, K_IS_ERROR, K_IS_ERROR_MCP, K_TEXT, K_JSON,
       K_TOOL_USE_ID, K_TOOL_USE, K_TOOL_RESULT, K_TOOL_USE_ID_BEDROCK, K_STATUS,
       KEY_COUNT };
static const char *key_texts[KEY_COUNT] = {
    "role", "tool_call_id", "name", "content", "function_call", "tool_calls", "id",
    "function", "type", "call_id", "output", "is_error", "isError", "text", "json",
    "tool_use_id", "toolUse", "toolResult", "toolUseId", "status",
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
    *s_tool_use, *s_tool_result, *s_error;

static int
same_text(PyObject *a, PyObject *b)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(a);
    return a == b || (length == PyUnicode_GET_LENGTH(b) && PyUnicode_KIND(a) == PyUnicode_KIND(b) &&
                      memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b),
                             (size_t)length * PyUnicode_KIND(a)) == 0);
}

/* Takes the key objects of `dict` (a logged message, say) as the ones to look up with. */
static void
adopt_keys(PyObject *dict)
{
    PyObject *key, *value;
    Py_ssize_t position = 0;
    while (PyDict_Next(dict, &position, &key, &value)) {
        int k = 0;
        while (k < KEY_COUNT && keys[k] != key)
            k++;
        if (k < KEY_COUNT || !PyUnicode_CheckExact(key))
            continue; /* adopted already (most calls), or not a key we read */
        for (k = 0; k < KEY_COUNT; k++) {
            if (same_text(keys[k], key)) {
                Py_INCREF(key);
                Py_SETREF(keys[k], key);
                break;
            }
        }
    }
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
    if (!PyDict_CheckExact(payload))
        return 0;
    if (get(payload, keys[K_IS_ERROR_MCP]) == Py_True ||
        get(payload, keys[K_IS_ERROR]) == Py_True)
        return 0;
    const int inner[] = {K_TEXT, K_JSON, K_CONTENT};
    for (int k = 0; k < 3; k++) {
        PyObject *value = get(payload, keys[inner[k]]);
        if (value != NULL)
            return no_failure(value, depth - 1);
    }
    return 1;
}

/* signals._DEPTH: how deep failed_payload looks. */
#define FAILURE_DEPTH 4

/* Each tool's results so far, in the order tools first had one: a small array compared by
   text (a dict would hash every name, a new str on every logged line). A history of more
   tools than it holds is left to Python. */
#define MAX_TOOLS 32
typedef struct {
    PyObject *names[MAX_TOOLS]; /* borrowed from the history, or no_name */
    long counts[MAX_TOOLS];
    int size;
} Results;

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

/* The calls of the last Chat assistant message, waiting for their tool messages: a small
   array (a message with more calls than it holds is left to Python). The ids and names are
   borrowed from the history, which outlives the call. */
#define WINDOW_SIZE 64
typedef struct {
    PyObject *id, *name;
    Py_ssize_t index, j;
    int answered;
} Pending;
typedef struct {
    Pending calls[WINDOW_SIZE];
    int count, open;
} Window;

/* Moves the window's calls not answered onto `unanswered` and empties it. */
static int
close_chat_window(Window *window, PyObject *unanswered)
{
    for (int k = 0; k < window->count && window->open; k++) {
        Pending *call = &window->calls[k];
        if (call->answered)
            continue;
        PyObject *index = PyLong_FromSsize_t(call->index), *j = PyLong_FromSsize_t(call->j);
        PyObject *entry = (index && j) ? PyTuple_Pack(4, call->id, call->name, index, j) : NULL;
        Py_XDECREF(index);
        Py_XDECREF(j);
        if (entry == NULL || PyList_Append(unanswered, entry) < 0) {
            Py_XDECREF(entry);
            return -1;
        }
        Py_DECREF(entry);
    }
    window->count = window->open = 0;
    return 0;
}

/* A Chat tool message: 1 answered, 0 not sure, -1 error. */
static int
chat_result(PyObject *message, Window *window, Results *results, PyObject *no_name)
{
    PyObject *call_id = get(message, keys[K_TOOL_CALL_ID]);
    if (call_id == NULL || !PyUnicode_CheckExact(call_id))
        return 0;
    Pending *call = NULL;
    for (int k = 0; k < window->count; k++) {
        if (!window->calls[k].answered && same_text(window->calls[k].id, call_id)) {
            call = &window->calls[k];
            break;
        }
    }
    if (call == NULL)
        return 0;
    PyObject *called = call->name, *name = get(message, keys[K_NAME]);
    if (name != NULL && name != Py_None && PyUnicode_Check(name) && PyUnicode_Check(called)) {
        if (!PyUnicode_CheckExact(name) || !PyUnicode_CheckExact(called))
            return 0;
        if (!same_text(name, called))
            return 0; /* a name that disagrees: the full reading words it */
    }
    if (!no_failure(get(message, keys[K_CONTENT]), FAILURE_DEPTH))
        return 0;
    if (!count_result(results, called, no_name))
        return 0;
    call->answered = 1;
    window->open--;
    return 1;
}

/* A Chat assistant message's calls: 1 read, 0 not sure, -1 error. */
static int
chat_calls(PyObject *message, Py_ssize_t index, Window *window, PyObject *seen)
{
    PyObject *legacy = get(message, keys[K_FUNCTION_CALL]);
    if (legacy != NULL && legacy != Py_None)
        return 0; /* legacy functions pair by name: the full reading does that */
    PyObject *tool_calls = get(message, keys[K_TOOL_CALLS]);
    if (tool_calls == NULL || tool_calls == Py_None)
        return 1;
    if (!PyList_CheckExact(tool_calls) || PyList_GET_SIZE(tool_calls) > WINDOW_SIZE)
        return 0;
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(tool_calls); j++) {
        PyObject *tool_call = PyList_GET_ITEM(tool_calls, j);
        if (!PyDict_CheckExact(tool_call))
            return 0;
        PyObject *function = get(tool_call, keys[K_FUNCTION]);
        if (function == NULL || !PyDict_CheckExact(function))
            return 0; /* not an object, or a custom tool's call */
        PyObject *call_id = get(tool_call, keys[K_ID]);
        PyObject *name = get(function, keys[K_NAME]);
        if (call_id == NULL || !PyUnicode_CheckExact(call_id))
            return 0;
        if (name != NULL && PyUnicode_Check(name) && !PyUnicode_CheckExact(name))
            return 0; /* a str subclass: Python's isinstance and == may see it otherwise */
        int known = PySet_Contains(seen, call_id);
        if (known != 0)
            return known < 0 ? -1 : 0;
        if (PySet_Add(seen, call_id) < 0)
            return -1;
        Pending *call = &window->calls[window->count++];
        call->id = call_id;
        call->name = name == NULL ? Py_None : name;
        call->index = index;
        call->j = j;
        call->answered = 0;
        window->open++;
    }
    return 1;
}

/* Adopts the keys of an assistant message, of its first call and of that call's function;
   1 when it had a call to adopt from. */
static int
adopt_call_keys(PyObject *message)
{
    adopt_keys(message);
    PyObject *tool_calls = get(message, keys[K_TOOL_CALLS]);
    if (tool_calls == NULL || !PyList_CheckExact(tool_calls) || !PyList_GET_SIZE(tool_calls))
        return 0;
    PyObject *tool_call = PyList_GET_ITEM(tool_calls, 0);
    if (!PyDict_CheckExact(tool_call))
        return 0;
    adopt_keys(tool_call);
    PyObject *function = get(tool_call, keys[K_FUNCTION]);
    if (function != NULL && PyDict_CheckExact(function))
        adopt_keys(function);
    return 1;
}

static PyObject *
chat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "chat(messages: list, no_name: str)");
        return NULL;
    }
    PyObject *messages = args[0], *no_name = args[1];
    Window window = {.count = 0, .open = 0};
    Results results = {.size = 0};
    PyObject *seen = PySet_New(NULL), *unanswered = PyList_New(0);
    int sure = (seen && unanswered) ? 1 : -1;
    int adopted_calls = 0, adopted_results = 0; /* keys taken once from each kind */
    if (PyList_GET_SIZE(messages) && PyDict_CheckExact(PyList_GET_ITEM(messages, 0)))
        adopt_keys(PyList_GET_ITEM(messages, 0));
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(messages); index++) {
        PyObject *message = PyList_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) {
            sure = 0;
            break;
        }
        PyObject *role = get(message, keys[K_ROLE]);
        int tool = is_word(role, s_tool);
        if (tool != 0) {
            if (tool > 0 && !adopted_results)
                adopted_results = (adopt_keys(message), 1);
            sure = tool < 0 ? 0 : chat_result(message, &window, &results, no_name);
            continue;
        }
        /* any other message ends the run of tool messages */
        if (window.count && close_chat_window(&window, unanswered) < 0) {
            sure = -1;
            break;
        }
        int assistant = is_word(role, s_assistant);
        if (assistant > 0 && !adopted_calls)
            adopted_calls = adopt_call_keys(message);
        if (assistant != 0)
            sure = assistant < 0 ? 0 : chat_calls(message, index, &window, seen);
        else if (is_word(role, s_function) != 0)
            sure = 0;
    }
    if (sure > 0 && close_chat_window(&window, unanswered) < 0)
        sure = -1;
    PyObject *found = answer(sure, unanswered, &results);
    Py_XDECREF(seen);
    Py_XDECREF(unanswered);
    return found;
}

/* A Responses item: 1 read, 0 not sure, -1 error. */
static int
responses_item(PyObject *item, Py_ssize_t index, PyObject *unpaired, PyObject *seen,
               Results *results, PyObject *no_name)
{
    PyObject *kind = PyDict_GetItemWithError(item, keys[K_TYPE]);
    if (kind == NULL && PyErr_Occurred())
        return -1;
    PyObject *call_id = PyDict_GetItemWithError(item, keys[K_CALL_ID]);
    if (call_id == NULL && PyErr_Occurred())
        return -1;
    int is_call = is_word(kind, s_function_call);
    if (is_call != 0) {
        if (is_call < 0)
            return 0;
        PyObject *name = PyDict_GetItemWithError(item, keys[K_NAME]);
        if (name == NULL && PyErr_Occurred())
            return -1;
        return open_call(unpaired, seen, call_id, name, index, 0);
    }
    int is_output = is_word(kind, s_function_call_output);
    if (is_output != 0) {
        if (is_output < 0 || call_id == NULL || !PyUnicode_CheckExact(call_id))
            return 0;
        PyObject *call = PyDict_GetItemWithError(unpaired, call_id);
        if (call == NULL)
            return PyErr_Occurred() ? -1 : 0;
        PyObject *output = PyDict_GetItemWithError(item, keys[K_OUTPUT]);
        if (output == NULL && PyErr_Occurred())
            return -1;
        if (!no_failure(output, FAILURE_DEPTH))
            return 0;
        PyObject *called = PyTuple_GET_ITEM(call, 0);
        if (!count_result(results, called, no_name))
            return 0;
        if (PyDict_DelItem(unpaired, call_id) < 0)
            return -1;
        return 1;
    }
    if (is_word(kind, s_custom_tool_call) != 0 || is_word(kind, s_custom_tool_call_output) != 0)
        return 0;
    return 1;
}

static PyObject *
responses(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "responses(messages: list, no_name: str)");
        return NULL;
    }
    PyObject *items = args[0], *no_name = args[1];
    PyObject *unpaired = PyDict_New(), *seen = PySet_New(NULL);
    Results results = {.size = 0};
    PyObject *unanswered = PyList_New(0);
    int sure = (unpaired && seen && unanswered) ? 1 : -1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(items); index++) {
        PyObject *item = PyList_GET_ITEM(items, index);
        if (!PyDict_CheckExact(item)) {
            sure = 0;
            break;
        }
        if (index < 2) /* a message, then (often) a call: their keys, taken once */
            adopt_keys(item);
        sure = responses_item(item, index, unpaired, seen, &results, no_name);
    }
    if (sure > 0 && close_window(unpaired, unanswered) < 0)
        sure = -1;
    PyObject *found = answer(sure, unanswered, &results);
    Py_XDECREF(unpaired);
    Py_XDECREF(seen);
    Py_XDECREF(unanswered);
    return found;
}

/* What a block is: a call, a result, neither; or not sure (0), or an error (-1). */
enum { NOT_SURE = 0, A_CALL = 1, A_RESULT = 2, NEITHER = 3 };

/* An Anthropic content block (fast_blocks._anthropic_block): its id, and a call's name. */
static int
anthropic_block(PyObject *block, PyObject **id, PyObject **name)
{
    PyObject *kind = get(block, keys[K_TYPE]);
    int use = is_word(kind, s_tool_use), result = is_word(kind, s_tool_result);
    if (use < 0 || result < 0)
        return NOT_SURE;
    if (use) {
        *id = get(block, keys[K_ID]);
        *name = get(block, keys[K_NAME]);
        return A_CALL;
    }
    if (!result)
        return NEITHER;
    if (get(block, keys[K_IS_ERROR]) == Py_True ||
        !no_failure(get(block, keys[K_CONTENT]), FAILURE_DEPTH))
        return NOT_SURE; /* a failure: Python counts it, and what follows it */
    *id = get(block, keys[K_TOOL_USE_ID]);
    return A_RESULT;
}

/* A Bedrock content block (fast_blocks._bedrock_block). */
static int
bedrock_block(PyObject *block, PyObject **id, PyObject **name)
{
    PyObject *use = get(block, keys[K_TOOL_USE]);
    if (use != NULL && use != Py_None) {
        if (!PyDict_CheckExact(use))
            return NOT_SURE;
        *id = get(use, keys[K_TOOL_USE_ID_BEDROCK]);
        *name = get(use, keys[K_NAME]);
        return A_CALL;
    }
    PyObject *result = get(block, keys[K_TOOL_RESULT]);
    if (result == NULL || result == Py_None)
        return NEITHER;
    if (!PyDict_CheckExact(result) || is_word(get(result, keys[K_STATUS]), s_error) ||
        !no_failure(get(result, keys[K_CONTENT]), FAILURE_DEPTH))
        return NOT_SURE;
    *id = get(result, keys[K_TOOL_USE_ID_BEDROCK]);
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
message_blocks(PyObject *message, Py_ssize_t index, int bedrock, PyObject *window,
               PyObject *made, PyObject *seen, Results *results, PyObject *no_name)
{
    PyObject *content = get(message, keys[K_CONTENT]);
    if (content == NULL || !PyList_CheckExact(content))
        return content != NULL && PyUnicode_CheckExact(content);
    int takes_results = receiving(get(message, keys[K_ROLE]));
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
            int opened = open_call(made, seen, id, name, index, j);
            if (opened <= 0)
                return opened;
            continue;
        }
        if (kind == NEITHER)
            continue;
        /* Anthropic wants the results first in their message */
        if ((!bedrock && j != answered) || !takes_results || id == NULL ||
            !PyUnicode_CheckExact(id))
            return 0;
        PyObject *call = PyDict_GetItemWithError(window, id);
        if (call == NULL)
            return PyErr_Occurred() ? -1 : 0;
        if (!count_result(results, PyTuple_GET_ITEM(call, 0), no_name))
            return 0;
        if (PyDict_DelItem(window, id) < 0)
            return -1;
        answered++;
    }
    return 1;
}

/* Anthropic's or Bedrock's history: a message's calls answered in the very next one. */
static PyObject *
windowed_blocks(PyObject *const *args, Py_ssize_t nargs, int bedrock)
{
    if (nargs != 2 || !PyList_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "(messages: list, no_name: str)");
        return NULL;
    }
    PyObject *messages = args[0], *no_name = args[1];
    Results results = {.size = 0};
    PyObject *window = PyDict_New(), *seen = PySet_New(NULL), *unanswered = PyList_New(0);
    int sure = (window && seen && unanswered) ? 1 : -1;
    for (Py_ssize_t index = 0; sure > 0 && index < PyList_GET_SIZE(messages); index++) {
        PyObject *message = PyList_GET_ITEM(messages, index);
        if (!PyDict_CheckExact(message)) {
            sure = 0;
            break;
        }
        if (index < 3) /* a user's message, then calls, then results: their keys */
            adopt_keys(message);
        PyObject *made = PyDict_New();
        sure = made == NULL ? -1
                            : message_blocks(message, index, bedrock, window, made, seen,
                                             &results, no_name);
        if (sure > 0 && close_window(window, unanswered) < 0)
            sure = -1;
        Py_XSETREF(window, made); /* the calls this message made wait for the next */
    }
    if (sure > 0 && close_window(window, unanswered) < 0)
        sure = -1;
    PyObject *found = answer(sure, unanswered, &results);
    Py_XDECREF(window);
    Py_XDECREF(seen);
    Py_XDECREF(unanswered);
    return found;
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

static PyMethodDef methods[] = {
    {"chat", (PyCFunction)(void (*)(void))chat, METH_FASTCALL,
     "An OpenAI Chat history's (unanswered, results), or None when not sure."},
    {"responses", (PyCFunction)(void (*)(void))responses, METH_FASTCALL,
     "An OpenAI Responses history's (unanswered, results), or None when not sure."},
    {"anthropic", (PyCFunction)(void (*)(void))anthropic, METH_FASTCALL,
     "An Anthropic history's (unanswered, results), or None when not sure."},
    {"bedrock", (PyCFunction)(void (*)(void))bedrock, METH_FASTCALL,
     "A Bedrock Converse history's (unanswered, results), or None when not sure."},
    {"chat_json", (PyCFunction)(void (*)(void))chat_json, METH_FASTCALL,
     "chat's answer and the count of messages, read from the JSON text of the history."},
    {"responses_json", (PyCFunction)(void (*)(void))responses_json, METH_FASTCALL,
     "responses' answer and the count of items, read from the JSON text of the history."},
    {"anthropic_json", (PyCFunction)(void (*)(void))anthropic_json, METH_FASTCALL,
     "anthropic's answer and the count of messages, read from the JSON text of the history."},
    {"bedrock_json", (PyCFunction)(void (*)(void))bedrock_json, METH_FASTCALL,
     "bedrock's answer and the count of messages, read from the JSON text of the history."},
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
        intern(&s_tool_result, "tool_result") || intern(&s_error, "error"))
        return NULL;
    init_speedups_json();
    return PyModule_Create(&module_definition);
}
