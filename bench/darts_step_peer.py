#!/usr/bin/python3
"""The peer of hpt_bench_darts_step: the same DARTS supernet and the same
first-order training step in Python PyTorch (Debian's /usr/bin/python3 with
python3-torch), written the way Katib's darts-cnn-cifar10 trial writes it:
every MixedOp sums w * op(x) over all ops, "none" included, and each op
applies its own ReLU. The step is the one hpt times: alpha's gradient of
the validation loss (torch.autograd.grad on alpha only) and an Adam step,
then a weight step (alpha detached) with gradient clipping and SGD.

  /usr/bin/python3 bench/darts_step_peer.py [--batch 64] [--channels 16]
      [--layers 5] [--nodes 4] [--stem 3] [--image 1x28x28] [--classes 10]
      [--threads 2] [--steps 20] [--warmup 3] [--style katib|shared]

--style shared computes ReLU(state) once per state and skips "none", as
hpt does, to separate those savings from the language's.
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

PRIMITIVES = ["separable_convolution_3x3", "separable_convolution_5x5",
              "dilated_convolution_3x3", "dilated_convolution_5x5",
              "avg_pooling_3x3", "max_pooling_3x3", "skip_connection"]


class Zero(nn.Module):
    def __init__(self, stride):
        super().__init__()
        self.stride = stride

    def forward(self, x, relu_x=None):
        if self.stride == 1:
            return x * 0.
        return x[:, :, ::self.stride, ::self.stride] * 0.


class Identity(nn.Module):
    def forward(self, x, relu_x=None):
        return x


class FactorizedReduce(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out // 2, 1, 2, 0, bias=False)
        self.conv2 = nn.Conv2d(c_in, c_out // 2, 1, 2, 0, bias=False)
        self.bn = nn.BatchNorm2d(c_out, affine=False)

    def forward(self, x, relu_x=None):
        x = F.relu(x) if relu_x is None else relu_x
        shifted = x
        if x.size(2) % 2 or x.size(3) % 2:
            shifted = F.pad(x, (0, x.size(3) % 2, 0, x.size(2) % 2))
        return self.bn(torch.cat([self.conv1(x),
                                  self.conv2(shifted[:, :, 1:, 1:])], 1))


class StdConv(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 1, 1, 0, bias=False)
        self.bn = nn.BatchNorm2d(c_out, affine=False)

    def forward(self, x, relu_x=None):
        return self.bn(self.conv(F.relu(x)))


class DilConv(nn.Module):
    def __init__(self, c, k, stride, dilation):
        super().__init__()
        self.depthwise = nn.Conv2d(c, c, k, stride, dilation * (k - 1) // 2,
                                   dilation=dilation, groups=c, bias=False)
        self.pointwise = nn.Conv2d(c, c, 1, 1, 0, bias=False)
        self.bn = nn.BatchNorm2d(c, affine=False)

    def forward(self, x, relu_x=None):
        x = F.relu(x) if relu_x is None else relu_x
        return self.bn(self.pointwise(self.depthwise(x)))


class SepConv(nn.Module):
    def __init__(self, c, k, stride):
        super().__init__()
        self.first = DilConv(c, k, stride, 1)
        self.second = DilConv(c, k, 1, 1)

    def forward(self, x, relu_x=None):
        return self.second(self.first(x, relu_x))


class PoolBN(nn.Module):
    def __init__(self, kind, c, k, stride):
        super().__init__()
        self.pool = (nn.MaxPool2d(k, stride, k // 2) if kind == "max" else
                     nn.AvgPool2d(k, stride, k // 2, count_include_pad=False))
        self.bn = nn.BatchNorm2d(c, affine=False)

    def forward(self, x, relu_x=None):
        return self.bn(self.pool(x))


def make_op(name, c, stride):
    if name == "none":
        return Zero(stride)
    if name == "skip_connection":
        return Identity() if stride == 1 else FactorizedReduce(c, c)
    kind, size = name.rsplit("_", 1)
    k = int(size.split("x")[0])
    if kind == "separable_convolution":
        return SepConv(c, k, stride)
    if kind == "dilated_convolution":
        return DilConv(c, k, stride, 2)
    return PoolBN("max" if kind == "max_pooling" else "avg", c, k, stride)


class MixedOp(nn.Module):
    def __init__(self, c, stride, names, shared):
        super().__init__()
        self.ops = nn.ModuleList(make_op(n, c, stride) for n in names)
        self.shared = shared

    def forward(self, x, relu_x, weights):
        if not self.shared:  # Katib: every op, "none" included
            return sum(w * op(x) for w, op in zip(weights, self.ops))
        out = self.ops[1](x, relu_x) * weights[1]
        for w, op in zip(weights[2:], self.ops[2:]):
            out = out + w * op(x, relu_x)
        return out


class Cell(nn.Module):
    def __init__(self, nodes, c_pp, c_p, c, red_prev, red, names, shared):
        super().__init__()
        self.reduction = red
        self.shared = shared
        self.pre0 = FactorizedReduce(c_pp, c) if red_prev else StdConv(c_pp, c)
        self.pre1 = StdConv(c_p, c)
        self.edges = nn.ModuleList()
        for i in range(nodes):
            self.edges.append(nn.ModuleList(
                MixedOp(c, 2 if red and j < 2 else 1, names, shared)
                for j in range(2 + i)))

    def forward(self, s0, s1, weights):
        states = [self.pre0(s0), self.pre1(s1)]
        relus = [F.relu(s) for s in states] if self.shared else [None, None]
        for edges, w_node in zip(self.edges, weights):
            s = sum(op(states[j], relus[j], w_node[j])
                    for j, op in enumerate(edges))
            states.append(s)
            relus.append(F.relu(s) if self.shared else None)
        return torch.cat(states[2:], 1)


def is_reduction(i, n):
    if n == 1:
        return False
    if n == 2:
        return i == 1
    return i in (n // 3, 2 * n // 3)


class Supernet(nn.Module):
    def __init__(self, c_in, classes, c, layers, nodes, stem, shared):
        super().__init__()
        names = ["none"] + PRIMITIVES
        c_cur = stem * c
        self.stem = nn.Sequential(nn.Conv2d(c_in, c_cur, 3, padding=1,
                                            bias=False), nn.BatchNorm2d(c_cur))
        c_pp, c_p, c_cur = c_cur, c_cur, c
        self.cells = nn.ModuleList()
        red_prev = False
        any_red = False
        for i in range(layers):
            red = is_reduction(i, layers)
            if red:
                c_cur *= 2
            any_red = any_red or red
            self.cells.append(Cell(nodes, c_pp, c_p, c_cur, red_prev, red,
                                   names, shared))
            red_prev = red
            c_pp, c_p = c_p, c_cur * nodes
        self.classifier = nn.Linear(c_p, classes)
        n_ops = len(names)
        # Kept out of parameters(), as hpt keeps alpha apart.
        self.alpha_normal = [(1e-3 * torch.randn(i + 2, n_ops)).requires_grad_()
                             for i in range(nodes)]
        self.alpha_reduce = ([(1e-3 * torch.randn(i + 2, n_ops)).requires_grad_()
                              for i in range(nodes)] if any_red else [])

    def alphas(self):
        return self.alpha_normal + self.alpha_reduce

    def forward(self, x, detach_alpha=False):
        def rows(alphas):
            out = [F.softmax(a, -1) for a in alphas]
            return [o.detach() for o in out] if detach_alpha else out
        normal, reduce = rows(self.alpha_normal), rows(self.alpha_reduce)
        s0 = s1 = self.stem(x)
        for cell in self.cells:
            s0, s1 = s1, cell(s0, s1, reduce if cell.reduction else normal)
        return self.classifier(F.adaptive_avg_pool2d(s1, 1).flatten(1))


def main():
    p = argparse.ArgumentParser()
    for name, default in [("batch", 64), ("channels", 16), ("layers", 5),
                          ("nodes", 4), ("stem", 3), ("classes", 10),
                          ("threads", 2), ("steps", 20), ("warmup", 3)]:
        p.add_argument("--" + name, type=int, default=default)
    p.add_argument("--image", default="1x28x28")
    p.add_argument("--style", choices=["katib", "shared"], default="katib")
    p.add_argument("--device", choices=["cpu", "cuda"], default="cpu")
    a = p.parse_args()
    dev = torch.device(a.device)
    if dev.type == "cuda":
        torch.backends.cudnn.benchmark = True  # as hpt does on CUDA
    c, h, w = (int(v) for v in a.image.split("x"))
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    net = Supernet(c, a.classes, a.channels, a.layers, a.nodes, a.stem,
                   a.style == "shared")
    net.to(dev)
    # alpha is kept out of parameters(), so it moves by hand.
    net.alpha_normal = [a_.detach().to(dev).requires_grad_()
                        for a_ in net.alpha_normal]
    net.alpha_reduce = [a_.detach().to(dev).requires_grad_()
                        for a_ in net.alpha_reduce]
    net.train()
    weights = list(net.parameters())
    alphas = net.alphas()
    w_optim = torch.optim.SGD(weights, 0.025, momentum=0.9,
                              weight_decay=3e-4)
    a_optim = torch.optim.Adam(alphas, 3e-4, betas=(0.5, 0.999),
                               weight_decay=1e-3)
    tx = torch.rand(a.batch, c, h, w).to(dev)
    vx = torch.rand(a.batch, c, h, w).to(dev)
    ty = torch.randint(0, a.classes, (a.batch,)).to(dev)
    vy = torch.randint(0, a.classes, (a.batch,)).to(dev)

    def step():
        a_optim.zero_grad()
        grads = torch.autograd.grad(F.cross_entropy(net(vx), vy), alphas)
        for alpha, g in zip(alphas, grads):
            alpha.grad = g
        a_optim.step()
        w_optim.zero_grad()
        loss = F.cross_entropy(net(tx, detach_alpha=True), ty)
        loss.backward()
        nn.utils.clip_grad_norm_(weights, 5.0)
        w_optim.step()
        return loss.item()

    for _ in range(a.warmup):
        step()
    seconds = []
    for _ in range(a.steps):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
    median, mean = statistics.median(seconds), statistics.mean(seconds)
    n_w = sum(t.numel() for t in weights)
    n_a = sum(t.numel() for t in alphas)
    print("| python (torch %s, %s, %s) | %d | %d | %d | %d | %s | %d | %d | %d | "
          "%.1f | %.1f | %.1f |" % (torch.__version__, a.style, a.device, a.batch,
                                     a.channels, a.layers, a.nodes, a.image,
                                     torch.get_num_threads(), n_w, n_a,
                                     median * 1e3, mean * 1e3,
                                     a.batch / median))
    print("RESULT side=python-%s weights=%d alphas=%d median_ms=%.3f "
          "mean_ms=%.3f images_per_s=%.2f" % (a.style, n_w, n_a, median * 1e3,
                                              mean * 1e3, a.batch / median))


if __name__ == "__main__":
    main()
