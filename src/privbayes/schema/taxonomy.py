"""Generalisation levels of an attribute (TODS 2017, §5.1 "Hierarchical Encoding").

Level 0 is the leaves; level i maps every leaf to a node of the taxonomy tree; the
root is omitted.  Categorical attributes take their tree from the schema (nested
lists of categories); numeric attributes get the binary tree over their bins.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from privbayes.core.errors import InputError
from privbayes.core.limits import limits

Taxonomy = tuple
"""Nested tuples of leaf labels and groups (tuples)."""


def binary_tree_levels(bins: int) -> list[np.ndarray]:
    """Levels of the binary tree over ``bins`` consecutive bins."""
    leaves = np.arange(bins)
    levels = [leaves]
    shift = 1
    while math.ceil(bins / 2**shift) >= 2:
        levels.append(leaves >> shift)
        shift += 1
    return levels


def leaves(tree: Taxonomy) -> list:
    """The leaf labels of a tree, left to right."""
    out: list = []
    for node in tree:
        out.extend(leaves(node) if isinstance(node, tuple) else [node])
    return out


def taxonomy_levels(tree: Taxonomy, index: dict[str, int], size: int) -> list[np.ndarray]:
    """Top-aligned levels: a group nested in k braces is a node of level H − k.

    H = (deepest nesting) + 1.  A leaf nested in k braces stays itself up to level
    H − 1 − k and joins its enclosing group above (the convention of the paper's
    released ``.domain`` files, which this reproduces).
    """
    paths: dict[int, list[tuple]] = {}

    def walk(node: Taxonomy, ancestors: list[tuple]) -> None:
        for child in node:
            if isinstance(child, tuple):
                walk(child, ancestors + [child])
            else:
                paths[index[str(child)]] = ancestors
    walk(tree, [])
    height = max(len(p) for p in paths.values()) + 1
    levels = []
    for level in range(height):
        depth = height - level
        keys = []
        for leaf in range(size):
            path = paths[leaf]
            keys.append(("group", id(path[depth - 1])) if 1 <= depth <= len(path) else ("leaf", leaf))
        seen: dict = {}
        levels.append(np.array([seen.setdefault(k, len(seen)) for k in keys]))
    return levels


def depth(raw: Any) -> int:
    """Nesting depth of nested lists/tuples, without recursion (hostile input may nest deeply)."""
    deepest, stack = 0, [(raw, 0)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (list, tuple)):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in node if isinstance(child, (list, tuple)))
    return deepest


def taxonomy_from_lists(raw: Any, source: str) -> Taxonomy:
    """A taxonomy from the schema's nested lists, refused above the depth cap before recursing."""
    if not isinstance(raw, list):
        raise InputError(f"{source}: a taxonomy must be a (nested) list of categories")
    cap = limits().max_taxonomy_depth
    if depth(raw) > cap:
        raise InputError(f"{source}: a taxonomy nests more than {cap} levels deep (PRIVBAYES_MAX_TAXONOMY_DEPTH)")
    return _to_tuples(raw)


def _to_tuples(raw: list) -> Taxonomy:
    return tuple(_to_tuples(x) if isinstance(x, list) else x for x in raw)


def taxonomy_to_lists(tree: Taxonomy) -> list:
    return [taxonomy_to_lists(x) if isinstance(x, tuple) else x for x in tree]
