"""The ReLU superposition network f(x) = ReLU(Wᵀ W x) and its batched trainer: on one-hot
stimuli the network is G = ReLU(Wᵀ W), G[i, p] the learned similarity g(x_i, x_p)."""

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
# the original code's Luce rule: finite log-probabilities, all-zero similarities give chance
_LUCE_EPS = 1e-10


def similarity_matrix(W: torch.Tensor) -> torch.Tensor:
    """G = ReLU(Wᵀ W), shape (..., l, l): the network's response to every one-hot stimulus."""
    return torch.relu(W.transpose(-1, -2) @ W)


def _rows(lam: torch.Tensor):
    """The networks with λ ≠ 0: a slice (a view) when contiguous, None if none, else indices."""
    idx = torch.nonzero(lam).flatten()
    if len(idx) == 0:
        return None
    lo, hi = int(idx[0]), int(idx[-1]) + 1
    return slice(lo, hi) if hi - lo == len(idx) else idx


def toy_loss_and_grad(W, trials, distances, lam_sim, lam_rec):
    """Per-network loss λ_sim · Luce NLL of the nearest reference(s) + λ_rec · MSE(ReLU(x WᵀW),
    x), and its gradient in closed form (the hot loop; no autograd). W (N, m, l), trials
    (N, B, 3) as (r1, r2, p), distances (N, l, l), λ (N,). With G = ReLU(S), S = WᵀW, the
    gradient is W (M + Mᵀ), M = ∂L/∂G ⊙ [S > 0]; the Luce term touches only its trials' 2B
    entries. The tests check it against autograd."""
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


@dataclass(frozen=True)
class ToyConfig:
    """What the trainer needs; its defaults are the paper's (:mod:`.settings`)."""

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
        if not self.trials_per_epoch >= self.batch_size >= 1:  # else no step would train
            raise ValueError(f"trials_per_epoch must be >= batch_size >= 1; got "
                             f"{self.trials_per_epoch} and {self.batch_size}")

    @classmethod
    def of(cls, cfg: ToySettings) -> "ToyConfig":
        return cls(**{f: getattr(cfg, f) for f in cls.__dataclass_fields__
                      if f != "snapshot_epochs"}, snapshot_epochs=tuple(cfg.snapshots))

    @property
    def steps_per_epoch(self) -> int:
        """Whole batches per epoch, as in the original trainer."""
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


def train(conditions, seeds, config: ToyConfig = ToyConfig(), dtype=torch.float32,
          progress: bool = True, threads: int | None = 1,
          compiled: bool | None = None) -> ToyHistory:
    """Train one network per (condition, seed), all at once, evaluating every epoch exactly.
    Network k draws W ~ U[0, init_high] and its trials from ``default_rng(seeds[k])``: the same
    seed in two conditions gives paired runs, and stacking changes nothing but speed (Adam is
    elementwise). ``threads`` caps torch's threads (these tensors are too small to share);
    ``compiled`` picks the evaluation loop (speed only)."""
    conditions, seeds = list(conditions), list(seeds)
    if len(conditions) != len(seeds) or not conditions:
        raise ValueError("conditions and seeds must be non-empty and of equal length")
    if bad := [c for c in conditions if c not in CONDITIONS]:
        raise ValueError(f"conditions must be drawn from {CONDITIONS}; got {bad[0]!r}")
    for s in seeds:  # a root of the book's seed convention: its own check says which
        try:
            int_seed(s, "toy network")
        except ValueError as err:
            raise ValueError(f"seeds: {err}") from None
    previous = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(int(threads))
    # similarity networks first: each loss term works on a contiguous block (views, no copies)
    order = sorted(range(len(conditions)), key=lambda k: conditions[k] == "reconstruction")
    try:
        history = _train_ordered([conditions[k] for k in order], [seeds[k] for k in order],
                                 config, dtype, progress, compiled)
    finally:
        torch.set_num_threads(previous)
    back = np.argsort(order)
    for name in ("p_s", "p_i", "eps_fit", "delta_fit", "profiles", "final_W"):
        setattr(history, name, getattr(history, name)[back])
    history.snapshots = {e: G[back] for e, G in history.snapshots.items()}
    history.conditions, history.seeds = conditions, seeds
    return history


def _train_ordered(conditions, seeds, cfg, dtype, progress, compiled) -> ToyHistory:
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
    p_s, p_i, eps_fit, delta_fit = (np.empty((n_net, cfg.epochs + 1)) for _ in range(4))
    profiles = np.full((n_net, cfg.epochs + 1, max(len(v) for v in levels.values())), np.nan)
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
                p_s[members, epoch], p_i[members, epoch] = ps.numpy(), pi.numpy()
                d, h = profile_on_basis(Gg, bases[g])
                eps_fit[members, epoch], delta_fit[members, epoch] = fit_linear_profile(d, h)
                profiles[members, epoch, : len(d)] = h
            if epoch in cfg.snapshot_epochs:
                snapshots[epoch] = G.numpy().copy()

    S, B = cfg.steps_per_epoch, cfg.batch_size
    record(0)
    for epoch in tqdm(range(1, cfg.epochs + 1), desc="toy ReLU epochs", disable=not progress):
        trials = torch.as_tensor(np.stack([sample_trials(r, (S, B), l) for r in rngs]))
        for step in range(S):
            _, W.grad = toy_loss_and_grad(W.detach(), trials[:, step], D, lam_sim, lam_rec)
            opt.step()
        record(epoch)
    return ToyHistory(conditions, seeds, p_s, p_i, eps_fit, delta_fit, levels, profiles,
                      snapshots, W.detach().numpy().copy())
