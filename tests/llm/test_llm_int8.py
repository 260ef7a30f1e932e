"""semres.experiments.llm.int8: the int8 copy of a model, its arithmetic checked against
rounding done by hand, its outlier channels, and a tiny llama scored near float32."""

import numpy as np
import torch
import tiny_lm
from tiny_lm import NAMES, YEARS

from semres.experiments.llm import int8, lm, trials


def _by_hand(lin, keep, x):
    """What an int8 layer must return, in float64: the input's channels but ``keep`` rounded to
    int8 on the token's scale, each weight row on its own, ``keep`` exact."""
    w, x = lin.weight.detach().double(), x.double()
    rest = torch.ones(w.shape[1], dtype=torch.float64)
    rest[keep] = 0
    sw = (w * rest).abs().amax(1, keepdim=True) / 127
    sx = (x * rest).abs().amax(-1, keepdim=True) / 127
    out = (torch.round(x * rest / sx) * sx) @ (torch.round(w * rest / sw) * sw).T
    out += x[..., keep] @ w[:, keep].T
    return out if lin.bias is None else out + lin.bias.double()


def test_int8_layers_round_as_written_and_share_the_models_parameters():
    torch.manual_seed(0)
    net = torch.nn.Sequential()
    net.q_proj, net.k_proj, net.v_proj = (torch.nn.Linear(48, n) for n in (48, 16, 16))
    net.down_proj = torch.nn.Linear(96, 48, bias=False)
    x, wide = torch.randn(3, 700, 48), torch.randn(3, 700, 96)  # more rows than one chunk
    x[..., 5] *= 40  # an outlier channel
    keep = {"q_proj": [5, 7], "down_proj": [0, 1, 2]}
    fast = int8.quantise_int8(net, keep)
    assert fast.q_proj.group is fast.v_proj.group and fast.down_proj.group is not fast.q_proj.group
    with torch.inference_mode():
        got = [fast.q_proj(x), fast.k_proj(x), fast.v_proj(x)]  # one int8 product for three
        for lin, y in zip((net.q_proj, net.k_proj, net.v_proj), got):
            assert (y.double() - _by_hand(lin, [5, 7], x)).abs().max() < 1e-4
        y = fast.down_proj(wide)
        assert (y.double() - _by_hand(net.down_proj, [0, 1, 2], wide)).abs().max() < 1e-4
        # a token's output does not depend on the tokens beside it (its own scale, exact sums)
        assert (fast.down_proj(wide[1:2, 3:4]) - y[1:2, 3:4]).abs().max() < 1e-5
    assert not list(fast.parameters())  # every layer int8, and no float weight copied
    assert all(isinstance(m, torch.nn.Linear) for m in net.children())  # the model is as it was


def test_the_one_pass_output_is_torchs_arithmetic_to_the_last_bit():
    """The numba kernel against the torch sequence it replaced: the int32 product as float,
    times the weight row's scale, times (or fused multiply-added with the bias) the token's
    scale, then the outlier channels' float product added; a layer without a bias exactly as
    the plain product."""
    torch.manual_seed(1)
    for bias in (True, False):
        lins = [torch.nn.Linear(64, n, bias=bias) for n in (64, 16)]
        for keep in ([3, 9], []):
            group = int8._Int8Group(lins, keep, {})
            x = torch.randn(37, 64)
            x[:, 3] *= 30
            got = torch.cat(group._forward(x), dim=1)
            rest = torch.ones(64) if group.rest is None else group.rest
            xr = x * rest
            scale = torch.maximum(xr.amax(1, keepdim=True), xr.amin(1, keepdim=True).neg())
            scale = scale.clamp(min=1e-30) / 127
            q = (xr / scale).round().to(torch.int8)
            want = torch._int_mm(q, group.wq).float() * group.wscale
            bias_of = torch.cat([lin.bias.detach() for lin in lins]) if bias else None
            want = want * scale if bias_of is None else torch.addcmul(bias_of, want, scale)
            if group.keep is not None:
                want.addmm_(x.index_select(1, group.keep), group.wkeep)
            assert torch.equal(got, want), (bias, keep)


def test_outlier_channels_are_the_largest_inputs_wider_layers_keeping_more():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Linear(64, 16))
    x = torch.randn(50, 16)
    x[:, 3] *= 100
    x[7, 11] = 500  # one token is enough
    got = int8.outlier_channels(net, lambda: net(x), keep=2, keep_wide=5)
    assert got["0"] == [3, 11] and len(got["1"]) == 5


def test_the_int8_copy_of_a_tiny_llama_scores_near_float32():
    tok = tiny_lm.tokenizer()
    net = tiny_lm.model(len(tok), 1)
    scorer = lm.Scorer((net, tok))
    tr = trials.balanced_trials("identification", 3, 4, 2, years=YEARS, n_names=len(NAMES))
    prompts, options = lm.paper_prompts(tr, NAMES)
    channels = int8.outlier_channels(
        net, lambda: scorer.logprobs(prompts, options, progress=False), keep=4, keep_wide=8)
    fast = int8.quantise_int8(net, channels)
    assert fast.lm_head.group.wq.dtype == torch.int8  # the LM head too
    assert fast.model.embed_tokens.weight is net.model.embed_tokens.weight  # shared, not copied
    full = scorer.logprobs(prompts, options, progress=False)
    low = scorer.logprobs(prompts, options, groups=tr.group, progress=False, model=fast)
    worst = max(np.abs(a - b).max() for a, b in zip(full, low))
    assert 0 < worst < 0.05, worst  # int8 rounds, a little
    again = scorer.logprobs(prompts[:3], options[:3], progress=False, model=fast)
    assert max(np.abs(a - b).max() for a, b in zip(again, low)) < 1e-5  # batch-independent


def test_an_mlps_reordered_hidden_channels_change_no_output():
    """The copy moves an MLP's down-projection outliers last (gate's and up's rows to match):
    its hidden activations are the model-order ones reordered, and its output is the one the
    groups give in the model's own order, to the last bit."""
    torch.manual_seed(2)
    net = tiny_lm.model(40, 3)
    mlp, name = net.model.layers[1].mlp, "model.layers.1.mlp"
    keep = {"gate_proj": [1, 4], "down_proj": [0, 5, 9, 63]}
    fast = int8.quantise_int8(net, {f"{name}.{k}": v for k, v in keep.items()})
    quick = fast.model.layers[1].mlp
    assert quick.down_proj.group.split == 64 - 4 and isinstance(mlp.down_proj, torch.nn.Linear)
    x = torch.randn(3, 700, 32)  # more rows than one chunk
    x[..., 1] *= 30
    with torch.inference_mode():
        gate, up = int8._Int8Group([mlp.gate_proj, mlp.up_proj], keep["gate_proj"], {})._forward(x)
        hidden = mlp.act_fn(gate) * up
        want = int8._Int8Group([mlp.down_proj], keep["down_proj"], {})._forward(hidden)[0]
        inside = quick.act_fn(quick.gate_proj(x)) * quick.up_proj(x)
        got = quick(x)
    order = [i for i in range(64) if i not in keep["down_proj"]] + keep["down_proj"]
    assert torch.equal(inside, hidden[..., order])
    assert torch.equal(got, want)
