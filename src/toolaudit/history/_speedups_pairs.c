/* The conversation check of a request/response pair's request, in C: PairHistories, part
 * of the _speedups extension (its module is in _speedups.c).
 *
 * PairHistories(twin_check, twin_parsed, tools_shape, finish, unread, refused, no_name,
 * unset, shapes, prefixes).check(request, line[, worded, tables, model]) answers exactly what
 * twin_check (toolaudit.pipeline.typed_histories.PythonHistories.check, its pure-Python
 * twin) answers, for the commonest requests without a Python frame: RequestHistories.told
 * (the request's shape told by its tools, kept from the line before where they are the
 * same text, or by one field: Gemini's contents, Responses' input, Bedrock's toolConfig
 * or modelId) and checked_from_text (the shape's text reader, read_json_history, called
 * here; its answer finished as there). Everything else is the twin's:
 *   - a request whose tools tell no shape, or none of the above: twin_check(...) whole;
 *   - a history the reader is not sure of: twin_parsed(request, line), the rest of the
 *     twin's check after checked_from_text answered None;
 *   - a history whose calls left unanswered are worded: finish(shape, where, path,
 *     messages, (left, results)) (fast_loop.plainly_checked), as checked_from_text does;
 *   - tools not read before: tools_shape(bytes) (RequestHistories.tools_shape), its
 *     `refused` (orjson.JSONDecodeError) answered `unread`, as the twin's check answers it.
 * `shapes` are (shape, path, where) for each JsonShape, in its order; `prefixes` the text
 * readers' history_prefixes() (or None), given to them as the twin gives it. A request's fields
 * are read from their slots where its class keeps them plainly (msgspec's structs), else
 * by name. tests/pipeline/test_pair_histories.py holds it to the twin.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "../truth/_plain_slots.h"
#include "_speedups_json.h"

/* The request's fields read, by their slot. */
enum { F_TOOLS, F_CONTENTS, F_MESSAGES, F_INPUT, F_TOOL_CONFIG, F_MODEL_ID, FIELD_COUNT };
static const char *field_texts[FIELD_COUNT] = {"tools",  "contents",   "messages",
                                               "input",  "toolConfig", "modelId"};
static PyObject *field_keys[FIELD_COUNT];

typedef struct {
    PyObject_HEAD
    PyObject *twin_check, *twin_parsed, *tools_shape, *finish;
    PyObject *unread, *refused, *no_name, *unset;
    PyObject *prefixes; /* the text readers' history_prefixes(), or None */
    PyObject *shape_names[JSON_SHAPES], *paths[JSON_SHAPES], *wheres[JSON_SHAPES];
    /* The last request's tools (a copy of their text) and the shape they told: -1 none
       (the twin decides). */
    PyObject *last_tools;
    int last_shape;
    /* The request class last seen and where it keeps each field (-1: read by name). */
    PyTypeObject *request_type;
    Py_ssize_t offsets[FIELD_COUNT];
} PairHistories;

/* A field of the request, a new reference; NULL on an error (a slot left empty: an
   AttributeError, as getattr raises). */
static PyObject *
field_of(PairHistories *self, PyObject *request, int field)
{
    Py_ssize_t offset = self->offsets[field];
    if (offset < 0)
        return PyObject_GetAttr(request, field_keys[field]);
    PyObject *value = *(PyObject **)((char *)request + offset);
    if (value == NULL)
        return PyObject_GetAttr(request, field_keys[field]);
    return Py_NewRef(value);
}

/* Where the request's class keeps its fields, found once a class: 0, -1 an error. */
static int
know_request_type(PairHistories *self, PyTypeObject *type)
{
    for (int k = 0; k < FIELD_COUNT; k++) {
        Py_ssize_t offset = plain_slot_offset(type, field_keys[k], 0);
        if (offset == -2)
            return -1;
        self->offsets[k] = offset;
    }
    Py_XSETREF(self->request_type, (PyTypeObject *)Py_NewRef(type));
    return 0;
}

/* The shape a shape's name is among the text readers', -1 none. */
static int
json_shape(PairHistories *self, PyObject *name)
{
    for (int k = 0; k < JSON_SHAPES; k++)
        if (name == self->shape_names[k])
            return k;
    if (!PyUnicode_Check(name))
        return -1;
    for (int k = 0; k < JSON_SHAPES; k++) {
        int same = PyUnicode_Compare(name, self->shape_names[k]);
        if (same == 0)
            return k;
        if (same == -1 && PyErr_Occurred())
            PyErr_Clear();
    }
    return -1;
}

/* Whether `tools` (a buffer) is the text of the last request's tools: 1, 0, -1 an error. */
static int
same_tools(PairHistories *self, PyObject *tools)
{
    if (self->last_tools == NULL)
        return 0;
    Py_buffer view;
    if (PyObject_GetBuffer(tools, &view, PyBUF_SIMPLE) < 0)
        return -1;
    int same = view.len == PyBytes_GET_SIZE(self->last_tools) &&
               memcmp(view.buf, PyBytes_AS_STRING(self->last_tools), view.len) == 0;
    PyBuffer_Release(&view);
    return same;
}

/* The shape the request's tools tell, as RequestHistories.told finds it (kept from the
   last request where they are the same text): a JsonShape, -1 none of them (the twin
   decides), -2 their text refused (the twin's check answers UNREAD), -3 an error. */
static int
tools_told(PairHistories *self, PyObject *tools)
{
    int same = same_tools(self, tools);
    if (same < 0)
        return -3;
    if (same)
        return self->last_shape;
    PyObject *text = PyBytes_FromObject(tools);
    if (text == NULL)
        return -3;
    PyObject *shape = PyObject_CallOneArg(self->tools_shape, text);
    if (shape == NULL) {
        Py_DECREF(text);
        if (!PyErr_ExceptionMatches(self->refused))
            return -3;
        PyErr_Clear();
        return -2;
    }
    int told = shape == Py_None ? -1 : json_shape(self, shape);
    Py_DECREF(shape);
    Py_XSETREF(self->last_tools, text);
    self->last_shape = told;
    return told;
}

/* The twin's whole check. */
static PyObject *
twin(PairHistories *self, PyObject *const *args, Py_ssize_t nargs)
{
    return PyObject_Vectorcall(self->twin_check, args, nargs, NULL);
}

/* What checked_from_text makes of the reader's answer `found` (stolen), None where the
   twin must read the history parsed. */
static PyObject *
finished(PairHistories *self, int shape, PyObject *found, PyObject *worded)
{
    if (found == NULL || found == Py_None || found == Py_True)
        return found;
    if (!PyTuple_Check(found) || PyTuple_GET_SIZE(found) != 3 ||
        !PyList_Check(PyTuple_GET_ITEM(found, 0))) {
        Py_DECREF(found);
        PyErr_SetString(PyExc_SystemError, "a text reader's answer unlike its own");
        return NULL;
    }
    PyObject *left = PyTuple_GET_ITEM(found, 0), *results = PyTuple_GET_ITEM(found, 1);
    PyObject *answer = NULL;
    if (PyList_GET_SIZE(left) == 0) {
        answer = Py_NewRef(results);
    } else {
        int loud = worded == NULL ? 1 : PyObject_IsTrue(worded);
        if (loud == 0) {
            answer = PyTuple_Pack(2, left, results);
        } else if (loud > 0) {
            PyObject *pair = PyTuple_Pack(2, left, results);
            if (pair != NULL) {
                PyObject *call[5] = {self->shape_names[shape], self->wheres[shape],
                                     self->paths[shape], PyTuple_GET_ITEM(found, 2), pair};
                answer = PyObject_Vectorcall(self->finish, call, 5, NULL);
                Py_DECREF(pair);
            }
        }
    }
    Py_DECREF(found);
    return answer;
}

static PyObject *
check(PairHistories *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (kwnames != NULL || nargs < 2 || nargs > 5)
        return PyObject_Vectorcall(self->twin_check, args, nargs, kwnames);
    PyObject *request = args[0];
    if (Py_TYPE(request) != self->request_type && know_request_type(self, Py_TYPE(request)) < 0)
        return NULL;
    PyObject *fields[FIELD_COUNT] = {NULL};
    PyObject *answer = NULL;
    int shape = -1, field = F_MESSAGES;
    PyObject *unset = self->unset;
    if ((fields[F_CONTENTS] = field_of(self, request, F_CONTENTS)) == NULL ||
        (fields[F_MESSAGES] = field_of(self, request, F_MESSAGES)) == NULL ||
        (fields[F_TOOLS] = field_of(self, request, F_TOOLS)) == NULL)
        goto done;
    if (fields[F_CONTENTS] == unset && fields[F_MESSAGES] != unset && fields[F_TOOLS] != unset) {
        /* The commonest request: messages and tools, which tell its API first. */
        shape = tools_told(self, fields[F_TOOLS]);
        if (shape == -3)
            goto done;
        if (shape == -2) {
            answer = Py_NewRef(self->unread);
            goto done;
        }
    } else if (fields[F_CONTENTS] != unset) {
        shape = JSON_GEMINI, field = F_CONTENTS;
    } else if (fields[F_MESSAGES] == unset) {
        if ((fields[F_INPUT] = field_of(self, request, F_INPUT)) == NULL)
            goto done;
        if (fields[F_INPUT] != unset)
            shape = JSON_RESPONSES, field = F_INPUT;
    } else if (fields[F_TOOLS] == unset) {
        if ((fields[F_TOOL_CONFIG] = field_of(self, request, F_TOOL_CONFIG)) == NULL ||
            (fields[F_MODEL_ID] = field_of(self, request, F_MODEL_ID)) == NULL)
            goto done;
        if (fields[F_TOOL_CONFIG] != unset || fields[F_MODEL_ID] != unset)
            shape = JSON_BEDROCK;
    }
    if (shape < 0) { /* its shape told otherwise, or not at all: the twin's */
        answer = twin(self, args, nargs);
        goto done;
    }
    PyObject *tables = nargs >= 4 ? args[3] : Py_None;
    PyObject *model = nargs >= 5 ? args[4] : Py_None;
    /* What checked_from_text gives the reader. */
    PyObject *read[5] = {fields[field], self->no_name, tables, model, self->prefixes};
    PyObject *found = read_json_history(shape, read, 5);
    answer = finished(self, shape, found, nargs >= 3 ? args[2] : NULL);
    if (answer == Py_None) {
        Py_DECREF(answer);
        answer = PyObject_Vectorcall(self->twin_parsed, args, 2, NULL);
    }
done:
    for (int k = 0; k < FIELD_COUNT; k++)
        Py_XDECREF(fields[k]);
    return answer;
}

static int
init(PairHistories *self, PyObject *args, PyObject *kwargs)
{
    PyObject *shapes;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "PairHistories takes no keywords");
        return -1;
    }
    PyObject *objects[9];
    if (!PyArg_ParseTuple(args, "OOOOOOUOO!O:PairHistories", &objects[0], &objects[1],
                          &objects[2], &objects[3], &objects[4], &objects[5], &objects[6],
                          &objects[7], &PyTuple_Type, &shapes, &objects[8]))
        return -1;
    if (PyTuple_GET_SIZE(shapes) != JSON_SHAPES) {
        PyErr_SetString(PyExc_TypeError, "shapes: a (shape, path, where) for each text reader");
        return -1;
    }
    for (int k = 0; k < JSON_SHAPES; k++) {
        PyObject *told = PyTuple_GET_ITEM(shapes, k);
        if (!PyTuple_Check(told) || PyTuple_GET_SIZE(told) != 3 ||
            !PyUnicode_Check(PyTuple_GET_ITEM(told, 0))) {
            PyErr_SetString(PyExc_TypeError, "shapes: a (shape, path, where) for each text reader");
            return -1;
        }
        Py_XSETREF(self->shape_names[k], Py_NewRef(PyTuple_GET_ITEM(told, 0)));
        Py_XSETREF(self->paths[k], Py_NewRef(PyTuple_GET_ITEM(told, 1)));
        Py_XSETREF(self->wheres[k], Py_NewRef(PyTuple_GET_ITEM(told, 2)));
    }
    PyObject **slots[9] = {&self->twin_check, &self->twin_parsed, &self->tools_shape,
                           &self->finish,     &self->unread,      &self->refused,
                           &self->no_name,    &self->unset,       &self->prefixes};
    for (int k = 0; k < 9; k++)
        Py_XSETREF(*slots[k], Py_NewRef(objects[k]));
    Py_CLEAR(self->last_tools);
    self->last_shape = -1;
    Py_CLEAR(self->request_type);
    return 0;
}

static int
traverse(PairHistories *self, visitproc visit, void *arg)
{
    Py_VISIT(self->twin_check);
    Py_VISIT(self->twin_parsed);
    Py_VISIT(self->tools_shape);
    Py_VISIT(self->finish);
    Py_VISIT(self->unread);
    Py_VISIT(self->refused);
    Py_VISIT(self->unset);
    Py_VISIT(self->prefixes);
    Py_VISIT(self->request_type);
    return 0;
}

static int
clear(PairHistories *self)
{
    Py_CLEAR(self->twin_check);
    Py_CLEAR(self->twin_parsed);
    Py_CLEAR(self->tools_shape);
    Py_CLEAR(self->finish);
    Py_CLEAR(self->unread);
    Py_CLEAR(self->refused);
    Py_CLEAR(self->no_name);
    Py_CLEAR(self->unset);
    Py_CLEAR(self->prefixes);
    for (int k = 0; k < JSON_SHAPES; k++) {
        Py_CLEAR(self->shape_names[k]);
        Py_CLEAR(self->paths[k]);
        Py_CLEAR(self->wheres[k]);
    }
    Py_CLEAR(self->last_tools);
    Py_CLEAR(self->request_type);
    return 0;
}

static void
dealloc(PairHistories *self)
{
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef pair_methods[] = {
    {"check", (PyCFunction)(void (*)(void))check, METH_FASTCALL | METH_KEYWORDS,
     "(request, line[, worded, tables, model]): what the twin's check answers."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PairHistoriesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "toolaudit.history._speedups.PairHistories",
    .tp_basicsize = sizeof(PairHistories),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The conversation check of a pair's request, the commonest in C (see "
              "toolaudit.pipeline.typed_histories).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)init,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = pair_methods,
};

int
add_pair_histories(PyObject *module)
{
    for (int k = 0; k < FIELD_COUNT; k++)
        if (field_keys[k] == NULL &&
            (field_keys[k] = PyUnicode_InternFromString(field_texts[k])) == NULL)
            return -1;
    if (PyType_Ready(&PairHistoriesType) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "PairHistories", (PyObject *)&PairHistoriesType);
}
