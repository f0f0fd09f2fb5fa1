"""YAML files read safely, with the line of every value.

Cost profiles, ``--config`` settings files and experiment files are YAML.  Each is
read with PyYAML's safe loader, checked before it is built (nesting at most
:data:`YAML_MAX_DEPTH`, at most :data:`YAML_MAX_ALIASED` values gained through
aliases, only the standard tags), and every value keeps the line it was written on,
so that a message can name the file, the row and the field.
"""

from __future__ import annotations

import re

import yaml

from .._errors import InputError, abbreviate

__all__: list[str] = []

#: Deepest nesting of lists and mappings accepted in a YAML file.
YAML_MAX_DEPTH = 64
#: Most values a YAML file may gain through aliases (every use of an alias
#: counts all the values it stands for).
YAML_MAX_ALIASED = 100_000
_STANDARD_TAGS = {None, "!"} | {f"tag:yaml.org,2002:{t}"
                                for t in ("str", "int", "float", "bool", "null", "seq", "map")}


def read_yaml(path):
    """Read a YAML file: ``(data, {key path: line})``; InputError with the line if malformed.

    Only the standard tags (str, int, float, bool, null, seq, map) are
    accepted; nesting deeper than :data:`YAML_MAX_DEPTH` and aliases adding
    more than :data:`YAML_MAX_ALIASED` values (so a "billion laughs" file is
    refused at once) are errors.
    """
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read ({exc.__class__.__name__})", source=path) from None
    try:
        _check_events(text, path)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(f"malformed YAML: {problem}", source=path,
                         row=mark.line + 1 if mark else None) from None
    if node is None:
        raise InputError("empty file", source=path)
    lines = {}
    return _construct(node, (), lines, _Budget(path)), lines


def _check_events(text, path):
    """Refuse non-standard tags and deep nesting before anything is built.

    The event stream is produced without recursion, unlike the composer,
    which would overflow Python's stack on thousands of nested brackets.
    """
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        tag = getattr(event, "tag", None)
        if tag not in _STANDARD_TAGS:
            shown = tag.replace("tag:yaml.org,2002:", "!!")
            raise InputError(f"unsupported YAML tag '{abbreviate(shown)}' (only the standard "
                             "str, int, float, bool, null, seq and map)", source=path,
                             row=event.start_mark.line + 1)
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > YAML_MAX_DEPTH:
                raise InputError(f"nested deeper than {YAML_MAX_DEPTH} levels", source=path,
                                 row=event.start_mark.line + 1)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


class _Budget:
    """Counts the values built again because an alias refers to them."""

    def __init__(self, path):
        self.path, self.seen, self.aliased = path, set(), 0
        self.scalars = yaml.SafeLoader("")   # one constructor: it caches aliased scalars

    def spend(self, node, depth):
        if id(node) in self.seen:
            self.aliased += 1
            if self.aliased > YAML_MAX_ALIASED:
                raise InputError(f"aliases expand to more than {YAML_MAX_ALIASED} values",
                                 source=self.path, row=node.start_mark.line + 1)
        else:
            self.seen.add(id(node))
        if depth > YAML_MAX_DEPTH:
            # Only reachable through an alias of a node inside itself.
            raise InputError("an alias refers to a value that contains it",
                             source=self.path, row=node.start_mark.line + 1)


_STR_TAG = "tag:yaml.org,2002:str"
#: Numbers with an exponent that YAML 1.1 (PyYAML) reads as text unless they have a dot
#: and a signed exponent (``1e-3``, ``2.5e10``, ``1E6``): numbers, as in YAML 1.2.
_EXPONENT_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)[eE][-+]?[0-9]+")


def _construct(node, path, lines, budget):
    """Plain Python from a YAML node, recording the line of every key.

    Mapping keys stay strings exactly as written, so algorithms named ``no``
    or ``1`` are not turned into booleans or numbers.  A value written
    ``1e-3`` is the number, as YAML 1.2 reads it (PyYAML, YAML 1.1, gave the
    text ``'1e-3'``: a cost refused as "not a number", an estimator's ``C``
    refused by scikit-learn); quoted, it stays text.
    """
    budget.spend(node, len(path))
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        out = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise InputError("a key must be a plain value, not a list or mapping",
                                 source=budget.path, row=key_node.start_mark.line + 1)
            key = str(key_node.value)
            if key in out:    # YAML forbids it; PyYAML would keep the last silently
                raise InputError(f"key '{abbreviate(key)}' given twice (also on line "
                                 f"{lines[path + (key,)]})", source=budget.path,
                                 row=key_node.start_mark.line + 1,
                                 field=".".join(map(str, path + (key,))))
            lines[path + (key,)] = key_node.start_mark.line + 1
            out[key] = _construct(value_node, path + (key,), lines, budget)
            lines[path + (key,)] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item, path + (i,), lines, budget) for i, item in enumerate(node.value)]
    if node.tag == _STR_TAG and node.style is None and _EXPONENT_FLOAT.fullmatch(node.value):
        return float(node.value)
    try:
        return budget.scalars.construct_object(node)
    except (ValueError, yaml.YAMLError) as exc:   # e.g. an integer of 5000 digits
        message = getattr(exc, "problem", None) or str(exc).split(":")[0]
        raise InputError(f"unreadable value: {message}", source=budget.path,
                         row=node.start_mark.line + 1) from None
