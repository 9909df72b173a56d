/* The JSON grammar as _speedups_json.c reads a history: every byte checked as orjson
 * checks it (the grammar, the escapes, the UTF-8, the whitespace), numbers orjson may read
 * otherwise than exactly refused (19 digits or more, an exponent of 3 digits), nesting
 * bounded; objects read for a few keys named, the rest of their values skipped. Each
 * function reads at most up to `end`, whatever the bytes. Included by _speedups_json.c
 * alone (its functions are static, to be inlined there).
 */
#ifndef TOOLAUDIT_JSON_GRAMMAR_H
#define TOOLAUDIT_JSON_GRAMMAR_H

#include <Python.h>
#include <stdint.h>
#include <string.h>
/* How many bytes of a string's body past_plain tests at once: 16 with SSE2 (every x86-64),
   8 in a 64-bit word elsewhere (GCC or clang, little-endian), else 1. The tests build the
   extension with each (-DSCAN_WIDTH=8, 1) and hold them to the same answers. */
#ifndef SCAN_WIDTH
#if defined(__SSE2__) && defined(__GNUC__)
#define SCAN_WIDTH 16
#elif defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SCAN_WIDTH 8
#else
#define SCAN_WIDTH 1
#endif
#endif
#if SCAN_WIDTH == 16
#include <emmintrin.h>
#endif

typedef const unsigned char *Byte;

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* How deep containers may nest before the reading is not sure (orjson takes 1024). */
#define MAX_DEPTH 64

/* A string's contents as written in the text (between its quotes). */
typedef struct {
    Byte at;
    Py_ssize_t length;
    int escaped; /* it holds a backslash escape */
} Span;

/* A value an object holds under a key read: its first byte (NULL: the key is absent),
   and its contents when a string. */
typedef struct {
    Byte at;
    Span text;
} Field;

typedef struct {
    const char *text;
    Py_ssize_t length;
} Name;
#define NAME(text) {text, sizeof(text) - 1}

/* ---- The grammar: each scanner takes *p at a value's first byte, moves it past the
   value and returns 1, or 0 where the text is malformed or not read surely. None reads a
   byte at or past `end`. */

static Byte
spaces(Byte p, Byte end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

static inline Byte
space(Byte p, Byte end)
{
    /* one test for the commonest case: no space at all (orjson's and msgspec's writing) */
    return p < end && *p > ' ' ? p : spaces(p, end);
}

/* The bytes a string holds as they are: printable ASCII but the quote and the backslash;
   and the escapes of two bytes, by their letter. */
static unsigned char plain[256], short_escape[256];

static void
init_plain(void)
{
    for (int c = 0x20; c < 0x80; c++)
        plain[c] = c != '"' && c != '\\';
    for (const char *letter = "\"\\/bfnrt"; *letter; letter++)
        short_escape[(unsigned char)*letter] = 1;
}

#if SCAN_WIDTH == 16
/* The 16 bytes from `at` that are not plain, a bit each: the quote, the backslash, and
   (signed: a byte past 0x7F, UTF-8, is below the space too) the bytes below the space. */
static ALWAYS_INLINE unsigned
special_bytes(Byte at)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  space = _mm_set1_epi8(0x20);
    __m128i bytes = _mm_loadu_si128((const __m128i *)at);
    __m128i special = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(bytes, quote), _mm_cmpeq_epi8(bytes, backslash)),
        _mm_cmplt_epi8(bytes, space));
    return (unsigned)_mm_movemask_epi8(special);
}
#endif

/* Past the plain bytes from `at`: most of a history's text, so SCAN_WIDTH bytes at a time,
   one by one for the rest. */
static inline Byte
past_plain(Byte at, Byte end)
{
#if SCAN_WIDTH == 16
    while (end - at >= 16) {
        unsigned found = special_bytes(at);
        if (found)
            return at + __builtin_ctz(found);
        at += 16;
    }
#elif SCAN_WIDTH == 8
    /* A byte's high bit set where it is special: a zero byte found by the borrow it takes
       (a byte above a true one may be marked too, never one below it, so the lowest mark
       is exact), a byte below the space likewise, a byte past 0x7F by its own high bit. */
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    while (end - at >= 8) {
        uint64_t word, quote, backslash;
        memcpy(&word, at, 8);
        quote = word ^ (ones * '"');
        backslash = word ^ (ones * '\\');
        uint64_t found = (((quote - ones) & ~quote) | ((backslash - ones) & ~backslash) |
                          ((word - ones * 0x20) & ~word) | word) &
                         highs;
        if (found)
            return at + (__builtin_ctzll(found) >> 3);
        at += 8;
    }
#endif
    while (at < end && plain[*at])
        at++;
    return at;
}

/* Past the plain bytes from `at` and the two-byte escapes among them (the commonest, as
   the quotes of a call's arguments, "{\"city\":\"Oslo\"}"): each 16-byte block's
   escapes read from its one mask, not a load of the next 16 bytes after each. Stops, as
   past_plain does, at a byte not plain that is not such an escape (a quote, a control
   byte, a byte past ASCII, another escape) or at an escape whose letter lies in the next
   block; its caller reads that byte. */
static inline Byte
past_plain_and_escapes(Byte at, Byte end)
{
#if SCAN_WIDTH == 16
    while (end - at >= 16) {
        unsigned found = special_bytes(at);
        while (found) {
            unsigned offset = (unsigned)__builtin_ctz(found);
            if (offset >= 15 || at[offset] != '\\' || !short_escape[at[offset + 1]])
                return at + offset;
            /* the escape's letter may be marked too (a quote, a backslash): past both */
            found &= ~0u << (offset + 2);
        }
        at += 16;
    }
#endif
    return past_plain(at, end);
}

/* A UTF-8 character by its first byte: its length (0: no character starts so, as 0x80 to
   0xC1 and 0xF5 up) and the range of its second byte, which refuses the overlong forms,
   the surrogates and what lies past U+10FFFF (as orjson does). */
static unsigned char utf8_size[256], second_low[256], second_high[256];

static void
init_utf8(void)
{
    for (int c = 0xC2; c <= 0xF4; c++) {
        utf8_size[c] = c <= 0xDF ? 2 : c <= 0xEF ? 3 : 4;
        second_low[c] = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
        second_high[c] = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    }
}

/* The length of the UTF-8 character at p, or 0 where it is not valid UTF-8 (an overlong
   form, a surrogate, past U+10FFFF, cut short), which orjson refuses. */
static inline int
utf8_length(Byte p, Byte end)
{
    unsigned c = p[0], size = utf8_size[c];
    if (size == 0 || end - p < (Py_ssize_t)size || p[1] < second_low[c] || p[1] > second_high[c])
        return 0;
    if (size >= 3 && (p[2] & 0xC0) != 0x80)
        return 0;
    if (size == 4 && (p[3] & 0xC0) != 0x80)
        return 0;
    return (int)size;
}

static int
hex4(Byte p, Byte end, unsigned *value)
{
    if (end - p < 4)
        return 0;
    *value = 0;
    for (int k = 0; k < 4; k++) {
        unsigned c = p[k], digit;
        if (c >= '0' && c <= '9')
            digit = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            digit = (c | 0x20) - 'a' + 10;
        else
            return 0;
        *value = *value * 16 + digit;
    }
    return 1;
}

/* The length of the escape at p (its backslash), or 0 where orjson refuses it: an
   unknown letter, a bad \u, a surrogate not in a high-low pair. */
static int
escape_length(Byte p, Byte end)
{
    if (end - p < 2)
        return 0;
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u':
        break;
    default:
        return 0;
    }
    unsigned unit, low;
    if (!hex4(p + 2, end, &unit))
        return 0;
    if (unit < 0xD800 || unit > 0xDFFF)
        return 6;
    if (unit > 0xDBFF || end - p < 12 || p[6] != '\\' || p[7] != 'u' || !hex4(p + 8, end, &low))
        return 0;
    return low >= 0xDC00 && low <= 0xDFFF ? 12 : 0;
}

/* A string holding an escape or a byte past ASCII (*p at its quote, `at` at its first
   byte not plain), read with each checked: a two-byte escape (the commonest, as "\\n" in a
   text or "\\"" in a call's arguments) and a run of characters past ASCII (a text not in
   English) each in one step, without a return to past_plain between them. */
static int
scan_any_string(Byte *p, Byte at, Byte end, Span *text)
{
    text->at = *p + 1;
    text->escaped = 0;
    for (;;) {
        if (at >= end)
            return 0;
        unsigned c = *at;
        if (c == '"') {
            text->length = at - text->at;
            *p = at + 1;
            return 1;
        }
        if (c == '\\') {
            text->escaped = 1;
            if (end - at >= 2 && short_escape[at[1]]) {
                /* past this escape and those after it in the same block at once: then
                   at a byte that is not plain, or the end */
                at = past_plain_and_escapes(at + 2, end);
                continue;
            }
            int length = escape_length(at, end);
            if (length == 0)
                return 0;
            at += length;
        } else if (c < 0x80) {
            return 0; /* a control character: refused */
        } else {
            do {
                int length = utf8_length(at, end);
                if (length == 0)
                    return 0;
                at += length;
            } while (at < end && *at >= 0x80);
        }
        at = past_plain(at, end);
    }
}

static inline int
scan_string(Byte *p, Byte end, Span *text)
{
    Byte at = *p + 1, stop = past_plain(at, end);
    if (stop < end && *stop == '"') { /* the commonest: plain bytes up to the quote */
        *text = (Span){at, stop - at, 0};
        *p = stop + 1;
        return 1;
    }
    return scan_any_string(p, stop, end, text);
}

static inline int
is_digit(Byte p, Byte end)
{
    return p < end && *p >= '0' && *p <= '9';
}

static int
scan_number(Byte *p, Byte end)
{
    Byte at = *p;
    if (at < end && *at == '-')
        at++;
    if (!is_digit(at, end))
        return 0;
    Byte digits = at;
    if (*at == '0')
        at++; /* a leading zero stands alone: "01" ends at the 1, which the caller refuses */
    else
        while (is_digit(at, end))
            at++;
    Py_ssize_t count = at - digits;
    if (at < end && *at == '.') {
        Byte fraction = ++at;
        while (is_digit(at, end))
            at++;
        if (at == fraction)
            return 0;
        count += at - fraction;
    }
    if (count >= 19)
        return 0; /* an integer orjson may turn into a float */
    if (at < end && (*at == 'e' || *at == 'E')) {
        at++;
        if (at < end && (*at == '+' || *at == '-'))
            at++;
        Byte exponent = at;
        while (is_digit(at, end))
            at++;
        if (at == exponent || at - exponent >= 3)
            return 0; /* none, or past a double's range (orjson refuses 1e400) */
    }
    *p = at;
    return 1;
}

static int
scan_literal(Byte *p, Byte end, const char *word, Py_ssize_t length)
{
    if (end - *p < length || memcmp(*p, word, (size_t)length) != 0)
        return 0;
    *p += length;
    return 1;
}

static int skip_value(Byte *p, Byte end, int depth);

/* Past the separator after an element (of an array or an object ending in `close`) or
   its opening bracket (`first`): 1 at the next element's first byte, 0 past the end
   bracket, -1 malformed. Inlined wherever it is called (measured: 6% to 9% of the reading
   of the benchmark's histories; scan_key or skip_value inlined cost more than they save). */
static ALWAYS_INLINE int
next_element(Byte *p, Byte end, int first, unsigned char close)
{
    Byte at = space(*p, end);
    if (at >= end)
        return -1;
    if (*at == close) {
        *p = at + 1;
        return 0;
    }
    if (!first) {
        if (*at != ',')
            return -1;
        at = space(at + 1, end);
    }
    *p = at;
    return at < end ? 1 : -1;
}

/* Past the colon after a key (*p past the key's closing quote): 1, or 0 malformed. */
static inline int
past_colon(Byte *p, Byte end)
{
    Byte at = *p < end && **p == ':' ? *p : space(*p, end); /* the commonest: no space */
    if (at >= end || *at != ':')
        return 0;
    *p = space(at + 1, end);
    return 1;
}

/* Past an object's key and its colon (*p at the key's quote): the key's text. */
static int
scan_key(Byte *p, Byte end, Span *key)
{
    if (*p >= end || **p != '"' || !scan_string(p, end, key))
        return 0;
    return past_colon(p, end);
}

/* Which of the `count` keys named the key at `at` (its opening quote) spells as it is
   written, its closing quote right after: that name's place, or `count` where none does.
   A name holds no quote, backslash, control byte or byte past ASCII, so a key that
   matches is that very string, read whole, with no escape; one that matches none spells
   none of them unescaped (its bytes differ from each name and its quote). Most keys of the
   objects read are named: this spares scanning them. */
static inline int
named_key(Byte at, Byte end, const Name *names, int count)
{
    Py_ssize_t room = end - at - 1; /* the bytes after the opening quote */
    int k = 0;
    while (k < count && (room <= names[k].length || at[1 + names[k].length] != '"' ||
                         at[1] != (unsigned char)names[k].text[0] ||
                         memcmp(at + 1, names[k].text, (size_t)names[k].length) != 0))
        k++;
    return k;
}

/* Whether the `length` bytes at `at` (not past `end`) are `literal`'s: for a literal of a
   known length (WRITTEN), compared a word at a time, inlined, where memcmp is a call into
   libc that costs more than the compare (a key's few bytes). */
static ALWAYS_INLINE int
written_as(Byte at, Byte end, const char *literal, size_t length)
{
    if (end - at < (Py_ssize_t)length)
        return 0;
    if (length >= 8) {
        uint64_t a, b;
        for (size_t k = 0; k + 8 <= length; k += 8) {
            memcpy(&a, at + k, 8);
            memcpy(&b, literal + k, 8);
            if (a != b)
                return 0;
        }
        memcpy(&a, at + length - 8, 8); /* the last word, overlapping the one before */
        memcpy(&b, literal + length - 8, 8);
        return a == b;
    }
    uint32_t a, b, c, d;
    if (length >= 4) {
        memcpy(&a, at, 4);
        memcpy(&b, literal, 4);
        memcpy(&c, at + length - 4, 4);
        memcpy(&d, literal + length - 4, 4);
        return a == b && c == d;
    }
    for (size_t k = 0; k < length; k++)
        if (at[k] != (unsigned char)literal[k])
            return 0;
    return 1;
}
#define WRITTEN(at, end, literal) written_as(at, end, literal, sizeof(literal) - 1)

static int
skip_container(Byte *p, Byte end, int depth)
{
    if (depth >= MAX_DEPTH)
        return 0;
    unsigned char close = **p == '{' ? '}' : ']';
    (*p)++;
    for (int first = 1;; first = 0) {
        int more = next_element(p, end, first, close);
        if (more <= 0)
            return more == 0;
        Span key;
        if (close == '}' && !scan_key(p, end, &key))
            return 0;
        if (!skip_value(p, end, depth + 1))
            return 0;
    }
}

static int
skip_value(Byte *p, Byte end, int depth)
{
    if (*p >= end)
        return 0;
    Span text;
    switch (**p) {
    case '"':
        return scan_string(p, end, &text);
    case '{':
    case '[':
        return skip_container(p, end, depth);
    case 't':
        return scan_literal(p, end, "true", 4);
    case 'f':
        return scan_literal(p, end, "false", 5);
    case 'n':
        return scan_literal(p, end, "null", 4);
    default:
        return scan_number(p, end);
    }
}

/* Reads in place the value of key `key` of an object, a container at nesting `depth`
   (*p at its bracket): *p past it, 1; 0 where not sure. It is called for every key named
   whose value is a container, so it skips (skip_value) those it does not read. */
typedef int (*ReadInPlace)(void *state, int key, Byte *p, Byte end, int depth);

/* The object at *p ('{', at nesting `depth`): the value of each of the `count` keys
   named (fields[k].at NULL where absent), every other value skipped; where `nested` is
   given, a key named whose value is an array or an object is read by it, in place (the
   text is read once). Not sure of a key holding an escape or of a key named given twice.
   Which name a key spells, if any, is found by `find` (named_key's answer, for these
   names): inlined where it is called, so that a reader of one object may find its keys in
   fewer steps than named_key (_speedups_json.c's chat_key). */
typedef int (*FindKey)(Byte at, Byte end, const Name *names, int count);

static ALWAYS_INLINE int
read_object_by(Byte *p, Byte end, int depth, const Name *names, int count, Field *fields,
               FindKey find, ReadInPlace nested, void *state)
{
    if (depth >= MAX_DEPTH || *p >= end || **p != '{')
        return 0;
    for (int k = 0; k < count; k++)
        fields[k].at = NULL;
    unsigned found = 0;
    (*p)++;
    for (int first = 1;; first = 0) {
        int more = next_element(p, end, first, '}');
        if (more <= 0)
            return more == 0;
        if (**p != '"')
            return 0;
        int k = find(*p, end, names, count);
        if (k < count)
            *p += names[k].length + 2;
        else {
            Span key;
            if (!scan_string(p, end, &key) || key.escaped)
                return 0; /* a key escaped may spell a key named */
        }
        if (!past_colon(p, end) || *p >= end)
            return 0;
        if (k < count) {
            if (found & (1u << k))
                return 0;
            found |= 1u << k;
            fields[k].at = *p;
            if (**p == '"') {
                if (!scan_string(p, end, &fields[k].text))
                    return 0;
                continue;
            }
            if (nested != NULL && (**p == '[' || **p == '{')) {
                if (depth + 1 >= MAX_DEPTH || !nested(state, k, p, end, depth + 1))
                    return 0;
                continue;
            }
        }
        if (!skip_value(p, end, depth + 1))
            return 0;
    }
}

static int
read_object_with(Byte *p, Byte end, int depth, const Name *names, int count, Field *fields,
                 ReadInPlace nested, void *state)
{
    return read_object_by(p, end, depth, names, count, fields, named_key, nested, state);
}

static int
read_object(Byte *p, Byte end, int depth, const Name *names, int count, Field *fields)
{
    return read_object_with(p, end, depth, names, count, fields, NULL, NULL);
}

/* ---- What a field holds. Each was scanned whole by read_object: its first byte tells
   its kind. */

static inline int
is_string(const Field *field)
{
    return field->at != NULL && *field->at == '"';
}

static inline int
is_null_or_absent(const Field *field)
{
    return field->at == NULL || *field->at == 'n';
}

static inline int
is_true(const Field *field)
{
    return field->at != NULL && *field->at == 't';
}

static inline int
same_span(Span a, Span b)
{
    return a.length == b.length && memcmp(a.at, b.at, (size_t)a.length) == 0;
}

/* 1: a string equal to `word`; 0: not (another value, or absent); -1: an escaped string
   (not sure). */
static int
is_word(const Field *field, const Name *word)
{
    if (!is_string(field))
        return 0;
    if (field->text.escaped)
        return -1;
    return field->text.length == word->length &&
           memcmp(field->text.at, word->text, (size_t)word->length) == 0;
}

/* The elements of an array, read one by one. */
typedef struct {
    Byte p, end;
    Py_ssize_t j; /* the element's place */
} Elements;

/* Opens the array at `at`: 0 where it is not an array (or absent). */
static int
open_array(Elements *elements, Byte at, Byte end)
{
    if (at == NULL || *at != '[')
        return 0;
    *elements = (Elements){at + 1, end, -1};
    return 1;
}

/* 1 at the next element (elements->p its first byte), 0 past the array, -1 malformed. */
static int
next_of(Elements *elements)
{
    elements->j++;
    return next_element(&elements->p, elements->end, elements->j == 0, ']');
}

#endif
