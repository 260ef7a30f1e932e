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


#: a number as prose writes it: a sign (− or -), digits with thousands commas, decimals, an
#: optional "× 10ⁿ" and an optional percent sign
NUMBER = re.compile(r"(?<![\w.])[−-]?\d[\d,]*(?:\.\d+)?(?:\s*×\s*10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)?%?(?![\w])")
#: numbers that name a thing rather than measure it ("Theorem 3", "chapter 5", "Fig. 2")
NAMING = re.compile(r"\b(Theorem|Proposition|Definition|Lemma|Corollary|Figure|Fig\.|Table|"
                    r"chapter|Chapter|Section|§|Eq\.|Appendix)\s+[A-Z]?\d+(?:\.\d+)*")
_DIGITS = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def numbers_in(text: str) -> list[tuple[float, float, str]]:
    """Every number ``text`` quotes, as (value, half the last shown digit, the text): "0.54"
    is (0.54, 0.005), "1,032" (1032, 0.5), "3.2 × 10⁻⁵" (3.2e-5, 5e-7), "54%" (0.54, 0.005).
    Numbers that name a theorem, chapter or figure are skipped."""
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


def unquoted(text: str, cited, exempt=(0.05, 0.001, 0.95, 95, 80, 0.8)) -> list[str]:
    """The numbers ``text`` quotes that none of ``cited`` (the row it describes: a dict or a
    list of numbers) rounds to, nor ``exempt`` (the book's levels: 95 % intervals, 80 % power,
    p < 0.05 and 0.001). Prose built from a row quotes only the row's numbers."""
    values = cited.values() if isinstance(cited, dict) else cited
    pool = [float(v) for v in values if as_number(v) is not None] + [float(v) for v in exempt]
    pool += [-v for v in pool]
    return [token for value, half, token in numbers_in(text)
            if not any(abs(value - v) <= half * (1 + 1e-9) + 1e-12 for v in pool)]
