/* The least that scoring against an eval set can cost, for benchmarks/scoring_floor.py:
 * not toolaudit's scoring, a lower bound of any scoring that reads the expected file and
 * the record's call as text. It does only what every design must do, each step as
 * cheaply as C does it, and leaves out all that a real one needs besides (UTF-8 checks,
 * escapes, numbers compared by value, schema defaults, mismatch paths, --scores lines,
 * the categories' and parameters' counts by name):
 *
 * index(data) -> dict: the expected file's lines walked once (memchr), each line's id read
 * where it begins the line, made a str and put in a dict with the line's offset: no
 * Python object an entry but its key and an int; the rest of the line is read (and
 * checked) when it is scored.
 *
 * score(index, expected, log) -> (same, different, unscored): each record line read in one
 * validating pass for its "id", "name" and "arguments" (their members found as it goes);
 * its entry found (a str made, a dict look-up), marked scored (a set), its line read in
 * one validating pass for its call's "name" and "arguments"; the names compared, then the
 * arguments as objects, keys in any order, each value's text compared with whitespace
 * outside strings skipped; the entry counted by a hash of its tool and parameters' names
 * in a C table (its shape, collisions not told apart).
 *
 * score(..., False) is the same without the record's call: its id read where it begins the
 * line (as if the audit's own reading of the record handed it over), nothing compared:
 * the expected side's part.
 *
 * Lines of another layout than the benchmark writes are skipped, not read: a floor.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

typedef const unsigned char *Byte;

#define MOST_MEMBERS 64
#define MAX_DEPTH 64

static Byte
space(Byte at, Byte end)
{
    while (at < end && (*at == ' ' || *at == '\t' || *at == '\n' || *at == '\r'))
        at++;
    return at;
}

/* A string from its quote: past its closing quote, or NULL. Eight bytes at a time: a
 * word holds a quote, a backslash or a control character where one of its bytes does. */
static Byte
skip_string(Byte at, Byte end)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    for (at++; end - at >= 8;) {
        uint64_t word, quote, slash, found;
        memcpy(&word, at, 8);
        quote = word ^ (ones * '"');
        slash = word ^ (ones * '\\');
        found = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | ((word - ones * 0x20) & ~word);
        found &= highs;
        if (!found) {
            at += 8;
            continue;
        }
        at += __builtin_ctzll(found) >> 3;
        break;
    }
    for (; at < end; at++) {
        if (*at == '"')
            return at + 1;
        if (*at == '\\')
            at++;
        else if (*at < 0x20)
            return NULL;
    }
    return NULL;
}

static Byte
skip_number(Byte at, Byte end)
{
    Byte start = at;
    while (at < end && ((*at >= '0' && *at <= '9') || *at == '-' || *at == '+' || *at == '.' ||
                        *at == 'e' || *at == 'E'))
        at++;
    return at > start ? at : NULL;
}

static Byte skip_value(Byte at, Byte end, int depth);

/* A container from its bracket: past its closing one, or NULL. */
static Byte
skip_container(Byte at, Byte end, int depth)
{
    int object = *at == '{';
    unsigned char close = object ? '}' : ']';
    if (depth > MAX_DEPTH)
        return NULL;
    at = space(at + 1, end);
    if (at < end && *at == close)
        return at + 1;
    for (;;) {
        if (object) {
            if (at >= end || *at != '"' || !(at = skip_string(at, end)))
                return NULL;
            at = space(at, end);
            if (at >= end || *at != ':')
                return NULL;
            at = space(at + 1, end);
        }
        if (!(at = skip_value(at, end, depth + 1)))
            return NULL;
        at = space(at, end);
        if (at < end && *at == ',') {
            at = space(at + 1, end);
            continue;
        }
        return at < end && *at == close ? at + 1 : NULL;
    }
}

static Byte
skip_value(Byte at, Byte end, int depth)
{
    if (at >= end)
        return NULL;
    switch (*at) {
    case '"':
        return skip_string(at, end);
    case '{':
    case '[':
        return skip_container(at, end, depth);
    case 't':
        return end - at >= 4 && !memcmp(at, "true", 4) ? at + 4 : NULL;
    case 'f':
        return end - at >= 5 && !memcmp(at, "false", 5) ? at + 5 : NULL;
    case 'n':
        return end - at >= 4 && !memcmp(at, "null", 4) ? at + 4 : NULL;
    default:
        return skip_number(at, end);
    }
}

typedef struct {
    Byte key, key_end, value, value_end;
} Member;

typedef struct Inner {
    const char *key;     /* the key whose value is read here, not skipped; NULL: none */
    Member *found;       /* its members, where it is an object (or a list of one) */
    int count;           /* how many (-1: not read) */
    struct Inner *next;  /* within it, the same again */
} Inner;

static int named_text(Byte key, Byte key_end, const char *name);

/* An object's members (at most `most`), read and validated: their count, or -1. The
 * value of `inner`'s key, an object, has its members read into `inner` as it is passed
 * (one pass). */
static int
members(Byte at, Byte end, Member *found, int most, Byte *past, Inner *inner)
{
    int count = 0;
    at = space(at, end);
    if (at >= end || *at != '{')
        return -1;
    at = space(at + 1, end);
    if (at < end && *at == '}') {
        *past = at + 1;
        return 0;
    }
    for (;;) {
        Member m;
        if (at >= end || *at != '"')
            return -1;
        m.key = at + 1;
        if (!(at = skip_string(at, end)))
            return -1;
        m.key_end = at - 1;
        at = space(at, end);
        if (at >= end || *at != ':')
            return -1;
        m.value = at = space(at + 1, end);
        if (inner && at < end && (*at == '{' || *at == '[') &&
            named_text(m.key, m.key_end, inner->key)) {
            int list = *at == '[';
            if (list)
                at = space(at + 1, end);
            inner->count = members(at, end, inner->found, MOST_MEMBERS, &at, inner->next);
            if (inner->count < 0)
                return -1;
            if (list) {
                at = space(at, end);
                if (at >= end || *at != ']')
                    return -1;
                at++;
            }
        } else if (!(at = skip_value(at, end, 1)))
            return -1;
        m.value_end = at;
        if (count == most)
            return -1;
        found[count++] = m;
        at = space(at, end);
        if (at < end && *at == ',') {
            at = space(at + 1, end);
            continue;
        }
        if (at < end && *at == '}') {
            *past = at + 1;
            return count;
        }
        return -1;
    }
}

static inline int
named_text(Byte key, Byte key_end, const char *name)
{
    size_t length = __builtin_strlen(name);
    return (size_t)(key_end - key) == length && !memcmp(key, name, length);
}

static int
named(const Member *m, const char *name)
{
    return named_text(m->key, m->key_end, name);
}

/* An object's values of up to three keys (NULL where absent), *past after it. 0 if it is
 * not one. */
static int
fields(Byte at, Byte end, const char **names, int count, Member *out, Byte *past, Inner *inner)
{
    Member found[MOST_MEMBERS];
    int n = members(at, end, found, MOST_MEMBERS, past, inner);
    if (n < 0)
        return 0;
    for (int k = 0; k < count; k++) {
        out[k].value = NULL;
        for (int i = 0; i < n; i++)
            if (named(&found[i], names[k]))
                out[k] = found[i];
    }
    return 1;
}

static Byte
line_end(Byte at, Byte end)
{
    Byte found = memchr(at, '\n', end - at);
    return found ? found : end;
}

/* The id of a line that begins with it, {"id": "..."; NULL otherwise. The rest of the line
 * is read when its entry is scored (a line no record asks for is read at the end). */
static Byte
leading_id(Byte at, Byte end, Byte *id_end)
{
    at = space(at, end);
    if (end - at < 6 || memcmp(at, "{\"id\"", 5))
        return NULL;
    at = space(at + 5, end);
    if (at >= end || *at != ':')
        return NULL;
    at = space(at + 1, end);
    if (at >= end || *at != '"')
        return NULL;
    Byte past = skip_string(at, end);
    if (!past)
        return NULL;
    *id_end = past - 1;
    return at + 1;
}

static PyObject *
index_lines(PyObject *module, PyObject *arg)
{
    Py_buffer data;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0)
        return NULL;
    PyObject *index = PyDict_New();
    Byte start = data.buf, end = start + data.len;
    for (Byte at = start; index && at < end;) {
        Byte stop = line_end(at, end), id_end;
        Byte id = leading_id(at, stop, &id_end);
        if (id) {
            PyObject *key = PyUnicode_DecodeUTF8((const char *)id, id_end - id, NULL);
            PyObject *offset = key ? PyLong_FromSsize_t(at - start) : NULL;
            if (!offset || PyDict_SetItem(index, key, offset) < 0)
                Py_CLEAR(index);
            Py_XDECREF(key);
            Py_XDECREF(offset);
        }
        at = stop + 1;
    }
    PyBuffer_Release(&data);
    return index;
}

/* Two values' texts the same, whitespace outside strings skipped (a value's text is its
 * token's, spaces only inside a container). */
static int
same_text(Byte a, Byte a_end, Byte b, Byte b_end)
{
    if (*a != '{' && *a != '[')
        return a_end - a == b_end - b && !memcmp(a, b, a_end - a);
    for (;;) {
        a = space(a, a_end);
        b = space(b, b_end);
        if (a == a_end || b == b_end)
            return a == a_end && b == b_end;
        if (*a != *b)
            return 0;
        if (*a == '"') {
            Byte a_past = skip_string(a, a_end), b_past = skip_string(b, b_end);
            if (!a_past || !b_past || a_past - a != b_past - b || memcmp(a, b, a_past - a))
                return 0;
            a = a_past;
            b = b_past;
        } else {
            a++;
            b++;
        }
    }
}

#define SHAPES 4096
static Py_ssize_t shape_counts[SHAPES];

static inline uint64_t
mix(uint64_t hash, Byte at, Byte end)
{
    for (; at < end; at++)
        hash = (hash ^ *at) * 0x100000001b3ULL;
    return hash;
}

static PyObject *
score(PyObject *module, PyObject *args)
{
    static const char *record_names[] = {"id", "name", "arguments"};
    static const char *entry_names[] = {"calls"};
    PyObject *index, *expected_arg, *log_arg;
    int record_side = 1;
    Py_buffer expected, log;
    if (!PyArg_ParseTuple(args, "O!OO|p", &PyDict_Type, &index, &expected_arg, &log_arg,
                          &record_side))
        return NULL;
    if (PyObject_GetBuffer(expected_arg, &expected, PyBUF_SIMPLE) < 0)
        return NULL;
    if (PyObject_GetBuffer(log_arg, &log, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&expected);
        return NULL;
    }
    PyObject *scored = PySet_New(NULL);
    Py_ssize_t same = 0, different = 0, unscored = 0;
    Byte e_start = expected.buf, e_end = e_start + expected.len;
    Byte end = (Byte)log.buf + log.len;
    for (Byte at = log.buf; scored && at < end;) {
        Byte stop = line_end(at, end);
        Member record[3], entry[1], call[MOST_MEMBERS];
        Member made[MOST_MEMBERS], wanted[MOST_MEMBERS];
        PyObject *key = NULL, *offset;
        Byte past, line;
        int n_made, n_wanted, equal;
        uint64_t shape;
        Inner arguments_made = {"arguments", made, -1, NULL};
        if (!record_side) {
            /* the id alone, as if the audit's own reading of the record handed it over */
            Byte id_end, id = leading_id(at, stop, &id_end);
            if (!id)
                goto unscored;
            record[0].value = id - 1;
            record[0].value_end = id_end + 1;
            n_made = 0;
        } else if (!fields(at, stop, record_names, 3, record, &past, &arguments_made) ||
                   space(past, stop) != stop || !record[0].value || *record[0].value != '"' ||
                   !record[1].value || arguments_made.count < 0)
            goto unscored;
        else
            n_made = arguments_made.count;
        key = PyUnicode_DecodeUTF8((const char *)record[0].value + 1,
                                   record[0].value_end - record[0].value - 2, NULL);
        if (!key) {
            Py_CLEAR(scored);
            break;
        }
        offset = PyDict_GetItemWithError(index, key);
        if (!offset || PySet_Add(scored, key) < 0)
            goto unscored;
        line = e_start + PyLong_AsSsize_t(offset);
        Byte e_stop = line_end(line, e_end);
        /* {"id": ..., "calls": [{"name": ..., "arguments": {...}}], ...}, in one pass */
        Inner arguments_wanted = {"arguments", wanted, -1, NULL};
        Inner the_call = {"calls", call, -1, &arguments_wanted};
        if (!fields(line, e_stop, entry_names, 1, entry, &past, &the_call) ||
            space(past, e_stop) != e_stop || the_call.count < 0 || arguments_wanted.count < 0)
            goto unscored;
        Member *name = NULL;
        for (int k = 0; k < the_call.count; k++)
            if (named(&call[k], "name"))
                name = &call[k];
        if (!name)
            goto unscored;
        n_wanted = arguments_wanted.count;
        if (!record_side) {
            shape = mix(0xcbf29ce484222325ULL, name->value, name->value_end);
            for (int w = 0; w < n_wanted; w++)
                shape = mix(shape, wanted[w].key, wanted[w].key_end);
            shape_counts[shape % SHAPES]++;
            same++;
            Py_DECREF(key);
            at = stop + 1;
            continue;
        }
        equal = same_text(record[1].value, record[1].value_end, name->value, name->value_end) &&
                n_made == n_wanted;
        shape = mix(0xcbf29ce484222325ULL, name->value, name->value_end);
        for (int w = 0; w < n_wanted; w++) {
            int found = 0;
            shape = mix(shape, wanted[w].key, wanted[w].key_end);
            for (int m = 0; m < n_made && !found; m++)
                if (made[m].key_end - made[m].key == wanted[w].key_end - wanted[w].key &&
                    !memcmp(made[m].key, wanted[w].key, wanted[w].key_end - wanted[w].key)) {
                    found = 1;
                    if (!same_text(made[m].value, made[m].value_end, wanted[w].value,
                                   wanted[w].value_end)) {
                        equal = 0;
                        shape ^= (uint64_t)1 << (w & 63);
                    }
                }
            if (!found)
                equal = 0;
        }
        shape_counts[shape % SHAPES]++;
        if (equal)
            same++;
        else
            different++;
        Py_DECREF(key);
        at = stop + 1;
        continue;
    unscored:
        if (PyErr_Occurred())
            Py_CLEAR(scored);
        Py_XDECREF(key);
        unscored++;
        at = stop + 1;
    }
    PyBuffer_Release(&expected);
    PyBuffer_Release(&log);
    if (!scored)
        return NULL;
    Py_DECREF(scored);
    return Py_BuildValue("nnn", same, different, unscored);
}

static PyMethodDef methods[] = {
    {"index", index_lines, METH_O, "The expected lines' offsets by id."},
    {"score", score, METH_VARARGS, "(same, different, unscored) of the log's records."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "scoring_floor", NULL, -1, methods};

PyMODINIT_FUNC
PyInit_scoring_floor(void)
{
    return PyModule_Create(&module);
}
