"""The bottom layer, imported by every other: the library's errors and warnings, the resource caps applied to
hostile inputs before any work grows with them, checks of parameter values, progress lines, lazy exports."""
