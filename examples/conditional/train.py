#!/usr/bin/env python3
"""A stand-in training run for examples/conditional/experiment.yaml.

Only the active parameters arrive: --momentum, --nesterov and --dampening
with --optimizer=sgd, --beta1 with adam, --width with 2 or 3 layers. It
checks that, then prints loss=<value> (a made-up function whose best is
sgd with momentum 0.9 and nesterov, lr near 0.01, two layers of width 64).
"""
import argparse
import math
import sys


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--optimizer", choices=["sgd", "adam"], required=True)
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--momentum", type=float)
    parser.add_argument("--nesterov", choices=["true", "false"])
    parser.add_argument("--dampening", type=float)
    parser.add_argument("--beta1", type=float)
    parser.add_argument("--layers", type=int, required=True)
    parser.add_argument("--width", type=int)
    args = parser.parse_args()

    sgd = args.optimizer == "sgd"
    expected = {
        "momentum": sgd, "nesterov": sgd, "beta1": not sgd,
        "dampening": sgd and args.nesterov == "false", "width": args.layers > 1,
    }
    for name, active in expected.items():
        if (getattr(args, name) is not None) != active:
            sys.exit(f"--{name} was {'missing' if active else 'given'} "
                     f"for an {'active' if active else 'inactive'} parameter")

    loss = (math.log10(args.lr) + 2) ** 2
    if sgd:
        loss += (args.momentum - 0.9) ** 2 * 10
        loss += 0.05 if args.nesterov == "true" else 0.1 + args.dampening
    else:
        loss += 0.2 + (args.beta1 - 0.9) ** 2 * 10
    loss += 0.3 if args.layers == 1 else abs(args.width - 64) / 256 + 0.05 * (args.layers - 2)
    print(f"loss={loss:.6f}", flush=True)


if __name__ == "__main__":
    main()
