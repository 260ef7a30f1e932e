"""Phylogenies for the ResNet experiment, as one :class:`PhyloData`: a simulated tree whose
species' traits evolve by Brownian motion and are rendered as small images (visual similarity
follows the tree), or CUB-200-2011 with a Newick tree, its class folders matched to tips
*exactly* through a checked table of scientific names (the original code's fuzzy matching of
common names mapped "American Crow" to a rhea)."""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import dendropy
import numpy as np
from dendropy.simulate import treesim
from PIL import Image

from semres.core.seeds import named_seed

from .settings import DEFAULT

N_TRAITS = 12  # body RGB, wing RGB, stripe count, stripe contrast, aspect, head, tail, beak
#: the shipped table of CUB class folders and their scientific names (with confidence)
NAMES_TABLE = "data/cub_scientific_names.csv"


@dataclass
class PhyloData:
    """Images, their species and the species' patristic distances, split without leakage."""

    images: np.ndarray  # (N, H, W, 3) uint8
    species: np.ndarray  # (N,) int index into ``names``
    names: list[str]  # species names (tree tip labels)
    distances: np.ndarray  # (S, S) patristic distances between species
    split: dict[str, np.ndarray] = field(default_factory=dict)  # train/val/test/ood indices
    tree: object = None  # dendropy.Tree, when there is one

    @property
    def n_species(self) -> int:
        return len(self.names)


def simulate_tree(n_species: int, seed=0):
    """A pure-birth (Yule) tree with tips ``sp00``, ``sp01``, ...; the general sampling
    approach (Hartmann et al. 2010) keeps two species from lying at distance 0."""
    tree = treesim.birth_death_tree(
        1.0, 0.0, num_extant_tips=n_species, gsa_ntax=3 * n_species,
        rng=random.Random(int(seed.generate_state(1)[0])
                          if isinstance(seed, np.random.SeedSequence) else seed))
    for i, leaf in enumerate(tree.leaf_node_iter()):
        leaf.taxon.label = f"sp{i:0{len(str(n_species - 1))}d}"
    return tree


def tip_labels(tree) -> list[str]:
    """Tip labels in the tree's leaf order (the species order used everywhere else)."""
    return [leaf.taxon.label for leaf in tree.leaf_node_iter()]


def patristic_matrix(tree, labels: list[str] | None = None) -> np.ndarray:
    """Patristic (path-length) distances between the tips named in ``labels``."""
    labels = tip_labels(tree) if labels is None else list(labels)
    by_label = {leaf.taxon.label: leaf.taxon for leaf in tree.leaf_node_iter()}
    if missing := [lab for lab in labels if lab not in by_label]:
        raise ValueError(f"labels not among the tree's tips: {missing}")
    pdm = tree.phylogenetic_distance_matrix()
    taxa = [by_label[lab] for lab in labels]
    out = np.zeros((len(taxa), len(taxa)))
    for i in range(len(taxa)):
        for j in range(i + 1, len(taxa)):
            out[i, j] = out[j, i] = pdm.patristic_distance(taxa[i], taxa[j])
    # sums of the same branch lengths in different orders differ in the last bits; rounding to
    # 12 significant digits restores the exact ties of the tree (they matter: see chapter 4)
    top = out.max()
    return np.round(out, 11 - int(np.floor(np.log10(top)))) if top > 0 else out


def brownian_traits(tree, n_traits: int = N_TRAITS, sigma: float = 1.0, seed=0):
    """Traits at the tips (:func:`tip_labels` order) after Brownian motion from 0 at the root:
    related species look alike in proportion to their shared history."""
    rng = np.random.default_rng(seed)
    value = {}
    for node in tree.preorder_node_iter():
        if node.parent_node is None:
            value[node] = np.zeros(n_traits)
        else:
            length = node.edge.length or 0.0
            value[node] = value[node.parent_node] + rng.normal(0, sigma * np.sqrt(length), n_traits)
    return np.stack([value[leaf] for leaf in tree.leaf_node_iter()])


def render_species(traits, n_images: int, size: int = 48, seed=0) -> np.ndarray:
    """``n_images`` individuals of one species, ``(n, size, size, 3)`` uint8: the traits set
    colours, stripes, aspect, head, tail and beak; pose, scale, position, background,
    brightness and noise vary per individual, nuisances a classifier must look past."""
    traits = np.asarray(traits, dtype=float)
    if traits.shape != (N_TRAITS,):
        raise ValueError(f"traits must have shape ({N_TRAITS},); got {traits.shape}")
    rng = np.random.default_rng(seed)
    s = 1.0 / (1.0 + np.exp(-traits))
    body_rgb, wing_rgb = s[0:3], s[3:6]
    stripes = 1.0 + 5.0 * s[6]
    contrast = s[7]
    aspect = 1.0 + 1.2 * s[8]
    head = 0.35 + 0.35 * s[9]
    tail = 0.1 + 0.35 * s[10]
    beak = 0.05 + 0.25 * s[11]

    n = n_images
    angle = rng.uniform(-0.6, 0.6, n)
    flip = rng.choice([-1.0, 1.0], n)
    scale = rng.uniform(0.8, 1.1, n)
    shift = rng.uniform(-0.12, 0.12, (n, 2))
    bg_a = rng.uniform(0.15, 0.85, (n, 3))
    bg_b = np.clip(bg_a + rng.normal(0, 0.15, (n, 3)), 0, 1)
    bright = rng.uniform(0.85, 1.15, n)

    grid = np.linspace(-1, 1, size)
    gx, gy = np.meshgrid(grid, -grid)  # image x right, y up
    # body frame: undo shift, rotation, scale and mirror (vectorised over images)
    X = gx[None] - shift[:, 0, None, None]
    Y = gy[None] - shift[:, 1, None, None]
    c, si = np.cos(angle)[:, None, None], np.sin(angle)[:, None, None]
    u = (c * X + si * Y) / scale[:, None, None] * flip[:, None, None]
    v = (-si * X + c * Y) / scale[:, None, None]

    a = 0.42 * np.sqrt(aspect)  # body semi-axes keep roughly constant area
    b = 0.42 / np.sqrt(aspect) * 0.9
    body = (u / a) ** 2 + (v / b) ** 2 <= 1
    r_head = head * b
    hx, hy = a * 0.85, b * 0.6
    headm = (u - hx) ** 2 + (v - hy) ** 2 <= r_head**2
    eye = (u - hx - 0.35 * r_head) ** 2 + (v - hy - 0.25 * r_head) ** 2 <= (0.22 * r_head) ** 2
    bx = hx + r_head * 0.9
    beakm = (u >= bx) & (u <= bx + beak) & (np.abs(v - hy) <= 0.35 * r_head * (1 - (u - bx) / beak))
    tx = -a * 0.9
    tailm = (u <= tx) & (u >= tx - tail) & (np.abs(v) <= 0.12 + 0.8 * (tx - u))
    wing = ((u + 0.1 * a) / (0.7 * a)) ** 2 + ((v + 0.15 * b) / (0.55 * b)) ** 2 <= 1
    stripe = 0.5 + 0.5 * np.sin(2 * np.pi * stripes * (u + a) / (2 * a))

    ramp = (0.5 + 0.5 * gy)[None, :, :, None]  # background: vertical gradient between two tints
    img = bg_a[:, None, None, :] * ramp + bg_b[:, None, None, :] * (1 - ramp)
    mix = 0.6 * contrast * stripe[..., None]  # stripes blend the wing colour into the body
    body_col = body_rgb * (1 - mix) + mix * wing_rgb
    img = np.where((body | tailm)[..., None], body_col * 0.9, img)
    img = np.where(wing[..., None] & body[..., None], wing_rgb * 0.8 + 0.1, img)
    img = np.where(headm[..., None], body_rgb, img)
    img = np.where(beakm[..., None], np.array([0.95, 0.75, 0.2]), img)
    img = np.where(eye[..., None], 0.05, img)
    img = img * bright[:, None, None, None] + rng.normal(0, 0.04, img.shape)
    return (np.clip(img, 0, 1) * 255).round().astype(np.uint8)


def split_indices(species, ood_fraction: float = DEFAULT.ood_fraction,
                  val_fraction: float = DEFAULT.val_fraction,
                  test_fraction: float = DEFAULT.test_fraction, seed=0) -> dict[str, np.ndarray]:
    """Hold out whole species (``ood``), then split each other species' images into disjoint
    train/val/test, at least one test and one training image each (the original code tested
    images it had trained on)."""
    species = np.asarray(species)
    for name, frac in (("ood_fraction", ood_fraction), ("val_fraction", val_fraction),
                       ("test_fraction", test_fraction)):
        if not 0 <= frac < 1:
            raise ValueError(f"{name} must lie in [0, 1); got {frac!r}")
    if val_fraction + test_fraction >= 1:  # else a species' train and test images overlap
        raise ValueError("val_fraction + test_fraction must be < 1")
    rng = np.random.default_rng(seed)
    kinds = np.unique(species)
    n_ood = int(round(ood_fraction * len(kinds)))
    if len(kinds) - n_ood < 2:
        raise ValueError(f"ood_fraction {ood_fraction} leaves fewer than 2 training species")
    ood_species = np.sort(rng.choice(kinds, n_ood, replace=False))
    out = {"train": [], "val": [], "test": [], "ood": []}
    for k in kinds:
        idx = rng.permutation(np.flatnonzero(species == k))
        if k in ood_species:
            out["ood"].extend(idx)
            continue
        if len(idx) < 2:
            raise ValueError(f"species {k} has {len(idx)} image(s); at least 2 are needed")
        n_test = max(1, int(round(test_fraction * len(idx))))
        n_val = min(int(round(val_fraction * len(idx))), len(idx) - n_test - 1)
        out["test"].extend(idx[:n_test])
        out["val"].extend(idx[n_test:n_test + n_val])
        out["train"].extend(idx[n_test + n_val:])
    return {key: np.sort(np.asarray(val, dtype=np.int64)) for key, val in out.items()}


def simulate_dataset(n_species: int = DEFAULT.n_species,
                     images_per_species: int = DEFAULT.images_per_species,
                     size: int = DEFAULT.size, seed=0, **fractions) -> PhyloData:
    """The embedded default: a seeded tree rescaled to a crown depth of 1 (so the images'
    diversity does not depend on the number of species), Brownian traits and rendered
    individuals, each step from its named stream of ``seed``; ``fractions`` those of
    :func:`split_indices`."""
    tree = simulate_tree(n_species, seed=named_seed(seed, "tree"))
    depth = patristic_matrix(tree).max() / 2
    for edge in tree.preorder_edge_iter():
        if edge.length is not None:
            edge.length /= depth
    traits = brownian_traits(tree, seed=named_seed(seed, "traits"))
    images = np.concatenate([
        render_species(t, images_per_species, size, seed=named_seed(seed, "images", k))
        for k, t in enumerate(traits)])
    species = np.repeat(np.arange(n_species), images_per_species)
    return PhyloData(images, species, tip_labels(tree), patristic_matrix(tree),
                     split_indices(species, seed=named_seed(seed, "split"), **fractions), tree)


# --- the real path: CUB-200-2011 and a Newick tree ------------------------------------------

def read_names(path=None) -> dict[str, tuple[str, list[str]]]:
    """Class folder -> (scientific name, accepted synonyms) from the shipped (or a given) table."""
    if path is not None and not Path(path).is_file():
        raise FileNotFoundError(f"names table not found: {path}")
    text = (resources.files("semres").joinpath(NAMES_TABLE) if path is None
            else Path(path)).read_text()
    rows = list(csv.DictReader(text.splitlines()))
    if not rows or not {"class_folder", "scientific_name"} <= set(rows[0]):
        raise ValueError("names table needs columns ['class_folder', 'scientific_name']")
    return {row["class_folder"].strip(): (row["scientific_name"].strip(), [
        s.strip() for s in (row.get("synonyms") or "").split(";") if s.strip()]) for row in rows}


def load_cub(root, newick, names=None, size: int = 64, max_per_class: int | None = None,
             seed=0, **fractions) -> PhyloData:
    """CUB-200-2011 images (centre-cropped, resized; ``root`` holds ``images/`` or is it) with
    patristic distances from ``newick``: each class folder maps through the names table to the
    tip of exactly that name or a listed synonym (Newick's underscores read as spaces, no other
    normalisation); anything missing is an error naming it."""
    root = Path(root)
    images_dir = root / "images" if (root / "images").is_dir() else root
    if not images_dir.is_dir():
        raise FileNotFoundError(f"CUB folder not found: {root}")
    folders = sorted(p for p in images_dir.iterdir() if p.is_dir())
    if not folders:
        raise FileNotFoundError(f"no class folders under {images_dir}")
    if not Path(newick).is_file():
        raise FileNotFoundError(f"Newick tree not found: {newick}")
    table = read_names(names)
    if unmapped := [p.name for p in folders if p.name not in table]:
        raise ValueError(f"class folders missing from the names table: {unmapped}")
    try:
        tree = dendropy.Tree.get(path=str(newick), schema="newick", preserve_underscores=True)
    except Exception as err:  # dendropy raises several parser error types
        raise ValueError(f"could not read Newick tree {newick}: {err}") from None
    tips = {leaf.taxon.label.replace("_", " ").strip(): leaf.taxon.label
            for leaf in tree.leaf_node_iter() if leaf.taxon is not None and leaf.taxon.label}
    labels, missing = [], []
    for p in folders:
        sci, synonyms = table[p.name]
        # the current name wins; older names (synonyms) are a fallback and must not disagree
        found = [tips[sci]] if sci in tips else sorted({tips[n] for n in synonyms if n in tips})
        if len(found) > 1:
            raise ValueError(f"{p.name} matches several tips through its synonyms: {found}")
        labels += found
        missing += [] if found else [f"{p.name} ({sci})"]
    if missing:
        raise ValueError(f"species not found among the tree's tips: {missing}")
    if len(set(labels)) < len(labels):
        raise ValueError("two class folders map to the same tree tip")
    images, species = [], []
    for k, folder in enumerate(folders):
        files = sorted(f for f in folder.iterdir()
                       if f.suffix.lower() in {".jpg", ".jpeg", ".png"})[:max_per_class]
        if not files:
            raise FileNotFoundError(f"no images in {folder}")
        for f in files:
            with Image.open(f) as im:
                w, h = im.size
                side = min(w, h)
                box = ((w - side) // 2, (h - side) // 2, (w - side) // 2 + side,
                       (h - side) // 2 + side)
                images.append(np.asarray(im.convert("RGB").resize(
                    (size, size), Image.BILINEAR, box=box), dtype=np.uint8))
        species += [k] * len(files)
    species = np.asarray(species)
    return PhyloData(np.stack(images), species, labels, patristic_matrix(tree, labels),
                     split_indices(species, seed=named_seed(seed, "split"), **fractions), tree)
