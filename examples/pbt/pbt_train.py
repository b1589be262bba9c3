#!/usr/bin/env python3
"""One segment of a PBT member's training, in the spirit of Katib's
simple-pbt trial (examples/v1beta1/trial-images/simple-pbt/pbt_test.py).

A toy model whose accuracy grows fastest when the learning rate follows a
schedule that depends on the accuracy reached so far (low, then high, then
low again), so that no fixed learning rate does as well as the schedule PBT
discovers. Each run resumes the checkpoint in --checkpoint (default
$HPT_CHECKPOINT_DIR) when there is one, trains --epochs steps, saves the
checkpoint there and prints `Validation-accuracy=...`. hpt gives each trial
its own folder, a copy of its parent's: `resumed_step` says where it
started, and the checkpoint's `lineage` lists every trial that trained it.
Python 3 standard library only; a run takes a few milliseconds.
"""

import argparse
import json
import os
import random
import sys

CHECKPOINT_FILE = "training.json"


def best_lr(accuracy):
    """The learning rate that trains fastest at this accuracy (0..1)."""
    peak = 0.5  # the best rate rises until here, then falls
    if accuracy < peak:
        lr = 0.01 * accuracy / peak
    else:
        lr = 0.01 - 0.01 * (accuracy - peak) / peak
    return min(0.01, max(0.001, lr))


def train_step(accuracy, lr, rng):
    """One epoch: a gain that shrinks as lr strays from best_lr."""
    ratio = max(lr, best_lr(accuracy)) / max(min(lr, best_lr(accuracy)), 1e-12)
    if ratio < 3:
        accuracy += 0.02 * rng.random() / ratio
    elif lr > best_lr(accuracy):
        accuracy -= 0.002 * (ratio - 3) * rng.random()
    accuracy += 0.002 * rng.gauss(0, 1)
    return min(1.0, max(0.0, accuracy))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--checkpoint", default=os.environ.get("HPT_CHECKPOINT_DIR", ""),
                        help="checkpoint folder (resumed and saved)")
    args = parser.parse_args()
    if not args.checkpoint:
        sys.exit("no checkpoint folder: pass --checkpoint or set HPT_CHECKPOINT_DIR")

    path = os.path.join(args.checkpoint, CHECKPOINT_FILE)
    state = {"step": 0, "accuracy": 0.0, "lineage": []}
    if os.path.exists(path):
        with open(path) as f:
            state = json.load(f)
    resumed = state["step"]
    trial = os.environ.get("HPT_TRIAL", "local")
    print(f"resuming from step {resumed} (trained by {state['lineage'] or 'nobody'})")

    # Seeded by where the run starts, so that a run can be repeated.
    rng = random.Random(f"{trial}/{resumed}/{args.lr}")
    accuracy = state["accuracy"]
    for _ in range(args.epochs):
        accuracy = train_step(accuracy, args.lr, rng)
        state["step"] += 1
        print(f"step={state['step']} Validation-accuracy={accuracy:.4f}")

    state["accuracy"] = accuracy
    state["lineage"] = state["lineage"] + [trial]
    os.makedirs(args.checkpoint, exist_ok=True)
    with open(path + ".tmp", "w") as f:
        json.dump(state, f)
    os.replace(path + ".tmp", path)
    print(f"resumed_step={resumed}")
    print(f"Validation-accuracy={accuracy:.4f}")


if __name__ == "__main__":
    main()
