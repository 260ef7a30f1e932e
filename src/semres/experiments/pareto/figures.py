"""Chapter 1's front explorer, which works in the static HTML book: every curve is computed
here from the closed forms and embedded; the page's script only picks one."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json

import matplotlib.pyplot as plt
import numpy as np

from semres.core import theory
from semres.report import plotting as splot

#: the explorer's frame in SVG units: left, top, width, height of the axes in a 460 x 360 box
_L, _T, _W, _H = 60, 14, 380, 286
ALT = ("Theorem 3's success rates on the plane of identification p_I (horizontal) and "
       "generalization p_S (vertical): one curve per number of items n, traced by the ball "
       "measure b, at noise level zero, with the two-item universal front for reference.")


class FrontExplorer:
    """Sliders for the noise Δ (0 to 0.5), the number of items n (2 to 10) and the ball measure
    b: Theorem 3's curve for (Δ, n) traced by b, and the point at the chosen b. Interactive HTML
    (with a PNG for a reader without scripts), a PNG elsewhere."""

    def __init__(self, deltas, ns, n_b: int):
        self.deltas, self.ns = np.asarray(deltas, dtype=float), np.asarray(ns)
        self.bs = np.linspace(0.0, 1.0, n_b)
        b, n, d = np.meshgrid(self.bs, self.ns, self.deltas, indexing="ij")
        p_s, p_i = theory.n_item(b, n, d)  # validates n and delta
        self.p_s, self.p_i = np.moveaxis(p_s, 0, -1), np.moveaxis(p_i, 0, -1)  # [n, delta, b]

    def _repr_png_(self) -> bytes:
        """The starting view: every n without noise, and the point at the first n and b."""
        fig, ax = splot.subplots(figsize=(6.0, 4.2))
        p_i = np.linspace(0.5, 1.0, 101)
        ax.plot(p_i, theory.front(p_i), color=splot.THEORY_ALT, ls="--", lw=1.2,
                label="two-item front, Δ = 0")
        for j, n in enumerate(self.ns):
            ax.plot(self.p_i[j, 0], self.p_s[j, 0], lw=1.3,
                    color=splot.CYCLE[j % len(splot.CYCLE)], label=f"n = {n}")
        b0 = len(self.bs) // 4
        ax.plot(self.p_i[0, 0, b0], self.p_s[0, 0, b0], "o", color="black", ms=6,
                label=f"b = {self.bs[b0]:.2f}, n = {self.ns[0]}")
        ax.set(xlabel="identification $p_I$", ylabel="generalization $p_S$", xlim=(0, 1.02),
               ylim=(0, 1.02), title=f"Theorem 3, noise Δ = {self.deltas[0]:g}")
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=150)
        plt.close(fig)
        return buf.getvalue()

    def _repr_html_(self) -> str:
        data = {"deltas": self.deltas.round(4).tolist(), "ns": self.ns.tolist(),
                "bs": self.bs.round(4).tolist(), "ps": self.p_s.round(4).tolist(),
                "pi": self.p_i.round(4).tolist(), "frame": [_L, _T, _W, _H]}
        payload = json.dumps(data, separators=(",", ":"))
        uid = "semres-explorer-" + hashlib.sha1(payload.encode()).hexdigest()[:10]
        png = base64.b64encode(self._repr_png_()).decode()
        return _TEMPLATE.format(uid=uid, axes=_axes_svg(), payload=payload, png=png,
                                alt=html.escape(ALT, quote=True), n_delta=len(self.deltas) - 1,
                                n_n=len(self.ns) - 1, n_b=len(self.bs) - 1, b0=len(self.bs) // 4,
                                x_label=_L + _W / 2, y_label=_T + _H / 2, below=_T + _H + 34)


def front_explorer(deltas=None, ns=None, n_b: int = 51) -> FrontExplorer:
    deltas = np.round(np.linspace(0.0, 0.5, 11), 2) if deltas is None else deltas
    return FrontExplorer(deltas, np.arange(2, 11) if ns is None else ns, n_b)


def _axes_svg() -> str:
    """Static SVG: frame, grid, ticks and the two-item front (which never moves)."""
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
    return "".join(parts) + (f'<polyline points="{pts}" class="ref"/><rect x="{_L}" y="{_T}" '
                             f'width="{_W}" height="{_H}" class="f"/>')


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
<svg viewBox="0 0 460 360" role="img" aria-label="{alt}">{axes}<text x="{x_label}" y="{below}"
text-anchor="middle">identification p<tspan baseline-shift="sub" font-size="10">I</tspan></text><text
transform="translate(14 {y_label}) rotate(-90)" text-anchor="middle">generalization p<tspan
baseline-shift="sub" font-size="10">S</tspan></text>
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
