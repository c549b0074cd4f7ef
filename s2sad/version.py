"""The package version: generated modules and emitted files record which s2sad made them."""
__version__ = "0.1.0"
