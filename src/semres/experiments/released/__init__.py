"""The paper authors' released outputs, in this book's per-trial schema, and small derived tables
(a shared reader for chapters 5 and 6).

The authors released per-trial outputs of the models the paper is about in the public repository
``nplresearch/generalization`` (Nurisso et al., ICLR 2026). That repository has no licence file, so
the book ships **no raw rows**: it ships counts derived from them (``src/semres/data/released/``,
read with :func:`load_table`) and a provenance record (:func:`provenance`: repository, path,
commit and sha256 of every source file, row counts, the citation). A reader with the files runs
the same adapters on them and gets the per-trial analyses.

Adapters (authors' format -> rows of :mod:`semres.core.results`, plus the extra columns
``experiment``, ``trial`` and ``scores_usable``):

- :func:`read_spatial` — ``VLM_shapes/data/spatial_resolution_{gemma,qwen}_results_far.csv``
  (experiment ``spatial_far``: square, triangle, heart, star at the corners of a 900 px canvas,
  stencils of 50 px centred 25 px from the edges, the red X anywhere) and
  ``random_stencil_{gemma,qwen}_results.csv`` (``random_stencil``: the same corners, shapes
  shuffled per scene). Space ``canvas``: pixel / 900, ``y`` down, as
  :data:`semres.experiments.vlm_shapes.settings.AUTHORS`.
  Task ``similarity`` (which shape is closest to the X), n = 4.
- :func:`read_colour` — ``color_{similarity,identification}_{gemma,qwen}_results.csv``
  (experiment ``colour``): n = 4, 6, 8, 10, 12 lettered patches of fully saturated hues (integer
  degrees), a target patch (similarity: a random hue; identification: a copy of one patch). Space
  ``hue``: degrees / 360 on the circle; options are the letters ``A``... Not a canvas scene: the
  patches' places in the picture play no part in the task.
- :func:`read_llm_counts` — ``LLM_dates/saved_results/experiment_{similarity,identification}_*
  _year.pkl``: these hold per-n aggregates only (``performance`` = correct / answers naming a
  listed person, ``n_nulls``, ``seq_lens`` = 2, 4, ..., 98, ``nrep`` = 200 prompts per batch, 5
  batches per n in the authors' notebook, not saved). Per-trial rows cannot be rebuilt; the
  adapter returns counts (trials, answered, correct). The saved ``test_type`` is ``"id"`` in both
  files (the notebook overwrites the variable before saving), so the task is read from the name.
- :func:`read_llm_resolution` — ``experiment_resolution_years_*_small.pkl``: per centre (40,
  drawn in 1500-1699) and half-gap D in 2, 5, 20, 50, 100, 200, the fraction of parsed answers
  naming the person born in the *lower* year at 120 probes centre-300, ..., centre+295 (20
  prompts each; NaN where no answer parsed; the number parsed was not saved). Returned long:
  one row per (centre, D, probe) with ``p_low`` and ``p_correct`` (= ``p_low`` left of the
  centre, ``1 - p_low`` right of it, NaN at the centre, where both are equally close).

Pickles run code when loaded: the two pickle readers refuse (ValueError) unless called with
``trust_pickle=True``. The authors' pickles are binary and cannot be read from the public code
index this book was built from, so the LLM tables are not shipped; the readers are tested on
synthetic pickles of the structure their notebook (``LLM_dates/LLM_analysis.ipynb``) writes.

Known trap in the VLM files: Qwen2.5-VL's score columns are generation-processed (logits divided
by a 1e-6 temperature, ``-inf`` where top-k filtered, the chosen option's score overwritten), so
they are effectively 0/1. Files whose scores look like that (non-finite, or |score| > 1e4) get an
empty ``scores`` column and ``scores_usable = False`` (``keep_unusable_scores=True`` keeps them):
analyse those models' choices by likelihood, never their scores by least squares. Gemma-3's
columns are first-token logits of the option names (``scores_usable = True``).

Derived tables (``python -m semres.experiments.released derive --source DIR --out DIR``; shipped
ones:
:func:`tables`), all with ``model, source, experiment, task, n, bin, trials, answered, correct``:

- ``spatial_margin``: per margin bin (nearest-to-second-nearest distance gap, canvas units,
  width 0.05; ``bin_lo``, ``bin_hi``) with ``chose_<shape>`` counts.
- ``spatial_grid``: ``spatial_far`` only (fixed layout), per cell of a 6 x 6 grid over the X's
  position (``ix, iy, x_lo, x_hi, y_lo, y_hi``, the mean X ``x_mean, y_mean`` in canvas units)
  with ``chose_<shape>`` counts: enough to fit P(k) ∝ w_k g(d_k) with one weight per shape by
  multinomial likelihood (take the shapes at
  :data:`semres.experiments.vlm_shapes.settings.AUTHORS`). The grid is coarse enough that every
  cell of the released files holds at least 6 trials: no row can be read back.
- ``spatial_confusion``: per nearest shape (``bin`` = its name; exact ties dropped), the
  ``chose_<shape>`` counts: the answer bias at a glance.
- ``spatial_corner``: per corner of the nearest shape (``bin``: ``top_left``, ...; ties
  dropped), ``chose_<corner>`` counts: a bias for a place, told apart from a bias for a name by
  ``random_stencil``, where the shapes change corners from scene to scene.
- ``colour_margin``: per task, n and hue-margin bin (width 0.01 of the hue circle) with
  ``chose_<letter>`` counts (letter position bias).
- ``llm_n`` (from pickles): per task and n, ``trials`` (nrep x 5), ``answered``, ``correct``
  and the released ``performance``.
- ``llm_resolution`` (from pickles): per D and probe offset (``bin``, years), ``centres`` with
  an answer, ``prompts`` (nrep x centres; parsed answers were not counted), ``p_low_mean``,
  ``p_correct_mean``.

``answered`` counts trials whose answer named one of the options; accuracy over all trials is
``correct / trials`` (unparsed answers count as wrong), over answers ``correct / answered``.

Shipped in this package (``provenance()`` lists the files with commit and sha256): the
``spatial_far`` files (400 scenes per model) and the ``random_stencil`` files (1000 per model),
copied from the public code index page by page and checked against the index's size and the
files' own distance columns. Not shipped: the colour files (1.8-2.3 MB each, beyond what can
be paged through the index in a session; a sample of 30-48 rows per end agrees with the
figures quoted in the issue) and the LLM pickles (binary, not stored as text in the index).

With the full files (``git clone https://github.com/nplresearch/generalization``):

- per-trial analyses: ``results=/path/to/generalization/VLM_shapes/data`` in a chapter (or
  :func:`gather` / :func:`load_results` in code) reads the raw CSVs through the adapters, and
  ``results=.../LLM_dates/saved_results`` with ``trust_pickle=True`` the LLM pickles; ``python
  -m semres.experiments.released convert --source .../VLM_shapes/data --out DIR`` writes them in the
  schema
  (keep such files local: the authors' repository has no licence);
- tables: ``python -m semres.experiments.released derive --source .../generalization
[--trust-pickle]``
  writes counts and provenance (colour and LLM tables included when those files are present)
  to ``_build/released``; ``--out src/semres/data/released`` replaces the shipped ones. Nothing
  is written unless every file was read, and never an empty provenance.

Modules: :mod:`.formats` (the files' formats and one adapter per format), :mod:`.read` (every
results file a reader names, and the tables shipped with the package), :mod:`.derived` (the
derived count tables), :mod:`.cli` (``derive``, ``convert`` and the command line). Their public
names are re-exported here, so ``from semres.experiments import released`` gives them all.
"""

from .cli import convert, derive, main
from .derived import (CORNERS, GRID, HUE_BIN, SPATIAL_BIN, TABLES, colour_margin_table,
                      grid_design, llm_n_table, llm_resolution_table, margins,
                      spatial_confusion_table, spatial_corner_table, spatial_grid_table,
                      spatial_margin_table)
from .formats import (CITATION, COMMITS, CSV_READERS, LETTERS, LLM_NBATCHES, PICKLE_NAMES,
                      PICKLES, REPOSITORY, RESOLUTION_D, RESOLUTION_OFFSETS, SPATIAL_SHAPES,
                      VLM_MODELS, kind_of, model_of, read_colour, read_llm_counts,
                      read_llm_resolution, read_spatial, repo_path)
from .read import (DATA_DIR, Gathered, find_files, gather, load_results, load_table,
                   package_dir, provenance, read_authors, tables)

__all__ = ["REPOSITORY", "CITATION", "COMMITS", "VLM_MODELS", "LLM_NBATCHES", "RESOLUTION_D",
           "RESOLUTION_OFFSETS", "SPATIAL_SHAPES", "LETTERS", "CORNERS", "SPATIAL_BIN",
           "HUE_BIN", "GRID", "TABLES", "CSV_READERS", "PICKLES", "PICKLE_NAMES", "DATA_DIR",
           "kind_of", "model_of", "repo_path", "read_spatial", "read_colour", "read_llm_counts",
           "read_llm_resolution", "read_authors", "gather", "Gathered", "load_results",
           "find_files", "margins", "spatial_margin_table", "spatial_grid_table",
           "spatial_confusion_table", "spatial_corner_table", "colour_margin_table",
           "grid_design", "llm_n_table", "llm_resolution_table", "derive", "convert",
           "load_table", "package_dir", "provenance", "tables", "main"]
