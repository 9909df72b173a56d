"""The version, in a module of its own so that any module may import it without a cycle."""

__version__ = "0.1.0"
