#!/usr/bin/env python3
"""Benchmark row of issue 6: a derivative called inside a hot loop, with and without the inlining
post-pass (seed 001), and the ratio.

usage: inlining.py BUILD_DIR [--quick] [--budget S] [--update-readme]

inlining/hot_loop.c is built twice with BUILD/bin/synthase-cc -O2: as is ("with"), and with
`-mllvm -synthase-keep-derivatives-out-of-line` ("without": every generated derivative noinline,
placeholders left noinline; the rest of the pipeline is the same). Both executables time every
kernel; their checksums must agree. The table goes to stdout and is appended to
BUILD/bench/results.md (written by run.py just before); --update-readme also refreshes the section
between the inlining markers of bench/README.md. Exit status 1 when a variant does not build or
the two disagree.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "inlining", "hot_loop.c")
VARIANTS = {"with": [], "without": ["-mllvm", "-synthase-keep-derivatives-out-of-line"]}
REL_TOL = 1e-12


def fmt_time(s):
    for unit, f in [("s", 1), ("ms", 1e-3), ("µs", 1e-6)]:
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def build(build_dir, out):
    syncc = os.path.join(build_dir, "bin", "synthase-cc")
    exes = {}
    for name, extra in VARIANTS.items():
        exe = os.path.join(out, f"hot_loop-{name}")
        cmd = [syncc, "-O2", "-std=gnu11"] + extra + [SRC, "-o", exe, "-lm"]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"bench/inlining: the '{name}' variant does not build:\n{p.stderr[-2000:]}")
        exes[name] = exe
    return exes


def run(exe, budget):
    p = subprocess.run([exe, str(budget)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"bench/inlining: {exe} failed (exit {p.returncode}): {p.stderr[-1000:]}")
    return [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--budget", type=float, default=0.25)
    ap.add_argument("--update-readme", action="store_true")
    a = ap.parse_args()
    build_dir = os.path.abspath(a.build)
    out = os.path.join(build_dir, "bench", "inlining")
    os.makedirs(out, exist_ok=True)
    exes = build(build_dir, out)
    budget = 0 if a.quick else a.budget
    res = {name: run(exe, budget) for name, exe in exes.items()}

    bad = []
    md = ["### Inlining of generated derivatives: a derivative called in a hot loop (issue 6)\n"]
    if a.quick:
        md.append("Quick mode: checksums of the two variants compared, no timing.\n")
    md.append("Each kernel calls the derivative once per element in a loop (`bench/inlining/hot_loop.c`, "
              "`synthase-cc -O2`). *with*: the inlining post-pass as shipped; *without*: every "
              "generated derivative (and placeholder) kept an out-of-line call. Median time of one "
              "kernel call [min–max].\n")
    md.append("| function | convention | mode | calls per kernel | with inlining | without | "
              "without ÷ with |")
    md.append("|---|---|---|---|---|---|---|")
    for w, wo in zip(res["with"], res["without"]):
        key = (w["kernel"], w["conv"], w["mode"])
        if key != (wo["kernel"], wo["conv"], wo["mode"]):
            sys.exit("bench/inlining: the two variants list different kernels")
        c1, c2 = w["checksum"], wo["checksum"]
        agree = abs(c1 - c2) <= REL_TOL * max(1.0, abs(c1) + abs(c2))
        if not agree:
            bad.append(f"{'/'.join(key)}: {c1!r} vs {c2!r}")
        conv = "Enzyme C (`__enzyme_*`)" if w["conv"] == "C" else "placeholder (`synthase_autodiff_*`)"
        label = f"{w['kernel']}: {w['what']}"
        if a.quick:
            cells = ["ok" if agree else "MISMATCH"] * 2 + ["—"]
        else:
            ratio = wo["med"] / w["med"] if w["med"] > 0 else float("nan")
            cells = [f"{fmt_time(w['med'])} [{fmt_time(w['min'])}–{fmt_time(w['max'])}]",
                     f"{fmt_time(wo['med'])} [{fmt_time(wo['min'])}–{fmt_time(wo['max'])}]",
                     f"**{ratio:.2f}×**" if agree else "MISMATCH"]
        md.append(f"| {label} | {conv} | {w['mode']} | {w['calls']} | " + " | ".join(cells) + " |")
    md.append("")
    text = "\n".join(md)
    print(text)
    results = os.path.join(build_dir, "bench", "results.md")
    with open(results, "a") as f:
        f.write("\n" + text)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    if a.update_readme and not a.quick:
        readme = os.path.join(HERE, "README.md")
        doc = open(readme).read()
        start, end = "<!-- inlining:begin -->", "<!-- inlining:end -->"
        if start in doc and end in doc:
            stamp = time.strftime("%Y-%m-%d %H:%M")
            new = f"{start}\n{stamp}\n\n{text}{end}"
            doc = doc[:doc.index(start)] + new + doc[doc.index(end) + len(end):]
            with open(readme, "w") as f:
                f.write(doc)
    if bad:
        print("inlining: the variants DISAGREE: " + "; ".join(bad))
        return 1
    print(f"inlining: {len(res['with'])} kernels, with and without inlining agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
