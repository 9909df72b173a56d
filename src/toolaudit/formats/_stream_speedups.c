/* The commonest lines of the typed stream reader, placed in C: an optional speedup of
 * toolaudit.pipeline.typed_stream_reader.
 *
 * chat(format, most, lanes, stream_type, call_type, first_line, context, decoders, longest,
 * lines, decode, progress) and anthropic(key, most, stop_notes, lanes, stream_type,
 * call_type, first_line, context, decoders, longest, lines, decode, progress) read lines
 * from progress[0] on, each decoded by `decode` (the shape's msgspec
 * decoder), and place in the open streams of `lanes` (a StreamLanes: its _open, _ended,
 * max_open and _sequence) the lines whose lane the StreamLanes methods would take without
 * a step, as append(), touch(), begin_call(), begin_stream() and end() would:
 *   chat:      a chunk of no choices (a usage-only chunk), one appending a piece of one
 *              tool call's arguments, one beginning a tool call (and, when no stream of its
 *              id is open, its stream: a `stream_type` begun on its line with `context`)
 *              and one whose finish_reason ends a choice (formats/typed_chat_stream.py's
 *              APPEND, ACCOMPANY, BEGIN_CALL and END lanes);
 *   anthropic: an input_json_delta, any other content_block_delta, content_block_stop, a
 *              message_delta whose stop reason puts no note (`stop_notes`), ping, a
 *              tool_use block's start whose input is absent or {} in an open stream,
 *              message_start and message_stop (formats/typed_anthropic_stream.py's APPEND,
 *              CONTINUE, ACCOMPANY, BEGIN_CALL, BEGIN_STREAM and END lanes).
 * A line that ends a stream stops them: they return the stream (a `stream_type`) for the
 * reader to judge, progress[0] its line's index, the line not counted, and progress[3]
 * the name its one call gives when that tool's typed decoder (`decoders[name]`) takes the
 * call's joined arguments (None: the reader judges the stream as it would without them). Any other line they
 * cannot place stops them too, changing nothing of it: they return its decoded record
 * (None when it needs the line check, does not decode, or the lines ran out), with
 * progress[0] the index of that line. progress[1] counts the lines placed that began no
 * stream, progress[2] the lines that began one. Python takes each line handed back as it
 * takes every line without the speedups (its lane, its step, the general path), so the
 * streams, rows and summaries are the same either way
 * (tests/pipeline/test_stream_speedups.py holds them to it).
 *
 * Built at install when a C compiler is there (setup.py: an optional extension); without
 * it, or with TOOLAUDIT_PURE_PYTHON=1, the reader places every line in Python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

#include "../_misread_numbers.h"

static PyObject *s_choices, *s_id, *s_model, *s_delta, *s_function_call, *s_tool_calls,
    *s_finish_reason, *s_index, *s_type, *s_function, *s_name, *s_arguments, *s_role,
    *s_content, *s_refusal, *s_at_slot, *s_pieces, *s_groups, *s_partial_json,
    *s_stop_reason, *s_custom, *s_content_block_delta, *s_content_block_stop,
    *s_message_delta, *s_ping, *s_input_json_delta, *s_content_block_start, *s_tool_use,
    *s_content_block, *s_input, *s_empty_object, *s_length, *s_message_start,
    *s_message_stop, *s_message, *s__open, *s__ended, *s_max_open, *s__sequence,
    *s_move_to_end, *s_popitem, *s_last, *s_notes, *s_failure, *s_started, *s_placeholder,
    *s_decode, *s_nothing, *s_format, *s_line, *s_context, *s_sequence, *s_replaced,
    *s_skipped, *s_slot, *s_number;
static PyObject *s_last_keyword; /* ("last",): popitem(last=False) */
static PyObject *unset; /* msgspec.UNSET */
static PyObject *zero, *one;

/* What a line came to: placed (beginning no stream), left to the reader (nothing
   changed), an error set, placed beginning a stream, placed ending one. */
enum { PLACED, NOT_PLACED, FAILED, BEGAN, ENDED };

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

/* The state of the open streams a run places lines in (a StreamLanes'), and of the line. */
typedef struct {
    PyObject *open;        /* StreamLanes._open: key -> stream */
    PyObject *ended;       /* StreamLanes._ended: an OrderedDict, key -> how it ended */
    PyObject *stream_type; /* what StreamLanes._begin() makes (formats.streams._Stream) */
    PyObject *call_type;   /* what _Stream.start() makes (formats.streams._Call) */
    PyObject *context;     /* what a stream begun here holds (the audit's tally) */
    PyObject *key;         /* chat: the format; anthropic: its streams' one key */
    PyObject *stop_notes;  /* anthropic: anthropic_stream.stop_notes */
    Py_ssize_t max_open;   /* StreamLanes.max_open */
    Py_ssize_t sequence;   /* StreamLanes._sequence, written back when the run ends */
    Py_ssize_t line;       /* the number of the line being placed */
    PyObject *finished;    /* the stream the line ended (ENDED), a new reference */
    PyObject *decoders;    /* the typed argument decoders by the name a call gives */
    Py_ssize_t longest;    /* arguments longer than this are left to the reader's accepts() */
} State;

/* A piece of arguments added to a call (_Call.pieces: None until the first). */
static int
add_piece(PyObject *call, PyObject *text)
{
    static Field read, written;
    PyObject *pieces = get_field(call, s_pieces, &read);
    if (pieces == NULL)
        return -1;
    int result = -1;
    if (pieces == Py_None) {
        PyObject *fresh = PyList_New(1);
        if (fresh != NULL) {
            Py_INCREF(text);
            PyList_SET_ITEM(fresh, 0, text);
            result = set_field(call, s_pieces, fresh, &written);
            Py_DECREF(fresh);
        }
    }
    else if (PyList_Check(pieces))
        result = PyList_Append(pieces, text);
    else
        PyErr_SetString(PyExc_TypeError, "a call's pieces must be a list");
    Py_DECREF(pieces);
    return result;
}

/* stream.groups (a new reference), or NULL with an error set. */
static PyObject *
groups_of(PyObject *stream)
{
    static Field field;
    PyObject *groups = get_field(stream, s_groups, &field);
    if (groups != NULL && !PyDict_Check(groups)) {
        Py_CLEAR(groups);
        PyErr_SetString(PyExc_TypeError, "a stream's groups must be a dict");
    }
    return groups;
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
    static Field at_slot_field;
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
    PyObject *groups = NULL;
    Py_INCREF(stream);
    if (name_model(stream, model) || add_piece(call, text))
        goto done;
    if (group != Py_None) {
        groups = groups_of(stream);
        if (groups == NULL)
            goto done;
        int seen = PyDict_Contains(groups, group);
        if (seen < 0 || (!seen && PyDict_SetItem(groups, group, Py_False)))
            goto done;
    }
    result = PLACED;
done:
    Py_XDECREF(groups);
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

/* A new object of `type` (a class of __slots__ whose __init__ only stores its arguments
   and defaults: formats.streams._Stream and _Call) holding `values` in its slots `names`,
   as its __init__ would leave it, without running it: a new reference, or NULL with an
   error set. (tests/pipeline/test_stream_speedups.py holds both to their __init__.)

   It is left untracked by the cyclic GC, as are the containers begin() and start() make
   for it (its key, its call's slot and pieces, the dict of its calls): an open stream and
   its calls refer to no object that refers back to them (the open streams and ended keys
   refer to them, the tally they hold to none of them), so they are in no cycle, and
   refcounting frees them as it would. Thousands are open at once, and live long: tracked,
   every collection of their generation walks them, and the 8% of an audit's time the
   collector took, with 10,000 streams open, was almost all theirs. */
static PyObject *
made(PyObject *type, PyObject **names, PyObject **values, Field *fields, int count)
{
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "the streams' classes must be types");
        return NULL;
    }
    PyTypeObject *made_type = (PyTypeObject *)type;
    PyObject *object = made_type->tp_alloc(made_type, 0);
    if (object == NULL)
        return NULL;
    for (int i = 0; i < count; i++)
        if (values[i] == NULL || set_field(object, names[i], values[i], &fields[i])) {
            Py_DECREF(object);
            return NULL;
        }
    PyObject_GC_UnTrack(object);
    return object;
}

/* StreamLanes._begin(): a stream of `key` begun on the line, open (a borrowed reference:
   the open streams hold it), or NULL with an error set. */
static PyObject *
begin(State *state, PyObject *key)
{
    static Field fields[12];
    PyObject *names[] = {s_format,   s_line,     s_context,  s_sequence,
                         s_model,    s_at_slot,  s_replaced, s_started,
                         s_skipped,  s_groups,   s_notes,    s_failure};
    PyObject *values[] = {PyTuple_GET_ITEM(key, 0), PyLong_FromSsize_t(state->line),
                          state->context, PyLong_FromSsize_t(state->sequence + 1),
                          Py_None, PyDict_New(), Py_None, zero, Py_None, PyDict_New(),
                          PyDict_New(), Py_None};
    PyObject *stream = made(state->stream_type, names, values, fields, 12);
    PyObject *owned[] = {values[1], values[3], values[5], values[9], values[10]};
    for (int i = 0; i < 5; i++)
        Py_XDECREF(owned[i]);
    if (stream == NULL)
        return NULL;
    state->sequence++;
    PyObject_GC_UnTrack(key); /* (a str and a str or None) */
    int failed = PyDict_SetItem(state->open, key, stream);
    Py_DECREF(stream);
    return failed ? NULL : stream;
}

/* _Stream.start(): a call begins at `slot` of `stream` (`text`: its first piece, or None),
   in the place of any call there. -1 with an error set. */
static int
start(State *state, PyObject *stream, PyObject *slot, PyObject *call_id, PyObject *name,
      PyObject *text, PyObject *placeholder)
{
    static Field fields[6], started_read, started_written, at_slot_field, replaced_read,
        replaced_written;
    int result = -1;
    PyObject *started = NULL, *pieces = NULL, *call = NULL, *more = NULL, *at_slot = NULL,
             *replaced = NULL;
    started = get_field(stream, s_started, &started_read);
    if (started == NULL)
        goto done;
    if (text == Py_None)
        pieces = Py_NewRef(Py_None);
    else if ((pieces = PyList_New(1)) != NULL)
        PyList_SET_ITEM(pieces, 0, Py_NewRef(text));
    PyObject *names[] = {s_id, s_name, s_slot, s_number, s_pieces, s_placeholder};
    PyObject *values[] = {call_id, name, slot, started, pieces, placeholder};
    call = made(state->call_type, names, values, fields, 6);
    if (call == NULL)
        goto done;
    more = PyNumber_Add(started, one);
    if (more == NULL || set_field(stream, s_started, more, &started_written))
        goto done;
    at_slot = get_field(stream, s_at_slot, &at_slot_field);
    if (at_slot == NULL)
        goto done;
    if (!PyDict_Check(at_slot)) {
        PyErr_SetString(PyExc_TypeError, "a stream's at_slot must be a dict");
        goto done;
    }
    PyObject *before = get(at_slot, slot);
    if (before != NULL) { /* the call it takes the place of */
        replaced = get_field(stream, s_replaced, &replaced_read);
        if (replaced == NULL)
            goto done;
        if (replaced == Py_None) {
            Py_SETREF(replaced, PyList_New(0));
            if (replaced == NULL || set_field(stream, s_replaced, replaced, &replaced_written))
                goto done;
        }
        if (!PyList_Check(replaced)) {
            PyErr_SetString(PyExc_TypeError, "a stream's replaced calls must be a list");
            goto done;
        }
        if (PyList_Append(replaced, before))
            goto done;
    }
    result = PyDict_SetItem(at_slot, slot, call);
    /* (setting an untracked call tracks the dict; the slot holds ints, pieces strs) */
    PyObject_GC_UnTrack(at_slot);
    PyObject_GC_UnTrack(slot);
    if (pieces != Py_None)
        PyObject_GC_UnTrack(pieces);
done:
    Py_XDECREF(replaced);
    Py_XDECREF(at_slot);
    Py_XDECREF(more);
    Py_XDECREF(call);
    Py_XDECREF(pieces);
    Py_XDECREF(started);
    return result;
}

/* StreamLanes.begin_call(): a call begun at `slot` (its `call_id` or `name` given; `text`
   and `placeholder` None or a str), in the open stream of `key` or, if `may_begin`, in a
   stream it begins: BEGAN, PLACED or NOT_PLACED (nothing changed). */
static int
begin_call(State *state, PyObject *key, PyObject *slot, PyObject *group, PyObject *call_id,
           PyObject *name, PyObject *text, PyObject *placeholder, PyObject *model,
           int may_begin)
{
    int result = PLACED;
    PyObject *stream = get(state->open, key);
    if (stream == NULL) {
        if (!may_begin || PyDict_GET_SIZE(state->open) >= state->max_open)
            return NOT_PLACED;
        if (PyTuple_GET_ITEM(key, 1) != Py_None) { /* a late chunk of an ended stream */
            int ended = PyDict_Contains(state->ended, key);
            if (ended)
                return ended < 0 ? FAILED : NOT_PLACED;
        }
        stream = begin(state, key);
        if (stream == NULL)
            return FAILED;
        result = BEGAN;
    }
    /* From here on every way out but the last has an error set: the line is placed. */
    PyObject *at_slot = NULL, *current = NULL, *field = NULL, *groups = NULL;
    Py_INCREF(stream);
    if (name_model(stream, model))
        goto done;
    FIELD(at_slot, stream, s_at_slot);
    if (!PyDict_Check(at_slot)) {
        PyErr_SetString(PyExc_TypeError, "a stream's at_slot must be a dict");
        goto done;
    }
    current = get(at_slot, slot);
    Py_XINCREF(current);
    int other = current == NULL;
    if (!other && call_id != Py_None) {
        FIELD(field, current, s_id);
        if (field != Py_None) {
            other = PyObject_RichCompareBool(call_id, field, Py_NE);
            if (other < 0)
                goto done;
        }
        Py_CLEAR(field);
    }
    if (other) {
        if (start(state, stream, slot, call_id, name, text, placeholder))
            goto done;
    }
    else {
        FIELD(field, current, s_name);
        if (field == Py_None && PyObject_SetAttr(current, s_name, name))
            goto done;
        if (text != Py_None && add_piece(current, text))
            goto done;
    }
    if (group != Py_None) {
        groups = groups_of(stream);
        if (groups == NULL || PyDict_SetDefault(groups, group, Py_False) == NULL)
            goto done;
    }
done:
    Py_XDECREF(groups);
    Py_XDECREF(field);
    Py_XDECREF(current);
    Py_XDECREF(at_slot);
    Py_DECREF(stream);
    return PyErr_Occurred() ? FAILED : result;
}

/* StreamLanes.begin_stream(): a stream of `key` begun, naming `model`, unless one is open
   or the open streams are at their limit (NOT_PLACED). */
static int
begin_stream(State *state, PyObject *key, PyObject *model)
{
    int open = PyDict_Contains(state->open, key);
    if (open < 0)
        return FAILED;
    if (open || PyDict_GET_SIZE(state->open) >= state->max_open)
        return NOT_PLACED;
    PyObject *stream = begin(state, key);
    static Field written;
    return stream == NULL || set_field(stream, s_model, model, &written) ? FAILED : BEGAN;
}

/* StreamAssembler._remember() of a stream of `key` that finished on the line (its number:
   see StreamAssembler._ended). A key new to the ended streams is set at their end, where
   move_to_end() would leave it: only a key there already is moved. */
static int
remember(State *state, PyObject *key)
{
    int known = PyDict_Contains(state->ended, key); /* (an OrderedDict: a dict) */
    if (known < 0)
        return -1;
    PyObject *line = PyLong_FromSsize_t(state->line);
    if (line == NULL)
        return -1;
    int failed = PyObject_SetItem(state->ended, key, line);
    Py_DECREF(line);
    if (failed)
        return -1;
    PyObject *args[] = {state->ended, key, Py_False};
    PyObject *done;
    if (known) {
        done = PyObject_VectorcallMethod(s_move_to_end, args, 2, NULL);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    }
    Py_ssize_t size = PyObject_Size(state->ended);
    if (size < 0)
        return -1;
    if (size > state->max_open) { /* popitem(last=False): the oldest forgotten */
        args[1] = Py_False;
        done = PyObject_VectorcallMethod(s_popitem, args, 1, s_last_keyword);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
    }
    return 0;
}

/* StreamLanes.end(): the open stream of `key` names `model` and ends `group` (None: ends
   the stream): ENDED (the stream in state->finished) when the stream ends, PLACED when
   another of its groups goes on, NOT_PLACED when no stream of `key` is open. */
static int
end_stream(State *state, PyObject *key, PyObject *group, PyObject *model)
{
    PyObject *stream = get(state->open, key);
    if (stream == NULL)
        return NOT_PLACED;
    int result = FAILED;
    PyObject *groups = NULL;
    Py_INCREF(stream);
    if (name_model(stream, model))
        goto done;
    if (group != Py_None) {
        groups = groups_of(stream);
        if (groups == NULL || PyDict_SetItem(groups, group, Py_True))
            goto done;
        Py_ssize_t at = 0;
        PyObject *each, *ended;
        while (PyDict_Next(groups, &at, &each, &ended)) {
            int over = PyObject_IsTrue(ended);
            if (over < 0)
                goto done;
            if (!over) {
                result = PLACED; /* another choice goes on */
                goto done;
            }
        }
    }
    if (PyDict_DelItem(state->open, key) || remember(state, key))
        goto done;
    state->finished = stream;
    stream = NULL;
    result = ENDED;
done:
    Py_XDECREF(groups);
    Py_XDECREF(stream);
    return PyErr_Occurred() ? FAILED : result;
}

/* A decoded OpenAI chunk placed by its lane (_chat_lane): APPEND, ACCOMPANY, BEGIN_CALL
   or END. */
static int
place_chunk(PyObject *chunk, State *state)
{
    int result = FAILED;
    PyObject *choices = NULL, *id = NULL, *model = NULL, *key = NULL, *choice = NULL,
             *delta = NULL, *field = NULL, *tool_calls = NULL, *tool_call = NULL,
             *function = NULL, *call_id = NULL, *name = NULL, *text = NULL, *group = NULL,
             *index = NULL, *slot = NULL;
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
    key = PyTuple_Pack(2, state->key, id);
    if (key == NULL)
        goto done;
    if (count == 0) {
        result = touch(state->open, key, model_or_none(model), 1);
        goto done;
    }
    choice = PyList_GET_ITEM(choices, 0);
    Py_INCREF(choice);
    result = NOT_PLACED;
    FIELD(delta, choice, s_delta);
    if (delta == Py_None) { /* (the lane's _NO_DELTA: no tool calls, no function call) */
        Py_INCREF(Py_None);
        tool_calls = Py_None;
    }
    else {
        FIELD(field, delta, s_function_call);
        if (field != Py_None)
            goto done;
        Py_CLEAR(field);
        FIELD(tool_calls, delta, s_tool_calls);
    }
    FIELD(group, choice, s_index);
    FIELD(field, choice, s_finish_reason);
    if (field != Py_None) {
        /* (Content beside it speaks for the choice it ends: nothing more.) */
        if (tool_calls == Py_None && !is_text(field, s_length))
            result = end_stream(state, key, group, model_or_none(model));
        goto done;
    }
    Py_CLEAR(field);
    if (!PyList_Check(tool_calls) || PyList_GET_SIZE(tool_calls) != 1)
        goto done;
    tool_call = PyList_GET_ITEM(tool_calls, 0);
    Py_INCREF(tool_call);
    FIELD(field, tool_call, s_type);
    if (is_text(field, s_custom))
        goto done;
    Py_CLEAR(field);
    FIELD(index, tool_call, s_index);
    FIELD(call_id, tool_call, s_id);
    FIELD(function, tool_call, s_function);
    if (function == Py_None) { /* (the lane's _NO_FUNCTION) */
        Py_INCREF(Py_None);
        name = Py_None;
        Py_INCREF(Py_None);
        text = Py_None;
    }
    else {
        FIELD(name, function, s_name);
        FIELD(text, function, s_arguments);
    }
    slot = PyTuple_Pack(3, group, zero, index == unset ? zero : index);
    if (slot == NULL)
        goto done;
    PyObject *named = model_or_none(model);
    if (call_id != Py_None || name != Py_None) {
        result = begin_call(state, key, slot, group, call_id, name, text, Py_None, named, 1);
        goto done;
    }
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
    result = append(state->open, key, slot, group, text, named);
done:
    result = PyErr_Occurred() ? FAILED : result == FAILED ? NOT_PLACED : result;
    Py_XDECREF(slot);
    Py_XDECREF(index);
    Py_XDECREF(group);
    Py_XDECREF(text);
    Py_XDECREF(name);
    Py_XDECREF(call_id);
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

/* A tool_use block's start (BEGIN_CALL: no group, text or model, may not begin a stream):
   NOT_PLACED unless the block's start input is absent or {} (its placeholder: None or
   "{}"; any other, typed_anthropic_stream._placeholder() works out in Python). */
static int
begin_block(PyObject *event, State *state)
{
    int result = FAILED;
    PyObject *index = NULL, *block = NULL, *field = NULL, *input = NULL, *call_id = NULL,
             *name = NULL, *slot = NULL;
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
    FIELD(call_id, block, s_id);
    FIELD(name, block, s_name);
    slot = PyTuple_Pack(2, zero, index);
    if (slot == NULL)
        goto done;
    result = begin_call(state, state->key, slot, Py_None, call_id, name, Py_None, placeholder,
                        Py_None, 0);
done:
    result = PyErr_Occurred() ? FAILED : result == FAILED ? NOT_PLACED : result;
    Py_XDECREF(slot);
    Py_XDECREF(name);
    Py_XDECREF(call_id);
    Py_XDECREF(input);
    Py_XDECREF(field);
    Py_XDECREF(block);
    Py_XDECREF(index);
    return result;
}

/* A decoded Anthropic event placed by its lane (_anthropic_lane; BEGIN_CALL as
   begin_block() says). */
static int
place_event(PyObject *event, State *state)
{
    int result = FAILED;
    PyObject *kind = NULL, *delta = NULL, *field = NULL, *index = NULL, *slot = NULL,
             *notes = NULL;
    PyObject *open = state->open, *key = state->key;
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
        result = begin_block(event, state);
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
        notes = PyObject_CallOneArg(state->stop_notes, field);
        if (notes == NULL)
            goto done;
        int noted = PyObject_IsTrue(notes);
        if (noted < 0)
            goto done;
        result = noted ? NOT_PLACED : touch(open, key, Py_None, 0);
    }
    else if (is_text(kind, s_message_start)) {
        FIELD(delta, event, s_message); /* (the message, its model in field) */
        if (delta == Py_None) {
            Py_INCREF(Py_None);
            field = Py_None;
        }
        else
            FIELD(field, delta, s_model);
        result = begin_stream(state, key, model_or_none(field));
    }
    else if (is_text(kind, s_message_stop))
        result = end_stream(state, key, Py_None, Py_None);
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

/* The name the one call of an ended stream gives when its tool's typed decoder takes its
   arguments and they hold no number below a double's range (typed_stream_reader's
   _judge_ended() and _one_valid(), as accepts() decides for arguments of at most `longest`
   characters): a new reference; None for any other
   stream (the reader judges it, as it would without the speedups, deciding again whatever
   was decided here), NULL with an error set. */
static PyObject *
valid_call_name(State *state, PyObject *stream)
{
    PyObject *result = NULL, *notes = NULL, *failure = NULL, *started = NULL,
             *at_slot = NULL, *name = NULL, *pieces = NULL, *placeholder = NULL,
             *arguments = NULL, *decoder = NULL, *decoded = NULL;
    FIELD(notes, stream, s_notes);
    FIELD(failure, stream, s_failure);
    FIELD(started, stream, s_started);
    FIELD(at_slot, stream, s_at_slot);
    int overflow;
    if (!PyDict_CheckExact(notes) || PyDict_GET_SIZE(notes) != 0 || failure != Py_None ||
        !PyLong_CheckExact(started) || PyLong_AsLongAndOverflow(started, &overflow) != 1 ||
        !PyDict_CheckExact(at_slot) || PyDict_GET_SIZE(at_slot) != 1)
        goto other;
    Py_ssize_t at = 0;
    PyObject *slot, *call;
    PyDict_Next(at_slot, &at, &slot, &call);
    FIELD(name, call, s_name);
    FIELD(pieces, call, s_pieces);
    FIELD(placeholder, call, s_placeholder);
    if (!PyUnicode_CheckExact(name))
        goto other;
    if (pieces == Py_None) { /* _Call.arguments(): the placeholder, or absent */
        Py_INCREF(placeholder);
        arguments = placeholder;
    }
    else {
        if (!PyList_CheckExact(pieces))
            goto other;
        arguments = PyUnicode_Join(s_nothing, pieces);
        if (arguments == NULL)
            goto done;
        if (PyUnicode_GET_LENGTH(arguments) == 0 && placeholder != Py_None)
            Py_SETREF(arguments, Py_NewRef(placeholder));
    }
    if (!PyUnicode_CheckExact(arguments) || PyUnicode_GET_LENGTH(arguments) > state->longest)
        goto other;
    /* A number below a double's range, which the decoder would read as 0 (_one_valid's
       test): the reader's to judge, exactly. (Text that is no UTF-8, a lone surrogate's,
       is the reader's too.) */
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(arguments, &size);
    if (utf8 == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            goto done;
        PyErr_Clear();
        goto other;
    }
    if (holds_tiny_number((const unsigned char *)utf8, size))
        goto other;
    /* (An exception building the decoder or decoding is the reader's to record, or a
       refusal: it asks again. Only an interruption, say, goes on from here.) */
    decoder = PyObject_GetItem(state->decoders, name);
    if (decoder != NULL && decoder != Py_None)
        decoded = PyObject_CallMethodOneArg(decoder, s_decode, arguments);
    if (decoder == NULL || (decoder != Py_None && decoded == NULL)) {
        if (!PyErr_ExceptionMatches(PyExc_Exception))
            goto done;
        PyErr_Clear();
        goto other;
    }
    if (decoder == Py_None)
        goto other;
    result = Py_NewRef(name);
    goto done;
other:
    result = Py_NewRef(Py_None);
done:
    Py_XDECREF(decoded);
    Py_XDECREF(decoder);
    Py_XDECREF(arguments);
    Py_XDECREF(placeholder);
    Py_XDECREF(pieces);
    Py_XDECREF(name);
    Py_XDECREF(at_slot);
    Py_XDECREF(started);
    Py_XDECREF(failure);
    Py_XDECREF(notes);
    return result;
}

/* Whether the reader must check the line before decoding it (typed_stream_reader's tests:
   a line not ASCII or longer than `most`, or one that may hold a number msgspec reads
   otherwise than the exact parse, which the reader leaves to the general path). */
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
    return (high & 0x8080808080808080ULL) != 0 ||
           holds_misread_number((const unsigned char *)bytes, length);
}

/* The loop both functions share: `place` a decoded line. */
typedef int (*placer)(PyObject *record, State *state);

/* progress[at] as a Py_ssize_t (-1 with an error set). */
static Py_ssize_t
item(PyObject *list, Py_ssize_t at)
{
    return PyLong_AsSsize_t(PyList_GET_ITEM(list, at));
}

static PyObject *
run(State *state, PyObject *most_object, PyObject *lanes, PyObject *first_line_object,
    PyObject *lines, PyObject *decode, PyObject *progress, placer place)
{
    if (!PyList_Check(lines) || !PyList_Check(progress) || PyList_GET_SIZE(progress) != 4) {
        PyErr_SetString(PyExc_TypeError, "lines, progress: lists (progress of 4)");
        return NULL;
    }
    Py_ssize_t position = item(progress, 0), placed = item(progress, 1),
               began = item(progress, 2), most = PyLong_AsSsize_t(most_object),
               first_line = PyLong_AsSsize_t(first_line_object);
    if (PyErr_Occurred())
        return NULL;
    PyObject *record = NULL, *max_open = NULL, *sequence = NULL, *valid = NULL;
    int failed = 1;
    state->open = PyObject_GetAttr(lanes, s__open);
    state->ended = state->open == NULL ? NULL : PyObject_GetAttr(lanes, s__ended);
    max_open = state->ended == NULL ? NULL : PyObject_GetAttr(lanes, s_max_open);
    sequence = max_open == NULL ? NULL : PyObject_GetAttr(lanes, s__sequence);
    if (sequence == NULL)
        goto done;
    if (!PyDict_Check(state->open) || !PyDict_Check(state->ended)) {
        PyErr_SetString(PyExc_TypeError, "the lanes' open and ended streams: dicts");
        goto done;
    }
    state->max_open = PyLong_AsSsize_t(max_open);
    state->sequence = PyLong_AsSsize_t(sequence);
    if (PyErr_Occurred())
        goto done;
    failed = 0;
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
        state->line = first_line + position;
        int done = place(record, state);
        if (done == NOT_PLACED)
            break;
        Py_CLEAR(record);
        if (done == FAILED) {
            failed = 1;
            break;
        }
        if (done == ENDED) { /* the reader judges it, and counts the line */
            record = state->finished;
            state->finished = NULL;
            valid = valid_call_name(state, record);
            failed = valid == NULL;
            break;
        }
        if (done == BEGAN)
            began++;
        else
            placed++;
    }
    /* The streams begun here numbered as StreamLanes._begin() numbers them. */
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    Py_SETREF(sequence, PyLong_FromSsize_t(state->sequence));
    if (sequence == NULL || PyObject_SetAttr(lanes, s__sequence, sequence)) {
        failed = 1;
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(traceback);
    }
    else
        PyErr_Restore(type, value, traceback);
    /* progress first: an interruption that comes as this returns finds it counted */
    PyObject *at = PyLong_FromSsize_t(position), *count = PyLong_FromSsize_t(placed),
             *begun = PyLong_FromSsize_t(began);
    if (at == NULL || count == NULL || begun == NULL) {
        Py_XDECREF(at);
        Py_XDECREF(count);
        Py_XDECREF(begun);
        Py_XDECREF(valid);
        failed = 1;
    }
    else {
        PyList_SetItem(progress, 0, at);
        PyList_SetItem(progress, 1, count);
        PyList_SetItem(progress, 2, begun);
        PyList_SetItem(progress, 3, valid == NULL ? Py_NewRef(Py_None) : valid);
    }
done:
    Py_XDECREF(sequence);
    Py_XDECREF(max_open);
    Py_CLEAR(state->ended);
    Py_CLEAR(state->open);
    if (failed) {
        Py_XDECREF(record);
        return NULL;
    }
    if (record == NULL)
        Py_RETURN_NONE;
    return record;
}

static PyObject *
chat(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError,
                        "chat(format, most, lanes, stream_type, call_type, first_line, context, "
                        "decoders, longest, lines, decode, progress)");
        return NULL;
    }
    State state = {.key = args[0], .stream_type = args[3], .call_type = args[4],
                   .context = args[6], .decoders = args[7],
                   .longest = PyLong_AsSsize_t(args[8])};
    if (state.longest == -1 && PyErr_Occurred())
        return NULL;
    return run(&state, args[1], args[2], args[5], args[9], args[10], args[11], place_chunk);
}

static PyObject *
anthropic(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError,
                        "anthropic(key, most, stop_notes, lanes, stream_type, call_type, "
                        "first_line, context, decoders, longest, lines, decode, progress)");
        return NULL;
    }
    if (!PyTuple_Check(args[0]) || PyTuple_GET_SIZE(args[0]) != 2) {
        PyErr_SetString(PyExc_TypeError, "an Anthropic stream's key: (format, None)");
        return NULL;
    }
    State state = {.key = args[0], .stop_notes = args[2], .stream_type = args[4],
                   .call_type = args[5], .context = args[7], .decoders = args[8],
                   .longest = PyLong_AsSsize_t(args[9])};
    if (state.longest == -1 && PyErr_Occurred())
        return NULL;
    return run(&state, args[1], args[3], args[6], args[10], args[11], args[12], place_event);
}

static PyMethodDef methods[] = {
    {"chat", (PyCFunction)(void (*)(void))chat, METH_FASTCALL,
     "Place OpenAI chunks in their streams; the first other line's record, or an ended "
     "stream."},
    {"anthropic", (PyCFunction)(void (*)(void))anthropic, METH_FASTCALL,
     "Place Anthropic events in their stream; the first other one's record, or an ended "
     "stream."},
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
    misread_numbers_init();
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
        intern(&s_input, "input") ||
        intern(&s_empty_object, "{}") || intern(&s_length, "length") ||
        intern(&s_message_start, "message_start") || intern(&s_message_stop, "message_stop") ||
        intern(&s_message, "message") || intern(&s__open, "_open") ||
        intern(&s__ended, "_ended") || intern(&s_max_open, "max_open") ||
        intern(&s__sequence, "_sequence") || intern(&s_move_to_end, "move_to_end") ||
        intern(&s_popitem, "popitem") || intern(&s_last, "last") ||
        intern(&s_notes, "notes") || intern(&s_failure, "failure") ||
        intern(&s_started, "started") || intern(&s_placeholder, "placeholder") ||
        intern(&s_decode, "decode") || intern(&s_nothing, "") ||
        intern(&s_format, "format") || intern(&s_line, "line") ||
        intern(&s_context, "context") || intern(&s_sequence, "sequence") ||
        intern(&s_replaced, "replaced") || intern(&s_skipped, "skipped") ||
        intern(&s_slot, "slot") || intern(&s_number, "number"))
        return NULL;
    s_last_keyword = PyTuple_Pack(1, s_last);
    zero = PyLong_FromLong(0);
    one = PyLong_FromLong(1);
    if (s_last_keyword == NULL || zero == NULL || one == NULL)
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
