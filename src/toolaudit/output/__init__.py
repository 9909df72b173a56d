"""Renderers: pure functions from a value (a summary, a comparison) to text.

None of them prints or picks a destination: the CLI decides where the text
goes, and :mod:`~toolaudit.output.files` writes a file so that a crash leaves
no half of one. The ``--format`` choices are in
:mod:`~toolaudit.output.registry`; this package imports nothing else when it
loads, so that the CLI can build its options from it and still start fast.
"""

from __future__ import annotations

from toolaudit.output.registry import FORMATS, RENDERERS, render_comparison, render_summary

__all__ = ["FORMATS", "RENDERERS", "render_comparison", "render_summary"]
