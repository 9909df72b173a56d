"""The optional C speedups (the rest of the build is in pyproject.toml).

``toolaudit.history._speedups`` (the conversation check), ``toolaudit._text_speedups``
(the searches of a line's numbers, a call's report line),
``toolaudit.formats._stream_speedups`` (the typed stream reader's commonest lines),
``toolaudit.deep._walk_speedups`` (deep mode's valid leaves) and
``toolaudit.truth._line_scores`` (a flat call's line scored when its score is sure) and
``toolaudit.truth._expected_lines`` (an expected file's commonest lines read) are
built when a C compiler is there; where it is not, the build goes on without them
(``optional``) and the pure-Python twins run alone, with the same answers
(tests/history/test_speedups*.py, tests/test_number_searches.py,
tests/pipeline/test_rows.py, tests/pipeline/test_stream_speedups.py,
tests/deep/test_walk_speedups.py, tests/truth/test_line_scores.py and
tests/truth/test_expected_lines.py hold each pair to it).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "toolaudit.history._speedups",
            [
                "src/toolaudit/history/_speedups.c",
                "src/toolaudit/history/_speedups_json.c",
                "src/toolaudit/history/_speedups_pairs.c",
            ],
            depends=[
                "src/toolaudit/history/_speedups_json.h",
                "src/toolaudit/truth/_plain_slots.h",
                "src/toolaudit/history/_json_grammar.h",
                "src/toolaudit/history/_call_table.h",
            ],
            optional=True,
        ),
        Extension(
            "toolaudit._text_speedups",
            ["src/toolaudit/_text_speedups.c"],
            depends=["src/toolaudit/_misread_numbers.h", "src/toolaudit/_digit_runs.h"],
            optional=True,
        ),
        Extension(
            "toolaudit.formats._stream_speedups",
            ["src/toolaudit/formats/_stream_speedups.c"],
            depends=["src/toolaudit/_misread_numbers.h", "src/toolaudit/_digit_runs.h"],
            optional=True,
        ),
        Extension(
            "toolaudit.deep._walk_speedups",
            ["src/toolaudit/deep/_walk_speedups.c"],
            optional=True,
        ),
        Extension(
            "toolaudit.truth._line_scores",
            ["src/toolaudit/truth/_line_scores.c"],
            depends=[
                "src/toolaudit/truth/_plain_slots.h",
                "src/toolaudit/truth/_shape_table.h",
                "src/toolaudit/_digit_runs.h",
            ],
            optional=True,
        ),
        Extension(
            "toolaudit.truth._expected_lines",
            ["src/toolaudit/truth/_expected_lines.c"],
            optional=True,
        ),
    ]
)
