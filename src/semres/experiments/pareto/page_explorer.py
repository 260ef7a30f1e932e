"""Chapter 1's interactive front explorer, which works in the static HTML book: no server, no
network.

Every curve is computed here from the closed forms in :mod:`semres.core.theory` on a grid of noise
levels, item counts and ball measures, and embedded in the page as numbers; the page's small
script only picks the precomputed curve that the sliders name and draws it as SVG. Where
JavaScript is off, the same figure is shown as a static image (``<noscript>``), and notebook
front ends that do not render HTML fall back to the PNG.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json

import matplotlib.pyplot as plt
import numpy as np

from semres.report import plotting as splot
from semres.core import theory

# the plot's frame in SVG units: left, top, width, height of the axes inside a 460 x 360 box
_L, _T, _W, _H = 60, 14, 380, 286


class FrontExplorer:
    """Sliders for the noise Δ, the number of items n and the ball measure b; the curve for
    (Δ, n) traced by b, and the point at the chosen b, on the (p_I, p_S) plane.

    Displays itself: interactive HTML in the book and in Jupyter, a PNG elsewhere.
    """

    def __init__(self, deltas, ns, n_b: int = 51):
        self.deltas = np.asarray(deltas, dtype=float)
        self.ns = np.asarray(ns)
        if self.deltas.ndim != 1 or self.deltas.size == 0 or (self.deltas < 0).any():
            raise ValueError(f"deltas must be a non-empty list of values >= 0; got {deltas!r}")
        if self.ns.ndim != 1 or self.ns.size == 0:
            raise ValueError(f"ns must be a non-empty list of integers >= 2; got {ns!r}")
        if not isinstance(n_b, (int, np.integer)) or n_b < 3:
            raise ValueError(f"n_b must be an integer >= 3; got {n_b!r}")
        self.bs = np.linspace(0.0, 1.0, int(n_b))
        b, n, d = np.meshgrid(self.bs, self.ns, self.deltas, indexing="ij")
        p_s, p_i = theory.n_item(b, n, d)  # validates n and delta
        self.p_s, self.p_i = np.moveaxis(p_s, 0, -1), np.moveaxis(p_i, 0, -1)  # [n, delta, b]

    # -- the static figure ---------------------------------------------------------------------
    def figure(self, delta_index: int = 0, n_index: int = 0, b_index: int | None = None):
        """The matplotlib version: every item count at one noise level, the chosen point."""
        b_index = len(self.bs) // 4 if b_index is None else b_index
        fig, ax = splot.subplots(figsize=(6.0, 4.2))
        _front(ax)
        for j, n in enumerate(self.ns):
            ax.plot(self.p_i[j, delta_index], self.p_s[j, delta_index], lw=1.3,
                    color=splot.CYCLE[j % len(splot.CYCLE)], label=f"n = {n}")
        ax.plot(self.p_i[n_index, delta_index, b_index], self.p_s[n_index, delta_index, b_index],
                "o", color="black", ms=6,
                label=f"b = {self.bs[b_index]:.2f}, n = {self.ns[n_index]}")
        ax.set(xlabel="identification $p_I$", ylabel="generalization $p_S$", xlim=(0, 1.02),
               ylim=(0, 1.02), title=f"Theorem 3, noise Δ = {self.deltas[delta_index]:g}")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
        return fig

    def _repr_png_(self) -> bytes:
        fig = self.figure()
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150)
        plt.close(fig)
        return buf.getvalue()

    # -- the interactive page fragment ---------------------------------------------------------
    def _repr_html_(self) -> str:
        data = {"deltas": self.deltas.round(4).tolist(), "ns": self.ns.tolist(),
                "bs": self.bs.round(4).tolist(), "ps": self.p_s.round(4).tolist(),
                "pi": self.p_i.round(4).tolist(), "frame": [_L, _T, _W, _H]}
        payload = json.dumps(data, separators=(",", ":"))
        uid = "semres-explorer-" + hashlib.sha1(payload.encode()).hexdigest()[:10]
        png = base64.b64encode(self._repr_png_()).decode()
        alt = html.escape(ALT, quote=True)
        return _TEMPLATE.format(uid=uid, axes=_axes_svg(), payload=payload, png=png, alt=alt,
                                n_delta=len(self.deltas) - 1, n_n=len(self.ns) - 1,
                                n_b=len(self.bs) - 1, b0=len(self.bs) // 4)


ALT = ("Theorem 3's success rates on the plane of identification p_I (horizontal) and "
       "generalization p_S (vertical): one curve per number of items n, traced by the ball "
       "measure b, at noise level zero, with the two-item universal front for reference.")


def front_explorer(deltas=None, ns=None, n_b: int = 51) -> FrontExplorer:
    """The chapter-1 explorer in one call: noise Δ from 0 to 0.5, n from 2 to 10 by default."""
    deltas = np.round(np.linspace(0.0, 0.5, 11), 2) if deltas is None else deltas
    ns = np.arange(2, 11) if ns is None else ns
    return FrontExplorer(deltas, ns, n_b)


def _front(ax):
    p_i = np.linspace(0.5, 1.0, 101)
    ax.plot(p_i, theory.front(p_i), color=splot.THEORY_ALT, ls="--", lw=1.2,
            label="two-item front, Δ = 0")


def _axes_svg() -> str:
    """Static SVG: frame, grid, ticks, labels and the two-item front (which never moves)."""
    parts = []
    for t in np.linspace(0, 1, 6):
        x, y = _L + t * _W, _T + (1 - t) * _H
        parts.append(f'<line x1="{x:.1f}" y1="{_T}" x2="{x:.1f}" y2="{_T + _H}" class="g"/>'
                     f'<line x1="{_L}" y1="{y:.1f}" x2="{_L + _W}" y2="{y:.1f}" class="g"/>'
                     f'<text x="{x:.1f}" y="{_T + _H + 16}" text-anchor="middle">{t:.1f}</text>'
                     f'<text x="{_L - 6}" y="{y + 4:.1f}" text-anchor="end">{t:.1f}</text>')
    p_i = np.linspace(0.5, 1.0, 51)
    pts = " ".join(f"{_L + a * _W:.1f},{_T + (1 - s) * _H:.1f}"
                   for a, s in zip(p_i, theory.front(p_i)))
    parts.append(f'<polyline points="{pts}" class="ref"/>')
    parts.append(f'<rect x="{_L}" y="{_T}" width="{_W}" height="{_H}" class="f"/>')
    parts.append(f'<text x="{_L + _W / 2}" y="{_T + _H + 34}" text-anchor="middle">'
                 'identification p<tspan baseline-shift="sub" font-size="10">I</tspan></text>')
    parts.append(f'<text transform="translate(14 {_T + _H / 2}) rotate(-90)" '
                 'text-anchor="middle">generalization p'
                 '<tspan baseline-shift="sub" font-size="10">S</tspan></text>')
    return "".join(parts)


_TEMPLATE = """<div id="{uid}" class="semres-explorer" style="display:none;max-width:560px">
<style>
#{uid} svg {{ width: 100%; height: auto; font: 13px sans-serif; }}
#{uid} .g {{ stroke: #ddd; stroke-width: 0.6; }}
#{uid} .f {{ fill: none; stroke: #888; stroke-width: 0.8; }}
#{uid} .ref {{ fill: none; stroke: #8c8c8c; stroke-width: 1.3; stroke-dasharray: 5 3; }}
#{uid} .curve {{ fill: none; stroke: #1b6ca8; stroke-width: 2; }}
#{uid} .pt {{ fill: #d1495b; stroke: white; stroke-width: 1.5; }}
#{uid} label {{ display: flex; align-items: center; gap: 0.5em; margin: 0.2em 0; }}
#{uid} label span {{ min-width: 9.5em; }}
#{uid} input {{ flex: 1; min-width: 0; }}
#{uid} output {{ min-width: 3em; font-variant-numeric: tabular-nums; }}
</style>
<svg viewBox="0 0 460 360" role="img" aria-label="{alt}">{axes}
<polyline class="curve" points=""/><circle class="pt" r="5" cx="-10" cy="-10"/></svg>
<label><span>noise level Δ</span>
<input type="range" name="delta" min="0" max="{n_delta}" value="0">
<output name="delta"></output></label>
<label><span>number of items n</span><input type="range" name="n" min="0" max="{n_n}" value="0">
<output name="n"></output></label>
<label><span>ball measure b</span><input type="range" name="b" min="0" max="{n_b}" value="{b0}">
<output name="b"></output></label>
<p class="readout" style="margin:0.3em 0"></p>
<p style="font-size:0.85em;color:#555;margin:0">Blue: Theorem 3 for this Δ and n, traced by the
ball measure b from 0 to 1 (where both rates fall to chance, 1/n). Red: the chosen b. Dashed:
the two-item front without noise, for reference.</p>
</div>
<noscript><img src="data:image/png;base64,{png}" alt="{alt}" style="max-width:100%"></noscript>
<script>
(function () {{
  const root = document.getElementById("{uid}");
  if (!root) return;
  root.style.display = "block";
  const D = {payload};
  const [L, T, W, H] = D.frame;
  const X = v => (L + v * W).toFixed(1), Y = v => (T + (1 - v) * H).toFixed(1);
  const get = name => root.querySelector(`input[name="${{name}}"]`);
  const put = (name, text) => root.querySelector(`output[name="${{name}}"]`).textContent = text;
  function draw() {{
    const d = +get("delta").value, n = +get("n").value, b = +get("b").value;
    const ps = D.ps[n][d], pi = D.pi[n][d];
    root.querySelector(".curve").setAttribute("points",
      ps.map((s, k) => X(pi[k]) + "," + Y(s)).join(" "));
    const pt = root.querySelector(".pt");
    pt.setAttribute("cx", X(pi[b])); pt.setAttribute("cy", Y(ps[b]));
    put("delta", D.deltas[d].toFixed(2)); put("n", D.ns[n]); put("b", D.bs[b].toFixed(2));
    root.querySelector(".readout").textContent =
      `At b = ${{D.bs[b].toFixed(2)}}: p_S = ${{ps[b].toFixed(3)}}, p_I = ${{pi[b].toFixed(3)}}`
      + ` (chance 1/n = ${{(1 / D.ns[n]).toFixed(3)}})`;
  }}
  for (const name of ["delta", "n", "b"]) get(name).addEventListener("input", draw);
  draw();
}})();
</script>
"""
