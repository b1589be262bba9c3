#!/usr/bin/env python3
"""Branin as an hpt trial: prints a few training-like steps, then loss=<value>.

Branin's global minimum is 0.397887, at (-pi, 12.275), (pi, 2.275) and
(9.42478, 2.475). Only the standard library is used.
"""
import argparse
import math
import time


def branin(x1: float, x2: float) -> float:
    a, b, c = 1.0, 5.1 / (4 * math.pi ** 2), 5 / math.pi
    r, s, t = 6.0, 10.0, 1 / (8 * math.pi)
    return a * (x2 - b * x1 ** 2 + c * x1 - r) ** 2 + s * (1 - t) * math.cos(x1) + s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--x1", type=float, required=True)
    parser.add_argument("--x2", type=float, required=True)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()

    loss = branin(args.x1, args.x2)
    # Pretend to train: the loss falls towards its final value step by step.
    for step in range(1, args.steps + 1):
        print(f"step={step} loss={loss * (1 + (args.steps - step) / args.steps):.6f}",
              flush=True)
        time.sleep(0.05)
    print(f"loss={loss:.6f}", flush=True)


if __name__ == "__main__":
    main()
