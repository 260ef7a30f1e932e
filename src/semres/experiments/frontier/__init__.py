"""Chapter 7's experiment (``07_front_universality``): how universal the front is. Four
families of similarity shapes on the circle, the floor proposition (for two items and for n),
the best any similarity can do (certified for two items by duality, for 4 and 8 by
branch-and-bound where it closes and otherwise bracketed by its proven bound), distance ties on
discrete spaces, and a pilot with compositional (slot-wise) stimuli.

:mod:`.settings` holds the profiles and the designs; the science is :mod:`.families` (the
shapes and the floor bound), :mod:`.steps` (step kernels: exact rates by a t-integral and the
local optimiser), :mod:`.certified` (the two-item frontier as a concave program, certified by
weak duality), :mod:`.floor_n` (the floor bound for n items and the best n-item similarity
found), :mod:`.branch` (its certificate by branch-and-bound, with :mod:`.relax`'s second node
bound), :mod:`.ties` (discrete spaces) and
:mod:`.slots` (slot codes); :mod:`.verdicts` turns their numbers into the overview's rows and
:mod:`.page` and :mod:`.page_floor_n` draw and glue the page.
"""
