"""Plain-data codec: what a candidate's return value may be (stdlib only).

Values cross from the candidate process to the harness (and from the harness
to the host) only in this form, so an object with a rigged ``__eq__``,
``__hash__`` or ``__iter__`` can never reach the code that judges it: it is
rebuilt from its builtin base type, or refused as ``NonPlainValue``.

Wire form (JSON-compatible): ``None``, ``bool``, ``int``, ``float`` (NaN and
infinities included, as Python's json writes them) and ``str`` stand for
themselves; containers are one-key objects: ``{"l": [...]}`` list,
``{"t": [...]}`` tuple, ``{"s": [...]}`` set, ``{"f": [...]}`` frozenset,
``{"d": [[k, v], ...]}`` dict, ``{"b": "latin-1 text"}`` bytes,
``{"c": [re, im]}`` complex.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 200


class NonPlainValue(TypeError):
    """The value is not built from plain builtin data."""


def encode(value: Any, _depth: int = 0) -> Any:
    """Turn ``value`` into its wire form; raises NonPlainValue."""
    if _depth > MAX_DEPTH:
        raise NonPlainValue("value nested too deeply")
    kind = type(value)
    if value is None or kind is bool:
        return value
    d = _depth + 1
    # Subclasses are rebuilt through the base type's own slot, so an
    # overridden __int__/__str__/__iter__ is never called.
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, list):
        return {"l": [encode(item, d) for item in list.__iter__(value)]}
    if isinstance(value, tuple):
        return {"t": [encode(item, d) for item in tuple.__iter__(value)]}
    if isinstance(value, dict):
        return {"d": [[encode(k, d), encode(v, d)] for k, v in dict.items(value)]}
    if isinstance(value, frozenset):
        return {"f": [encode(item, d) for item in frozenset.__iter__(value)]}
    if isinstance(value, set):
        return {"s": [encode(item, d) for item in set.__iter__(value)]}
    if isinstance(value, (bytes, bytearray)):
        return {"b": bytes(value).decode("latin-1")}
    if isinstance(value, complex):
        return {"c": [complex.__getattribute__(value, "real"), complex.__getattribute__(value, "imag")]}
    raise NonPlainValue(f"{kind.__name__} is not plain data")


def decode(wire: Any, _depth: int = 0) -> Any:
    """Inverse of ``encode``; raises ValueError on anything else."""
    if _depth > MAX_DEPTH + 1:
        raise ValueError("value nested too deeply")
    if wire is None or type(wire) in (bool, int, float, str):
        return wire
    if type(wire) is not dict or len(wire) != 1:
        raise ValueError("not a plain-data wire value")
    ((tag, body),) = wire.items()
    d = _depth + 1
    if tag == "l":
        return [decode(item, d) for item in body]
    if tag == "t":
        return tuple(decode(item, d) for item in body)
    if tag == "s":
        return {decode(item, d) for item in body}
    if tag == "f":
        return frozenset(decode(item, d) for item in body)
    if tag == "d":
        return {decode(k, d): decode(v, d) for k, v in body}
    if tag == "b":
        return str(body).encode("latin-1")
    if tag == "c":
        return complex(float(body[0]), float(body[1]))
    raise ValueError(f"unknown plain-data tag {tag!r}")


def to_json(value: Any) -> Any:
    """Plain Python value -> JSON data: tuples become lists, sets sorted lists
    where sortable, dict keys strings when they all are. Used to compare a
    ``call`` result with JSON test data (where a tuple can only be a list)."""
    if isinstance(value, (list, tuple)):
        return [to_json(item) for item in value]
    if isinstance(value, (set, frozenset)):
        items = [to_json(item) for item in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(k): to_json(v) for k, v in value.items()}
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, complex):
        return [value.real, value.imag]
    return value
