#!/usr/bin/env python3
"""The summary of `scripts/gpu-bench.sh measure`: its OUT/rows.csv (one line per bench run: the
label, then the CSV row of `pcglab bench pcgrl-ppo`, or "FAILED rc=N").

  gpu_bench_summary.py best ROWS   # the fastest float32 variant's name (median over its runs)
  gpu_bench_summary.py table ROWS  # the agreement and timing tables, markdown
"""
import csv
import statistics
import sys

OFFICIAL = 55245  # the official JAX loop on an H100 (../shared/reference/pcgrl.md §6)
COLUMNS = [
    "device", "first_layers", "options", "envs", "rollout", "epochs", "minibatches", "train_threads",
    "updates", "rounds", "median_env_steps_per_s", "median_update_share", "median_evaluate_share",
    "median_env_share", "last_policy_loss", "last_value_loss", "last_entropy"
]
LOSSES = ["last_policy_loss", "last_value_loss", "last_entropy"]


def read(path):
    """[(label, row dict or None when the run failed)] in file order."""
    runs = []
    with open(path, newline="") as f:
        for fields in csv.reader(f):
            if not fields:
                continue
            label, rest = fields[0], fields[1:]
            runs.append((label, dict(zip(COLUMNS, rest)) if len(rest) == len(COLUMNS) else None))
    return runs


def timings(runs):
    """{variant: [env steps/s of each run]} for the time_* runs, in first-run order."""
    out = {}
    for label, row in runs:
        if label.startswith("time_"):
            rates = out.setdefault(label[len("time_"):], [])
            if row is not None:
                rates.append(float(row["median_env_steps_per_s"]))
    return out


def best(runs):
    rates = {v: statistics.median(r) for v, r in timings(runs).items() if r and v != "bf16"}
    return max(rates, key=rates.get) if rates else "base"


def table(runs):
    lines = ["| check | options | policy loss | value loss | entropy | largest relative difference to the CPU |",
             "|---|---|---|---|---|---|"]
    cpu = next((row for label, row in runs if label == "agree_cpu" and row is not None), None)
    for label, row in runs:
        if not label.startswith("agree_"):
            continue
        if row is None:
            lines.append(f"| {label} | FAILED | | | | |")
            continue
        diff = ""
        if cpu is not None and label != "agree_cpu":
            diff = "%.2e" % max(abs(float(row[k]) - float(cpu[k])) / max(abs(float(cpu[k])), 1e-12) for k in LOSSES)
        lines.append(f"| {label} | {row['options']} | {row['last_policy_loss']} | {row['last_value_loss']} | "
                     f"{row['last_entropy']} | {diff} |")
    lines += ["", "| variant | options | runs (env steps/s) | median | vs base | vs official 55,245 | update share |",
              "|---|---|---|---|---|---|---|"]
    rates = timings(runs)
    base = statistics.median(rates["base"]) if rates.get("base") else None
    for variant, values in rates.items():
        rows = [row for label, row in runs if label == "time_" + variant and row is not None]
        if not values:
            lines.append(f"| {variant} | FAILED | | | | | |")
            continue
        m = statistics.median(values)
        share = statistics.median(float(r["median_update_share"]) for r in rows)
        vs_base = "%.3f" % (m / base) if base else ""
        lines.append(f"| {variant} | {rows[0]['options']} | {' / '.join('%.0f' % v for v in values)} | "
                     f"{m:.0f} | {vs_base} | {m / OFFICIAL:.3f} | {share:.2f} |")
    return "\n".join(lines)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("best", "table"):
        sys.exit(__doc__)
    runs = read(sys.argv[2])
    print(best(runs) if sys.argv[1] == "best" else table(runs))


if __name__ == "__main__":
    main()
