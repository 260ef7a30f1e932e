"""Chapter 6: a vision-language model on scenes of shapes, and the spatial fits."""
