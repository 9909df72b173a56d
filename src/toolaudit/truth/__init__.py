"""Ground truth: did the model call the right tool, with the right values?

:mod:`~toolaudit.truth.expected` reads the expected calls of each record (the values
are in :mod:`~toolaudit.truth.entries`); :mod:`~toolaudit.truth.match` scores the calls
a record made against them.
"""

from toolaudit.truth.expected import (
    Accept,
    Expected,
    ExpectedCall,
    ExpectedSet,
    LocatedProblem,
    read_expected,
)
from toolaudit.truth.match import OUTCOMES, UNREADABLE, MadeCall, Score, no_record, score

__all__ = [
    "OUTCOMES",
    "UNREADABLE",
    "Accept",
    "Expected",
    "ExpectedCall",
    "ExpectedSet",
    "LocatedProblem",
    "MadeCall",
    "Score",
    "no_record",
    "read_expected",
    "score",
]
