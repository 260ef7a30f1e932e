"""The report layer: what a chapter says about its numbers.

:mod:`.verdicts` holds the one status vocabulary, the significance policy and the rule that
assigns a status; :mod:`.numbers` the one way numbers are written; :mod:`.box` a result in
words; :mod:`.chapter` the per-chapter :class:`Report` and :func:`open_chapter`. A chapter and
an experiment's page and verdict modules import from here; science modules never do.
"""

from .box import BOX_FIRST, box_line, find, measured, row_places, status_line, tally
from .chapter import FRONT_COLUMNS, SUMMARY_COLUMNS, Opening, Report, open_chapter
from .numbers import escape, fmt, mathify, places, plural, prose
from .verdicts import (ALPHA, BAD, CLAIMS, GOOD, KINDS, NO_MARGIN, NOT_MEASURED, POLICY,
                       POWER, STATUSES, VOCABULARY, Z_MAX, counted, detectable_at, holm, judge,
                       outcome, reference, slack, smallest_detectable, status, weakest,
                       z_check_detectable)

__all__ = ["ALPHA", "BAD", "CLAIMS", "BOX_FIRST", "FRONT_COLUMNS", "GOOD", "KINDS", "NO_MARGIN",
           "NOT_MEASURED", "Opening", "POLICY", "POWER", "Report", "STATUSES",
           "SUMMARY_COLUMNS", "VOCABULARY", "Z_MAX", "box_line", "counted", "detectable_at",
           "escape", "find", "fmt", "holm", "judge", "mathify", "measured", "open_chapter", "outcome",
           "places", "plural", "prose", "reference", "row_places", "slack", "smallest_detectable", "status", "status_line",
           "tally", "weakest", "z_check_detectable"]
