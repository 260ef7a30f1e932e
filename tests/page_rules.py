"""Rules the tests read pages by (not the package's business): a table header reads as words
with units, and the numbers a sentence quotes, to the digits it shows."""

from __future__ import annotations

import html
import re


#: words of a header that a reader must decode: abbreviations and the code's own words
ABBREVIATIONS = frozenset({
    "avg", "boot", "ci", "est", "exp", "hi", "id", "ide", "lo", "mc", "num", "obs", "ood",
    "pct", "res", "sd", "se", "sim", "std", "val", "var", "max", "min", "ref", "tol", "stat",
    "theo", "headline"})
#: words that say what a number with no unit is: a share, a statistic, a count, a label, or
#: one of the paper's dimensionless quantities
UNITLESS = frozenset({
    # probabilities and shares
    "probability", "probabilities", "share", "fraction", "proportion", "accuracy", "chance",
    "generalization", "identification", "correct", "p-value", "pS", "pI",
    # differences and bounds of those, and statistics
    "gain", "gap", "excess", "bound", "front", "plateau", "z", "|z|", "z-score", "statistic",
    "ratio", "correlation", "spread", "times",
    # counts and labels
    "number", "count", "trials", "items", "seeds", "seed", "epoch", "epochs", "resamples",
    "points", "chapter", "rank", "version", "doubling", "year", "AUC", "n",
    # the paper's dimensionless quantities: similarity values and ball measures
    "similarity", "floor", "noise", "measure", "⟨b⟩", "Var(b)", "weight", "α", "Δ", "ε"})
#: words of an uncertainty's header, which takes its estimate's unit ("standard error")
UNCERTAINTY = frozenset({"error", "interval", "deviation"})
#: a header's unit: a bracket at its end ("Wall time (s)")
_UNIT = re.compile(r"\(([^()]+)\)\s*$")


def header_problems(text: str, numeric: bool) -> list[str]:
    """What keeps a header from reading as words with units (the page scan's rule; empty when
    it does): a word of three letters or more that is no abbreviation, no code, and for a
    column of numbers a unit in brackets at its end or a word of :data:`UNITLESS`."""
    plain = " ".join(re.sub(r"<[^>]+>", "", html.unescape(str(text))).split())
    if not plain and not numeric:  # a column of row labels (a table's stub)
        return []
    problems = []
    words = re.findall(r"[^\W\d_]+(?:[-’'][^\W\d_]+)*", plain)
    known = [w for w in words if len(w) >= 3 and w.lower() not in ABBREVIATIONS]
    if not known:
        problems.append(f"{plain!r} has no word")
    odd = sorted({w for w in words if w.lower() in ABBREVIATIONS})
    if odd:
        problems.append(f"{plain!r} has words a reader must decode: {', '.join(odd)}")
    dotted = re.findall(r"(?<!\w)(?:[A-Za-z]\.){2,}", plain)  # "s.e.", "s.d."
    if dotted:
        problems.append(f"{plain!r} has words a reader must decode: {', '.join(dotted)}")
    if "_" in plain or re.search(r"\b[a-z]+[A-Z][a-z]+", plain):
        problems.append(f"{plain!r} is code")
    if numeric and not _UNIT.search(plain) and not UNCERTAINTY & {w.lower() for w in words}:
        tokens = set(re.findall(r"[^\s,;:/]+", plain)) | {w.lower() for w in words}
        tokens |= {t.strip("()[]") for t in tokens}
        if not tokens & UNITLESS and not any(t.rstrip("s") in UNITLESS for t in tokens):
            problems.append(f"{plain!r} is a number with neither a unit nor a kind")
    return problems


#: a number as prose writes it: a sign, digits with commas, decimals, "× 10ⁿ", a percent sign
NUMBER = re.compile(r"(?<![\w.])[−-]?\d[\d,]*(?:\.\d+)?(?:\s*×\s*10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?%?(?![\w])")
#: numbers that name a thing rather than measure it ("Theorem 3", "chapter 5", "Fig. 2")
NAMING = re.compile(r"\b(Theorem|Proposition|Definition|Lemma|Corollary|Figure|Fig\.|Table|"
                    r"chapter|Chapter|Section|§|Eq\.|Appendix)\s+[A-Z]?\d+(?:\.\d+)*")
_DIGITS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def numbers_in(text: str) -> list[tuple[float, float, str]]:
    """Every number ``text`` quotes (not those naming a theorem, chapter or figure), as
    (value, half its last shown digit, its text): "54%" is (0.54, 0.005, "54%")."""
    found = []
    for match in NUMBER.finditer(NAMING.sub(" ", str(text))):
        token = match.group(0)
        body = token.rstrip("%").replace("−", "-").replace(",", "")
        mantissa, _, power = body.partition("×")
        exponent = int(power.strip()[2:].translate(_DIGITS)) if power else 0
        mantissa = mantissa.strip()
        decimals = len(mantissa.partition(".")[2])
        scale = 10.0 ** exponent / (100 if token.endswith("%") else 1)
        found.append((float(mantissa) * scale, 0.5 * 10.0 ** -decimals * scale, token))
    return found
