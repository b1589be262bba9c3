"""Checks an executed examples/notebook.ipynb: no cell failed, optimize()
ran the 20 trials and printed plain lines (a kernel gets no \r bar), and one
cell's output names the best trial. Usage: check_notebook.py EXECUTED.ipynb"""

import json
import re
import sys


def main(path: str) -> int:
    with open(path) as f:
        notebook = json.load(f)
    text = []
    for cell in notebook["cells"]:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                print(f"{path}: a cell failed: {out.get('ename')}: {out.get('evalue')}")
                return 1
            if out.get("output_type") == "stream":
                text.append("".join(out.get("text", [])))
    output = "".join(text)
    if "\r" in output:
        print(f"{path}: a progress bar (\\r) in the outputs; a kernel gets plain lines")
        return 1
    if not re.search(r"^digits-svc: 20 trials in ", output, re.MULTILINE):
        print(f"{path}: no 'digits-svc: 20 trials in ...' summary in the outputs:\n{output}")
        return 1
    match = re.search(r"best trial: (\S+)\s+accuracy=(\d\.\d+)", output)
    if not match:
        print(f"{path}: no 'best trial: NAME  accuracy=...' line in the outputs:\n{output}")
        return 1
    if float(match.group(2)) < 0.9:
        print(f"{path}: the best trial's accuracy is only {match.group(2)}")
        return 1
    print(match.group(0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
