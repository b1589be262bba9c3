#!/usr/bin/python3
"""Writes the namespaced experiment operations of api/openapi/openapi.json
from the default ones, so that each is documented once.

    scripts/openapi_namespaces.py [--check] [FILE]

Every path under /api/v1/experiments (the namespace 'default') is served
again under /api/v1/namespaces/{ns}/experiments. This script drops every
/api/v1/namespaces/{ns}/experiments... path of FILE (default:
api/openapi/openapi.json) and appends a copy of each /api/v1/experiments...
path item with
  - the path parameter #/components/parameters/ns first in its parameters,
  - each operation's operationId followed by "InNamespace",
and nothing else changed. Edit the /api/v1/experiments operations, then run
it. With --check it writes nothing and exits 1 when FILE is not what it
would write. tests/server/openapi_test.cc checks the same rule in C++
(OpenApiTest.NamespacedOperationsMirrorTheDefaultOnes), so a stale file
fails the tests.
"""

import argparse
import copy
import json
import os
import sys

DEFAULT = "/api/v1/experiments"
NAMESPACED = "/api/v1/namespaces/{ns}/experiments"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def is_under(path, prefix):
    return path == prefix or path.startswith(prefix + "/") or path.startswith(prefix + ":")


def namespaced_item(item):
    out = copy.deepcopy(item)
    out["parameters"] = [{"$ref": "#/components/parameters/ns"}] + out.get("parameters", [])
    # Keep "parameters" first, as the hand-written items have it.
    out = {"parameters": out.pop("parameters"), **out}
    for method in METHODS:
        if method in out and "operationId" in out[method]:
            out[method]["operationId"] += "InNamespace"
    return out


def generate(document):
    paths = {p: item for p, item in document["paths"].items() if not is_under(p, NAMESPACED)}
    for path, item in list(paths.items()):
        if is_under(path, DEFAULT):
            paths[NAMESPACED + path[len(DEFAULT):]] = namespaced_item(item)
    out = dict(document)
    out["paths"] = paths
    return out


def dump(document):
    # The file's own format: one space of indent, UTF-8, a final newline.
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether FILE is current")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("file", nargs="?", default=os.path.join(root, "api/openapi/openapi.json"))
    args = parser.parse_args()
    with open(args.file, encoding="utf-8") as f:
        text = f.read()
    wanted = dump(generate(json.loads(text)))
    if args.check:
        if wanted != text:
            print(args.file + " is out of date: run scripts/openapi_namespaces.py",
                  file=sys.stderr)
            return 1
        return 0
    if wanted != text:
        with open(args.file, "w", encoding="utf-8") as f:
            f.write(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
