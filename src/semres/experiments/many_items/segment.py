"""Theorem 3's heterogeneous form on the segment, where every probe has its own ball measure."""

from __future__ import annotations

from scipy import integrate

from semres.core import theory


def segment_n_item(eps: float, n: int, delta: float = 0.0) -> list[float]:
    """``(p_s, p_i)`` on [0, 1]: Theorem 3 averaged over the probe's ball measure
    b_p = min(p + eps, 1) - max(p - eps, 0), by quadrature split at its kinks."""
    def b_p(x):
        return min(x + eps, 1.0) - max(x - eps, 0.0)

    return [integrate.quad(lambda x: theory.n_item(b_p(x), n, delta=delta)[i], 0, 1,
                           points=[eps, 1 - eps], epsabs=1e-12, epsrel=1e-12)[0]
            for i in (0, 1)]
