/* The calls of one history, in the order they were made, found by the text of their id:
 * an open-addressing hash table over the ids' bytes, with no Python object per call (a
 * set and a dict per history, hashing every fresh id object, cost the dict readers more
 * than their reading). Shared by the readers of parsed dicts (_speedups.c) and of JSON
 * text (_speedups_json.c), each keeping what else it knows of a call in an array of its
 * own, by the call's place here.
 */
#ifndef TOOLAUDIT_CALL_TABLE_H
#define TOOLAUDIT_CALL_TABLE_H

#include <Python.h>
#include <stdint.h>
#include <string.h>

/* An id's bytes (at NULL: a call with no id, Gemini's paired by name: never found), and
   how wide its characters are (a str's PyUnicode_KIND, 1 for UTF-8 text): two strs of
   other widths may hold the same bytes. */
typedef struct {
    const unsigned char *at;
    Py_ssize_t length;
    int width;
} IdText;

/* How many calls a table holds in the arrays its owner may give it (`first_ids`,
   `first_slots`: on the owner's stack), before it allocates: most histories hold fewer
   (the two allocations a history, and their frees, cost about 1k instructions). */
#define FIRST_IDS 32
#define FIRST_SLOTS (FIRST_IDS * 4)

typedef struct {
    IdText *ids; /* every call's id, by place: in the order the calls were made */
    Py_ssize_t count, capacity;
    Py_ssize_t *slots; /* the calls by id: a call's place + 1, 0 empty */
    size_t mask;
    /* the owner's arrays (FIRST_IDS, FIRST_SLOTS entries), used first; NULL: none */
    IdText *first_ids;
    Py_ssize_t *first_slots;
} CallTable;

/* An id's hash, eight bytes at a time (ids are a few dozen bytes). */
static size_t
id_hash(IdText id)
{
    uint64_t hash = (uint64_t)id.length * 0x9E3779B97F4A7C15ull, word;
    Py_ssize_t k = 0;
    for (; k + 8 <= id.length; k += 8) {
        memcpy(&word, id.at + k, 8);
        hash = (hash ^ word) * 0xFF51AFD7ED558CCDull;
        hash ^= hash >> 32;
    }
    for (; k < id.length; k++)
        hash = (hash ^ id.at[k]) * 0x100000001B3ull;
    hash ^= hash >> 29;
    return (size_t)hash;
}

static inline int
same_id(IdText a, IdText b)
{
    return a.length == b.length && a.width == b.width &&
           memcmp(a.at, b.at, (size_t)a.length) == 0;
}

/* The place of the call with this id, or -1. */
static Py_ssize_t
table_find(const CallTable *table, IdText id)
{
    if (table->slots == NULL)
        return -1;
    for (size_t slot = id_hash(id) & table->mask;; slot = (slot + 1) & table->mask) {
        Py_ssize_t place = table->slots[slot] - 1;
        if (place < 0 || same_id(table->ids[place], id))
            return place;
    }
}

/* Room for one more call, the slots four times the calls (short probes): 0, or -1 with a
   MemoryError set. */
static int
table_room(CallTable *table)
{
    if (table->count < table->capacity)
        return 0;
    if (table->capacity == 0 && table->first_ids != NULL) {
        memset(table->first_slots, 0, FIRST_SLOTS * sizeof(Py_ssize_t));
        table->ids = table->first_ids;
        table->slots = table->first_slots;
        table->capacity = FIRST_IDS;
        table->mask = FIRST_SLOTS - 1;
        return 0;
    }
    Py_ssize_t capacity = table->capacity ? table->capacity * 2 : 16;
    IdText *ids = table->ids == table->first_ids
                      ? PyMem_Malloc((size_t)capacity * sizeof(IdText))
                      : PyMem_Realloc(table->ids, (size_t)capacity * sizeof(IdText));
    Py_ssize_t *slots = PyMem_Calloc((size_t)capacity * 4, sizeof(Py_ssize_t));
    if (ids != NULL && table->ids == table->first_ids && table->count > 0)
        memcpy(ids, table->first_ids, (size_t)table->count * sizeof(IdText));
    if (ids != NULL)
        table->ids = ids;
    if (ids == NULL || slots == NULL) {
        PyMem_Free(slots);
        PyErr_NoMemory();
        return -1;
    }
    table->capacity = capacity;
    if (table->slots != table->first_slots)
        PyMem_Free(table->slots);
    table->slots = slots;
    table->mask = (size_t)capacity * 4 - 1;
    for (Py_ssize_t place = 0; place < table->count; place++) {
        if (ids[place].at == NULL)
            continue;
        size_t slot = id_hash(ids[place]) & table->mask;
        while (slots[slot])
            slot = (slot + 1) & table->mask;
        slots[slot] = place + 1;
    }
    return 0;
}

/* A new call with this id (at NULL: none): its place; -1 where a call had this id
   before; -2 with a MemoryError set. */
static Py_ssize_t
table_add(CallTable *table, IdText id)
{
    if (table_room(table) < 0)
        return -2;
    if (id.at != NULL) {
        size_t slot = id_hash(id) & table->mask;
        for (; table->slots[slot]; slot = (slot + 1) & table->mask)
            if (same_id(table->ids[table->slots[slot] - 1], id))
                return -1;
        table->slots[slot] = table->count + 1;
    }
    table->ids[table->count] = id;
    return table->count++;
}

/* `array`, what a reader keeps of each call by its place (entries of `size` bytes, `*room`
   of them), grown after table_add to one entry per call the table has room for: the
   array, moved or not, or NULL with a MemoryError set (`array` then still the reader's to
   free). */
static inline void *
table_array(const CallTable *table, void *array, size_t size, Py_ssize_t *room)
{
    if (*room >= table->capacity)
        return array;
    void *grown = PyMem_Realloc(array, (size_t)table->capacity * size);
    if (grown == NULL)
        return PyErr_NoMemory();
    *room = table->capacity;
    return grown;
}

static void
table_free(CallTable *table)
{
    if (table->ids != table->first_ids)
        PyMem_Free(table->ids);
    if (table->slots != table->first_slots)
        PyMem_Free(table->slots);
}

#endif
