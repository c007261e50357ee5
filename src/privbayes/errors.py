"""Errors the command line reports as one line, without a traceback."""


class InputError(ValueError):
    """A user mistake: bad file, column, value or parameter.  The message names it."""
