"""Tiny image classifier on synthetic data, profiled with torch.profiler.

The input pipeline is the bottleneck on purpose: every sample is "read"
(a 3 ms wait standing for storage latency) and "decoded" (zlib inflate of
a stored image, uint8 -> float, normalise) in Dataset.__getitem__, while
the model step itself takes a few milliseconds.  With --workers 0 the
training loop does all of that itself between steps; with --workers 2
two DataLoader worker processes prepare batches ahead of it.

    python3 train.py --workers 0 --out prof/before > logs/before.log
"""
import argparse
import gzip
import os
import shutil
import time
import zlib

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

READ_LATENCY_S = 0.003


class EncodedImages(Dataset):
    """N compressed 3x32x32 uint8 images with labels, decoded on access."""

    def __init__(self, n, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.blobs = []
        self.labels = torch.randint(0, 10, (n,), generator=g)
        for _ in range(n):
            img = torch.randint(0, 256, (3, 32, 32), dtype=torch.uint8,
                                generator=g)
            self.blobs.append(zlib.compress(img.numpy().tobytes(), 6))

    def __len__(self):
        return len(self.blobs)

    def __getitem__(self, i):
        time.sleep(READ_LATENCY_S)
        raw = zlib.decompress(self.blobs[i])
        x = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
        x = x.view(3, 32, 32).float().div_(255.0).sub_(0.5).div_(0.25)
        return x, self.labels[i]


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.head = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--out", default="prof")
    ap.add_argument("--name", default=None)
    args = ap.parse_args()

    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = EncodedImages(args.batch_size * (args.steps + 2))
    loader = DataLoader(data, batch_size=args.batch_size, shuffle=False,
                        num_workers=args.workers)
    model = SmallCNN()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    os.makedirs(args.out, exist_ok=True)
    name = args.name or "workers%d" % args.workers
    trace = os.path.join(args.out, name + ".pt.trace.json")

    def export(prof):
        prof.export_chrome_trace(trace)
        # gzip -n: no name or time in the header, so a rerun is comparable.
        with open(trace, "rb") as src, \
                gzip.GzipFile(trace + ".gz", "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
        os.remove(trace)

    print("torch %s workers=%d batch_size=%d steps=%d"
          % (torch.__version__, args.workers, args.batch_size, args.steps))
    sched = torch.profiler.schedule(wait=1, warmup=1, active=5, repeat=1)
    with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CPU],
            schedule=sched, on_trace_ready=export,
            record_shapes=True, profile_memory=True) as prof:
        it = iter(loader)
        for step in range(args.steps):
            t0 = time.perf_counter()
            x, y = next(it)
            t1 = time.perf_counter()
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            t2 = time.perf_counter()
            prof.step()
            print("step %d loss %.4f step_ms %.2f data_ms %.2f compute_ms %.2f"
                  % (step, loss.item(), (t2 - t0) * 1e3, (t1 - t0) * 1e3,
                     (t2 - t1) * 1e3), flush=True)
    print("trace %s.gz" % trace)


if __name__ == "__main__":
    main()
