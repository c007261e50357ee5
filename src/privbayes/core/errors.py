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


class IndependentColumnsWarning(UserWarning):
    """A fit whose network has degree 0 although no degree was asked for: at this ε (and θ) the table is
    too small for any parent to be worth its noise, so every column is sampled on its own and no
    correlation is kept.  Decided from public inputs and n (under add/remove: the noisy count)."""


class UncoveredColumnsWarning(UserWarning):
    """Columns of the schema that no clique of a private MRF covers: the model knows nothing of them
    and samples them uniformly.  The privacy report says so too."""
