#!/usr/bin/env python3
"""A trial that fails for large learning rates, to show failure handling.

With --lr above 0.05 the "training" diverges: it prints a few lines, an error
on stderr, and exits with status 3 (hpt marks the trial Failed and keeps the
exit code and the log's tail). Otherwise it prints loss=<value> and exits 0.
"""
import argparse
import math
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lr", type=float, required=True)
    args = parser.parse_args()

    loss = (math.log10(args.lr) + 2.5) ** 2 + 0.1
    print(f"training with lr={args.lr:g}", flush=True)
    if args.lr > 0.05:
        print(f"step=1 loss={loss * 10:.6f}", flush=True)
        print(f"error: loss diverged at step 2 (lr={args.lr:g} is too large)",
              file=sys.stderr, flush=True)
        sys.exit(3)
    print(f"step=1 loss={loss * 2:.6f}", flush=True)
    print(f"loss={loss:.6f}", flush=True)


if __name__ == "__main__":
    main()
