"""Chapter 2's science beyond the closed forms: Theorem 3's heterogeneous form on the segment,
where every probe has its own ball measure (the chapter derives the homogeneous laws)."""

from __future__ import annotations

from scipy import integrate

from semres.core import theory


def segment_n_item(eps: float, n: int, delta: float = 0.0) -> list[float]:
    """Theorem 3's heterogeneous form on the segment [0, 1]: ``(p_s, p_i)`` of the finite sums
    averaged over the probe's ball measure b_p = min(p + eps, 1) - max(p - eps, 0), by
    quadrature over p (split where b_p has its kinks)."""
    def b_p(x):
        return min(x + eps, 1.0) - max(x - eps, 0.0)

    return [integrate.quad(lambda x: theory.n_item(b_p(x), n, delta=delta)[i], 0, 1,
                           points=[eps, 1 - eps], epsabs=1e-12, epsrel=1e-12)[0]
            for i in (0, 1)]
