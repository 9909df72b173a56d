/* The entry points of _speedups_json.c, registered by _speedups.c's module. */
#ifndef TOOLAUDIT_SPEEDUPS_JSON_H
#define TOOLAUDIT_SPEEDUPS_JSON_H

#include <Python.h>

PyObject *chat_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *responses_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *anthropic_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *bedrock_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *gemini_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int init_speedups_json(void);

#endif
