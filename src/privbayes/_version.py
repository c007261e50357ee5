"""The library version, recorded in every released model."""

__version__ = "0.2.0"
