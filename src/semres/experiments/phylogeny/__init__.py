"""Chapter 4 (``04_resnet_phylogeny``): a ResNet trained with (1 − α) CE + α L_sim on images
whose classes follow a phylogeny (simulated, or CUB-200-2011 with a Newick tree), and Theorem 1
on a finite metric space, with ties."""
