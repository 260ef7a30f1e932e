"""semres.core.kernels.half_decay and chance_return: one name, one definition for each of the
two distances a fitted exponential with a floor gives."""

import math

import numpy as np
import pytest

from semres.core import kernels
from semres.core.kernels import chance_return, half_decay


def test_half_decay_is_where_the_graded_part_halves():
    lam = 17.0
    d = half_decay(lam)
    assert math.exp(-d / lam) == pytest.approx(0.5)
    # with a floor, g is halfway between its peak 1 + delta and its floor delta there
    g = kernels.Exponential(lam, 0.2)
    assert float(g(np.array([d]))[0]) == pytest.approx(0.5 * (1.2 + 0.2))


def test_chance_return_is_where_the_graded_part_meets_the_floor():
    lam, delta = 25.0, 0.05
    d = chance_return(lam, delta)
    assert math.exp(-d / lam) == pytest.approx(delta)
    assert d > half_decay(lam)  # a floor below one half: chance returns later than the half
    assert kernels.Exponential(lam, delta).resolution == pytest.approx(d)
    assert chance_return(lam, 0.0) == math.inf  # no floor: never back at chance
    assert chance_return(lam, 1.5) == 0.0  # the floor outweighs an exact match


@pytest.mark.parametrize("call,name", [(lambda: half_decay(0.0), "lam"),
                                       (lambda: half_decay(float("nan")), "lam"),
                                       (lambda: chance_return(-1.0, 0.1), "lam"),
                                       (lambda: chance_return(10.0, -0.1), "delta"),
                                       (lambda: chance_return(10.0, math.inf), "delta")])
def test_bad_arguments_are_named(call, name):
    with pytest.raises(ValueError, match=name):
        call()
