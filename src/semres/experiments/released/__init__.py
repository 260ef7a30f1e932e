"""The paper authors' released outputs (``nplresearch/generalization``, Nurisso et al., ICLR
2026) in the book's per-trial schema, and the count tables derived from them (chapters 5, 6)."""

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
                   package_dir, provenance, tables)
