"""Chapter 3 (``03_toy_relu``): the ReLU superposition network of Elhage et al. (2022) on
three-item trials: ``settings``; ``evaluation`` (stimuli, exact scores), ``profile_fit``,
``superposition`` (network, trainer), ``analysis`` (the science); ``verdicts`` (references and
margins). The figures and result rows are written in the chapter."""
