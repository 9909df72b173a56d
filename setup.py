"""The optional C speedups (the rest of the build is in pyproject.toml).

``toolaudit.history._speedups`` and ``toolaudit.formats._stream_speedups`` are built when a
C compiler is there; where it is not, the build goes on without them (``optional``) and the
pure-Python paths run alone, with the same answers (tests/history/test_speedups.py and
tests/pipeline/test_stream_speedups.py hold the two to it).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "toolaudit.history._speedups",
            ["src/toolaudit/history/_speedups.c"],
            optional=True,
        ),
        Extension(
            "toolaudit.formats._stream_speedups",
            ["src/toolaudit/formats/_stream_speedups.c"],
            optional=True,
        ),
    ]
)
