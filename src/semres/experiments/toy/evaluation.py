"""The toy task's stimuli t_i = i / l (circle or segment), its trials (two references and a
probe, distinct), and the exact (p_S, p_I) of a similarity matrix over every trial; equally
near references are both correct, as the Luce rule on a discrete space requires."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

GEOMETRIES = ("circle", "segment")


def stimulus_distances(n_stimuli: int = 50, geometry: str = "circle") -> np.ndarray:
    """Distances between stimuli t_i = i / l on a circle of circumference 1 or on [0, 1]."""
    if int(n_stimuli) != n_stimuli or n_stimuli < 3:
        raise ValueError(f"n_stimuli must be an integer >= 3; got {n_stimuli!r}")
    if geometry not in GEOMETRIES:
        raise ValueError(f"geometry must be one of {GEOMETRIES}; got {geometry!r}")
    t = np.arange(n_stimuli) / n_stimuli
    d = np.abs(t[:, None] - t[None, :])
    if geometry == "circle":
        d = np.minimum(d, 1.0 - d)
    return d


def sample_trials(rng: np.random.Generator, shape: tuple, n_stimuli: int) -> np.ndarray:
    """Uniform ordered triples (r1, r2, p) of distinct stimuli, shape (*shape, 3): three
    integer draws per trial (i, j among the others, k among the rest)."""
    i = rng.integers(0, n_stimuli, size=shape)
    j = rng.integers(0, n_stimuli - 1, size=shape)
    j = j + (j >= i)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    k = rng.integers(0, n_stimuli - 2, size=shape)
    k = k + (k >= lo)
    k = k + (k >= hi)
    return np.stack([i, j, k], axis=-1)


@dataclass(frozen=True)
class TrialTable:
    """Every ordered similarity trial, reduced to the strictly ordered ones (nearer, farther,
    as flat indices into G; each counts twice, for its mirror) and the count of ties (always a
    success)."""

    near: torch.Tensor
    far: torch.Tensor
    n_ties: int
    n_trials: int
    n_stimuli: int

    @classmethod
    def from_distances(cls, distances) -> "TrialTable":
        d = np.asarray(distances, dtype=float)
        if d.ndim != 2 or d.shape[0] != d.shape[1] or d.shape[0] < 3:
            raise ValueError(f"distances must be a square matrix with >= 3 rows; got {d.shape}")
        n = d.shape[0]
        a, b, p = np.meshgrid(*[np.arange(n)] * 3, indexing="ij")
        distinct = (a != b) & (a != p) & (b != p)
        strict = distinct & (d[a, p] < d[b, p])
        return cls(torch.as_tensor((a * n + p)[strict]), torch.as_tensor((b * n + p)[strict]),
                   int((distinct & (d[a, p] == d[b, p])).sum()), int(distinct.sum()), n)


try:  # optional: a compiled loop makes exact evaluation several times cheaper (bench_toy.py)
    import numba
except ImportError:  # pragma: no cover - the torch path below gives the same numbers
    numba = None

if numba is not None:

    @numba.njit(cache=True, nogil=True)
    def _pair_sums(flat, near, far):  # pragma: no cover - compiled
        out = np.zeros(flat.shape[0])
        for n in range(flat.shape[0]):
            row = flat[n]
            acc = 0.0
            for k in range(near.shape[0]):
                ga = row[near[k]]
                total = ga + row[far[k]]
                acc += ga / total if total > 0 else 0.5
            out[n] = acc
        return out


def _luce_pair(g_mine: torch.Tensor, g_other: torch.Tensor) -> torch.Tensor:
    """Luce mass on the first of two items; uniform (1/2) when both similarities are zero."""
    return torch.nan_to_num(g_mine / (g_mine + g_other), nan=0.5)


def exact_scores(G, table: TrialTable, compiled: bool | None = None
                 ) -> tuple[torch.Tensor, torch.Tensor]:
    """Exact (p_S, p_I) of similarity matrices G (..., l, l), G[i, p] of reference i to probe
    p: p_S over all l(l-1)(l-2) ordered trials, p_I over all l(l-1) reference pairs with the
    first copied. ``compiled`` (default: with numba) sums in a compiled loop, equal to rounding."""
    G = torch.as_tensor(G)
    n = table.n_stimuli
    if G.shape[-2:] != (n, n):
        raise ValueError(f"G must end in ({n}, {n}); got {tuple(G.shape)}")
    if compiled and numba is None:
        raise ValueError("compiled=True needs numba, which is not installed")
    flat = G.flatten(-2)
    if compiled or (compiled is None and numba is not None):
        rows = flat.detach().cpu().reshape(-1, n * n).numpy()
        sums = _pair_sums(rows, table.near.numpy(), table.far.numpy())
        mass_sum = torch.from_numpy(sums).reshape(flat.shape[:-1])
    else:
        mass = _luce_pair(flat[..., table.near], flat[..., table.far])
        mass_sum = mass.sum(-1, dtype=torch.float64)
    p_s = (table.n_ties + 2.0 * mass_sum) / table.n_trials
    diag = torch.diagonal(G, dim1=-2, dim2=-1).unsqueeze(-2)  # g(x_p, x_p) in column p
    ident = _luce_pair(diag.expand_as(G), G)  # [r, p]: p copied, r the other reference
    total = ident.sum((-2, -1), dtype=torch.float64)
    p_i = (total - torch.diagonal(ident, dim1=-2, dim2=-1).sum(-1, dtype=torch.float64)) / (
        n * (n - 1))
    return p_s, p_i
