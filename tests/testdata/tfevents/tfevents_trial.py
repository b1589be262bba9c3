#!/usr/bin/env python3
"""A trial for hpt's TensorFlowEvent tests: trains nothing, and writes its
metrics as TensorFlow event files (with the TensorFlow-free writer next to
it), as tf.summary would:

  <log-dir>/events.out.tfevents.*       accuracy (TF2 scalars: float tensors)
  <log-dir>/test/events.out.tfevents.*  loss (TF1 simple_value)

accuracy = (1 - 100 * (lr - 0.03)^2) * step / epochs, best at lr 0.03.
"""
import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfevents_writer  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, required=True)
    parser.add_argument("--log-dir", required=True)
    parser.add_argument("--epochs", type=int, default=3)
    args = parser.parse_args()
    name = "events.out.tfevents.%d.%s" % (int(time.time()), socket.gethostname())
    os.makedirs(os.path.join(args.log_dir, "test"), exist_ok=True)
    train = tfevents_writer.EventFileWriter(os.path.join(args.log_dir, name))
    test = tfevents_writer.EventFileWriter(os.path.join(args.log_dir, "test", name))
    for step in range(1, args.epochs + 1):
        accuracy = (1 - 100 * (args.lr - 0.03) ** 2) * step / args.epochs
        train.scalar("accuracy", accuracy, step, kind="float")
        test.scalar("loss", 1 - accuracy, step)
        time.sleep(0.1)  # the collector follows the files as they grow
    train.close()
    test.close()


if __name__ == "__main__":
    main()
