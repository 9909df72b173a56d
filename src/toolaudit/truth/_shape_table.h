/* EntryShapes' table of shapes in C: a dict (the shapes by their 6-tuple key, as
 * toolaudit.results.entry_shapes keeps them, and as its Python callers and the kernel's
 * twin read and add them) that also keeps, beside it, the shapes the kernel has met,
 * found by their key's parts without making the tuple, each with a count of the
 * entries the kernel has counted since the last flush.
 *
 * A line of a known shape then makes no key and hashes none: its parts (the section,
 * the category, the tool expected, the parameters' names, the tool made, the mask) are
 * hashed from their strings' cached hashes and compared as the tuple's == compares
 * them (pointers first, then strings' text), and its count raised in C. flush() adds
 * each count to its shape's `waiting` (EntryShapes.settle flushes first), so that the
 * shapes settle as if the kernel had raised `waiting` line by line.
 *
 * Only what the dict holds is kept here (a shape is met here first by its tuple, in the
 * dict), and EntryShapes never removes a shape, so the two agree: a key kept here is
 * the dict's, its shape the dict's. Each kept part is held (the section too: its
 * address, the key's id(section), cannot be another section's while it is held). Parts
 * of another type (a str subclass, a category that is no str) are not kept: the dict
 * alone finds them. A copy (copy, pickle) is the dict's alone, without the counts:
 * flush before making one. */

#ifndef TOOLAUDIT_SHAPE_TABLE_H
#define TOOLAUDIT_SHAPE_TABLE_H

#include <Python.h>
#include <string.h>

/* A shape the kernel has met: its key's parts, its `_Shape`, and the entries counted
 * here since the last flush. An empty place has no shape. */
typedef struct {
    Py_hash_t hash;
    PyObject *section, *category, *tool, *parameters, *made, *shape;
    unsigned long long mask;
    Py_ssize_t counted;
} KnownShape;

typedef struct {
    PyDictObject dict;
    KnownShape *known; /* open addressing, `size` places (a power of 2), or NULL */
    Py_ssize_t size, used;
    PyObject *maker; /* the class of the shapes first_known makes (EntryShapes' _Shape) */
} ShapeTable;

static PyTypeObject ShapeTableType;

/* The bits of a key's hash kept (all; tests keep none, so that every shape collides
 * with every other and the parts' comparison alone tells them apart). */
static Py_uhash_t shape_hash_bits = ~(Py_uhash_t)0;

/* A key's parts as the kernel tells them (borrowed), and their hash. */
typedef struct {
    PyObject *section, *category, *tool, *parameters, *made;
    unsigned long long mask;
    Py_hash_t hash;
} ShapeParts;

/* The hash of a str or None (a str's hash is cached in it after the first). */
static inline Py_hash_t
part_hash(PyObject *part)
{
    return part == Py_None ? 0x3f1d : PyObject_Hash(part);
}

static inline Py_uhash_t
mixed(Py_uhash_t hash, Py_uhash_t part)
{
    hash ^= part + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
    return hash;
}

/* Whether the parts can be kept here (strs of no subclass, or None where the key
 * allows it), their hash in parts->hash; 0 where the dict alone must find them, -1 on
 * an error. */
static int
shape_parts_hashed(ShapeParts *parts)
{
    if ((parts->category != Py_None && !PyUnicode_CheckExact(parts->category)) ||
        (parts->tool != Py_None && !PyUnicode_CheckExact(parts->tool)) ||
        !PyUnicode_CheckExact(parts->made) || !PyTuple_CheckExact(parts->parameters))
        return 0;
    Py_uhash_t hash = mixed((Py_uhash_t)(uintptr_t)parts->section >> 4, parts->mask);
    PyObject *three[] = {parts->category, parts->tool, parts->made};
    for (int i = 0; i < 3; i++) {
        Py_hash_t part = part_hash(three[i]);
        if (part == -1)
            return -1;
        hash = mixed(hash, (Py_uhash_t)part);
    }
    Py_ssize_t count = PyTuple_GET_SIZE(parts->parameters);
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(parts->parameters, i);
        if (!PyUnicode_CheckExact(name))
            return 0;
        Py_hash_t part = PyObject_Hash(name);
        if (part == -1)
            return -1;
        hash = mixed(hash, (Py_uhash_t)part);
    }
    parts->hash = (Py_hash_t)(mixed(hash, (Py_uhash_t)count) & shape_hash_bits);
    return 1;
}

/* Whether two parts (strs of no subclass, or None) are equal as == tells them. */
static inline int
same_part(PyObject *a, PyObject *b)
{
    if (a == b)
        return 1;
    if (a == Py_None || b == Py_None)
        return 0;
    Py_ssize_t length = PyUnicode_GET_LENGTH(a);
    int kind = PyUnicode_KIND(a);
    return length == PyUnicode_GET_LENGTH(b) && kind == PyUnicode_KIND(b) &&
           memcmp(PyUnicode_DATA(a), PyUnicode_DATA(b), (size_t)(length * kind)) == 0;
}

static int
same_shape(KnownShape *known, ShapeParts *parts)
{
    if (known->hash != parts->hash || known->section != parts->section ||
        known->mask != parts->mask || !same_part(known->category, parts->category) ||
        !same_part(known->tool, parts->tool) || !same_part(known->made, parts->made))
        return 0;
    PyObject *mine = known->parameters, *theirs = parts->parameters;
    Py_ssize_t count = PyTuple_GET_SIZE(mine);
    if (mine == theirs)
        return 1;
    if (count != PyTuple_GET_SIZE(theirs))
        return 0;
    for (Py_ssize_t i = 0; i < count; i++)
        if (!same_part(PyTuple_GET_ITEM(mine, i), PyTuple_GET_ITEM(theirs, i)))
            return 0;
    return 1;
}

/* The place of the parts' shape, or the empty place it would take (NULL: nothing kept
 * yet). */
static KnownShape *
shape_place(ShapeTable *table, ShapeParts *parts)
{
    if (table->known == NULL)
        return NULL;
    size_t mask = (size_t)table->size - 1, at = (size_t)parts->hash & mask;
    for (;;) {
        KnownShape *known = &table->known[at];
        if (known->shape == NULL || same_shape(known, parts))
            return known;
        at = (at + 1) & mask;
    }
}

static void
forget_known(KnownShape *known, Py_ssize_t size)
{
    for (Py_ssize_t i = 0; i < size; i++) {
        KnownShape *one = &known[i];
        if (one->shape == NULL)
            continue;
        Py_CLEAR(one->section);
        Py_CLEAR(one->category);
        Py_CLEAR(one->tool);
        Py_CLEAR(one->parameters);
        Py_CLEAR(one->made);
        Py_CLEAR(one->shape);
    }
}

/* Room for one more shape: the places doubled when two thirds are taken. 0, or -1. */
static int
shape_room(ShapeTable *table)
{
    if (table->known != NULL && 3 * (table->used + 1) <= 2 * table->size)
        return 0;
    Py_ssize_t size = table->known == NULL ? 64 : 2 * table->size;
    KnownShape *known = PyMem_Calloc((size_t)size, sizeof(KnownShape));
    if (known == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i < table->size; i++) {
        KnownShape *one = &table->known[i];
        if (one->shape == NULL)
            continue;
        size_t at = (size_t)one->hash & (size_t)(size - 1);
        while (known[at].shape != NULL)
            at = (at + 1) & (size_t)(size - 1);
        known[at] = *one; /* (its references moved) */
    }
    PyMem_Free(table->known);
    table->known = known;
    table->size = size;
    return 0;
}

/* Keep `shape` (the dict's, under the parts' key) with nothing counted yet: 0, or -1. */
static int
keep_shape(ShapeTable *table, ShapeParts *parts, PyObject *shape)
{
    if (shape_room(table) < 0)
        return -1;
    KnownShape *known = shape_place(table, parts);
    if (known->shape != NULL)
        return 0; /* (kept already) */
    *known = (KnownShape){parts->hash,
                          Py_NewRef(parts->section),
                          Py_NewRef(parts->category),
                          Py_NewRef(parts->tool),
                          Py_NewRef(parts->parameters),
                          Py_NewRef(parts->made),
                          Py_NewRef(shape),
                          parts->mask,
                          0};
    table->used++;
    return 0;
}

/* flush(): each shape's count added to its `waiting`, and set to 0. */
static PyObject *
shape_table_flush(ShapeTable *table, PyObject *unused)
{
    (void)unused;
    for (Py_ssize_t i = 0; i < table->size; i++) {
        KnownShape *known = &table->known[i];
        if (known->shape == NULL || known->counted == 0)
            continue;
        PyObject *counted = PyLong_FromSsize_t(known->counted);
        if (counted == NULL)
            return NULL;
        PyObject *waiting = PyObject_GetAttrString(known->shape, "waiting");
        PyObject *raised = waiting != NULL ? PyNumber_Add(waiting, counted) : NULL;
        Py_DECREF(counted);
        Py_XDECREF(waiting);
        if (raised == NULL)
            return NULL;
        int set = PyObject_SetAttrString(known->shape, "waiting", raised);
        Py_DECREF(raised);
        if (set < 0)
            return NULL;
        known->counted = 0;
    }
    Py_RETURN_NONE;
}

/* What an entry of one call adds to each tally it counts in (EntryTally.count's
 * arguments: entries, correct, made, expected, matched), as EntryShapes._shape says. */
static PyObject *ADDS_RIGHT, *ADDS_WRONG, *ADDS_UNWANTED, *ADDS_MADE, *ADDS_MISSED,
    *ADDS_EXPECTED;
static PyObject *OUTCOMES, *BY_CATEGORY, *BY_TOOL, *BY_PARAMETER, *NULL_CATEGORY,
    *CORRECT_OUTCOME, *INCORRECT_OUTCOME, *UNWANTED_OUTCOME, *WAITING_ONE;

/* Whether a name is surely its own key in by_tool (folding.table_key): one that begins
 * with neither '<' (a bucket's) nor a backslash (the escape). */
static int
own_key(PyObject *name)
{
    if (PyUnicode_GET_LENGTH(name) == 0)
        return 1;
    Py_UCS4 first = PyUnicode_READ_CHAR(name, 0);
    return first != '<' && first != '\\';
}

/* A dict attribute of the section (a new reference), NULL with no error where it is no
 * dict. */
static PyObject *
section_dict(PyObject *section, PyObject *name)
{
    PyObject *value = PyObject_GetAttr(section, name);
    if (value != NULL && !PyDict_CheckExact(value))
        Py_CLEAR(value);
    return value;
}

/* EntryShapes.first's short path, in C: the shape of an entry whose every counter the
 * section holds already (EntryShapes._shape), made with `waiting` 1 (the entry itself)
 * and kept under `key` in the dict and here. 1 made, 0 left to first (a counter
 * missing, a name that may not be its own by_tool key, no maker), -1 an error. */
static int
first_known(ShapeTable *table, PyObject *key, ShapeParts *parts)
{
    if (table->maker == NULL)
        return 0;
    PyObject *section = parts->section, *tool = parts->tool, *made = parts->made;
    int same_tool = tool != Py_None && same_part(made, tool);
    PyObject *outcome = tool == Py_None ? UNWANTED_OUTCOME
                        : same_tool && !parts->mask ? CORRECT_OUTCOME
                                                    : INCORRECT_OUTCOME;
    int answer = -1, found;
    PyObject *outcomes = NULL, *by_category = NULL, *by_tool = NULL, *by_parameter = NULL;
    PyObject *tallies = NULL, *counters = NULL, *shape = NULL;
    outcomes = section_dict(section, OUTCOMES);
    by_category = section_dict(section, BY_CATEGORY);
    by_tool = section_dict(section, BY_TOOL);
    by_parameter = section_dict(section, BY_PARAMETER);
    if (outcomes == NULL || by_category == NULL || by_tool == NULL || by_parameter == NULL) {
        answer = PyErr_Occurred() ? -1 : 0;
        goto done;
    }
    found = PyDict_Contains(outcomes, outcome);
    if (found <= 0) { /* (else add() makes its counter) */
        answer = found;
        goto done;
    }
    answer = 0;
    PyObject *category = PyDict_GetItemWithError(
        by_category, parts->category == Py_None ? NULL_CATEGORY : parts->category);
    PyObject *made_tally = NULL, *expected_tally = NULL;
    if (category == NULL)
        goto missing;
    if (!same_tool && own_key(made)) {
        made_tally = PyDict_GetItemWithError(by_tool, made);
        if (made_tally == NULL && PyErr_Occurred())
            goto missing;
    }
    if (tool != Py_None) {
        if (!own_key(tool))
            goto done;
        expected_tally = PyDict_GetItemWithError(by_tool, tool);
        if (expected_tally == NULL)
            goto missing;
    }
    if (tool == Py_None || !same_tool) { /* no call expected, or another tool */
        if (made_tally == NULL)
            goto missing;
        tallies = tool == Py_None
                      ? Py_BuildValue("((OO)(OO))", category, ADDS_UNWANTED, made_tally, ADDS_MADE)
                      : Py_BuildValue("((OO)(OO)(OO))", category, ADDS_MISSED, expected_tally,
                                      ADDS_EXPECTED, made_tally, ADDS_MADE);
    }
    else {
        PyObject *one = parts->mask ? ADDS_WRONG : ADDS_RIGHT;
        tallies = Py_BuildValue("((OO)(OO))", category, one, expected_tally, one);
    }
    if (tallies == NULL)
        goto error;
    Py_ssize_t count = PyTuple_GET_SIZE(parts->parameters);
    PyObject *names = count ? PyDict_GetItemWithError(by_parameter, tool) : NULL;
    if (count && (names == NULL || !PyDict_CheckExact(names)))
        goto missing;
    counters = PyTuple_New(count);
    if (counters == NULL)
        goto error;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *parameter =
            PyDict_GetItemWithError(names, PyTuple_GET_ITEM(parts->parameters, i));
        if (parameter == NULL)
            goto missing;
        int matched = same_tool && !(parts->mask >> i & 1);
        PyObject *pair = PyTuple_Pack(2, parameter, matched ? Py_True : Py_False);
        if (pair == NULL)
            goto error;
        PyTuple_SET_ITEM(counters, i, pair);
    }
    PyObject *arguments[] = {section, outcome, tallies, counters, WAITING_ONE};
    shape = PyObject_Vectorcall(table->maker, arguments, 5, NULL);
    if (shape == NULL || PyDict_SetItem((PyObject *)table, key, shape) < 0 ||
        keep_shape(table, parts, shape) < 0)
        goto error;
    answer = 1;
    goto done;
missing:
    answer = PyErr_Occurred() ? -1 : 0;
    goto done;
error:
    answer = -1;
done:
    Py_XDECREF(outcomes);
    Py_XDECREF(by_category);
    Py_XDECREF(by_tool);
    Py_XDECREF(by_parameter);
    Py_XDECREF(tallies);
    Py_XDECREF(counters);
    Py_XDECREF(shape);
    return answer;
}

/* makes(cls): the class of the shapes the table makes itself (EntryShapes' _Shape:
 * cls(section, outcome, tallies, parameters, waiting)); until then, first makes them. */
static PyObject *
shape_table_makes(ShapeTable *table, PyObject *maker)
{
    Py_XSETREF(table->maker, Py_NewRef(maker));
    Py_RETURN_NONE;
}

static int
shape_table_traverse(ShapeTable *table, visitproc visit, void *arg)
{
    Py_VISIT(table->maker);
    for (Py_ssize_t i = 0; i < table->size; i++) {
        KnownShape *known = &table->known[i];
        Py_VISIT(known->section);
        Py_VISIT(known->category);
        Py_VISIT(known->tool);
        Py_VISIT(known->parameters);
        Py_VISIT(known->made);
        Py_VISIT(known->shape);
    }
    return PyDict_Type.tp_traverse((PyObject *)table, visit, arg);
}

/* (Its counts are dropped too: cleared, as a cycle being freed is, the table counts
 * nothing more.) */
static void
shape_table_forget(ShapeTable *table)
{
    KnownShape *known = table->known;
    Py_ssize_t size = table->size;
    table->known = NULL;
    table->size = table->used = 0;
    if (known != NULL) {
        forget_known(known, size);
        PyMem_Free(known);
    }
}

static int
shape_table_clear(ShapeTable *table)
{
    Py_CLEAR(table->maker);
    shape_table_forget(table);
    return PyDict_Type.tp_clear((PyObject *)table);
}

static void
shape_table_dealloc(ShapeTable *table)
{
    PyObject_GC_UnTrack(table);
    Py_CLEAR(table->maker);
    shape_table_forget(table);
    PyDict_Type.tp_dealloc((PyObject *)table);
}

/* _collide_shapes(on): with on, every key's hash the same (for tests, see
 * shape_hash_bits: set before a table is used, unset after; a table's shapes are placed
 * by the hash of their time). */
static PyObject *
collide_shapes(PyObject *module, PyObject *on)
{
    (void)module;
    int truth = PyObject_IsTrue(on);
    if (truth < 0)
        return NULL;
    shape_hash_bits = truth ? 0 : ~(Py_uhash_t)0;
    Py_RETURN_NONE;
}

static PyMethodDef shape_table_methods[] = {
    {"flush", (PyCFunction)shape_table_flush, METH_NOARGS,
     "Add each shape's count kept here to its waiting, and set it to 0."},
    {"makes", (PyCFunction)shape_table_makes, METH_O,
     "The class of the shapes the table makes itself, where every counter is there."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ShapeTableType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "toolaudit.truth._line_scores.ShapeTable",
    .tp_basicsize = sizeof(ShapeTable),
    .tp_dealloc = (destructor)shape_table_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "EntryShapes' shapes by key (a dict), those the kernel met also found and "
              "counted in C until flush().",
    .tp_traverse = (traverseproc)shape_table_traverse,
    .tp_clear = (inquiry)shape_table_clear,
    .tp_methods = shape_table_methods,
};

/* The type made ready and added to the module: 0, or -1. */
static int
add_shape_table(PyObject *module)
{
    ADDS_RIGHT = Py_BuildValue("(iiiii)", 1, 1, 1, 1, 1);
    ADDS_WRONG = Py_BuildValue("(iiiii)", 1, 0, 1, 1, 1);
    ADDS_UNWANTED = Py_BuildValue("(iiiii)", 1, 0, 1, 0, 0);
    ADDS_MADE = Py_BuildValue("(iiiii)", 0, 0, 1, 0, 0);
    ADDS_MISSED = Py_BuildValue("(iiiii)", 1, 0, 1, 1, 0);
    ADDS_EXPECTED = Py_BuildValue("(iiiii)", 1, 0, 0, 1, 0);
    OUTCOMES = PyUnicode_InternFromString("outcomes");
    BY_CATEGORY = PyUnicode_InternFromString("by_category");
    BY_TOOL = PyUnicode_InternFromString("by_tool");
    BY_PARAMETER = PyUnicode_InternFromString("by_parameter");
    NULL_CATEGORY = PyUnicode_InternFromString("null");
    CORRECT_OUTCOME = PyUnicode_InternFromString("correct");
    INCORRECT_OUTCOME = PyUnicode_InternFromString("incorrect");
    UNWANTED_OUTCOME = PyUnicode_InternFromString("unwanted_call");
    WAITING_ONE = PyLong_FromLong(1);
    if (ADDS_RIGHT == NULL || ADDS_WRONG == NULL || ADDS_UNWANTED == NULL ||
        ADDS_MADE == NULL || ADDS_MISSED == NULL || ADDS_EXPECTED == NULL || OUTCOMES == NULL ||
        BY_CATEGORY == NULL || BY_TOOL == NULL || BY_PARAMETER == NULL ||
        NULL_CATEGORY == NULL || CORRECT_OUTCOME == NULL || INCORRECT_OUTCOME == NULL ||
        UNWANTED_OUTCOME == NULL || WAITING_ONE == NULL)
        return -1;
    ShapeTableType.tp_base = &PyDict_Type;
    if (PyType_Ready(&ShapeTableType) < 0)
        return -1;
    Py_INCREF(&ShapeTableType);
    if (PyModule_AddObject(module, "ShapeTable", (PyObject *)&ShapeTableType) < 0) {
        Py_DECREF(&ShapeTableType);
        return -1;
    }
    return 0;
}

#endif
