/* Deep mode's commonest question in C: does a value pass, with nothing to record? An
 * optional speedup of toolaudit.deep.node_checks.
 *
 * Most values of a failing call are valid. Their nodes are described by specs made once in
 * Python from the compiled node graph (deep/leaf_specs.py), tagged tuples:
 *     (LEAF, tests by exact type, enums)     a type, enums and constraints, nothing inside
 *     (ANY, branches)                        an anyOf or oneOf: one branch passing is enough
 *     (OBJECT, count tests, left, shapes)    a dict's keys, each shape one node's
 *                                            (declared specs, required, closed, additional)
 *     (ARRAY, count tests, items)            a list, each element passing `items`
 * where `tests by exact type` maps each exact Python type a value may have to the tuple of
 * its tests, (code, limit) pairs, or to None when some test of that type's kind cannot be
 * run here; `enums` is a tuple of frozensets of str, each an enum or const every value
 * must be in (a leaf with enums takes only exact str values); `left` the names left to
 * allOf branches; a spec of None is a node only Python checks.
 *
 * passes(spec, value) says 1 only when the node's Python check would record nothing for
 * the value. Any other answer (0) is "ask Python": a type not in the map (a subclass, a
 * mapping that is no dict), a spec or test of None, a non-ASCII string under a pattern, a
 * test that fails or raises. So C never records an error itself: each value it cannot
 * pass goes to the Python check, which records exactly what it records without the
 * speedups.
 *
 * object_keys(value, fast, slow, walk, base, closed) runs the loop of an object check over
 * the keys of the dict `value` in their order: a key of exact type str whose spec is in
 * `fast` and passes is done; every other key goes to slow(walk, key, child, base, closed),
 * the loop body of the Python check. array_items(value, spec, slow, walk, base) is the same
 * for the elements of a list with one spec: slow(walk, index, element, base) for each
 * element the spec does not pass.
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the Python checks run alone (tests/deep hold both to
 * the same errors).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The codes of deep/leaf_specs.py. */
enum {
    AT_LEAST = 0,   /* value >= limit */
    AT_MOST = 1,    /* value <= limit */
    ABOVE = 2,      /* value > limit */
    BELOW = 3,      /* value < limit */
    LEN_AT_LEAST = 4, /* len(value) >= limit, limit a C ssize */
    LEN_AT_MOST = 5,  /* len(value) <= limit */
    SEARCH = 6,     /* limit(value) is not None, for an ASCII str */
};

static const int COMPARISON[] = {Py_GE, Py_LE, Py_GT, Py_LT};

/* The tags of deep/leaf_specs.py. */
enum { LEAF = 0, ANY = 1, OBJECT = 2, ARRAY = 3 };

static int spec_passes(PyObject *spec, PyObject *value);

/* 1: the test passes; 0: ask Python. */
static int
test_passes(long code, PyObject *limit, PyObject *value)
{
    if (code <= BELOW) {
        int within = PyObject_RichCompareBool(value, limit, COMPARISON[code]);
        if (within < 0) {
            PyErr_Clear();
            return 0;
        }
        return within;
    }
    if (code <= LEN_AT_MOST) {
        Py_ssize_t length = PyObject_Length(value);
        if (length < 0) {
            PyErr_Clear();
            return 0;
        }
        Py_ssize_t bound = PyLong_AsSsize_t(limit);
        if (bound == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        return code == LEN_AT_LEAST ? length >= bound : length <= bound;
    }
    if (code == SEARCH) {
        if (!PyUnicode_CheckExact(value) || !PyUnicode_IS_ASCII(value))
            return 0;
        PyObject *found = PyObject_CallOneArg(limit, value);
        if (found == NULL) {
            PyErr_Clear();
            return 0;
        }
        int passes = found != Py_None;
        Py_DECREF(found);
        return passes;
    }
    return 0;
}

/* 1: every (code, limit) test of `tests` passes; 0: ask Python. */
static int
tests_pass(PyObject *tests, PyObject *value)
{
    if (!PyTuple_CheckExact(tests))
        return 0; /* None: a test of this kind that only Python runs */
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tests); i++) {
        PyObject *test = PyTuple_GET_ITEM(tests, i);
        if (!PyTuple_CheckExact(test) || PyTuple_GET_SIZE(test) != 2)
            return 0;
        long code = PyLong_AsLong(PyTuple_GET_ITEM(test, 0));
        if (code == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (!test_passes(code, PyTuple_GET_ITEM(test, 1), value))
            return 0;
    }
    return 1;
}

/* (LEAF, tests by exact type, enums). */
static int
leaf_passes(PyObject *spec, PyObject *value)
{
    if (PyTuple_GET_SIZE(spec) != 3)
        return 0;
    PyObject *by_type = PyTuple_GET_ITEM(spec, 1);
    PyObject *enums = PyTuple_GET_ITEM(spec, 2);
    if (!PyDict_CheckExact(by_type) || !PyTuple_CheckExact(enums))
        return 0;
    PyObject *tests = PyDict_GetItemWithError(by_type, (PyObject *)Py_TYPE(value));
    if (tests == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t n_enums = PyTuple_GET_SIZE(enums);
    if (n_enums) {
        if (!PyUnicode_CheckExact(value))
            return 0;
        for (Py_ssize_t i = 0; i < n_enums; i++) {
            int in = PySet_Contains(PyTuple_GET_ITEM(enums, i), value);
            if (in <= 0) {
                PyErr_Clear();
                return 0;
            }
        }
    }
    return tests_pass(tests, value);
}

/* (ANY, branches): one branch passing is enough (a branch of None never passes here). */
static int
any_passes(PyObject *spec, PyObject *value)
{
    if (PyTuple_GET_SIZE(spec) != 2 || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 1)))
        return 0;
    PyObject *branches = PyTuple_GET_ITEM(spec, 1);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(branches); i++)
        if (spec_passes(PyTuple_GET_ITEM(branches, i), value))
            return 1;
    return 0;
}

/* One node's shape of an object: (declared specs, required, closed, additional), where
   additional is True for no check of undeclared keys, else their spec. */
static int
shape_passes(PyObject *shape, PyObject *left, PyObject *value)
{
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 4)
        return 0;
    PyObject *declared = PyTuple_GET_ITEM(shape, 0);
    PyObject *required = PyTuple_GET_ITEM(shape, 1);
    int closed = PyTuple_GET_ITEM(shape, 2) == Py_True;
    PyObject *additional = PyTuple_GET_ITEM(shape, 3);
    if (!PyDict_CheckExact(declared) || !PyTuple_CheckExact(required)
        || !PyFrozenSet_CheckExact(left))
        return 0;
    PyObject *key, *child;
    Py_ssize_t position = 0;
    while (PyDict_Next(value, &position, &key, &child)) {
        if (!PyUnicode_CheckExact(key))
            return 0;
        PyObject *spec = PyDict_GetItemWithError(declared, key);
        if (spec != NULL) {
            if (!spec_passes(spec, child))
                return 0;
            continue;
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        int in_left = PySet_Contains(left, key);
        if (in_left < 0) {
            PyErr_Clear();
            return 0;
        }
        if (in_left)
            continue;
        if (closed)
            return 0;
        if (additional != Py_True && !spec_passes(additional, child))
            return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(required); i++) {
        int in = PyDict_Contains(value, PyTuple_GET_ITEM(required, i));
        if (in <= 0) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* (OBJECT, count tests, left, shapes), for a dict. */
static int
object_passes(PyObject *spec, PyObject *value)
{
    if (!PyDict_CheckExact(value) || PyTuple_GET_SIZE(spec) != 4)
        return 0;
    if (!tests_pass(PyTuple_GET_ITEM(spec, 1), value))
        return 0;
    PyObject *left = PyTuple_GET_ITEM(spec, 2);
    PyObject *shapes = PyTuple_GET_ITEM(spec, 3);
    if (!PyTuple_CheckExact(shapes))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++)
        if (!shape_passes(PyTuple_GET_ITEM(shapes, i), left, value))
            return 0;
    return 1;
}

/* (ARRAY, count tests, items), for a list; items True for no check of the elements. */
static int
array_passes(PyObject *spec, PyObject *value)
{
    if (!PyList_CheckExact(value) || PyTuple_GET_SIZE(spec) != 3)
        return 0;
    if (!tests_pass(PyTuple_GET_ITEM(spec, 1), value))
        return 0;
    PyObject *items = PyTuple_GET_ITEM(spec, 2);
    if (items == Py_True)
        return 1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++)
        if (!spec_passes(items, PyList_GET_ITEM(value, i)))
            return 0;
    return 1;
}

/* 1: the node's check records nothing for the value; 0: ask Python. */
static int
spec_passes(PyObject *spec, PyObject *value)
{
    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) < 2)
        return 0; /* None: a node only Python checks */
    long tag = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (tag == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (Py_EnterRecursiveCall(" in a deep-mode spec")) {
        PyErr_Clear();
        return 0;
    }
    int passed;
    switch (tag) {
    case LEAF:
        passed = leaf_passes(spec, value);
        break;
    case ANY:
        passed = any_passes(spec, value);
        break;
    case OBJECT:
        passed = object_passes(spec, value);
        break;
    case ARRAY:
        passed = array_passes(spec, value);
        break;
    default:
        passed = 0;
    }
    Py_LeaveRecursiveCall();
    return passed;
}

static PyObject *
passes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "passes(spec, value)");
        return NULL;
    }
    return PyBool_FromLong(spec_passes(args[0], args[1]));
}

static PyObject *
object_keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "object_keys(dict, dict, slow, walk, base, closed)");
        return NULL;
    }
    PyObject *value = args[0], *fast = args[1], *slow = args[2];
    PyObject *key, *child;
    Py_ssize_t position = 0;
    /* The Python checks read the dict and never change it; the reference held on it keeps
       it alive, and a change made by a key's own code anyway is caught by PyDict_Next's
       caller as a size change below. */
    Py_INCREF(value);
    Py_ssize_t size = PyDict_GET_SIZE(value);
    while (PyDict_Next(value, &position, &key, &child)) {
        if (PyUnicode_CheckExact(key)) {
            PyObject *spec = PyDict_GetItemWithError(fast, key);
            if (spec == NULL && PyErr_Occurred()) {
                Py_DECREF(value);
                return NULL;
            }
            if (spec != NULL && spec_passes(spec, child))
                continue;
        }
        Py_INCREF(key);
        Py_INCREF(child);
        PyObject *call[5] = {args[3], key, child, args[4], args[5]};
        PyObject *done = PyObject_Vectorcall(slow, call, 5, NULL);
        Py_DECREF(key);
        Py_DECREF(child);
        if (done == NULL) {
            Py_DECREF(value);
            return NULL;
        }
        Py_DECREF(done);
        if (PyDict_GET_SIZE(value) != size) {
            Py_DECREF(value);
            PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
            return NULL;
        }
    }
    Py_DECREF(value);
    Py_RETURN_NONE;
}

static PyObject *
array_items(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyList_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "array_items(list, spec, slow, walk, base)");
        return NULL;
    }
    PyObject *value = args[0], *spec = args[1], *slow = args[2];
    Py_INCREF(value);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
        PyObject *element = PyList_GET_ITEM(value, i);
        if (spec_passes(spec, element))
            continue;
        PyObject *index = PyLong_FromSsize_t(i);
        if (index == NULL) {
            Py_DECREF(value);
            return NULL;
        }
        Py_INCREF(element);
        PyObject *call[4] = {args[3], index, element, args[4]};
        PyObject *done = PyObject_Vectorcall(slow, call, 4, NULL);
        Py_DECREF(element);
        Py_DECREF(index);
        if (done == NULL) {
            Py_DECREF(value);
            return NULL;
        }
        Py_DECREF(done);
    }
    Py_DECREF(value);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"passes", (PyCFunction)(void (*)(void))passes, METH_FASTCALL,
     "Whether a node's spec takes the value with nothing to record (False: ask Python)."},
    {"object_keys", (PyCFunction)(void (*)(void))object_keys, METH_FASTCALL,
     "An object check's loop over its keys: slow() for each key no spec passes."},
    {"array_items", (PyCFunction)(void (*)(void))array_items, METH_FASTCALL,
     "An array check's loop over a list: slow() for each element the spec does not pass."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "toolaudit.deep._walk_speedups", NULL, -1, methods,
};

PyMODINIT_FUNC
PyInit__walk_speedups(void)
{
    return PyModule_Create(&module);
}
