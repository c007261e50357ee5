"""Errors the command line reports as one line, without a traceback."""


class InputError(ValueError):
    """A user mistake: bad file, column, value or parameter.  The message names it."""


class ColumnsLeftOut(UserWarning):
    """Columns of a file that the schema does not name (nor lists under ``drop:``) were left out.

    A note, not an error: the names are public, the values are not read.  Defined here, not in
    the counting layer, so that the command line can catch it without importing pandas."""


class InferredDomainWarning(UserWarning):
    """The domain (schema) was read from the private data, or is a draft still marked 'inferred: true':
    its categories and bounds are not covered by epsilon.  The privacy report says so too."""


class UncoveredColumnsWarning(UserWarning):
    """Columns of the schema that no clique of a private MRF covers: the model knows nothing of them
    and samples them uniformly.  The privacy report says so too."""
