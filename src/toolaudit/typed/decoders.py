"""Which typed decoders the typed readers use: the plain ones, or deep mode's."""

from __future__ import annotations

from collections.abc import Callable

from toolaudit.compiled import speedups
from toolaudit.contract import Validator
from toolaudit.jsonutil import may_hold_misread_numbers
from toolaudit.typed.arguments import DecodersOnDemand


def typed_decoders(validator: Validator) -> DecodersOnDemand:
    """The decoders of ``validator``'s tools by name, built on demand: deep mode's
    (:mod:`toolaudit.typed.deep_arguments`) where the tools were compiled for it."""
    if not validator.deep:
        return DecodersOnDemand(validator)
    from toolaudit.typed.deep_arguments import deep_arguments_decoder  # here: deep mode only

    return DecodersOnDemand(validator, deep_arguments_decoder)


_TEXT_SPEEDUPS = speedups("toolaudit._text_speedups")

#: Whether msgspec may read a number of a JSON line otherwise than the exact parse: below a
#: double's range (``1e-400``), which it reads as 0.0 (as orjson does) where an enum
#: holding 0 or deep mode's constraints want its exact value, or past what the exact parse
#: reads (``1e999999``, ``1e-20000``), which makes the line malformed:json there but which
#: msgspec skips without a word in a field it does not read: the general path reads such a
#: line, parsing it again exactly. Asked of every line a typed reader decodes: the C search
#: itself where it is built, not through ``jsonutil.may_hold_misread_numbers`` (two Python
#: calls a line, about 600 instructions).
may_misread_numbers: Callable[[bytes], bool] = (
    may_hold_misread_numbers if _TEXT_SPEEDUPS is None else _TEXT_SPEEDUPS.misread_numbers
)
