"""Numbers and words as the book writes them, in tables and sentences alike: a minus sign (−),
thousands separated from 10,000 on, "× 10ⁿ" and never e-notation, "—" for a missing value;
p-values, plurals, and text made safe for MyST (its math typeset)."""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd

DASH, MINUS, TIMES = "—", "\u2212", "×"
SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def as_float(value) -> float:
    return math.nan if value is None else float(value)


def missing(value) -> bool:
    """None, NaN, NaT or pandas' NA."""
    if value is None or value is pd.NA:
        return True
    try:
        return bool(value != value)  # NaN, NaT
    except (TypeError, ValueError):
        return False


def as_number(value) -> float | None:
    """``value`` as a finite float, or None (a blank, text, an infinity)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def superscript(exponent: int) -> str:
    return str(int(exponent)).translate(SUPERSCRIPT)


def scientific(x: float, figures: int = 3) -> str:
    """``x`` as "1.23 × 10⁻⁷" (``figures`` significant figures), never "1.23e-07"."""
    x = float(x)
    if x == 0:
        return "0"
    if not np.isfinite(x):
        return _infinity(x)
    mantissa, exponent = f"{x:.{max(figures, 1) - 1}e}".split("e")
    return f"{mantissa.replace('-', MINUS)} {TIMES} 10{superscript(int(exponent))}"


def _infinity(x: float) -> str:
    return "∞" if x > 0 else f"{MINUS}∞"


def _integer(x) -> str:
    x = int(x)
    return (f"{x:,}" if abs(x) >= 10_000 else str(x)).replace("-", MINUS)


def number(x, places: int | None = None, figures: int = 3) -> str:
    """One number as a table shows it: ``places`` decimals (or ``figures`` significant figures);
    "× 10ⁿ" where these decimals would show nothing, and from a million on."""
    if missing(x):
        return DASH
    if isinstance(x, (bool, np.bool_)):
        return "yes" if x else "no"
    if isinstance(x, (int, np.integer)):
        return _integer(x)
    x = float(x)
    if not np.isfinite(x):
        return _infinity(x)
    if x == 0:  # an exact zero, not a measurement that rounds to one
        return "0" if not places or places >= 3 else f"{0:.{places}f}"
    if places is None:
        places = max(0, figures - 1 - int(np.floor(np.log10(abs(x)))))
    if abs(x) >= 1e6 or abs(x) < 10.0 ** -places:
        return scientific(x, figures)
    if x == int(x) and places == 0:
        return _integer(x)
    text = f"{x:,.{places}f}" if abs(x) >= 10_000 else f"{x:.{places}f}"
    return text.replace("-", MINUS)


def fmt(value, digits: int = 3, places: int | None = None) -> str:
    """:func:`number` for prose: ``digits`` significant figures without trailing zeros (or
    ``places`` decimals), "× 10ⁿ" outside 10⁻³ to 10⁶; text passes through."""
    if missing(value):
        return DASH
    x = as_number(value)
    if x is None:
        if isinstance(value, (float, np.floating)):  # an infinity
            return _infinity(float(value))
        return " ".join(str(value).split()).replace("inf", "∞") or DASH
    if x != 0 and not 1e-3 <= abs(x) < 1e6:
        return scientific(x, digits)
    if places is not None:
        return number(x, places)
    text = number(x, figures=digits)
    return text.rstrip("0").rstrip(".") if "." in text else text


def pvalue(p, resolution: float = 0.0) -> str:
    """A p-value in prose: "p < 0.001", "p = 0.023", or "p ≤ 0.0099" at the ``resolution`` of a
    test that cannot go lower (a bootstrap's 1/(B + 1))."""
    if missing(p):
        return "p not computed"
    p = float(p)
    if resolution and p <= resolution * (1 + 1e-9):
        return f"p ≤ {fmt(resolution, 2)}"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {fmt(p, 2)}"


def places(*gaps: float, digits: int = 2, most: int = 6) -> int | None:
    """Decimals that show the smallest positive gap (an interval's width, a margin) to
    ``digits`` significant figures, so a reader sees why a status is what it is."""
    gaps = [abs(g) for g in map(as_number, gaps) if g]
    if not gaps:
        return None
    return int(min(most, max(0, digits - 1 - math.floor(math.log10(min(gaps))))))


def plural(count: int, noun: str) -> str:
    """``"1 result"``, ``"3 results"``."""
    return f"{count:,} {noun if count == 1 else noun + 's'}"


def escape(text) -> str:
    """Text for MyST markdown, shown as written: ``<b>`` is a mean here, not an HTML tag."""
    return _escaped("" if missing(text) else " ".join(str(text).split()))


#: an atom of math written as text: a rate (p_S, p_I^n), <b>, Var(b), a Greek letter spelled
#: out, ln, a number, a one-letter variable, b*(n)
_ATOM = re.compile(r"p_[SI](?:\^n)?|<b>|<tau>|Var\(b\)|\b(?:Delta|delta|tau|lambda|epsilon)\b"
                   r"|\bln\b|(?<![\w.])\d+(?:\.\d+)?(?![\w])|\b[bgmnNT]\*?(?![\w'’])"
                   r"|\^\{?-?[\w.]+\}?")
_OPERATOR = re.compile(r"<=|>=|[=+\-/<>*]")
#: atoms that make a run math even without an operator
_STRONG = ("p_", "<b>", "<tau>", "Var(", "Delta", "delta", "tau", "lambda", "epsilon", "ln", "^")
_LATEX = {"<b>": r"\langle b\rangle", "<tau>": r"\langle\tau\rangle", "Var(b)": r"\mathrm{Var}(b)",
          "Delta": r"\Delta", "delta": r"\Delta", "tau": r"\tau", "lambda": r"\lambda",
          "epsilon": r"\varepsilon", "ln": r"\ln", "<=": r"\le", ">=": r"\ge", "*": "^*"}


def _tokens(text: str):
    """(kind, text) pairs: "atom", "op", "open", "close", "space" or "word"."""
    at = 0
    while at < len(text):
        for kind, pattern in (("atom", _ATOM), ("op", _OPERATOR)):
            m = pattern.match(text, at)
            if m and m.end() > at:
                yield kind, m.group(0)
                at = m.end()
                break
        else:
            char = text[at]
            kind = ("open" if char == "(" else "close" if char == ")" else
                    "space" if char == " " else "word")
            yield kind, char
            at += 1


def _latex(token: str) -> str:
    if token.startswith("^"):
        power = token[1:].strip("{}")
        return "^" + (power if len(power) == 1 else "{" + power + "}")
    if token.endswith("*") and len(token) == 2:
        return token[0] + "^*"
    return _LATEX.get(token, token)


def _math_runs(text: str) -> str:
    """``text`` with each run of math written as text (atoms joined by operators and balanced
    parentheses) typeset: "p_S = 1/2 + <b>" -> "$p_S = 1/2 + \\langle b\\rangle$"."""
    tokens = list(_tokens(text))
    out, i = [], 0
    while i < len(tokens):
        kind, tok = tokens[i]
        if kind not in ("atom", "open"):
            out.append(tok)
            i += 1
            continue
        j, depth, end = i, 0, None
        while j < len(tokens) and tokens[j][0] in ("atom", "op", "open", "close", "space"):
            k, t = tokens[j]
            depth += (k == "open") - (k == "close")
            if depth < 0:
                break
            if depth == 0 and k in ("atom", "close"):
                end = j + 1
            j += 1
        run = tokens[i:end] if end else []
        words = "".join(t for _, t in run)
        strong = any(t.startswith(_STRONG) or t.endswith("*") for k, t in run if k == "atom")
        # a run of numbers joined by hyphens is a range or a date ("5-10", "2026-11-27")
        has_op = any(k == "op" for k, _ in run) and not (
            all(t == "-" for k, t in run if k == "op")
            and all(t[0].isdigit() for k, t in run if k == "atom"))
        if run and (strong or (has_op and sum(k == "atom" for k, _ in run) >= 2)) \
                and words.count("(") == words.count(")"):
            out.append(_typeset(run))
            i = end
        else:
            out.append(tok)
            i += 1
    return "".join(out)


#: operators after which a long formula may break across lines on a phone
_BREAKS = ("=", "+", "-", "<=", ">=", "<", ">")


def _typeset(run) -> str:
    """One run of tokens as inline math, split after each operator outside parentheses."""
    pieces, piece, depth = [], [], 0
    for k, t in run:
        depth += (k == "open") - (k == "close")
        piece.append(_latex(t) if k in ("atom", "op") else t)
        if depth == 0 and k == "op" and t in _BREAKS and len(run) > 7:
            pieces.append("".join(piece).strip())
            piece = []
    pieces.append("".join(piece).strip())
    return " ".join(f"${p}$" for p in pieces if p)


def _outside_math(text: str, change) -> str:
    """``text`` with ``change`` applied to every part outside ``$...$``."""
    parts = re.split(r"(\$[^$]+\$)", text)
    return "".join(part if part.startswith("$") and len(part) > 1 else change(part)
                   for part in parts)


def mathify(text: str) -> str:
    """Math written as text (p_S, <b>, Var(b), lambda ln(1/Delta)) typeset in MyST; math
    already between dollars is left as it is."""
    return _outside_math(str(text), _math_runs)


#: math written as text, as a plain sentence (``{glue:text}``, nothing typeset) shows it
_PLAIN = (("p_S^n", "pₛⁿ"), ("p_I^n", "pᵢⁿ"), ("p_S", "pₛ"), ("p_I", "pᵢ"), ("<b>", "⟨b⟩"),
          ("<tau>", "⟨τ⟩"))
_PLAIN_WORDS = {"lambda": "λ", "Delta": "Δ", "delta": "Δ", "tau": "τ", "epsilon": "ε"}


def plain_math(text: str) -> str:
    """Math written as text, for plain text: pₛ, pᵢ, Greek letters as letters, ≤ and ≥."""
    text = str(text)
    for ascii_, shown in _PLAIN:
        text = text.replace(ascii_, shown)
    text = re.sub(r"\b(lambda|Delta|delta|tau|epsilon)\b(?=\s*[=/<>)(]|\s+ln|\s*$)",
                  lambda m: _PLAIN_WORDS[m.group(1)], text)
    return text.replace("<=", "≤").replace(">=", "≥")


def plain_outside_math(text: str) -> str:
    """:func:`plain_math` outside ``$...$`` (inline glued markdown shows dollars as they are)."""
    return _outside_math(str(text), plain_math)


def prose(text) -> str:
    """Text for a MyST page: its math typeset (:func:`mathify`), the rest escaped."""
    return _outside_math(" ".join(mathify(text).split()), _escaped)


def _escaped(text: str) -> str:
    for char in "\\|<>*`$":
        text = text.replace(char, "\\" + char)
    return text
