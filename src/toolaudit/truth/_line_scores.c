/* A flat call's line scored in C when its score is sure: an optional speedup of
 * toolaudit.pipeline.scoring (its pure twin: toolaudit.truth.line_scores, whose
 * docstring says what is told here and why each case left alone is left).
 *
 * score_flat(key, entries, scored, shapes, most_samples, first, write, source, line,
 * tally, line_number) says True when it has scored and counted the line's record: the
 * line is one JSON object whose key `key` holds an id (a string, or an integer's
 * digits) that `entries` (id -> Expected) has and that `scored` does not yet hold; the
 * entry expects one call, given as literal values (ExpectedCall.literal, an exact dict),
 * or none; the line's "name" is a string and its "arguments" an object. The entry is
 * then scored by its shape: correct (the same tool, the same values: the same JSON
 * types, objects' keys in any order), incorrect (the same tool and parameters, some
 * values surely different; or another tool), or an unwanted call; and counted by its
 * shape's key, (id(section), category, tool or None, parameters, tool made, mask of the
 * parameters that failed), section the tally's ground truth: the `waiting` of the shape
 * `shapes` (EntryShapes' table) holds under it raised, or, for a shape's first entry,
 * first(section, category, tool, parameters, made, mask) called (EntryShapes.first:
 * GroundTruth.add adds it, in the order it makes the section's tallies); the id put in
 * `scored`. An entry not correct is counted only once the section holds `most_samples`
 * samples (the first incorrect entries are kept whole, by Python). With `write` (the
 * --scores file's write; `source`: the source's JSON), only a correct entry is told,
 * whose line is written here as truth.line_scores.correct_row is (its category, if any,
 * a string orjson writes as it is; the model the line's "model" if a string).
 *
 * score_call(entries, scored, shapes, most_samples, first, write, source, id, name,
 * arguments, model, tally, line_number) is the same for a provider record's one call as
 * the typed decode named it (truth.line_scores.score_call says what differs): the two
 * share the compare and the count (score_against, count_scored). id_at(line, key) reads
 * the id at a top-level key of a line the typed decode read, where that is sure
 * (pipeline.scored_lines.LineIds reads it otherwise). CallKernel keeps score_call's
 * arguments for the typed reader, which asks its id_of (the id, and whether the line
 * may hold an integer past 64 bits) before it counts a line and its score after.
 *
 * Any other answer is False, with nothing changed: a backslash anywhere in the line, a
 * run of 16 digits or more (an integer orjson may read as a float), an exponent of three
 * digits or more, nesting deeper than MAX_DEPTH, a control character in a string, a key
 * of the four it reads given twice, a value compare_value is not sure of, a parameter missing or
 * unexpected, or anything this scanner does not read.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include "../_digit_runs.h"
#include "_plain_slots.h"
#include "_shape_table.h"
#include <string.h>

#define MAX_DEPTH 64
#define MAX_KEYS 64
#define LONG_RUN 16

typedef struct {
    const char *at;
    const char *end;
} Cursor;

static PyObject *CALLS, *LITERAL, *NAME, *CATEGORY, *GROUND_TRUTH, *SAMPLES, *WAITING, *ONE;

/* An attribute read (or written) at its slot's offset in objects of the last type met
 * (learnt from the type's member descriptor when met), not by getattr a line: -1 where
 * it is no plain slot (a type that gets or sets attributes another way, a property, a
 * read-only member), then it is read by name. */
typedef struct {
    PyObject **name;
    PyTypeObject *type; /* (a strong reference: no other type takes its address) */
    Py_ssize_t offset;
    int writing;
} Slot;

static Slot ENTRY_CALLS = {&CALLS}, ENTRY_CATEGORY = {&CATEGORY}, CALL_LITERAL = {&LITERAL},
            CALL_NAME = {&NAME}, TALLY_SECTION = {&GROUND_TRUTH},
            SHAPE_WAITING = {&WAITING, NULL, -1, 1};

/* The offset of the slot's attribute in objects of `object`'s type, learnt if that type
 * is new: -1 where it is read by name; -2 on an error. */
static Py_ssize_t
slot_offset(Slot *slot, PyObject *object)
{
    PyTypeObject *type = Py_TYPE(object);
    if (type == slot->type)
        return slot->offset;
    Py_ssize_t offset = plain_slot_offset(type, *slot->name, slot->writing);
    if (offset == -2)
        return -2;
    Py_XSETREF(slot->type, (PyTypeObject *)Py_NewRef(type));
    slot->offset = offset;
    return offset;
}

/* The slot's attribute of `object` (a new reference), NULL on an error. */
static PyObject *
read_slot(Slot *slot, PyObject *object)
{
    Py_ssize_t offset = slot_offset(slot, object);
    if (offset == -2)
        return NULL;
    PyObject *value = offset >= 0 ? *(PyObject **)((char *)object + offset) : NULL;
    if (value != NULL)
        return Py_NewRef(value);
    return PyObject_GetAttr(object, *slot->name); /* (an empty slot: its error) */
}

/* The shape's `waiting` raised by one: 0, or -1 on an error. */
static int
raise_waiting(PyObject *shape)
{
    Py_ssize_t offset = slot_offset(&SHAPE_WAITING, shape);
    if (offset == -2)
        return -1;
    PyObject **at = offset >= 0 ? (PyObject **)((char *)shape + offset) : NULL;
    if (at != NULL && *at != NULL && PyLong_CheckExact(*at)) {
        Py_ssize_t waiting = PyLong_AsSsize_t(*at);
        if (waiting >= 0 && waiting < PY_SSIZE_T_MAX) {
            PyObject *raised = PyLong_FromSsize_t(waiting + 1);
            if (raised == NULL)
                return -1;
            Py_SETREF(*at, raised);
            return 0;
        }
        PyErr_Clear(); /* (too big for a Py_ssize_t: Python adds it) */
    }
    PyObject *waiting = PyObject_GetAttr(shape, WAITING);
    if (waiting == NULL)
        return -1;
    PyObject *raised = PyNumber_Add(waiting, ONE);
    Py_DECREF(waiting);
    if (raised == NULL)
        return -1;
    int set = PyObject_SetAttr(shape, WAITING, raised);
    Py_DECREF(raised);
    return set;
}

/* id(section) as a Python int: the last one made kept, as a section's id is its address
 * (the same address, the same int, whichever object holds it now). */
static PyObject *
address_of(PyObject *section)
{
    static void *address;
    static PyObject *made;
    if (made == NULL || address != (void *)section) {
        PyObject *fresh = PyLong_FromVoidPtr(section);
        if (fresh == NULL)
            return NULL;
        Py_XSETREF(made, fresh);
        address = section;
    }
    return Py_NewRef(made);
}

static void
skip_space(Cursor *c)
{
    while (c->at < c->end &&
           (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r'))
        c->at++;
}

/* A string token from its opening quote; its content in [*start, *stop) (a backslash is
 * a byte like any other: the kernel's lines hold none). 0 when it is not one. */
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

/* What a value of the line is to a literal value, as the exact comparison
 * (toolaudit.values.json_equal) tells them apart: SAME (equal, and of the same JSON type
 * at every depth: what a correct entry needs), DIFFERENT (surely not equal), or UNSURE,
 * for Python to decide: 1 against 1.0, -0.0 against 0.0, a key given twice, a literal
 * of a type the expected file does not give, past this scanner's limits. */
enum { UNSURE = -1, DIFFERENT = 0, SAME = 1 };

/* The worse of two answers of a container's members: UNSURE, then DIFFERENT. */
#define WORSE(a, b) ((a) < (b) ? (a) : (b))

/* The JSON type of a literal value (OTHER_KIND: a type msgspec does not decode JSON to). */
enum { STRING_KIND, INTEGER_KIND, FLOAT_KIND, SINGLETON_KIND, ARRAY_KIND, OBJECT_KIND, OTHER_KIND };

static int
kind_of(PyObject *literal)
{
    if (literal == Py_True || literal == Py_False || literal == Py_None)
        return SINGLETON_KIND;
    if (PyUnicode_CheckExact(literal))
        return STRING_KIND;
    if (PyLong_CheckExact(literal))
        return INTEGER_KIND;
    if (PyFloat_CheckExact(literal))
        return FLOAT_KIND;
    if (PyList_CheckExact(literal))
        return ARRAY_KIND;
    if (PyDict_CheckExact(literal))
        return OBJECT_KIND;
    return OTHER_KIND;
}

static int compare_value(Cursor *c, PyObject *literal, int depth);

/* A value of another JSON type than the literal's, read: DIFFERENT. */
static int
other_type(Cursor *c, int depth)
{
    return skip_value(c, depth) ? DIFFERENT : UNSURE;
}

/* The object at the cursor (its '{' next) against the dict `literal`. With `mask` (the
 * call's arguments themselves) its keys must be the literal's, none missing or
 * unexpected (Python knows the defaults), and each parameter that differs is marked in
 * *mask by its position among the literal's keys; inside them, other keys differ. */
static int
compare_object(Cursor *c, PyObject *literal, int depth, unsigned long long *mask)
{
    const char *starts[MAX_KEYS], *stops[MAX_KEYS];
    Py_ssize_t count = 0, hint = 0, hint_index = 0;
    int answer = SAME, next;
    if (depth >= MAX_DEPTH)
        return UNSURE;
    if (opens_empty(c, '}'))
        return PyDict_GET_SIZE(literal) == 0 ? SAME : mask != NULL ? UNSURE : DIFFERENT;
    do {
        const char *start, *stop;
        if (count == MAX_KEYS || !read_key(c, &start, &stop))
            return UNSURE;
        for (Py_ssize_t i = 0; i < count; i++)
            if (stops[i] - starts[i] == stop - start &&
                memcmp(starts[i], start, (size_t)(stop - start)) == 0)
                return UNSURE; /* a key given twice: the last counts */
        starts[count] = start;
        stops[count] = stop;
        count++;
        /* Most lines give the keys in the literal's order: the one after the last
         * found is tried first. */
        PyObject *key, *value = NULL, *candidate;
        Py_ssize_t position = hint, index = hint_index, found = -1;
        if (PyDict_Next(literal, &position, &key, &candidate) && PyUnicode_CheckExact(key) &&
            same_text(start, stop, key)) {
            value = candidate;
            found = index;
        }
        else {
            position = index = 0;
            while (PyDict_Next(literal, &position, &key, &candidate)) {
                if (PyUnicode_CheckExact(key) && same_text(start, stop, key)) {
                    value = candidate;
                    found = index;
                    break;
                }
                index++;
            }
        }
        hint = position;
        hint_index = found + 1;
        int one;
        if (value != NULL)
            one = compare_value(c, value, depth + 1);
        else if (mask != NULL)
            return UNSURE; /* a parameter not expected */
        else
            one = other_type(c, depth + 1);
        if (one == UNSURE)
            return UNSURE;
        if (one == DIFFERENT && mask != NULL) {
            if (found >= 64)
                return UNSURE;
            *mask |= 1ULL << found;
        }
        answer = WORSE(answer, one);
    } while ((next = after_member(c, '}')) == MORE);
    if (next != CLOSED)
        return UNSURE;
    if (count != PyDict_GET_SIZE(literal))
        return mask != NULL ? UNSURE : DIFFERENT;
    return answer;
}

static int
compare_array(Cursor *c, PyObject *literal, int depth)
{
    Py_ssize_t index = 0, size = PyList_GET_SIZE(literal);
    int answer = SAME, next;
    if (depth >= MAX_DEPTH)
        return UNSURE;
    if (opens_empty(c, ']'))
        return size == 0 ? SAME : DIFFERENT;
    do {
        int one = index < size ? compare_value(c, PyList_GET_ITEM(literal, index), depth + 1)
                               : other_type(c, depth + 1);
        if (one == UNSURE)
            return UNSURE;
        answer = WORSE(answer, one);
        index++;
    } while ((next = after_member(c, ']')) == MORE);
    if (next != CLOSED)
        return UNSURE;
    return index == size ? answer : DIFFERENT;
}

/* An integer token [start, stop) of fewer than LONG_RUN digits against an exact int. */
static int
compare_integer(const char *start, const char *stop, PyObject *literal)
{
    char digits[LONG_RUN + 2];
    int overflow;
    if (stop - start > LONG_RUN)
        return UNSURE;
    memcpy(digits, start, (size_t)(stop - start));
    digits[stop - start] = '\0';
    long long value = PyLong_AsLongLongAndOverflow(literal, &overflow);
    if (overflow || (value == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return UNSURE;
    }
    return strtoll(digits, NULL, 10) == value ? SAME : DIFFERENT;
}

/* A fractional token against an exact float: SAME bit for bit, UNSURE when only equal
 * (-0.0 and 0.0). */
static int
compare_double(const char *start, const char *stop, PyObject *literal)
{
    char text[128];
    if (stop - start >= (Py_ssize_t)sizeof text)
        return UNSURE;
    memcpy(text, start, (size_t)(stop - start));
    text[stop - start] = '\0';
    double value = PyOS_string_to_double(text, NULL, NULL);
    if (value == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        return UNSURE;
    }
    double expected = PyFloat_AS_DOUBLE(literal);
    if (memcmp(&value, &expected, sizeof value) == 0)
        return SAME;
    return value == expected ? UNSURE : DIFFERENT;
}

/* The value at the cursor against the literal value (see SAME, DIFFERENT, UNSURE). */
static int
compare_value(Cursor *c, PyObject *literal, int depth)
{
    const char *start, *stop;
    int kind = kind_of(literal);
    if (kind == OTHER_KIND)
        return UNSURE;
    skip_space(c);
    if (c->at >= c->end)
        return UNSURE;
    switch (*c->at) {
    case '"':
        if (!read_string(c, &start, &stop))
            return UNSURE;
        return kind == STRING_KIND && same_text(start, stop, literal) ? SAME : DIFFERENT;
    case 't':
        return !read_word(c, "true", 4) ? UNSURE : literal == Py_True ? SAME : DIFFERENT;
    case 'f':
        return !read_word(c, "false", 5) ? UNSURE : literal == Py_False ? SAME : DIFFERENT;
    case 'n':
        return !read_word(c, "null", 4) ? UNSURE : literal == Py_None ? SAME : DIFFERENT;
    case '{':
        return kind == OBJECT_KIND ? compare_object(c, literal, depth, NULL) : other_type(c, depth);
    case '[':
        return kind == ARRAY_KIND ? compare_array(c, literal, depth) : other_type(c, depth);
    default: {
        start = c->at;
        int number = read_number(c);
        if (number == NOT_NUMBER)
            return UNSURE;
        if (kind == INTEGER_KIND)
            return number == INTEGER ? compare_integer(start, c->at, literal) : UNSURE;
        if (kind == FLOAT_KIND)
            return number == FRACTIONAL ? compare_double(start, c->at, literal) : UNSURE;
        return DIFFERENT;
    }
    }
}

/* Whether the line holds a run of LONG_RUN digits or more. */
static int
has_long_run(const char *text, Py_ssize_t size)
{
    return has_digit_run((const unsigned char *)text, size, LONG_RUN, LONG_RUN);
}

typedef struct {
    const char *start, *stop; /* the value's text */
    int seen;
} Field;

/* The fields of a flat call's line the kernel reads. */
typedef struct {
    Field id, name, arguments, model;
} Fields;

/* The line's top-level object read: the values of `key`, "name", "arguments" and
 * "model" (`key` is none of the three: the Python side does not call it so). */
static int
read_fields(Cursor *c, const char *key, Py_ssize_t key_size, Fields *fields)
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
            field = &fields->id;
        else if (size == 4 && memcmp(start, "name", 4) == 0)
            field = &fields->name;
        else if (size == 9 && memcmp(start, "arguments", 9) == 0)
            field = &fields->arguments;
        else if (size == 5 && memcmp(start, "model", 5) == 0)
            field = &fields->model;
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

/* The names of a literal's parameters, in order. */
static PyObject *
parameters_of(PyObject *literal)
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
    return parameters;
}

/* Whether a parameter's name holds '.' or '[': the mismatch paths of another parameter
 * could then name it too (results are counted per name by prefix: match._touches). */
static int
names_nest(PyObject *parameters)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(parameters); i++) {
        PyObject *name = PyTuple_GET_ITEM(parameters, i);
        if (!PyUnicode_CheckExact(name) ||
            PyUnicode_FindChar(name, '.', 0, PY_SSIZE_T_MAX, 1) != -1 ||
            PyUnicode_FindChar(name, '[', 0, PY_SSIZE_T_MAX, 1) != -1)
            return 1;
    }
    return 0;
}

/* An entry's scoring as its shape's key tells it: the expected tool (None: no call),
 * its parameters, the tool made, the parameters that failed. */
typedef struct {
    PyObject *tool, *parameters, *made;
    unsigned long long mask;
    int correct;
} Scored;

/* Whether [start, stop) is one JSON object, space around it and nothing else (read, not
 * kept): what the arguments of a call made must be when the kernel tells its entry. */
static int
whole_object(const char *start, const char *stop)
{
    Cursor c = {start, stop};
    skip_space(&c);
    if (c.at >= c.end || *c.at != '{' || !skip_value(&c, 1))
        return 0;
    skip_space(&c);
    return c.at == c.end;
}

/* The entry's one call (or none) against the call made: its tool's name (UTF-8 in
 * [made, made + made_size)) and its arguments' JSON text ([arguments, arguments_end):
 * one object, space around it). 1 told (into `scored`, whose references the caller
 * releases), 0 left to Python, -1 an error. */
static int
score_against(PyObject *calls, const char *made, Py_ssize_t made_size, const char *arguments,
              const char *arguments_end, Scored *scored)
{
    Cursor c = {arguments, arguments_end};
    skip_space(&c);
    if (c.at >= c.end || *c.at != '{')
        return 0; /* (arguments that are no object: the extractor's to read) */
    if (PyTuple_GET_SIZE(calls) == 0) { /* none expected, one made: unwanted */
        if (!whole_object(arguments, arguments_end))
            return 0;
        scored->tool = Py_NewRef(Py_None);
        scored->parameters = PyTuple_New(0);
        scored->made = PyUnicode_DecodeUTF8(made, made_size, NULL);
        return scored->parameters != NULL && scored->made != NULL ? 1 : -1;
    }
    PyObject *call = PyTuple_GET_ITEM(calls, 0);
    PyObject *literal = read_slot(&CALL_LITERAL, call);
    if (literal == NULL)
        return -1;
    int answer = 0;
    scored->tool = read_slot(&CALL_NAME, call);
    if (scored->tool == NULL)
        goto error;
    if (!PyDict_CheckExact(literal) || !PyUnicode_CheckExact(scored->tool) ||
        PyDict_GET_SIZE(literal) > 64)
        goto done;
    scored->parameters = parameters_of(literal);
    if (scored->parameters == NULL)
        goto error;
    if (!same_text(made, made + made_size, scored->tool)) {
        /* another tool: every parameter fails */
        if (!whole_object(arguments, arguments_end))
            goto done;
        scored->made = PyUnicode_DecodeUTF8(made, made_size, NULL);
        if (scored->made == NULL)
            goto error;
        Py_ssize_t size = PyDict_GET_SIZE(literal);
        scored->mask = size == 64 ? ~0ULL : (1ULL << size) - 1;
        answer = 1;
        goto done;
    }
    int compared = compare_object(&c, literal, 1, &scored->mask);
    if (compared != UNSURE) { /* (nothing but space after the object) */
        skip_space(&c);
        if (c.at != c.end)
            compared = UNSURE;
    }
    if (compared == UNSURE || (compared == DIFFERENT && names_nest(scored->parameters)))
        goto done;
    scored->made = Py_NewRef(scored->tool);
    scored->correct = compared == SAME;
    answer = 1;
    goto done;
error:
    answer = -1;
done:
    Py_DECREF(literal);
    return answer;
}

/* What score_flat is given besides the line and its tally. */
typedef struct {
    PyObject *entries, *scored, *shapes, *first;
    Py_ssize_t most_samples;
    /* --scores: out.write and the source's JSON (bytes), or None; the line's number. */
    PyObject *write, *source;
    Py_ssize_t line;
} Scorer;

/* Whether a str is written by orjson as its UTF-8 between quotes (no character it
 * escapes); its UTF-8 in *text. */
static int
plain_string(PyObject *value, const char **text, Py_ssize_t *size)
{
    *text = PyUnicode_AsUTF8AndSize(value, size);
    if (*text == NULL) {
        PyErr_Clear();
        return 0;
    }
    for (Py_ssize_t i = 0; i < *size; i++) {
        unsigned char byte = (unsigned char)(*text)[i];
        if (byte < 0x20 || byte == '"' || byte == '\\')
            return 0;
    }
    return 1;
}

/* What a correct entry's --scores line names of its record: the id's text and the
 * model's (NULL: null), each written between quotes as it is (orjson escapes none of
 * its characters). */
typedef struct {
    const char *id, *model;
    Py_ssize_t id_size, model_size;
} Row;

/* The --scores line of a correct entry of one call answered by the record's one call
 * (at index 0), as truth.line_scores.correct_row and pipeline.scoring.dump_score write
 * it. */
static PyObject *
correct_row(Scorer *scorer, Row *named, const char *category, Py_ssize_t category_size)
{
    char number[32];
    const char *source = PyBytes_AS_STRING(scorer->source);
    Py_ssize_t number_size = snprintf(number, sizeof number, "%zd", scorer->line);
    int model = named->model != NULL;
    const char *parts[] = {
        "{\"id\":\"", named->id, "\",\"category\":", category_size < 0 ? "null" : "\"",
        category != NULL ? category : "", category_size < 0 ? "" : "\"", ",\"model\":",
        model ? "\"" : "null", model ? named->model : "", model ? "\"" : "",
        ",\"outcome\":\"correct\",\"correct\":true,\"mismatches\":[],\"pairing\":[[0,0]],"
        "\"source\":", source, ",\"line\":", number, "}\n",
    };
    /* (-1: a constant part, its length its own.) */
    Py_ssize_t sizes[] = {
        -1, named->id_size, -1, -1, category_size < 0 ? 0 : category_size, -1, -1,
        -1, model ? named->model_size : 0, -1, -1, PyBytes_GET_SIZE(scorer->source), -1,
        number_size, -1,
    };
    Py_ssize_t total = 0, count = (Py_ssize_t)(sizeof sizes / sizeof sizes[0]);
    for (Py_ssize_t i = 0; i < count; i++) {
        if (sizes[i] < 0)
            sizes[i] = (Py_ssize_t)strlen(parts[i]);
        total += sizes[i];
    }
    PyObject *row = PyBytes_FromStringAndSize(NULL, total);
    if (row == NULL)
        return NULL;
    char *at = PyBytes_AS_STRING(row);
    for (Py_ssize_t i = 0; i < count; i++) {
        memcpy(at, parts[i], (size_t)sizes[i]);
        at += sizes[i];
    }
    return row;
}

/* An entry counted by its shape's key, the 6-tuple (see the header): the `waiting` of
 * the shape `shapes` holds under it raised, or, for a shape's first entry,
 * first(section, category, tool, parameters, made, mask) called. With `table`, the
 * shape the dict then holds is kept there too, found by `parts` from then on. 0, or
 * -1 on an error. */
static int
count_by_key(Scorer *scorer, PyObject *section, PyObject *category, Scored *scored,
             ShapeTable *table, ShapeParts *parts)
{
    int answer = -1;
    PyObject *where = address_of(section), *key = NULL;
    PyObject *mask = PyLong_FromUnsignedLongLong(scored->mask);
    if (where == NULL || mask == NULL)
        goto done;
    key = PyTuple_Pack(6, where, category, scored->tool, scored->parameters, scored->made, mask);
    if (key == NULL)
        goto done;
    PyObject *shape = PyDict_GetItemWithError(scorer->shapes, key);
    if (shape != NULL) {
        if (raise_waiting(shape) < 0)
            goto done;
    }
    else if (PyErr_Occurred())
        goto done;
    else if (table != NULL && (answer = first_known(table, key, parts)) != 0) {
        answer = answer < 0 ? -1 : 0; /* (made and kept: first's short path, in C) */
        goto done;
    }
    else { /* the shape's first entry: added by GroundTruth.add, the shape kept */
        answer = -1;
        PyObject *arguments[] = {section, category, scored->tool, scored->parameters,
                                 scored->made, mask};
        PyObject *raised = PyObject_Vectorcall(scorer->first, arguments, 6, NULL);
        if (raised == NULL)
            goto done;
        Py_DECREF(raised);
        if (table != NULL) { /* (None kept: a name made that by_tool folded) */
            shape = PyDict_GetItemWithError(scorer->shapes, key);
            if (shape == NULL && PyErr_Occurred())
                goto done;
        }
    }
    answer = table != NULL && shape != NULL ? keep_shape(table, parts, shape) : 0;
done:
    Py_XDECREF(where);
    Py_XDECREF(mask);
    Py_XDECREF(key);
    return answer;
}

/* The part of score_flat and score_call past the record's reading: the entry of `id`
 * scored against the call made (see score_against) and counted in `section`, its
 * --scores line naming what `named` gives. 1 counted, 0 not, -1 an error. */
static inline __attribute__((always_inline)) int
count_scored(Scorer *scorer, PyObject *id, const char *made, Py_ssize_t made_size,
             const char *arguments, const char *arguments_end, Row *named, PyObject *section)
{
    const char *category_text = NULL;
    Py_ssize_t category_size = -1;
    PyObject *entry = PyDict_GetItemWithError(scorer->entries, id);
    if (entry == NULL)
        return PyErr_Occurred() ? -1 : 0;
    int known = PyDict_Contains(scorer->scored, id);
    if (known != 0)
        return known < 0 ? -1 : 0; /* an id already scored: Python counts it */
    int answer = 0;
    Scored scored = {NULL, NULL, NULL, 0, 0};
    PyObject *calls = NULL, *category = NULL, *samples = NULL;
    calls = read_slot(&ENTRY_CALLS, entry);
    if (calls == NULL)
        goto error;
    if (!PyTuple_CheckExact(calls) || PyTuple_GET_SIZE(calls) > 1)
        goto done;
    answer = score_against(calls, made, made_size, arguments, arguments_end, &scored);
    if (answer != 1)
        goto done;
    answer = 0;
    if (!scored.correct) { /* kept as a sample while the section wants some */
        samples = PyObject_GetAttr(section, SAMPLES);
        if (samples == NULL)
            goto error;
        if (!PyList_CheckExact(samples) || PyList_GET_SIZE(samples) < scorer->most_samples)
            goto done;
    }
    category = read_slot(&ENTRY_CATEGORY, entry);
    if (category == NULL)
        goto error;
    if (scorer->write != Py_None) { /* a --scores line: the correct one's, in C */
        if (!scored.correct ||
            (category != Py_None && !(PyUnicode_CheckExact(category) &&
                                      plain_string(category, &category_text, &category_size))))
            goto done;
    }
    /* A shape the table met: its count raised in C, no key made (see _shape_table.h). */
    ShapeTable *table =
        Py_IS_TYPE(scorer->shapes, &ShapeTableType) ? (ShapeTable *)scorer->shapes : NULL;
    ShapeParts parts = {section, category, scored.tool, scored.parameters, scored.made,
                        scored.mask, 0};
    int keeps = table != NULL ? shape_parts_hashed(&parts) : 0;
    if (keeps < 0)
        goto error;
    KnownShape *met = keeps ? shape_place(table, &parts) : NULL;
    if (met != NULL && met->shape != NULL)
        met->counted++;
    else if (count_by_key(scorer, section, category, &scored, keeps ? table : NULL, &parts) < 0)
        goto error;
    if (PyDict_SetItem(scorer->scored, id, Py_None) < 0)
        goto error;
    if (scorer->write != Py_None) {
        PyObject *row = correct_row(scorer, named, category_text, category_size);
        if (row == NULL)
            goto error;
        PyObject *written = PyObject_CallOneArg(scorer->write, row);
        Py_DECREF(row);
        if (written == NULL)
            goto error;
        Py_DECREF(written);
    }
    answer = 1;
    goto done;
error:
    answer = -1;
done:
    Py_XDECREF(scored.tool);
    Py_XDECREF(scored.parameters);
    Py_XDECREF(scored.made);
    Py_XDECREF(calls);
    Py_XDECREF(category);
    Py_XDECREF(samples);
    return answer;
}

/* The Scorer of score_flat's and score_call's arguments: `given` its seven (entries,
 * scored, shapes, most_samples, first, write, source), `line_number` the record's. 0, or
 * -1 with an error set (`usage` names the function's arguments). */
static int
read_scorer(PyObject *const *given, PyObject *line_number, Scorer *scorer, const char *usage)
{
    *scorer = (Scorer){given[0], given[1], given[2], given[4], PyLong_AsSsize_t(given[3]),
                       given[5], given[6], PyLong_AsSsize_t(line_number)};
    if ((scorer->most_samples == -1 || scorer->line == -1) && PyErr_Occurred())
        return -1;
    if (!PyDict_CheckExact(scorer->entries) || !PyDict_CheckExact(scorer->scored) ||
        !(PyDict_CheckExact(scorer->shapes) || Py_IS_TYPE(scorer->shapes, &ShapeTableType)) ||
        (scorer->write != Py_None && !PyBytes_Check(scorer->source))) {
        PyErr_SetString(PyExc_TypeError, usage);
        return -1;
    }
    return 0;
}

static PyObject *
score_flat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 11) {
        PyErr_SetString(PyExc_TypeError, "score_flat(key, entries, scored, shapes, "
                                         "most_samples, first, write, source, line, tally, "
                                         "line_number)");
        return NULL;
    }
    PyObject *key = args[0], *line = args[8], *tally = args[9];
    Scorer scorer;
    const char *usage = "score_flat: str, dict, dict, dict, int, _, _, bytes (with write), "
                        "bytes, _, int";
    if (read_scorer(args + 1, args[10], &scorer, usage) < 0)
        return NULL;
    if (!PyUnicode_CheckExact(key) || !PyBytes_Check(line)) {
        PyErr_SetString(PyExc_TypeError, usage);
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(line);
    Py_ssize_t size = PyBytes_GET_SIZE(line);
    if (memchr(text, '\\', (size_t)size) != NULL || has_long_run(text, size))
        Py_RETURN_FALSE;
    Py_ssize_t key_size;
    const char *key_text = PyUnicode_AsUTF8AndSize(key, &key_size);
    if (key_text == NULL)
        return NULL;
    Fields fields = {{0}, {0}, {0}, {0}};
    Cursor c = {text, text + size};
    if (!read_fields(&c, key_text, key_size, &fields) || !fields.id.seen || !fields.name.seen ||
        !fields.arguments.seen)
        Py_RETURN_FALSE;
    PyObject *section = read_slot(&TALLY_SECTION, tally);
    if (section == NULL)
        return NULL;
    if (section == Py_None) {
        Py_DECREF(section);
        Py_RETURN_FALSE;
    }
    PyObject *id_text = id_of(&fields.id);
    Cursor name = {fields.name.start, fields.name.stop};
    const char *made, *made_end;
    if (id_text == NULL || !read_string(&name, &made, &made_end)) {
        Py_XDECREF(id_text);
        Py_DECREF(section);
        Py_RETURN_FALSE;
    }
    /* (The id: a string's text within its quotes, or an integer's digits.) */
    int quoted = *fields.id.start == '"';
    Row named = {fields.id.start + quoted, NULL, fields.id.stop - fields.id.start - 2 * quoted, 0};
    if (fields.model.seen && *fields.model.start == '"') {
        named.model = fields.model.start + 1;
        named.model_size = fields.model.stop - fields.model.start - 2;
    }
    int answer = count_scored(&scorer, id_text, made, made_end - made, fields.arguments.start,
                              fields.arguments.stop, &named, section);
    Py_DECREF(id_text);
    Py_DECREF(section);
    if (answer < 0)
        return NULL;
    return PyBool_FromLong(answer);
}

/* A str's UTF-8 written by orjson as it is between quotes, for a --scores line (see
 * plain_string): 1, or 0 when it is not (no error left set). */
static int
plain_text(PyObject *value, const char **text, Py_ssize_t *size)
{
    return PyUnicode_CheckExact(value) && plain_string(value, text, size);
}

/* A record's one call (its tool's name and its arguments' JSON text, as the typed
 * decode named them) scored and counted for `id`: score_call's answer past its
 * arguments. 1 counted, 0 left to Python, -1 an error. */
static int
score_one(Scorer *scorer, PyObject *id, PyObject *name, PyObject *arguments, PyObject *model,
          PyObject *tally)
{
    /* (An id, a name or a model of another type: Python's to score.) */
    if (!PyUnicode_CheckExact(id) || !PyUnicode_CheckExact(name) ||
        (model != Py_None && !PyUnicode_CheckExact(model)))
        return 0;
    Row named = {NULL, NULL, 0, 0};
    if (scorer->write != Py_None &&
        (!plain_text(id, &named.id, &named.id_size) ||
         (model != Py_None && !plain_text(model, &named.model, &named.model_size))))
        return 0; /* (its --scores line escapes them: Python writes it) */
    Py_ssize_t made_size, size;
    const char *made = PyUnicode_AsUTF8AndSize(name, &made_size), *text;
    if (made == NULL) { /* (a lone surrogate) */
        PyErr_Clear();
        return 0;
    }
    /* The arguments' JSON text: a str's UTF-8 (a JSON string's value), or bytes (a
     * slice of the line, the JSON value itself). */
    Py_buffer view = {0};
    if (PyUnicode_CheckExact(arguments)) {
        text = PyUnicode_AsUTF8AndSize(arguments, &size);
        if (text == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    else {
        if (PyObject_GetBuffer(arguments, &view, PyBUF_SIMPLE) < 0)
            return -1;
        text = view.buf;
        size = view.len;
    }
    PyObject *section = NULL;
    int answer = 0;
    /* (Bytes are the value as the line gives it, an object's from its '{': else the
     * typed path reads no call of them.) */
    if ((view.obj != NULL && (size == 0 || *text != '{')) ||
        memchr(text, '\\', (size_t)size) != NULL || has_long_run(text, size))
        goto done;
    section = read_slot(&TALLY_SECTION, tally);
    if (section == NULL) {
        answer = -1;
        goto done;
    }
    if (section != Py_None)
        answer = count_scored(scorer, id, made, made_size, text, text + size, &named, section);
done:
    Py_XDECREF(section);
    if (view.obj != NULL)
        PyBuffer_Release(&view);
    return answer;
}

static PyObject *
score_call(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "score_call(entries, scored, shapes, most_samples, "
                                         "first, write, source, id, name, arguments, model, "
                                         "tally, line_number)");
        return NULL;
    }
    Scorer scorer;
    if (read_scorer(args, args[12], &scorer,
                    "score_call: dict, dict, dict, int, _, _, bytes (with write), _, _, _, _, "
                    "_, int") < 0)
        return NULL;
    int answer = score_one(&scorer, args[7], args[8], args[9], args[10], args[11]);
    if (answer < 0)
        return NULL;
    return PyBool_FromLong(answer);
}

/* The closing quote of a string of valid JSON whose content starts at `p`: the first
 * quote after an even run of backslashes; NULL if there is none before `end`. (Whether
 * the string holds an escape is not looked for: read_id asks it of its keys and id.) */
static inline const char *
string_end(const char *p, const char *end)
{
    for (;;) {
        const char *quote = memchr(p, '"', (size_t)(end - p));
        if (quote == NULL)
            return NULL;
        const char *run = quote;
        while (run > p && run[-1] == '\\')
            run--;
        if ((quote - run) % 2 == 0) /* (an odd run escapes the quote) */
            return quote;
        p = quote + 1;
    }
}

/* The id a line of JSON (one object: a line the typed decode read) holds at its
 * top-level key [key, key + key_size), as LineIds.id_of reads it; NULL, with no error
 * set, where this cannot tell so surely (see id_at). Not a parser: the line is valid
 * JSON, so its top-level keys are the strings that follow its '{' or a ',' at depth 1,
 * each string ends at the first quote after an even run of backslashes (memchr), and
 * what lies past strings is brackets, commas, colons, space, numbers and words: only
 * the brackets are counted, only the id's value is read. */
static PyObject *
read_id(const char *text, Py_ssize_t size, const char *key, Py_ssize_t key_size)
{
    Cursor c = {text, text + size};
    Field id = {NULL, NULL, 0};
    Py_ssize_t depth = 0;
    /* (wants_key: the next string is a top-level key; is_id: the next value is the id.) */
    int wants_key = 0, is_id = 0;
    skip_space(&c);
    if (c.at >= c.end || *c.at != '{')
        return NULL;
    while (c.at < c.end) {
        switch (*c.at) {
        case '"': {
            const char *start = c.at + 1, *stop = string_end(start, c.end);
            if (stop == NULL)
                return NULL;
            c.at = stop + 1;
            if (wants_key) {
                wants_key = 0;
                if (memchr(start, '\\', (size_t)(stop - start)) != NULL)
                    return NULL; /* (it may spell the key) */
                if (stop - start == key_size && memcmp(start, key, (size_t)key_size) == 0) {
                    if (id.seen)
                        return NULL; /* (given twice) */
                    is_id = 1;
                }
            }
            else if (is_id) {
                if (memchr(start, '\\', (size_t)(stop - start)) != NULL)
                    return NULL;
                id = (Field){start - 1, c.at, 1};
                is_id = 0;
            }
            break;
        }
        case '{':
        case '[':
            if (is_id)
                return NULL; /* (an id of another type) */
            depth++;
            wants_key = depth == 1;
            c.at++;
            break;
        case '}':
        case ']':
            depth--;
            c.at++;
            if (depth == 0) {
                skip_space(&c);
                if (c.at != c.end || !id.seen)
                    return NULL;
                return id_of(&id);
            }
            break;
        case ',':
            wants_key = depth == 1;
            c.at++;
            break;
        case ':':
        case ' ':
        case '\t':
        case '\n':
        case '\r':
            c.at++;
            break;
        default: /* a number or a word: the id's, its token's bytes */
            if (is_id) {
                const char *start = c.at;
                while (c.at < c.end && !strchr(",}] \t\n\r:", *c.at))
                    c.at++;
                id = (Field){start, c.at, 1};
                is_id = 0;
            }
            else
                c.at++;
        }
    }
    return NULL;
}

/* id_at(line, key): the id a line of JSON (one object: a line the typed decode read)
 * holds at its top-level `key`, as LineIds.id_of reads it (a string as it is, an
 * integer's digits); None where it cannot tell so surely, and LineIds reads the line:
 * the key absent or given twice, a top-level key with an escape (it may spell `key`),
 * an id with one, an id of another type or "-0", a line read_id sees is not one
 * object. */
static PyObject *
id_at(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyBytes_Check(args[0]) || !PyUnicode_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "id_at(line: bytes, key: str)");
        return NULL;
    }
    Py_ssize_t key_size;
    const char *key = PyUnicode_AsUTF8AndSize(args[1], &key_size);
    if (key == NULL)
        return NULL;
    PyObject *text = read_id(PyBytes_AS_STRING(args[0]), PyBytes_GET_SIZE(args[0]), key, key_size);
    if (text == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return text;
}

/* Digits in a row from which orjson may read an integer as a float (past 64 bits): the
 * typed path leaves such a line to the general path, as
 * jsonutil.may_hold_long_integers tells it. */
#define LONG_INTEGER_RUN 19

/* CallKernel(key, entries, scored, shapes, most_samples, first, write, source): the
 * typed reader's scoring of a provider record's one call (truth.line_scores.CallKernel,
 * its twin, says what each method answers), score_call's arguments kept once. */
typedef struct {
    PyObject_HEAD
    PyObject *key; /* (the id's top-level key: a str) */
    PyObject *entries, *scored, *shapes, *first, *write, *source, *most_samples;
    const char *key_text; /* (NULL: a dotted path, read by Python) */
    Py_ssize_t key_size;
} CallKernel;

static PyObject *
call_kernel_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"key", "entries", "scored", "shapes", "most_samples",
                            "first", "write", "source", NULL};
    PyObject *key, *entries, *scored, *shapes, *most_samples, *first, *write, *source;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!O!O!O!OOO:CallKernel", names, &key,
                                     &PyDict_Type, &entries, &PyDict_Type, &scored,
                                     &PyDict_Type, &shapes, &PyLong_Type, &most_samples,
                                     &first, &write, &source))
        return NULL;
    if (write != Py_None && !PyBytes_Check(source)) {
        PyErr_SetString(PyExc_TypeError, "CallKernel: the source's JSON (bytes) with write");
        return NULL;
    }
    Py_ssize_t key_size;
    const char *key_text = PyUnicode_AsUTF8AndSize(key, &key_size);
    if (key_text == NULL)
        return NULL;
    CallKernel *self = (CallKernel *)type->tp_alloc(type, 0);
    if (self == NULL)
        return NULL;
    self->key = Py_NewRef(key);
    self->entries = Py_NewRef(entries);
    self->scored = Py_NewRef(scored);
    self->shapes = Py_NewRef(shapes);
    self->most_samples = Py_NewRef(most_samples);
    self->first = Py_NewRef(first);
    self->write = Py_NewRef(write);
    self->source = Py_NewRef(source);
    /* (The key's UTF-8, kept by the str it holds.) */
    self->key_text = memchr(key_text, '.', (size_t)key_size) == NULL ? key_text : NULL;
    self->key_size = key_size;
    return (PyObject *)self;
}

static int
call_kernel_traverse(CallKernel *self, visitproc visit, void *arg)
{
    Py_VISIT(self->key);
    Py_VISIT(self->entries);
    Py_VISIT(self->scored);
    Py_VISIT(self->shapes);
    Py_VISIT(self->most_samples);
    Py_VISIT(self->first);
    Py_VISIT(self->write);
    Py_VISIT(self->source);
    return 0;
}

static int
call_kernel_clear(CallKernel *self)
{
    Py_CLEAR(self->key);
    Py_CLEAR(self->entries);
    Py_CLEAR(self->scored);
    Py_CLEAR(self->shapes);
    Py_CLEAR(self->most_samples);
    Py_CLEAR(self->first);
    Py_CLEAR(self->write);
    Py_CLEAR(self->source);
    return 0;
}

static void
call_kernel_dealloc(CallKernel *self)
{
    PyObject_GC_UnTrack(self);
    call_kernel_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The one call of a typed decode's calls (a list of (id, name, arguments)), or NULL
 * with no error set when they are not one such tuple. */
static PyObject *
one_call(PyObject *calls)
{
    if (!PyList_CheckExact(calls) || PyList_GET_SIZE(calls) != 1)
        return NULL;
    PyObject *call = PyList_GET_ITEM(calls, 0);
    if (!PyTuple_CheckExact(call) || PyTuple_GET_SIZE(call) != 3)
        return NULL;
    return call;
}

/* id_of(line, calls): False where the line may hold an integer past 64 bits (the
 * general path's line, as before it is counted); the id at the key, read as id_at
 * reads it, where the calls are one whose arguments' text the kernel takes (a str, or
 * bytes from '{'), whether it has an entry or not (score looks it up); else None
 * (Scorer.typed_calls reads the line: a dotted path too). */
static PyObject *
call_kernel_id_of(CallKernel *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyBytes_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "id_of(line: bytes, calls)");
        return NULL;
    }
    const char *text = PyBytes_AS_STRING(args[0]);
    Py_ssize_t size = PyBytes_GET_SIZE(args[0]);
    if (has_digit_run((const unsigned char *)text, size, LONG_INTEGER_RUN, LONG_INTEGER_RUN))
        Py_RETURN_FALSE;
    PyObject *call = one_call(args[1]);
    if (call == NULL || self->key_text == NULL)
        Py_RETURN_NONE;
    PyObject *arguments = PyTuple_GET_ITEM(call, 2);
    if (!PyUnicode_CheckExact(arguments)) {
        Py_buffer view;
        if (PyObject_GetBuffer(arguments, &view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        int opens = view.len > 0 && *(const char *)view.buf == '{';
        PyBuffer_Release(&view);
        if (!opens)
            Py_RETURN_NONE;
    }
    PyObject *id = read_id(text, size, self->key_text, self->key_size);
    if (id == NULL && !PyErr_Occurred())
        Py_RETURN_NONE;
    return id;
}

/* score(id, calls, model, tally, line_number): score_call's answer for the one call of
 * `calls` (id_of has found it one). */
static PyObject *
call_kernel_score(CallKernel *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "score(id, calls, model, tally, line_number)");
        return NULL;
    }
    PyObject *call = one_call(args[1]);
    if (call == NULL)
        Py_RETURN_FALSE;
    Scorer scorer = {self->entries,
                     self->scored,
                     self->shapes,
                     self->first,
                     PyLong_AsSsize_t(self->most_samples),
                     self->write,
                     self->source,
                     PyLong_AsSsize_t(args[4])};
    if ((scorer.most_samples == -1 || scorer.line == -1) && PyErr_Occurred())
        return NULL;
    int answer = score_one(&scorer, args[0], PyTuple_GET_ITEM(call, 1), PyTuple_GET_ITEM(call, 2),
                           args[2], args[3]);
    if (answer < 0)
        return NULL;
    return PyBool_FromLong(answer);
}

static PyMethodDef call_kernel_methods[] = {
    {"id_of", (PyCFunction)(void (*)(void))call_kernel_id_of, METH_FASTCALL,
     "False: the line may hold an integer past 64 bits; the id of a call the kernel may "
     "score, where it has an entry; else None."},
    {"score", (PyCFunction)(void (*)(void))call_kernel_score, METH_FASTCALL,
     "The one call scored and counted by its entry's shape, when that is sure."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject CallKernelType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "toolaudit.truth._line_scores.CallKernel",
    .tp_basicsize = sizeof(CallKernel),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A provider record's one call scored in C, score_call's arguments kept.",
    .tp_new = call_kernel_new,
    .tp_dealloc = (destructor)call_kernel_dealloc,
    .tp_traverse = (traverseproc)call_kernel_traverse,
    .tp_clear = (inquiry)call_kernel_clear,
    .tp_methods = call_kernel_methods,
};

static PyMethodDef methods[] = {
    {"score_flat", (PyCFunction)(void (*)(void))score_flat, METH_FASTCALL,
     "A flat call's line scored and counted by its entry's shape, when that is sure."},
    {"id_at", (PyCFunction)(void (*)(void))id_at, METH_FASTCALL,
     "The id a line holds at a top-level key, where that is sure; else None."},
    {"score_call", (PyCFunction)(void (*)(void))score_call, METH_FASTCALL,
     "A record's one call (its id, name, arguments' text, model) scored and counted by "
     "its entry's shape, when that is sure."},
    {"_collide_shapes", collide_shapes, METH_O,
     "For tests: every shape key's hash the same in the ShapeTables made after (or not)."},
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
    SAMPLES = PyUnicode_InternFromString("samples");
    WAITING = PyUnicode_InternFromString("waiting");
    ONE = PyLong_FromLong(1);
    if (CALLS == NULL || LITERAL == NULL || NAME == NULL || CATEGORY == NULL ||
        GROUND_TRUTH == NULL || SAMPLES == NULL || WAITING == NULL || ONE == NULL ||
        PyType_Ready(&CallKernelType) < 0)
        return NULL;
    PyObject *created = PyModule_Create(&module);
    if (created == NULL)
        return NULL;
    if (PyModule_AddObjectRef(created, "CallKernel", (PyObject *)&CallKernelType) < 0 ||
        add_shape_table(created) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
