"""Chapter 3 (``03_toy_relu``): the ReLU superposition network of Elhage et al. (2022) on
three-item trials."""
