/* Whether a JSON text may hold a number a typed decode (msgspec) reads otherwise than the
 * exact parse (toolaudit.jsonutil.loads_exact), in C: holds_misread_number(text, length),
 * jsonutil.may_hold_misread_numbers's search (tests/test_number_searches.py holds the two
 * equal), and holds_tiny_number, may_hold_tiny_numbers's, shared by the modules that ask it of every line a typed reader reads
 * (_text_speedups's misread_numbers, _stream_speedups's placer). Each calls
 * misread_numbers_init() once, at import. Needs Python.h (Py_ssize_t), stdint.h, string.h.
 */
#ifndef TOOLAUDIT_MISREAD_NUMBERS_H
#define TOOLAUDIT_MISREAD_NUMBERS_H

#include "_digit_runs.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* A run of this many digits (MAX_NUMBER_DIGITS / 4 in jsonutil) may belong to a number the
   exact parse refuses with an exponent of three digits or fewer: more than 10,000 digits in
   its integer part, fraction and exponent (one of the first two then holds 4,999), or a
   power of ten past 1e±10000 (9,001 digits before the point, or zeros after it). Such a
   run holds a byte at every LONG_STRIDE-th position: a few bytes of a line looked at. */
#define LONG_DIGITS 2500
#define LONG_STRIDE 1024

/* Whether a byte may follow a number in JSON (or the text ends there): an exponent's digits
   followed by anything else are a string's (an id's "3e1234a"), or invalid JSON, which
   msgspec refuses itself. */
static inline int
ends_a_number(const unsigned char *text, Py_ssize_t at, Py_ssize_t length)
{
    if (at == length)
        return 1;
    unsigned char byte = text[at];
    return byte == ',' || byte == ']' || byte == '}' || byte == ' ' || byte == '\t' ||
           byte == '\r' || byte == '\n';
}

/* Whether the exponent whose mark ('e' or 'E', after a digit) is text[at] may be read
   otherwise: a minus sign and three digits (below a double's range: msgspec and orjson read
   it as 0), or four digits or more, a sign or not, ending the number (past what the exact
   parse reads, 1e±10000 and its mantissa's digits, a number msgspec skips without a word). */
static int
exponent_misread(const unsigned char *text, Py_ssize_t at, Py_ssize_t length)
{
    Py_ssize_t first = at + 1;
    if (first < length && text[first] == '-' && three_digits(text, first + 1, length))
        return 1;
    if (first < length && (text[first] == '+' || text[first] == '-'))
        first++;
    Py_ssize_t end = first;
    while (end < length && is_digit(text[end]))
        end++;
    return end - first >= 4 && ends_a_number(text, end, length);
}

/* Whether an exponent mark found (bit i of `found`: text[at + i]) is misread. */
static inline int
misread_among(const unsigned char *text, Py_ssize_t length, Py_ssize_t at, uint64_t found)
{
    for (; found; found &= found - 1)
        if (exponent_misread(text, at + __builtin_ctzll(found), length))
            return 1;
    return 0;
}

#ifdef __SSE2__
/* The exponent marks after a digit among the 32 bytes from `bytes` (bytes[-1] read too), as
   bits: each byte tested for 'e' or 'E', the byte before it for a digit. (A byte plus 0x50
   is below 0x8A, as a signed char, for the digits alone: '0' is 0x80; a byte with its 0x20
   bit set is 'e' for 'e' and 'E' alone.) */
static inline uint64_t
narrow_marks(const unsigned char *bytes)
{
    const __m128i shift = _mm_set1_epi8(0x50), bound = _mm_set1_epi8((char)0x8A);
    const __m128i case_bit = _mm_set1_epi8(0x20), mark = _mm_set1_epi8('e');
    uint64_t found = 0;
    for (int half = 0; half < 2; half++) {
        __m128i here = _mm_loadu_si128((const __m128i *)(bytes + 16 * half));
        __m128i before = _mm_loadu_si128((const __m128i *)(bytes + 16 * half - 1));
        __m128i marks = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(here, case_bit), mark),
                                      _mm_cmplt_epi8(_mm_add_epi8(before, shift), bound));
        found |= (uint64_t)(uint32_t)_mm_movemask_epi8(marks) << (16 * half);
    }
    return found;
}
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define WITH_AVX2 1
/* Whether the CPU runs AVX2 (set once, at import, by misread_numbers_init). */
static int avx2;

/* narrow_marks of the 64 bytes from `bytes`, with AVX2: as two vectors (a byte's mark a byte
   of ones), and the two together. */
__attribute__((target("avx2"))) static inline __m256i
wide_marks(const unsigned char *bytes, __m256i *low_marks, __m256i *high_marks)
{
    const __m256i shift = _mm256_set1_epi8(0x50), bound = _mm256_set1_epi8((char)0x8A);
    const __m256i case_bit = _mm256_set1_epi8(0x20), mark = _mm256_set1_epi8('e');
    __m256i low = _mm256_loadu_si256((const __m256i *)bytes);
    __m256i high = _mm256_loadu_si256((const __m256i *)(bytes + 32));
    __m256i low_before = _mm256_loadu_si256((const __m256i *)(bytes - 1));
    __m256i high_before = _mm256_loadu_si256((const __m256i *)(bytes + 31));
    *low_marks = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(low, case_bit), mark),
                                  _mm256_cmpgt_epi8(bound, _mm256_add_epi8(low_before, shift)));
    *high_marks = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(high, case_bit), mark),
                                   _mm256_cmpgt_epi8(bound, _mm256_add_epi8(high_before, shift)));
    return _mm256_or_si256(*low_marks, *high_marks);
}

__attribute__((target("avx2"))) static inline uint64_t
wide_bits(__m256i low_marks, __m256i high_marks)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(low_marks) |
           (uint64_t)(uint32_t)_mm256_movemask_epi8(high_marks) << 32;
}

/* Whether a mark of text[1:length] is misread, for a text of more than 64 bytes: 64 bytes at
   a time, the last ones in a block that ends with the text (the marks already looked at
   dropped). */
__attribute__((target("avx2"))) static int
wide_misread_number(const unsigned char *text, Py_ssize_t length)
{
    __m256i low_marks, high_marks;
    Py_ssize_t at = 1;
    for (; at + 64 <= length; at += 64) {
        __m256i either = wide_marks(text + at, &low_marks, &high_marks);
        if (!_mm256_testz_si256(either, either) &&
            misread_among(text, length, at, wide_bits(low_marks, high_marks)))
            return 1;
    }
    if (at >= length)
        return 0;
    Py_ssize_t start = length - 64;
    wide_marks(text + start, &low_marks, &high_marks);
    uint64_t found = wide_bits(low_marks, high_marks) & ~(uint64_t)0 << (at - start);
    return misread_among(text, length, start, found);
}
#endif

/* The three searches for a misread exponent among the marks of text[1:length] (a text of
   two bytes or more; the first byte is no exponent's mark: none follows a digit), each a
   function of its own so that every one is compiled, and tested, on every build
   (_text_speedups's test-only _plain_, _narrow_ and _wide_misread_exponents):
   holds_misread_number uses the widest the build and the CPU have. */

/* One byte at a time: where the build has no SSE2. */
static inline int
plain_misread_number(const unsigned char *text, Py_ssize_t length)
{
    for (Py_ssize_t at = 1; at < length; at++)
        if (is_exponent_mark(text[at]) && is_digit(text[at - 1]) &&
            exponent_misread(text, at, length))
            return 1;
    return 0;
}

#ifdef __SSE2__
/* 32 bytes at a time (SSE2, on every x86-64), the last ones in a block that ends with the
   text (the marks already looked at dropped), a text of 32 bytes or fewer in a copy padded
   with zero bytes (neither a mark nor a digit). Always inlined: holds_misread_number is
   then the very instructions it was as one function (not so where GCC chooses). */
static inline __attribute__((always_inline)) int
narrow_misread_number(const unsigned char *text, Py_ssize_t length)
{
    Py_ssize_t at = 1;
    if (length <= 32) { /* in a copy padded with zero bytes */
        unsigned char padded[1 + 32] = {0};
        memcpy(padded, text, (size_t)length);
        return misread_among(text, length, at, narrow_marks(padded + 1));
    }
    for (; at + 32 <= length; at += 32)
        if (misread_among(text, length, at, narrow_marks(text + at)))
            return 1;
    if (at >= length)
        return 0;
    Py_ssize_t start = length - 32; /* the last block, over bytes looked at */
    return misread_among(text, length, start,
                         narrow_marks(text + start) & (~(uint64_t)0 << (at - start)));
}
#endif

/* Whether a typed decode may read a number of a JSON text otherwise than the exact parse
   (exponent_misread, or a run of LONG_DIGITS digits), as the typed readers ask of every
   line. An exponent's mark follows a digit, which few 'e' and 'E' of a line do: those are
   found 64 bytes at a time (AVX2, where the CPU has it, for a text of more than 64 bytes),
   else 32 (SSE2), else one by one. */
static int
holds_misread_number(const unsigned char *text, Py_ssize_t length)
{
    if (has_digit_run(text, length, LONG_DIGITS, LONG_STRIDE))
        return 1;
    if (length < 2)
        return 0;
#ifdef WITH_AVX2
    if (avx2 && length > 64)
        return wide_misread_number(text, length);
#endif
#ifdef __SSE2__
    return narrow_misread_number(text, length);
#else
    return plain_misread_number(text, length);
#endif
}

/* Whether a JSON text may hold a number below a double's range (jsonutil's
   may_hold_tiny_numbers): an exponent of a minus sign and three digits, after a digit.
   Each '-' found by memchr (a few a text, where a digit or a letter is every other byte),
   then the bytes around it. */
static int
holds_tiny_number(const unsigned char *text, Py_ssize_t length)
{
    const unsigned char *end = text + length, *minus = text;
    while ((minus = memchr(minus, '-', (size_t)(end - minus))) != NULL) {
        Py_ssize_t at = minus - text;
        if (at >= 2 && is_exponent_mark(text[at - 1]) && is_digit(text[at - 2]) &&
            three_digits(text, at + 1, length))
            return 1;
        minus++;
    }
    return 0;
}

static void
misread_numbers_init(void)
{
#ifdef WITH_AVX2
    __builtin_cpu_init();
    avx2 = __builtin_cpu_supports("avx2");
#endif
}

#endif
