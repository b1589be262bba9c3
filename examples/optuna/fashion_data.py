"""FashionMNIST for the examples, from Debian's dataset-fashion-mnist
package (no download): a small training and validation split of its test
set, so that each trial trains in about a second on a CPU."""
import gzip
import os

import numpy as np
import torch

DIR = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def _read(name, offset):
    with gzip.open(os.path.join(DIR, name)) as f:
        return np.frombuffer(f.read(), dtype=np.uint8, offset=offset)


def load(n_train=3000, n_valid=1000):
    """(x_train, y_train, x_valid, y_valid): flat images in [0, 1], labels."""
    images = _read("t10k-images-idx3-ubyte.gz", 16).reshape(-1, 28 * 28)
    labels = _read("t10k-labels-idx1-ubyte.gz", 8)
    x = torch.tensor(images[: n_train + n_valid], dtype=torch.float32) / 255.0
    y = torch.tensor(labels[: n_train + n_valid], dtype=torch.long)
    return x[:n_train], y[:n_train], x[n_train:], y[n_train:]
