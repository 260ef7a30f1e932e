"""Chapter 4: a ResNet on images whose classes follow a phylogeny."""
