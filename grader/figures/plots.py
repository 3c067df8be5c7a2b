"""The notebooks' figures, one call each, so that a lesson's cell shows what it measures
and not how it is drawn. Each function draws on a new figure and returns it; Jupyter
shows it once the cell ends (``plt.show()`` elsewhere)."""
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch, Rectangle

from grader.figures import batch_picture
from grader.figures.round_colours import KIND_COLOURS
from solutions.trees import tree_parents

FATE_COLOURS = {**KIND_COLOURS, "discarded": "#eeeeee"}  # drafts after a round's rejection


def forwards(rounds: list, word) -> plt.Figure:
    """Lesson 3: each forward of a run in call order, the drafter's drafts below (accepted,
    the rejected one, the discarded ones after it) and the target's token above, with
    accepted / drafted over each target forward. ``word(token) -> str`` labels a token."""
    fig, ax = plt.subplots(figsize=(14, 2.8))
    x = 0.0
    for r in rounds:
        for i, d in enumerate(r.drafts):  # one drafter forward per draft
            fate = "accepted" if i < r.accepted else "rejected" if i == r.accepted else "discarded"
            ax.add_patch(Rectangle((x, 0), 0.95, 0.9, color=FATE_COLOURS[fate]))
            ax.text(x + 0.47, 0.45, word(d), ha="center", va="center", fontsize=8)
            x += 1
        ax.add_patch(Rectangle((x, 1.1), 0.95, 0.9, color=FATE_COLOURS[r.kinds[-1]]))  # one target forward
        ax.text(x + 0.47, 1.55, word(r.tokens[-1]), ha="center", va="center", fontsize=8)
        ax.text(x + 0.47, 2.15, f"{r.accepted}/{len(r.drafts)}", ha="center", fontsize=8)
        x += 1.4
    ax.set(xlim=(-0.2, x), ylim=(-0.2, 2.5), xticks=[],
           xlabel="forward passes in call order (accepted / drafted above each target forward)")
    ax.set_yticks([0.45, 1.55], ["drafter", "target"])
    ax.legend(handles=[Patch(color=FATE_COLOURS[k], label=k) for k in
                       ("accepted", "rejected", "discarded", "correction", "bonus", "target")],
              ncol=6, loc="upper center", bbox_to_anchor=(0.5, -0.25), frameon=False)
    return fig


def cost_per_token(results: dict, methods: tuple, c: float) -> plt.Figure:
    """Lesson 5: cost per generated token, in target forwards, against the relative cost c
    of a drafter forward, per processor, text and method. ``results[processor, text,
    method]`` holds the run's ``target``, ``drafter`` forwards and ``tokens``; the pair's
    measured ``c`` is drawn as a vertical line."""
    cs = np.linspace(0, 0.5, 51)
    processors = list(dict.fromkeys(key[0] for key in results))
    texts = list(dict.fromkeys(key[1] for key in results))
    fig, axes = plt.subplots(1, len(processors), figsize=(12, 3.5), sharey=True)
    for ax, processor in zip(axes, processors):
        for text, style in zip(texts, ("-", "--", ":")):
            for method, colour in zip(methods, ("C0", "C2", "C1")):
                r = results[processor, text, method]
                ax.plot(cs, (r["target"] + cs * r["drafter"]) / r["tokens"], style, color=colour,
                        label=f"{method}, {text}")
        ax.axhline(1, color="k", lw=0.8, ls=":")
        ax.axvline(c, color="grey", lw=0.8)
        ax.set(title=processor, xlabel="c = cost of a drafter forward / cost of a target forward")
    axes[0].set_ylabel("cost per token (target forwards)")
    axes[-1].legend(fontsize=7, loc="upper left")
    return fig


BATCH_COLOURS = ["#f2f2f2", "#a0c4ff", "#cfe1b9", "#ffd6d6", "#52b788", "#e5383b", "#ffb703", "#bdbdbd"]
LABELLED = {"accepted draft", "rejected draft (hole)", "the round's new token"}  # cells with their token


def batch_rounds(rounds: list, indexes: tuple[int, ...], prompt_lengths: list[int], word) -> plt.Figure:
    """Lesson 8: what every cache column of every row holds after the rounds ``indexes``
    of a recorded run (``batch_picture.record_rounds``), the round's own cells labelled
    with their tokens."""
    fig, axes = plt.subplots(len(indexes), 1, figsize=(13, 2.8 * len(indexes)), sharex=True)
    width = max(rounds[i].mask.shape[1] for i in indexes) + 1
    for ax, index in zip(axes, indexes):
        round_ = rounds[index]
        kinds = batch_picture.cell_kinds(round_, prompt_lengths)
        ax.imshow(kinds, cmap=ListedColormap(BATCH_COLOURS), vmin=0, vmax=len(BATCH_COLOURS) - 1,
                  aspect="auto", interpolation="none")
        columns = kinds.shape[1]
        for b in range(kinds.shape[0]):  # the tokens of this round's columns
            for c in range(columns - round_.draft_columns - 1, columns):
                token = round_.new[b] if c == columns - 1 else int(round_.ids[b, c])
                if token is not None and batch_picture.KINDS[kinds[b, c]] in LABELLED:
                    ax.text(c, b, word(token), ha="center", va="center", fontsize=6)
        rows = len(prompt_lengths)
        ax.set_xticks(np.arange(-0.5, width), minor=True)
        ax.set_yticks(np.arange(-0.5, rows), minor=True)
        ax.grid(which="minor", color="white", linewidth=1)
        ax.tick_params(which="minor", length=0)
        ax.set_yticks(range(rows), [f"row {b}" for b in range(rows)])
        kept = ", ".join(str(n) if run else "-" for n, run in zip(round_.kept, round_.running))
        ax.set_title(f"after round {index + 1}: {round_.drafts} drafts, kept per row {kept}", fontsize=10)
    axes[-1].set(xlim=(-0.5, width - 0.5), xlabel="cache column")
    fig.legend(handles=[Patch(color=c, label=kind) for c, kind in zip(BATCH_COLOURS, batch_picture.KINDS)],
               loc="lower center", ncol=4, frameon=False, fontsize=9)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    return fig


def knee(steps: list, verifications: list, gamma: int, title: str) -> plt.Figure:
    """Lesson 8: ms per target forward against the tokens it scores, a decode step and a
    verification of ``gamma`` + 1 tokens per row for each batch size (arrows join them),
    with the fit ms ≈ fixed + per token · tokens and its knee, fixed / per token, where both
    are positive. ``steps``, ``verifications``: (tokens scored, ms) per batch size."""
    tokens, ms = np.array(steps + verifications).T
    per_token, fixed = np.polyfit(tokens, ms, 1)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(*zip(*steps), "o", label="decode step: B rows × 1 token")
    ax.plot(*zip(*verifications), "s", label=f"verification: B rows × {gamma + 1} tokens")
    for (b, step), (scored, verify) in zip(steps, verifications):
        ax.annotate("", (scored, verify), (b, step), arrowprops={"arrowstyle": "->", "color": "C2", "alpha": 0.6})
        ax.annotate(f"B={b}", (scored, verify), textcoords="offset points", xytext=(4, -10), fontsize=8)
    if per_token > 0 and fixed > 0:
        span = np.geomspace(1, 4 * tokens.max(), 100)
        ax.plot(span, fixed + per_token * span, "--", color="grey", label="fit: fixed + per token")
        ax.plot(span, np.full_like(span, fixed), ":", color="grey")
        ax.plot(span, per_token * span, ":", color="grey")
        ax.axvline(fixed / per_token, color="C3", alpha=0.4, label=f"knee ≈ {fixed / per_token:.0f} tokens")
        ax.set_ylim(fixed / 2, 2 * (fixed + per_token * span[-1]))
    ax.set(xscale="log", yscale="log", xlabel="tokens scored by one target forward", ylabel="ms per forward",
           title=title)
    ax.legend(fontsize=8)
    return fig


def tree_and_mask(text_tail: list[int], nodes: list[int], parents: list[int], depths, mask, path: list[int],
                  emitted: int, word) -> plt.Figure:
    """Lesson 9: one round's tree (the accepted ``path`` green, other nodes red, the target's
    ``emitted`` token after it) beside its attention mask over the last text tokens
    ``text_tail`` and the nodes. ``path`` holds the accepted nodes' rows (node + 1)."""
    depth, count = int(max(depths)), len(nodes)
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5), gridspec_kw={"width_ratios": [1.3, 1]})
    place = {-1: (0, 0.0)}  # node -> (depth, height); the root is the text's last token
    for d in range(1, depth + 1):
        level = [i for i in range(count) if depths[i] == d]
        for rank, i in enumerate(level):
            place[i] = (d, (len(level) - 1) / 2 - rank)
    on_path = {row - 1 for row in path}
    for i, parent in enumerate(parents):
        (x0, y0), (x1, y1) = place[parent], place[i]
        left.plot([x0, x1], [y0, y1], color="C2" if i in on_path else "0.75", lw=2.5 if i in on_path else 1,
                  zorder=1)
    for i, (x, y) in place.items():
        colour = "#e5e5e5" if i < 0 else "#b7e4c7" if i in on_path else "#ffadad"
        left.text(x, y, word(text_tail[-1] if i < 0 else nodes[i]), ha="center", va="center",
                  family="monospace", zorder=2, bbox=dict(boxstyle="round", fc=colour, ec="0.5"))
    last = place[path[-1] - 1] if path else place[-1]
    left.annotate(word(emitted), xy=last, xytext=(last[0] + 0.8, last[1]), ha="center", va="center",
                  family="monospace", arrowprops=dict(arrowstyle="<-", color="C0"),
                  bbox=dict(boxstyle="round", fc="#a0c4ff" if len(path) == depth else "#ffd6a5", ec="0.5"))
    left.set(xlim=(-0.5, depth + 1.3), xticks=range(depth + 1), yticks=[],
             xticklabels=["root (last text token)"] + [f"depth {d}" for d in range(1, depth + 1)],
             title="the tree: accepted path green, rejected nodes red, the target's own token after it")
    shown = len(text_tail)
    full = np.tril(np.ones((shown + count, shown + count)))
    full[shown:, shown:] = np.asarray(mask, dtype=float)
    right.imshow(full, cmap="Greens")
    labels = [word(t) for t in text_tail] + [f"{i}:{word(t)}" for i, t in enumerate(nodes)]
    right.set(xticks=range(len(labels)), yticks=range(len(labels)), title="attention mask (row attends to column)")
    right.set_xticklabels(labels, rotation=90, family="monospace")
    right.set_yticklabels(labels, family="monospace")
    fig.tight_layout()
    return fig


def tree_against_chain(measured: dict, shapes: tuple) -> plt.Figure:
    """Lesson 9: tokens per target forward of each tree shape and of a chain of as many
    drafts, per processor; ``measured[processor, shape] = (tree, chain)``."""
    processors = list(dict.fromkeys(key[0] for key in measured))
    fig, axes = plt.subplots(1, len(processors), figsize=(11, 3.5), sharey=True)
    sizes = [len(tree_parents(b)) for b in shapes]  # drafted nodes: b_0 + b_0 b_1 + …
    for ax, name in zip(axes, processors):
        ax.plot(sizes, [measured[name, b][0] for b in shapes], "o-", label="tree")
        ax.plot(sizes, [measured[name, b][1] for b in shapes], "s--", label="chain of as many drafts")
        for b, size in zip(shapes, sizes):
            ax.annotate(str(b), (size, measured[name, b][0]), textcoords="offset points", xytext=(4, 4), fontsize=8)
        ax.set(title=name, xlabel="drafted nodes per round")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("tokens per target forward")
    axes[0].legend()
    return fig
