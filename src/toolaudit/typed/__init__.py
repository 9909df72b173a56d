"""Typed decoders: msgspec decodes a call's arguments and checks them against the
contract in one pass, for the calls it can call valid (see :mod:`toolaudit.typed.arguments`)."""

from __future__ import annotations

from toolaudit.typed.arguments import accepts, arguments_decoder, arguments_decoders

__all__ = ["accepts", "arguments_decoder", "arguments_decoders"]
