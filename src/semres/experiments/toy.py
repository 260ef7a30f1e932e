"""The ReLU superposition toy network (Elhage et al. 2022) trained on 3-item trials.

f(x) = ReLU(Wᵀ W x) on one-hot stimuli, so the network's whole behaviour is the matrix
G = ReLU(Wᵀ W): column p is its response to stimulus p and G[i, p] = ReLU(w_iᵀ w_p) is the
learned similarity g(x_i, x_p). Everything here works on a stack of networks at once
(W of shape (networks, m, l)) so that all seeds and conditions train as one batched computation;
each network still draws from its own seeded stream, so a network trained in a stack equals the
same network trained alone.

Trials are two references and a probe, all distinct stimuli (an index triple (r1, r2, p)).
Success is the Luce mass on the correct reference; in the similarity test every reference that is
equally nearest to the probe counts as correct, as the Luce rule on a discrete space requires.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import sympy as sp
import torch
from scipy.ndimage import uniform_filter1d
from tqdm.auto import tqdm

from semres.core import fits, theory
from semres.core import plotting as splot
from semres.core.fits import bound_report, gof_chi2, gof_none
from semres.core.profiles import Settings, positive_ints, require

CONDITIONS = ("circle", "segment", "reconstruction")
# the reconstruction condition trains on reconstruction alone (lambda_sim = 0) with this weight
RECONSTRUCTION_LAMBDA_REC = 1.0
GEOMETRIES = ("circle", "segment")
# The Luce rule of the original code: a tiny constant keeps log-probabilities finite and turns
# "all similarities zero" into the uniform choice, the same limit the evaluator uses.
_LUCE_EPS = 1e-10


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


def similarity_matrix(W: torch.Tensor) -> torch.Tensor:
    """G = ReLU(Wᵀ W), shape (..., l, l): the network's response to every one-hot stimulus."""
    return torch.relu(W.transpose(-1, -2) @ W)


def forward(W: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The model f(x) = ReLU(Wᵀ W x) for inputs x of shape (..., l) (rows are stimuli)."""
    return torch.relu(x @ W.transpose(-1, -2) @ W)


def sample_trials(rng: np.random.Generator, shape: tuple, n_stimuli: int) -> np.ndarray:
    """Uniform ordered triples (r1, r2, p) of distinct stimuli, shape (*shape, 3).

    Drawing i, then j among the l - 1 others, then k among the l - 2 left, is exact and needs
    three integer draws per trial instead of a permutation of all l stimuli.
    """
    i = rng.integers(0, n_stimuli, size=shape)
    j = rng.integers(0, n_stimuli - 1, size=shape)
    j = j + (j >= i)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    k = rng.integers(0, n_stimuli - 2, size=shape)
    k = k + (k >= lo)
    k = k + (k >= hi)
    return np.stack([i, j, k], axis=-1)


# ---------------------------------------------------------------- exact evaluation


@dataclass(frozen=True)
class TrialTable:
    """Every ordered trial of distinct stimuli, reduced to what the Luce sums need.

    For the similarity test, each ordered triple (r1, r2, p) with d(r1, p) < d(r2, p) has a
    mirror (r2, r1, p) with the same success, so only the strictly ordered ones are stored
    (a nearer, b farther, as flat indices a·l + p and b·l + p into G) and counted twice; a tie
    (equal distances) always succeeds.
    """

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
        idx = np.arange(n)
        a, b, p = np.meshgrid(idx, idx, idx, indexing="ij")
        distinct = (a != b) & (a != p) & (b != p)
        dap, dbp = d[a, p], d[b, p]
        strict = distinct & (dap < dbp)
        ties = distinct & (dap == dbp)
        near = torch.as_tensor((a * n + p)[strict])
        far = torch.as_tensor((b * n + p)[strict])
        return cls(near, far, int(ties.sum()), int(distinct.sum()), n)


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
    """Exact (p_S, p_I) of similarity matrices G (..., l, l) over all trials of distinct stimuli.

    No sampling: p_S averages over all l(l-1)(l-2) ordered (r1, r2, p), p_I over all l(l-1)
    ordered reference pairs with the first copied as the probe (copying the second gives the same
    average by relabelling). G[i, p] is the similarity of reference i to probe p (G >= 0).
    ``compiled`` (default: when numba is installed) sums the similarity pairs in a compiled loop
    instead of torch; both are exact sums, equal to rounding.
    """
    G = torch.as_tensor(G)
    n = table.n_stimuli
    if G.shape[-2:] != (n, n):
        raise ValueError(f"G must end in ({n}, {n}); got {tuple(G.shape)}")
    flat = G.flatten(-2)
    if compiled is None:
        compiled = numba is not None
    if compiled and numba is None:
        raise ValueError("compiled=True needs numba, which is not installed")
    if compiled:
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


# ---------------------------------------------------------------- similarity profile and fit


def _profile_basis(distances):
    """Distinct distance levels and the (l·l, levels) matrix that averages G over each level."""
    D = np.asarray(distances, dtype=float)
    levels, inverse = np.unique(np.round(D, 12), return_inverse=True)
    onehot = np.zeros((D.size, len(levels)))
    onehot[np.arange(D.size), inverse.ravel()] = 1.0
    return levels, torch.as_tensor(onehot / onehot.sum(0))


def _profile(G, basis):
    # torch, not numpy: a BLAS call this small is dominated by OpenBLAS thread start-up.
    levels, average = basis
    G = torch.as_tensor(G)
    means = (G.flatten(-2).to(average.dtype) @ average).numpy()
    self_sim = means[..., :1]
    return levels, np.divide(means, self_sim, out=np.zeros_like(means), where=self_sim > 0)


def distance_profile(G, distances) -> tuple[np.ndarray, np.ndarray]:
    """Mean learned similarity at each distinct distance, relative to the mean self-similarity.

    Returns (d, h) with d the sorted distinct distances (d[0] = 0, h[..., 0] = 1) and h of shape
    (..., len(d)). Ratios of means, so a dead unit (w_i = 0) cannot divide by zero.
    """
    return _profile(G, _profile_basis(distances))


def linear_profile(d, eps, delta=0.0):
    """g(d) = Δ + (1 − Δ) max(0, 1 − d/ε): linear decay to a noise floor Δ (g(0) = 1)."""
    d, eps, delta = np.asarray(d, float), np.asarray(eps, float), np.asarray(delta, float)
    return delta + (1.0 - delta) * np.maximum(0.0, 1.0 - d / eps)


def _fit_on_grid(d, h, eps_grid):
    """Best (ε, Δ, squared error) over a grid of ε, Δ in closed form for each ε."""
    phi = np.maximum(0.0, 1.0 - d[..., None, :] / eps_grid[..., :, None])  # (..., grid, k)
    q = 1.0 - phi
    resid = h[..., None, :] - phi
    qq = (q * q).sum(-1)
    delta = np.clip(np.divide((resid * q).sum(-1), qq, out=np.zeros(resid.shape[:-1]),
                              where=qq > 0), 0.0, 1.0)
    sse = ((resid - delta[..., None] * q) ** 2).sum(-1)
    best = sse.argmin(-1)[..., None]
    pick = lambda a: np.take_along_axis(np.broadcast_to(a, sse.shape), best, -1)[..., 0]
    return pick(eps_grid), pick(delta), pick(sse)


def fit_linear_profile(d, h, eps_grid=None) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares (ε, Δ) of ``linear_profile`` to profiles h (..., len(d)), vectorised.

    For fixed ε the model is linear in Δ (h − φ = Δ(1 − φ) with φ = max(0, 1 − d/ε)), so Δ has a
    closed form and ε is searched on a grid: no iterative optimiser, no starting point. Without
    ``eps_grid``, a coarse grid over [0.2 min d, 1.2 max d] is refined 40-fold around its best
    point. When ε exceeds every distance (g never reaches zero), only the slope (1 − Δ)/ε is
    identified.
    """
    d = np.asarray(d, float)
    h = np.asarray(h, float)
    keep = d > 0
    d, h = d[keep], h[..., keep]
    if eps_grid is not None:
        eps, delta, _ = _fit_on_grid(d, h, np.asarray(eps_grid, float))
        return eps, delta
    coarse = np.linspace(0.2 * d.min(), 1.2 * d.max(), 200)
    step = coarse[1] - coarse[0]
    eps0, _, _ = _fit_on_grid(d, h, coarse)
    fine = eps0[..., None] + np.linspace(-step, step, 81)
    eps, delta, _ = _fit_on_grid(d, h, np.maximum(fine, 0.2 * d.min()))
    return eps, delta


def profile_fit_report(d, eps, delta) -> dict:
    """``fits.bound_report`` of one ``fit_linear_profile`` result against its search range.

    The default search runs ε over [0.2 min d, 1.2 max d] (positive distances) and Δ over
    [0, 1]; a fit on an edge is censored (a flat profile, say, has no resolution to find).
    """
    d = np.asarray(d, float)
    d = d[d > 0]
    return bound_report({"eps": eps, "delta": delta},
                        {"eps": (0.2 * d.min(), 1.2 * d.max()), "delta": (0.0, 1.0)})


def profile_fit_gof(G, distances, eps, delta) -> dict:
    """Goodness of fit of ``linear_profile(eps, delta)`` to one network's learned similarity G.

    Each distance level's mean ratio G_ij / mean(G_ii) gets the standard error of a mean over
    its unordered pairs (pairs that share a stimulus are treated as independent, so the errors
    are if anything too small and the test strict); the chi-square of the standardised
    residuals (2 parameters) is :func:`semres.core.fits.gof_chi2`. Levels with no spread (a single
    pair, or every pair alike) give no standard error and are left out.
    """
    G = np.asarray(G, float)
    D = np.round(np.asarray(distances, float), 12)
    scale = np.mean(np.diag(G))
    if not scale > 0:
        return gof_none("no self-similarity (every unit dead)")
    iu = np.triu_indices(len(D), 1)
    x, d = G[iu] / scale, D[iu]
    levels, inv = np.unique(d, return_inverse=True)
    count = np.bincount(inv).astype(float)
    mean = np.bincount(inv, x) / count
    var = np.bincount(inv, (x - mean[inv]) ** 2) / np.maximum(count - 1, 1)
    se = np.sqrt(var / count)
    ok = (count > 1) & (se > 1e-12 * max(1.0, float(np.abs(mean).max())))
    if ok.sum() <= 2:
        return gof_none(f"{int(ok.sum())} distance levels with a spread, for 2 parameters")
    return gof_chi2(mean[ok], linear_profile(levels[ok], eps, delta), se[ok], 2)


#: how a verdict reads in a sentence comparing a measurement with a reference
VERDICT_VERBS = {"differs": "differs from", "does not hold": "differs from",
                 "inconclusive": "cannot be told apart from", "reproduced": "agrees with",
                 "holds": "agrees with", "agrees within tolerance": "agrees with"}


def against(verdict: str, what: str, ci: dict, ref: float, name: str, digits: int = 4) -> str:
    """``"{what} {verb} {name}: it is +x from it (95% interval [lo, hi], Student's t over n
    seeds)"``, for a status ``verdict`` of :func:`semres.report.status` and a
    :func:`semres.core.intervals.mean_interval` ``ci`` of the measurement."""
    if verdict not in VERDICT_VERBS:
        raise ValueError(f"verdict must be one of {sorted(VERDICT_VERBS)}; got {verdict!r}")
    gap = f"{ci['mean'] - ref:+.{digits}f}"
    if not np.isfinite(ci["se"]):
        return f"{what} is {gap} from {name} (one seed: no interval)"
    return (f"{what} {VERDICT_VERBS[verdict]} {name}: it is {gap} from it (95% interval "
            f"[{ci['low'] - ref:+.{digits}f}, {ci['high'] - ref:+.{digits}f}], Student's t "
            f"over {ci['n']} seeds)")


def replicates_sentence(seeds: int) -> str:
    """What the chapter's replicates vary, and what they share."""
    return (f"The {seeds} seeds of each condition vary the initial weights and the trials "
            "drawn; every seed sees the same 50 stimuli and the same geometry (there is no data "
            "set to redraw), and a circle and a segment run with the same seed start from the "
            "same weights and draw the same trial indices (paired runs). Intervals over seeds "
            "use Student's t on n - 1 degrees of freedom.")


def held_out_peak(p_s, smooth: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each network's p_S at the epoch where the *other* networks peak: (values, epochs).

    The maximum of a network's own trajectory is biased upward (it picks the epoch where its
    training noise happened to be largest). Choosing the epoch from the mean trajectory of the
    other seeds, smoothed by a centred moving average of ``smooth`` epochs, makes the choice
    independent of the network it is applied to, so its value there is an unbiased estimate
    of the expected p_S at a peak epoch chosen in advance. With one network there are no
    others: its own smoothed maximum is returned (less biased than the raw one, not unbiased).
    """
    p_s = np.asarray(p_s, float)
    if p_s.ndim != 2 or p_s.shape[1] < 1:
        raise ValueError("p_s must be a (networks, epochs) array")
    if isinstance(smooth, bool) or not isinstance(smooth, (int, np.integer)) or smooth < 1:
        raise ValueError(f"smooth must be an integer >= 1; got {smooth!r}")
    k = len(p_s)
    if k == 1:
        sm = uniform_filter1d(p_s, smooth, axis=1, mode="nearest")
        e = sm.argmax(1)
        return sm[0, e], e
    others = (p_s.sum(0)[None, :] - p_s) / (k - 1)
    epochs = uniform_filter1d(others, smooth, axis=1, mode="nearest").argmax(1)
    return p_s[np.arange(k), epochs], epochs


# ---------------------------------------------------------------- losses


def toy_loss(W, trials, distances, lam_sim, lam_rec) -> torch.Tensor:
    """Per-network training loss, written plainly for autograd (the reference definition).

    W (N, m, l); trials (N, B, 3) as (r1, r2, p); distances (N, l, l); lam_* (N,).
    Similarity: λ_sim · mean over trials of −log(Luce mass on the reference(s) nearest to p).
    Reconstruction: λ_rec · MSE(ReLU(x Wᵀ W), x) over the one-hot x of every stimulus in the
    trials.
    """
    N, l = W.shape[0], W.shape[-1]
    rows = torch.arange(N)[:, None, None]
    G = similarity_matrix(W)
    r, p = trials[..., :2], trials[..., 2:]
    g = G[rows, r, p] + _LUCE_EPS
    d = distances[rows, r, p]
    correct = d == d.min(-1, keepdim=True).values
    nll = -torch.log((g * correct).sum(-1) / g.sum(-1))
    idx = trials.reshape(N, -1)
    x = torch.eye(l, dtype=W.dtype)[idx]
    mse = ((forward(W, x) - x) ** 2).mean((-2, -1))
    return lam_sim * nll.mean(-1) + lam_rec * mse


def _rows(lam: torch.Tensor):
    """The networks with λ ≠ 0: a slice (a view, no copy) when they are contiguous, else None
    when there are none, else an index tensor."""
    idx = torch.nonzero(lam).flatten()
    if len(idx) == 0:
        return None
    lo, hi = int(idx[0]), int(idx[-1]) + 1
    return slice(lo, hi) if hi - lo == len(idx) else idx


def toy_loss_and_grad(W, trials, distances, lam_sim, lam_rec):
    """``toy_loss`` and its gradient in closed form: no autograd graph, and no l × l matrix for
    the Luce term (the trainer's hot loop; ~3x less time per step than the dense version).

    With S = WᵀW and G = ReLU(S), a loss on entries G[i, j] has gradient W (M + Mᵀ) with
    M = ∂L/∂G ⊙ [S > 0]. The Luce term touches only the 2B entries G[r, p] of its trials, so
    its gradient is accumulated column by column (∂S[r, p]/∂w_r = w_p and vice versa) without
    forming any l × l matrix. The reconstruction term is dense: ∂L/∂G on row i is
    (2 / (n l)) · count_i · (G − I)_i, with count_i how often stimulus i occurs among the n
    stimuli of the batch. Each term runs only on the networks whose λ is non-zero.
    ``tests/test_toy.py`` checks loss and gradient against autograd.
    """
    N, m, l = W.shape
    B = trials.shape[1]
    loss = W.new_zeros(N)
    grad = torch.zeros_like(W)
    sim = _rows(lam_sim)
    if sim is not None:
        Ws, t, lam = W[sim], trials[sim], lam_sim[sim]
        n_s = len(Ws)
        r = t[..., :2].reshape(n_s, 2 * B)
        p = t[..., 2:].expand(-1, -1, 2).reshape(n_s, 2 * B)
        r_cols, p_cols = r[:, None, :].expand(-1, m, -1), p[:, None, :].expand(-1, m, -1)
        Wr, Wp = Ws.gather(2, r_cols), Ws.gather(2, p_cols)  # (n_s, m, 2B)
        S = (Wr * Wp).sum(1)  # S[r, p] for every reference of every trial
        g = torch.relu(S).view(n_s, B, 2) + _LUCE_EPS
        d = distances[sim].reshape(n_s, -1).gather(1, r * l + p).view(n_s, B, 2)
        correct = (d == d.min(-1, keepdim=True).values).to(W.dtype)
        num, den = (g * correct).sum(-1), g.sum(-1)
        loss[sim] = lam * torch.log(den / num).mean(-1)
        dg = (1.0 / den[..., None] - correct / num[..., None]) * (lam[:, None, None] / B)
        dS = (dg.reshape(n_s, 2 * B) * (S > 0))[:, None, :]
        gs = torch.zeros_like(Ws)
        gs.scatter_add_(2, r_cols, dS * Wp)
        gs.scatter_add_(2, p_cols, dS * Wr)
        grad[sim] = gs
    rec = _rows(lam_rec)
    if rec is not None:
        Wr, lam = W[rec], lam_rec[rec]
        idx = trials[rec].reshape(len(Wr), -1)
        n = idx.shape[1]
        S = Wr.transpose(-1, -2) @ Wr
        resid = torch.relu(S) - torch.eye(l, dtype=W.dtype)
        counts = torch.zeros(len(Wr), l, dtype=W.dtype).scatter_add_(
            1, idx, torch.ones_like(idx, dtype=W.dtype))
        loss[rec] += lam * (counts * (resid**2).sum(-1)).sum(-1) / (n * l)
        M = ((2.0 * lam / (n * l))[:, None, None] * counts[..., None] * resid) * (S > 0)
        grad[rec] += Wr @ (M + M.transpose(-1, -2))
    return loss, grad


# ---------------------------------------------------------------- training


@dataclass(frozen=True)
class ToyConfig:
    """The paper's settings (Adam, lr 7e-3, 500 epochs of 2000 trials in batches of 128)."""

    n_stimuli: int = 50
    n_hidden: int = 10
    epochs: int = 500
    trials_per_epoch: int = 2000
    batch_size: int = 128
    lr: float = 7e-3
    lambda_sim: float = 0.1
    init_high: float = 2.0
    snapshot_epochs: tuple = ()

    def __post_init__(self):
        for name in ("n_stimuli", "n_hidden", "epochs", "trials_per_epoch", "batch_size"):
            value = getattr(self, name)
            if int(value) != value or value < 1:
                raise ValueError(f"{name} must be a positive integer; got {value!r}")
        if self.n_stimuli < 3:
            raise ValueError(f"n_stimuli must be >= 3; got {self.n_stimuli}")
        if self.trials_per_epoch < self.batch_size:
            raise ValueError("trials_per_epoch must be >= batch_size")
        for name in ("lr", "lambda_sim", "init_high"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0; got {getattr(self, name)!r}")
        if any(not 0 <= e <= self.epochs for e in self.snapshot_epochs):
            raise ValueError(f"snapshot_epochs must lie in [0, {self.epochs}]")

    @property
    def steps_per_epoch(self) -> int:
        """Whole batches per epoch (2000 // 128 = 15, as in the original trainer)."""
        return self.trials_per_epoch // self.batch_size


@dataclass
class ToyHistory:
    """Per-epoch record of a stack of networks; epoch 0 is the initialisation."""

    conditions: list
    seeds: list
    p_s: np.ndarray  # (networks, epochs + 1), exact
    p_i: np.ndarray
    eps_fit: np.ndarray
    delta_fit: np.ndarray
    profile_d: dict  # geometry -> distinct distances
    profiles: np.ndarray  # (networks, epochs + 1, max levels), NaN-padded
    snapshots: dict = field(default_factory=dict)  # epoch -> G (networks, l, l)
    final_W: np.ndarray | None = None

    def geometry(self, condition: str) -> str:
        """Reconstruction ignores geometry in training; it is evaluated on the circle."""
        return "segment" if condition == "segment" else "circle"


def _validate_networks(conditions, seeds):
    if len(conditions) != len(seeds) or not conditions:
        raise ValueError("conditions and seeds must be non-empty and of equal length")
    bad = [c for c in conditions if c not in CONDITIONS]
    if bad:
        raise ValueError(f"conditions must be drawn from {CONDITIONS}; got {bad[0]!r}")
    for s in seeds:
        if isinstance(s, np.random.SeedSequence):
            continue
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds must be non-negative integers or SeedSequences; got {s!r}")


def _seed(s):
    """A network's seed as numpy takes it: a SeedSequence as is, an integer as an int."""
    return s if isinstance(s, np.random.SeedSequence) else int(s)


def train(conditions, seeds, config: ToyConfig = ToyConfig(), dtype=torch.float32,
          progress: bool = True, threads: int | None = 1,
          compiled: bool | None = None) -> ToyHistory:
    """Train one network per (condition, seed) pair, all at once, evaluating every epoch exactly.

    Network k draws its initial W ~ U[0, init_high] and every trial from
    ``np.random.default_rng(seeds[k])`` (an integer or a named stream, a ``SeedSequence``), so
    its numbers do not depend on what else is in the stack (the same seed in two conditions
    gives paired runs: same start, same trial indices).
    The summed loss gives each W_k exactly the gradient of its own loss, and Adam is
    elementwise, so stacking changes nothing but speed.
    ``dtype`` float32 as in the original code (float64 is ~25% slower and changes nothing
    visible). ``threads`` (default 1) caps torch's intra-op threads while training: these tensors are so
    small that thread synchronisation costs more than it saves (3-10x slower on 2 busy cores).
    ``compiled`` picks the evaluation loop (see ``exact_scores``); it changes only the speed.
    Similarity runs minimise λ_sim · Luce NLL of the correct reference(s) on similarity trials;
    reconstruction runs minimise MSE(ReLU(x Wᵀ W), x) over the same trials' stimuli.
    """
    conditions, seeds = list(conditions), list(seeds)
    _validate_networks(conditions, seeds)
    if threads is None:
        return _train(conditions, [_seed(s) for s in seeds], config, dtype, progress, compiled)
    previous = torch.get_num_threads()
    torch.set_num_threads(int(threads))
    try:
        return _train(conditions, [_seed(s) for s in seeds], config, dtype, progress,
                      compiled)
    finally:
        torch.set_num_threads(previous)


def _train(conditions, seeds, config, dtype, progress, compiled) -> ToyHistory:
    # similarity networks first, reconstruction last: each loss term then works on a
    # contiguous block of the stack (views, no copies); rows are put back in order at the end
    order = sorted(range(len(conditions)), key=lambda k: conditions[k] == "reconstruction")
    history = _train_ordered([conditions[k] for k in order], [seeds[k] for k in order],
                             config, dtype, progress, compiled)
    back = np.argsort(order)
    for name in ("p_s", "p_i", "eps_fit", "delta_fit", "profiles", "final_W"):
        setattr(history, name, getattr(history, name)[back])
    history.snapshots = {e: G[back] for e, G in history.snapshots.items()}
    history.conditions, history.seeds = list(conditions), list(seeds)
    return history


def _train_ordered(conditions, seeds, config, dtype, progress, compiled) -> ToyHistory:
    cfg = config
    n_net, l, m = len(conditions), cfg.n_stimuli, cfg.n_hidden
    rngs = [np.random.default_rng(s) for s in seeds]
    W0 = np.stack([r.uniform(0.0, cfg.init_high, size=(m, l)) for r in rngs])
    W = torch.tensor(W0, dtype=dtype, requires_grad=True)
    opt = torch.optim.Adam([W], lr=cfg.lr)

    geo = ["segment" if c == "segment" else "circle" for c in conditions]
    dist_np = {g: stimulus_distances(l, g) for g in GEOMETRIES}
    D = torch.tensor(np.stack([dist_np[g] for g in geo]), dtype=dtype)
    lam_sim = torch.tensor([cfg.lambda_sim if c != "reconstruction" else 0.0
                            for c in conditions], dtype=dtype)
    lam_rec = torch.tensor([RECONSTRUCTION_LAMBDA_REC if c == "reconstruction" else 0.0
                            for c in conditions],
                           dtype=dtype)

    tables = {g: TrialTable.from_distances(dist_np[g]) for g in GEOMETRIES}
    groups = {g: [k for k in range(n_net) if geo[k] == g] for g in GEOMETRIES}
    bases = {g: _profile_basis(dist_np[g]) for g in GEOMETRIES}
    levels = {g: bases[g][0] for g in GEOMETRIES}
    n_lev = max(len(v) for v in levels.values())
    E = cfg.epochs
    p_s = np.empty((n_net, E + 1))
    p_i = np.empty((n_net, E + 1))
    eps_fit = np.empty((n_net, E + 1))
    delta_fit = np.empty((n_net, E + 1))
    profiles = np.full((n_net, E + 1, n_lev), np.nan)
    snapshots = {}

    def record(epoch):
        with torch.no_grad():
            G = similarity_matrix(W)
            for g, members in groups.items():
                if not members:
                    continue
                Gg = G[members]
                # float32 halves the memory traffic; p_S and p_I move by < 1e-6
                ps, pi = exact_scores(Gg.to(torch.float32), tables[g], compiled)
                p_s[members, epoch] = ps.numpy()
                p_i[members, epoch] = pi.numpy()
                d, h = _profile(Gg, bases[g])
                e_fit, d_fit = fit_linear_profile(d, h)
                eps_fit[members, epoch] = e_fit
                delta_fit[members, epoch] = d_fit
                profiles[members, epoch, : len(d)] = h
            if epoch in cfg.snapshot_epochs:
                snapshots[epoch] = G.numpy().copy()

    S, B = cfg.steps_per_epoch, cfg.batch_size
    record(0)
    for epoch in tqdm(range(1, E + 1), desc="toy ReLU epochs", disable=not progress):
        trials = torch.as_tensor(np.stack([sample_trials(r, (S, B), l) for r in rngs]))
        for step in range(S):
            _, grad = toy_loss_and_grad(W.detach(), trials[:, step], D, lam_sim, lam_rec)
            W.grad = grad
            opt.step()
        record(epoch)

    return ToyHistory(
        conditions=conditions, seeds=seeds, p_s=p_s, p_i=p_i, eps_fit=eps_fit,
        delta_fit=delta_fit, profile_d=levels, profiles=profiles, snapshots=snapshots,
        final_W=W.detach().numpy().copy(),
    )


# ---------------------------------------------------------------- the chapter's analysis

#: Theorem 1's optimum p_S = p_I (constant similarity): the reference the circle networks'
#: peak must lie farther from than from Proposition 1's optimum
CONSTANT_OPTIMUM = 0.75
#: above this fitted floor a profile is still mostly flat: its ε is not drawn (no resolution)
FLAT_DELTA = 0.5


def split_log2(name: str, expr) -> str:
    """LaTeX ``name = polynomial + ln 2 (polynomial)`` on two lines, so that a SymPy law with
    a ln 2 part fits a phone's column (chapter 3's segment law)."""
    expr = sp.expand(expr)
    c = expr.coeff(sp.log(2))
    rest = sp.expand(expr - c * sp.log(2))
    assert sp.simplify(rest + c * sp.log(2) - expr) == 0
    return (rf"\begin{{aligned}} {name} &= {sp.latex(rest)} \\ &\quad + \ln 2 \left("
            rf"{sp.latex(c)}\right) \end{{aligned}}")


def trajectory_table(history: ToyHistory, replicates) -> pd.DataFrame:
    """One row per network and epoch: the exact (p_S, p_I), the fitted profile (ε, Δ) with
    the fit's edge flags (``at_bound``, ``bound_params``: a fit on an edge of its search range
    is censored, not estimated) and, at the snapshot epochs where the per-pair similarities
    are kept, its goodness of fit (:func:`profile_fit_gof`); elsewhere ``gof_tested`` is False
    and ``misfit`` empty. ``replicates`` labels each network (its ``seed`` column)."""
    cond = np.array(history.conditions)
    n_epochs = history.p_s.shape[1]
    dist_of = {g: stimulus_distances(history.final_W.shape[2], g) for g in GEOMETRIES}
    table = pd.DataFrame({
        "condition": np.repeat(cond, n_epochs),
        "seed": np.repeat(list(replicates), n_epochs),
        "epoch": np.tile(np.arange(n_epochs), len(cond)),
        "p_s": history.p_s.ravel(),
        "p_i": history.p_i.ravel(),
        "eps_fit": history.eps_fit.ravel(),
        "delta_fit": history.delta_fit.ravel(),
    })
    reports = [profile_fit_report(history.profile_d[history.geometry(c)], e, dl)
               for c, e, dl in zip(table.condition, table.eps_fit, table.delta_fit)]
    table["at_bound"] = [r["at_bound"] for r in reports]
    table["bound_params"] = [r["bound_params"] for r in reports]
    no_gof = fits.gof_none("the per-pair similarities are kept at snapshot epochs only")
    gofs = [profile_fit_gof(history.snapshots[ep][k], dist_of[history.geometry(c)], e, dl)
            if ep in history.snapshots else no_gof
            for k, c, ep, e, dl in zip(np.repeat(np.arange(len(cond)), n_epochs),
                                       table.condition, table.epoch, table.eps_fit,
                                       table.delta_fit)]
    return pd.concat([table, fits.gof_frame(gofs)], axis=1)


def own_profile_prediction(history: ToyHistory, condition: str, every: int):
    """Exact (p_S, p_I) of each ``condition`` network's own distance profile h(d_ij), every
    ``every`` epochs: what the network would do if its similarity depended on distance alone.
    Returns (epochs, p_s, p_i), the last two of shape (networks, epochs)."""
    geometry = history.geometry(condition)
    members = np.array(history.conditions) == condition
    dist = stimulus_distances(history.final_W.shape[2], geometry)
    table = TrialTable.from_distances(dist)
    levels = history.profile_d[geometry]
    level_of = np.searchsorted(levels, np.round(dist, 12))
    epochs = np.arange(0, history.p_s.shape[1], every)
    h = history.profiles[members][:, epochs, : len(levels)]  # (networks, epochs, levels)
    ps, pi = np.empty(h.shape[:2]), np.empty(h.shape[:2])
    for lo in range(0, len(epochs), 8):  # chunks keep the (.., 58 800) temporaries small
        chunk = torch.tensor(h[:, lo : lo + 8][..., level_of])
        a, c = exact_scores(chunk, table)
        ps[:, lo : lo + 8], pi[:, lo : lo + 8] = a.numpy(), c.numpy()
    return epochs, ps, pi


def linear_profile_scores(geometry: str, eps, n_stimuli: int = 50):
    """Exact (p_S, p_I) of the linear profile max(0, 1 - d/ε) at each ``eps`` on the
    ``n_stimuli`` stimuli of ``geometry``: Proposition 1's similarity on the same discrete
    space the networks see."""
    dist = stimulus_distances(n_stimuli, geometry)
    G = torch.tensor(linear_profile(dist[None], np.asarray(eps)[:, None, None]))
    return tuple(v.numpy() for v in exact_scores(G, TrialTable.from_distances(dist)))


def distance_to_curve(ps, pi, curve_s, curve_i):
    """Euclidean distance in the (p_I, p_S) plane from each point to a densely sampled curve."""
    return np.sqrt((ps[..., None] - curve_s) ** 2 + (pi[..., None] - curve_i) ** 2).min(-1)


def jensen_term(W) -> float:
    """Mean over networks of mean 1/(1 + x) − 1/(1 + mean x), x the off-diagonal similarity
    ratios G_ij / G_jj of the weights ``W``: what the spread of a learned floor adds to p_I
    above Theorem 2's 1/(1 + Δ) (1/(1 + x) is convex, so it is never negative)."""
    G = similarity_matrix(torch.tensor(W)).numpy()
    x = G / np.diagonal(G, axis1=1, axis2=2)[:, :, None]
    x = x[:, ~np.eye(x.shape[1], dtype=bool)]
    return float(np.mean(np.mean(1 / (1 + x), 1) - 1 / (1 + x.mean(1))))


def nearer_proposition1(peak: float, p_star: float) -> bool:
    """The chapter's claim of the peak: it lies nearer Proposition 1's optimum ``p_star`` than
    the constant similarity's 3/4 (the paper: the trajectory follows Proposition 1)."""
    return abs(peak - p_star) < abs(peak - CONSTANT_OPTIMUM)


def position_sentences(nearer_prop1: bool, closer_to_continuous: bool) -> dict:
    """Where the circle networks sit, in words: their peak against the two optima
    (``peak_nearer``, from :func:`nearer_proposition1`), and their late trajectory against the
    continuous law and the same profile on the 50 stimuli (``closer``)."""
    return {
        "peak_nearer": "nearer Proposition 1's optimum than the constant-similarity 3/4"
        if nearer_prop1 else "nearer the constant-similarity 3/4 than Proposition 1's optimum",
        "closer": "closer to the continuous law than to" if closer_to_continuous else
        "farther from the continuous law than from",
    }


def tolerances(disc_peak: float, jensen: float) -> dict:
    """(tolerance, its reason) of each comparison with a law: none of them allows any."""
    return {
        "peak": (0.0, f"no allowance: the 50 stimuli raise a linear profile's optimum (to "
                 f"{disc_peak:.4f} on this circle), never lower it, so they excuse no shortfall"),
        "short": (0.0, "no allowance: the reference is the same linear profile on the same 50 "
                  "stimuli, so no discretisation is left to allow for"),
        "rec": (0.0, "no allowance: Theorem 2 assumes one floor for every pair; the learned "
                f"floors spread, which by Jensen's inequality raises p_I by {jensen:.4f}, but "
                "that term comes from the same weights as the measurement, so it is no "
                "independent tolerance"),
    }


def peak_verdict(status: str, ci: dict, p_star: float, disc_peak: float) -> str:
    """The circle peak against Proposition 1's optimum, and where the 50 stimuli put it."""
    return (against(status, "the circle networks' peak", ci, p_star, "Proposition 1's optimum")
            + f"; on these 50 stimuli the linear profile itself peaks at {disc_peak:.4f}")


def linear_profile_misfit(trajectories, conditions=GEOMETRIES) -> bool:
    """Whether the linear profile fails to describe the networks it would be a reference for
    (the similarity-trained ones, on ``conditions``): most of their tested linear fits fail
    their goodness of fit. A prediction from it is then no reference, and a measurement that
    misses it reads "misfit", not "does not hold"."""
    tested = trajectories[trajectories.gof_tested.astype(bool)
                          & trajectories.condition.isin(list(conditions))]
    return bool(len(tested) and tested.misfit.astype(bool).mean() > 0.5)


def shortfall_verdict(status: str, ci: dict, disc_short: float, continuum_short: float) -> str:
    """The segment's shortfall against the linear profile's on the same stimuli; a shortfall
    of the law's sign but not its size says so; a reference the networks do not follow says
    that instead."""
    if status == "misfit":
        return (f"the segment's shortfall is {ci['mean']:.4f}; the linear profile's on the same "
                f"50 stimuli ({disc_short:.4f}) is no reference for it, since most networks' "
                "similarity is not linear in distance (their linear fits fail their goodness "
                "of fit)")
    text = against(status, "the segment's shortfall", ci, disc_short,
                   f"the linear profile's on the same 50 stimuli ({disc_short:.4f}; "
                   f"{continuum_short:.4f} in the continuum)")
    if np.isfinite(ci["se"]) and ci["low"] > 0 and status == "does not hold":
        text += ": it has the sign of the derived law (the segment peaks lower) but not its size"
    return text


def reconstruction_verdict(status: str, ci: dict, predicted: float, gap_mid: float,
                           mid: int, jensen: float) -> str:
    """Reconstruction p_I against Theorem 2's 1/(1 + Δ), with what fixes the gap's sign and
    what makes up its size (both from the same weights: they describe it, not test it)."""
    gap = ci["mean"] - predicted
    return against(status, "The reconstruction networks' p_I", ci, predicted,
                   "Theorem 2's 1/(1 + Δ) at the fitted floor") + (
        ". Jensen's inequality fixes the sign in advance (p_I ≥ 1/(1 + Δ) for any spread of "
        f"the floor, Δ the mean ratio), so a positive gap is no evidence. Its size: {gap:+.4f} "
        f"at the last epoch against {gap_mid:+.4f} at epoch {mid}; the spread of the final floor "
        f"makes a Jensen term of {jensen:.4f} (mean 1/(1 + x) − 1/(1 + mean x) over the "
        f"off-diagonal similarity ratios x of the final weights), and the remaining "
        f"{gap - jensen:+.4f} is the fitted floor Δ differing from the mean ratio. Both terms "
        "come from the same weights as the measurement: they describe the gap, not test "
        "Theorem 2")


def gof_sentences(trajectories: pd.DataFrame) -> dict:
    """The prose's sentences on the profile fits (``gof_summary``, ``fit_bounds``,
    ``eps_peak_caveat``, ``eps_final_sentence``): how many fail their goodness-of-fit test,
    whether the circle networks' final ε is censored, and what the last snapshot's fitted
    line says (a summary of the shape, not a measurement, where it fails the test)."""
    last = trajectories[trajectories.epoch == trajectories.epoch.max()]
    eps_censored = last[(last.condition == "circle") & last.bound_params.str.contains("eps")]
    tested = trajectories[(trajectories.condition == "circle") & np.isfinite(trajectories.gof_p)]
    last_snap = tested[tested.epoch == tested.epoch.max()]
    n_bad = int(last_snap.misfit.sum())
    after_init = tested[tested.epoch > 0]
    return {
        "gof_summary": (
            f"{int(trajectories.misfit.sum())} of {int(trajectories.gof_tested.sum())} profile "
            "fits at the snapshot epochs fail their goodness-of-fit test (chi-square of the "
            f"level means against the fitted line, p < {fits.MISFIT_P:g}; the `gof_*` and "
            "`misfit` columns of `trajectories.csv`, where the other "
            f"{int((~trajectories.gof_tested).sum()):,} rows, between snapshots, are marked "
            "untested: `gof_tested` False and `misfit` empty)"),
        "fit_bounds": fits.censored_warning(
            "the circle networks' final ε", {"at_bound": True, "bound_params": "eps"})
        if len(eps_censored) else (
            "No circle network's final ε sits on an edge of its search range. (A fitted floor "
            "Δ = 0, no floor at all, also lies on the edge of its range; the `at_bound` column "
            "of `trajectories.csv` flags every fit on an edge.)"),
        "eps_peak_caveat": (
            " (a summary of the profile's width, not a measurement: the line fails its "
            f"goodness-of-fit test at {int(after_init.misfit.sum())} of {len(after_init)} "
            "circle snapshots after initialisation)" if after_init.misfit.any() else
            " (the line passes its goodness-of-fit test at every circle snapshot)"),
        "eps_final_sentence": (
            f"At epoch {int(last_snap.epoch.iloc[0])} the fitted linear decay of the circle "
            f"networks has ε ≈ {last_snap.eps_fit.mean():.3f} and a floor Δ ≈ "
            f"{last_snap.delta_fit.mean():.4f}, "
            + (f"but it fails its goodness-of-fit test for {n_bad} of {len(last_snap)} "
               "networks: their profiles are peaked and clipped like the line, not on it, so "
               "these two numbers summarise the shape and are not measurements of it."
               if n_bad else f"and it passes its goodness-of-fit test for all {len(last_snap)} "
               "networks.")),
    }


# ---------------------------------------------------------------- the chapter's figures

COLOURS = {"circle": splot.CYCLE[0], "segment": splot.CYCLE[1],
           "reconstruction": splot.CYCLE[2]}


def fig_trajectories(history: ToyHistory, own: dict, discrete: tuple, delta_rec: float,
                     segment_law, p_star: float):
    """Every network's exact (p_I, p_S) trajectory, one panel per condition, over Proposition
    1, Theorem 1's front and Theorem 2 at the reconstruction floor ``delta_rec``; ``own`` holds
    each condition's own-profile prediction (:func:`own_profile_prediction`), ``discrete`` the
    linear profile on the 50-point circle, ``segment_law(eps)`` the segment's linear law."""
    cond = np.array(history.conditions)
    fig, axes = splot.subplots(1, 3, figsize=(7.2, 4.6), sharex=True, sharey=True)
    B = np.linspace(0, 1, 2001)
    prop_s, prop_i = theory.linear_circle(B)
    front_pi = np.linspace(0.5, 1, 301)
    noisy_s, noisy_i = theory.two_item(B, delta=delta_rec)
    seg_s_line, seg_i_line = segment_law(np.linspace(1e-4, 0.5, 400))
    disc_s, disc_i = discrete
    for ax, c in zip(axes, CONDITIONS):
        ax.plot(front_pi, theory.front(front_pi), color=splot.THEORY_ALT, lw=1.2,
                label="Theorem 1 (constant $g$)")
        ax.plot(prop_i, prop_s, color=splot.THEORY, lw=1.4, label="Proposition 1 (linear $g$)")
        ax.plot(noisy_i, noisy_s, color=splot.THEORY, lw=1.0, ls="--",
                label=fr"Theorem 2, measured $\Delta = {delta_rec:.3f}$")
        if c == "circle":
            ax.plot(disc_i, disc_s, ".", color=splot.THEORY, ms=1.2,
                    label="linear $g$ on the 50-point circle")
        if c != "reconstruction":
            ax.plot(own[c][2][0], own[c][1][0], color=COLOURS[c], lw=1.0, ls="--",
                    label="first seed's own profile $h(d)$")
        if c == "segment":
            ax.plot(seg_i_line, seg_s_line, color=splot.CYCLE[3], lw=1.4,
                    label="linear $g$ on the segment")
        for k in np.flatnonzero(cond == c):
            ax.plot(history.p_i[k], history.p_s[k], color=COLOURS[c], lw=0.7, alpha=0.6)
            ax.plot(history.p_i[k, 0], history.p_s[k, 0], "o", color=COLOURS[c], ms=3)
            ax.plot(history.p_i[k, -1], history.p_s[k, -1], "s", color=COLOURS[c], ms=3.5,
                    mec="black", mew=0.4)
        ax.plot(p_star, p_star, "k*", ms=9)
        ax.set(title=c, xlabel="$p_I$", xlim=(0.5, 1.0), ylim=(0.48, 0.88))
    axes[0].set_ylabel("generalization $p_S$")
    splot.legend_outside(fig, axes, ncol=2)
    return fig


def fig_similarity(history: ToyHistory):
    """The first circle and segment network's learned similarity against distance at each
    snapshot epoch, with its mean profile h(d) and the fitted linear decay with floor."""
    cond = np.array(history.conditions)
    snap = sorted(history.snapshots)
    fig, axes = splot.subplots(len(snap), 2, figsize=(7.0, 1.9 * len(snap)), sharex="col",
                               sharey=True)
    axes = axes.T  # one column per geometry, one row per snapshot
    for row, c in enumerate(("circle", "segment")):
        k = int(np.flatnonzero(cond == c)[0])
        D = stimulus_distances(history.final_W.shape[2], c)
        levels = history.profile_d[c]
        off = ~np.eye(len(D), dtype=bool)
        for ax, e in zip(axes[row], snap):
            G = history.snapshots[e][k]
            scale = np.diag(G).mean()
            ax.plot(D[off], G[off] / scale, ".", color=splot.CYCLE[row], ms=1.5, alpha=0.15)
            ax.plot(levels, history.profiles[k, e, : len(levels)], "o", color="black", ms=2.5,
                    label="mean $h(d)$")
            dd = np.linspace(0, levels.max(), 300)
            ax.plot(dd, linear_profile(dd, history.eps_fit[k, e], history.delta_fit[k, e]),
                    color=splot.CYCLE[3], lw=1.5, label="fitted linear decay with floor")
            ax.set(ylim=(-0.05, 1.6))
            ax.set_title(fr"{c}, epoch {e}, $\varepsilon$ = {history.eps_fit[k, e]:.3f}",
                         fontsize=9)
    for ax in axes[0]:
        ax.set_ylabel(r"$g / \langle g(x, x)\rangle$")
    for ax in axes[:, -1]:
        ax.set_xlabel("distance $d$")
    splot.legend_outside(fig, axes, ncol=2)
    return fig


def fig_resolution(history: ToyHistory, eps_star: float, segment_eps_star: float):
    """Every network's fitted resolution ε (drawn once its floor is below
    :data:`FLAT_DELTA`) and noise floor Δ against the epoch, with the resolutions at which
    Proposition 1 and the segment's law put the best generalization."""
    cond = np.array(history.conditions)
    fig, (ax_e, ax_d) = splot.subplots(1, 2, figsize=(7.2, 4.2))
    x = np.arange(history.p_s.shape[1])
    for c in ("circle", "segment"):
        for j, k in enumerate(np.flatnonzero(cond == c)):
            shaped = history.delta_fit[k] < FLAT_DELTA
            ax_e.plot(x[shaped], history.eps_fit[k, shaped], color=COLOURS[c], lw=0.7,
                      alpha=0.6, label=c if j == 0 else None)
    ax_e.axhline(eps_star, color=splot.THEORY, ls="--", lw=1,
                 label=r"Proposition 1's $\varepsilon^* = b^*/2$")
    ax_e.axhline(segment_eps_star, color=COLOURS["segment"], ls=":", lw=1.2,
                 label=r"segment law's best $\varepsilon$")
    ax_e.set(xscale="log", xlabel="epoch", ylabel=r"fitted resolution $\varepsilon$")
    for c in CONDITIONS:
        for j, k in enumerate(np.flatnonzero(cond == c)):
            ax_d.plot(x[1:], history.delta_fit[k, 1:], color=COLOURS[c], lw=0.7, alpha=0.6,
                      label=c if j == 0 else None)
    ax_d.set(xscale="log", xlabel="epoch", ylabel=r"fitted noise floor $\Delta$")
    splot.legend_outside(fig, [ax_e, ax_d], ncol=2)
    return fig


# --------------------------------------------------------------------------- settings

def _check_settings(cfg: dict, ch: str) -> None:
    positive_ints(cfg, ch, "seeds", "epochs", "mc_trials")
    snaps = list(cfg["snapshots"])
    require(snaps == sorted(set(snaps)) and snaps[0] >= 0 and snaps[-1] <= cfg["epochs"], ch,
             f"snapshots must be increasing epochs in [0, epochs = {cfg['epochs']}]; got {snaps}")


def _snapshots_within(cfg: dict) -> dict:
    """A shortened run keeps its snapshots: those past the new last epoch move onto it."""
    cfg["snapshots"] = tuple(sorted({min(e, cfg["epochs"]) for e in cfg["snapshots"]}))
    return cfg


SETTINGS = Settings(
    chapter="03_toy_relu",
    profiles={
        "quick": {"seeds": 3, "epochs": 100, "snapshots": (0, 17, 35, 70, 99),
                  "mc_trials": 200_000},
        "default": {"seeds": 10, "epochs": 500, "snapshots": (0, 17, 35, 160, 499),
                    "mc_trials": 4_000_000},
        "paper": {"seeds": 10, "epochs": 500, "snapshots": (0, 17, 35, 160, 499),
                  "mc_trials": 20_000_000},
    },
    check=_check_settings, derive=_snapshots_within,
    parameters={"n_seeds": "seeds", "epochs": "epochs"},
    paper={"seeds": (10, "seeds per condition"), "epochs": (500, "epochs"),
           "snapshots": ((0, 17, 35, 160, 499), "snapshot epochs")})
