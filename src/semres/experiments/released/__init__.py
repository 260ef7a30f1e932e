"""The paper authors' released outputs (``nplresearch/generalization``, Nurisso et al., ICLR
2026) in the book's per-trial schema, and the count tables derived from them (chapters 5, 6)."""

from .cli import convert, main
from .derived import (CORNERS, GRID, colour_margin_table, derive, grid_design,
                      llm_resolution_table, margins, spatial_grid_table, spatial_margin_table)
from .formats import (COMMITS, RESOLUTION_D, SPATIAL_SHAPES, read_colour, read_llm_counts,
                      read_llm_resolution, read_spatial)
from .read import DATA_DIR, gather, load_results, load_table, tables
