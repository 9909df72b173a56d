/* A flat call's line scored in C when its entry is answered right: an optional speedup
 * of toolaudit.pipeline.scoring (its pure twin: toolaudit.truth.line_scores, whose
 * docstring says what is told here and why each case left alone is left).
 *
 * correct_flat(key, entries, scored, shapes, line, tally) says True when it has scored
 * and counted the line's record: the line is one JSON object whose key `key` holds an
 * id (a string, or an integer's digits) that `entries` (id -> Expected) has and that
 * `scored` does not yet hold; the entry expects one call, given as literal values
 * (ExpectedCall.literal, an exact dict); the line's "name" is that call's name and its
 * "arguments" are those values: the same JSON types and values, objects' keys in any
 * order. The entry's shape, (id(section), category, tool, parameters) with section the
 * tally's ground truth, must be one `shapes` (CorrectCalls' table) holds already: then
 * its `waiting` is raised and the id put in `scored`, as CorrectCalls.count would.
 *
 * Any other answer is False, with nothing changed: a backslash anywhere in the line, a
 * run of 16 digits or more (an integer orjson may read as a float), an exponent of three
 * digits or more, nesting deeper than MAX_DEPTH, a control character in a string, a key
 * of the three given twice, a number whose type or value is not the literal's (1 vs 1.0,
 * -0.0 vs 0.0: the Python scorer decides those), a key given twice in the arguments, a
 * shape not yet counted, or anything this scanner does not read.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define MAX_DEPTH 64
#define MAX_KEYS 64
#define LONG_RUN 16

typedef struct {
    const char *at;
    const char *end;
} Cursor;

static PyObject *CALLS, *LITERAL, *NAME, *CATEGORY, *GROUND_TRUTH, *WAITING, *ONE;

static void
skip_space(Cursor *c)
{
    while (c->at < c->end &&
           (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r'))
        c->at++;
}

/* A string token from its opening quote; its content (no escape: the line has none) in
 * [*start, *stop). 0 when it is not one. */
static int
read_string(Cursor *c, const char **start, const char **stop)
{
    if (c->at >= c->end || *c->at != '"')
        return 0;
    const char *p = c->at + 1;
    *start = p;
    while (p < c->end && *p != '"') {
        if ((unsigned char)*p < 0x20)
            return 0;
        p++;
    }
    if (p >= c->end)
        return 0;
    *stop = p;
    c->at = p + 1;
    return 1;
}

enum { NOT_NUMBER = 0, INTEGER = 1, FRACTIONAL = 2 };

/* A number token: INTEGER (no fraction, no exponent) or FRACTIONAL; NOT_NUMBER for
 * anything else, or an exponent of three digits or more. */
static int
read_number(Cursor *c)
{
    const char *p = c->at, *end = c->end;
    int kind = INTEGER;
    if (p < end && *p == '-')
        p++;
    if (p >= end)
        return NOT_NUMBER;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    else
        return NOT_NUMBER;
    if (p < end && *p == '.') {
        p++;
        const char *digits = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == digits)
            return NOT_NUMBER;
        kind = FRACTIONAL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        const char *digits = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == digits || p - digits > 2)
            return NOT_NUMBER;
        kind = FRACTIONAL;
    }
    c->at = p;
    return kind;
}

static int
read_word(Cursor *c, const char *word, size_t length)
{
    if ((size_t)(c->end - c->at) < length || memcmp(c->at, word, length) != 0)
        return 0;
    c->at += length;
    return 1;
}

/* An object's key and its colon, from the space before it: the key's content in
 * [*start, *stop). */
static int
read_key(Cursor *c, const char **start, const char **stop)
{
    skip_space(c);
    if (!read_string(c, start, stop))
        return 0;
    skip_space(c);
    if (c->at >= c->end || *c->at != ':')
        return 0;
    c->at++;
    return 1;
}

/* Past an opening bracket: whether `close` follows at once (then read). */
static int
opens_empty(Cursor *c, char close)
{
    c->at++;
    skip_space(c);
    if (c->at < c->end && *c->at == close) {
        c->at++;
        return 1;
    }
    return 0;
}

enum { BROKEN = -1, CLOSED = 0, MORE = 1 };

/* After a member of a container: CLOSED (`close` read), MORE (a comma read) or BROKEN. */
static int
after_member(Cursor *c, char close)
{
    skip_space(c);
    if (c->at >= c->end)
        return BROKEN;
    if (*c->at == close) {
        c->at++;
        return CLOSED;
    }
    if (*c->at != ',')
        return BROKEN;
    c->at++;
    return MORE;
}

/* Any JSON value, read and not kept: 0 when it is not one this scanner reads. */
static int
skip_value(Cursor *c, int depth)
{
    const char *start, *stop;
    skip_space(c);
    if (c->at >= c->end)
        return 0;
    switch (*c->at) {
    case '"':
        return read_string(c, &start, &stop);
    case 't':
        return read_word(c, "true", 4);
    case 'f':
        return read_word(c, "false", 5);
    case 'n':
        return read_word(c, "null", 4);
    case '[':
    case '{': {
        int object = *c->at == '{';
        char close = object ? '}' : ']';
        if (depth >= MAX_DEPTH)
            return 0;
        if (opens_empty(c, close))
            return 1;
        int next;
        do {
            if ((object && !read_key(c, &start, &stop)) || !skip_value(c, depth + 1))
                return 0;
        } while ((next = after_member(c, close)) == MORE);
        return next == CLOSED;
    }
    default:
        return read_number(c) != NOT_NUMBER;
    }
}

/* Whether [start, stop) holds exactly the UTF-8 of the str `text`. -1 on an error (a
 * lone surrogate in the str), cleared by the caller's answer of 0. */
static int
same_text(const char *start, const char *stop, PyObject *text)
{
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 == NULL) {
        PyErr_Clear();
        return 0;
    }
    return size == stop - start && memcmp(utf8, start, (size_t)size) == 0;
}

static int same_value(Cursor *c, PyObject *literal, int depth);

/* The object at the cursor (its '{' next) against the dict `literal`: the same keys,
 * none given twice, each value the same. */
static int
same_object(Cursor *c, PyObject *literal, int depth)
{
    const char *starts[MAX_KEYS], *stops[MAX_KEYS];
    Py_ssize_t count = 0;
    if (!PyDict_CheckExact(literal) || depth >= MAX_DEPTH)
        return 0;
    if (opens_empty(c, '}'))
        return PyDict_GET_SIZE(literal) == 0;
    for (;;) {
        const char *start, *stop;
        if (count == MAX_KEYS || !read_key(c, &start, &stop))
            return 0;
        for (Py_ssize_t i = 0; i < count; i++)
            if (stops[i] - starts[i] == stop - start &&
                memcmp(starts[i], start, (size_t)(stop - start)) == 0)
                return 0; /* a key given twice */
        starts[count] = start;
        stops[count] = stop;
        count++;
        PyObject *key, *value = NULL, *candidate;
        Py_ssize_t position = 0;
        while (PyDict_Next(literal, &position, &key, &candidate))
            if (PyUnicode_CheckExact(key) && same_text(start, stop, key)) {
                value = candidate;
                break;
            }
        if (value == NULL || !same_value(c, value, depth + 1))
            return 0;
        int next = after_member(c, '}');
        if (next != MORE)
            return next == CLOSED && count == PyDict_GET_SIZE(literal);
    }
}

static int
same_array(Cursor *c, PyObject *literal, int depth)
{
    Py_ssize_t index = 0, size;
    if (!PyList_CheckExact(literal) || depth >= MAX_DEPTH)
        return 0;
    size = PyList_GET_SIZE(literal);
    if (opens_empty(c, ']'))
        return size == 0;
    int next;
    do {
        if (index >= size || !same_value(c, PyList_GET_ITEM(literal, index), depth + 1))
            return 0;
        index++;
    } while ((next = after_member(c, ']')) == MORE);
    return next == CLOSED && index == size;
}

/* An integer token [start, stop) of fewer than LONG_RUN digits against an exact int. */
static int
same_integer(const char *start, const char *stop, PyObject *literal)
{
    char digits[LONG_RUN + 2];
    int overflow;
    if (!PyLong_CheckExact(literal) || stop - start > LONG_RUN)
        return 0;
    memcpy(digits, start, (size_t)(stop - start));
    digits[stop - start] = '\0';
    long long value = PyLong_AsLongLongAndOverflow(literal, &overflow);
    if (overflow || (value == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    return strtoll(digits, NULL, 10) == value;
}

/* A fractional token against an exact float: the same double, bit for bit. */
static int
same_double(const char *start, const char *stop, PyObject *literal)
{
    char text[128];
    if (!PyFloat_CheckExact(literal) || stop - start >= (Py_ssize_t)sizeof text)
        return 0;
    memcpy(text, start, (size_t)(stop - start));
    text[stop - start] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    double expected = PyFloat_AS_DOUBLE(literal);
    return memcmp(&value, &expected, sizeof value) == 0;
}

/* The value at the cursor against the literal value: the same JSON type and value. */
static int
same_value(Cursor *c, PyObject *literal, int depth)
{
    const char *start, *stop;
    skip_space(c);
    if (c->at >= c->end)
        return 0;
    switch (*c->at) {
    case '"':
        return read_string(c, &start, &stop) && PyUnicode_CheckExact(literal) &&
               same_text(start, stop, literal);
    case 't':
        return read_word(c, "true", 4) && literal == Py_True;
    case 'f':
        return read_word(c, "false", 5) && literal == Py_False;
    case 'n':
        return read_word(c, "null", 4) && literal == Py_None;
    case '{':
        return same_object(c, literal, depth);
    case '[':
        return same_array(c, literal, depth);
    default: {
        start = c->at;
        int kind = read_number(c);
        if (kind == INTEGER)
            return same_integer(start, c->at, literal);
        if (kind == FRACTIONAL)
            return same_double(start, c->at, literal);
        return 0;
    }
    }
}

/* Whether the line holds a run of LONG_RUN digits or more. */
static int
has_long_run(const char *at, const char *end)
{
    int run = 0;
    for (; at < end; at++) {
        if (*at >= '0' && *at <= '9') {
            if (++run >= LONG_RUN)
                return 1;
        }
        else
            run = 0;
    }
    return 0;
}

typedef struct {
    const char *start, *stop; /* the value's text */
    int seen;
} Field;

/* The line's top-level object read: the values of `key`, "name" and "arguments". */
static int
read_fields(Cursor *c, const char *key, Py_ssize_t key_size, Field *id, Field *name,
            Field *arguments)
{
    skip_space(c);
    if (c->at >= c->end || *c->at != '{' || opens_empty(c, '}'))
        return 0;
    int next;
    do {
        const char *start, *stop;
        if (!read_key(c, &start, &stop))
            return 0;
        skip_space(c);
        Py_ssize_t size = stop - start;
        Field *field = NULL;
        if (size == key_size && memcmp(start, key, (size_t)size) == 0)
            field = id;
        else if (size == 4 && memcmp(start, "name", 4) == 0)
            field = name;
        else if (size == 9 && memcmp(start, "arguments", 9) == 0)
            field = arguments;
        const char *value = c->at;
        if (!skip_value(c, 1))
            return 0;
        if (field != NULL) {
            if (field->seen)
                return 0; /* given twice: the last counts, left to Python */
            field->seen = 1;
            field->start = value;
            field->stop = c->at;
        }
    } while ((next = after_member(c, '}')) == MORE);
    skip_space(c);
    return next == CLOSED && c->at == c->end;
}

/* The id's text as entries are keyed: a string's content, an integer's digits ("-0",
 * which reads 0, is left to Python). NULL, with no error set, when it is neither. */
static PyObject *
id_of(Field *id)
{
    Cursor c = {id->start, id->stop};
    const char *start, *stop;
    if (*id->start == '"') {
        if (!read_string(&c, &start, &stop))
            return NULL;
        PyObject *text = PyUnicode_DecodeUTF8(start, stop - start, NULL);
        if (text == NULL)
            PyErr_Clear(); /* not UTF-8 (the readers check it first) */
        return text;
    }
    if (read_number(&c) != INTEGER || c.at != id->stop)
        return NULL;
    if (id->stop - id->start == 2 && memcmp(id->start, "-0", 2) == 0)
        return NULL;
    return PyUnicode_DecodeUTF8(id->start, id->stop - id->start, NULL);
}

/* The key of CorrectCalls' table for the entry's shape in `section`. */
static PyObject *
shape_key(PyObject *section, PyObject *category, PyObject *tool, PyObject *literal)
{
    PyObject *parameters = PyTuple_New(PyDict_GET_SIZE(literal));
    if (parameters == NULL)
        return NULL;
    PyObject *key, *value;
    Py_ssize_t position = 0, index = 0;
    while (PyDict_Next(literal, &position, &key, &value)) {
        Py_INCREF(key);
        PyTuple_SET_ITEM(parameters, index++, key);
    }
    PyObject *where = PyLong_FromVoidPtr(section);
    if (where == NULL) {
        Py_DECREF(parameters);
        return NULL;
    }
    PyObject *result = PyTuple_Pack(4, where, category, tool, parameters);
    Py_DECREF(where);
    Py_DECREF(parameters);
    return result;
}

/* The part of correct_flat past the line's reading: 1 counted, 0 not, -1 error. */
static int
count_correct(PyObject *entries, PyObject *scored, PyObject *shapes, PyObject *id,
              Field *name, Field *arguments, PyObject *section)
{
    PyObject *entry = PyDict_GetItemWithError(entries, id);
    if (entry == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int known = PyDict_Contains(scored, id);
    if (known != 0)
        return known < 0 ? -1 : 0; /* an id already scored: Python counts it */
    int answer = 0;
    PyObject *calls = NULL, *call = NULL, *literal = NULL, *tool = NULL, *category = NULL;
    PyObject *key = NULL, *shape = NULL, *waiting = NULL, *raised = NULL;
    calls = PyObject_GetAttr(entry, CALLS);
    if (calls == NULL)
        goto error;
    if (!PyTuple_CheckExact(calls) || PyTuple_GET_SIZE(calls) != 1)
        goto done;
    call = PyTuple_GET_ITEM(calls, 0);
    literal = PyObject_GetAttr(call, LITERAL);
    tool = PyObject_GetAttr(call, NAME);
    if (literal == NULL || tool == NULL)
        goto error;
    if (!PyDict_CheckExact(literal) || !PyUnicode_CheckExact(tool))
        goto done;
    Cursor c = {name->start, name->stop};
    const char *start, *stop;
    if (!read_string(&c, &start, &stop) || !same_text(start, stop, tool))
        goto done;
    c.at = arguments->start;
    c.end = arguments->stop;
    if (*c.at != '{' || !same_object(&c, literal, 1))
        goto done;
    category = PyObject_GetAttr(entry, CATEGORY);
    if (category == NULL)
        goto error;
    key = shape_key(section, category, tool, literal);
    if (key == NULL)
        goto error;
    shape = PyDict_GetItemWithError(shapes, key);
    if (shape == NULL) {
        if (PyErr_Occurred())
            goto error;
        goto done; /* the shape's first entry: CorrectCalls.count adds it */
    }
    waiting = PyObject_GetAttr(shape, WAITING);
    if (waiting == NULL)
        goto error;
    raised = PyNumber_Add(waiting, ONE);
    if (raised == NULL || PyObject_SetAttr(shape, WAITING, raised) < 0)
        goto error;
    if (PyDict_SetItem(scored, id, Py_None) < 0)
        goto error;
    answer = 1;
    goto done;
error:
    answer = -1;
done:
    Py_XDECREF(calls);
    Py_XDECREF(literal);
    Py_XDECREF(tool);
    Py_XDECREF(category);
    Py_XDECREF(key);
    Py_XDECREF(waiting);
    Py_XDECREF(raised);
    return answer;
}

static PyObject *
correct_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "correct_flat(key, entries, scored, shapes, line, tally)");
        return NULL;
    }
    PyObject *key = args[0], *entries = args[1], *scored = args[2], *shapes = args[3];
    PyObject *line = args[4], *tally = args[5];
    if (!PyUnicode_CheckExact(key) || !PyDict_CheckExact(entries) ||
        !PyDict_CheckExact(scored) || !PyDict_CheckExact(shapes) || !PyBytes_Check(line)) {
        PyErr_SetString(PyExc_TypeError, "correct_flat: str, dict, dict, dict, bytes");
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(line);
    Py_ssize_t size = PyBytes_GET_SIZE(line);
    if (memchr(text, '\\', (size_t)size) != NULL || has_long_run(text, text + size))
        Py_RETURN_FALSE;
    Py_ssize_t key_size;
    const char *key_text = PyUnicode_AsUTF8AndSize(key, &key_size);
    if (key_text == NULL)
        return NULL;
    Field id = {0}, name = {0}, arguments = {0};
    Cursor c = {text, text + size};
    if (!read_fields(&c, key_text, key_size, &id, &name, &arguments) || !id.seen ||
        !name.seen || !arguments.seen)
        Py_RETURN_FALSE;
    PyObject *section = PyObject_GetAttr(tally, GROUND_TRUTH);
    if (section == NULL)
        return NULL;
    if (section == Py_None) {
        Py_DECREF(section);
        Py_RETURN_FALSE;
    }
    PyObject *id_text = id_of(&id);
    if (id_text == NULL) {
        Py_DECREF(section);
        if (PyErr_Occurred())
            return NULL;
        Py_RETURN_FALSE;
    }
    int answer = count_correct(entries, scored, shapes, id_text, &name, &arguments, section);
    Py_DECREF(id_text);
    Py_DECREF(section);
    if (answer < 0)
        return NULL;
    return PyBool_FromLong(answer);
}

static PyMethodDef methods[] = {
    {"correct_flat", (PyCFunction)(void (*)(void))correct_flat, METH_FASTCALL,
     "A flat call's line scored and counted when its entry is surely answered right."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "toolaudit.truth._line_scores", NULL, -1, methods,
};

PyMODINIT_FUNC
PyInit__line_scores(void)
{
    CALLS = PyUnicode_InternFromString("calls");
    LITERAL = PyUnicode_InternFromString("literal");
    NAME = PyUnicode_InternFromString("name");
    CATEGORY = PyUnicode_InternFromString("category");
    GROUND_TRUTH = PyUnicode_InternFromString("ground_truth");
    WAITING = PyUnicode_InternFromString("waiting");
    ONE = PyLong_FromLong(1);
    if (CALLS == NULL || LITERAL == NULL || NAME == NULL || CATEGORY == NULL ||
        GROUND_TRUTH == NULL || WAITING == NULL || ONE == NULL)
        return NULL;
    return PyModule_Create(&module);
}
