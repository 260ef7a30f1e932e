"""Prompts packed for a causal LM (chapter 5's scorer, :mod:`.lm`): the prompts of a group as
one sequence, a tree of tokens in which every start they share is read once, each token
attending only to its ancestors; then rows batched by length."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Row:
    """One packed sequence: a tree of tokens (every prompt's start read once, options last)."""

    ids: list
    pos: list
    seg: list       # segment of each token: a prompt token (its own), or an option's tokens
    parent: list    # parent segment of each segment (-1 for a root)
    targets: list   # (prompt, option, row index of the predicting token, target token)
    ends: list      # (prompt, row index of its last token)


def pack(pre, opt, common: int, groups, max_row: int) -> list:
    """The prompts of each group (after the ``common`` prefix) as a tree of tokens, each start
    they share read once, then each prompt's options; a group too long for a row spills over."""
    keys = range(len(pre)) if groups is None else [
        g.item() if hasattr(g, "item") else g for g in groups]
    members: dict = {}
    for i, key in enumerate(keys):
        members.setdefault(key, []).append(i)
    rows = []
    for idx in members.values():
        row, nodes, token_of = None, {}, {}
        for i in sorted(idx, key=lambda i: pre[i][common:]):  # neighbours share the most
            tail = pre[i][common:]
            known, seg = 0, -1
            while row is not None and known < len(tail) and (seg, tail[known]) in nodes:
                seg = nodes[seg, tail[known]]
                known += 1
            extra = len(tail) - known + sum(len(o) - 1 for o in opt[i])
            if row is None or (len(row.ids) + extra > max_row and row.ends):
                row, nodes, token_of, known, seg = Row([], [], [], [], [], []), {}, {}, 0, -1
                rows.append(row)
            for t in range(known, len(tail)):  # the tokens this prompt adds
                nodes[seg, tail[t]] = new = len(row.parent)
                row.parent.append(seg)
                row.ids.append(tail[t])
                row.pos.append(common + t)
                row.seg.append(new)
                token_of[new] = len(row.ids) - 1
                seg = new
            last = token_of[seg]
            row.ends.append((i, last))
            for j, o in enumerate(opt[i]):
                row.targets.append((i, j, last, o[0]))
                if len(o) > 1:
                    o_seg = len(row.parent)
                    row.parent.append(seg)
                    for t, token in enumerate(o[:-1]):
                        row.ids.append(token)
                        row.pos.append(common + len(tail) + t)
                        row.seg.append(o_seg)
                        row.targets.append((i, j, len(row.ids) - 1, o[t + 1]))
    return rows


def row_mask(row: Row) -> np.ndarray:
    """Token a may attend to token b (b <= a) when b's segment is a's or one of its ancestors."""
    n_seg = len(row.parent)
    anc = np.eye(n_seg, dtype=bool)
    for s in range(n_seg):  # parents come before their children
        if row.parent[s] >= 0:
            anc[s] |= anc[row.parent[s]]
    seg = np.asarray(row.seg)
    return anc[seg[:, None], seg[None, :]] & np.tri(len(seg), dtype=bool)


def token_batches(lengths, budget: int) -> list:
    """Row indices in batches of similar length, each at most ``budget`` padded tokens."""
    order = np.argsort(lengths, kind="stable")
    batches, cur, width = [], [], 0
    for i in order:
        w = max(width, lengths[i])
        if cur and w * (len(cur) + 1) > budget:
            batches.append(cur)
            cur, w = [], lengths[i]
        cur.append(int(i))
        width = w
    if cur:
        batches.append(cur)
    return batches


def length_batches(lengths, size: int) -> list:
    """Indices in batches of at most ``size`` sharing one length (no padding, no mask needed)."""
    groups = {}
    for i, n in enumerate(lengths):
        groups.setdefault(n, []).append(i)
    return [idx[s:s + size] for _, idx in sorted(groups.items())
            for s in range(0, len(idx), size)]


def common_prefix(seqs) -> int:
    """Length of the token prefix all ``seqs`` share, leaving each at least one token."""
    n = min(len(s) for s in seqs) - 1
    first = seqs[0]
    for s in seqs[1:]:
        k = 0
        while k < n and s[k] == first[k]:
            k += 1
        n = k
    return max(n, 0)
