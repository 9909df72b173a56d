/* Deep mode's walk in C: does a value pass, with nothing to record, and if not, what does
 * the Python check record? An optional speedup of toolaudit.deep.node_checks.
 *
 * Most values of a failing call are valid. Their nodes are described by specs made once in
 * Python from the compiled node graph (deep/walk_specs.py, whose docstring gives their
 * form), tagged tuples:
 *     (LEAF, tests by exact type, enums, type stage)   a type, enums and constraints
 *     (ANY, branches, lone branches)          an anyOf or oneOf: one branch passing is enough
 *     (OBJECT, count tests, left, shapes, type stage)  a dict's keys, each shape one node's
 *     (ARRAY, count tests, items, items node, type stage)  a list's elements
 * where `tests by exact type` maps each exact Python type a value may have to the tuple of
 * its tests, (code, limit, reason head) triples, or to None when some test of that type's
 * kind cannot be run here; a spec of None is a node only Python checks.
 *
 * passes(spec, value) says 1 only when the node's Python check would record nothing for
 * the value. Any other answer (0) is "not known here": a type not in the map (a subclass,
 * a mapping that is no dict), a spec or test of None, a non-ASCII string under a pattern,
 * a test that fails or raises.
 *
 * arguments_found(roots, arguments, skip, new_walk, slow) is record() over a call's
 * arguments in one C call, its Walk made only when a value does not pass.
 *
 * record(spec, value, path, base, walk) (below; deep/walk_records.py) records a value's
 * errors into walk.found as the Python check does, or nothing, leaving the value to it.
 * object_keys(value, fast, slow, walk, base, closed) runs the loop of an object check over
 * the keys of the dict `value` in their order: a key of exact type str whose spec is in
 * `fast` and passes is done, one that fails is recorded here when the walk is no trial;
 * every other key goes to slow(walk, key, child, base, closed), the loop body of the
 * Python check. array_items(value, spec, node, slow, walk, base) is the same for the
 * elements of a list with one spec: slow(walk, index, element, base) for each element the
 * spec does not pass and C does not record.
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the Python checks run alone (tests/deep hold both to
 * the same errors).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The codes of deep/walk_specs.py. */
enum {
    AT_LEAST = 0,   /* value >= limit */
    AT_MOST = 1,    /* value <= limit */
    ABOVE = 2,      /* value > limit */
    BELOW = 3,      /* value < limit */
    LEN_AT_LEAST = 4, /* len(value) >= limit, limit a C ssize */
    LEN_AT_MOST = 5,  /* len(value) <= limit */
    SEARCH = 6,     /* limit(value) is not None (limit a StringTest: tested here), ASCII str */
    UNIQUE = 7,     /* a list of distinct exact str (any other list: ask Python) */
};

static const int COMPARISON[] = {Py_GE, Py_LE, Py_GT, Py_LT};

/* A string's length limits and pattern, tested in one pass (deep/pattern_automata.py):
 * StringTest(min length, max length, program or None), the program a translated
 * pattern's deterministic automaton, (start, ASCII symbols: 128 bytes, ((code point,
 * symbol), ...) past ASCII, other symbol, symbols, transitions: a tuple of ints, state *
 * symbols + symbol -> state or -1 (no match), accepting: a byte per state). Calling one
 * with a str says whether it passes. It is also the typed decoders' string type
 * (typed/deep_strings.py): each such type a subclass holding its one instance as
 * `_string_test`, which typed_string(cls, value), msgspec's dec_hook, returns for a value
 * that passes and refuses (ValueError) otherwise. */
typedef struct {
    PyObject_HEAD
    Py_ssize_t min_length, max_length;
    int start, other, symbols, states, named;
    unsigned char ascii[128];
    Py_UCS4 *named_points;
    int *named_symbols;
    int *transitions; /* NULL: lengths alone */
    unsigned char *accepting;
} StringTest;

static PyTypeObject StringTestType;

static void
string_test_free(StringTest *test)
{
    PyMem_Free(test->named_points);
    PyMem_Free(test->named_symbols);
    PyMem_Free(test->transitions);
    PyMem_Free(test->accepting);
    test->named_points = NULL;
    test->named_symbols = NULL;
    test->transitions = NULL;
    test->accepting = NULL;
}

static void
string_test_dealloc(StringTest *test)
{
    PyObject_GC_UnTrack(test);
    string_test_free(test);
    Py_TYPE(test)->tp_free((PyObject *)test);
}

/* A typed decoder's string type holds its instance, which holds the type: a cycle the
   collector sees through (a subclass's traverse visits the type; nothing else is held). */
static int
string_test_traverse(StringTest *test, visitproc visit, void *arg)
{
    return 0;
}

/* An int of [low, high) from `number`, else -1 with ValueError set. */
static int
bounded_int(PyObject *number, long low, long high)
{
    long got = PyLong_Check(number) ? PyLong_AsLong(number) : -2;
    if (got == -1 && PyErr_Occurred())
        return -1;
    if (got < low || got >= high) {
        PyErr_SetString(PyExc_ValueError, "StringTest: a number of the program is out of range");
        return -1;
    }
    return (int)got;
}

static int
string_test_program(StringTest *test, PyObject *program)
{
    if (!PyTuple_CheckExact(program) || PyTuple_GET_SIZE(program) != 7) {
        PyErr_SetString(PyExc_TypeError, "StringTest: the program is a tuple of 7");
        return -1;
    }
    PyObject *ascii = PyTuple_GET_ITEM(program, 1), *named = PyTuple_GET_ITEM(program, 2);
    PyObject *rows = PyTuple_GET_ITEM(program, 5), *accepting = PyTuple_GET_ITEM(program, 6);
    if (!PyBytes_CheckExact(ascii) || PyBytes_GET_SIZE(ascii) != 128 || !PyTuple_CheckExact(named)
        || !PyTuple_CheckExact(rows) || !PyBytes_CheckExact(accepting)) {
        PyErr_SetString(PyExc_TypeError, "StringTest: a part of the program has the wrong type");
        return -1;
    }
    int symbols = bounded_int(PyTuple_GET_ITEM(program, 4), 1, 256);
    if (symbols < 0)
        return -1;
    Py_ssize_t states = PyBytes_GET_SIZE(accepting);
    if (states < 1 || states > 1 << 16 || PyTuple_GET_SIZE(rows) != states * symbols) {
        PyErr_SetString(PyExc_ValueError, "StringTest: the program's tables disagree");
        return -1;
    }
    test->symbols = symbols;
    test->states = (int)states;
    if ((test->start = bounded_int(PyTuple_GET_ITEM(program, 0), 0, (long)states)) < 0
        || (test->other = bounded_int(PyTuple_GET_ITEM(program, 3), 0, symbols)) < 0)
        return -1;
    for (int i = 0; i < 128; i++) {
        test->ascii[i] = (unsigned char)PyBytes_AS_STRING(ascii)[i];
        if (test->ascii[i] >= symbols) {
            PyErr_SetString(PyExc_ValueError, "StringTest: an ASCII symbol is out of range");
            return -1;
        }
    }
    test->named = (int)PyTuple_GET_SIZE(named);
    test->named_points = PyMem_Calloc(test->named + 1, sizeof(Py_UCS4));
    test->named_symbols = PyMem_Calloc(test->named + 1, sizeof(int));
    test->transitions = PyMem_Calloc(states * symbols, sizeof(int));
    test->accepting = PyMem_Calloc(states, 1);
    if (test->named_points == NULL || test->named_symbols == NULL || test->transitions == NULL
        || test->accepting == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < test->named; i++) {
        PyObject *pair = PyTuple_GET_ITEM(named, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            PyErr_SetString(PyExc_TypeError, "StringTest: a named code point is a pair");
            return -1;
        }
        int point = bounded_int(PyTuple_GET_ITEM(pair, 0), 128, 0x110000);
        int symbol = point < 0 ? -1 : bounded_int(PyTuple_GET_ITEM(pair, 1), 0, symbols);
        if (symbol < 0)
            return -1;
        test->named_points[i] = (Py_UCS4)point;
        test->named_symbols[i] = symbol;
    }
    for (Py_ssize_t i = 0; i < states * symbols; i++) {
        int next = bounded_int(PyTuple_GET_ITEM(rows, i), -1, (long)states);
        if (next < -1 || (next == -1 && PyErr_Occurred()))
            return -1;
        test->transitions[i] = next;
    }
    memcpy(test->accepting, PyBytes_AS_STRING(accepting), states);
    return 0;
}

static PyObject *
string_test_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t min_length, max_length;
    PyObject *program;
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) {
        PyErr_SetString(PyExc_TypeError, "StringTest(min_length, max_length, program)");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "nnO:StringTest", &min_length, &max_length, &program))
        return NULL;
    StringTest *test = (StringTest *)type->tp_alloc(type, 0);
    if (test == NULL)
        return NULL;
    test->min_length = min_length;
    test->max_length = max_length;
    if (program != Py_None && string_test_program(test, program) < 0) {
        Py_DECREF(test);
        return NULL;
    }
    return (PyObject *)test;
}

/* Whether the str `text` passes `test`. */
static int
string_test_passes(StringTest *test, PyObject *text)
{
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    if (length < test->min_length || length > test->max_length)
        return 0;
    const int *transitions = test->transitions;
    if (transitions == NULL)
        return 1;
    int kind = PyUnicode_KIND(text), symbols = test->symbols, state = test->start;
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 point = PyUnicode_READ(kind, data, i);
        int symbol = test->other;
        if (point < 128)
            symbol = test->ascii[point];
        else
            for (int n = 0; n < test->named; n++)
                if (test->named_points[n] == point) {
                    symbol = test->named_symbols[n];
                    break;
                }
        state = transitions[state * symbols + symbol];
        if (state < 0)
            return 0;
    }
    return test->accepting[state];
}

static PyObject *
string_test_call(StringTest *test, PyObject *args, PyObject *kwargs)
{
    PyObject *text;
    if ((kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0) || !PyArg_ParseTuple(args, "U", &text))
        return NULL;
    return PyBool_FromLong(string_test_passes(test, text));
}

static PyTypeObject StringTestType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "toolaudit.deep._walk_speedups.StringTest",
    .tp_basicsize = sizeof(StringTest),
    .tp_dealloc = (destructor)string_test_dealloc,
    .tp_call = (ternaryfunc)string_test_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)string_test_traverse,
    .tp_doc = "A string's length limits and pattern automaton, tested in one pass.",
    .tp_new = string_test_new,
};

static PyObject *STRING_TEST_NAME; /* "_string_test" */

/* msgspec's dec_hook for the typed decoders' string types: the class's one instance for a
   str that passes its test, else ValueError (msgspec's refusal). */
static PyObject *
typed_string(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "typed_string(cls, value)");
        return NULL;
    }
    PyObject *test = PyObject_GetAttr(args[0], STRING_TEST_NAME);
    if (test == NULL && !PyErr_ExceptionMatches(PyExc_AttributeError))
        return NULL;
    if (test == NULL || !PyObject_TypeCheck(test, &StringTestType)) {
        PyErr_Clear();
        Py_XDECREF(test);
        PyErr_SetString(PyExc_TypeError, "typed_string: not a string type");
        return NULL;
    }
    if (PyUnicode_CheckExact(args[1]) && string_test_passes((StringTest *)test, args[1]))
        return test;
    Py_DECREF(test);
    PyErr_SetString(PyExc_ValueError, "refused by the string's test: the general path decides");
    return NULL;
}

/* The tags of deep/walk_specs.py. */
enum { LEAF = 0, ANY = 1, OBJECT = 2, ARRAY = 3 };

static int spec_passes(PyObject *spec, PyObject *value);

/* Whether `value` is a list of exact str, none twice (JSON equality of two strings). */
static int
distinct_strings(PyObject *value)
{
    if (!PyList_CheckExact(value))
        return 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++)
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(value, i)))
            return 0;
    PyObject *seen = PySet_New(value);
    if (seen == NULL) {
        PyErr_Clear();
        return 0;
    }
    int distinct = PySet_GET_SIZE(seen) == PyList_GET_SIZE(value);
    Py_DECREF(seen);
    return distinct;
}

/* 1 within, 0 not, -1 ask Python (the exception cleared). */
static int
test_within(long code, PyObject *limit, PyObject *value)
{
    if (code <= BELOW) {
        int within = PyObject_RichCompareBool(value, limit, COMPARISON[code]);
        if (within < 0)
            PyErr_Clear();
        return within;
    }
    if (code <= LEN_AT_MOST) {
        Py_ssize_t length = PyObject_Length(value);
        Py_ssize_t bound = length < 0 ? -1 : PyLong_AsSsize_t(limit);
        if (length < 0 || (bound == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
        return code == LEN_AT_LEAST ? length >= bound : length <= bound;
    }
    if (code == UNIQUE) /* a repeat's reason names its places: Python's */
        return distinct_strings(value) ? 1 : -1;
    if (code == SEARCH && PyUnicode_CheckExact(value) && PyUnicode_IS_ASCII(value)) {
        if (Py_IS_TYPE(limit, &StringTestType))
            return string_test_passes((StringTest *)limit, value);
        PyObject *match = PyObject_CallOneArg(limit, value);
        if (match == NULL) {
            PyErr_Clear();
            return -1;
        }
        Py_DECREF(match);
        return match != Py_None;
    }
    return -1;
}

/* Runs the (code, limit, reason head) tests of `tests` in order: 1 all within; 0 one is
   not, *failing set to it; -1 ask Python (tests of None: a test of this kind that only
   Python runs, or a test C cannot run on this value). */
static int
run_tests(PyObject *tests, PyObject *value, PyObject **failing)
{
    if (!PyTuple_CheckExact(tests))
        return -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tests); i++) {
        PyObject *test = PyTuple_GET_ITEM(tests, i);
        if (!PyTuple_CheckExact(test) || PyTuple_GET_SIZE(test) != 3)
            return -1;
        long code = PyLong_AsLong(PyTuple_GET_ITEM(test, 0));
        if (code == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return -1;
        }
        int within = test_within(code, PyTuple_GET_ITEM(test, 1), value);
        if (within <= 0) {
            *failing = test;
            return within;
        }
    }
    return 1;
}

/* 1: every test of `tests` passes; 0: ask Python. */
static int
tests_pass(PyObject *tests, PyObject *value)
{
    PyObject *failing;
    return run_tests(tests, value, &failing) == 1;
}

/* A leaf's enums and consts, each (members, word, allowed, ints too): 1 the value is in
   every one, 0 not in one (*refusing set to it), -1 ask Python. The members are the
   enum's exact str and int ones: an exact str value is JSON-equal to a member exactly
   when it is one of them, and so is an exact int where "ints too" (no member is a float,
   a bool or another kind of number). */
static int
enums_take(PyObject *enums, PyObject *value, PyObject **refusing)
{
    Py_ssize_t n = PyTuple_GET_SIZE(enums);
    if (n == 0)
        return 1;
    int is_str = PyUnicode_CheckExact(value);
    if (!is_str && !PyLong_CheckExact(value))
        return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *each = PyTuple_GET_ITEM(enums, i);
        if (!PyTuple_CheckExact(each) || PyTuple_GET_SIZE(each) != 4)
            return -1;
        if (!is_str && PyTuple_GET_ITEM(each, 3) != Py_True)
            return -1;
        int in = PySet_Contains(PyTuple_GET_ITEM(each, 0), value);
        if (in < 0) {
            PyErr_Clear();
            return -1;
        }
        if (!in) {
            *refusing = each;
            return 0;
        }
    }
    return 1;
}

/* (LEAF, tests by exact type, enums, type stage). */
static int
leaf_passes(PyObject *spec, PyObject *value)
{
    if (PyTuple_GET_SIZE(spec) != 4)
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
    PyObject *refusing;
    if (enums_take(enums, value, &refusing) != 1)
        return 0;
    return tests_pass(tests, value);
}

/* (ANY, branches, lone branches): one branch passing is enough (a branch of None never
   passes here). */
static int
any_passes(PyObject *spec, PyObject *value)
{
    if (PyTuple_GET_SIZE(spec) != 3 || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 1)))
        return 0;
    PyObject *branches = PyTuple_GET_ITEM(spec, 1);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(branches); i++)
        if (spec_passes(PyTuple_GET_ITEM(branches, i), value))
            return 1;
    return 0;
}

/* One node's shape of an object: (declared, required, closed, additional, unexpected),
   where declared maps a name to (spec, node, path suffix), required holds (name, path
   suffix) pairs, additional is True for no check of undeclared keys, else (spec, node),
   and unexpected is the reason of an undeclared key's error. */
static int
shape_passes(PyObject *shape, PyObject *left, PyObject *value)
{
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 5)
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
        PyObject *entry = PyDict_GetItemWithError(declared, key);
        if (entry != NULL) {
            if (!spec_passes(PyTuple_GET_ITEM(entry, 0), child))
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
        if (additional != Py_True && !spec_passes(PyTuple_GET_ITEM(additional, 0), child))
            return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(required); i++) {
        int in = PyDict_Contains(value, PyTuple_GET_ITEM(PyTuple_GET_ITEM(required, i), 0));
        if (in <= 0) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* (OBJECT, count tests, left, shapes, type stage), for a dict. */
static int
object_passes(PyObject *spec, PyObject *value)
{
    if (!PyDict_CheckExact(value) || PyTuple_GET_SIZE(spec) != 5)
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

/* (ARRAY, count tests, items, items node, type stage), for a list. */
static int
array_passes(PyObject *spec, PyObject *value)
{
    if (!PyList_CheckExact(value) || PyTuple_GET_SIZE(spec) != 5)
        return 0;
    if (!tests_pass(PyTuple_GET_ITEM(spec, 1), value))
        return 0;
    PyObject *items = PyTuple_GET_ITEM(spec, 2);
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

/* ---- Recording: the errors of a value that does not pass, as the Python check records them.
 *
 * record(spec, value, path, base, walk) says 1 when it has recorded into walk.found exactly
 * what the node's Python check would (nothing, for a value that passes), 0 when it has
 * recorded nothing and the value is Python's to check, -1 with an exception set. A node is
 * recorded whole or not at all: every test that could say "ask Python" is made before its
 * first error is written, and a child C cannot record is handed to walk.check(node, child,
 * at, at), the Python check of that child alone, in its place in the order. */

/* The kinds of error, as deep.node_checks names them; interned at import. */
static PyObject *TYPE_KIND, *ENUM_KIND, *CONSTRAINT_KIND, *MISSING_KIND, *UNEXPECTED_KIND;
static PyObject *TYPE_WORD, *MISSING_REASON, *FOUND_NAME, *TRYING_NAME, *CHECK_NAME;
/* toolaudit.deep.paths.key, for a key that is no identifier (imported when first needed). */
static PyObject *quoted_key;

/* found[path] = (kind, reason) unless path has an error already (Walk.add). 1 or -1. */
static int
add_error(PyObject *found, PyObject *path, PyObject *kind, PyObject *reason)
{
    if (reason == NULL)
        return -1;
    int known = PyDict_Contains(found, path);
    int done = known;
    if (known == 0) {
        PyObject *error = PyTuple_Pack(2, kind, reason);
        done = error == NULL ? -1 : PyDict_SetItem(found, path, error);
        Py_XDECREF(error);
    }
    Py_DECREF(reason);
    return done < 0 ? -1 : 1;
}

/* reason head + (value,): a constraint's or an enum's reason with the value. */
static PyObject *
with_value(PyObject *head, PyObject *value)
{
    Py_ssize_t n = PyTuple_GET_SIZE(head);
    PyObject *reason = PyTuple_New(n + 1);
    if (reason == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(PyTuple_GET_ITEM(head, i));
        PyTuple_SET_ITEM(reason, i, PyTuple_GET_ITEM(head, i));
    }
    Py_INCREF(value);
    PyTuple_SET_ITEM(reason, n, value);
    return reason;
}

/* A type stage (kinds, refused exact types), or None where Python words a refusal: a
   value of a refused type gets ("type", kinds, value). 1 recorded, 0 ask, -1 error. */
static int
record_type(PyObject *stage, PyObject *value, PyObject *path, PyObject *found)
{
    if (!PyTuple_CheckExact(stage) || PyTuple_GET_SIZE(stage) != 2)
        return 0;
    int refused = PySet_Contains(PyTuple_GET_ITEM(stage, 1), (PyObject *)Py_TYPE(value));
    if (refused <= 0)
        return refused;
    return add_error(found, path, TYPE_KIND,
                     PyTuple_Pack(3, TYPE_WORD, PyTuple_GET_ITEM(stage, 0), value));
}

/* Every test of `tests`: 1 all within, 2 the first test not within has recorded its
   constraint error, 0 ask Python, -1 error. */
static int
record_tests(PyObject *tests, PyObject *value, PyObject *path, PyObject *found)
{
    PyObject *failing;
    int within = run_tests(tests, value, &failing);
    if (within != 0)
        return within < 0 ? 0 : 1;
    return add_error(found, path, CONSTRAINT_KIND, with_value(PyTuple_GET_ITEM(failing, 2), value))
        < 0 ? -1 : 2;
}

static int
record_leaf(PyObject *spec, PyObject *value, PyObject *path, PyObject *found)
{
    if (PyTuple_GET_SIZE(spec) != 4 || !PyDict_CheckExact(PyTuple_GET_ITEM(spec, 1))
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 2)))
        return 0;
    PyObject *tests = PyDict_GetItemWithError(PyTuple_GET_ITEM(spec, 1), (PyObject *)Py_TYPE(value));
    if (tests == NULL) {
        if (PyErr_Occurred())
            return -1;
        return record_type(PyTuple_GET_ITEM(spec, 3), value, path, found);
    }
    PyObject *refusing;
    int taken = enums_take(PyTuple_GET_ITEM(spec, 2), value, &refusing);
    if (taken < 0)
        return 0;
    if (!taken)
        return add_error(found, path, ENUM_KIND,
                         PyTuple_Pack(3, PyTuple_GET_ITEM(refusing, 1),
                                      PyTuple_GET_ITEM(refusing, 2), value));
    int within = record_tests(tests, value, path, found);
    return within == 2 ? 1 : within;
}

static int spec_record(PyObject *spec, PyObject *value, PyObject *path, PyObject *base,
                       PyObject *walk, PyObject *found);

/* A child at `at`: nothing if it passes or has an error there already, else recorded here
   or, where C cannot, by walk.check(node, child, at, at). 1 or -1. */
static int
record_child(PyObject *spec, PyObject *node, PyObject *child, PyObject *at, PyObject *walk,
             PyObject *found)
{
    int known = PyDict_Contains(found, at);
    if (known != 0)
        return known < 0 ? -1 : 1;
    int done = spec_record(spec, child, at, at, walk, found);
    if (done != 0)
        return done;
    PyObject *checked = PyObject_CallMethodObjArgs(walk, CHECK_NAME, node, child, at, at, NULL);
    if (checked == NULL)
        return -1;
    Py_DECREF(checked);
    return 1;
}

/* Whether a key is written .key in a path (deep.paths: [A-Za-z_][A-Za-z0-9_]*). */
static int
is_identifier(PyObject *key)
{
    if (!PyUnicode_IS_ASCII(key) || PyUnicode_GET_LENGTH(key) == 0)
        return 0;
    const Py_UCS1 *c = PyUnicode_1BYTE_DATA(key);
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(key); i++) {
        int letter = (c[i] >= 'A' && c[i] <= 'Z') || (c[i] >= 'a' && c[i] <= 'z') || c[i] == '_';
        if (!letter && !(i > 0 && c[i] >= '0' && c[i] <= '9'))
            return 0;
    }
    return 1;
}

/* deep.paths.key(base, key), new reference. */
static PyObject *
key_path(PyObject *base, PyObject *key)
{
    if (is_identifier(key))
        return PyUnicode_FromFormat("%U.%U", base, key);
    if (quoted_key == NULL) {
        PyObject *paths = PyImport_ImportModule("toolaudit.deep.paths");
        if (paths == NULL)
            return NULL;
        quoted_key = PyObject_GetAttrString(paths, "key");
        Py_DECREF(paths);
        if (quoted_key == NULL)
            return NULL;
    }
    return PyObject_CallFunctionObjArgs(quoted_key, base, key, NULL);
}

/* A well-formed shape (see shape_passes) whose keys C can record. */
static int
recordable_shape(PyObject *shape)
{
    if (!PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 5)
        return 0;
    PyObject *additional = PyTuple_GET_ITEM(shape, 3);
    return PyDict_CheckExact(PyTuple_GET_ITEM(shape, 0))
        && PyTuple_CheckExact(PyTuple_GET_ITEM(shape, 1))
        && (additional == Py_True
            || (PyTuple_CheckExact(additional) && PyTuple_GET_SIZE(additional) == 2));
}

/* One shape's keys of a dict, in order, then its required names. 1 or -1. */
static int
record_shape(PyObject *shape, PyObject *left, PyObject *value, PyObject *base,
             PyObject *walk, PyObject *found)
{
    PyObject *declared = PyTuple_GET_ITEM(shape, 0);
    PyObject *required = PyTuple_GET_ITEM(shape, 1);
    int closed = PyTuple_GET_ITEM(shape, 2) == Py_True;
    PyObject *additional = PyTuple_GET_ITEM(shape, 3);
    PyObject *key, *child;
    Py_ssize_t position = 0, size = PyDict_GET_SIZE(value);
    while (PyDict_Next(value, &position, &key, &child)) {
        PyObject *entry = PyDict_GetItemWithError(declared, key); /* (spec, node, suffix) */
        PyObject *spec, *node, *at;
        if (entry != NULL) {
            spec = PyTuple_GET_ITEM(entry, 0);
            if (spec_passes(spec, child))
                continue;
            node = PyTuple_GET_ITEM(entry, 1);
            at = PyUnicode_Concat(base, PyTuple_GET_ITEM(entry, 2));
        }
        else {
            if (PyErr_Occurred())
                return -1;
            int in_left = PySet_Contains(left, key);
            if (in_left != 0) {
                if (in_left < 0)
                    return -1;
                continue;
            }
            if (closed) {
                at = key_path(base, key);
                if (at == NULL)
                    return -1;
                Py_INCREF(PyTuple_GET_ITEM(shape, 4));
                int done = add_error(found, at, UNEXPECTED_KIND, PyTuple_GET_ITEM(shape, 4));
                Py_DECREF(at);
                if (done < 0)
                    return -1;
                continue;
            }
            if (additional == Py_True)
                continue;
            spec = PyTuple_GET_ITEM(additional, 0);
            if (spec_passes(spec, child))
                continue;
            node = PyTuple_GET_ITEM(additional, 1);
            at = key_path(base, key);
        }
        if (at == NULL)
            return -1;
        Py_INCREF(key);
        Py_INCREF(child);
        int done = record_child(spec, node, child, at, walk, found);
        Py_DECREF(key);
        Py_DECREF(child);
        Py_DECREF(at);
        if (done < 0)
            return -1;
        if (PyDict_GET_SIZE(value) != size) {
            PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(required); i++) {
        PyObject *pair = PyTuple_GET_ITEM(required, i); /* (name, suffix) */
        int in = PyDict_Contains(value, PyTuple_GET_ITEM(pair, 0));
        if (in < 0)
            return -1;
        if (in)
            continue;
        PyObject *at = PyUnicode_Concat(base, PyTuple_GET_ITEM(pair, 1));
        if (at == NULL)
            return -1;
        Py_INCREF(MISSING_REASON);
        int done = add_error(found, at, MISSING_KIND, MISSING_REASON);
        Py_DECREF(at);
        if (done < 0)
            return -1;
    }
    return 1;
}

/* What an object or array records before its children: a type error for a value of a
   refused type, else the first count test's error (the type stage is the fifth item of
   both specs). 1: on to the children; 2: an error recorded here; 0: ask; -1: error. */
static int
record_container(PyObject *spec, int exact_type, PyObject *value, PyObject *path,
                 PyObject *found)
{
    if (PyTuple_GET_SIZE(spec) != 5)
        return 0;
    if (!exact_type) {
        int refused = record_type(PyTuple_GET_ITEM(spec, 4), value, path, found);
        return refused == 1 ? 2 : refused;
    }
    return record_tests(PyTuple_GET_ITEM(spec, 1), value, path, found);
}

/* (OBJECT, count tests, left, shapes, type stage). */
static int
record_object(PyObject *spec, PyObject *value, PyObject *path, PyObject *base, PyObject *walk,
              PyObject *found)
{
    int head = record_container(spec, PyDict_CheckExact(value), value, path, found);
    if (head != 1)
        return head == 2 ? 1 : head; /* an error here: nothing inside is checked */
    PyObject *left = PyTuple_GET_ITEM(spec, 2);
    PyObject *shapes = PyTuple_GET_ITEM(spec, 3);
    if (!PyFrozenSet_CheckExact(left) || !PyTuple_CheckExact(shapes))
        return 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++)
        if (!recordable_shape(PyTuple_GET_ITEM(shapes, i)))
            return 0;
    PyObject *key, *child;
    Py_ssize_t position = 0;
    while (PyDict_Next(value, &position, &key, &child))
        if (!PyUnicode_CheckExact(key))
            return 0; /* Python words such a key (str(key)) */
    Py_INCREF(value);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shapes); i++)
        if (record_shape(PyTuple_GET_ITEM(shapes, i), left, value, base, walk, found) < 0) {
            Py_DECREF(value);
            return -1;
        }
    Py_DECREF(value);
    return 1;
}

/* The elements of a list from `start` on that `items` does not pass, in order: each
   recorded into `found`, or given to slow(walk, index, element, base) where found is NULL
   (a trial walk). 1 or -1. */
static int
each_element(PyObject *value, Py_ssize_t start, PyObject *items, PyObject *node, PyObject *slow,
             PyObject *walk, PyObject *base, PyObject *found)
{
    int done = 1;
    Py_INCREF(value);
    for (Py_ssize_t i = start; i < PyList_GET_SIZE(value) && done >= 0; i++) {
        PyObject *element = PyList_GET_ITEM(value, i);
        if (spec_passes(items, element))
            continue;
        Py_INCREF(element);
        if (found != NULL) {
            PyObject *at = PyUnicode_FromFormat("%U[%zd]", base, i);
            done = at == NULL ? -1 : record_child(items, node, element, at, walk, found);
            Py_XDECREF(at);
        }
        else {
            PyObject *index = PyLong_FromSsize_t(i);
            PyObject *call[4] = {walk, index, element, base};
            PyObject *checked = index == NULL ? NULL : PyObject_Vectorcall(slow, call, 4, NULL);
            done = checked == NULL ? -1 : 1;
            Py_XDECREF(checked);
            Py_XDECREF(index);
        }
        Py_DECREF(element);
    }
    Py_DECREF(value);
    return done;
}

/* (ARRAY, count tests, items spec, items node, type stage). */
static int
record_array(PyObject *spec, PyObject *value, PyObject *path, PyObject *base, PyObject *walk,
             PyObject *found)
{
    int head = record_container(spec, PyList_CheckExact(value), value, path, found);
    if (head != 1)
        return head == 2 ? 1 : head;
    return each_element(value, 0, PyTuple_GET_ITEM(spec, 2), PyTuple_GET_ITEM(spec, 3), NULL,
                        walk, base, found);
}

/* (ANY, branches, lone branches): a value no branch passes has the errors of the only
   branch that can take a value of its type, where that is the branch reported; for any
   other, Python tries the branches. */
static int
record_any(PyObject *spec, PyObject *value, PyObject *path, PyObject *base, PyObject *walk,
           PyObject *found)
{
    if (any_passes(spec, value))
        return 1;
    PyObject *lone = PyTuple_GET_ITEM(spec, 2);
    if (!PyDict_CheckExact(lone))
        return 0;
    PyObject *branch = PyDict_GetItemWithError(lone, (PyObject *)Py_TYPE(value));
    if (branch == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (!PyTuple_CheckExact(branch) || PyTuple_GET_SIZE(branch) != 2)
        return 0;
    return spec_record(PyTuple_GET_ITEM(branch, 0), value, path, base, walk, found);
}

/* 1 recorded (or nothing to record), 0 nothing recorded: Python's, -1 error. */
static int
spec_record(PyObject *spec, PyObject *value, PyObject *path, PyObject *base, PyObject *walk,
            PyObject *found)
{
    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) < 2)
        return 0;
    long tag = PyLong_AsLong(PyTuple_GET_ITEM(spec, 0));
    if (tag == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (Py_EnterRecursiveCall(" in deep mode's C walk"))
        return -1; /* RecursionError: the caller checks again with room to recurse */
    int done;
    switch (tag) {
    case LEAF:
        done = record_leaf(spec, value, path, found);
        break;
    case ANY:
        done = record_any(spec, value, path, base, walk, found);
        break;
    case OBJECT:
        done = record_object(spec, value, path, base, walk, found);
        break;
    case ARRAY:
        done = record_array(spec, value, path, base, walk, found);
        break;
    default:
        done = 0;
    }
    Py_LeaveRecursiveCall();
    return done;
}

/* walk.found, or NULL (no error set) for a trial walk, which stops at its first error
   instead of recording it: new reference. */
static PyObject *
found_of(PyObject *walk, int *failed)
{
    *failed = 0;
    PyObject *trying = PyObject_GetAttr(walk, TRYING_NAME);
    if (trying == NULL) {
        PyErr_Clear();
        return NULL;
    }
    int is_trial = PyObject_IsTrue(trying);
    Py_DECREF(trying);
    if (is_trial != 0) {
        *failed = is_trial < 0;
        return NULL;
    }
    PyObject *found = PyObject_GetAttr(walk, FOUND_NAME);
    if (found == NULL || !PyDict_CheckExact(found)) {
        Py_XDECREF(found);
        PyErr_Clear();
        return NULL;
    }
    return found;
}

static PyObject *
record(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyUnicode_CheckExact(args[2]) || !PyUnicode_CheckExact(args[3])) {
        PyErr_SetString(PyExc_TypeError, "record(spec, value, path: str, base: str, walk)");
        return NULL;
    }
    if (spec_passes(args[0], args[1]))
        Py_RETURN_TRUE;
    int failed;
    PyObject *found = found_of(args[4], &failed);
    if (found == NULL) {
        if (failed)
            return NULL;
        Py_RETURN_FALSE;
    }
    int done = PyDict_Contains(found, args[2]);
    if (done == 0)
        done = spec_record(args[0], args[1], args[2], args[3], args[4], found);
    Py_DECREF(found);
    if (done < 0)
        return NULL;
    return PyBool_FromLong(done);
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

/* record() of a call's arguments at once, the loop of DeepArguments._walk: for each
   (name, spec, root, node) of `roots` whose name the dict `arguments` holds and `skip`
   does not, the value is passed, recorded here, or checked by slow(walk, node, value,
   name, root). The walk is made by new_walk() at the first value that does not pass (a
   valid call makes none). Its found, a new empty dict if none was made, or None when
   `arguments` is no dict (the Python loop's). */
static PyObject *
arguments_found(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5 || !PyTuple_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError,
                        "arguments_found(roots: tuple, arguments, skip, new_walk, slow)");
        return NULL;
    }
    PyObject *roots = args[0], *arguments = args[1], *skip = args[2];
    if (!PyDict_CheckExact(arguments))
        Py_RETURN_NONE;
    PyObject *walk = NULL, *found = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(roots); i++) {
        PyObject *root = PyTuple_GET_ITEM(roots, i);
        if (!PyTuple_CheckExact(root) || PyTuple_GET_SIZE(root) != 4
            || !PyUnicode_CheckExact(PyTuple_GET_ITEM(root, 0))
            || !PyUnicode_CheckExact(PyTuple_GET_ITEM(root, 2))) {
            PyErr_SetString(PyExc_TypeError, "a root is (name: str, spec, root: str, node)");
            goto fail;
        }
        PyObject *name = PyTuple_GET_ITEM(root, 0), *spec = PyTuple_GET_ITEM(root, 1);
        PyObject *base = PyTuple_GET_ITEM(root, 2), *node = PyTuple_GET_ITEM(root, 3);
        PyObject *value = PyDict_GetItemWithError(arguments, name);
        if (value == NULL) {
            if (PyErr_Occurred())
                goto fail;
            continue;
        }
        int skipped = PySequence_Contains(skip, name);
        if (skipped < 0)
            goto fail;
        if (skipped)
            continue;
        Py_INCREF(value); /* a spec's test may run Python code (a pattern) */
        int done = 0;
        if (spec != Py_None && spec_passes(spec, value))
            done = 1;
        else {
            if (walk == NULL) {
                walk = PyObject_CallNoArgs(args[3]);
                int failed;
                found = walk == NULL ? NULL : found_of(walk, &failed);
                if (found == NULL) {
                    if (walk != NULL && !failed)
                        PyErr_SetString(PyExc_TypeError, "new_walk() made a trial walk");
                    Py_DECREF(value);
                    goto fail;
                }
            }
            if (spec != Py_None) {
                done = PyDict_Contains(found, name);
                if (done == 0)
                    done = spec_record(spec, value, name, base, walk, found);
            }
            if (done == 0) {
                PyObject *call[5] = {walk, node, value, name, base};
                PyObject *checked = PyObject_Vectorcall(args[4], call, 5, NULL);
                done = checked == NULL ? -1 : 1;
                Py_XDECREF(checked);
            }
        }
        Py_DECREF(value);
        if (done < 0)
            goto fail;
    }
    Py_XDECREF(walk);
    return found != NULL ? found : PyDict_New();
fail:
    Py_XDECREF(walk);
    Py_XDECREF(found);
    return NULL;
}

static PyObject *
object_keys(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyDict_CheckExact(args[0]) || !PyDict_CheckExact(args[1])
        || !PyUnicode_CheckExact(args[4])) {
        PyErr_SetString(PyExc_TypeError, "object_keys(dict, dict, slow, walk, base: str, closed)");
        return NULL;
    }
    PyObject *value = args[0], *fast = args[1], *slow = args[2], *walk = args[3];
    PyObject *found = NULL; /* walk.found, fetched at the first key that fails */
    int asked = 0, failed = 0;
    PyObject *key, *child;
    Py_ssize_t position = 0;
    /* The Python checks read the dict and never change it; the reference held on it keeps
       it alive, and a change made by a key's own code anyway is caught by PyDict_Next's
       caller as a size change below. */
    Py_INCREF(value);
    Py_ssize_t size = PyDict_GET_SIZE(value);
    while (PyDict_Next(value, &position, &key, &child)) {
        PyObject *done = NULL;
        Py_INCREF(key);
        Py_INCREF(child);
        PyObject *entry = PyUnicode_CheckExact(key) ? PyDict_GetItemWithError(fast, key) : NULL;
        if (entry == NULL && PyErr_Occurred())
            goto fail;
        if (entry != NULL && PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == 3) {
            if (spec_passes(PyTuple_GET_ITEM(entry, 0), child))
                goto next;
            if (!asked) {
                asked = 1;
                found = found_of(walk, &failed);
                if (failed)
                    goto fail;
            }
            if (found != NULL) { /* recorded here, the trial walks stop in Python */
                PyObject *at = PyUnicode_Concat(args[4], PyTuple_GET_ITEM(entry, 2));
                int recorded = at == NULL ? -1
                    : record_child(PyTuple_GET_ITEM(entry, 0), PyTuple_GET_ITEM(entry, 1),
                                   child, at, walk, found);
                Py_XDECREF(at);
                if (recorded < 0)
                    goto fail;
                goto next;
            }
        }
        PyObject *call[5] = {walk, key, child, args[4], args[5]};
        done = PyObject_Vectorcall(slow, call, 5, NULL);
        if (done == NULL)
            goto fail;
        Py_DECREF(done);
    next:
        Py_DECREF(key);
        Py_DECREF(child);
        if (PyDict_GET_SIZE(value) != size) {
            PyErr_SetString(PyExc_RuntimeError, "dictionary changed size during iteration");
            Py_XDECREF(found);
            Py_DECREF(value);
            return NULL;
        }
        continue;
    fail:
        Py_DECREF(key);
        Py_DECREF(child);
        Py_XDECREF(found);
        Py_DECREF(value);
        return NULL;
    }
    Py_XDECREF(found);
    Py_DECREF(value);
    Py_RETURN_NONE;
}

static PyObject *
array_items(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 6 || !PyList_CheckExact(args[0]) || !PyUnicode_CheckExact(args[5])) {
        PyErr_SetString(PyExc_TypeError, "array_items(list, spec, node, slow, walk, base: str)");
        return NULL;
    }
    PyObject *value = args[0], *spec = args[1];
    Py_ssize_t first = 0; /* the first element that does not pass */
    while (first < PyList_GET_SIZE(value) && spec_passes(spec, PyList_GET_ITEM(value, first)))
        first++;
    if (first == PyList_GET_SIZE(value))
        Py_RETURN_NONE;
    int failed;
    PyObject *found = found_of(args[4], &failed);
    if (failed)
        return NULL;
    int done = each_element(value, first, spec, args[2], args[3], args[4], args[5], found);
    Py_XDECREF(found);
    if (done < 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"passes", (PyCFunction)(void (*)(void))passes, METH_FASTCALL,
     "Whether a node's spec takes the value with nothing to record (False: ask Python)."},
    {"arguments_found", (PyCFunction)(void (*)(void))arguments_found, METH_FASTCALL,
     "A call's arguments walked at once: the walk's found (None: the Python loop's)."},
    {"object_keys", (PyCFunction)(void (*)(void))object_keys, METH_FASTCALL,
     "An object check's loop over its keys: slow() for each key no spec passes."},
    {"array_items", (PyCFunction)(void (*)(void))array_items, METH_FASTCALL,
     "An array check's loop over a list: slow() for each element the spec does not pass."},
    {"record", (PyCFunction)(void (*)(void))record, METH_FASTCALL,
     "A node's check of a value in C: True when done, False when nothing is recorded."},
    {"typed_string", (PyCFunction)(void (*)(void))typed_string, METH_FASTCALL,
     "msgspec's dec_hook of the typed string types: the type's test, if the value passes."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "toolaudit.deep._walk_speedups", NULL, -1, methods,
};

static PyObject *
interned(const char *text)
{
    return PyUnicode_InternFromString(text);
}

PyMODINIT_FUNC
PyInit__walk_speedups(void)
{
    TYPE_KIND = TYPE_WORD = interned("type");
    ENUM_KIND = interned("enum");
    CONSTRAINT_KIND = interned("constraint");
    MISSING_KIND = interned("missing");
    UNEXPECTED_KIND = interned("unexpected");
    FOUND_NAME = interned("found");
    TRYING_NAME = interned("trying");
    CHECK_NAME = interned("check");
    STRING_TEST_NAME = interned("_string_test");
    MISSING_REASON = MISSING_KIND == NULL ? NULL : PyTuple_Pack(1, MISSING_KIND);
    if (TYPE_KIND == NULL || ENUM_KIND == NULL || CONSTRAINT_KIND == NULL
        || UNEXPECTED_KIND == NULL || FOUND_NAME == NULL || TRYING_NAME == NULL
        || CHECK_NAME == NULL || STRING_TEST_NAME == NULL || MISSING_REASON == NULL)
        return NULL;
    if (PyType_Ready(&StringTestType) < 0)
        return NULL;
    PyObject *made = PyModule_Create(&module);
    if (made == NULL)
        return NULL;
    Py_INCREF(&StringTestType);
    if (PyModule_AddObject(made, "StringTest", (PyObject *)&StringTestType) < 0) {
        Py_DECREF(&StringTestType);
        Py_DECREF(made);
        return NULL;
    }
    return made;
}
