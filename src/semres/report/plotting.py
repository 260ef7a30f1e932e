"""One figure style for the book, so that every figure reads alike on a laptop and on a phone:
:func:`legible` fits a figure to the text column, :func:`narrow` makes its phone layout."""

from __future__ import annotations

import io
import pickle
import re
import textwrap
import warnings
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from IPython import get_ipython
from IPython.core.pylabtools import print_figure
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.offsetbox import HPacker, VPacker
from matplotlib.ticker import LogFormatterSciNotation
from matplotlib.text import Text
from matplotlib_inline.backend_inline import set_matplotlib_formats

from .tables import show_tables

# roles, not decoration: theory curves are black and grey, measurements take the cycle
THEORY, THEORY_ALT = "black", "0.55"
CYCLE = ["#1b6ca8", "#d1495b", "#2e933c", "#edae49", "#6a4c93", "#00798c", "#8d6a9f", "#444444"]
#: the widest figure (inches) the text column (about 690 px) shows at its natural size
MAX_WIDTH = 7.1
#: no text smaller than this (points): 16 px at the natural size, the captions' size
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
    """Apply the book's style. In a notebook, figures show as SVG (sharp when a phone zooms in)
    carrying their phone layout (:func:`figure_svg`), and DataFrames through the table
    formatter (:func:`show_tables`)."""
    plt.rcParams.update(STYLE)
    ip = get_ipython()
    if ip is not None:
        set_matplotlib_formats("svg")
        ip.display_formatter.formatters["image/svg+xml"].for_type(Figure, figure_svg)
        show_tables()


def legible(fig):
    """``fig`` with no text under :data:`MIN_FONT` and no wider than :data:`MAX_WIDTH` as saved:
    the panels narrow, not the text. Keeps the SVG of its last measurement for
    :func:`figure_svg`."""
    svg = _fit(fig, MAX_WIDTH)
    fig._semres_svg = (fig.get_size_inches().tolist(), svg)
    return fig


#: a log axis' tick labels within this range read as plain numbers ("0.6", "300"), outside it
#: as powers of ten ("10⁻⁴"), whose plain form would not fit beside its neighbours
PLAIN_TICKS = (0.01, 1000.0)


def plain_tick(x: float) -> str:
    """A log axis' tick value as a plain number (``6e-1`` -> "0.6", ``1000`` -> "1000")."""
    text = f"{float(x):.4g}"
    if "e" in text:  # only outside PLAIN_TICKS; kept exact rather than rounded
        text = np.format_float_positional(float(x), trim="-")
    return text.replace("-", "\u2212")


class PlainLogFormatter(LogFormatterSciNotation):
    """matplotlib's log-axis labels, plain within :data:`PLAIN_TICKS`."""

    def __call__(self, x, pos=None):
        label = super().__call__(x, pos)
        if label and x != 0 and PLAIN_TICKS[0] <= abs(x) <= PLAIN_TICKS[1]:
            return plain_tick(x)
        return label


def plain_ticks(fig) -> None:
    """A :class:`PlainLogFormatter`, with the same settings, for every log axis of ``fig`` that
    has matplotlib's own (a chapter's formatter stays)."""
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for which in ("major", "minor"):
                old = getattr(axis, f"get_{which}_formatter")()
                if type(old) is LogFormatterSciNotation:
                    getattr(axis, f"set_{which}_formatter")(PlainLogFormatter(
                        old._base, labelOnlyBase=old.labelOnlyBase,
                        minor_thresholds=old.minor_thresholds, linthresh=old._linthresh))


def _floor(fig) -> bool:
    """No text in ``fig`` under :data:`MIN_FONT`; True when some text had to grow."""
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


def _wrap_labels(fig) -> bool:
    """Break an axis label or title wider than its panel (as last laid out) into lines, which
    would otherwise hold the figure wide; True when a text changed."""
    renderer = fig.canvas.get_renderer()
    broke = False
    for ax in fig.axes:
        room = ax.get_window_extent(renderer).width
        for text in (ax.xaxis.label, ax.title):
            width = text.get_window_extent(renderer).width if text.get_text() else 0
            if width > room > 0:
                old = text.get_text()  # its widest line sets the width: chars per line
                text.set_text(_wrap(old, max(map(len, old.split("\n"))) * room / width))
                broke = broke or text.get_text() != old
    return broke


def _fit(fig, most: float) -> str | None:
    """Floor the text and narrow ``fig`` until it is at most ``most`` inches wide as saved;
    the SVG of the last save when the figure is still as saved then."""
    previous, taller = None, 0
    plain_ticks(fig)
    start, height = fig.get_size_inches()
    guessed = start + _margins(fig) > most
    if guessed:  # the first save at the likely width: one save fewer
        fig.set_size_inches(most - _margins(fig), height)
    for _ in range(8):
        _floor(fig)
        width, height = fig.get_size_inches()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            svg = _saved_svg(fig)  # measured as the book will show it
        # the save laid the figure out: labels too wide for it break, and it is saved again
        if _wrap_labels(fig):
            continue
        excess = svg_width(svg) - most
        # text that does not narrow (a wide legend beside the panels) squeezes them to nothing:
        # keep the last width that laid out, or start again from the figure's own
        collapsed = any("collapsed" in str(w.message) for w in caught)
        if collapsed and guessed and previous is None:
            guessed = False
            fig.set_size_inches(start, height)
            continue
        if collapsed and previous is not None:
            fig.set_size_inches(previous, height)
            _floor(fig)
            return None
        if collapsed and taller < 2:  # at its own width: text below the panels wants height
            taller += 1
            fig.set_size_inches(width, height * 1.5)
            continue
        if excess <= 0.01 or width - excess < 2.0:
            return svg if not _floor(fig) else None
        previous = width
        fig.set_size_inches(width - excess, height)
    _floor(fig)
    return None


def _margins(fig) -> float:
    """How much wider than ``fig`` its saved SVG is, as known before saving (constrained
    layout only)."""
    engine = fig.get_layout_engine()
    if not isinstance(engine, ConstrainedLayoutEngine):
        return 0.0
    return 2 * (matplotlib.rcParams["savefig.pad_inches"] - engine.get()["w_pad"])


#: the widest figure (inches) whose 12 pt text renders at 12 px or more in a 390 px phone's
#: 343 px column: 343 px / 0.75 = 4.76 in, less a margin
PHONE_WIDTH = 4.6
#: where a phone layout travels inside the desktop SVG until the book's extension splits it off
#: (a CDATA section of a ``<metadata>`` element, which renderers ignore)
PHONE_START, PHONE_END = '<metadata id="semres-phone"><![CDATA[', "]]></metadata>"


def figure_svg(fig) -> str | None:
    """``fig``'s SVG, carrying its phone layout (:func:`narrow`) when it is too wide for a
    phone: the IPython formatter of every figure (:func:`use_style`)."""
    plain_ticks(fig)
    size, fitted = getattr(fig, "_semres_svg", None) or (None, None)
    fig._semres_svg = None  # once: a figure changed later is saved again
    # the SVG legible() last saved, when nothing moved since: one save fewer
    same = fitted is not None and size == fig.get_size_inches().tolist()
    desktop = fitted if same else print_figure(fig, "svg")
    if not desktop or svg_width(desktop) <= PHONE_WIDTH + 0.01:
        return desktop
    try:
        phone = narrow(fig, drawn=True)
    except Exception as err:  # noqa: BLE001 - the desktop figure still shows
        warnings.warn(f"no phone layout for a figure: {type(err).__name__}: {err}",
                      stacklevel=2)
        return desktop
    return embed_phone(desktop, phone) if phone else desktop


def save(fig, path) -> None:
    """Save ``fig`` as :func:`figure_svg` writes it, for an ``{image}`` directive."""
    Path(path).write_text(figure_svg(fig) or _saved_svg(fig), encoding="utf-8")


def embed_phone(desktop: str, phone: str) -> str:
    """The desktop SVG with the phone SVG inside it (see :data:`PHONE_START`)."""
    body = phone[phone.index("<svg"):]
    end = desktop.rindex("</svg>")
    return f"{desktop[:end]}{PHONE_START}{body}{PHONE_END}\n{desktop[end:]}"


def split_phone(svg: str) -> tuple[str, str | None]:
    """``(desktop, phone)`` of an SVG made by :func:`figure_svg` (``phone`` None when none)."""
    start = svg.find(PHONE_START)
    if start < 0:
        return svg, None
    end = svg.index(PHONE_END, start)
    phone = svg[start + len(PHONE_START):end]
    head = svg[:svg.index("<svg")] if "<svg" in svg else ""
    return svg[:start] + svg[end + len(PHONE_END):].lstrip("\n"), head + phone


def svg_width(svg: str) -> float:
    """An SVG's width in inches, as matplotlib writes it (in points)."""
    return float(re.search(r'<svg[^>]*\swidth="([\d.]+)pt"', svg).group(1)) / 72


def _panels(axes) -> list[list]:
    """The panels among ``axes`` in reading order, each the axes of one grid cell (twins)."""
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
    """The phone layout of ``fig`` as SVG: its panels stacked in reading order, legends
    folded, at most ``width`` inches wide; None for subfigures side by side or nested. It is
    laid out on a copy, so ``fig`` stays as it was; ``drawn``: it was just drawn."""
    subfigs = list(getattr(fig, "subfigs", None) or [])
    if subfigs:
        grids = {id(sf._subplotspec.get_gridspec()) for sf in subfigs}
        if len(grids) > 1 or subfigs[0]._subplotspec.get_gridspec().ncols != 1 \
                or any(sf.subfigs for sf in subfigs):
            return None
    fig = pickle.loads(pickle.dumps(fig))
    plt.close(fig)  # unpickling made the copy a pyplot figure, which a notebook would show
    FigureCanvasAgg(fig)
    subfigs = list(getattr(fig, "subfigs", None) or [])
    containers = subfigs or [fig]
    if not drawn:  # else the copy keeps the panels' sizes of the original's last drawing
        fig.draw_without_rendering()
    _, h0 = fig.get_size_inches()
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


def _phone_columns(axes) -> int:
    """Columns of a phone layout: one for up to four panels, else up to two (three for
    pictures without tick labels)."""
    if len(axes) <= 4:
        return 1
    first = {round(ax.get_position().x0, 2) for ax in axes}
    pictures = all(not ax.axison or not any(t.get_text() for t in ax.get_xticklabels()
                                            + ax.get_yticklabels()) for ax in axes)
    return max(1, min(len(first), 3 if pictures else 2))


def _panel_height(ax, fig, width: float) -> float:
    """A panel's height (inches, labels included) at ``width``: its shape kept when its
    aspect is fixed, else its desktop height within 1.9 to 3.2."""
    w, h = _inches(ax, fig)
    fixed = ax.get_aspect() != "auto" or ax.get_box_aspect() is not None
    if fixed and w > 0:
        return min((width - (0.9 if ax.axison else 0.2)) * h / w, 4.5) + \
            (0.8 if ax.axison else 0.5)
    return float(np.clip(h, 1.9, 3.2)) + 0.8


def _outer_labels(ax, bottom: bool, left: bool, columns: int) -> None:
    """Tick labels on every panel of one column, on the outer panels of several (as
    ``label_outer``); a shared axis' label comes to every panel that shows its ticks."""
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
    """Legends wider than the phone's figure take fewer columns, then break long entries."""
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
    """Repack ``legend``'s entries in ``columns`` columns (matplotlib lays a legend out once,
    when it is made), keeping its handles, place and style."""
    old = legend._legend_handle_box
    items = [item for column in old.get_children() for item in column.get_children()]
    size, extra = divmod(len(items), columns)
    ends = np.cumsum([0] + [size + (k < extra) for k in range(columns)])
    chunks = [items[a:b] for a, b in zip(ends, ends[1:]) if b > a]
    align = old.get_children()[0].align if old.get_children() else "baseline"
    fontsize = legend._fontsize
    box = HPacker(pad=0, sep=legend.columnspacing * fontsize, align="baseline", mode=old.mode,
                  children=[VPacker(pad=0, sep=legend.labelspacing * fontsize, align=align,
                                    children=chunk) for chunk in chunks])
    legend._legend_box._children[legend._legend_box._children.index(old)] = box
    legend._legend_handle_box = box
    legend._legend_box.set_figure(legend.get_figure(root=False))
    legend._legend_box.axes = legend.axes


def _wrap(text: str, chars: float) -> str:
    """``text`` in lines of at most ``chars`` characters, breaking only outside ``$...$``."""
    parts = text.replace("\n", " ").split("$")
    glued = "$".join(p.replace(" ", "\0") if i % 2 else p for i, p in enumerate(parts))
    lines = textwrap.wrap(glued, max(int(chars * 0.95), 8), break_long_words=False)
    return "\n".join(lines).replace("\0", " ")


def _saved_svg(fig) -> str:
    """``fig`` saved as the book saves it."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight")
    return buffer.getvalue()


def subplots(*args, **kwargs):
    """``plt.subplots`` in the book's style, with constrained layout by default."""
    return _styled(plt.subplots, *args, **kwargs)


def subplot_mosaic(mosaic, **kwargs):
    """``plt.subplot_mosaic`` in the book's style, with constrained layout by default."""
    return _styled(plt.subplot_mosaic, mosaic, **kwargs)


def _styled(make, *args, **kwargs):
    use_style()
    kwargs.setdefault("layout", "constrained")
    return make(*args, **kwargs)


def legend_outside(fig, axes=None, ncol: int = 3, **kwargs):
    """One figure legend below the panels (of ``axes``), each label once."""
    seen = {}
    for ax in np.atleast_1d(fig.axes if axes is None else axes).ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, handle)
    renderer = fig.canvas.get_renderer()
    for n in range(ncol, 0, -1):  # fewer columns while wider than the page
        legend = fig.legend(list(seen.values()), list(seen), loc="outside lower center", ncol=n,
                            **kwargs)
        if n == 1 or legend.get_window_extent(renderer).width / fig.dpi <= MAX_WIDTH - 0.2:
            return legend
        legend.remove()
