"""The ReLU superposition network f(x) = ReLU(Wᵀ W x), its losses and its batched trainer.

On one-hot stimuli the network's whole behaviour is the matrix G = ReLU(Wᵀ W): column p is its
response to stimulus p and G[i, p] = ReLU(w_iᵀ w_p) is the learned similarity g(x_i, x_p).
Everything here works on a stack of networks at once (W of shape (networks, m, l)) so that all
seeds and conditions train as one batched computation; each network still draws from its own
seeded stream, so a network trained in a stack equals the same network trained alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from semres.core.seeds import int_seed

from .evaluation import GEOMETRIES, TrialTable, exact_scores, sample_trials, stimulus_distances
from .profile_fit import fit_linear_profile, profile_basis, profile_on_basis
from .settings import DEFAULT, ToySettings

CONDITIONS = ("circle", "segment", "reconstruction")
# The Luce rule of the original code: a tiny constant keeps log-probabilities finite and turns
# "all similarities zero" into the uniform choice, the same limit the evaluator uses.
_LUCE_EPS = 1e-10


def similarity_matrix(W: torch.Tensor) -> torch.Tensor:
    """G = ReLU(Wᵀ W), shape (..., l, l): the network's response to every one-hot stimulus."""
    return torch.relu(W.transpose(-1, -2) @ W)


def forward(W: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """The model f(x) = ReLU(Wᵀ W x) for inputs x of shape (..., l) (rows are stimuli)."""
    return torch.relu(x @ W.transpose(-1, -2) @ W)


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
    ``tests/toy/test_toy_superposition.py`` checks loss and gradient against autograd.
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
    """What the trainer needs; its defaults are the paper's (Adam, lr 7e-3, 500 epochs of 2000
    trials in batches of 128; :mod:`.settings` holds them)."""

    n_stimuli: int = DEFAULT.n_stimuli
    n_hidden: int = DEFAULT.n_hidden
    epochs: int = DEFAULT.epochs
    trials_per_epoch: int = DEFAULT.trials_per_epoch
    batch_size: int = DEFAULT.batch_size
    lr: float = DEFAULT.lr
    lambda_sim: float = DEFAULT.lambda_sim
    lambda_rec: float = DEFAULT.lambda_rec
    init_high: float = DEFAULT.init_high
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
        for name in ("lr", "lambda_sim", "lambda_rec", "init_high"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0; got {getattr(self, name)!r}")
        if any(not 0 <= e <= self.epochs for e in self.snapshot_epochs):
            raise ValueError(f"snapshot_epochs must lie in [0, {self.epochs}]")

    @classmethod
    def of(cls, cfg: ToySettings) -> "ToyConfig":
        """The trainer's part of a chapter's settings."""
        return cls(n_stimuli=cfg.n_stimuli, n_hidden=cfg.n_hidden, epochs=cfg.epochs,
                   trials_per_epoch=cfg.trials_per_epoch, batch_size=cfg.batch_size,
                   lr=cfg.lr, lambda_sim=cfg.lambda_sim, lambda_rec=cfg.lambda_rec,
                   init_high=cfg.init_high, snapshot_epochs=tuple(cfg.snapshots))

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
    for s in seeds:  # a root of the book's seed convention: its own check says which
        try:
            int_seed(s, "toy network")
        except ValueError as err:
            raise ValueError(f"seeds: {err}") from None


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
    reconstruction runs minimise λ_rec · MSE(ReLU(x Wᵀ W), x) over the same trials' stimuli.
    """
    conditions, seeds = list(conditions), list(seeds)
    _validate_networks(conditions, seeds)
    if threads is None:
        return _train(conditions, seeds, config, dtype, progress, compiled)
    previous = torch.get_num_threads()
    torch.set_num_threads(int(threads))
    try:
        return _train(conditions, seeds, config, dtype, progress, compiled)
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
    lam_rec = torch.tensor([cfg.lambda_rec if c == "reconstruction" else 0.0
                            for c in conditions], dtype=dtype)

    tables = {g: TrialTable.from_distances(dist_np[g]) for g in GEOMETRIES}
    groups = {g: [k for k in range(n_net) if geo[k] == g] for g in GEOMETRIES}
    bases = {g: profile_basis(dist_np[g]) for g in GEOMETRIES}
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
                d, h = profile_on_basis(Gg, bases[g])
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
