from __future__ import annotations

import math

import pytest

from service.sandbox.executor import plain


@pytest.mark.parametrize(
    "value",
    [None, True, 0, -(10**40), 1.5, "é", [1, [2]], (1, "a"), {1: (2,)}, {3, 4}, frozenset({1}), b"\x00\xff", 1 + 2j],
)
def test_round_trip(value: object) -> None:
    back = plain.decode(plain.encode(value))
    assert back == value and type(back) is type(value)


def test_nan_survives() -> None:
    assert math.isnan(plain.decode(plain.encode(float("nan"))))


def test_rigged_objects_are_refused_or_rebuilt() -> None:
    class Always:
        def __eq__(self, other: object) -> bool:
            return True

    class Liar(int):
        def __eq__(self, other: object) -> bool:
            return True

        def __int__(self) -> int:
            return 999

    class Sneaky(list):
        def __iter__(self):  # type: ignore[override]
            return iter([42])

    with pytest.raises(plain.NonPlainValue):
        plain.encode(Always())
    assert plain.decode(plain.encode(Liar(5))) == 5 and type(plain.decode(plain.encode(Liar(5)))) is int
    assert plain.decode(plain.encode(Sneaky([1, 2]))) == [1, 2]
    with pytest.raises(plain.NonPlainValue):
        plain.encode(x for x in [1])


def test_to_json_normalises_tuples_and_sets() -> None:
    assert plain.to_json((1, (2, 3))) == [1, [2, 3]]
    assert plain.to_json({3, 1, 2}) == [1, 2, 3]


def test_decode_rejects_garbage() -> None:
    for wire in ({"x": 1}, {"l": [1], "t": [2]}, [1, 2]):
        with pytest.raises(ValueError):
            plain.decode(wire)
