"""The book's one table formatter: headers in words with units, numbers rounded to what their
uncertainty supports, p-values and z-scores as a reader reads them, the full CSV one link away."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
from IPython import get_ipython
from pandas.io.formats.style import Styler

from .numbers import DASH, MINUS, missing as _missing, number, scientific, superscript

#: how a column reads (HTML): a whole name, or a run of its ``_``-separated words
HEADERS = {
    "p_s": "<i>p</i><sub>S</sub>", "p_i": "<i>p</i><sub>I</sub>",
    "se_s": "standard error of <i>p</i><sub>S</sub>",
    "se_i": "standard error of <i>p</i><sub>I</sub>",
    "z_s": "<i>z</i>-score of <i>p</i><sub>S</sub>",
    "z_i": "<i>z</i>-score of <i>p</i><sub>I</sub>",
    "p": "<i>p</i>", "n": "<i>n</i>", "b": "<i>b</i>", "z": "<i>z</i>-score",
    "se": "standard error", "stderr": "standard error", "sd": "standard deviation",
    "ci": "95% interval", "ci_low": "interval low", "ci_high": "interval high",
    "ci_lo": "interval low", "ci_hi": "interval high",
    "mean_b": "⟨<i>b</i>⟩", "var_b": "Var(<i>b</i>)", "mean_tau": "⟨τ⟩",
    "eps": "ε", "epsilon": "ε", "eps_fit": "fitted ε", "delta": "Δ", "alpha": "α",
    "lambda": "λ", "lam": "λ", "tau": "τ", "sigma": "σ", "mu": "μ", "beta": "β",
    "gamma": "γ", "theta": "θ", "p_value": "<i>p</i>-value",
    "distance_p": "distance test <i>p</i>-value", "gof_p": "goodness-of-fit <i>p</i>-value",
    "at_bound": "at a bound", "mc": "Monte Carlo", "monte_carlo": "Monte Carlo",
    "rmse": "RMSE", "heldout": "held-out",
    "max_z": "largest |<i>z</i>|", "abs_z": "|<i>z</i>|",
    "boot": "bootstrap", "ide": "identification", "sim": "similarity", "id": "identification",
    "ood": "out-of-distribution", "val": "validation", "auc": "AUC", "max": "largest",
    "min": "smallest", "headline": "measured value", "n_boot": "bootstrap resamples",
}
#: a column named by one of the paper's symbols alone: the symbol with the word it stands for
ALONE = {
    "p_s": "generalization <i>p</i><sub>S</sub>", "p_i": "identification <i>p</i><sub>I</sub>",
    "n": "items <i>n</i>", "z": "<i>z</i>-score", "b": "ball measure <i>b</i>",
    "mean_b": "mean ball measure ⟨<i>b</i>⟩", "var_b": "variance of the ball measure",
    "eps": "resolution ε", "epsilon": "resolution ε", "delta": "noise Δ",
    "alpha": "loss weight α", "abs_z": "|<i>z</i>|-score",
}
#: a name's last word that is a unit: ``scale_px`` reads "scale (px)"
UNITS = {"px": "px", "seconds": "s", "secs": "s", "ms": "ms", "pct": "%", "percent": "%",
         "deg": "°"}
#: the most significant figures a number in a plain column shows, and an interval's width's
MAX_FIGURES, INTERVAL_FIGURES = 4, 2
# a number in e-notation inside text ("150–1.11e+03 px"), and a format spec asking for one
_E_NUMBER = re.compile(r"(?<![\w.])([-+]?\d+(?:\.\d*)?|[-+]?\.\d+)[eE]([-+]?\d+)(?![\w.])")
_E_SPEC = re.compile(r"^\{:[+\- ]?\.?(\d*)[eE]\}$")


def header(name, headers: dict | None = None) -> str:
    """A column name as HTML words: ``scale_px`` -> "Scale (px)", ``target_gap_max`` ->
    "Largest target gap"; ``headers`` adds to :data:`HEADERS`."""
    known = {**{k.lower(): v for k, v in HEADERS.items()},
             **{str(k).lower(): v for k, v in (headers or {}).items()}}
    if isinstance(name, tuple):  # a column of a table with several header levels
        parts = [header(part, headers) for part in name if str(part) != ""]
        return ", ".join(parts[:1] + [_lower(p) for p in parts[1:]])
    text = str(name).strip()
    alone = re.sub(r"[_\s]+", "_", text.lower())  # "mean b" is "mean_b"
    if alone in ALONE and text.lower() not in {str(k).lower() for k in headers or {}}:
        return _capital(ALONE[alone])
    if text.lower() in known:
        return _capital(known[text.lower()])
    words = [w for w in re.split(r"[_\s]+", text) if w]
    unit = UNITS.get(words[-1].lower()) if len(words) > 1 else None
    words = words[:-1] if unit else words
    if len(words) > 1 and words[-1].lower() in ("max", "min"):  # "gap_max": "largest gap"
        words = words[-1:] + words[:-1]
    out, i = [], 0
    while i < len(words):
        for j in range(len(words), i, -1):  # the longest run of words with a reading
            run = "_".join(words[i:j]).lower()
            if run in known:
                out.append(known[run])
                i = j
                break
        else:
            out.append(html.escape(words[i]))
            i += 1
    return _capital(" ".join(out) + (f" ({unit})" if unit else ""))


def _lower(text: str) -> str:
    """Undo :func:`_capital` on a plain word (not on an acronym such as "RMSE")."""
    return text[0].lower() + text[1:] if text[:2].isalpha() and text[1:2].islower() else text


def _capital(text: str) -> str:
    """``text`` with a capital when it starts with a word (not a symbol, markup, "s.e.")."""
    return text[0].upper() + text[1:] if re.match(r"[a-z][a-z\-]+(\s|$)", text) else text


def _plain_numbers(text: str) -> str:
    """Text with each e-notation number in it written out: "1.11e+03" -> "1110"."""
    def write(match):
        value = float(match.group(0))
        places = len((match.group(1).split(".") + [""])[1])
        figures = len(match.group(1).lstrip("+-").replace(".", "").lstrip("0")) or 1
        if 1e-3 <= abs(value) < 1e6:
            return number(value, max(0, figures - 1 - int(np.floor(np.log10(abs(value))))))
        return scientific(value, max(figures, places + 1))

    return _E_NUMBER.sub(write, text)


def _places(values, most: int, figures: int, exact: bool = False) -> int:
    """Decimals that give the column's median ``figures`` significant figures (at most
    ``most``); with ``exact``, fewer when they show every value exactly ("0.25", not "0.2500")."""
    size = np.abs(np.asarray(values, dtype=float))
    size = size[np.isfinite(size) & (size > 0)]
    if not size.size:
        return 0
    places = int(min(most, max(0, figures - 1 - np.floor(np.log10(np.median(size))))))
    if exact:
        for fewer in range(places):
            if np.allclose(np.round(size, fewer), size, rtol=1e-12, atol=0):
                return fewer
    return places


def _numeric(col) -> bool:
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _truths(col) -> bool:
    if pd.api.types.is_bool_dtype(col):
        return True
    present = [v for v in col if not _missing(v)]
    return bool(present) and all(isinstance(v, (bool, np.bool_)) for v in present)


def _interval_places(df, numeric: list[str]) -> dict[str, int]:
    """Decimals for columns with their uncertainty beside them (``se_x``, ``x_se``, or
    ``ci_low``/``ci_high`` right of the estimate): two figures of that uncertainty."""
    found = {}

    def uncertainty(values):
        return _places(values, 6, INTERVAL_FIGURES)

    for col in numeric:
        name = str(col)
        stem = name.rsplit("_", 1)[0] if "_" in name else None
        for se in (f"se_{name}", f"{name}_se", f"{stem}_se" if stem else None):
            if se in numeric and se != name:
                found[col] = found[se] = uncertainty(df[se])
    for col in numeric:
        name = str(col)
        if not name.lower().startswith(("ci_low", "ci_lo")):
            continue
        suffix = name[name.lower().index("_lo") + 3:].removeprefix("w")
        high = next((c for c in numeric if str(c).lower() in (f"ci_high{suffix}",
                                                             f"ci_hi{suffix}")), None)
        if high is None:
            continue
        dec = uncertainty((df[high] - df[col]) / 2)
        found[col] = found[high] = dec
        left = [c for c in list(df.columns)[:list(df.columns).index(col)] if c in numeric]
        if left and not str(left[-1]).lower().startswith("ci_"):
            found.setdefault(left[-1], dec)
    return found


def _cells(col, spec, places: int | None, sci: int | None, figures: int) -> list[str]:
    """Every value of one column as text (not yet escaped)."""
    values = list(col)
    if callable(spec) or isinstance(spec, str):
        out = []
        for v in values:
            if _missing(v):
                out.append(DASH)
                continue
            try:
                text = spec(v) if callable(spec) else spec.format(v)
            except (ValueError, TypeError):
                ok = isinstance(v, (float, np.floating)) and float(v).is_integer()
                text = spec.format(int(v)) if ok and isinstance(spec, str) else number(v)
            out.append(_plain_numbers(str(text)).replace("-", MINUS)
                       if _looks_numeric(text) else _plain_numbers(str(text)))
        return out
    if sci is not None:
        return [DASH if _missing(v) else scientific(v, sci) for v in values]
    return [number(v, places, figures) for v in values]


def _looks_numeric(text) -> bool:
    return bool(re.fullmatch(r"\s*[-+]?[\d.,]+(?:[eE][-+]?\d+)?\s*", str(text)))


class Table:
    """A table for readers: headers (HTML), cells (text), which columns hold numbers, and the
    name of the full table's CSV; shown as HTML."""

    def __init__(self, columns: list[str], rows: list[list[str]], numeric: list[bool],
                 csv: str | None = None, caption: str | None = None):
        self.columns, self.rows, self.numeric = columns, rows, numeric
        self.csv, self.caption = csv, caption

    @property
    def data(self):
        """The shown table as a DataFrame of text, headers without their markup."""
        plain = [re.sub(r"<[^>]+>", "", c) for c in self.columns]
        return pd.DataFrame(self.rows, columns=plain)

    def to_html(self) -> str:
        def cell(tag, text, num, extra=""):
            klass = ' class="num"' if num else ""
            return f"<{tag}{extra}{klass}>{text}</{tag}>"

        head = "".join(cell("th", c, n, ' scope="col"') for c, n in zip(self.columns,
                                                                        self.numeric))
        body = "\n".join("<tr>" + "".join(cell("td", html.escape(v), n)
                                          for v, n in zip(row, self.numeric)) + "</tr>"
                         for row in self.rows)
        caption = f"<caption>{html.escape(self.caption)}</caption>" if self.caption else ""
        parts = ['<div class="semres-table">',
                 '<div class="semres-table-scroll" tabindex="0" role="region" '
                 'aria-label="table; scroll sideways to see every column">',
                 f'<table class="semres-table-grid">{caption}<thead><tr>{head}</tr></thead>',
                 f"<tbody>\n{body}\n</tbody></table></div>"]
        if self.csv:
            name = html.escape(self.csv)
            parts.append(f'<p class="semres-table-csv"><a href="{CSV_SCHEME}{name}" '
                         f'download="{name}.csv">The full table as CSV '
                         f"(<code>{name}.csv</code>)</a></p>")
        parts.append("</div>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.data.to_string(index=False)


#: a table's link to its full CSV before the book resolves it (``semres.report.sphinxext``)
CSV_SCHEME = "semres-csv:"


def table(df, decimals: int = 4, *, csv: str | None = None, headers: dict | None = None,
          **formats) -> Table:
    """Every table the book shows: headers in words (:func:`header`), a meaningful index as
    the first column, numbers rounded to their uncertainty or to ``decimals`` and
    :data:`MAX_FIGURES` figures, never e-notation ("1.2 × 10⁻⁷" for a format "{:.1e}"),
    yes/no, "—"; ``formats`` per column; ``csv`` links the full table; beyond pandas'
    ``display.max_rows`` the first and last half with "⋮" between."""
    if isinstance(df, pd.Series):
        df = df.to_frame()
    df = _without_index(df)
    most = pd.get_option("display.max_rows") or len(df)
    cut = len(df) > most
    numeric = [c for c in df.columns if _numeric(df[c]) and not _truths(df[c])]
    around = _interval_places(df, numeric)
    sci = {}
    formats = dict(formats)
    for col, spec in list(formats.items()):
        match = _E_SPEC.match(spec) if isinstance(spec, str) else None
        if match:  # "{:.1e}": a scientific column with that many figures
            sci[col] = int(match.group(1) or 6) + 1
            del formats[col]
    columns, cells, is_number = [], [], []
    for col in df.columns:
        values = df[col]
        name = col if not isinstance(col, tuple) else "_".join(map(str, col))
        columns.append(header(col, headers))
        if _truths(values) and col not in formats:
            cells.append([DASH if _missing(v) else ("yes" if v else "no") for v in values])
            is_number.append(False)
            continue
        if (col in numeric and col not in formats and name not in formats
                and col not in around and col not in sci and name not in sci):
            kind = statistic_kind(name)  # (an estimate with its interval is no p-value)
            if kind == "p":
                formats[col] = p_cell
            elif kind == "z":
                formats[col] = z_cell
        if col in numeric or col in formats or name in formats:
            spec = formats.get(col, formats.get(name))
            places = around.get(col)
            if places is None and col in numeric:
                finite = values[np.isfinite(values.astype(float))]
                whole = len(finite) and (finite == np.round(finite)).all()
                places = 0 if whole else _places(values, decimals, MAX_FIGURES, exact=True)
            cells.append(_cells(values, spec, places, sci.get(col, sci.get(name)), 3))
            is_number.append(col in numeric)
            continue
        cells.append([DASH if _missing(v) or str(v).strip().lower() == "nan"
                      else _plain_numbers(" ".join(str(v).split())) for v in values])
        is_number.append(False)
    rows = [list(r) for r in zip(*cells)] if cells else []
    caption = None
    if cut:  # the column's rounding was chosen from all of its rows
        half = max(1, most // 2)
        rows = rows[:half] + [["⋮"] * len(columns)] + rows[-half:]
        caption = f"{len(df):,} rows; the first and last {half} shown"
    return Table(columns, rows, is_number, csv=csv, caption=caption)


#: the smallest p-value a table shows as a number; below it a cell reads "< 10⁻⁴"
P_FLOOR = 1e-4


def statistic_kind(name: str) -> str | None:
    """"p" for a column of p-values (``gof_p``), "z" for z-scores or a like statistic
    (``max_z``, ``chi2``), None otherwise (``p_s`` is a probability, not a p-value)."""
    text = str(name).lower().replace("-", "_")
    if text == "p" or text.endswith("_p") or "p_value" in text or "pvalue" in text:
        return "p"
    words = text.split("_")
    if text in ("z", "t") or words[0] in ("z", "chi2") or words[-1] in ("z", "stat", "chi2") \
            or "zscore" in text or "statistic" in words:
        return "z"
    return None


def p_cell(p) -> str:
    """A p-value in a table: two significant figures, "< 10⁻⁴" below :data:`P_FLOOR`."""
    p = float(p)
    if p < P_FLOOR:
        return f"< 10{superscript(int(np.log10(P_FLOOR)))}"
    return number(p, figures=2)


def z_cell(z) -> str:
    """A z-score (or a like statistic) in a table: two decimals."""
    return number(float(z), places=2)


def _without_index(df):
    """``df`` with meaningful row labels as a column, and counting ones dropped."""
    index = df.index
    counts = (isinstance(index, pd.RangeIndex) or pd.api.types.is_integer_dtype(index)) \
        and all(n is None for n in index.names)
    if counts:
        return df.reset_index(drop=True)
    names = [n if n is not None else "" for n in index.names]
    flat = df.copy()
    flat.index = index.set_names(names)
    if any(n in flat.columns for n in names if n):
        flat.index = flat.index.set_names([f"{n} " for n in names])
    return flat.reset_index()


def show_tables() -> None:
    """Show every DataFrame and Styler a notebook displays through :func:`table`."""
    ip = get_ipython()
    if ip is None:
        return
    html = ip.display_formatter.formatters["text/html"]
    html.for_type(pd.DataFrame, lambda df: table(df).to_html())
    html.for_type(Styler, lambda s: table(s.data).to_html())  # table() decides on the index
