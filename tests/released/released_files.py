"""Files in the formats of the authors' released outputs, written by the tests of
:mod:`semres.experiments.released` (their column layout and pickle structure), each with the
truth a test checks the adapters against."""

import hashlib
import pickle

import numpy as np
import pandas as pd

from semres.core import results
from semres.experiments import released

CORNERS = {"square": (25, 25), "triangle": (25, 875), "heart": (875, 25), "star": (875, 875)}


SHAPES = list(CORNERS)


def write_spatial(path, rng, n_rows=120, shuffle=False, qwen=False):
    """A file in the layout of spatial_resolution_*_results_far.csv / random_stencil_*; returns
    the truth per row (nearest shape, its margin in pixels, the answer)."""
    rows, truth = [], []
    corners = list(CORNERS.values())
    for i in range(n_rows):
        x, y = (int(v) for v in rng.integers(25, 875, size=2))
        names = list(rng.permutation(SHAPES)) if shuffle else SHAPES
        d = [np.hypot(cx - x, cy - y) for cx, cy in corners]
        order = np.argsort(d)
        nearest = names[order[0]]
        # a biased model: "triangle" 40 % of the time, else right 70 % of the time
        u = rng.random()
        ans = "triangle" if u < 0.4 else nearest if u < 0.82 else names[order[1]]
        if i % 37 == 5:
            ans = "I cannot tell"
        row = {"ID": i, "target_shape": "x", "target_X": x, "target_Y": y}
        for k in range(3):
            row.update({f"D0{k}_X": corners[k][0], f"D0{k}_Y": corners[k][1],
                        f"D0{k}_SHAPE": names[k], f"D0{k}_DIST": d[k]})
        row.update({"D03_SHAPE": names[3], "D03_X": 875.0, "D03_Y": 875.0, "D03_DIST": d[3],
                    "answer": ans})
        for s in SHAPES:
            row[s] = (float("-inf") if s != ans and qwen and s == "heart" else
                      3e7 if qwen and s == ans else 1e7 if qwen else 20 + 10 * (s == ans))
        rows.append(row)
        truth.append({"nearest": nearest, "margin_px": d[order[1]] - d[order[0]], "answer": ans,
                      "x": x, "y": y, "ok": ans == nearest})
    pd.DataFrame(rows).to_csv(path, index=False)
    return pd.DataFrame(truth)


def write_colour(path, rng, task, ns=(4, 8, 12), per_n=60):
    """A file in the layout of color_{task}_*_results.csv; returns the truth per row."""
    letters = [chr(65 + k) for k in range(12)]
    rows, truth = [], []
    i = 0
    for n in ns:
        for _ in range(per_n):
            hues = list(rng.choice(360, size=n, replace=False))
            target = int(hues[rng.integers(n)]) if task == "identification" else int(
                rng.integers(360))
            d = np.array([min(abs(h - target), 360 - abs(h - target)) for h in hues])
            nearest = [letters[k] for k in np.flatnonzero(d == d.min())]
            srt = np.sort(d)
            ans = nearest[0] if rng.random() < 0.6 else letters[int(rng.integers(n))]
            row = {"ID": i, "N_STENCILS": n}
            row.update({f"HUE_{c}": (hues[k] if k < n else -1) for k, c in enumerate(letters)})
            row["target_col"] = target
            row.update({f"HUE_{c}_sim": 0.0 for c in letters})
            row["answer"] = ans
            row.update({chr(65 + k): 15.0 + (chr(65 + k) == ans) for k in range(26)})
            rows.append(row)
            truth.append({"n": n, "ok": ans in nearest, "margin": (srt[1] - srt[0]) / 360,
                          "answer": ans})
            i += 1
    pd.DataFrame(rows).to_csv(path, index=False)
    return pd.DataFrame(truth)


def synthetic_counts(path, task, rng):
    seq_lens = list(range(2, 100, 2))
    nulls = [int(v) for v in rng.integers(0, 50, size=len(seq_lens))]
    correct = [int(rng.integers(0, 1000 - z)) for z in nulls]
    data = {"performance": [c / (1000 - z) for c, z in zip(correct, nulls)], "n_nulls": nulls,
            "seq_lens": seq_lens, "test_type": "id", "nrep": 200}
    path.write_bytes(pickle.dumps(data))
    return seq_lens, nulls, correct


def write_llm_folder(folder, rng):
    """The authors' LLM_dates/saved_results: their pickle names, and a .DS_Store; returns the
    truth of the two count pickles (task -> seq_lens, nulls, correct)."""
    folder.mkdir(parents=True)
    truth = {task: synthetic_counts(folder / f"experiment_{task}_gemma-2-2b-it_year.pkl", task,
                                    rng) for task in ("similarity", "identification")}
    centre, offsets = 1600, np.arange(-300, 300, 5)
    curves = [np.full(len(offsets), 0.5) for _ in released.RESOLUTION_D]
    (folder / "experiment_resolution_years_gemma-2-2b-it_small.pkl").write_bytes(pickle.dumps(
        {"ages_list": [[centre - d, centre + d] for d in released.RESOLUTION_D],
         "performances": {centre: curves}, "pspace": centre + offsets, "nrep": 20}))
    (folder / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1\x00" * 8)
    return truth


def bad_files(tmp_path):
    """Files that are not what their names say, each with the words its error must use."""
    d = tmp_path / "bad"
    d.mkdir()
    (d / "empty.csv").write_text("")
    (d / "binary.csv").write_bytes(pickle.dumps({"performance": [0.5]}))
    (d / "latin1.csv").write_bytes(",".join(results.COLUMNS).encode() + b"\nm,caf\xe9\n")
    (d / "header_only.csv").write_text(",".join(results.COLUMNS) + "\n")
    (d / "saved.pkl").write_bytes(pickle.dumps([1, 2]))
    (d / "other.csv").write_text("a,b\n1,2\n")
    return {d / "empty.csv": "empty file", d / "binary.csv": "a binary file, not a CSV",
            d / "latin1.csv": "not UTF-8 text", d / "header_only.csv": "header but no rows",
            d / "saved.pkl": "a pickle not named as the authors' LLM files",
            d / "other.csv": "lacks column.*not one of the authors' files"}


def tidy_rows(n_rows=4):
    return pd.DataFrame({
        "model": "m", "source": "live", "task": "similarity", "n": 3, "space": "canvas",
        "options": "square|star|heart", "position": "0.1,0.1|0.9,0.9|0.5,0.2",
        "probe": "0.2,0.1", "correct": "square", "choice": "star", "scores": ""},
        index=range(n_rows))


def digests(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}
