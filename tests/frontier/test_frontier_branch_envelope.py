"""The n-item certificate's relaxation (issue 38): the envelope over a box's vertices, the
residual's linear term and C's pieces must keep every node's value a proven upper bound (checked
at feasible points inside random boxes, with a deliberately coarse projection whose residual is
large)."""

import numpy as np
import pytest

from semres.experiments.frontier import branch, steps


def _power(x, p, top):
    """max(x, 0)^p up to ``top``, continued by its tangent beyond."""
    x = np.clip(x, 0.0, None)
    return np.where(x > top, top ** p + p * top ** (p - 1) * (x - top), np.minimum(x, top) ** p)


@pytest.mark.parametrize("p", [1, 2, 3, 7])
def test_the_power_and_residual_terms_bound_the_power(p):
    """The envelope's columns are sums of _power; L^p <= _power(x) + slope * rho + intercept
    whenever L = x + rho lies in [low, high] and rho in [r_lo, r_hi], checked on random draws
    (x may fall outside [0, high])."""
    rng = np.random.default_rng(p)
    for _ in range(200):
        low, high = np.sort(rng.uniform(0, 1, 2))
        r_lo, r_hi = np.sort(rng.uniform(-0.3, 0.3, 2))
        rho = rng.uniform(r_lo, r_hi, 400)
        L = rng.uniform(low, high, 400)
        slope, icpt = branch._residual(p, np.full(400, low), np.full(400, high),
                                       np.full(400, r_lo), np.full(400, r_hi))
        power = _power(L - rho, p, np.full(400, high))
        assert (L ** p <= power + slope * rho + icpt + 1e-12).all()
        weights = rng.uniform(0, 1, (2, 400))
        sums = branch._vertex_powers((L - rho)[None], p + 1, np.full(400, high), *weights)
        np.testing.assert_allclose(sums[1], power @ weights[1], rtol=1e-12)
        np.testing.assert_allclose(sums[0], _power(L - rho, p + 1, np.full(400, high))
                                   @ weights[0], rtol=1e-12)


def _box_around(P, m, rng):
    """A random sub-box of the root box holding z = B'm."""
    lo, hi = P.box()
    z = P.B.T @ m
    a, b = rng.uniform(0.0, 1.0, (2, lo.size)) ** 2
    return np.maximum(lo, z - a * (z - lo)) - 1e-12, np.minimum(hi, z + b * (hi - z)) + 1e-12


@pytest.mark.parametrize("n, delta, max_rank", [(3, 0.05, 2), (4, 0.01, 3), (4, 0.01, 8),
                                                (8, 0.01, 4), (2, 0.1, 2)])
def test_a_node_bound_holds_at_every_feasible_point_in_its_box(n, delta, max_rank):
    """Random masses m: at the target p_I(m), a random box around B'm bounds p_S(m) from above
    (a low rank leaves a large residual, which the bound must still cover)."""
    rng = np.random.default_rng(n * 100 + max_rank)
    reference = rng.dirichlet(np.full(16, 0.5))
    P = branch._Problem(np.geomspace(1, delta, 16), n, delta, reference, 1e-3, max_rank=max_rank)
    assert P.rank == max_rank or P._residual_gap() <= branch.RESIDUAL_SHARE * 1e-3
    for _ in range(25):
        m = rng.dirichlet(np.full(16, rng.choice([0.2, 1.0])))
        p_s, p_i = P.rates(m)
        lo, hi = _box_around(P, m, rng)
        cuts = [P.cut(rng.dirichlet(np.ones(16))) for _ in range(3)]
        bound, *_ = branch._relaxation(P, p_i, lo, hi, cuts)
        assert bound >= p_s - 1e-9


def test_pieces_sum_to_c_and_their_planes_lie_above(monkeypatch):
    """C's pieces add up to C (and p_S = V + C to the exact rates); each piece lies below its
    tangent planes (it is concave)."""
    rng = np.random.default_rng(11)
    levels = np.geomspace(1, 0.02, 15)
    for n in (2, 4, 8):
        P = branch._Problem(levels, n, 0.02, rng.dirichlet(np.ones(15)), 1e-3)
        with monkeypatch.context() as patch:
            patch.setattr(branch, "PIECES", 1)
            one = branch._Problem(levels, n, 0.02, rng.dirichlet(np.ones(15)), 1e-3)
        for _ in range(10):
            m, at = rng.dirichlet(np.full(15, 0.5), size=2)
            values, grads = P.concave(m)
            assert values.shape == (branch.PIECES,) and (values <= 0).all()
            np.testing.assert_allclose(values.sum(), one.concave(m)[0].sum(), atol=1e-12)
            np.testing.assert_allclose(P.rates(m), steps.step_rates(levels, m, n), atol=1e-11)
            c0, cg, _, _ = P.cut(at)
            assert (values <= c0 + cg @ m + 1e-12).all()
            h = 1e-6 * rng.standard_normal(15)
            h -= h.mean()
            np.testing.assert_allclose(P.concave(m + h)[0] - values, grads @ h, atol=1e-9)
