"""Chapter 6 (``06_vlm_shapes``): vision-language models on canvases of shapes and a red X, and
the spatial resolution their answers carry, read through a biased Luce rule and Theorem 3."""
