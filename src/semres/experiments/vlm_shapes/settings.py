"""Chapter 6's settings: the task's design (its tasks, shapes, questions and layouts), the three
profiles and the paper's protocol, in one place (the chapter reads ``cfg.fit_scenes``; the
scene, training and analysis modules import the design from here)."""

from __future__ import annotations

from dataclasses import dataclass

from semres.core.profiles import Config, Settings, positive_ints

#: the two questions asked about every canvas: the shape nearest to the X (generalization) and
#: the shape the X lies on (identification)
TASKS = ("similarity", "identification")

#: the shapes a canvas can hold: the paper's four first, the rest picked to stay distinct at
#: about 10 px
SHAPES = ("square", "triangle", "heart", "star", "circle", "diamond", "cross", "ring", "bar",
          "moon", "arrow", "hourglass")

#: a shape's width as a fraction of the canvas
SHAPE_SIZE = 0.11

#: the question of each task, as the model reads it
QUESTIONS = {
    "similarity": "Which black shape is the closest to the X? Respond with only the shape's name.",
    "identification": "Which black shape is at the X? Respond with only the shape's name.",
}

#: four shapes at fixed, slightly irregular positions (canvas units): the layout of this book's
#: accuracy map
MAP_LAYOUT = {
    "square": (0.24, 0.27),
    "triangle": (0.74, 0.2),
    "heart": (0.3, 0.76),
    "star": (0.77, 0.68),
}

#: the authors' far layout (``VLM_shapes/data/spatial_resolution_*_results_far.csv``): a 900 px
#: canvas, 50 px stencils centred 25 px from the corners, (x, y) in pixels with y down
AUTHORS = {
    "canvas_px": 900,
    "shape_px": 50,
    "layout": {"square": (25, 25), "triangle": (25, 875), "heart": (875, 25),
               "star": (875, 875)},
}


@dataclass(frozen=True)
class VlmShapesSettings(Config):
    """What chapter 6 runs: the tiny VLM's training, the scenes it is scored on, the fits'
    bootstraps, and the fixed designs of the chapter's checks."""

    #: training steps of the vision stage and of the language stage
    vision_steps: int = 1600
    steps: int = 800
    #: the tiny model's width, layers, batch, vision tower and learning rates
    hidden: int = 64
    layers: int = 4
    train_batch: int = 32
    vision: str = "dinov3"
    stage1_lr: float = 3e-3
    vision_lr: float = 0.0
    #: X positions per side of the accuracy map
    grid: int = 20
    #: random four-shape scenes for the spatial scale's fits
    fit_scenes: int = 400
    #: numbers of shapes of the n sweep, and scenes per task and n
    sweep_n: tuple = (2, 3, 4, 6, 8, 10, 12)
    sweep_scenes: int = 60
    #: least-squares and likelihood bootstrap resamples of the scale's fits
    boot: int = 300
    choice_boot: int = 200
    #: Monte Carlo trials per cell of the canvas check of Theorem 3
    mc_trials: int = 200_000
    #: equal-count margin bins of the live model's goodness of fit
    bins: int = 10
    #: bootstrap resamples of the random stencils' name-and-place fit
    stencil_boot: int = 1000
    #: parametric-bootstrap refits of the goodness of fit on sparse cells: the released grid
    #: counts, and a results file's correct answers in margin bins
    grid_gof_boot: int = 999
    margin_gof_boot: int = 999
    #: refitted draws for the deviance's mean under a sparse fit (the misfit's dispersion):
    #: 30 put that mean within about 5 % (a deviance on some 30 degrees of freedom spreads by
    #: sqrt(2/30) of its mean, over sqrt(30) draws), enough for a dispersion read to two figures
    size_boot: int = 30
    #: the error band's check: two shapes at (±band_c, 0), a margin resolution band_eps,
    #: band_points uniform points
    band_c: float = 0.3
    band_eps: float = 0.1
    band_points: int = 200_000
    #: the margin law's check: random four-shape scenes under an exponential kernel of this scale
    margin_check_scenes: int = 500
    margin_check_scale: float = 0.05
    #: Theorem 3 on the canvas against the engine: radii, numbers of shapes, probes per side
    canvas_radii: tuple = (0.1, 0.25)
    canvas_ns: tuple = (2, 4, 8, 12)
    canvas_grid: int = 100
    #: width of the margin bins that count a results file's correct answers (canvas units, and
    #: fractions of the hue circle)
    margin_bin: float = 0.05
    hue_bin: float = 0.01


DEFAULT = VlmShapesSettings()
QUICK = DEFAULT.replace(vision_steps=20, steps=20, hidden=32, layers=1, train_batch=16, grid=8,
                        fit_scenes=48, sweep_n=(2, 4, 8, 12), sweep_scenes=8, boot=100,
                        choice_boot=10, mc_trials=20_000, bins=6, stencil_boot=100,
                        grid_gof_boot=4, margin_gof_boot=4, size_boot=10)
PAPER = DEFAULT.replace(vision_steps=6000, steps=3000, hidden=128, train_batch=64,
                        stage1_lr=2e-3, grid=40, fit_scenes=2000, sweep_n=tuple(range(2, 13)),
                        sweep_scenes=300, boot=1000, choice_boot=1000, mc_trials=1_000_000,
                        bins=14, stencil_boot=2000, size_boot=300)


def check(cfg: VlmShapesSettings, ch: str) -> None:
    """Raise ValueError naming the setting when ``cfg`` contradicts itself."""
    positive_ints(cfg, ch, "vision_steps", "steps", "hidden", "layers", "train_batch", "grid",
                   "fit_scenes", "sweep_scenes", "boot", "choice_boot", "mc_trials", "bins",
                   "stencil_boot", "grid_gof_boot", "margin_gof_boot", "size_boot")
    if cfg.vision not in ("clip", "dinov3"):
        raise ValueError(f"{ch} settings: vision must be 'clip' or 'dinov3'; got {cfg.vision!r}")
    if not (cfg.stage1_lr > 0 and cfg.vision_lr >= 0):
        raise ValueError(f"{ch} settings: stage1_lr must be > 0 and vision_lr >= 0; got "
                         f"{cfg.stage1_lr}, {cfg.vision_lr}")
    if not (min(cfg.sweep_n) >= 2 and max(cfg.sweep_n) <= len(SHAPES)):
        raise ValueError(f"{ch} settings: sweep_n must lie in [2, {len(SHAPES)}]; got "
                         f"{cfg.sweep_n}")


#: chapter 6: a VLM on scenes of shapes, and the paper's two VLMs through their released answers
SETTINGS = Settings(
    chapter="06_vlm_shapes",
    profiles={"quick": QUICK, "default": DEFAULT, "paper": PAPER},
    check=check, minimums={"batch_size": 1, "image_size": 0, "threads": 0}, seconds=282,
    # the authors' models each answered 400 four-shape scenes with the X at random positions
    paper={"fit_scenes": (400, "Four-shape scenes with a random X, per model")})
