#!/usr/bin/env python3
"""The realistic-corpus scaling bench of `pledge components` (run through benches/realistic.sh).

For each size it makes (once, kept in --data) a corpus with tools/realistic_corpus.py and a
questions file, then runs `pledge components benches/realistic/protocol.toml --dry-run` under each
memory limit, one run at a time, under /usr/bin/time -v, and reports wall and CPU time, peak
resident memory, how the join ran (in memory or partitioned, and the decision's estimate), the
pairs and the counts. Where one size ran both in memory and partitioned, the two pair lists
(--write-pairs) must be identical, byte for byte. The growth exponent between consecutive sizes
is log(time ratio) / log(size ratio): 1 is linear, 2 quadratic.
"""

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def size(s):
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmM]?)", s)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {s}")
    return int(float(m.group(1)) * {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6}[m.group(2)])


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pledge", default=os.path.join(ROOT, "target/release/pledge"))
    ap.add_argument("--python", default=sys.executable, help="a Python with NumPy, for the generator")
    ap.add_argument("--data", default=os.path.join(ROOT, "target/realistic"))
    ap.add_argument("--sizes", default="1M,5M,21M", help="passages per corpus, e.g. 100k,1M,21M (21M: DPR's 21,015,324)")
    ap.add_argument("--limits", default="4GiB,8GiB", help="--memory-limit values")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=3 * 3600, help="seconds one count may take before it is stopped")
    ap.add_argument("--compare-pairs", action="store_true",
                    help="also write the pairs of each run and compare in-memory with partitioned runs")
    ap.add_argument("--json", help="also write the figures as JSON")
    return ap.parse_args()


def corpus(a, n):
    """The passages and questions files of size n, made when missing."""
    os.makedirs(a.data, exist_ok=True)
    tag = f"{n}-seed{a.seed}"
    passages = os.path.join(a.data, f"passages-{tag}.jsonl.zst")
    questions = os.path.join(a.data, f"questions-{tag}.jsonl")
    if os.path.exists(passages) and os.path.exists(questions):
        return passages, questions
    print(f"making {passages} ...", file=sys.stderr, flush=True)
    gen = [a.python, os.path.join(ROOT, "tools/realistic_corpus.py"), "-", "--passages", str(n),
           "--seed", str(a.seed), "--questions-out", questions]
    tmp = passages + ".part"
    with open(tmp, "wb") as out:
        g = subprocess.Popen(gen, stdout=subprocess.PIPE)
        z = subprocess.run(["zstd", "-q", "-3", "-T2", "-c"], stdin=g.stdout, stdout=out, check=True)
        g.stdout.close()
        if g.wait() != 0 or z.returncode != 0:
            sys.exit("the generator failed")
    os.replace(tmp, passages)
    return passages, questions


def timed(cmd, timeout):
    """Runs cmd under /usr/bin/time -v; returns (exit code, stdout, figures)."""
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/time", "-v"] + cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        return None, out, {"wall": time.time() - t0, "timed_out": True}
    f = {}
    for key, pat in [("user", r"User time \(seconds\): ([\d.]+)"), ("sys", r"System time \(seconds\): ([\d.]+)"),
                     ("rss_kb", r"Maximum resident set size \(kbytes\): (\d+)"),
                     ("wall", r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)")]:
        m = re.search(pat, err)
        if m:
            v = m.group(1)
            if key == "wall":
                parts = [float(x) for x in v.split(":")]
                v = sum(x * 60 ** i for i, x in enumerate(reversed(parts)))
            f[key] = float(v)
    return p.returncode, out, f


def count(a, n, limit, passages, questions, pairs_out):
    cmd = [a.pledge, "components", os.path.join(HERE, "protocol.toml"), "--passages", passages,
           "--questions", questions, "--dry-run", "--format", "json", "--memory-limit", limit]
    if os.path.getsize(passages) >= 4 << 30:
        # Past the default bound on an input's raw bytes (the passages are streamed, never held).
        cmd += ["--max-input-size", "1TiB"]
    if pairs_out:
        cmd += ["--write-pairs", pairs_out]
    rc, out, f = timed(cmd, a.timeout)
    row = {"passages": n, "limit": limit, **f}
    if rc not in (0, 1, 3):
        row["error"] = f"exit {rc}"
        return row
    c = json.loads(out)["count"]
    near = [r for r in c["ablation"] if r["kind"] == "near-duplicate-passage"][0]
    row.update(pairs=near["links"], components=[r["components"] for r in c["ablation"]],
               join=near.get("join"), with_candidates=c["with_candidates"])
    return row


def main():
    a = parse()
    sizes = [size(s) for s in a.sizes.split(",")]
    limits = a.limits.split(",")
    rows = []
    print(f"# {time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.2f}, "
          f"{os.cpu_count()} cores", flush=True)
    print("| passages | limit | join | pairs | components | wall s | CPU s | peak GiB |")
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for n in sizes:
        passages, questions = corpus(a, n)
        written = {}
        for limit in limits:
            pairs_out = os.path.join(a.data, f"pairs-{n}-{limit}.jsonl") if a.compare_pairs else None
            r = count(a, n, limit, passages, questions, pairs_out)
            r["load"] = os.getloadavg()[0]
            rows.append(r)
            j = r.get("join") or {}
            how = j.get("mode", "-") + (f" ({j['partitions']})" if j.get("mode") == "partitioned" else "")
            cpu = r.get("user", 0) + r.get("sys", 0)
            state = r.get("error") or ("stopped at the timeout" if r.get("timed_out") else "")
            print(f"| {n:,} | {limit} | {how} {state} | {r.get('pairs', '-'):,} | "
                  f"{' → '.join(f'{x:,}' for x in r.get('components', []))} | {r['wall']:.1f} | {cpu:.1f} | "
                  f"{r.get('rss_kb', 0) / 2**20:.2f} |" if "pairs" in r else
                  f"| {n:,} | {limit} | {state} | - | - | {r['wall']:.1f} | {cpu:.1f} | {r.get('rss_kb', 0) / 2**20:.2f} |",
                  flush=True)
            if pairs_out and "pairs" in r:
                written.setdefault(j.get("mode"), pairs_out)
        if len(written) == 2:
            same = open(written["in-memory"], "rb").read() == open(written["partitioned"], "rb").read()
            print(f"{n:,} passages: in-memory and partitioned pairs identical: {same}", flush=True)
            rows.append({"passages": n, "identical_pairs": same})
            if not same:
                sys.exit(1)
    for limit in limits:
        done = [r for r in rows if r.get("limit") == limit and "pairs" in r]
        for x, y in zip(done, done[1:]):
            e = math.log(y["wall"] / x["wall"]) / math.log(y["passages"] / x["passages"])
            print(f"growth exponent under {limit}, {x['passages']:,} → {y['passages']:,} passages: {e:.2f} (wall)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
