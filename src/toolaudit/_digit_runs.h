/* Runs of digits in a text, looked for without looking at every byte: a run of `run`
 * digits or more holds a byte at every `stride`-th position where `stride` <= `run`, so
 * only the runs through those bytes are measured. Shared by the number searches of
 * _misread_numbers.h and the scoring kernel (truth/_line_scores.c). */

#ifndef TOOLAUDIT_DIGIT_RUNS_H
#define TOOLAUDIT_DIGIT_RUNS_H

#include <Python.h>

static inline int
is_digit(unsigned char byte)
{
    return byte >= '0' && byte <= '9';
}

/* The length of the run of digits that holds text[at] (0 where it is no digit). */
static inline Py_ssize_t
digit_run_at(const unsigned char *text, Py_ssize_t at, Py_ssize_t length)
{
    Py_ssize_t first = at, end = at;
    while (first > 0 && is_digit(text[first - 1]))
        first--;
    while (end < length && is_digit(text[end]))
        end++;
    return end - first;
}

/* Whether the text holds a run of `run` digits or more, its bytes looked at every
   `stride` (at most `run`). */
static inline int
has_digit_run(const unsigned char *text, Py_ssize_t length, Py_ssize_t run, Py_ssize_t stride)
{
    for (Py_ssize_t at = stride - 1; at < length; at += stride)
        if (is_digit(text[at]) && digit_run_at(text, at, length) >= run)
            return 1;
    return 0;
}

#endif
