"""The benchmark's PyTorch peer: the project's LeNet and ResNet-18 variant trained in PyTorch
(Debian's python3-torch), with the same batch, preloaded batches, SGD, softmax cross-entropy and per-step
loss and accuracy as the Java trainers. Prints one line `RESULT <config> <examples/s> <peak RSS kB>
<median ms/step> <minor page faults/step>` for bench/run.sh peer (Bench.measure reads it)."""
import argparse
import gzip
import os
import re
import resource
import statistics
import struct
import sys
import time

import torch
from torch import nn
from torch.nn import functional as F

FASHION = os.environ.get("FASHION_MNIST_DIR", "/usr/share/datasets/fashion-mnist")


def lenet():
    """LeNet of d2l's multi-GPU chapter (models/LeNet.block()): conv 20@3x3, conv 50@5x5, dense 128, dense 10."""
    return nn.Sequential(
        nn.Conv2d(1, 20, 3), nn.ReLU(), nn.AvgPool2d(2, 2),
        nn.Conv2d(20, 50, 5), nn.ReLU(), nn.AvgPool2d(2, 2),
        nn.Flatten(), nn.Linear(800, 128), nn.ReLU(), nn.Linear(128, 10))


def lenet_sigmoid():
    """d2l's classic LeNet-5 with sigmoid (section 7.6; the bench's ClassicLeNet)."""
    return nn.Sequential(
        nn.Conv2d(1, 6, 5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2, 2),
        nn.Conv2d(6, 16, 5), nn.Sigmoid(), nn.AvgPool2d(2, 2),
        nn.Flatten(), nn.Linear(400, 120), nn.Sigmoid(), nn.Linear(120, 84), nn.Sigmoid(), nn.Linear(84, 10))


class Residual(nn.Module):
    def __init__(self, cin, cout, use_1x1=False, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv3 = nn.Conv2d(cin, cout, 1, stride) if use_1x1 else None

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(y + (self.conv3(x) if self.conv3 is not None else x))


def resnet18(num_classes=10, cin=1, w=64):
    """ResNet-18 variant of d2l section 13.6 (models/ResNet.resnet18): 3x3 stem, no max-pooling; stages w, 2w, 4w, 8w."""
    def stage(cin, cout, n, first):
        return [Residual(cin, cout, True, 2) if i == 0 and not first else Residual(cout, cout) for i in range(n)]
    return nn.Sequential(
        nn.Conv2d(cin, w, 3, 1, 1), nn.BatchNorm2d(w), nn.ReLU(),
        *stage(w, w, 2, True), *stage(w, 2 * w, 2, False), *stage(2 * w, 4 * w, 2, False),
        *stage(4 * w, 8 * w, 2, False), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8 * w, num_classes))


def batches(batch, limit):
    """Full batches of the first `limit` Fashion-MNIST training images in [0, 1] (random ones if absent)."""
    n = limit // batch * batch
    if n == 0:
        sys.exit(f"limit {limit} gives no full batch of {batch}")
    def idx(name):  # an IDX file, gzipped or not, as the Java side reads them
        path = os.path.join(FASHION, name)
        return gzip.open(path + ".gz") if os.path.exists(path + ".gz") else open(path, "rb")

    if any(os.path.exists(os.path.join(FASHION, "train-images-idx3-ubyte" + z)) for z in ("", ".gz")):
        with idx("train-images-idx3-ubyte") as f:
            f.read(16)
            x = torch.frombuffer(bytearray(f.read(n * 784)), dtype=torch.uint8).float().div(255).view(n, 1, 28, 28)
        with idx("train-labels-idx1-ubyte") as f:
            f.read(8)
            y = torch.frombuffer(bytearray(f.read(n)), dtype=torch.uint8).long()
    else:
        g = torch.Generator().manual_seed(0)
        x, y = torch.rand(n, 1, 28, 28, generator=g), torch.randint(0, 10, (n,), generator=g)
    return list(zip(x.split(batch), y.split(batch)))


def model_name(name):
    """A --model value as the Java side (BenchOptions) names it: lenet, lenet-sigmoid, resnet18 or resnet18-wN."""
    if name in ("lenet", "lenet-sigmoid", "resnet18") or re.fullmatch(r"resnet18-w[1-9][0-9]*", name):
        return name
    raise argparse.ArgumentTypeError("unknown model %r: use lenet, lenet-sigmoid, resnet18 or resnet18-wN" % name)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--model", default="lenet", type=model_name,
                   help="lenet, lenet-sigmoid, resnet18 (the book's width 64) or resnet18-wN (N the first stage's width)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--limit", type=int, default=1024)
    p.add_argument("--threads", type=int, default=None, help="intra-op threads (default: PyTorch's)")
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--config", default="torch")
    a = p.parse_args()
    if a.threads is not None:
        torch.set_num_threads(a.threads)
    torch.manual_seed(42)
    if a.model.startswith("resnet18"):
        net = resnet18(w=int(a.model.split("-w")[1]) if "-w" in a.model else 64)
    else:
        net = {"lenet": lenet, "lenet-sigmoid": lenet_sigmoid}[a.model]()
    net.to(a.device).train()
    opt = torch.optim.SGD(net.parameters(), lr=a.lr)
    data = [(x.to(a.device), y.to(a.device)) for x, y in batches(a.batch, a.limit)]

    def step(x, y):
        opt.zero_grad()
        y_hat = net(x)
        l = F.cross_entropy(y_hat, y)
        l.backward()
        opt.step()
        # what the Java trainers read back every step: the loss and the number of correct predictions
        return l.item() * x.shape[0], (y_hat.argmax(1) == y).sum().item()

    for i in range(a.warmup):
        step(*data[i % len(data)])
    times = []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for i in range(a.steps):
        t0 = time.perf_counter()
        step(*data[(a.warmup + i) % len(data)])
        times.append(time.perf_counter() - t0)
    use = resource.getrusage(resource.RUSAGE_SELF)
    print(f"RESULT {a.config} {a.steps * a.batch / sum(times):.3f} {use.ru_maxrss} "
          f"{statistics.median(times) * 1000:.3f} {(use.ru_minflt - faults) / a.steps:.0f}")


if __name__ == "__main__":
    main()
