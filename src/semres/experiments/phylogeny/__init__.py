"""Chapter 4 (``04_resnet_phylogeny``): a ResNet trained with (1 − α) CE + α L_sim on images
whose classes follow a phylogeny (a simulated tree and rendered birds by default, CUB-200-2011
with a Newick tree on request), and Theorem 1 on a finite metric space, with ties.

``settings`` holds every setting; ``phylo`` the trees, traits, images and splits (and the CUB
reader); ``vision`` the network, its loss and its training; ``measures`` the exact tradeoff
curve and the threshold-free summaries of an embedding; ``alpha_effects`` what raising α
changes; ``verdicts`` the decisions behind the result rows. The figures are drawn in the chapter.
"""
