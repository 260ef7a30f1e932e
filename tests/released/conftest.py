"""The authors' files every adapter test reads, written afresh for each test."""

import numpy as np
import pytest

from released_files import write_colour, write_spatial


@pytest.fixture
def authors(tmp_path):
    rng = np.random.default_rng(7)
    data = tmp_path / "authors" / "VLM_shapes" / "data"
    data.mkdir(parents=True)
    truth = {
        "far_gemma": write_spatial(data / "spatial_resolution_gemma_results_far.csv", rng),
        "far_qwen": write_spatial(data / "spatial_resolution_qwen_results_far.csv", rng,
                                  qwen=True),
        "stencil_gemma": write_spatial(data / "random_stencil_gemma_results.csv", rng,
                                       shuffle=True),
        "sim_gemma": write_colour(data / "color_similarity_gemma_results.csv", rng, "similarity"),
        "id_gemma": write_colour(data / "color_identification_gemma_results.csv", rng,
                                 "identification"),
    }
    return tmp_path / "authors", data, truth
