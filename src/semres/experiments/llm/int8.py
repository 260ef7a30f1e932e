"""Int8 matmuls for a causal LM on a CPU (chapter 5's scorer): each linear layer's weights
and inputs rounded to int8 per row and per token, its outlier input channels kept in float32
(LLM.int8()'s decomposition), the products in ``torch._int_mm``.
"""

from __future__ import annotations

import copy
import functools

import numba
import numpy as np


#: Input channels of each linear layer kept in float32 by the int8 path: the ``INT8_KEEP``
#: largest on calibration prompts (outliers that would set every other channel's int8 step), and
#: ``INT8_KEEP_WIDE`` where the input is wider than the output (an MLP's down projection, whose
#: input is the most heavy-tailed: SmolLM2-135M fails the precision check without them).
INT8_KEEP = 32
INT8_KEEP_WIDE = 256

#: tokens quantised and multiplied at a time (the float outputs of a chunk stay in cache), and
#: the largest scratch (bytes) kept between calls: an LM head's is made per call
_INT8_ROWS = 512
_INT8_SCRATCH = 64 << 20
#: linear layers that read one input: quantised once, multiplied as one matrix
_SIBLINGS = (("q_proj", "k_proj", "v_proj"), ("gate_proj", "up_proj"))
#: an MLP's layers, down(act(gate(x)) * up(x)): its down projection's outlier channels are moved
#: last (gate's and up's rows reordered to match), so that its int8 part is a slice of the input,
#: not a masked copy, and its outliers a slice, not a gather (13% less time in Qwen's)
_MLP = ("gate_proj", "up_proj", "down_proj")


def outlier_channels(net, run, *, keep: int = INT8_KEEP, keep_wide: int = INT8_KEEP_WIDE) -> dict:
    """The input channels each linear layer of ``net`` keeps in float32 on the int8 path: the
    largest ``|input|`` of each channel while ``run()`` scores calibration prompts, the top
    ``keep`` (``keep_wide`` where the input is wider than the output) by name of the layer."""
    import torch

    top, hooks = {}, []
    for name, mod in net.named_modules():
        if isinstance(mod, torch.nn.Linear):
            def hook(_mod, inputs, _out, name=name):
                x = inputs[0].detach()
                m = x.reshape(-1, x.shape[-1]).abs().amax(0).float()
                top[name] = torch.maximum(top[name], m) if name in top else m
            hooks.append(mod.register_forward_hook(hook))
    try:
        run()
    finally:
        for h in hooks:
            h.remove()
    sizes = {n: m for n, m in net.named_modules() if isinstance(m, torch.nn.Linear)}
    out = {}
    for name, m in top.items():
        lin = sizes[name]
        k = keep_wide if lin.in_features > lin.out_features else keep
        out[name] = sorted(int(i) for i in m.topk(min(k, len(m))).indices)
    return out


def quantise_int8(net, channels: dict):
    """A copy of ``net`` whose linear layers (LM head included) multiply in int8."""
    import torch

    memo = {id(t): t for t in (*net.parameters(), *net.buffers())}
    out = copy.deepcopy(net, memo)
    names = {id(m): n for n, m in out.named_modules()}
    scratch: dict = {}
    layer = _int8_linear_class()
    for parent in list(out.modules()):
        children = dict(parent.named_children())
        groups = [[n for n in sib if isinstance(children.get(n), torch.nn.Linear)]
                  for sib in _SIBLINGS]
        groups = [g for g in groups if len(g) > 1]
        grouped = {n for g in groups for n in g}
        groups += [[n] for n, c in children.items()
                   if isinstance(c, torch.nn.Linear) and n not in grouped]
        order = _hidden_order(children, channels, names)
        for group in groups:
            linears = [children[n] for n in group]
            keep = channels.get(names[id(linears[0])], ())
            if order is None or not set(group) & set(_MLP):
                shared = _Int8Group(linears, keep, scratch)
            elif group == ["down_proj"]:
                shared = _Int8Group(linears, keep, scratch, columns=order)
            else:
                shared = _Int8Group(linears, keep, scratch, rows=order)
            for i, (n, lin) in enumerate(zip(group, linears)):
                setattr(parent, n, layer(shared, i, lin.in_features, lin.out_features))
    return out


def _hidden_order(children: dict, channels: dict, names: dict):
    """An MLP's hidden channels with its down projection's outliers last (each part in its
    order), or None where ``children`` is not an MLP or its down projection keeps none (or
    all)."""
    import torch

    if not all(isinstance(children.get(n), torch.nn.Linear) for n in _MLP):
        return None
    keep = sorted(int(i) for i in channels.get(names[id(children["down_proj"])], ()))
    if not 0 < len(keep) < children["down_proj"].in_features:
        return None
    quantised = torch.ones(children["down_proj"].in_features, dtype=torch.bool)
    quantised[keep] = False
    return torch.cat([torch.nonzero(quantised).view(-1), torch.as_tensor(keep)])


class _Int8Group:
    """Linear layers reading one input, as one int8 matrix with float32 outlier columns."""

    def __init__(self, linears, keep, scratch: dict, *, rows=None, columns=None):
        import torch

        w = torch.cat([lin.weight.detach().float()[slice(None) if rows is None else rows]
                       for lin in linears])
        self.sizes = [lin.out_features for lin in linears]
        keep = torch.as_tensor(sorted(int(i) for i in keep), dtype=torch.long)
        self.split = None
        if columns is not None:
            w = w[:, columns]
            self.split = w.shape[1] - len(keep)
            keep = torch.arange(self.split, w.shape[1])
        rest = torch.ones(w.shape[1])
        rest[keep] = 0.0
        w_rest = w * rest if self.split is None else w[:, :self.split]
        self.wscale = w_rest.abs().amax(1).clamp_min(1e-30) / 127
        self.wq = torch.round(w_rest / self.wscale[:, None]).to(torch.int8).t()  # (in, out)
        self.rest = rest if len(keep) and self.split is None else None
        self.keep = keep if len(keep) and self.split is None else None
        self.wkeep = w[:, keep].t().contiguous() if len(keep) else None
        b = [lin.bias for lin in linears]
        self.bias = torch.cat(  # zeros where none: added by a fused multiply-add, exact
            [torch.zeros(n) if c is None else
             c.detach().float()[slice(None) if rows is None else rows]
             for c, n in zip(b, self.sizes)])
        self.scratch = scratch
        self.pending = None  # (input, outputs not yet taken by their layer)

    def output(self, i: int, x):
        """Layer ``i``'s output; its siblings' for the same ``x`` are kept until they ask."""
        if self.pending is not None and self.pending[0] is x and self.pending[1][i] is not None:
            outs = self.pending[1]
        else:
            outs = self._forward(x)
            self.pending = (x, outs) if len(outs) > 1 else None
        out, outs[i] = outs[i], None
        if self.pending is not None and all(o is None for o in outs):
            self.pending = None
        return out

    def _buffer(self, rows: int, width: int, dtype):
        import torch

        if rows * width * 4 > _INT8_SCRATCH:
            return torch.empty((rows, width), dtype=dtype)
        key = (width, dtype)
        buf = self.scratch.get(key)
        if buf is None or buf.shape[0] < rows:
            buf = self.scratch[key] = torch.empty((_INT8_ROWS, width), dtype=dtype)
        return buf[:rows]

    def _forward(self, x) -> list:
        import torch

        shape = x.shape
        x2 = x.reshape(-1, shape[-1]).float()
        total, width = x2.shape
        narrow = width if self.split is None else self.split
        y = torch.empty(total, sum(self.sizes))
        rows = min(_INT8_ROWS, total)
        xr_all, q_all, i_all = (self._buffer(rows, w, t) for w, t in (
            (narrow, torch.float32), (narrow, torch.int8), (y.shape[1], torch.int32)))
        for a in range(0, total, rows):
            xc = x2[a:a + rows]
            m = xc.shape[0]
            xr, q, i32, yc = xr_all[:m], q_all[:m], i_all[:m], y[a:a + m]
            part = xr
            if self.split is not None:
                part = xc[:, :narrow]  # the outlier channels are the last: out of the slice
            elif self.rest is None:
                xr.copy_(xc)
            else:
                torch.mul(xc, self.rest, out=xr)  # the outlier channels out of the int8 part
            scale = torch.maximum(part.amax(1, keepdim=True), part.amin(1, keepdim=True).neg_())
            scale.clamp_(min=1e-30).div_(127)
            q.copy_(torch.div(part, scale, out=xr).round_())
            torch._int_mm(q, self.wq, out=i32)
            outliers = (xc.index_select(1, self.keep) if self.keep is not None else
                        xc[:, narrow:].contiguous() if self.wkeep is not None else None)
            if outliers is not None:  # the outlier channels' product first, then added to
                torch.mm(outliers, self.wkeep, out=yc)
            _dequantise(i32.numpy(), self.wscale.numpy(), scale.view(-1).numpy(),
                        self.bias.numpy(), yc.numpy(), outliers is not None)
        return [o.view(*shape[:-1], o.shape[-1]) for o in y.split(self.sizes, dim=1)]


# The output side of an int8 layer in one pass over the output (numba; with torch it took three
# or four passes): y = int32 product x its weight row's scale x its token's scale + bias, + y
# when y holds the outlier channels' float product. The arithmetic is torch's, in its order: the
# bias by a fused multiply-add as torch.addcmul does here, and where a layer has none, an fma
# with 0 is the product rounded once, as torch's multiply; so the scores are unchanged to the
# last bit (tested).

@numba.njit(cache=True, nogil=True, fastmath={"contract"})
def _dequantise(i32, wscale, scale, bias, y, add):
    for r in range(i32.shape[0]):
        s = scale[r]
        for c in range(i32.shape[1]):
            v = (np.float32(i32[r, c]) * wscale[c]) * s + bias[c]
            if add:
                v = v + y[r, c]
            y[r, c] = v


@functools.lru_cache(maxsize=1)
def _int8_linear_class():
    """The module class of one int8 layer (made on first use: torch is imported lazily)."""
    import torch

    class Int8Linear(torch.nn.Module):
        """One linear layer of an int8 group (:func:`quantise_int8`)."""

        def __init__(self, group, i, in_features, out_features):
            super().__init__()
            self.group, self.i = group, i
            self.in_features, self.out_features = in_features, out_features

        def forward(self, x):
            return self.group.output(self.i, x)

        def extra_repr(self) -> str:
            return f"in_features={self.in_features}, out_features={self.out_features}, int8"

    return Int8Linear


def precompile() -> None:
    """Compile the one-pass output kernel once into numba's on-disk cache (``make`` calls this
    with the engine's :func:`semres.core.simulate.precompile`), for the types the layers pass."""
    i32, vec, y = np.zeros((2, 3), np.int32), np.ones(3, np.float32), np.zeros((2, 3), np.float32)
    for add in (False, True):
        _dequantise(i32, vec, vec[:2], vec, y, add)
