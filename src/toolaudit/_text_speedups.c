/* Searches of a JSON text's bytes, in C: an optional speedup of toolaudit.jsonutil.
 *
 * The readers ask of every long line whether it may hold a number orjson reads otherwise
 * than the exact parse (an integer of 19 digits or more, an exponent of three digits, a
 * number below a double's range) and how many brackets it opens; Python answers with
 * several passes of bytes.find, bytes.count and bytes.translate over the line, each
 * slowed by the line's common letters. These answer in one pass, with no copy:
 *
 *   number_marks(data) -> int: the LONG_RUN, EXPONENT and TINY_EXPONENT bits (see
 *       jsonutil; the last, tiny_numbers's answer, so that the general reader asks one
 *       pass of a line for a long integer or a tiny number);
 *   tiny_numbers(data) -> bool: whether an exponent after a digit is a minus sign and
 *       three digits or more (a number below a double's range);
 *   misread_numbers(data) -> bool: whether msgspec may read a number otherwise than the
 *       exact parse, in a field it reads or skips (the tiny numbers, and those past
 *       1e±10000 or 10,000 digits: _misread_numbers.h), as the typed readers ask of every
 *       line; and, for the tests alone, _plain_, _narrow_ and _wide_misread_exponents(data),
 *       its search of the exponents' marks by each of the ways the build may choose;
 *   opening_brackets(data) -> int: how many '[' and '{' the text holds.
 *
 * `data` is any object with the buffer protocol (bytes, a msgspec Raw, a memoryview).
 * tests/test_number_searches.py holds them to the pure-Python searches.
 *
 * And one for toolaudit.lines: split_newlines(chunk) -> chunk.split(b"\n"), for bytes,
 * each line found by memchr, where bytes.split looks at every byte in turn (on the
 * stream benchmarks' logs, a line's split took some 1,400 instructions; tests/test_sources.py
 * holds it to bytes.split).
 *
 * And one for toolaudit.pipeline.rows: valid_row_line((head, tools, models, otherwise), line,
 * index, call_id, tool, model) -> a valid call's report line, the bytes orjson writes of
 * its row's dict, made in one copy where the id is a string or null and the writer keeps
 * the tool's and the model's parts; any other line is otherwise(...)'s, the Python
 * writer's (tests/pipeline/test_rows.py holds the two to the dict's line); and
 * failing_row_line((head, otherwise), line, index, call_id, tool, model, errors, why) the
 * same of a failing call's line, its errors a list of strings and its reasons a dict of
 * them. Built at install
 * when a C compiler is there (setup.py); without it, or with TOOLAUDIT_PURE_PYTHON=1, the
 * pure searches run alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "_misread_numbers.h"

enum { LONG_RUN = 1, EXPONENT = 2, TINY_EXPONENT = 4 };

/* Every third byte looked at: a run of three digits or more holds one of them. Where it is
   a digit, its run is measured once, whole: 19 digits or more are a LONG_RUN; three or more
   right after an exponent's mark ('e' or 'E', and a sign or not), an EXPONENT, and a
   TINY_EXPONENT where the sign is a minus and a digit comes before the mark. */
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
            if (before == '-' && first >= 3 && is_exponent_mark(text[first - 2]) &&
                is_digit(text[first - 3]))
                marks |= TINY_EXPONENT; /* holds_tiny_number's */
        }
        i = end - 1; /* the next looked at: end + 2, as the run ends at a byte not a digit */
    }
    PyBuffer_Release(&view);
    return PyLong_FromLong(marks);
}

/* Whether a number may be below a double's range, as the readers ask of every line
   (holds_tiny_number, which the stream speedups ask of a call's arguments too). */
static PyObject *
tiny_numbers(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int found = holds_tiny_number(view.buf, view.len);
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

static PyObject *
misread_numbers(PyObject *module, PyObject *data)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    int found = holds_misread_number(view.buf, view.len);
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

/* The test-only searches of the exponents' marks alone (_plain_, _narrow_ and
   _wide_misread_exponents: misread_numbers less its runs of digits), each by one of the
   searches holds_misread_number chooses from, whichever the build and the CPU would choose,
   so that tests/test_number_searches.py holds every one to the pattern. `shortest`: the
   shortest text the search reads (the wide one: more than 64 bytes). */
typedef int (*MarkSearch)(const unsigned char *text, Py_ssize_t length);

static PyObject *
misread_exponents_by(PyObject *data, MarkSearch search, Py_ssize_t shortest)
{
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0)
        return NULL;
    Py_ssize_t length = view.len;
    int found = length >= shortest && length >= 2 && search(view.buf, length);
    PyBuffer_Release(&view);
    if (length < shortest)
        return PyErr_Format(PyExc_ValueError, "this search reads texts of %zd bytes or more",
                            shortest);
    return PyBool_FromLong(found);
}

static PyObject *
plain_misread_exponents(PyObject *module, PyObject *data)
{
    return misread_exponents_by(data, plain_misread_number, 0);
}

#ifdef __SSE2__
static PyObject *
narrow_misread_exponents(PyObject *module, PyObject *data)
{
    return misread_exponents_by(data, narrow_misread_number, 0);
}
#endif

#ifdef WITH_AVX2
static PyObject *
wide_misread_exponents(PyObject *module, PyObject *data)
{
    if (!avx2)
        return PyErr_Format(PyExc_RuntimeError, "this CPU runs no AVX2");
    return misread_exponents_by(data, wide_misread_number, 65);
}
#endif

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

/* The bytes orjson writes of a string: its UTF-8 between quotes, '"' and '\\' escaped, and
   the control characters below 0x20 (\b \t \n \f \r by their letters, the others as
   \u00XX), nothing else. Writes them at `out` (NULL: only counts); returns their length. */
static Py_ssize_t
json_string(const unsigned char *text, Py_ssize_t length, char *out)
{
    static const char hex[] = "0123456789abcdef";
    /* Most strings escape nothing: their bytes up to the first that is escaped, copied whole,
       found eight at a time (whether any of eight bytes is below 0x20, a '"' or a '\\': the
       exact tests of "a byte below n" and "a zero byte" on a 64-bit word). */
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    Py_ssize_t plain = 0;
    for (uint64_t word; plain + 8 <= length; plain += 8) {
        memcpy(&word, text + plain, 8);
        uint64_t quote = word ^ (ones * '"'), backslash = word ^ (ones * '\\');
        if (((word - ones * 0x20) & ~word & highs) || ((quote - ones) & ~quote & highs) ||
            ((backslash - ones) & ~backslash & highs))
            break;
    }
    while (plain < length && text[plain] >= 0x20 && text[plain] != '"' && text[plain] != '\\')
        plain++;
    Py_ssize_t size = 2 + plain;
    if (out != NULL) {
        *out++ = '"';
        memcpy(out, text, (size_t)plain);
        out += plain;
    }
    for (Py_ssize_t i = plain; i < length; i++) {
        unsigned char byte = text[i];
        char letter = 0;
        if (byte >= 0x20 && byte != '"' && byte != '\\') {
            size++;
            if (out != NULL)
                *out++ = (char)byte;
            continue;
        }
        switch (byte) {
        case '"': letter = '"'; break;
        case '\\': letter = '\\'; break;
        case '\b': letter = 'b'; break;
        case '\t': letter = 't'; break;
        case '\n': letter = 'n'; break;
        case '\f': letter = 'f'; break;
        case '\r': letter = 'r'; break;
        }
        if (letter) {
            size += 2;
            if (out != NULL) {
                *out++ = '\\';
                *out++ = letter;
            }
        } else {
            size += 6;
            if (out != NULL) {
                memcpy(out, "\\u00", 4);
                out[4] = hex[byte >> 4];
                out[5] = hex[byte & 15];
                out += 6;
            }
        }
    }
    if (out != NULL)
        *out = '"';
    return size;
}

/* The decimal digits of `number` written at `out` (24 bytes of room); returns how many. */
static int
decimal(long long number, char *out)
{
    char digits[24];
    int count = 0, length = 0;
    unsigned long long left = number < 0 ? 0 - (unsigned long long)number : (unsigned long long)number;
    do {
        digits[count++] = (char)('0' + left % 10);
        left /= 10;
    } while (left);
    if (number < 0)
        out[length++] = '-';
    while (count)
        out[length++] = digits[--count];
    return length;
}

/* A row's line, written in two passes over the same steps: the first (`out` NULL) counts
   its bytes, the second writes them. */
typedef struct {
    char *out;
    Py_ssize_t size;
} Line;

static void
put(Line *line, const char *text, Py_ssize_t length)
{
    if (line->out != NULL) {
        memcpy(line->out, text, (size_t)length);
        line->out += length;
    }
    line->size += length;
}

/* `text`, an exact str, as orjson writes it; 0 where it has no UTF-8 (a lone surrogate). */
static int
put_string(Line *line, PyObject *text)
{
    Py_ssize_t length;
    const char *utf8 = PyUnicode_AsUTF8AndSize(text, &length);
    if (utf8 == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t size = json_string((const unsigned char *)utf8, length, line->out);
    if (line->out != NULL)
        line->out += size;
    line->size += size;
    return 1;
}

/* A row's line and index (row[0] and row[1], exact ints) in decimal, at `numbers` with their
   `lengths`: 1, or 0 where one is past 64 bits (the Python writer's then). */
static int
row_numbers(PyObject *const *row, char numbers[2][24], int lengths[2])
{
    for (int i = 0; i < 2; i++) {
        long long number = PyLong_AsLongLong(row[i]);
        if (number == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        lengths[i] = decimal(number, numbers[i]);
    }
    return 1;
}

/* A row's place after its head: its line, its index and its id (`call_id`, an exact str or
   None); 0 where the id has no UTF-8 (a lone surrogate: orjson refuses it too). */
static int
put_place(Line *line, const char numbers[2][24], const int lengths[2], PyObject *call_id)
{
    put(line, numbers[0], lengths[0]);
    put(line, ",\"index\":", 9);
    put(line, numbers[1], lengths[1]);
    put(line, ",\"id\":", 6);
    if (call_id == Py_None) {
        put(line, "null", 4);
        return 1;
    }
    return put_string(line, call_id);
}

/* valid_row_line((head, tools, models, otherwise), line, index, call_id, tool, model): see the
   top. The parts kept for `tool` and `model` are looked up in `tools` and `models` (dicts
   the Python writer fills); where one is missing, the id is no string or null, or a string
   has no UTF-8 (a lone surrogate), or a number is past 64 bits, the line is
   `otherwise(line, index, call_id, tool, model)`: the Python writer's. */
static PyObject *
valid_row_line(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *parts = nargs == 6 ? args[0] : NULL;
    if (parts == NULL || !PyTuple_CheckExact(parts) || PyTuple_GET_SIZE(parts) != 4 ||
        !PyBytes_Check(PyTuple_GET_ITEM(parts, 0)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(parts, 1)) ||
        !PyDict_CheckExact(PyTuple_GET_ITEM(parts, 2))) {
        PyErr_SetString(PyExc_TypeError, "valid_row_line((head, tools, models, otherwise), "
                                         "line, index, call_id, tool, model)");
        return NULL;
    }
    PyObject *head = PyTuple_GET_ITEM(parts, 0), *tools = PyTuple_GET_ITEM(parts, 1);
    PyObject *models = PyTuple_GET_ITEM(parts, 2), *otherwise = PyTuple_GET_ITEM(parts, 3);
    PyObject *const *row = args + 1;
    PyObject *call_id = row[2], *tool_part = NULL, *tail = NULL;
    if (PyUnicode_CheckExact(row[3]) && (row[4] == Py_None || PyUnicode_CheckExact(row[4])) &&
        PyLong_CheckExact(row[0]) && PyLong_CheckExact(row[1])) {
        tool_part = PyDict_GetItemWithError(tools, row[3]);
        tail = tool_part == NULL ? NULL : PyDict_GetItemWithError(models, row[4]);
        if (tail == NULL && PyErr_Occurred())
            return NULL;
    }
    char numbers[2][24];
    int lengths[2];
    Line counted = {NULL, PyBytes_GET_SIZE(head)};
    if (tail == NULL || !(call_id == Py_None || PyUnicode_CheckExact(call_id)) ||
        !row_numbers(row, numbers, lengths) || !put_place(&counted, numbers, lengths, call_id))
        return PyObject_Vectorcall(otherwise, row, 5, NULL);
    if (!PyBytes_Check(tool_part) || !PyBytes_Check(tail)) {
        PyErr_SetString(PyExc_TypeError, "valid_row_line: the parts kept must be bytes");
        return NULL;
    }
    PyObject *made =
        PyBytes_FromStringAndSize(NULL, counted.size + PyBytes_GET_SIZE(tool_part) +
                                            PyBytes_GET_SIZE(tail));
    if (made == NULL)
        return NULL;
    Line written = {PyBytes_AS_STRING(made), 0};
    put(&written, PyBytes_AS_STRING(head), PyBytes_GET_SIZE(head));
    put_place(&written, numbers, lengths, call_id);
    put(&written, PyBytes_AS_STRING(tool_part), PyBytes_GET_SIZE(tool_part));
    put(&written, PyBytes_AS_STRING(tail), PyBytes_GET_SIZE(tail));
    return made;
}

/* The steps of failing_row_line's line after its head; 0 where a part is not what it
   writes (checked in the first pass: the second then writes them all). */
static int
put_failing_row(Line *line, const char numbers[2][24], const int lengths[2],
                PyObject *const *row)
{
    PyObject *model = row[4], *errors = row[5], *why = row[6];
    if (!put_place(line, numbers, lengths, row[2]))
        return 0;
    put(line, ",\"tool\":", 8);
    if (!put_string(line, row[3]))
        return 0;
    if (model != Py_None) {
        put(line, ",\"model\":", 9);
        if (!put_string(line, model))
            return 0;
    }
    put(line, ",\"ok\":false,\"errors\":[", 22);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(errors); i++) {
        PyObject *error = PyList_GET_ITEM(errors, i);
        if (i)
            put(line, ",", 1);
        if (!PyUnicode_CheckExact(error) || !put_string(line, error))
            return 0;
    }
    put(line, "],\"why\":{", 9);
    Py_ssize_t at = 0, count = 0;
    PyObject *key, *reason;
    while (PyDict_Next(why, &at, &key, &reason)) {
        if (count++)
            put(line, ",", 1);
        if (!PyUnicode_CheckExact(key) || !PyUnicode_CheckExact(reason) ||
            !put_string(line, key))
            return 0;
        put(line, ":", 1);
        if (!put_string(line, reason))
            return 0;
    }
    put(line, "}}\n", 3);
    return 1;
}

/* failing_row_line((head, otherwise), line, index, call_id, tool, model, errors, why): a
   failing call's report line, the bytes orjson writes of its row's dict, where the id and
   the model are strings or null, the tool a string, the errors a list of strings and the
   reasons a dict of strings, each with UTF-8 (no lone surrogate), and the numbers within
   64 bits; else otherwise(line, index, call_id, tool, model, errors, why)'s. */
static PyObject *
failing_row_line(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *parts = nargs == 8 ? args[0] : NULL;
    if (parts == NULL || !PyTuple_CheckExact(parts) || PyTuple_GET_SIZE(parts) != 2 ||
        !PyBytes_Check(PyTuple_GET_ITEM(parts, 0))) {
        PyErr_SetString(PyExc_TypeError, "failing_row_line((head, otherwise), line, index, "
                                         "call_id, tool, model, errors, why)");
        return NULL;
    }
    PyObject *head = PyTuple_GET_ITEM(parts, 0), *otherwise = PyTuple_GET_ITEM(parts, 1);
    PyObject *const *row = args + 1;
    char numbers[2][24];
    int lengths[2];
    Line counted = {NULL, PyBytes_GET_SIZE(head)};
    int writable = PyLong_CheckExact(row[0]) && PyLong_CheckExact(row[1]) &&
                   (row[2] == Py_None || PyUnicode_CheckExact(row[2])) &&
                   PyUnicode_CheckExact(row[3]) &&
                   (row[4] == Py_None || PyUnicode_CheckExact(row[4])) &&
                   PyList_CheckExact(row[5]) && PyDict_CheckExact(row[6]);
    if (!writable || !row_numbers(row, numbers, lengths) ||
        !put_failing_row(&counted, numbers, lengths, row))
        return PyObject_Vectorcall(otherwise, row, 7, NULL);
    PyObject *made = PyBytes_FromStringAndSize(NULL, counted.size);
    if (made == NULL)
        return NULL;
    Line written = {PyBytes_AS_STRING(made), 0};
    put(&written, PyBytes_AS_STRING(head), PyBytes_GET_SIZE(head));
    put_failing_row(&written, numbers, lengths, row);
    return made;
}

static PyMethodDef methods[] = {
    {"number_marks", number_marks, METH_O,
     "The LONG_RUN and EXPONENT bits of a JSON text's numbers (see toolaudit.jsonutil)."},
    {"tiny_numbers", tiny_numbers, METH_O,
     "Whether a JSON text may hold a number below a double's range."},
    {"misread_numbers", misread_numbers, METH_O,
     "Whether a typed decode may read a number of a JSON text otherwise than the exact parse."},
    {"opening_brackets", opening_brackets, METH_O, "How many '[' and '{' a text holds."},
    {"_plain_misread_exponents", plain_misread_exponents, METH_O,
     "misread_numbers less its runs of digits, its marks looked at one by one (tests only)."},
#ifdef __SSE2__
    {"_narrow_misread_exponents", narrow_misread_exponents, METH_O,
     "misread_numbers less its runs of digits, its marks found by SSE2 (tests only)."},
#endif
#ifdef WITH_AVX2
    {"_wide_misread_exponents", wide_misread_exponents, METH_O,
     "misread_numbers less its runs of digits, its marks found by AVX2 (tests only)."},
#endif
    {"split_newlines", split_newlines, METH_O, "chunk.split(b'\\n') of bytes, by memchr."},
    {"failing_row_line", (PyCFunction)(void (*)(void))failing_row_line, METH_FASTCALL,
     "A failing call's report line (see toolaudit.pipeline.rows)."},
    {"valid_row_line", (PyCFunction)(void (*)(void))valid_row_line, METH_FASTCALL,
     "A valid call's report line whose id is a string or null (see toolaudit.pipeline.rows)."},
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
    misread_numbers_init();
    return PyModule_Create(&module_definition);
}
