"""Seeded canvases of black shapes and a red X (the paper's §3). Geometry lives in canvas units
(``[0, 1]²``, y down), so a scene renders at any size and its distances do not depend on pixels;
similarity asks for the shape nearest the X, identification for the shape the X lies on."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from semres.core.seeds import named_seed
from semres.core.spaces import Space

from .settings import MAP_LAYOUT, QUESTIONS, SHAPE_SIZE, SHAPES, TASKS

RED = (220, 20, 20)
#: below these radii the scenes make each task perfect by design: the similarity X keeps a
#: shape's width from every shape, and shapes keep 1.3 widths apart
CLEARANCE = {"similarity": SHAPE_SIZE, "identification": 1.3 * SHAPE_SIZE}


@dataclass(frozen=True)
class Scene:
    """One canvas: shape names and centres, the probe, and which shape is correct."""

    task: str
    names: tuple
    positions: np.ndarray   # (n, 2) shape centres in unit coordinates
    probe: np.ndarray       # (2,) the X: free (similarity) or on a shape's centre (identification)
    shape_size: float = SHAPE_SIZE

    @property
    def n(self) -> int:
        return len(self.names)

    @property
    def distances(self) -> np.ndarray:
        return np.linalg.norm(self.positions - self.probe, axis=1)

    @property
    def target(self) -> int:
        return int(np.argmin(self.distances))

    @property
    def answer(self) -> str:
        return self.names[self.target]

    @property
    def margin(self) -> float:
        d = np.sort(self.distances)
        return float(d[1] - d[0])

    @property
    def question(self) -> str:
        return QUESTIONS[self.task]


def _check_task(task: str) -> None:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}")


def layout_scene(task: str, names, positions, probe=None, at=None,
                 shape_size: float = SHAPE_SIZE) -> Scene:
    """A scene at given positions: ``probe`` (the X) for similarity, ``at`` (the index of the shape
    the X lies on) for identification."""
    _check_task(task)
    names = tuple(str(n) for n in names)
    positions = np.asarray(positions, dtype=float).reshape(-1, 2)
    if len(names) < 2 or len(names) != len(positions) or len(set(names)) != len(names) \
            or not set(names) <= set(SHAPES):
        raise ValueError(f"names: at least two distinct names from {SHAPES}, one per position; "
                         f"got {names}")
    if task == "similarity":
        if probe is None:
            raise ValueError("probe: the X position is required for the similarity task")
        probe = np.asarray(probe, dtype=float).reshape(2)
    else:
        if at is None or not 0 <= int(at) < len(names):
            raise ValueError(f"at: the index (below {len(names)}) of the shape under the X is "
                             f"required for identification")
        probe = positions[int(at)].copy()
    return Scene(task, names, positions, probe, float(shape_size))


def sample_scene(rng: np.random.Generator, n: int, task: str,
                 shape_size: float = SHAPE_SIZE) -> Scene:
    """``n`` random shapes uniform on the canvas, centres ``1.3 * shape_size`` apart; the X a
    shape's width from every shape (similarity, as in the paper) or on one (identification)."""
    _check_task(task)
    if not 2 <= int(n) <= len(SHAPES):
        raise ValueError(f"n must be between 2 and {len(SHAPES)}; got {n}")
    n, s = int(n), float(shape_size)
    lo, hi, apart = 0.6 * s, 1 - 0.6 * s, 1.3 * s
    for _ in range(1000):
        # plain floats: np.linalg.norm's sqrt(dx*dx + dy*dy), bit for bit, without its
        # per-call overhead (training draws 32 scenes a step)
        pos = []
        for cx, cy in rng.uniform(lo, hi, size=(64, 2)).tolist():
            if all(math.sqrt((px - cx) * (px - cx) + (py - cy) * (py - cy)) >= apart
                   for px, py in pos):
                pos.append((cx, cy))
                if len(pos) == n:
                    break
        if len(pos) < n:
            continue  # crowded: start again
        pos = np.array(pos)
        # indices drawn as rng.choice(SHAPES, ...) draws them: the same names
        names = tuple(SHAPES[i] for i in rng.choice(len(SHAPES), n, replace=False))
        if task == "identification":
            return Scene(task, names, pos, pos[int(rng.integers(n))].copy(), s)
        cand = rng.uniform(0.3 * s, 1 - 0.3 * s, size=(256, 2))
        ok = np.min(np.linalg.norm(cand[:, None] - pos[None], axis=2), axis=1) >= s
        if ok.any():
            return Scene(task, names, pos, cand[np.argmax(ok)].copy(), s)
    raise RuntimeError(f"could not place {n} shapes of size {s}")


def sample_scenes(count: int, n, task: str, seed, shape_size: float = SHAPE_SIZE) -> list:
    """``count`` scenes from one stream: ``seed`` as it is when a stream already named from the
    chapter's seed (its ``stream("fit_scenes")``), else its stream ``"scenes"``; ``n`` an int or
    a sequence drawn from uniformly."""
    if not isinstance(seed, np.random.SeedSequence):
        seed = named_seed(seed, "scenes")
    rng = np.random.default_rng(seed)
    ns = np.atleast_1d(np.asarray(n, dtype=int))
    return [sample_scene(rng, int(rng.choice(ns)), task, shape_size) for _ in range(int(count))]


def map_scenes(grid: int, layout: dict = MAP_LAYOUT) -> list:
    """Similarity scenes with the X on a ``grid`` × ``grid`` lattice over a fixed layout, skipping
    points closer than a shape's width to a shape: the accuracy map's probes."""
    names, pos = tuple(layout), np.array(list(layout.values()), dtype=float)
    ticks = (np.arange(grid) + 0.5) / grid
    return [layout_scene("similarity", names, pos, probe=(x, y)) for y in ticks for x in ticks
            if np.min(np.linalg.norm(pos - (x, y), axis=1)) >= SHAPE_SIZE]


def ball_measures(probes, eps, task: str, k: int = 64) -> np.ndarray:
    """Theorem 3's ``b_p`` at each probe for each radius: the chance that another shape's centre,
    uniform where :func:`sample_scene` puts it outside the :data:`CLEARANCE`, is within ``eps``."""
    _check_task(task)
    s = SHAPE_SIZE
    probes = np.asarray(probes, dtype=float).reshape(-1, 2)
    eps = np.atleast_1d(np.asarray(eps, dtype=float))
    lo, hi = 0.6 * s, 1 - 0.6 * s
    ticks = lo + (np.arange(k) + 0.5) / k * (hi - lo)
    lattice = np.stack(np.meshgrid(ticks, ticks), -1).reshape(-1, 2)
    d = np.sort(np.linalg.norm(probes[:, None] - lattice[None], axis=2), axis=1)
    out = np.empty((len(probes), len(eps)))
    for i, row in enumerate(d):
        start = np.searchsorted(row, CLEARANCE[task])
        inside = np.searchsorted(row, eps, side="right") - start
        out[i] = np.clip(inside, 0, None) / max(len(row) - start, 1)
    return out


class Canvas(Space):
    """The unit square with uniform measure and Euclidean distance: the canvas as a space for
    the Monte Carlo engine (``semres.core.simulate``), heterogeneous near its edges."""

    def sample(self, rng, size):
        return rng.random((*np.atleast_1d(size), 2))

    def distance(self, a, b):
        return np.linalg.norm(np.asarray(a) - np.asarray(b), axis=-1)


def canvas_ball(p, radius: float, k: int = 600) -> np.ndarray:
    """b_p: the area of the disc of ``radius`` around each point ``p`` (rows of x, y) clipped
    by the unit square, by the midpoint rule over ``k`` vertical strips."""
    u = ((np.arange(k) + 0.5) / k * 2 - 1) * radius
    half = np.sqrt(radius**2 - u**2)
    xs = p[:, :1] + u
    lo, hi = np.clip(p[:, 1:] - half, 0, 1), np.clip(p[:, 1:] + half, 0, 1)
    return ((hi - lo) * ((xs >= 0) & (xs <= 1))).sum(axis=1) * 2 * radius / k


#: the polygons of the shapes in box coordinates ``[-0.5, 0.5]²`` (``y`` down); circle, ring
#: and moon are ellipses, the star and heart are computed in :func:`_outline`
POLYGONS = {
    "square": [(-0.4, -0.4), (0.4, -0.4), (0.4, 0.4), (-0.4, 0.4)],
    "triangle": [(0, -0.47), (0.47, 0.4), (-0.47, 0.4)],
    "diamond": [(0, -0.5), (0.38, 0), (0, 0.5), (-0.38, 0)],
    "cross": [(-0.16, -0.48), (0.16, -0.48), (0.16, -0.16), (0.48, -0.16), (0.48, 0.16),
              (0.16, 0.16), (0.16, 0.48), (-0.16, 0.48), (-0.16, 0.16), (-0.48, 0.16),
              (-0.48, -0.16), (-0.16, -0.16)],
    "bar": [(-0.5, -0.17), (0.5, -0.17), (0.5, 0.17), (-0.5, 0.17)],
    "arrow": [(-0.5, -0.13), (0.05, -0.13), (0.05, -0.4), (0.5, 0), (0.05, 0.4), (0.05, 0.13),
              (-0.5, 0.13)],
    "hourglass": [(-0.38, -0.48), (0.38, -0.48), (0, 0), (0.38, 0.48), (-0.38, 0.48), (0, 0)],
}


@lru_cache(maxsize=None)
def _outline(name: str) -> tuple:
    """The shape's polygon as floats (built once per shape: every training step draws
    hundreds)."""
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    if name == "star":
        a = -np.pi / 2 + np.arange(10) * np.pi / 5
        r = np.where(np.arange(10) % 2 == 0, 0.5, 0.2)
        pts = zip(r * np.cos(a), r * np.sin(a))
    elif name == "heart":
        x = 16 * np.sin(t) ** 3
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        pts = zip(x / 34, (y + 2.5) / 34)
    else:
        pts = POLYGONS[name]
    return tuple((float(x), float(y)) for x, y in pts)


def _draw_shapes(draw, scene: Scene, big: int, ink, paper) -> None:
    """The black shapes of ``scene`` on a ``big``-pixel canvas, in colour ``ink`` (the moon's
    cut in ``paper``); coordinates as plain floats, the same values numpy's would be."""
    w = scene.shape_size * big
    for name, (cx, cy) in zip(scene.names, (scene.positions * big).tolist()):
        if name in ("circle", "ring", "moon"):
            r = 0.45 * w
            box = [cx - r, cy - r, cx + r, cy + r]
            if name == "ring":
                draw.ellipse(box, outline=ink, width=max(1, int(0.16 * w)))
            else:
                draw.ellipse(box, fill=ink)
                if name == "moon":
                    o = 0.3 * w
                    draw.ellipse([cx - r + o, cy - r - 0.1 * w, cx + r + o, cy + r - 0.1 * w],
                                 fill=paper)
        else:
            draw.polygon([(cx + w * x, cy + w * y) for x, y in _outline(name)], fill=ink)


def _draw_x(draw, scene: Scene, big: int, ink) -> tuple:
    """The X of ``scene`` in colour ``ink``; returns a box ``(x0, y0, x1, y1)`` of canvas pixels
    that holds every pixel it can touch."""
    w = scene.shape_size * big
    cx, cy = (scene.probe * big).tolist()
    h, lw = 0.3 * w, max(1, int(0.14 * w))
    draw.line([cx - h, cy - h, cx + h, cy + h], fill=ink, width=lw)
    draw.line([cx - h, cy + h, cx + h, cy - h], fill=ink, width=lw)
    reach = h + lw + 2
    return (max(0, math.floor(cx - reach)), max(0, math.floor(cy - reach)),
            min(big, math.ceil(cx + reach)), min(big, math.ceil(cy + reach)))


def _big(size: int, supersample: int) -> int:
    if int(size) < 16:
        raise ValueError(f"size must be at least 16 pixels; got {size}")
    return int(size) * int(supersample)


def render(scene: Scene, size: int = 96, supersample: int = 4) -> Image.Image:
    """Draw ``scene`` on a white ``size`` × ``size`` RGB canvas (anti-aliased by supersampling)."""
    big = _big(size, supersample)
    img = Image.new("RGB", (big, big), "white")
    draw = ImageDraw.Draw(img)
    _draw_shapes(draw, scene, big, (0, 0, 0), "white")
    _draw_x(draw, scene, big, RED)  # drawn last: on top of its shape in identification
    return img.reduce(int(supersample)) if supersample > 1 else img


def render_arrays(scene_list, size: int = 96, supersample: int = 4) -> np.ndarray:
    """:func:`render`'s canvases, bit for bit, as uint8 ``(B, 3, size, size)``, twice as fast: one
    grey canvas with the red channel's X, the green (and blue) redrawn only around the X."""
    scene_list, ss, big = list(scene_list), int(supersample), _big(size, supersample)
    out = np.empty((len(scene_list), 3, int(size), int(size)), dtype=np.uint8)
    for i, scene in enumerate(scene_list):
        red = Image.new("L", (big, big), 255)
        _draw_shapes(ImageDraw.Draw(red), scene, big, 0, 255)
        green = red.copy()
        _draw_x(ImageDraw.Draw(red), scene, big, RED[0])
        x0, y0, x1, y1 = _draw_x(ImageDraw.Draw(green), scene, big, RED[1])
        out[i, 0] = np.asarray(red.reduce(ss) if ss > 1 else red)
        out[i, 1] = out[i, 0]
        x0, y0 = x0 // ss * ss, y0 // ss * ss  # whole blocks of the reduction
        x1, y1 = min(big, -(-x1 // ss) * ss), min(big, -(-y1 // ss) * ss)
        if x1 > x0 and y1 > y0:
            part = green.reduce(ss, box=(x0, y0, x1, y1)) if ss > 1 else green.crop(
                (x0, y0, x1, y1))
            out[i, 1, y0 // ss:y1 // ss, x0 // ss:x1 // ss] = np.asarray(part)
    out[:, 2] = out[:, 1]
    return out

