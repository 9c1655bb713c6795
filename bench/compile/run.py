#!/usr/bin/env python3
"""Compile-time row (issue 17): a generated function of about 50,000 instructions (gen.py),
compiled with plain clang-22 -O2 and differentiated by synthase-cc -O2 in each mode; CPU time
(user + system of the compiler, so that other jobs on the machine do not count), AD ÷ plain.
Each derivative is run once and checked against central differences.

usage: run.py BUILD_DIR [--quick]   (quick: 50 segments, a correctness check)"""
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_time(cmd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.returncode == 0, dt, p.stderr


def main():
    build = os.path.abspath(sys.argv[1])
    quick = "--quick" in sys.argv
    segments = 50 if quick else 700
    out = os.path.join(build, "bench", "compile")
    os.makedirs(out, exist_ok=True)
    srcs = {}
    for mode in ["none", "rev", "fwd"]:
        srcs[mode] = os.path.join(out, f"big_{mode}.c")
        subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), srcs[mode], "--segments",
                        str(segments), "--mode", mode], check=True)
    ok, plain, err = cpu_time(["clang-22", "-O2", "-c", srcs["none"], "-o", srcs["none"] + ".o"])
    if not ok:
        sys.exit("compile bench: plain clang failed:\n" + err[-2000:])
    size = "?"
    ll = srcs["none"] + ".ll"
    if subprocess.run(["clang-22", "-O2", "-S", "-emit-llvm", srcs["none"], "-o", ll]).returncode == 0:
        size = sum(1 for line in open(ll) if line.startswith("  ") and not line.lstrip().startswith(";"))
    print("### Compile time: a generated function (bench/compile/gen.py), differentiated in each mode\n")
    print(f"{segments} helpers of loops, branches and libm calls, one in four kept out of line, "
          f"called from one function: {size} LLVM instructions at -O2 before AD. CPU time of one "
          f"`-O2 -c`; plain clang-22 -O2: {plain:.2f} s.\n")
    print("| mode | plain clang-22 -O2 | synthase-cc -O2 | AD ÷ plain | under 10 s | check |")
    print("|---|---|---|---|---|---|")
    status = 0
    for mode in ["rev", "fwd"]:
        exe = os.path.join(out, f"big_{mode}")
        ok, dt, err = cpu_time([os.path.join(build, "bin", "synthase-cc"), "-O2", srcs[mode], "-o",
                                exe, "-lm"])
        check = "did not compile (FAILED)"
        if ok:
            r = subprocess.run([exe], capture_output=True, text=True)
            check = r.stdout.strip() if r.returncode == 0 else "MISMATCH: " + r.stdout.strip()
        if not ok or check.startswith("MISMATCH"):
            status = 1
        print(f"| {mode} | {plain:.2f} s | {dt:.2f} s | **{dt / plain:.2f}×** | "
              f"{'yes' if dt < 10 else 'no'} | {check} |")
    return status


if __name__ == "__main__":
    sys.exit(main())
