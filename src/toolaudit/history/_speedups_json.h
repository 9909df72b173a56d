/* The entry points of _speedups_json.c, registered by _speedups.c's module. */
#ifndef TOOLAUDIT_SPEEDUPS_JSON_H
#define TOOLAUDIT_SPEEDUPS_JSON_H

#include <Python.h>

PyObject *chat_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *responses_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *anthropic_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *bedrock_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *gemini_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *otel_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *history_prefixes(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *prefixes_held(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int init_speedups_json(void);

/* The shapes the text readers read, in the order _speedups_pairs.c's PairHistories is told
   them, and what each reader answers of a history's text (its args as chat_json's). */
typedef enum { JSON_CHAT, JSON_RESPONSES, JSON_ANTHROPIC, JSON_BEDROCK, JSON_GEMINI, JSON_SHAPES } JsonShape;
PyObject *read_json_history(JsonShape shape, PyObject *const *args, Py_ssize_t nargs);

/* _speedups_pairs.c: the PairHistories type, added to the module. */
int add_pair_histories(PyObject *module);

/* What _speedups.c shares with the text readers: each tool's results of a history, and
   their counting straight into the summary's tables. */

/* Each tool's results so far, in the order tools first had one: a small array compared by
   text (a dict would hash every name, a new str on every logged line). A history of more
   tools than it holds is left to Python. */
#define MAX_TOOLS 32
typedef struct {
    PyObject *names[MAX_TOOLS]; /* borrowed from the history, or no_name */
    long counts[MAX_TOOLS];
    int size;
} Results;

int count_into(PyObject *tables, PyObject *model, const Results *results, PyObject *const *left,
               Py_ssize_t left_count);

#endif
