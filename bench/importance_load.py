#!/usr/bin/env python3
"""Plain-GET latency while many clients ask for parameter importance.

Starts `HPT serve --port 0` on a fresh database, creates a client-run
bayesianoptimization experiment with 4 doubles, imports TRIALS finished
trials in one request, then runs CALLERS threads that each GET
.../importance until they get a 200 (honouring Retry-After on 503/429),
while one more thread GETs /api/v1/experiments and /healthz every 50 ms.
Prints one markdown row. Run on demand (not by ctest):

  python3 bench/importance_load.py --hpt build/hpt --trials 2000 --callers 40
"""
import argparse
import json
import math
import os
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request


def call(url, method="GET", body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(math.ceil(p / 100 * len(s))) - 1)] if s else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hpt", required=True)
    ap.add_argument("--trials", type=int, default=2000)
    ap.add_argument("--callers", type=int, default=40)
    ap.add_argument("--label", default="")
    args = ap.parse_args()

    tmp = tempfile.mkdtemp()
    server = subprocess.Popen([args.hpt, "serve", "--port", "0", "--gpus", "none",
                               "--db", os.path.join(tmp, "hpt.db")],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        base = line[line.index("http://"):].split()[0]
        params = ["a", "b", "c", "d"]
        spec = {"name": "big",
                "objective": {"type": "minimize", "objectiveMetricName": "loss"},
                "algorithm": {"algorithmName": "bayesianoptimization"},
                "parallelTrialCount": 4, "maxTrialCount": 10,
                "parameters": [{"name": p, "parameterType": "double",
                                "feasibleSpace": {"min": "0", "max": "1"}} for p in params]}
        assert call(base + "/api/v1/experiments", "POST", spec)[0] == 201
        trials = []
        for i in range(args.trials):
            v = [math.fmod((i + 0.5) * (0.6180339887 + 0.1 * k), 1.0) for k in range(4)]
            loss = 10 * (v[1] - 0.3) ** 2 + 0.5 * v[3]
            trials.append({"parameterAssignments": [{"name": p, "value": x}
                                                    for p, x in zip(params, v)],
                           "metrics": {"loss": loss}})
        status, _, body = call(base + "/api/v1/experiments/big/trials:import", "POST",
                               {"trials": trials})
        assert status == 200, body

        done = threading.Event()
        lock = threading.Lock()
        plain, importance, first_ok, refused = [], [], [], [0]

        def probe():
            while not done.is_set():
                for path in ("/api/v1/experiments", "/healthz"):
                    t = time.monotonic()
                    status, _, _ = call(base + path)
                    with lock:
                        plain.append(time.monotonic() - t)
                    assert status == 200
                time.sleep(0.05)

        def ask():
            start = time.monotonic()
            while True:
                t = time.monotonic()
                status, headers, _ = call(base + "/api/v1/experiments/big/importance")
                with lock:
                    importance.append(time.monotonic() - t)
                if status == 200:
                    with lock:
                        first_ok.append(time.monotonic() - start)
                    return
                assert status in (503, 429), status
                with lock:
                    refused[0] += 1
                time.sleep(int(headers.get("Retry-After", "1")))

        prober = threading.Thread(target=probe)
        prober.start()
        time.sleep(0.5)  # a baseline of plain GETs before the load
        t0 = time.monotonic()
        callers = [threading.Thread(target=ask) for _ in range(args.callers)]
        for c in callers:
            c.start()
        for c in callers:
            c.join()
        wall = time.monotonic() - t0
        done.set()
        prober.join()
        metrics = call(base + "/metrics")[2].decode()
        fits = next((l.split()[1] for l in metrics.splitlines()
                     if l.startswith("hpt_importance_computations_total")), "n/a")
        print(f"| {args.label} | {args.trials} | {args.callers} | {len(plain)} | "
              f"{pct(plain, 50) * 1000:.0f} | {pct(plain, 99) * 1000:.0f} | "
              f"{max(plain) * 1000:.0f} | {max(importance):.2f} | {min(first_ok):.2f} | {max(first_ok):.2f} | "
              f"{refused[0]} | {fits} | {wall:.1f} |")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    print("| build | trials | callers | plain GETs | p50 ms | p99 ms | max ms | "
          "slowest importance call s | first 200 after s | last caller's 200 after s | 503/429 | GP fits | wall s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    main()
