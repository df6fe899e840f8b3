"""Tuning curves: the best cycles found against the trials spent, one curve per search
(task, tuner, seed), from a log's records; `tessera plot-log` draws them as a PNG."""


def tuning_curves(records):
    """{task key text: {(tuner, seed): [best cycles after trial 0, 1, ...]}}. A trial that did
    not run keeps the best so far (None until one ran)."""
    from .summary import task_text
    searches = {}
    for r in records:
        key = task_text(r["task"])
        searches.setdefault(key, {}).setdefault((r["tuner"], r["seed"]), {})[r["trial"]] = r
    curves = {}
    for key in sorted(searches):
        curves[key] = {}
        for search in sorted(searches[key]):
            trials = searches[key][search]
            best, curve = None, []
            for i in range(max(trials) + 1):
                res = trials[i]["result"] if i in trials else None
                if res is not None and res["status"] == "ok":
                    best = res["cycles"] if best is None else min(best, res["cycles"])
                curve.append(best)
            curves[key][search] = curve
    return curves


def plot_tuning_curves(records, path, title=None):
    """Writes a PNG of the tuning curves: one panel per task, one line per tuner and seed.
    Returns the number of curves drawn."""
    import matplotlib
    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    curves = tuning_curves(records)
    if not curves:
        raise ValueError("the log has no record to plot")
    n = len(curves)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    drawn = 0
    for ax, (key, searches) in zip(axes.flat, curves.items()):
        for (tuner, seed), curve in searches.items():
            xs = [i + 1 for i, c in enumerate(curve) if c is not None]
            ys = [c for c in curve if c is not None]
            ax.step(xs, ys, where="post", label=f"{tuner} seed {seed}")
            drawn += 1
        ax.set_title(key if len(key) <= 60 else key[:57] + "...", fontsize=8)
        ax.set_xlabel("trials")
        ax.set_ylabel("best cycles")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return drawn
