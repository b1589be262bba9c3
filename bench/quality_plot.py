#!/usr/bin/python3
"""Plots the quality benchmark's regret curves (quality_curves.json, written
by hpt_bench_quality): one panel per function, the median simple regret
against the number of trials for each algorithm, with the interquartile
range shaded. Usage: quality_plot.py CURVES.json OUT.png"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {"random": ("tab:gray", "random"), "sobol": ("tab:olive", "sobol"),
         "bayesianoptimization": ("tab:blue", "bayesianoptimization (hpt, log EI)"),
         "bayesianoptimization/acq_func=ucb": ("tab:cyan",
                                               "bayesianoptimization (hpt, acq_func=ucb)"),
         "optuna-tpe": ("tab:red", "TPE (Optuna 3.1)"),
         "optuna-tpe-mv": ("tab:pink", "multivariate TPE (Optuna 3.1)"),
         "tpe": ("tab:orange", "tpe (hpt)"),
         "multivariate-tpe": ("tab:brown", "multivariate-tpe (hpt)")}


def main():
    curves_path, out_path = sys.argv[1], sys.argv[2]
    with open(curves_path) as f:
        curves = json.load(f)
    # The benchmark's order (JSON objects come back sorted by name).
    order = ["branin", "hartmann6", "rosenbrock4", "ackley5", "levy5", "mixed"]
    names = [n for n in order if n in curves] + [n for n in curves if n not in order]
    cols = 3
    rows = (len(names) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for i, name in enumerate(names):
        ax = axes[i // cols][i % cols]
        for algorithm, (color, label) in STYLE.items():
            if algorithm not in curves[name]:
                continue
            c = curves[name][algorithm]
            floor = 1e-6
            trials = range(1, len(c["median"]) + 1)
            ax.plot(trials, [max(v, floor) for v in c["median"]], color=color, label=label)
            ax.fill_between(trials, [max(v, floor) for v in c["q25"]],
                            [max(v, floor) for v in c["q75"]], color=color, alpha=0.15)
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("trials")
        ax.set_ylabel("simple regret")
        ax.grid(True, which="both", alpha=0.3)
    for j in range(len(names), rows * cols):
        axes[j // cols][j % cols].axis("off")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(out_path, dpi=100)


if __name__ == "__main__":
    main()
