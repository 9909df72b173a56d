/* Searches of a JSON text's bytes, in C: an optional speedup of toolaudit.jsonutil.
 *
 * The readers ask of every long line whether it may hold a number orjson reads otherwise
 * than the exact parse (an integer of 19 digits or more, an exponent of three digits, a
 * number below a double's range) and how many brackets it opens; Python answers with
 * several passes of bytes.find, bytes.count and bytes.translate over the line, each
 * slowed by the line's common letters. These answer in one pass, with no copy:
 *
 *   number_marks(data) -> int: the LONG_RUN and EXPONENT bits (see jsonutil);
 *   tiny_numbers(data) -> bool: whether an exponent after a digit is a minus sign and
 *       three digits or more (a number below a double's range);
 *   opening_brackets(data) -> int: how many '[' and '{' the text holds.
 *
 * `data` is any object with the buffer protocol (bytes, a msgspec Raw, a memoryview).
 * tests/test_number_searches.py holds them to the pure-Python searches.
 *
 * And one for toolaudit.lines: split_newlines(chunk) -> chunk.split(b"\n"), for bytes,
 * each line found by memchr, where bytes.split looks at every byte in turn (on the
 * stream benchmarks' logs, a line's split took some 1,400 instructions; tests/test_sources.py
 * holds it to bytes.split). Built at install
 * when a C compiler is there (setup.py); without it, or with TOOLAUDIT_PURE_PYTHON=1, the
 * pure searches run alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { LONG_RUN = 1, EXPONENT = 2 };

static inline int
is_digit(unsigned char byte)
{
    return byte >= '0' && byte <= '9';
}

/* Whether the three bytes from `at` are digits (and there are three). */
static inline int
three_digits(const unsigned char *text, Py_ssize_t at, Py_ssize_t length)
{
    return at + 3 <= length && is_digit(text[at]) && is_digit(text[at + 1]) &&
           is_digit(text[at + 2]);
}

static inline int
is_exponent_mark(unsigned char byte)
{
    return byte == 'e' || byte == 'E';
}

/* Every third byte looked at: a run of three digits or more holds one of them. Where it is
   a digit, its run is measured once, whole: 19 digits or more are a LONG_RUN; three or more
   right after an exponent's mark ('e' or 'E', and a sign or not), an EXPONENT. */
static PyObject *
number_marks(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *text = view.buf;
    Py_ssize_t length = view.len;
    long marks = 0;
    for (Py_ssize_t i = 2; i < length; i += 3) {
        if (!is_digit(text[i]))
            continue;
        Py_ssize_t first = i, end = i + 1;
        while (first > 0 && is_digit(text[first - 1]))
            first--;
        while (end < length && is_digit(text[end]))
            end++;
        if (end - first >= 19)
            marks |= LONG_RUN;
        if (end - first >= 3) {
            unsigned char before = first >= 1 ? text[first - 1] : 0;
            if (is_exponent_mark(before) ||
                ((before == '+' || before == '-') && first >= 2 &&
                 is_exponent_mark(text[first - 2])))
                marks |= EXPONENT;
        }
        i = end - 1; /* the next looked at: end + 2, as the run ends at a byte not a digit */
    }
    PyBuffer_Release(&view);
    return PyLong_FromLong(marks);
}

/* Whether a number may be below a double's range, as the readers ask of every line: each
   '-' found by memchr (a few a line, where a digit or a letter is every other byte), then
   the bytes around it. */
static PyObject *
tiny_numbers(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *text = view.buf, *end = text + view.len, *minus = text;
    int found = 0;
    while (!found && (minus = memchr(minus, '-', (size_t)(end - minus))) != NULL) {
        Py_ssize_t at = minus - text;
        found = at >= 2 && (text[at - 1] == 'e' || text[at - 1] == 'E') &&
                is_digit(text[at - 2]) && three_digits(text, at + 1, view.len);
        minus++;
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

static PyObject *
opening_brackets(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    const unsigned char *text = view.buf;
    Py_ssize_t count = 0;
    for (Py_ssize_t i = 0; i < view.len; i++)
        count += text[i] == '[' || text[i] == '{';
    PyBuffer_Release(&view);
    return PyLong_FromSsize_t(count);
}

static PyObject *
split_newlines(PyObject *module, PyObject *chunk)
{
    if (!PyBytes_Check(chunk)) {
        PyErr_SetString(PyExc_TypeError, "split_newlines() takes bytes");
        return NULL;
    }
    const char *at = PyBytes_AS_STRING(chunk);
    const char *end = at + PyBytes_GET_SIZE(chunk);
    const char *newline = memchr(at, '\n', end - at);
    if (newline == NULL && PyBytes_CheckExact(chunk))
        return Py_BuildValue("[O]", chunk); /* (as bytes.split: the chunk itself) */
    PyObject *lines = PyList_New(0);
    if (lines == NULL)
        return NULL;
    for (;;) {
        const char *stop = newline == NULL ? end : newline;
        PyObject *line = PyBytes_FromStringAndSize(at, stop - at);
        if (line == NULL || PyList_Append(lines, line)) {
            Py_XDECREF(line);
            Py_DECREF(lines);
            return NULL;
        }
        Py_DECREF(line);
        if (newline == NULL)
            return lines;
        at = newline + 1;
        newline = memchr(at, '\n', end - at);
    }
}

static PyMethodDef methods[] = {
    {"number_marks", number_marks, METH_O,
     "The LONG_RUN and EXPONENT bits of a JSON text's numbers (see toolaudit.jsonutil)."},
    {"tiny_numbers", tiny_numbers, METH_O,
     "Whether a JSON text may hold a number below a double's range."},
    {"opening_brackets", opening_brackets, METH_O, "How many '[' and '{' a text holds."},
    {"split_newlines", split_newlines, METH_O, "chunk.split(b'\\n') of bytes, by memchr."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_text_speedups",
    "Searches of a JSON text's bytes, in C (see toolaudit.jsonutil).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__text_speedups(void)
{
    return PyModule_Create(&module_definition);
}
