"""One figure style and one table style for the whole book, so every chapter's figures and
tables read alike, on a laptop and on a phone: figures through :func:`legible` (and their phone
layout, :func:`narrow`), tables through :func:`table`."""

from __future__ import annotations

import io
import re
import warnings

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

# Roles, not decoration: theory curves are black/grey, measurements take the cycle below.
THEORY = "black"
THEORY_ALT = "0.55"
CYCLE = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"]

#: the widest figure the text column (about 690 px at 1280 px) shows at its natural size; a
#: wider one is shrunk, its text with it
MAX_WIDTH = 7.1
#: no text smaller than this (points): 12 pt is 16 px, the captions' size, in a figure shown at
#: its natural size; on a phone the book shows a narrower layout of the figure
#: (:data:`PHONE_WIDTH`), where the same 12 pt renders at 12 px or more
MIN_FONT = 12.0

STYLE = {
    "figure.figsize": (6.4, 4.0),
    "figure.dpi": 110,
    "savefig.dpi": 150,
    "savefig.bbox": "tight",
    "svg.fonttype": "path",  # the glyphs travel with the figure: no font needed to read it
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.25,
    "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "font.size": MIN_FONT,
    "axes.titlesize": MIN_FONT,
    "axes.labelsize": MIN_FONT,
    "xtick.labelsize": MIN_FONT,
    "ytick.labelsize": MIN_FONT,
    "legend.fontsize": MIN_FONT,
    "legend.title_fontsize": MIN_FONT,
    "figure.titlesize": MIN_FONT,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
}


def use_style() -> None:
    """Apply the book's style; every chapter calls this once, after its imports.

    In a notebook, figures are also shown as SVG (vector text stays sharp when a phone reader
    zooms in, where a PNG would blur), each carrying its phone layout (:func:`figure_svg`), and
    every DataFrame a chapter displays goes through :func:`table` (:func:`show_tables`).
    """
    plt.rcParams.update(STYLE)
    from IPython import get_ipython

    ip = get_ipython()
    if ip is not None:
        from matplotlib.figure import Figure
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("svg")
        ip.display_formatter.formatters["image/svg+xml"].for_type(Figure, figure_svg)
        show_tables()


def legible(fig):
    """Make ``fig`` readable in the book at both widths: no text under :data:`MIN_FONT`, and no
    wider than :data:`MAX_WIDTH` as saved (legends and labels outside the axes included: the
    figure narrows until its tight box fits, so the panels get narrower, not the text smaller).
    On a phone the book shows the figure's phone layout instead (:func:`narrow`).
    Returns the figure."""
    _fit(fig, MAX_WIDTH)
    return fig


def _floor(fig) -> bool:
    """No text in ``fig`` under :data:`MIN_FONT`; True when some text had to grow."""
    from matplotlib.text import Text

    grew = False
    for ax in fig.axes:  # tick labels are made at drawing time from the axis' settings
        for axis in (ax.xaxis, ax.yaxis):
            labels = axis.get_ticklabels(which="both")
            if labels and min(t.get_fontsize() for t in labels) < MIN_FONT:
                axis.set_tick_params(which="both", labelsize=MIN_FONT)
                grew = True
    for text in fig.findobj(Text):
        if text.get_text() and text.get_fontsize() < MIN_FONT:
            text.set_fontsize(MIN_FONT)
            grew = True
    return grew


def _wrap_labels(fig) -> None:
    """An axis label or title wider than its panel breaks into lines (never inside $math$): it
    would otherwise hold the figure wide while the panels narrow."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        room = ax.get_window_extent(renderer).width
        for text in (ax.xaxis.label, ax.title):
            width = text.get_window_extent(renderer).width if text.get_text() else 0
            if width > room > 0:
                text.set_text(_wrap(text.get_text(), len(text.get_text()) * room / width))


def _fit(fig, most: float) -> str | None:
    """Floor the text and narrow ``fig`` until it is at most ``most`` inches wide as saved.
    Returns the SVG of the last measurement when the figure is as it was saved then."""
    previous = None
    for _ in range(8):
        _floor(fig)
        _wrap_labels(fig)
        width, height = fig.get_size_inches()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            svg = _saved_svg(fig)  # measured as the book will show it
            excess = _svg_width(svg) - most
        # text that does not narrow with the figure (a wide legend beside it) would squeeze the
        # panels to nothing: then the last width that laid out is kept
        if previous is not None and any("collapsed" in str(w.message) for w in caught):
            fig.set_size_inches(previous, height)
            _floor(fig)
            return None
        if excess <= 0.01 or width - excess < 2.0:
            return svg if not _floor(fig) else None
        previous = width
        fig.set_size_inches(width - excess, height)
    _floor(fig)
    return None


# ------------------------------------------------------------------------- the phone layout

#: the widest figure (inches, as saved) whose 12 pt text still renders at 12 px or more in the
#: text column of a 390 px phone (343 px, measured): 12 pt is 16 px at the natural size, so
#: the figure may shrink to 3/4 of it, 343 / 0.75 = 457 px = 4.76 in; 4.6 in leaves a margin
PHONE_WIDTH = 4.6
#: where a phone layout travels inside the desktop SVG until the book splits it off
#: (``semres.report.sphinxext``): a CDATA section of a ``<metadata>`` element, which renderers ignore
PHONE_START = '<metadata id="semres-phone"><![CDATA['
PHONE_END = "]]></metadata>"


def figure_svg(fig) -> str | None:
    """``fig`` as the book shows it: its SVG, carrying its phone layout (:func:`narrow`) when
    the figure is too wide to read on a phone. The IPython formatter of every figure in a
    chapter (:func:`use_style`); the book serves the layout that fits the reader's screen."""
    from IPython.core.pylabtools import print_figure

    desktop = print_figure(fig, "svg")
    if not desktop:
        return desktop
    if _svg_width(desktop) <= PHONE_WIDTH + 0.01:
        return desktop
    try:
        phone = narrow(fig, drawn=True)
    except Exception as err:  # noqa: BLE001 - the desktop figure still shows
        warnings.warn(f"no phone layout for a figure: {type(err).__name__}: {err}",
                      stacklevel=2)
        return desktop
    return embed_phone(desktop, phone) if phone else desktop


def save(fig, path) -> None:
    """Save ``fig`` as the book shows it (an SVG carrying its phone layout, see
    :func:`figure_svg`) to ``path``, for a page that shows it with the ``{image}`` directive
    (the book's extension splits the two layouts as it does for a chapter's figures)."""
    from pathlib import Path

    Path(path).write_text(figure_svg(fig) or _saved_svg(fig), encoding="utf-8")


def embed_phone(desktop: str, phone: str) -> str:
    """The desktop SVG with the phone SVG inside it (see :data:`PHONE_START`)."""
    body = phone[phone.index("<svg"):]
    end = desktop.rindex("</svg>")
    return f"{desktop[:end]}{PHONE_START}{body}{PHONE_END}\n{desktop[end:]}"


def split_phone(svg: str) -> tuple[str, str | None]:
    """``(desktop, phone)``: the two layouts of an SVG made by :func:`figure_svg` (``phone``
    is None when it carries none)."""
    start = svg.find(PHONE_START)
    if start < 0:
        return svg, None
    end = svg.index(PHONE_END, start)
    phone = svg[start + len(PHONE_START):end]
    head = svg[:svg.index("<svg")] if "<svg" in svg else ""
    return svg[:start] + svg[end + len(PHONE_END):].lstrip("\n"), head + phone


def _svg_width(svg: str) -> float:
    return float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', svg).group(1)) / 72


def _panels(axes) -> list[list]:
    """The panels among ``axes`` in reading order, each the axes that share one grid cell (a
    panel and its twins); colour bars and insets follow their panel and are not listed."""
    groups: dict = {}
    for ax in axes:
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        key = (id(spec.get_gridspec()), spec.rowspan.start, spec.rowspan.stop,
               spec.colspan.start, spec.colspan.stop)
        groups.setdefault(key, []).append(ax)

    def place(group):
        box = group[0].get_position()
        return (-round(box.y1, 2), round(box.x0, 2))

    return sorted(groups.values(), key=place)


def _inches(artist, fig) -> tuple[float, float]:
    box = artist.get_window_extent()
    return box.width / fig.dpi, box.height / fig.dpi


def narrow(fig, width: float = PHONE_WIDTH, drawn: bool = False) -> str | None:
    """The phone layout of ``fig`` as SVG text: its panels stacked in one column (reading
    order: left to right, then down; in a figure of subfigures one above the other, each
    stacked within), legends folded to fewer columns, tick labels shown on every panel, the
    whole at most ``width`` inches wide with text at :data:`MIN_FONT`, so that it reads at
    12 px or more on a 390 px phone. None when it cannot be laid out (subfigures side by
    side, or within subfigures). ``fig`` is put back as it was. ``drawn``: the figure has
    just been drawn (saved) as it is, so its panels' sizes are known."""
    subfigs = list(getattr(fig, "subfigs", None) or [])
    if subfigs:
        grids = {id(sf._subplotspec.get_gridspec()) for sf in subfigs}
        if len(grids) > 1 or subfigs[0]._subplotspec.get_gridspec().ncols != 1 \
                or any(sf.subfigs for sf in subfigs):
            return None
    containers = subfigs or [fig]
    if not drawn:
        fig.canvas.draw()  # the panels' sizes as laid out
    _, h0 = fig.get_size_inches()
    saved = _Saved(fig)
    try:
        totals, stacked = [], False
        for box in containers:
            axes = [ax for ax in fig.axes if ax.get_figure(root=False) is box]
            panels = _panels(axes)
            visible = [group for group in panels if any(ax.get_visible() for ax in group)]
            tall = (box.bbox.height / fig.dpi) if box is not fig else h0
            if len(visible) < 2:
                totals.append(tall)
                continue
            columns = _phone_columns([group[0] for group in visible])
            rows = -(-len(visible) // columns)
            cells = [visible[r * columns:(r + 1) * columns] for r in range(rows)]
            heights = [max(_panel_height(group[0], fig, width / columns) for group in row)
                       for row in cells]
            extra = max(0.0, tall - max(_inches(g[0], fig)[1] + 0.8 for g in visible))
            grid = box.add_gridspec(rows, columns, height_ratios=heights)
            for r, row in enumerate(cells):
                for c, group in enumerate(row):
                    for ax in group:
                        ax.set_subplotspec(grid[r, c])
                    _outer_labels(group[0], r == rows - 1 or r == rows - 2 and c >= len(
                        cells[-1]), c == 0, columns)
            for group in panels:
                if group not in visible:  # hidden cells of the grid: out of the way
                    for ax in group:
                        ax.set_subplotspec(grid[0, 0])
                        ax.set_in_layout(False)
            totals.append(sum(heights) + min(extra, 1.5))
            stacked = True
        if subfigs:
            subfigs[0]._subplotspec.get_gridspec().set_height_ratios(totals)
        fig.set_size_inches(width, sum(totals) if stacked else h0)
        _fold_legends(fig, width)
        return _fit(fig, width) or _saved_svg(fig)
    finally:
        saved.restore()


def _phone_columns(axes) -> int:
    """How many columns a phone layout keeps: one for up to four panels; for more, the
    original columns up to two (up to three for pictures: panels without tick labels)."""
    if len(axes) <= 4:
        return 1
    first = {round(ax.get_position().x0, 2) for ax in axes}
    pictures = all(not ax.axison or not any(t.get_text() for t in ax.get_xticklabels()
                                            + ax.get_yticklabels()) for ax in axes)
    return max(1, min(len(first), 3 if pictures else 2))


def _panel_height(ax, fig, width: float) -> float:
    """A panel's height in the phone layout (inches, its labels included) when it is
    ``width`` inches wide: its shape kept when its aspect is fixed, else its height on the
    desktop within 1.9 to 3.2 inches."""
    w, h = _inches(ax, fig)
    fixed = ax.get_aspect() != "auto" or ax.get_box_aspect() is not None
    if fixed and w > 0:
        return min((width - (0.9 if ax.axison else 0.2)) * h / w, 4.5) + \
            (0.8 if ax.axison else 0.5)
    return float(np.clip(h, 1.9, 3.2)) + 0.8


def _outer_labels(ax, bottom: bool, left: bool, columns: int) -> None:
    """Tick labels in the phone layout: in one column every panel shows its own; in several,
    an axis shared with other panels shows them only on the outer panels (the bottom row,
    the first column), as ``label_outer`` does. An axis label a shared axis had only on its
    outer panel comes to every panel that now shows tick labels."""
    shared_x = len(ax.get_shared_x_axes().get_siblings(ax)) > 1
    shared_y = len(ax.get_shared_y_axes().get_siblings(ax)) > 1
    show_x = columns == 1 or bottom or not shared_x
    show_y = columns == 1 or left or not shared_y
    if ax.xaxis.get_label_position() == "bottom":
        ax.tick_params(axis="x", which="both", labelbottom=show_x)
    if ax.yaxis.get_label_position() == "left":
        ax.tick_params(axis="y", which="both", labelleft=show_y)
    for axis, shared, show in ((ax.xaxis, ax.get_shared_x_axes(), show_x),
                               (ax.yaxis, ax.get_shared_y_axes(), show_y)):
        if axis.label.get_text() or not show:
            continue
        other = next((o for o in shared.get_siblings(ax) if o is not ax
                      and (o.xaxis if axis is ax.xaxis else o.yaxis).label.get_text()), None)
        if other is not None:
            axis.label.set_text((other.xaxis if axis is ax.xaxis else other.yaxis)
                                .label.get_text())
    if columns > 1:  # label_outer also cleared the inner panels' axis labels
        if not show_x and shared_x:
            ax.xaxis.label.set_text("")
        if not show_y and shared_y:
            ax.yaxis.label.set_text("")


def _fold_legends(fig, width: float) -> None:
    """Legends wider than the phone's figure take fewer columns, and in one column their
    long entries break into lines (a legend's width does not depend on where it stands, so
    nothing needs drawing)."""
    renderer = fig.canvas.get_renderer()
    room = (width - 0.3) * fig.dpi
    for legend in _legends(fig):
        columns = len(legend._legend_handle_box.get_children())
        while columns > 1 and legend.get_window_extent(renderer).width > room:
            columns -= 1
            _set_columns(legend, columns)
        over = legend.get_window_extent(renderer).width - room
        if over <= 0:
            continue
        for text in [*legend.get_texts(), legend.get_title()]:
            wide = text.get_window_extent(renderer).width if text.get_text() else 0
            if wide > 0 and wide - over > 0:
                text.set_text(_wrap(text.get_text(), len(text.get_text()) * (wide - over) / wide))


def _legends(fig) -> list:
    """Every legend of ``fig``: its own, its subfigures' and its axes'."""
    found, boxes = [], [fig]
    while boxes:
        box = boxes.pop()
        found += list(box.legends)
        boxes += list(getattr(box, "subfigs", None) or [])
    return found + [ax.get_legend() for ax in fig.axes if ax.get_legend()]


def _set_columns(legend, columns: int) -> None:
    """Lay ``legend``'s entries out in ``columns`` columns, filled as matplotlib fills them.

    matplotlib lays a legend out once, when it is made (``Legend._init_legend_box``); this
    packs the same entries again, so that the legend keeps its handles, place and style."""
    from matplotlib.offsetbox import HPacker, VPacker

    old = legend._legend_handle_box
    items = [item for column in old.get_children() for item in column.get_children()]
    size, extra = divmod(len(items), columns)
    chunks, at = [], 0
    for k in range(columns):
        take = size + (1 if k < extra else 0)
        if take:
            chunks.append(items[at:at + take])
        at += take
    align = old.get_children()[0].align if old.get_children() else "baseline"
    fontsize = legend._fontsize
    box = HPacker(pad=0, sep=legend.columnspacing * fontsize, align="baseline", mode=old.mode,
                  children=[VPacker(pad=0, sep=legend.labelspacing * fontsize, align=align,
                                    children=chunk) for chunk in chunks])
    legend._legend_box._children[legend._legend_box._children.index(old)] = box
    legend._legend_handle_box = box
    legend._legend_box.set_figure(legend.get_figure(root=False))
    legend._legend_box.axes = legend.axes


class _Saved:
    """What :func:`narrow` changes in a figure, to put back afterwards."""

    def __init__(self, fig):
        from matplotlib.text import Text

        self.fig = fig
        self.size = fig.get_size_inches().copy()
        self.specs = [(ax, ax.get_subplotspec(), ax.get_in_layout()) for ax in fig.axes]
        subfigs = list(getattr(fig, "subfigs", None) or [])
        grid = subfigs[0]._subplotspec.get_gridspec() if subfigs else None
        self.ratios = (grid, grid.get_height_ratios()) if grid is not None else None
        self.legends = [(lg, lg._legend_handle_box) for lg in _legends(fig)]
        self.texts = [(t, t.get_text()) for t in fig.findobj(Text)]
        self.ticks = [(ax, {k: v for k, v in axis.get_tick_params().items()
                            if k in ("labelbottom", "labelleft")}, name)
                      for ax in fig.axes for name, axis in (("x", ax.xaxis), ("y", ax.yaxis))]

    def restore(self) -> None:
        for ax, spec, in_layout in self.specs:
            if spec is not None:
                ax.set_subplotspec(spec)
            ax.set_in_layout(in_layout)
        for legend, box in self.legends:
            children = legend._legend_box._children
            children[children.index(legend._legend_handle_box)] = box
            legend._legend_handle_box = box
        for text, value in self.texts:
            text.set_text(value)
        for ax, params, name in self.ticks:
            ax.tick_params(axis=name, which="both", **{k: params.get(k, True)
                                                       for k in (("labelbottom",) if name == "x"
                                                                 else ("labelleft",))})
        if self.ratios is not None:
            self.ratios[0].set_height_ratios(self.ratios[1])
        self.fig.set_size_inches(*self.size)


# --------------------------------------------------------------------- families of lines

def family(n: int, cmap: str = "viridis", span: tuple[float, float] = (0.0, 0.82)) -> list:
    """``n`` colours for a family of lines ordered by a parameter (n = 2, 5, 10, ...; a sweep of
    ε): evenly spaced along a perceptually uniform colour map whose lightest end, which
    vanishes on white, is cut off, so that neighbours differ and the order reads dark to
    light. Pair it with :func:`family_key` when there are more lines than a legend can name."""
    colours = matplotlib.colormaps[cmap]
    return [colours(x) for x in (np.linspace(*span, n) if n > 1 else [span[0]])]


def family_key(fig, ax, values, label: str, cmap: str = "viridis",
               span: tuple[float, float] = (0.0, 0.82)):
    """A colour bar naming the parameter of a :func:`family` of lines drawn in ``ax``, one
    band per value (in place of a legend entry per line). Returns the colour bar."""
    from matplotlib.colors import BoundaryNorm, ListedColormap

    values = list(values)
    colours = ListedColormap(family(len(values), cmap, span))
    bounds = np.arange(len(values) + 1) - 0.5
    mappable = matplotlib.cm.ScalarMappable(norm=BoundaryNorm(bounds, colours.N), cmap=colours)
    bar = fig.colorbar(mappable, ax=ax, ticks=np.arange(len(values)), label=label)
    bar.ax.set_yticklabels([f"{v:g}" if isinstance(v, (int, float)) else str(v)
                            for v in values])
    return bar


def _wrap(text: str, chars: float) -> str:
    """``text`` in lines of at most ``chars`` characters, breaking only outside ``$...$``."""
    import textwrap

    parts = text.replace("\n", " ").split("$")
    glued = "$".join(p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(parts))
    lines = textwrap.wrap(glued, max(int(chars * 0.95), 8), break_long_words=False)
    return "\n".join(lines).replace("\0", " ")


def _saved_svg(fig) -> str:
    """``fig`` saved as the book saves it: SVG, tight box and margins."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    return buffer.getvalue()


def _saved_width(fig) -> float:
    """The width (inches) of ``fig`` saved as the book saves it: SVG, tight box and margins."""
    return _svg_width(_saved_svg(fig))


def subplots(*args, **kwargs):
    """``plt.subplots`` in the book's style, with constrained layout by default."""
    use_style()
    kwargs.setdefault("layout", "constrained")
    return plt.subplots(*args, **kwargs)


def subplot_mosaic(mosaic, **kwargs):
    """``plt.subplot_mosaic`` in the book's style, with constrained layout by default."""
    use_style()
    kwargs.setdefault("layout", "constrained")
    return plt.subplot_mosaic(mosaic, **kwargs)


# ----------------------------------------------------------------------------------- tables

#: how a column reads in a table (HTML): a whole name, or a run of its ``_``-separated words;
#: ``table(..., headers={...})`` adds a chapter's own. Other names read as their words.
HEADERS = {
    "p_s": "<i>p</i><sub>S</sub>", "p_i": "<i>p</i><sub>I</sub>",
    "se_s": "s.e. of <i>p</i><sub>S</sub>", "se_i": "s.e. of <i>p</i><sub>I</sub>",
    "z_s": "<i>z</i> of <i>p</i><sub>S</sub>", "z_i": "<i>z</i> of <i>p</i><sub>I</sub>",
    "p": "<i>p</i>", "n": "<i>n</i>", "b": "<i>b</i>", "z": "<i>z</i>",
    "se": "s.e.", "stderr": "s.e.", "sd": "s.d.", "ci": "CI",
    "ci_low": "CI low", "ci_high": "CI high", "ci_lo": "CI low", "ci_hi": "CI high",
    "mean_b": "⟨<i>b</i>⟩", "var_b": "Var(<i>b</i>)", "mean_tau": "⟨τ⟩",
    "eps": "ε", "epsilon": "ε", "eps_fit": "fitted ε", "delta": "Δ", "alpha": "α",
    "lambda": "λ", "lam": "λ", "tau": "τ", "sigma": "σ", "mu": "μ", "beta": "β",
    "gamma": "γ", "theta": "θ", "p_value": "<i>p</i>-value",
    "distance_p": "distance test <i>p</i>", "gof_p": "goodness-of-fit <i>p</i>",
    "at_bound": "at a bound", "mc": "Monte Carlo", "rmse": "RMSE", "heldout": "held-out",
    "max_z": "largest |<i>z</i>|", "abs_z": "|<i>z</i>|",
    "boot": "bootstrap", "ide": "identification", "sim": "similarity",
    "headline": "measured value", "n_boot": "bootstrap resamples",
}
#: a name's last word that is a unit: ``scale_px`` reads "scale (px)"
UNITS = {"px": "px", "seconds": "s", "secs": "s", "ms": "ms", "pct": "%", "percent": "%",
         "deg": "°"}
#: the most significant figures a number in a plain column shows, and an interval's width's
MAX_FIGURES = 4
INTERVAL_FIGURES = 2
DASH, MINUS, TIMES = "—", "\u2212", "×"
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
# a number in e-notation inside text ("150–1.11e+03 px")
_E_NUMBER = re.compile(r"(?<![\w.])([-+]?\d+(?:\.\d*)?|[-+]?\.\d+)[eE]([-+]?\d+)(?![\w.])")
_E_SPEC = re.compile(r"^\{:[+\- ]?\.?(\d*)[eE]\}$")


def header(name, headers: dict | None = None) -> str:
    """A column name as a reader reads it, as HTML: ``p_s_mc`` -> "p<sub>S</sub> Monte Carlo",
    ``scale_px`` -> "Scale (px)", ``target_gap_max`` -> "Target gap max".

    ``headers`` adds names (whole names or runs of words) to :data:`HEADERS`.
    """
    import html

    known = {**{k.lower(): v for k, v in HEADERS.items()},
             **{str(k).lower(): v for k, v in (headers or {}).items()}}
    if isinstance(name, tuple):  # a column of a table with several header levels
        parts = [header(part, headers) for part in name if str(part) != ""]
        return ", ".join(parts[:1] + [_lower(p) for p in parts[1:]])
    text = str(name).strip()
    if text.lower() in known:
        return _capital(known[text.lower()])
    words = [w for w in re.split(r"[_\s]+", text) if w]
    unit = UNITS.get(words[-1].lower()) if len(words) > 1 else None
    words = words[:-1] if unit else words
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
    """``text`` with a capital first letter when it starts with a word (not a symbol, markup
    or an abbreviation such as "s.e.")."""
    return text[0].upper() + text[1:] if re.match(r"[a-z][a-z\-]+(\s|$)", text) else text


def _missing(value) -> bool:
    if value is None or value is getattr(__import__("pandas"), "NA", None):
        return True
    try:
        return bool(value != value)  # NaN, NaT
    except (TypeError, ValueError):
        return False


def scientific(x: float, figures: int = 3) -> str:
    """``x`` as "1.23 × 10⁻⁷" (``figures`` significant figures), never "1.23e-07"."""
    x = float(x)
    if x == 0:
        return "0"
    if not np.isfinite(x):
        return _infinity(x)
    mantissa, exponent = f"{x:.{max(figures, 1) - 1}e}".split("e")
    return (f"{mantissa.replace('-', MINUS)} {TIMES} "
            f"10{str(int(exponent)).translate(_SUPERSCRIPT)}")


def _infinity(x: float) -> str:
    return "∞" if x > 0 else f"{MINUS}∞"


def _integer(x) -> str:
    x = int(x)
    return (f"{x:,}" if abs(x) >= 10_000 else str(x)).replace("-", MINUS)


def number(x, places: int | None = None, figures: int = 3) -> str:
    """One number as a table shows it: ``places`` decimals (or ``figures`` significant figures),
    a minus sign, thousands separated from 10,000 on, and "× 10ⁿ" for a number that these
    decimals would show as nothing (or only its last place) and from a million on; "—" for a
    missing value, "yes"/"no" for a truth value."""
    if _missing(x):
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
    """Decimals that give the column's typical (median) size ``figures`` significant figures,
    at most ``most``; with ``exact``, fewer when they already show every value exactly (a
    parameter 0.25 reads "0.25", not "0.2500")."""
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
    import pandas as pd

    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def _truths(col) -> bool:
    import pandas as pd

    if pd.api.types.is_bool_dtype(col):
        return True
    present = [v for v in col if not _missing(v)]
    return bool(present) and all(isinstance(v, (bool, np.bool_)) for v in present)


def _interval_places(df, numeric: list[str]) -> dict[str, int]:
    """Decimals for columns that come with their uncertainty: a standard error (``se_x``,
    ``x_se``) or an interval (``ci_low``/``ci_high``, with the estimate left of them): two
    significant figures of the standard error or of the interval's half-width."""
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
    """A table formatted for readers; shown as HTML (:meth:`to_html`) in the book.

    ``columns`` are the headers (HTML), ``rows`` the cells (text), ``numeric`` which columns
    hold numbers (set right-aligned), ``csv`` the name of the full table's CSV file, if any.
    """

    def __init__(self, columns: list[str], rows: list[list[str]], numeric: list[bool],
                 csv: str | None = None, caption: str | None = None):
        self.columns, self.rows, self.numeric = columns, rows, numeric
        self.csv, self.caption = csv, caption

    @property
    def data(self):
        """The shown table as a DataFrame of text, headers without their markup."""
        import pandas as pd

        plain = [re.sub(r"<[^>]+>", "", c) for c in self.columns]
        return pd.DataFrame(self.rows, columns=plain)

    def to_html(self) -> str:
        import html

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
          scientific_columns=(), caption: str | None = None, max_rows: int | None = None,
          **formats) -> Table:
    """A result table for readers, the one formatter of every table the book shows.

    - Headers in words (:func:`header`, :data:`HEADERS`; ``headers`` adds or overrides names).
    - No row index: a named or labelled index becomes the first column, a row count is dropped.
    - Numbers: a column with its standard error or interval beside it (``x`` with ``se_x``,
      ``ci_low``/``ci_high`` after an estimate) is rounded to two significant figures of that
      uncertainty; any other column to at most ``decimals`` decimals and at most
      :data:`MAX_FIGURES` significant figures of its typical value. No e-notation: a number
      that would round to nothing, or from a million on, reads "1.2 × 10⁻⁷"; so does every
      value of a column in ``scientific_columns`` (or formatted with an ``e`` spec).
    - Truth values read yes/no, missing values "—", negative numbers take a minus sign.
    - ``formats`` sets a column's format (``z="{:+.2f}"``, or a callable).
    - ``csv`` names the chapter's CSV of the full table (``report.table(df, name)``): the book
      links it under the table.
    - More rows than ``max_rows`` (pandas' ``display.max_rows``, 60, by default): the first
      and last half of them, with a row of "⋮" between (rounded as the whole column).

    The table scrolls sideways inside its own box when wider than the page (a cue says so).
    """
    import pandas as pd

    if isinstance(df, pd.Series):
        df = df.to_frame()
    df = _without_index(df)
    most = max_rows if max_rows is not None else pd.get_option("display.max_rows") or len(df)
    cut = len(df) > most
    numeric = [c for c in df.columns if _numeric(df[c]) and not _truths(df[c])]
    around = _interval_places(df, numeric)
    sci = {c: 3 for c in scientific_columns}
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
    if cut:  # the column's rounding was chosen from all of its rows
        half = max(1, most // 2)
        rows = rows[:half] + [["⋮"] * len(columns)] + rows[-half:]
        caption = caption or f"{len(df):,} rows; the first and last {half} shown"
    return Table(columns, rows, is_number, csv=csv, caption=caption)


#: the smallest p-value a table shows as a number; below it a cell reads "< 10⁻⁴"
P_FLOOR = 1e-4


def statistic_kind(name: str) -> str | None:
    """"p" for a column of p-values (``p``, ``p_value``, ``gof_p``), "z" for one of z-scores
    (``z``, ``z_s``, ``max_z``); None otherwise (``p_s`` is a probability, not a p-value)."""
    text = str(name).lower().replace("-", "_")
    if text == "p" or text.endswith("_p") or "p_value" in text or "pvalue" in text:
        return "p"
    if text == "z" or text.startswith("z_") or text.endswith("_z") or "zscore" in text:
        return "z"
    return None


def p_cell(p) -> str:
    """A p-value in a table: two significant figures, and "< 10⁻⁴" below :data:`P_FLOOR`
    (nothing a reader decides turns on the digits beyond it)."""
    p = float(p)
    if p < P_FLOOR:
        return f"< 10{str(int(np.log10(P_FLOOR))).translate(_SUPERSCRIPT)}"
    return number(p, figures=2)


def z_cell(z) -> str:
    """A z-score (or a like statistic) in a table: two decimals."""
    return number(float(z), places=2)


def _without_index(df):
    """``df`` with its row labels as a column when they mean something (a named index, text
    labels), dropped when they only count rows; several header levels are kept as tuples."""
    import pandas as pd

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


def _styler_table(styler) -> Table:
    """A pandas Styler shown through :func:`table` (its data, without its hidden columns)."""
    data = styler.data
    hidden = set(getattr(styler, "hidden_columns", []) or [])
    keep = [c for i, c in enumerate(data.columns) if i not in hidden]
    return table(data[keep])


def show_tables() -> None:
    """Show every DataFrame and Styler a chapter displays through :func:`table` (in a notebook;
    :func:`use_style` calls it), so that no raw DataFrame reaches the page."""
    from IPython import get_ipython

    ip = get_ipython()
    if ip is None:
        return
    import pandas as pd
    from pandas.io.formats.style import Styler

    html = ip.display_formatter.formatters["text/html"]
    html.for_type(pd.DataFrame, lambda df: table(df).to_html())
    html.for_type(Styler, lambda s: _styler_table(s).to_html())


def legend_outside(fig, axes=None, ncol: int = 3, **kwargs):
    """One figure legend below the panels (``axes``, all of ``fig``'s by default), off the data,
    with each label once."""
    seen = {}
    for ax in np.atleast_1d(fig.axes if axes is None else axes).ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    renderer = fig.canvas.get_renderer()
    for n in range(ncol, 0, -1):  # fewer columns while wider than the page: it cannot narrow
        legend = fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=n,
                            **kwargs)
        if n == 1 or legend.get_window_extent(renderer).width / fig.dpi <= MAX_WIDTH - 0.2:
            return legend
        legend.remove()


def pvalue(p, resolution: float = 0.0) -> str:
    """A p-value as prose states it: "p < 0.001" below 0.001, "p = 0.023" above it, and for a
    test that cannot go lower (a bootstrap's 1/(B + 1), ``resolution``) "p ≤ 0.0099", the
    smallest value it can say; "p not computed" for a missing one."""
    if _missing(p):
        return "p not computed"
    p = float(p)
    if resolution and p <= resolution * (1 + 1e-9):
        shown = number(resolution, figures=2)
        return f"p ≤ {shown.rstrip('0').rstrip('.') if '.' in shown and TIMES not in shown else shown}"
    if p < 0.001:
        return "p < 0.001"
    return f"p = {number(p, figures=2)}"
