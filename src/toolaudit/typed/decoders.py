"""Which typed decoders the typed readers use: the plain ones, or deep mode's."""

from __future__ import annotations

from toolaudit.contract import Validator
from toolaudit.jsonutil import may_hold_numbers_beyond_a_double
from toolaudit.typed.arguments import DecodersOnDemand


def typed_decoders(validator: Validator) -> DecodersOnDemand:
    """The decoders of ``validator``'s tools by name, built on demand: deep mode's
    (:mod:`toolaudit.typed.deep_arguments`) where the tools were compiled for it."""
    if not validator.deep:
        return DecodersOnDemand(validator)
    from toolaudit.typed.deep_arguments import deep_arguments_decoder  # here: deep mode only

    return DecodersOnDemand(validator, deep_arguments_decoder)


def may_read_as_zero(line: bytes) -> bool:
    """Whether a number of this JSON line may be below a double's range (``1e-400``),
    which msgspec reads as 0.0 (as orjson does) where an enum holding 0 or deep mode's
    constraints want its exact value: the general path reads such a line whose call a
    decoder refused, parsing it again exactly. The two searches rule out nearly every
    line before the exponents are read."""
    return (b"e-" in line or b"E-" in line) and may_hold_numbers_beyond_a_double(line)
