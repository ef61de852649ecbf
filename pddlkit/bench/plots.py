"""PNG plots of a sweep (matplotlib, extra ``bench``): success vs difficulty per agent, one
panel per environment; and cost vs success, one point per agent and environment.

Cost is dollars per episode when any call was priced; otherwise LLM tokens per episode; and
for offline agents, which spend neither, environment actions per episode, so the plot still
shows effort against success. The axis label says which.
"""

from __future__ import annotations

from pathlib import Path

from .report import (agents_in_order, envs_in_order, groups, labelled, levels,
                     success_by_difficulty)


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise RuntimeError("plots need matplotlib: pip install 'pddlkit[bench]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def success_vs_difficulty(rows: list[dict], path: Path) -> Path:
    plt = _pyplot()
    envs = envs_in_order(rows)
    fig, axes = plt.subplots(1, len(envs), figsize=(5.5 * len(envs), 4), squeeze=False)
    table = success_by_difficulty(rows)
    for ax, env in zip(axes[0], envs):
        lv = levels(rows, env)
        for i, agent in enumerate(agents_in_order(rows)):
            cells = table[env].get(agent)
            if not cells:
                continue
            ys = [100.0 * cells[d][0] / cells[d][1] if d in cells else float("nan") for d in lv]
            # overlapping agents stay visible: later ones are thinner, with other markers
            ax.plot(range(len(lv)), ys, marker="osD^v<>p*"[i % 9], label=agent, color=f"C{i}",
                    linestyle=("-", "--", ":", "-.")[i % 4], linewidth=max(1.0, 4.0 - i),
                    markersize=max(4.0, 10.0 - 2 * i))
        ax.set_xticks(range(len(lv)), lv)
        ax.set_ylim(-5, 105)
        ax.set_title(env)
        ax.set_xlabel("difficulty")
        ax.set_ylabel("success (%)")
        ax.grid(alpha=0.3)
    # one legend for the figure, on the first panel: every agent of any panel has its entry
    # (an agent that played only the second environment would otherwise have none)
    handles: dict[str, object] = {}
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, handle)
    order = [agent for agent in agents_in_order(rows) if agent in handles]
    axes[0][0].legend([handles[agent] for agent in order], order, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def cost_vs_success(rows: list[dict], path: Path) -> Path:
    plt = _pyplot()
    gs = groups(rows)
    if any(g.total("cost_usd") for g in gs):
        measure, label = (lambda g: g.mean("cost_usd")), "cost per episode ($)"
    elif any(g.total("prompt_tokens") for g in gs):
        measure, label = (lambda g: g.mean("prompt_tokens") + g.mean("completion_tokens")), \
            "LLM tokens per episode"
    else:
        measure, label = (lambda g: g.mean("actions")), \
            "environment actions per episode (no LLM cost)"
    fig, ax = plt.subplots(figsize=(6, 4.5))
    markers = "osD^v<>p*"
    envs = envs_in_order(rows)
    for i, agent in enumerate(agents_in_order(rows)):
        for g in (g for g in gs if g.agent == agent):
            ax.scatter(measure(g), g.success, s=60, marker=markers[envs.index(g.env) % 9],
                       color=f"C{i}", label=f"{agent} / {g.env}")
    ax.set_xlabel(label)
    ax.set_ylabel("success (%)")
    ax.set_ylim(-5, 105)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_plots(rows: list[dict], folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    rows = labelled(rows)
    return [success_vs_difficulty(rows, folder / "success_vs_difficulty.png"),
            cost_vs_success(rows, folder / "cost_vs_success.png")]
