"""The report layer: what a chapter says about its numbers. :mod:`.verdicts` holds the status
vocabulary and the rule that assigns a status, :mod:`.numbers` the way numbers are written,
:mod:`.box` a result in words, :mod:`.chapter` the per-chapter :class:`Report`."""

from .box import BOX_FIRST, box_line, find, measured, row_places, tally
from .chapter import FRONT_COLUMNS, SUMMARY_COLUMNS, Report, open_chapter
from .numbers import fmt, mathify, places, plural, prose
from .verdicts import (ALPHA, BAD, CLAIMS, GOOD, NOT_MEASURED, POWER, STATUSES, VOCABULARY,
                       Z_MAX, counted, detectable_at, judge, outcome, reference, slack,
                       smallest_detectable, status, weakest)
