"""The optional C speedups (the rest of the build is in pyproject.toml).

``toolaudit.history._speedups`` is built when a C compiler is there; where it is not, the
build goes on without it (``optional``) and the pure-Python fast paths run alone, with the
same answers (tests/history/test_speedups.py holds the two to it).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "toolaudit.history._speedups",
            ["src/toolaudit/history/_speedups.c", "src/toolaudit/history/_speedups_json.c"],
            depends=[
                "src/toolaudit/history/_speedups_json.h",
                "src/toolaudit/history/_json_grammar.h",
            ],
            optional=True,
        )
    ]
)
