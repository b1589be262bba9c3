#!/usr/bin/python3
"""The compute-saved benchmark's trial: an MLP trained epoch by epoch on
scikit-learn's bundled digits data (no download), printing the validation
accuracy after every epoch as `epoch=E accuracy=A`.

The curve is a pure function of the hyperparameters: the split, the weight
initialisation and the minibatch order are seeded, so a configuration that
Hyperband runs again with a larger budget retraces the same curve, and hpt
and Optuna see the same curve for the same configuration.

Run by hpt's runner as a process (see compute_saved.py) and imported by the
Optuna side, which calls train() in-process with trial.report/should_prune.
"""

import argparse
import sys
import time
import warnings

MAX_EPOCHS = 27

# The search space, shared by hpt's spec and Optuna's objective.
SPACE = {
    "lr": ("double", 1e-4, 0.3, "log"),        # SGD learning rate
    "alpha": ("double", 1e-6, 1.0, "log"),     # L2 penalty
    "hidden": ("int", 4, 128, None),           # hidden units (one layer)
    "batch_size": ("int", 8, 256, "log"),      # minibatch size
}

_data = None


def _split():
    global _data
    if _data is None:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
        x, y = load_digits(return_X_y=True)
        x = x / 16.0
        _data = train_test_split(x, y, test_size=0.3, random_state=0, stratify=y)
    return _data


def train(lr, alpha, hidden, batch_size, epochs=MAX_EPOCHS, epoch_seconds=0.0):
    """Yields (epoch, validation accuracy) after each of `epochs` epochs.
    `epoch_seconds` pads each epoch to at least that long (see README)."""
    import numpy as np
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.neural_network import MLPClassifier

    x_train, x_val, y_train, y_val = _split()
    classes = np.unique(y_train)
    model = MLPClassifier(hidden_layer_sizes=(int(hidden),), solver="sgd",
                          learning_rate_init=float(lr), alpha=float(alpha),
                          momentum=0.9, batch_size=int(batch_size),
                          random_state=0)
    order = np.random.RandomState(0)
    for epoch in range(1, int(epochs) + 1):
        start = time.monotonic()
        # partial_fit is one pass in the order given: shuffle it ourselves,
        # seeded, so each epoch sees a fresh (but repeatable) order.
        perm = order.permutation(len(y_train))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            model.partial_fit(x_train[perm], y_train[perm], classes=classes)
        accuracy = float(model.score(x_val, y_val))
        left = epoch_seconds - (time.monotonic() - start)
        if left > 0:
            time.sleep(left)
        yield epoch, accuracy


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--lr", type=float, required=True)
    p.add_argument("--alpha", type=float, required=True)
    p.add_argument("--hidden", type=int, required=True)
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--epochs", type=int, default=MAX_EPOCHS)
    p.add_argument("--epoch-seconds", type=float, default=0.0)
    a = p.parse_args(argv)
    for epoch, accuracy in train(a.lr, a.alpha, a.hidden, a.batch_size,
                                 a.epochs, a.epoch_seconds):
        print(f"epoch={epoch} accuracy={accuracy:.6f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
