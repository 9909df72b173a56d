/* The expected file's lines walked in C: an optional speedup of
 * toolaudit.truth.expected._read_lines, whose pure twin is that module's loop over
 * data.splitlines() (tests/truth/test_expected_lines.py holds the two to the same
 * entries, problems and errors).
 *
 * read_lines(data, source, literal, any_arguments, accept_keys, marks, mask, entries,
 * unread_line_of, other, twice, decode_error, expected_type, call_type) walks data's lines as bytes.splitlines cuts
 * them (at \n, \r and \r\n), numbered from 1, and for each:
 *
 * - a blank line (nothing but ASCII whitespace, as bytes.strip strips it) is skipped;
 * - the commonest line, a native line of literal arguments, is read here: it nests
 *   no more than MAX_DEPTH brackets, is valid UTF-8 (as bytes.decode judges it), holds
 *   no number orjson may read apart (marks(line) & mask is 0: jsonutil's
 *   orjson_may_differ) and is decoded by `literal` (typed_lines' decoder of literal
 *   arguments), or else by `any_arguments` with every argument literal (as native.is_literal
 *   tells, here is_literal: no accept object, an object of only keys of accept_keys and
 *   "accept" or "compare" among them, where it looks: in objects, not in lists). Its Expected is made as typed_lines.typed_entry makes it (the same
 *   class, the same values in its slots, ExpectedCall's `literal` the decoded
 *   arguments), put in `entries` under its id; an id that `entries` or `unread_line_of`
 *   holds already is told to twice(id, number), which raises ExpectedError;
 * - any other line (deeper, not UTF-8, a number read exactly, refused by both decoders
 *   (decode_error or RecursionError), an accept object among its arguments) is handed whole to other(line, number), the
 *   reading's own step for one line, which reads it, or words its problem, exactly as
 *   the loop without this module would: in the order of the lines.
 *
 * Returns None; an error of `other`, `twice` or an unexpected one of `literal` is
 * raised as it is, the entries read so far left in `entries`.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include "_plain_slots.h"

#define MAX_DEPTH 64

/* The fields read of a decoded line and of its calls, by their place in the names
 * read_lines gives Fields. */
enum { LINE_ID, LINE_CALLS, LINE_ORDER, LINE_CATEGORY };
enum { CALL_NAME, CALL_ARGUMENTS };

static PyObject *ACCEPT, *COMPARE, *ID, *CALLS, *ORDER, *CATEGORY, *NAME, *ARGUMENTS, *LITERAL, *ARGUMENTS_SLOT,
    *SHAPE, *SOURCE, *LINE, *NATIVE, *ANY;

/* Where each slot of a made class is kept: its offset in the object, or -1 where it is
 * not a plain slot (then set by name). */
#define MOST_SLOTS 8

typedef struct {
    PyTypeObject *type;
    int count;
    PyObject **names;
    Py_ssize_t offsets[MOST_SLOTS];
} Slots;

/* The fields `names` of the structs a decoder makes (a line's, a call's), read at their
 * offsets for the (at most two: one a decoder) struct types met, learnt from their
 * member descriptors when first met; read by name where a field is not a plain slot. */
#define STRUCT_TYPES 2

typedef struct {
    int count;
    PyObject **names;
    int known;
    PyTypeObject *types[STRUCT_TYPES];
    Py_ssize_t offsets[STRUCT_TYPES][MOST_SLOTS];
} Fields;

typedef struct {
    Slots expected_slots, call_slots;
    Fields line_fields, call_fields;
    PyObject *source, *literal, *any_arguments, *accept_keys, *marks, *entries, *unread, *other,
        *twice, *decode_error;
    PyTypeObject *expected_type, *call_type;
    long mask;
} Reading;

/* Whether bytes.strip() would leave nothing of the line. */
static int
blank(const unsigned char *at, const unsigned char *end)
{
    for (; at < end; at++) {
        unsigned char c = *at;
        if (!(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\x0b' || c == '\x0c'))
            return 0;
    }
    return 1;
}

/* The offset of each of `names` in objects of `type` (plain_slot_offset's, for reading
 * or `writing`): -1 for a name read or set by name. 0, or -1 on an error. */
static int
plain_slots(PyTypeObject *type, PyObject **names, int count, int writing, Py_ssize_t *offsets)
{
    for (int i = 0; i < count; i++) {
        offsets[i] = plain_slot_offset(type, names[i], writing);
        if (offsets[i] == -2)
            return -1;
    }
    return 0;
}

/* The slots `names` of `type` found: each a plain slot kept by its offset, any other set
 * by name. 0, or -1 on an error. */
static int
find_slots(Slots *slots, PyTypeObject *type, PyObject **names, int count)
{
    slots->type = type;
    slots->count = count;
    slots->names = names;
    return plain_slots(type, names, count, 1, slots->offsets);
}

/* Field `index` of a decoded struct (a new reference), NULL on an error. */
static PyObject *
field(Fields *fields, PyObject *read, int index)
{
    PyTypeObject *type = Py_TYPE(read);
    int known = 0;
    while (known < fields->known && fields->types[known] != type)
        known++;
    if (known == fields->known && known < STRUCT_TYPES) {
        if (plain_slots(type, fields->names, fields->count, 0, fields->offsets[known]) < 0)
            return NULL;
        fields->types[known] = type;
        fields->known++;
    }
    if (known < fields->known) {
        Py_ssize_t offset = fields->offsets[known][index];
        PyObject *value = offset >= 0 ? *(PyObject **)((char *)read + offset) : NULL;
        if (value != NULL)
            return Py_NewRef(value);
    }
    return PyObject_GetAttr(read, fields->names[index]);  /* (an empty slot: its error) */
}

/* An object of a slotted class made without its __init__, each slot given its value
 * (a new object's slots are empty): NULL on an error. */
static PyObject *
slotted(Slots *slots, PyObject **values)
{
    PyTypeObject *type = slots->type;
    PyObject *made = type->tp_alloc(type, 0);
    if (made == NULL)
        return NULL;
    for (int i = 0; i < slots->count; i++) {
        Py_ssize_t offset = slots->offsets[i];
        if (offset >= 0)
            *(PyObject **)((char *)made + offset) = Py_NewRef(values[i]);
        else if (PyObject_SetAttr(made, slots->names[i], values[i]) < 0) {
            Py_DECREF(made);
            return NULL;
        }
    }
    return made;
}

/* The calls of a decoded line: None for "any", else a tuple of ExpectedCall made from
 * each call's name and literal arguments. NULL with *unsure set (no error) for a value
 * of another kind (the decoder allows none: left to `other` all the same). */
static PyObject *
expected_calls(Reading *r, PyObject *written, int *unsure)
{
    if (PyUnicode_Check(written)) {
        int any = PyUnicode_Compare(written, ANY);
        if (any == -1 && PyErr_Occurred())
            return NULL;
        if (any != 0) {
            *unsure = 1;
            return NULL;
        }
        Py_RETURN_NONE;
    }
    if (!PyList_Check(written)) {
        *unsure = 1;
        return NULL;
    }
    Py_ssize_t count = PyList_GET_SIZE(written);
    PyObject *calls = PyTuple_New(count);
    if (calls == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *call = PyList_GET_ITEM(written, i);
        PyObject *name = field(&r->call_fields, call, CALL_NAME);
        PyObject *arguments = name ? field(&r->call_fields, call, CALL_ARGUMENTS) : NULL;
        PyObject *made = NULL;
        if (arguments != NULL) {
            PyObject *values[] = {name, Py_None, arguments};
            made = slotted(&r->call_slots, values);
        }
        Py_XDECREF(name);
        Py_XDECREF(arguments);
        if (made == NULL) {
            Py_DECREF(calls);
            return NULL;
        }
        PyTuple_SET_ITEM(calls, i, made);
    }
    return calls;
}

/* native.is_literal: whether an argument is its own expected value (a scalar or a list,
 * or an object holding no accept object, looked for in objects, not in lists): 1, 0 or
 * -1 on an error. */
static int
literal_value(PyObject *value, PyObject *accept_keys)
{
    if (PyUnicode_CheckExact(value) || PyLong_CheckExact(value) || PyFloat_CheckExact(value) ||
        PyBool_Check(value) || value == Py_None || PyList_CheckExact(value))
        return 1;
    if (!PyDict_CheckExact(value))
        return 0;
    Py_ssize_t at = 0;
    PyObject *key, *item;
    if (PyDict_GET_SIZE(value) > 0) {  /* an accept object? */
        int only_accept_keys = 1;
        while (only_accept_keys == 1 && PyDict_Next(value, &at, &key, &item))
            only_accept_keys = PySet_Contains(accept_keys, key);
        if (only_accept_keys < 0)
            return -1;
        if (only_accept_keys) {
            int accept = PyDict_Contains(value, ACCEPT);
            int compare = accept == 0 ? PyDict_Contains(value, COMPARE) : 0;
            if (accept < 0 || compare < 0)
                return -1;
            if (accept || compare)
                return 0;
        }
    }
    if (Py_EnterRecursiveCall(" in is_literal"))
        return -1;
    int literal = 1;
    at = 0;
    while (literal == 1 && PyDict_Next(value, &at, &key, &item))
        literal = literal_value(item, accept_keys);
    Py_LeaveRecursiveCall();
    return literal;
}

/* Whether each argument of each call `any_arguments` decoded is literal: 1, 0 or -1 on
 * an error. */
static int
all_literal(Reading *r, PyObject *written)
{
    if (!PyList_Check(written))
        return 1; /* "any" */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(written); i++) {
        PyObject *arguments = field(&r->call_fields, PyList_GET_ITEM(written, i), CALL_ARGUMENTS);
        if (arguments == NULL)
            return -1;
        int literal = PyDict_Check(arguments) ? 1 : 0;
        Py_ssize_t at = 0;
        PyObject *key, *value;
        while (literal == 1 && PyDict_Next(arguments, &at, &key, &value))
            literal = literal_value(value, r->accept_keys);
        Py_DECREF(arguments);
        if (literal != 1)
            return literal;
    }
    return 1;
}

/* is_literal(value, accept_keys): literal_value, for the tests that hold it to
 * native.is_literal. */
static PyObject *
is_literal(PyObject *module, PyObject *args)
{
    PyObject *value, *accept_keys;
    if (!PyArg_ParseTuple(args, "OO!:is_literal", &value, &PyFrozenSet_Type, &accept_keys))
        return NULL;
    int literal = literal_value(value, accept_keys);
    if (literal < 0)
        return NULL;
    return PyBool_FromLong(literal);
}

/* The entry of a line `literal` decoded (`read`), put in `entries`: 1 done, 0 left to
 * `other` (nothing changed), -1 an error. */
static int
add_entry(Reading *r, PyObject *read, Py_ssize_t number)
{
    int unsure = 0, done = -1;
    PyObject *id = NULL, *written = NULL, *calls = NULL, *order = NULL, *category = NULL,
             *line = NULL, *entry = NULL;
    PyObject *read_id = field(&r->line_fields, read, LINE_ID);
    if (read_id == NULL)
        goto finally;
    /* (An integer id is kept as its digits; msgspec refuses true.) */
    id = PyUnicode_CheckExact(read_id) ? Py_NewRef(read_id) : PyObject_Str(read_id);
    Py_DECREF(read_id);
    if (id == NULL || (written = field(&r->line_fields, read, LINE_CALLS)) == NULL)
        goto finally;
    calls = expected_calls(r, written, &unsure);
    if (calls == NULL) {
        done = unsure ? 0 : -1;
        goto finally;
    }
    if ((order = field(&r->line_fields, read, LINE_ORDER)) == NULL ||
        (category = field(&r->line_fields, read, LINE_CATEGORY)) == NULL ||
        (line = PyLong_FromSsize_t(number)) == NULL)
        goto finally;
    PyObject *values[] = {id, calls, order, category, NATIVE, r->source, line};
    entry = slotted(&r->expected_slots, values);
    if (entry == NULL)
        goto finally;
    int known = PyDict_Contains(r->entries, id);
    if (known == 0)
        known = PyDict_Contains(r->unread, id);
    if (known < 0)
        goto finally;
    if (known) {
        PyObject *told = PyObject_CallFunction(r->twice, "On", id, number);
        Py_XDECREF(told);
        if (told != NULL)
            PyErr_SetString(PyExc_RuntimeError, "twice() returned: it raises");
        goto finally;
    }
    if (PyDict_SetItem(r->entries, id, entry) < 0)
        goto finally;
    done = 1;
finally:
    Py_XDECREF(id);
    Py_XDECREF(written);
    Py_XDECREF(calls);
    Py_XDECREF(order);
    Py_XDECREF(category);
    Py_XDECREF(line);
    Py_XDECREF(entry);
    return done;
}

/* Whether `literal` may read the line (the tests typed_entry makes before decoding): 1,
 * 0 or -1 on an error. */
static int
readable(Reading *r, const unsigned char *at, const unsigned char *end, PyObject *line)
{
    /* (Brackets counted by memchr, a few a line; the bytes' high bits eight at once.) */
    Py_ssize_t brackets = 0;
    for (const unsigned char *c = at; (c = memchr(c, '{', end - c)) != NULL; c++)
        brackets++;
    for (const unsigned char *c = at; (c = memchr(c, '[', end - c)) != NULL; c++)
        brackets++;
    uint64_t high = 0;
    const unsigned char *c = at;
    for (; end - c >= 8; c += 8) {
        uint64_t word;
        memcpy(&word, c, 8);
        high |= word;
    }
    for (; c < end; c++)
        high |= *c;
    int ascii = (high & 0x8080808080808080ULL) == 0;
    if (brackets > MAX_DEPTH)
        return 0;  /* perhaps deeper than the reading's limit: the reading tells */
    if (!ascii) {
        PyObject *text = PyUnicode_DecodeUTF8((const char *)at, end - at, "strict");
        if (text == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_UnicodeDecodeError))
                return -1;
            PyErr_Clear();
            return 0;  /* msgspec does not check the UTF-8 of what it skips */
        }
        Py_DECREF(text);
    }
    PyObject *marks = PyObject_CallOneArg(r->marks, line);
    if (marks == NULL)
        return -1;
    long found = PyLong_AsLong(marks);
    Py_DECREF(marks);
    if (found == -1 && PyErr_Occurred())
        return -1;
    return (found & r->mask) == 0;
}

/* The line decoded by `decode`: NULL with *refused set (no error) where it refuses it
 * (decode_error or RecursionError). */
static PyObject *
decoded(Reading *r, PyObject *decode, PyObject *line, int *refused)
{
    PyObject *read = PyObject_CallOneArg(decode, line);
    if (read == NULL && (PyErr_ExceptionMatches(r->decode_error) ||
                         PyErr_ExceptionMatches(PyExc_RecursionError))) {
        PyErr_Clear();
        *refused = 1;
    }
    return read;
}

/* One non-blank line: read here, or handed to `other`. 0, or -1 on an error. */
static int
read_line(Reading *r, const unsigned char *at, const unsigned char *end, Py_ssize_t number)
{
    PyObject *line = PyBytes_FromStringAndSize((const char *)at, end - at);
    if (line == NULL)
        return -1;
    int done = readable(r, at, end, line);
    if (done == 1) {
        /* As typed_entry: the decoder of literal arguments first (most lines), then that
         * of any arguments, its lines kept where every argument is literal. */
        int refused = 0;
        PyObject *read = decoded(r, r->literal, line, &refused);
        if (refused) {
            refused = 0;
            read = decoded(r, r->any_arguments, line, &refused);
            if (read != NULL) {
                PyObject *written = field(&r->line_fields, read, LINE_CALLS);
                int literal = written == NULL ? -1 : all_literal(r, written);
                Py_XDECREF(written);
                if (literal != 1)
                    Py_CLEAR(read);  /* accept objects to read and check: the reading's */
                refused = literal == 0;
            }
        }
        if (read != NULL) {
            done = add_entry(r, read, number);
            Py_DECREF(read);
        }
        else
            done = refused ? 0 : -1;  /* another shape, not JSON: the reading's */
    }
    if (done == 0) {
        PyObject *told = PyObject_CallFunction(r->other, "On", line, number);
        Py_XDECREF(told);
        done = told == NULL ? -1 : 1;
    }
    Py_DECREF(line);
    return done < 0 ? -1 : 0;
}

/* The first `byte` in [at, end), or end. */
static const unsigned char *
next_byte(const unsigned char *at, const unsigned char *end, int byte)
{
    const unsigned char *found = memchr(at, byte, end - at);
    return found != NULL ? found : end;
}

static PyObject *
read_lines(PyObject *module, PyObject *args)
{
    Py_buffer data;
    Reading r;
    if (!PyArg_ParseTuple(args, "y*OOOO!OlO!O!OOOO!O!:read_lines", &data, &r.source,
                          &r.literal, &r.any_arguments, &PyFrozenSet_Type, &r.accept_keys, &r.marks, &r.mask, &PyDict_Type, &r.entries, &PyDict_Type, &r.unread,
                          &r.other, &r.twice, &r.decode_error, &PyType_Type, &r.expected_type,
                          &PyType_Type, &r.call_type))
        return NULL;
    PyObject *expected_names[] = {ID, CALLS, ORDER, CATEGORY, SHAPE, SOURCE, LINE};
    PyObject *call_names[] = {NAME, ARGUMENTS_SLOT, LITERAL};
    PyObject *line_field_names[] = {ID, CALLS, ORDER, CATEGORY};
    PyObject *call_field_names[] = {NAME, ARGUMENTS};
    r.line_fields = (Fields){.count = 4, .names = line_field_names};
    r.call_fields = (Fields){.count = 2, .names = call_field_names};
    if (find_slots(&r.expected_slots, r.expected_type, expected_names, 7) < 0 ||
        find_slots(&r.call_slots, r.call_type, call_names, 3) < 0) {
        PyBuffer_Release(&data);
        return NULL;
    }
    const unsigned char *at = data.buf, *end = at + data.len;
    Py_ssize_t number = 0;
    int failed = 0;
    /* The next \n and \r at or after `at` (end for none): each byte looked at once. */
    const unsigned char *newline = NULL, *carriage_return = NULL;
    while (at < end && !failed) {
        if (newline == NULL || newline < at)
            newline = next_byte(at, end, '\n');
        if (carriage_return == NULL || carriage_return < at)
            carriage_return = next_byte(at, end, '\r');
        const unsigned char *stop = newline < carriage_return ? newline : carriage_return;
        number++;
        if (!blank(at, stop))
            failed = read_line(&r, at, stop, number) < 0;
        at = stop;
        if (at < end)
            at += (*at == '\r' && at + 1 < end && at[1] == '\n') ? 2 : 1;
    }
    PyBuffer_Release(&data);
    if (failed)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"read_lines", read_lines, METH_VARARGS,
     "Walk an expected file's lines: the commonest read here, any other handed to other()."},
    {"is_literal", is_literal, METH_VARARGS,
     "Whether an argument is its own expected value (native.is_literal's twin)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_expected_lines",
    "The expected file's commonest lines read in C (twin: truth.expected's loop).", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__expected_lines(void)
{
    struct {
        PyObject **name;
        const char *text;
    } names[] = {
        {&ID, "id"}, {&CALLS, "calls"}, {&ORDER, "order"}, {&CATEGORY, "category"},
        {&NAME, "name"}, {&ARGUMENTS, "arguments"}, {&LITERAL, "literal"},
        {&ARGUMENTS_SLOT, "_arguments"}, {&SHAPE, "shape"}, {&SOURCE, "source"},
        {&LINE, "line"}, {&NATIVE, "native"}, {&ANY, "any"}, {&ACCEPT, "accept"},
        {&COMPARE, "compare"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if ((*names[i].name = PyUnicode_InternFromString(names[i].text)) == NULL)
            return NULL;
    }
    return PyModule_Create(&module);
}
