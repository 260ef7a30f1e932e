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


def _check_int(value, name: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value!r}")
    return int(value)


def simulate_tree(n_species: int, seed=0, birth_rate: float = 1.0):
    """A pure-birth (Yule) tree with tips ``sp00``, ``sp01``, ...; the general sampling
    approach (Hartmann et al. 2010) keeps two species from lying at distance 0."""
    n_species = _check_int(n_species, "n_species", 3)
    if not birth_rate > 0:
        raise ValueError(f"birth_rate must be > 0; got {birth_rate!r}")
    tree = treesim.birth_death_tree(
        birth_rate, 0.0, num_extant_tips=n_species, gsa_ntax=3 * n_species,
        rng=random.Random(int(seed.generate_state(1)[0])
                          if isinstance(seed, np.random.SeedSequence) else seed),
    )
    width = len(str(n_species - 1))
    for i, leaf in enumerate(tree.leaf_node_iter()):
        leaf.taxon.label = f"sp{i:0{width}d}"
    return tree


def tip_labels(tree) -> list[str]:
    """Tip labels in the tree's leaf order (the species order used everywhere else)."""
    return [leaf.taxon.label for leaf in tree.leaf_node_iter()]


def patristic_matrix(tree, labels: list[str] | None = None) -> np.ndarray:
    """Patristic (path-length) distances between the tips named in ``labels``."""
    labels = tip_labels(tree) if labels is None else list(labels)
    by_label = {leaf.taxon.label: leaf.taxon for leaf in tree.leaf_node_iter()}
    missing = [lab for lab in labels if lab not in by_label]
    if missing:
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
    if top > 0:
        out = np.round(out, 11 - int(np.floor(np.log10(top))))
    return out


def brownian_traits(tree, n_traits: int = N_TRAITS, sigma: float = 1.0, seed=0):
    """Traits at the tips (:func:`tip_labels` order) after Brownian motion from 0 at the root:
    related species look alike in proportion to their shared history."""
    n_traits = _check_int(n_traits, "n_traits", 1)
    if not sigma >= 0:
        raise ValueError(f"sigma must be >= 0; got {sigma!r}")
    rng = np.random.default_rng(seed)
    value = {}
    for node in tree.preorder_node_iter():
        if node.parent_node is None:
            value[node] = np.zeros(n_traits)
        else:
            length = node.edge.length or 0.0
            value[node] = value[node.parent_node] + rng.normal(0, sigma * np.sqrt(length), n_traits)
    return np.stack([value[leaf] for leaf in tree.leaf_node_iter()])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def render_species(traits, n_images: int, size: int = 48, seed=0) -> np.ndarray:
    """``n_images`` individuals of one species, ``(n, size, size, 3)`` uint8: the traits set
    colours, stripes, aspect, head, tail and beak; pose, scale, position, background,
    brightness and noise vary per individual, nuisances a classifier must look past."""
    traits = np.asarray(traits, dtype=float)
    if traits.shape != (N_TRAITS,):
        raise ValueError(f"traits must have shape ({N_TRAITS},); got {traits.shape}")
    n_images = _check_int(n_images, "n_images", 1)
    size = _check_int(size, "size", 8)
    rng = np.random.default_rng(seed)
    s = _sigmoid(traits)
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
                  test_fraction: float = DEFAULT.test_fraction,
                  seed=0) -> dict[str, np.ndarray]:
    """Hold out whole species (``ood``), then split each other species' images into disjoint
    train/val/test, at least one test and one training image each (the original code tested
    images it had trained on)."""
    species = np.asarray(species)
    for name, frac in (("ood_fraction", ood_fraction), ("val_fraction", val_fraction),
                       ("test_fraction", test_fraction)):
        if not 0 <= frac < 1:
            raise ValueError(f"{name} must lie in [0, 1); got {frac!r}")
    if val_fraction + test_fraction >= 1:
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
        n_val = int(round(val_fraction * len(idx)))
        n_val = min(n_val, len(idx) - n_test - 1)
        out["test"].extend(idx[:n_test])
        out["val"].extend(idx[n_test:n_test + n_val])
        out["train"].extend(idx[n_test + n_val:])
    return {key: np.sort(np.asarray(val, dtype=np.int64)) for key, val in out.items()}


def simulate_dataset(n_species: int = DEFAULT.n_species,
                     images_per_species: int = DEFAULT.images_per_species,
                     size: int = DEFAULT.size, seed=0, sigma: float = 1.0,
                     ood_fraction: float = DEFAULT.ood_fraction,
                     val_fraction: float = DEFAULT.val_fraction,
                     test_fraction: float = DEFAULT.test_fraction) -> PhyloData:
    """The embedded default: a seeded tree rescaled to a crown depth of 1 (so the images'
    diversity does not depend on the number of species), Brownian traits and rendered
    individuals, each step from its named stream of ``seed``."""
    images_per_species = _check_int(images_per_species, "images_per_species", 2)
    tree = simulate_tree(n_species, seed=named_seed(seed, "tree"))
    depth = patristic_matrix(tree).max() / 2
    for edge in tree.preorder_edge_iter():
        if edge.length is not None:
            edge.length /= depth
    traits = brownian_traits(tree, sigma=sigma, seed=named_seed(seed, "traits"))
    images = np.concatenate([
        render_species(t, images_per_species, size, seed=named_seed(seed, "images", k))
        for k, t in enumerate(traits)
    ])
    species = np.repeat(np.arange(n_species), images_per_species)
    data = PhyloData(images, species, tip_labels(tree), patristic_matrix(tree), tree=tree)
    data.split = split_indices(species, ood_fraction, val_fraction, test_fraction,
                               seed=named_seed(seed, "split"))
    return data


# --- the real path: CUB-200-2011 and a Newick tree ------------------------------------------

def read_names(path=None) -> dict[str, tuple[str, list[str]]]:
    """Class folder -> (scientific name, accepted synonyms) from the shipped (or a given) table."""
    if path is None:
        text = resources.files("semres").joinpath(NAMES_TABLE).read_text()
    else:
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"names table not found: {path}")
        text = path.read_text()
    rows = list(csv.DictReader(text.splitlines()))
    need = {"class_folder", "scientific_name"}
    if not rows or not need <= set(rows[0]):
        raise ValueError(f"names table needs columns {sorted(need)}")
    out = {}
    for row in rows:
        synonyms = [s.strip() for s in (row.get("synonyms") or "").split(";") if s.strip()]
        out[row["class_folder"].strip()] = (row["scientific_name"].strip(), synonyms)
    return out


def _tip_key(label: str) -> str:
    """Newick tips write spaces as underscores; that is the only normalisation (no fuzzing)."""
    return label.replace("_", " ").strip()


def _read_tree(path: Path):
    try:
        return dendropy.Tree.get(path=str(path), schema="newick", preserve_underscores=True)
    except Exception as err:  # dendropy raises several parser error types
        raise ValueError(f"could not read Newick tree {path}: {err}") from None


def _load_image(path: Path, size: int) -> np.ndarray:
    with Image.open(path) as im:
        im = im.convert("RGB")
        w, h = im.size
        side = min(w, h)
        box = ((w - side) // 2, (h - side) // 2, (w - side) // 2 + side, (h - side) // 2 + side)
        return np.asarray(im.resize((size, size), Image.BILINEAR, box=box), dtype=np.uint8)


def load_cub(root, newick, names=None, size: int = 64, max_per_class: int | None = None,
             seed=0, ood_fraction: float = DEFAULT.ood_fraction,
             val_fraction: float = DEFAULT.val_fraction,
             test_fraction: float = DEFAULT.test_fraction) -> PhyloData:
    """CUB-200-2011 images (centre-cropped, resized; ``root`` holds ``images/`` or is it) with
    patristic distances from ``newick``: each class folder maps through the names table to the
    tip of exactly that name or a listed synonym; anything missing is an error naming it."""
    root = Path(root)
    images_dir = root / "images" if (root / "images").is_dir() else root
    if not images_dir.is_dir():
        raise FileNotFoundError(f"CUB folder not found: {root}")
    folders = sorted(p for p in images_dir.iterdir() if p.is_dir())
    if not folders:
        raise FileNotFoundError(f"no class folders under {images_dir}")
    newick = Path(newick)
    if not newick.is_file():
        raise FileNotFoundError(f"Newick tree not found: {newick}")
    table = read_names(names)
    unmapped = [p.name for p in folders if p.name not in table]
    if unmapped:
        raise ValueError(f"class folders missing from the names table: {unmapped}")
    tree = _read_tree(newick)
    tips = {}
    for leaf in tree.leaf_node_iter():
        if leaf.taxon is not None and leaf.taxon.label:
            tips[_tip_key(leaf.taxon.label)] = leaf.taxon.label
    labels, missing = [], []
    for p in folders:
        sci, synonyms = table[p.name]
        # the current name wins; older names (synonyms) are a fallback and must not disagree
        found = [tips[sci]] if sci in tips else sorted({tips[n] for n in synonyms if n in tips})
        if not found:
            missing.append(f"{p.name} ({sci})")
        elif len(found) > 1:
            raise ValueError(f"{p.name} matches several tips through its synonyms: {found}")
        else:
            labels.append(found[0])
    if missing:
        raise ValueError(f"species not found among the tree's tips: {missing}")
    if len(set(labels)) < len(labels):
        raise ValueError("two class folders map to the same tree tip")
    size = _check_int(size, "size", 8)
    images, species = [], []
    for k, folder in enumerate(folders):
        files = sorted(f for f in folder.iterdir() if f.suffix.lower() in {".jpg", ".jpeg", ".png"})
        if max_per_class is not None:
            files = files[:max_per_class]
        if not files:
            raise FileNotFoundError(f"no images in {folder}")
        images.extend(_load_image(f, size) for f in files)
        species.extend([k] * len(files))
    species = np.asarray(species)
    data = PhyloData(np.stack(images), species, labels, patristic_matrix(tree, labels), tree=tree)
    data.split = split_indices(species, ood_fraction, val_fraction, test_fraction,
                               seed=named_seed(seed, "split"))
    return data
