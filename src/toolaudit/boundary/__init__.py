"""At the agent boundary: check a provider's response in one call, and answer the model.

:func:`check_response` finds every call in what a provider returned (any shape
the log formats know, SDK objects included), judges each against the tools the
request sent, and returns one :class:`CallCheck` per call.
:func:`tool_result_messages` words what was wrong for the model, in the
provider's own tool-result shape, so that it can send a corrected call.

Thread-safe and async-safe: nothing is shared but a bounded cache of compiled
tool sets (:data:`~toolaudit.boundary.compiled.CACHE_SIZE`).
"""

from toolaudit.boundary.check import CallCheck, check_response
from toolaudit.boundary.compiled import CACHE_SIZE, cache_clear
from toolaudit.boundary.messages import SHAPES, feedback, tool_result_messages

__all__ = [
    "CACHE_SIZE",
    "SHAPES",
    "CallCheck",
    "cache_clear",
    "check_response",
    "feedback",
    "tool_result_messages",
]
