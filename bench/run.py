#!/usr/bin/env python3
"""Builds and runs the Synthase benchmark suite; writes the tables, the plot and the JSON results.

usage: run.py BUILD_DIR [--quick] [--objectives a,b] [--sizes 0,1,2] [--budget S] [--update-readme]

Every (objective, tool) pair is its own executable, so a tool that fails to build or crashes only
loses its own cell.  Synthase failing to build means "not supported yet"; a Synthase result that
disagrees with the hand-written derivative is an error, as is any disagreement of ADOL-C or
finite differences with it (which is how the hand-written derivatives themselves are checked).
"""
import argparse
import concurrent.futures as cf
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
OBJECTIVES = ["gmm", "lstm", "ba", "hand", "lse", "llsq", "ode", "matvec", "stencil", "kmeans",
              "det", "eigen_lsq"]
TITLES = {"gmm": "GMM", "lstm": "LSTM", "ba": "BA", "hand": "Hand", "lse": "LSE", "llsq": "LLSQ",
          "ode": "ODE", "matvec": "Mat-vec", "stencil": "Stencil", "kmeans": "k-means", "det": "det",
          "eigen_lsq": "Eigen LSQ"}
TOOLS = ["hand", "fd", "adolc", "synthase-rev", "synthase-fwd"]
TOOL_TITLES = {"hand": "hand-written", "fd": "finite diff.", "adolc": "ADOL-C",
               "synthase-rev": "Synthase rev", "synthase-fwd": "Synthase fwd"}
SIZE_NAMES = ["small", "medium", "large"]
# Derivative/primal targets (issue 17, from the best published figures), shown next to ours but
# never asserted.
TARGETS = {"eigen_lsq": 4.0, "gmm": 2.0, "lstm": 2.1, "lse": 1.5, "llsq": 1.5, "ode": 2.5, "ba": 4.0, "hand": 7.7,
           "kmeans": 2.5, "det": 3.0, "matvec": 2.3, "stencil": 2.5}
RHO_TOL = 1e-6
# Central differences carry O(h^2) truncation and O(eps/h) cancellation error, so they cannot meet
# 1e-6 everywhere; they check the hand-written derivatives at a looser tolerance.
RHO_TOL_FD = 1e-4
CC, CXX = "clang-22", "clang++-22"
CFLAGS = ["-O2", "-std=gnu11"]
CXXFLAGS = ["-O2", "-std=gnu++17"]
# C++ objectives (objectives/<name>.cpp) that use Eigen 3 (Debian libeigen3-dev).
EIGENFLAGS = ["-I/usr/include/eigen3"]
ADOLCRC = ('"OBUFSIZE" = "4194304"\n"LBUFSIZE" = "4194304"\n"VBUFSIZE" = "4194304"\n'
           '"TBUFSIZE" = "4194304"\n"TBUFNUM" = "32"\n')


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def timed_run(cmd, timeout=600, cwd=None):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout, p.stderr, time.perf_counter() - t0
    except subprocess.TimeoutExpired:
        return -1, "", "timeout", time.perf_counter() - t0


class Builder:
    def __init__(self, build, out):
        self.build, self.out = build, out
        self.syncc = os.path.join(build, "bin", "synthase-cc")
        self.syncxx = os.path.join(build, "bin", "synthase-c++")
        self.objdir = os.path.join(out, "obj")
        self.bindir = os.path.join(out, "bin")
        os.makedirs(self.objdir, exist_ok=True)
        os.makedirs(self.bindir, exist_ok=True)
        self.compile_times = {}  # (objective, what) -> seconds
        self.errors = {}  # (objective, tool) -> message

    def cc(self, compiler, flags, src, obj):
        rc, _, err, dt = timed_run([compiler] + flags + ["-c", src, "-o", obj])
        return rc == 0, err, dt

    def link(self, linker, objs, exe, libs):
        rc, _, err, _ = timed_run([linker] + objs + ["-o", exe] + libs + ["-lm"])
        return rc == 0, err

    def common(self):
        objs = {}
        for name in ["driver", "util", "tool_hand", "tool_fd"]:
            o = os.path.join(self.objdir, name + ".o")
            ok, err, _ = self.cc(CC, CFLAGS, os.path.join(HERE, "harness", name + ".c"), o)
            if not ok:
                sys.exit("bench: harness does not compile:\n" + err)
            objs[name] = o
        self.common_objs = objs

    def objective(self, obj):
        """Builds every tool's executable for one objective; returns {tool: exe}."""
        exes, c = {}, self.common_objs
        base = [c["driver"], c["util"]]
        src = os.path.join(HERE, "objectives", obj + ".c")
        cxx = not os.path.exists(src)  # a C++ objective: objectives/<name>.cpp, linked as C++
        if cxx:
            src += "pp"
        lang_cc, lang_flags = (CXX, CXXFLAGS + EIGENFLAGS) if cxx else (CC, CFLAGS)
        o = os.path.join(self.objdir, obj + ".o")
        ok, err, dt = self.cc(lang_cc, lang_flags, src, o)
        if not ok:
            sys.exit(f"bench: {os.path.relpath(src, HERE)} does not compile:\n{err}")
        self.compile_times[(obj, "primal")] = dt
        for tool, extra in [("hand", c["tool_hand"]), ("fd", c["tool_fd"])]:
            exe = os.path.join(self.bindir, f"{obj}-{tool}")
            ok, err = self.link(lang_cc, base + [o, extra], exe, [])
            if not ok:
                sys.exit(f"bench: {obj}-{tool} does not link:\n{err}")
            exes[tool] = exe
        asrc = os.path.join(HERE, "adolc", obj + ".cpp")
        if os.path.exists(asrc):
            ao = os.path.join(self.objdir, obj + "-adolc.o")
            ok, err, dt = self.cc(CXX, CXXFLAGS, asrc, ao)
            self.compile_times[(obj, "adolc")] = dt
            exe = os.path.join(self.bindir, f"{obj}-adolc")
            if ok:
                ok, err = self.link(CXX, base + [o, ao], exe, ["-ladolc"])
            if ok:
                exes["adolc"] = exe
            else:
                self.errors[(obj, "adolc")] = err
        for tool, suffix in [("synthase-rev", "rev"), ("synthase-fwd", "fwd")]:
            ssrc = os.path.join(HERE, "synthase", f"{obj}_{suffix}.c" + ("pp" if cxx else ""))
            if not os.path.exists(ssrc):
                continue
            syn = self.syncxx if cxx else self.syncc
            so = os.path.join(self.objdir, f"{obj}-{tool}.o")
            # The same translation unit without the plugin: the compile time "without AD".
            okp, _, dtp = self.cc(lang_cc, lang_flags, ssrc, so + ".noad.o")
            if okp:
                self.compile_times[(obj, tool + "-noad")] = dtp
            if not os.path.exists(syn):
                self.errors[(obj, tool)] = os.path.basename(syn) + " not built"
                continue
            # Reverse mode records its tape's high-water mark for the memory table (a load, a max
            # and a store per call, off the sweeps).
            stats = ["-mllvm", "-synthase-tape-stats"] if tool == "synthase-rev" else []
            ok, err, dt = self.cc(syn, lang_flags + stats, ssrc, so)
            exe = os.path.join(self.bindir, f"{obj}-{tool}")
            if ok:
                self.compile_times[(obj, tool)] = dt
                ok, err = self.link(lang_cc, base + [so], exe, [])
            if ok:
                exes[tool] = exe
            else:
                self.errors[(obj, tool)] = err.strip()[-2000:]
        return exes


def run_one(exe, size, check, budget, rundir):
    cmd = [exe, str(size)] + (["--check"] if check else ["--budget", str(budget)])
    rc, out, err, _ = timed_run(cmd, timeout=300, cwd=rundir)
    lines = [l for l in out.splitlines() if l.startswith("{")]
    if rc != 0 or not lines:
        why = "timeout" if rc == -1 else f"exit {rc}"
        return {"error": (why + ": " + err.strip()[-500:]).strip()}
    return json.loads(lines[-1])


def status_of(tool, res):
    """ok | wrong | crash | unsupported | absent."""
    if res is None:
        return "absent"
    if "unsupported" in res:
        return "unsupported"
    if "error" in res:
        return "crash"
    tol = RHO_TOL_FD if tool == "fd" else RHO_TOL
    return "ok" if res["checked"] > 0 and res["rho"] < tol else "wrong"


def fmt_time(s):
    if s is None:
        return "-"
    for unit, f in [("s", 1), ("ms", 1e-3), ("µs", 1e-6)]:
        if s >= f:
            return f"{s / f:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def cell(tool, res, primal):
    st = status_of(tool, res)
    if st == "absent":
        return "—"
    if st == "unsupported":
        return "not supported yet"
    if st == "crash":
        return "FAIL (" + res["error"].split(":")[0] + ")"
    if st == "wrong":
        return f"WRONG (ρ={res['rho']:.1e})"
    if "deriv" not in res:
        return f"ok (ρ={res['rho']:.0e})"
    d = res["deriv"]
    approx = "~" if d.get("extrapolated") else ""
    ratio = d["med"] / primal if primal else float("nan")
    return (f"**{approx}{ratio:.3g}×** {approx}{fmt_time(d['med'])} "
            f"[{fmt_time(d['min'])}–{fmt_time(d['max'])}]")


def machine():
    cpu = platform.processor() or "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", open("/proc/meminfo").read()).group(1))
        mem = f"{kb / 1048576:.0f} GiB"
    except (OSError, AttributeError):
        pass
    osname = platform.platform()
    try:
        osname = re.search(r'PRETTY_NAME="([^"]+)"', open("/etc/os-release").read()).group(1)
    except (OSError, AttributeError):
        pass
    clang = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    adolc = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libadolc-dev"],
                           capture_output=True, text=True).stdout or "?"
    return (f"{cpu}, {os.cpu_count()} cores, {mem} RAM; {osname}; {clang}; ADOL-C {adolc} "
            f"(Debian libadolc-dev); flags {' '.join(CFLAGS)} for every tool")


def svg_plot(results, sizes, objectives, path):
    """Grouped bars of derivative/primal ratio (log scale) per objective and tool, largest size."""
    size = max(sizes)
    tools = [t for t in TOOLS if t != "fd"]
    colors = {"hand": "#4c72b0", "adolc": "#dd8452", "synthase-rev": "#55a868",
              "synthase-fwd": "#8172b2"}
    rows = []
    for obj in objectives:
        prim = primal_time(results, obj, size)
        vals = {}
        for t in tools:
            res = results.get((obj, t, size))
            if status_of(t, res) == "ok" and "deriv" in res and prim:
                vals[t] = res["deriv"]["med"] / prim
        rows.append((obj, vals))
    W, H, left, bottom, top = 900, 420, 60, 60, 40
    lo, hi = 0.5, 1000.0
    import math
    def y(v):
        v = min(max(v, lo), hi)
        return top + (H - top - bottom) * (1 - (math.log10(v) - math.log10(lo)) /
                                           (math.log10(hi) - math.log10(lo)))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">Derivative time ÷ primal '
           f'time ({SIZE_NAMES[size]} inputs, log scale, lower is better)</text>']
    for v in [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]:
        out.append(f'<line x1="{left}" x2="{W - 10}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
                   f'stroke="#ddd"/><text x="{left - 5}" y="{y(v) + 4:.1f}" '
                   f'text-anchor="end">{v:g}</text>')
    gw = (W - left - 10) / max(1, len(rows))
    bw = gw * 0.8 / len(tools)
    for i, (obj, vals) in enumerate(rows):
        x0 = left + i * gw + gw * 0.1
        for j, t in enumerate(tools):
            if t in vals:
                out.append(f'<rect x="{x0 + j * bw:.1f}" y="{y(vals[t]):.1f}" width="{bw - 1:.1f}" '
                           f'height="{y(lo) - y(vals[t]):.1f}" fill="{colors[t]}">'
                           f'<title>{TITLES[obj]} {TOOL_TITLES[t]}: {vals[t]:.3g}×</title></rect>')
            else:
                out.append(f'<text x="{x0 + (j + 0.5) * bw:.1f}" y="{y(lo) - 3:.1f}" '
                           f'text-anchor="middle" font-size="9" fill="#999">n/a</text>')
        if obj in TARGETS:
            ty = y(TARGETS[obj])
            out.append(f'<line x1="{x0:.1f}" x2="{x0 + gw * 0.8:.1f}" y1="{ty:.1f}" y2="{ty:.1f}" '
                       f'stroke="red" stroke-dasharray="4,2"/>')
        out.append(f'<text x="{x0 + gw * 0.4:.1f}" y="{H - bottom + 16}" '
                   f'text-anchor="middle">{TITLES[obj]}</text>')
    lx = left
    for t in tools:
        out.append(f'<rect x="{lx}" y="{H - 24}" width="12" height="12" fill="{colors[t]}"/>'
                   f'<text x="{lx + 16}" y="{H - 14}">{TOOL_TITLES[t]}</text>')
        lx += 130
    out.append(f'<line x1="{lx}" x2="{lx + 14}" y1="{H - 18}" y2="{H - 18}" stroke="red" '
               f'stroke-dasharray="4,2"/><text x="{lx + 18}" y="{H - 14}">published best</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def primal_time(results, obj, size):
    # The denominator is the primal compiled by plain clang, timed in the hand-written executable.
    res = results.get((obj, "hand", size))
    return res["primal"]["med"] if res and "primal" in res else None


def fmt_bytes(n):
    for unit, f in [("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)]:
        if n >= f:
            return f"{n / f:.3g} {unit}"
    return f"{n} B"


def memory_table(results, sizes, objectives):
    """Synthase rev's tape (high-water mark of one gradient) next to what the hand-written
    adjoint keeps (obj_stored_bytes); the goal is a tape of at most twice that."""
    md = ["### Memory: Synthase rev's peak tape against the bytes the hand-written adjoint stores\n",
          "| objective | size | hand-written stores | Synthase rev tape (peak) | tape ÷ hand-written |",
          "|---|---|---|---|---|"]
    for size in sizes:
        for o in objectives:
            res = results.get((o, "synthase-rev", size)) or {}
            if "tape_peak_bytes" not in res:
                continue
            hand, tape = res.get("hand_stored_bytes"), res["tape_peak_bytes"]
            ratio = (f"**{tape / hand:.3g}×**" if hand else
                     ("—" if tape <= 512 else "— (hand-written recomputes)"))
            md.append(f"| {TITLES[o]} | {res.get('desc', '?')} | "
                      f"{fmt_bytes(hand) if hand is not None else '?'} | {fmt_bytes(tape)} | {ratio} |")
    md.append("")
    return "\n".join(md)


def tables(results, builder, sizes, objectives, quick):
    md = []
    for size in sizes:
        descs = {o: (results.get((o, "hand", size)) or {}).get("desc", "?") for o in objectives}
        if quick:
            md.append(f"### Correctness, {SIZE_NAMES[size]} inputs (ρ against hand-written)\n")
            md.append("| objective | size | " + " | ".join(TOOL_TITLES[t] for t in TOOLS) + " |")
            md.append("|---" * (len(TOOLS) + 2) + "|")
            for o in objectives:
                cells = [cell(t, results.get((o, t, size)), None) for t in TOOLS]
                md.append(f"| {TITLES[o]} | {descs[o]} | " + " | ".join(cells) + " |")
            md.append("")
            continue
        md.append(f"### {SIZE_NAMES[size].capitalize()} inputs: derivative ÷ primal time "
                  "(median), absolute median [min–max]\n")
        md.append("| objective | size | primal | " +
                  " | ".join(TOOL_TITLES[t] for t in TOOLS) + " | target |")
        md.append("|---" * (len(TOOLS) + 4) + "|")
        for o in objectives:
            prim = primal_time(results, o, size)
            pres = (results.get((o, "hand", size)) or {}).get("primal")
            ptxt = (f"{fmt_time(pres['med'])} [{fmt_time(pres['min'])}–{fmt_time(pres['max'])}]"
                    if pres else "-")
            cells = [cell(t, results.get((o, t, size)), prim) for t in TOOLS]
            tgt = f"≤ {TARGETS[o]}" if o in TARGETS else ""
            md.append(f"| {TITLES[o]} | {descs[o]} | {ptxt} | " + " | ".join(cells) +
                      f" | {tgt} |")
        md.append("")
    if not quick:
        md.append(memory_table(results, sizes, objectives))
    md.append("### Compile time (clang -O2 -c, one translation unit)\n")
    md.append("| objective | primal + hand-written | ADOL-C | Synthase TU without plugin | "
              "Synthase rev | Synthase fwd |")
    md.append("|---|---|---|---|---|---|")
    ct = builder.compile_times
    for o in objectives:
        f = lambda k: fmt_time(ct[(o, k)]) if (o, k) in ct else "—"
        noad = f("synthase-rev-noad") if (o, "synthase-rev-noad") in ct else f("synthase-fwd-noad")
        md.append(f"| {TITLES[o]} | {f('primal')} | {f('adolc')} | {noad} | "
                  f"{f('synthase-rev')} | {f('synthase-fwd')} |")
    md.append("")
    return "\n".join(md)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--objectives", default=",".join(OBJECTIVES))
    ap.add_argument("--sizes", default=None)
    ap.add_argument("--budget", type=float, default=0.25)
    ap.add_argument("--update-readme", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    out = os.path.join(build, "bench")
    rundir = os.path.join(out, "run")
    os.makedirs(rundir, exist_ok=True)
    with open(os.path.join(rundir, ".adolcrc"), "w") as f:
        f.write(ADOLCRC)
    objectives = [o for o in a.objectives.split(",")
                  if any(os.path.exists(os.path.join(HERE, "objectives", o + e)) for e in (".c", ".cpp"))]
    sizes = [int(s) for s in a.sizes.split(",")] if a.sizes else ([0] if a.quick else [0, 1, 2])

    t0 = time.time()
    b = Builder(build, out)
    b.common()
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        exes = dict(zip(objectives, pool.map(b.objective, objectives)))
    log(f"bench: built {sum(len(e) for e in exes.values())} executables in {time.time() - t0:.0f} s")

    results = {}
    for size in sizes:
        for o in objectives:
            for t in TOOLS:
                if t in exes[o]:
                    res = run_one(exes[o][t], size, a.quick, a.budget, rundir)
                elif (o, t) in b.errors:
                    res = {"unsupported": b.errors[(o, t)]}
                else:
                    continue
                results[(o, t, size)] = res
                st = status_of(t, res)
                rho = f" rho={res['rho']:.1e}" if "rho" in res else ""
                log(f"bench: {o:8s} {SIZE_NAMES[size]:6s} {t:13s} {st}{rho}")

    md = tables(results, b, sizes, objectives, a.quick)
    mach = machine()
    header = (f"Synthase benchmarks ({'quick: correctness only' if a.quick else 'full'}), "
              f"{time.strftime('%Y-%m-%d %H:%M')}\n\nMachine: {mach}\n\n")
    print(header + md)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(header + md)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump({"machine": mach, "results": [{**r, "objective": o, "tool": t, "size": s}
                                                for (o, t, s), r in results.items()],
                   "compile_times": [dict(objective=o, what=w, seconds=v)
                                     for (o, w), v in b.compile_times.items()]}, f, indent=1)
    if not a.quick:
        svg_plot(results, sizes, objectives, os.path.join(out, "ratios.svg"))

    # Per-objective verdict lines and the exit status.
    ref_fail, syn_wrong, syn_unsup, syn_ok = [], [], [], []
    for o in objectives:
        parts = []
        for t in TOOLS:
            for size in sizes:
                st = status_of(t, results.get((o, t, size)))
                if st == "absent":
                    continue
                if t.startswith("synthase"):
                    {"ok": syn_ok, "unsupported": syn_unsup}.get(st, syn_wrong).append(
                        (o, t, size))
                elif st != "ok":
                    ref_fail.append((o, t, size))
            sts = {status_of(t, results.get((o, t, s))) for s in sizes} - {"absent"}
            if sts:
                parts.append(f"{t}={'ok' if sts == {'ok'} else '/'.join(sorted(sts))}")
        print(f"check {o}: " + " ".join(parts))
    uniq = lambda l: sorted({f"{o}/{t}" for o, t, _ in l})
    print(f"Synthase: {len(uniq(syn_ok))} variants correct, {len(uniq(syn_wrong))} wrong or "
          f"crashing {uniq(syn_wrong)}, {len(uniq(syn_unsup))} not supported yet "
          f"{uniq(syn_unsup)}")
    if ref_fail:
        print(f"reference checks FAILED: {uniq(ref_fail)}")
    log(f"bench: done in {time.time() - t0:.0f} s; results in {out}")

    if a.update_readme and not a.quick:
        readme = os.path.join(HERE, "README.md")
        text = open(readme).read()
        start, end = "<!-- results:begin -->", "<!-- results:end -->"
        if start in text and end in text:
            new = (f"{start}\n{header}{md}\n![ratios](ratios.svg)\n{end}")
            text = text[:text.index(start)] + new + text[text.index(end) + len(end):]
            with open(readme, "w") as f:
                f.write(text)
            shutil.copy(os.path.join(out, "ratios.svg"), os.path.join(HERE, "ratios.svg"))
    bad = ref_fail + (syn_wrong if a.quick else [])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
