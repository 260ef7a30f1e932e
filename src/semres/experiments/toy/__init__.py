"""Chapter 3 (``03_toy_relu``): the ReLU superposition network of Elhage et al. (2022) trained on
three-item trials, which gives itself a finite resolution and lands on Proposition 1's law.

``settings`` holds every setting; ``evaluation`` the stimuli and the exact (p_S, p_I) of a
similarity matrix; ``profile_fit`` the learned similarity's distance profile and its linear
fit; ``superposition`` the network, its losses and the batched trainer; ``analysis`` what the
chapter reads off the trained networks; ``verdicts`` the rules that make its result rows;
``page`` and ``page_figures`` what the page shows.
"""
