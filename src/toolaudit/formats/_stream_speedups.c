/* The commonest lines of the typed stream reader, placed in C: an optional speedup of
 * toolaudit.pipeline.typed_stream_reader.
 *
 * chat(format, most, lines, decode, open, progress) and
 * anthropic(key, most, stop_notes, lines, decode, open, progress) read lines from
 * progress[0] on, each decoded by `decode` (the shape's msgspec decoder), and place in the
 * open streams (`open`, StreamAssembler._open) the lines whose lane only adds to an open
 * stream, as StreamLanes.append(), touch() and begin_call() would:
 *   chat:      a chunk of no choices (a usage-only chunk) and one appending a piece of one
 *              tool call's arguments (formats/typed_chat_stream.py's APPEND and ACCOMPANY
 *              lanes);
 *   anthropic: an input_json_delta, any other content_block_delta, content_block_stop, a
 *              message_delta whose stop reason puts no note (`stop_notes`), ping, and a
 *              tool_use block's start whose input is absent or {} in an open stream
 *              (formats/typed_anthropic_stream.py's APPEND, CONTINUE, ACCOMPANY and
 *              BEGIN_CALL lanes; a call begun by the stream's own start()).
 * Any other line stops them, changing nothing of it: they return its decoded record (None
 * when it needs the line check, does not decode, or the lines ran out), with progress[0]
 * the index of that line and progress[1] counting the lines placed. Python takes each
 * such line as it takes every line without the speedups (its lane, its step, the general
 * path), so the streams, rows and summaries are the same either way
 * (tests/pipeline/test_stream_speedups.py holds them to it).
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the reader places every line in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyObject *s_choices, *s_id, *s_model, *s_delta, *s_function_call, *s_tool_calls,
    *s_finish_reason, *s_index, *s_type, *s_function, *s_name, *s_arguments, *s_role,
    *s_content, *s_refusal, *s_at_slot, *s_pieces, *s_groups, *s_partial_json,
    *s_stop_reason, *s_custom, *s_content_block_delta, *s_content_block_stop,
    *s_message_delta, *s_ping, *s_input_json_delta, *s_content_block_start, *s_tool_use,
    *s_content_block, *s_input, *s_start, *s_empty_object;
static PyObject *unset; /* msgspec.UNSET */
static PyObject *zero;

/* What a line came to. */
enum { PLACED, NOT_PLACED, FAILED };

/* dict[key], or NULL when absent (a key's own __eq__ that raises makes it absent: the
   keys here are tuples of str, None and int, whose comparisons raise nothing). */
static inline PyObject *
get(PyObject *dict, PyObject *key)
{
    PyObject *value = PyDict_GetItemWithError(dict, key);
    if (value == NULL && PyErr_Occurred())
        PyErr_Clear();
    return value;
}

/* value == text, for a value that is a str or None (msgspec's Text). */
static inline int
is_text(PyObject *value, PyObject *text)
{
    return value == text || (PyUnicode_Check(value) && PyUnicode_Compare(value, text) == 0);
}

/* `model or None` of a Text, as the stream keeps it: a non-empty str, else None. */
static inline PyObject *
model_or_none(PyObject *model)
{
    return PyUnicode_Check(model) && PyUnicode_GET_LENGTH(model) > 0 ? model : Py_None;
}

/* Where a type keeps one attribute: the fields of msgspec's structs and of the streams'
   classes are slots (member descriptors), read at their offset in the object once the
   type is known, without a lookup by name a line. A type whose attribute is anything else
   is read through getattr. */
typedef struct {
    PyTypeObject *type; /* a strong reference: no other type is ever taken for it */
    Py_ssize_t offset;  /* -1: through getattr */
} Field;

static Py_ssize_t
offset_of(PyObject *object, PyObject *name, Field *field)
{
    PyTypeObject *type = Py_TYPE(object);
    if (type == field->type)
        return field->offset;
    Py_ssize_t offset = -1;
    PyObject *descriptor = type->tp_getattro == PyObject_GenericGetAttr
                               ? _PyType_Lookup(type, name)
                               : NULL;
    if (descriptor != NULL && Py_TYPE(descriptor) == &PyMemberDescr_Type) {
        PyMemberDef *member = ((PyMemberDescrObject *)descriptor)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY))
            offset = member->offset;
    }
    Py_INCREF(type);
    Py_XSETREF(field->type, type);
    field->offset = offset;
    return offset;
}

/* object.name (a new reference), or NULL with an error set. */
static inline PyObject *
get_field(PyObject *object, PyObject *name, Field *field)
{
    Py_ssize_t offset = offset_of(object, name, field);
    if (offset >= 0) {
        PyObject *value = *(PyObject **)((char *)object + offset);
        if (value != NULL) {
            Py_INCREF(value);
            return value;
        }
    }
    return PyObject_GetAttr(object, name); /* (unset: it raises AttributeError) */
}

/* object.name = value, for a type whose setattr is the generic one: -1 with an error. */
static inline int
set_field(PyObject *object, PyObject *name, PyObject *value, Field *field)
{
    Py_ssize_t offset = offset_of(object, name, field);
    if (offset >= 0 && Py_TYPE(object)->tp_setattro == PyObject_GenericSetAttr) {
        PyObject **slot = (PyObject **)((char *)object + offset);
        Py_INCREF(value);
        Py_XSETREF(*slot, value);
        return 0;
    }
    return PyObject_SetAttr(object, name, value);
}

/* getattr(of, name) into variable, or to done with an error set (a cache per site). */
#define FIELD(variable, of, name)                                                            \
    do {                                                                                     \
        static Field field_;                                                                 \
        variable = get_field(of, name, &field_);                                             \
        if (variable == NULL)                                                                \
            goto done;                                                                       \
    } while (0)

/* StreamLanes.touch()'s naming of the model: stream.model = model unless it has one. */
static int
name_model(PyObject *stream, PyObject *model)
{
    static Field read, written;
    PyObject *current = get_field(stream, s_model, &read);
    if (current == NULL)
        return -1;
    int result = current == Py_None ? set_field(stream, s_model, model, &written) : 0;
    Py_DECREF(current);
    return result;
}

/* StreamLanes.append() of `text` to the call at `slot` of the stream of `key`, speaking
   for `group` (None: no group): NOT_PLACED unless the stream is open with a call there. */
static int
append(PyObject *open, PyObject *key, PyObject *slot, PyObject *group, PyObject *text,
       PyObject *model)
{
    PyObject *stream = get(open, key);
    if (stream == NULL)
        return NOT_PLACED;
    static Field at_slot_field, pieces_read, pieces_written, groups_field;
    PyObject *at_slot = get_field(stream, s_at_slot, &at_slot_field);
    if (at_slot == NULL)
        return FAILED;
    if (!PyDict_Check(at_slot)) {
        Py_DECREF(at_slot);
        return NOT_PLACED;
    }
    PyObject *call = get(at_slot, slot);
    Py_XINCREF(call);
    Py_DECREF(at_slot);
    if (call == NULL)
        return NOT_PLACED;
    int result = FAILED;
    PyObject *pieces = NULL, *groups = NULL;
    Py_INCREF(stream);
    if (name_model(stream, model))
        goto done;
    pieces = get_field(call, s_pieces, &pieces_read);
    if (pieces == NULL)
        goto done;
    if (pieces == Py_None) {
        PyObject *fresh = PyList_New(1);
        if (fresh == NULL)
            goto done;
        Py_INCREF(text);
        PyList_SET_ITEM(fresh, 0, text);
        int set = set_field(call, s_pieces, fresh, &pieces_written);
        Py_DECREF(fresh);
        if (set)
            goto done;
    }
    else if (PyList_Check(pieces)) {
        if (PyList_Append(pieces, text))
            goto done;
    }
    else {
        PyErr_SetString(PyExc_TypeError, "a call's pieces must be a list");
        goto done;
    }
    if (group != Py_None) {
        groups = get_field(stream, s_groups, &groups_field);
        if (groups == NULL)
            goto done;
        if (!PyDict_Check(groups)) {
            PyErr_SetString(PyExc_TypeError, "a stream's groups must be a dict");
            goto done;
        }
        int seen = PyDict_Contains(groups, group);
        if (seen < 0 || (!seen && PyDict_SetItem(groups, group, Py_False)))
            goto done;
    }
    result = PLACED;
done:
    Py_XDECREF(groups);
    Py_XDECREF(pieces);
    Py_DECREF(call);
    Py_DECREF(stream);
    return result;
}

/* StreamLanes.touch(key, model, accompanies=...): NOT_PLACED when its stream is not open
   and it does not accompany. */
static int
touch(PyObject *open, PyObject *key, PyObject *model, int accompanies)
{
    PyObject *stream = get(open, key);
    if (stream == NULL)
        return accompanies ? PLACED : NOT_PLACED;
    Py_INCREF(stream);
    int failed = name_model(stream, model);
    Py_DECREF(stream);
    return failed ? FAILED : PLACED;
}

/* A decoded OpenAI chunk placed by its APPEND or ACCOMPANY lane (_chat_lane). */
static int
place_chunk(PyObject *chunk, PyObject *open, PyObject *format)
{
    int result = FAILED;
    PyObject *choices = NULL, *id = NULL, *model = NULL, *key = NULL, *choice = NULL,
             *delta = NULL, *field = NULL, *tool_calls = NULL, *tool_call = NULL,
             *function = NULL, *text = NULL, *group = NULL, *index = NULL, *slot = NULL;
    FIELD(choices, chunk, s_choices);
    if (!PyList_Check(choices)) {
        result = NOT_PLACED;
        goto done;
    }
    Py_ssize_t count = PyList_GET_SIZE(choices);
    if (count > 1) {
        result = NOT_PLACED;
        goto done;
    }
    FIELD(id, chunk, s_id);
    FIELD(model, chunk, s_model);
    key = PyTuple_Pack(2, format, id);
    if (key == NULL)
        goto done;
    if (count == 0) {
        result = touch(open, key, model_or_none(model), 1);
        goto done;
    }
    choice = PyList_GET_ITEM(choices, 0);
    Py_INCREF(choice);
    result = NOT_PLACED;
    FIELD(delta, choice, s_delta);
    if (delta == Py_None)
        goto done; /* no tool calls: not an append */
    FIELD(field, delta, s_function_call);
    if (field != Py_None)
        goto done;
    Py_CLEAR(field);
    FIELD(field, choice, s_finish_reason);
    if (field != Py_None)
        goto done;
    Py_CLEAR(field);
    FIELD(tool_calls, delta, s_tool_calls);
    if (!PyList_Check(tool_calls) || PyList_GET_SIZE(tool_calls) != 1)
        goto done;
    tool_call = PyList_GET_ITEM(tool_calls, 0);
    Py_INCREF(tool_call);
    FIELD(field, tool_call, s_type);
    if (is_text(field, s_custom))
        goto done;
    Py_CLEAR(field);
    FIELD(field, tool_call, s_id);
    if (field != Py_None)
        goto done; /* a call begins */
    Py_CLEAR(field);
    FIELD(function, tool_call, s_function);
    if (function == Py_None)
        goto done; /* no text */
    FIELD(field, function, s_name);
    if (field != Py_None)
        goto done; /* a call begins */
    Py_CLEAR(field);
    FIELD(text, function, s_arguments);
    if (text == Py_None)
        goto done;
    FIELD(field, delta, s_role);
    if (field != Py_None)
        goto done;
    Py_CLEAR(field);
    FIELD(field, delta, s_content);
    if (field != Py_None)
        goto done;
    Py_CLEAR(field);
    FIELD(field, delta, s_refusal);
    if (field != Py_None)
        goto done;
    Py_CLEAR(field);
    FIELD(group, choice, s_index);
    FIELD(index, tool_call, s_index);
    slot = PyTuple_Pack(3, group, zero, index == unset ? zero : index);
    if (slot == NULL)
        goto done;
    result = append(open, key, slot, group, text, model_or_none(model));
done:
    result = PyErr_Occurred() ? FAILED : result == FAILED ? NOT_PLACED : result;
    Py_XDECREF(slot);
    Py_XDECREF(index);
    Py_XDECREF(group);
    Py_XDECREF(text);
    Py_XDECREF(function);
    Py_XDECREF(tool_call);
    Py_XDECREF(tool_calls);
    Py_XDECREF(field);
    Py_XDECREF(delta);
    Py_XDECREF(choice);
    Py_XDECREF(key);
    Py_XDECREF(model);
    Py_XDECREF(id);
    Py_XDECREF(choices);
    return result;
}

/* StreamLanes.begin_call() of a tool_use block's start in the open stream of `key`
   (its lane: no group, text or model, may not begin a stream): NOT_PLACED unless the
   stream is open and the block's start input is absent or {} (its placeholder: None or
   "{}"; any other, typed_anthropic_stream._placeholder() works out in Python). */
static int
begin_block(PyObject *event, PyObject *open, PyObject *key)
{
    int result = FAILED;
    PyObject *index = NULL, *block = NULL, *field = NULL, *input = NULL, *call_id = NULL,
             *name = NULL, *slot = NULL, *at_slot = NULL, *current = NULL, *current_id = NULL,
             *started = NULL, *stream = NULL;
    PyObject *placeholder = Py_None;
    FIELD(index, event, s_index);
    FIELD(block, event, s_content_block);
    result = NOT_PLACED;
    if (index == unset || block == Py_None)
        goto done;
    FIELD(field, block, s_type);
    if (!is_text(field, s_tool_use))
        goto done;
    FIELD(input, block, s_input);
    if (input != unset) {
        Py_buffer view;
        if (PyObject_GetBuffer(input, &view, PyBUF_SIMPLE)) {
            PyErr_Clear();
            goto done;
        }
        int empty_object = view.len == 2 && memcmp(view.buf, "{}", 2) == 0;
        PyBuffer_Release(&view);
        if (!empty_object)
            goto done;
        placeholder = s_empty_object;
    }
    stream = get(open, key);
    if (stream == NULL)
        goto done;
    Py_INCREF(stream);
    FIELD(call_id, block, s_id);
    FIELD(name, block, s_name);
    slot = PyTuple_Pack(2, zero, index);
    if (slot == NULL)
        goto done;
    /* (stream.model is None: it takes None, as it is) */
    FIELD(at_slot, stream, s_at_slot);
    if (!PyDict_Check(at_slot))
        goto done;
    current = get(at_slot, slot);
    Py_XINCREF(current);
    int other = current == NULL;
    if (!other && call_id != Py_None) {
        FIELD(current_id, current, s_id);
        if (current_id != Py_None) {
            other = PyObject_RichCompareBool(call_id, current_id, Py_NE);
            if (other < 0)
                goto done;
        }
    }
    if (other) {
        PyObject *args[] = {stream, slot, call_id, name, Py_None, placeholder};
        started = PyObject_VectorcallMethod(
            s_start, args, 6, NULL);
        if (started == NULL)
            goto done;
    }
    else {
        Py_CLEAR(field);
        FIELD(field, current, s_name);
        if (field == Py_None && PyObject_SetAttr(current, s_name, name))
            goto done;
    }
    result = PLACED;
done:
    result = PyErr_Occurred() ? FAILED : result == FAILED ? NOT_PLACED : result;
    Py_XDECREF(started);
    Py_XDECREF(current_id);
    Py_XDECREF(current);
    Py_XDECREF(at_slot);
    Py_XDECREF(slot);
    Py_XDECREF(name);
    Py_XDECREF(call_id);
    Py_XDECREF(stream);
    Py_XDECREF(input);
    Py_XDECREF(field);
    Py_XDECREF(block);
    Py_XDECREF(index);
    return result;
}

/* A decoded Anthropic event placed by its APPEND, CONTINUE, ACCOMPANY or BEGIN_CALL lane
   (_anthropic_lane; BEGIN_CALL as begin_block() says). */
static int
place_event(PyObject *event, PyObject *open, PyObject *key, PyObject *stop_notes)
{
    int result = FAILED;
    PyObject *kind = NULL, *delta = NULL, *field = NULL, *index = NULL, *slot = NULL,
             *notes = NULL;
    FIELD(kind, event, s_type);
    if (is_text(kind, s_content_block_delta)) {
        FIELD(delta, event, s_delta);
        if (delta != Py_None) {
            FIELD(field, delta, s_type);
            if (is_text(field, s_input_json_delta)) {
                Py_CLEAR(field);
                FIELD(index, event, s_index);
                FIELD(field, delta, s_partial_json);
                if (index == unset || field == Py_None) {
                    result = NOT_PLACED;
                    goto done;
                }
                slot = PyTuple_Pack(2, zero, index);
                if (slot == NULL)
                    goto done;
                result = append(open, key, slot, Py_None, field, Py_None);
                goto done;
            }
        }
        result = touch(open, key, Py_None, 0);
    }
    else if (is_text(kind, s_content_block_start))
        result = begin_block(event, open, key);
    else if (is_text(kind, s_content_block_stop))
        result = touch(open, key, Py_None, 0);
    else if (is_text(kind, s_ping))
        result = touch(open, key, Py_None, 1);
    else if (is_text(kind, s_message_delta)) {
        FIELD(delta, event, s_delta);
        if (delta == Py_None) {
            Py_INCREF(Py_None);
            field = Py_None;
        }
        else
            FIELD(field, delta, s_stop_reason);
        notes = PyObject_CallOneArg(stop_notes, field);
        if (notes == NULL)
            goto done;
        int noted = PyObject_IsTrue(notes);
        if (noted < 0)
            goto done;
        result = noted ? NOT_PLACED : touch(open, key, Py_None, 0);
    }
    else
        result = NOT_PLACED;
done:
    result = PyErr_Occurred() ? FAILED : result == FAILED ? NOT_PLACED : result;
    Py_XDECREF(notes);
    Py_XDECREF(slot);
    Py_XDECREF(index);
    Py_XDECREF(field);
    Py_XDECREF(delta);
    Py_XDECREF(kind);
    return result;
}

/* Whether the reader must check the line before decoding it (typed_stream_reader's test:
   a line not ASCII or longer than `most`). */
static int
needs_check(PyObject *line, Py_ssize_t most)
{
    Py_ssize_t length = PyBytes_GET_SIZE(line);
    if (length > most)
        return 1;
    const char *bytes = PyBytes_AS_STRING(line);
    uint64_t high = 0; /* the high bits of every byte, eight bytes at a time */
    Py_ssize_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        high |= word;
    }
    for (; i < length; i++)
        high |= (unsigned char)bytes[i];
    return (high & 0x8080808080808080ULL) != 0;
}

/* The loop both functions share: `place` a decoded line, NOT_PLACED, or FAILED. */
typedef int (*placer)(PyObject *record, PyObject *open, PyObject *key, PyObject *stop_notes);

static int
place_chunk_as_placer(PyObject *record, PyObject *open, PyObject *format, PyObject *unused)
{
    (void)unused;
    return place_chunk(record, open, format);
}

static PyObject *
run(PyObject *key, PyObject *most_object, PyObject *stop_notes, PyObject *lines,
    PyObject *decode, PyObject *open, PyObject *progress, placer place)
{
    if (!PyList_Check(lines) || !PyDict_Check(open) || !PyList_Check(progress) ||
        PyList_GET_SIZE(progress) != 2) {
        PyErr_SetString(PyExc_TypeError, "lines, progress: lists; open: a dict");
        return NULL;
    }
    Py_ssize_t position = PyLong_AsSsize_t(PyList_GET_ITEM(progress, 0));
    Py_ssize_t placed = PyLong_AsSsize_t(PyList_GET_ITEM(progress, 1));
    Py_ssize_t most = PyLong_AsSsize_t(most_object);
    if ((position == -1 || placed == -1 || most == -1) && PyErr_Occurred())
        return NULL;
    PyObject *record = NULL;
    int failed = 0;
    for (; position < PyList_GET_SIZE(lines); position++) {
        if ((position & 1023) == 0 && PyErr_CheckSignals()) {
            failed = 1; /* an interruption: the lines before this one are placed */
            break;
        }
        PyObject *line = PyList_GET_ITEM(lines, position);
        if (!PyBytes_Check(line) || needs_check(line, most))
            break;
        record = PyObject_CallOneArg(decode, line);
        if (record == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_Exception)) {
                failed = 1; /* an interruption, say */
                break;
            }
            PyErr_Clear(); /* the reader decodes it again, and says why */
            break;
        }
        int done = place(record, open, key, stop_notes);
        if (done == FAILED) {
            failed = 1;
            Py_CLEAR(record);
            break;
        }
        if (done == NOT_PLACED)
            break;
        Py_CLEAR(record);
        placed++;
    }
    /* progress first: an interruption that comes as this returns finds it counted */
    PyObject *at = PyLong_FromSsize_t(position), *count = PyLong_FromSsize_t(placed);
    if (at == NULL || count == NULL) {
        Py_XDECREF(at);
        Py_XDECREF(count);
        Py_XDECREF(record);
        return NULL;
    }
    PyList_SetItem(progress, 0, at);
    PyList_SetItem(progress, 1, count);
    if (failed)
        return NULL;
    if (record == NULL)
        Py_RETURN_NONE;
    return record;
}

static PyObject *
chat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError,
                        "chat(format, most, lines, decode, open, progress)");
        return NULL;
    }
    return run(args[0], args[1], NULL, args[2], args[3], args[4], args[5],
               place_chunk_as_placer);
}

static PyObject *
anthropic(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 7) {
        PyErr_SetString(PyExc_TypeError,
                        "anthropic(key, most, stop_notes, lines, decode, open, progress)");
        return NULL;
    }
    return run(args[0], args[1], args[2], args[3], args[4], args[5], args[6], place_event);
}

static PyMethodDef methods[] = {
    {"chat", (PyCFunction)(void (*)(void))chat, METH_FASTCALL,
     "Place OpenAI chunks' appends and usage-only chunks; the first other line's record."},
    {"anthropic", (PyCFunction)(void (*)(void))anthropic, METH_FASTCALL,
     "Place Anthropic events that add to an open stream; the first other one's record."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {
    PyModuleDef_HEAD_INIT, "_stream_speedups",
    "The commonest stream lines placed in C (see toolaudit.pipeline.typed_stream_reader).",
    -1, methods,
};

static int
intern(PyObject **slot, const char *text)
{
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

PyMODINIT_FUNC
PyInit__stream_speedups(void)
{
    if (intern(&s_choices, "choices") || intern(&s_id, "id") || intern(&s_model, "model") ||
        intern(&s_delta, "delta") || intern(&s_function_call, "function_call") ||
        intern(&s_tool_calls, "tool_calls") || intern(&s_finish_reason, "finish_reason") ||
        intern(&s_index, "index") || intern(&s_type, "type") ||
        intern(&s_function, "function") || intern(&s_name, "name") ||
        intern(&s_arguments, "arguments") || intern(&s_role, "role") ||
        intern(&s_content, "content") || intern(&s_refusal, "refusal") ||
        intern(&s_at_slot, "at_slot") || intern(&s_pieces, "pieces") ||
        intern(&s_groups, "groups") || intern(&s_partial_json, "partial_json") ||
        intern(&s_stop_reason, "stop_reason") || intern(&s_custom, "custom") ||
        intern(&s_content_block_delta, "content_block_delta") ||
        intern(&s_content_block_stop, "content_block_stop") ||
        intern(&s_message_delta, "message_delta") || intern(&s_ping, "ping") ||
        intern(&s_input_json_delta, "input_json_delta") ||
        intern(&s_content_block_start, "content_block_start") ||
        intern(&s_tool_use, "tool_use") || intern(&s_content_block, "content_block") ||
        intern(&s_input, "input") || intern(&s_start, "start") || intern(&s_empty_object, "{}"))
        return NULL;
    zero = PyLong_FromLong(0);
    if (zero == NULL)
        return NULL;
    PyObject *msgspec = PyImport_ImportModule("msgspec");
    if (msgspec == NULL)
        return NULL;
    unset = PyObject_GetAttrString(msgspec, "UNSET");
    Py_DECREF(msgspec);
    if (unset == NULL)
        return NULL;
    return PyModule_Create(&module_definition);
}
