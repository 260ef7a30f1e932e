"""Numbers and words as the book's prose writes them: one formatter, p-values, plurals, and
text made safe for MyST."""

from __future__ import annotations

import math
import re


SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def as_float(value) -> float:
    return math.nan if value is None else float(value)


def missing(value) -> bool:
    try:
        return value is None or math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def as_number(value) -> float | None:
    """``value`` as a finite float, or None (a blank, text, an infinity)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def fmt(value, digits: int = 3, places: int | None = None) -> str:
    """A number as a reader writes it: ``digits`` significant figures (or ``places`` decimals),
    thousands separated, no exponent between 10^-3 and 10^6; "—" for a blank; text as it is."""
    if missing(value):
        return "—"
    x = as_number(value)
    if x is None:
        return " ".join(str(value).split()).replace("inf", "∞") or "—"
    if x == int(x) and abs(x) < 1e6 and places is None:
        return f"{int(x):,}"
    if x != 0 and not 1e-3 <= abs(x) < 1e6:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        return f"{mantissa} × 10{str(int(exponent)).translate(SUPERSCRIPT)}"
    if places is None:
        places = max(0, digits - 1 - math.floor(math.log10(abs(x)))) if x else 0
        return f"{x:,.{places}f}".rstrip("0").rstrip(".") if places else f"{x:,.0f}"
    return f"{x:,.{places}f}"


def places(*gaps: float, digits: int = 2, most: int = 6) -> int | None:
    """Decimals that show the smallest positive gap (an interval's width, a tolerance) to
    ``digits`` significant figures, so a reader can see why a status is what it is."""
    gaps = [abs(g) for g in map(as_number, gaps) if g]
    if not gaps:
        return None
    return int(min(most, max(0, digits - 1 - math.floor(math.log10(min(gaps))))))


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``"1 result"``, ``"3 results"``; ``many`` for an irregular plural."""
    return f"{count:,} {noun if count == 1 else (many or noun + 's')}"


def escape(text) -> str:
    """Text for MyST markdown, shown as written: ``<b>`` is a mean here, not an HTML tag."""
    text = "" if missing(text) else " ".join(str(text).split())
    for char in "\\|<>*`$":
        text = text.replace(char, "\\" + char)
    return text


def mathify(text: str) -> str:
    """p_S, p_I, p_S^n and 1/n written as text become typeset math in MyST."""
    text = re.sub(r"\bp\\?_([SI])(?:\^n)?\b", lambda m: f"${m.group(0).replace(chr(92), '')}$",
                  text)
    return re.sub(r"(?<![\w/])1/n\b", "$1/n$", text)
