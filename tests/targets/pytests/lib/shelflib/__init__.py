"""A small library, installed into the test's virtual environment."""

from shelflib.core import shelve_all

__all__ = ["shelve_all"]
