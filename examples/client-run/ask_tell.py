#!/usr/bin/env python3
"""Ask/tell against a running hpt server, using only the standard library.

Creates the experiment in experiment.yaml (or resumes it when it already
exists), then loops: ask for 2 trials, evaluate a quadratic locally, report
a few observations and the final value, until the server hands out no more
trials. Prints the experiment's status.currentOptimalTrial at the end.

  hpt serve &                      # http://127.0.0.1:8750
  python3 examples/client-run/ask_tell.py [--restart]

Environment: HPT_URL (default http://127.0.0.1:8750), HPT_TOKEN (bearer
token, when the server was started with --token-file).
"""
import argparse
import json
import os
import pathlib
import sys
import urllib.error
import urllib.request

URL = os.environ.get("HPT_URL", "http://127.0.0.1:8750").rstrip("/")
TOKEN = os.environ.get("HPT_TOKEN", "")
SPEC = pathlib.Path(__file__).with_name("experiment.yaml")


def call(method, path, body=None, content_type="application/json"):
    """Sends one request; returns (status, decoded JSON or None)."""
    data = None
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(URL + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", content_type)
    if TOKEN:
        req.add_header("Authorization", "Bearer " + TOKEN)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    return status, (json.loads(text) if text.strip() else None)


def check(status, reply, what):
    if status >= 400:
        message = (reply or {}).get("error", {}).get("message", reply)
        sys.exit(f"ask_tell: {what} failed ({status}): {message}")
    return reply


def quadratic(x, y):
    """Minimum 0 at (1, -2)."""
    return (x - 1.0) ** 2 + (y + 2.0) ** 2


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--restart", action="store_true",
                        help="delete the experiment first and start over")
    args = parser.parse_args()

    status, reply = call("POST", "/api/v1/experiments", SPEC.read_bytes(),
                         content_type="application/yaml")
    if status == 409:
        name = "client-run-quadratic"
        if args.restart:
            check(*call("DELETE", f"/api/v1/experiments/{name}"), "delete")
            status, reply = call("POST", "/api/v1/experiments", SPEC.read_bytes(),
                                 content_type="application/yaml")
        else:
            print(f"{name} exists; resuming it (use --restart to start over)")
            reply = {"name": name}
            status = 200
    name = check(status, reply, "create experiment")["name"]
    base = f"/api/v1/experiments/{name}"

    done = 0
    while True:
        reply = check(*call("POST", base + "/trials:suggest", {"count": 2}), "suggest")
        trials = reply["trials"]
        if not trials:
            break
        for trial in trials:
            params = {p["name"]: float(p["value"]) for p in trial["parameterAssignments"]}
            loss = quadratic(params["x"], params["y"])
            tpath = f"{base}/trials/{trial['name']}"
            # Intermediate values, as a training loop would report them.
            for step in (1, 2):
                check(*call("POST", tpath + "/observations",
                            {"step": step, "metrics": {"loss": loss * (3 - step)}}),
                      "observation")
            check(*call("POST", tpath + ":complete", {"metrics": {"loss": loss}}),
                  "complete")
            done += 1
            print(f"{trial['name']}: x={params['x']:.4f} y={params['y']:.4f} "
                  f"loss={loss:.6f}")

    experiment = check(*call("GET", base), "get experiment")
    state = experiment["status"]
    print(f"{done} trials evaluated; phase {state['phase']} ({state.get('reason', '')})")
    print(json.dumps(state.get("currentOptimalTrial"), indent=2))


if __name__ == "__main__":
    main()
