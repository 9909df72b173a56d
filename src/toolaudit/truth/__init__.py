"""Ground truth: did the model call the right tool, with the right values?

:mod:`~toolaudit.truth.expected` reads the expected calls of each record;
:mod:`~toolaudit.truth.match` scores the calls a record made against them.
"""
