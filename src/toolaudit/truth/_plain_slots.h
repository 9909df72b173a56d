/* Where a class keeps an attribute, for the truth speedups that read (or write) it in
 * place of getattr (or setattr) on every line: _expected_lines.c and _line_scores.c. */
#ifndef TOOLAUDIT_PLAIN_SLOTS_H
#define TOOLAUDIT_PLAIN_SLOTS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* The offset of attribute `name` in objects of `type` where it is a plain slot: a member
 * descriptor of an object (writable, when `writing`) of a class that gets (or sets)
 * attributes the generic way. -1 where it is not (a property, a class of its own
 * __getattribute__ or __setattr__, no such attribute): then it is read or set by name;
 * -2 on an error. */
static Py_ssize_t
plain_slot_offset(PyTypeObject *type, PyObject *name, int writing)
{
    int generic = writing ? type->tp_setattro == PyObject_GenericSetAttr
                          : type->tp_getattro == PyObject_GenericGetAttr;
    if (!generic)
        return -1;
    PyObject *descriptor = PyObject_GetAttr((PyObject *)type, name);
    if (descriptor == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            return -2;
        PyErr_Clear();
        return -1;
    }
    Py_ssize_t offset = -1;
    if (Py_IS_TYPE(descriptor, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type == T_OBJECT_EX && !(writing && (member->flags & READONLY)))
            offset = member->offset;
    }
    Py_DECREF(descriptor);
    return offset;
}

#endif
