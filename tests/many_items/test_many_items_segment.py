"""semres.experiments.many_items.segment: Theorem 3's heterogeneous form on the segment."""

import pytest

from semres.core import kernels, spaces, theory
from semres.core.simulate import luce_success
from semres.experiments.many_items import segment, settings


def test_segment_form_is_the_average_and_matches_the_engine():
    eps, n = settings.DEFAULT.eps_segment, 3
    ps, pi = segment.segment_n_item(eps, n)
    # at n = 2 the average is Theorem 1 with the segment's moments
    mean, var = spaces.Segment().ball_measure(eps)
    assert segment.segment_n_item(eps, 2) == pytest.approx(
        theory.two_item(mean, var_b=var), abs=1e-10)
    for task, value in (("similarity", ps), ("identification", pi)):
        est = luce_success(spaces.Segment(), kernels.Constant(eps), task, n, 200_000, seed=1)
        assert abs(est.zscore(value)) < 5
