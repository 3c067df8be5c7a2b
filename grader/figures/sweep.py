"""The γ sweep of `grader bench` (``--plot``) and notebook 6: measured speedup and tokens per
target call against γ, each beside Leviathan et al.'s theory."""


def save(bench, target: str, path: str) -> None:
    """The figure of ``bench``'s sweep (a grader.bench.results.Comparison), written to ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = figure(bench, target)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def figure(bench, target: str):
    """Measured speedup and tokens per target call against γ, each beside its theory, from
    ``bench`` (a grader.bench.results.Comparison); the title names the ``target`` model."""
    import matplotlib.pyplot as plt

    gammas = list(bench.sweep)
    rows = list(bench.sweep.values())
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(gammas, [r.speedup_vs_autoregressive for r in rows], "o-", label="measured")
    left.plot(gammas, [r.theory_speedup for r in rows], "--", label="theory")
    left.set(xlabel="γ (drafts per round)", ylabel="speedup over autoregressive", title="Speedup")
    right.plot(gammas, [r.tokens_per_target_call for r in rows], "o-", label="measured")
    right.plot(gammas, [r.theory_tokens_per_target_call for r in rows], "--", label="theory")
    right.plot(gammas, [r.length_limited_theory_tokens_per_target_call for r in rows], ":",
               label="theory, last rounds cut by the length limit")
    right.set(xlabel="γ (drafts per round)", ylabel="tokens per target call", title="Tokens per target call")
    for ax in (left, right):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.suptitle(f"{target}, α = {bench.alpha:.2f}, c = {bench.cost_ratio_c:.2f}")
    fig.tight_layout()
    return fig
