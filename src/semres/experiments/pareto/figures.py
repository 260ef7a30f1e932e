"""Chapter 1's figures: the setup, the universal front, the fronts with noise and heterogeneity,
and the front explorer, which works in the static HTML book (no server, no network: every
curve is computed here from the closed forms and embedded; the page's script only picks one)."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Arc, Circle as CirclePatch, Patch

from semres.core import theory
from semres.report import plotting as splot

#: where the front figure draws the edge of the small-eps regime: a visual cut, not a law
SMALL_B = 0.1
#: panel (c) of the setup: each test's title, where its probe lies, and which item is correct
TESTS = (("identification: $p$ is a copy of $x_1$", 0.3, "correct: the copied item"),
         ("similarity: a new probe $p$", 0.42, "correct: the nearest item"))


def fig_setup():
    """The setup in one picture: a ball on a circle, the Luce rule, and the two tests."""
    # one row: a phone stacks the panels, (a) to (c), without a blank band below them
    fig, axes = splot.subplot_mosaic([["a", "b", "c"]], figsize=(7.2, 2.9),
                                     width_ratios=[1.15, 1.0, 1.25])
    blue, red, green = splot.CYCLE[0], splot.CYCLE[1], splot.CYCLE[2]

    def at(deg, r=1.0):
        return r * np.cos(np.radians(deg)), r * np.sin(np.radians(deg))

    # (a) the space, the probe's resolution ball and two items
    ax = axes["a"]
    ax.add_patch(CirclePatch((0, 0), 1, fill=False, color="0.6", lw=1.2))
    probe, eps_deg = 90.0, 50.0
    ax.add_patch(Arc((0, 0), 2, 2, theta1=probe - eps_deg, theta2=probe + eps_deg,
                     color=blue, lw=6, alpha=0.35))
    ax.plot(*at(probe), marker="*", ms=15, color="black")
    ax.annotate("probe $p$", at(probe, 1.22), ha="center")
    ax.plot(*at(132), "o", color=green, ms=9)
    ax.annotate("$x_1$", at(135, 1.25), ha="center")
    ax.plot(*at(-30), "o", color=red, ms=9)
    ax.annotate("$x_2$", at(-30, 1.22), ha="center")
    ax.annotate(r"$B_\varepsilon(p)$", at(probe - eps_deg - 18, 0.66), color=blue, ha="center")
    ax.text(0, -0.3, r"$b_p = \nu(B_\varepsilon(p))$", ha="center")
    # anchored at the top of its cell: a square box centred lower than (b) would come after it
    # in the phone layout, which orders panels by their top edge
    ax.set(title="(a) probe and ball", xlim=(-1.45, 1.45), ylim=(-1.1, 1.55), aspect="equal",
           anchor="N")
    ax.axis("off")

    # (b) the Luce rule on the two items of panel (a), with noise Delta outside the ball;
    # colour names the item, fill the quantity (the legend shows the fills in neutral grey)
    ax = axes["b"]
    delta = 0.25
    g = np.array([1.0, delta])
    ax.bar([0, 1], g, width=0.35, color=[green, red], alpha=0.35, hatch="//",
           edgecolor=[green, red])
    ax.bar([0.38, 1.38], g / g.sum(), width=0.35, color=[green, red])
    ax.set_xticks([0.19, 1.19], ["$x_1$ (in)", "$x_2$ (out)"])
    ax.set(ylim=(0, 1.45), yticks=[0, 0.5, 1], title="(b) Luce rule",
           xlabel="$D_i = g_i / \\sum_k g_k$\n" + rf"($\Delta$ = {delta})")
    ax.legend(handles=[Patch(facecolor="white", edgecolor="0.3", hatch="//",
                             label="similarity $g$"), Patch(facecolor="0.3", label="choice $D_i$")],
              loc="upper right")
    ax.grid(False)

    # (c) the two tests, on a line
    ax = axes["c"]
    for k, (title, p_x, note) in enumerate(TESTS):
        y = 1.4 * k  # each test's line, with room for its title above and its note below
        ax.hlines(y, 0, 1, color="0.7")
        ax.plot([0.3, 0.75], [y, y], "o", color="0.35", ms=9)
        ax.annotate("$x_1$", (0.3, y - 0.1), ha="center", va="top")
        ax.annotate("$x_2$", (0.75, y - 0.1), ha="center", va="top")
        ax.plot(p_x, y + 0.18, marker="*", ms=14, color="black")
        ax.annotate("", (0.3, y + 0.05), (p_x, y + 0.16),
                    arrowprops={"arrowstyle": "->", "color": green})
        ax.text(0.5, y + 0.34, title, ha="center", va="bottom")
        ax.text(0.5, y - 0.34, note, ha="center", va="top", color=green)
    ax.set(xlim=(-0.05, 1.05), ylim=(-0.65, 2.1), title="(c) the two tests")
    ax.axis("off")
    return fig


def fig_front():
    """Theorem 1 on a homogeneous space: p_S and p_I against b with the three regimes shaded,
    and the same curves as a front in the (p_I, p_S) plane."""
    B = np.linspace(0, 1, 401)
    fig, (ax_b, ax_f) = splot.subplots(1, 2, figsize=(7.2, 4.4))
    ps, pi = theory.two_item(B)
    ax_b.plot(B, ps, color=splot.THEORY, label="$p_S$ (similarity)")
    ax_b.plot(B, pi, color=splot.THEORY_ALT, ls="--", label="$p_I$ (identification)")
    regimes = [(0, SMALL_B, "small ε", "#edae49"), (SMALL_B, 0.5, "tradeoff", "#1b6ca8"),
               (0.5, 1, "interference", "#d1495b")]
    for lo, hi, name, colour in regimes:
        ax_b.axvspan(lo, hi, color=colour, alpha=0.12, lw=0)
        ax_b.text((lo + hi) / 2, 0.47, name, ha="center", fontsize=9,
                  rotation=90 if hi - lo < 0.2 else 0, va="bottom")
        sel = (B >= lo) & (B <= hi)
        ax_f.plot(pi[sel], ps[sel], color=colour, lw=2.5, label=name)
    ax_b.set(xlabel=r"ball measure $b$", ylabel="success probability", ylim=(0.45, 1.02),
             title="(a) both tests against $b$")
    ax_f.plot(0.75, 0.75, "k*", ms=12, label=r"optimum $b = 1/2$")
    q = np.linspace(0.5, 1, 201)
    ax_f.plot(q, theory.front(q), color=splot.THEORY, lw=0.8, ls=":", label="front $p_S(p_I)$")
    ax_f.set(xlabel="identification $p_I$", ylabel="generalization $p_S$", xlim=(0.48, 1.01),
             title="(b) the front")
    splot.legend_outside(fig, [ax_b, ax_f], ncol=3)
    return fig


def fig_noise_segment(mc, segment_moments, deltas):
    """Left: Theorem 2's fronts for several Δ with the circle's Monte Carlo cells (at the
    check's ``deltas``); right: the circle against the segment (whose ball moments
    ``segment_moments(eps)`` the chapter derives), with the cost Var(b) inset."""
    fig, (ax_d, ax_s) = splot.subplots(1, 2, figsize=(7.2, 4.6))
    B = np.linspace(0, 1, 301)
    for i, dl in enumerate((0.0, 0.1, 0.2, 0.3, 0.5)):
        ps, pi = theory.two_item(B, delta=dl)
        ax_d.plot(pi, ps, color=splot.CYCLE[i], label=rf"$\Delta$ = {dl}")
        if dl in deltas:
            sel = mc[(mc.space == "circle") & (mc.delta == dl)]
            ax_d.errorbar(sel[sel.task == "identification"]["mc"].to_numpy(),
                          sel[sel.task == "similarity"]["mc"].to_numpy(),
                          xerr=2 * sel[sel.task == "identification"]["stderr"].to_numpy(),
                          yerr=2 * sel[sel.task == "similarity"]["stderr"].to_numpy(),
                          fmt="o", ms=4, color=splot.CYCLE[i])
    ax_d.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title="(a) noise (homogeneous)")
    ax_d.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=2)

    E = np.linspace(0, 0.5, 201)
    circ_ps, circ_pi = theory.two_item(2 * E)
    m_seg, v_seg = segment_moments(E)
    seg_ps, seg_pi = theory.two_item(m_seg, var_b=v_seg)
    ax_s.plot(circ_pi, circ_ps, color=splot.THEORY, label="circle (homogeneous)")
    ax_s.plot(seg_pi, seg_ps, color=splot.CYCLE[1], label="segment")
    for name, colour in (("circle", splot.THEORY), ("segment", splot.CYCLE[1])):
        sel = mc[(mc.space == name) & (mc.delta == 0)]
        ax_s.plot(sel[sel.task == "identification"]["mc"], sel[sel.task == "similarity"]["mc"],
                  "o", ms=5, color=colour, mfc="white")
    inset = ax_s.inset_axes([0.3, 0.17, 0.4, 0.35])
    inset.plot(E, v_seg, color=splot.CYCLE[1])
    inset.set_xlabel(r"$\varepsilon$", fontsize=9)
    inset.set_title(r"cost $\operatorname{Var}(b)$", fontsize=9)
    inset.tick_params(labelsize=9)
    inset.locator_params(nbins=3)
    ax_s.set(xlabel="identification $p_I$", ylabel="generalization $p_S$",
             title="(b) circle vs segment")
    ax_s.legend(loc="upper left", bbox_to_anchor=(0.0, -0.2), ncol=1)
    return fig


# --------------------------------------------------------------------------- the explorer

#: the explorer's frame in SVG units: left, top, width, height of the axes in a 460 x 360 box
_L, _T, _W, _H = 60, 14, 380, 286
ALT = ("Theorem 3's success rates on the plane of identification p_I (horizontal) and "
       "generalization p_S (vertical): one curve per number of items n, traced by the ball "
       "measure b, at noise level zero, with the two-item universal front for reference.")


class FrontExplorer:
    """Sliders for the noise Δ, the number of items n and the ball measure b: the curve of
    Theorem 3 for (Δ, n) traced by b, and the point at the chosen b, on the (p_I, p_S) plane.
    Displays itself: interactive HTML in the book and in Jupyter, a PNG elsewhere."""

    def __init__(self, deltas, ns, n_b: int = 51):
        self.deltas, self.ns = np.asarray(deltas, dtype=float), np.asarray(ns)
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

    def figure(self, delta_index: int = 0, n_index: int = 0, b_index: int | None = None):
        """The static version: every item count at one noise level, and the chosen point."""
        b_index = len(self.bs) // 4 if b_index is None else b_index
        fig, ax = splot.subplots(figsize=(6.0, 4.2))
        p_i = np.linspace(0.5, 1.0, 101)
        ax.plot(p_i, theory.front(p_i), color=splot.THEORY_ALT, ls="--", lw=1.2,
                label="two-item front, Δ = 0")
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
    """The chapter-1 explorer: noise Δ from 0 to 0.5 and n from 2 to 10 unless given."""
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
    parts.append(f'<polyline points="{pts}" class="ref"/>')
    parts.append(f'<rect x="{_L}" y="{_T}" width="{_W}" height="{_H}" class="f"/>')
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
