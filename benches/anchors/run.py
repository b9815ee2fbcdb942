"""Times pledge side by side with its anchors on the same inputs and prints the ratios.

Run it through `benches/anchors.sh` (which builds pledge and finds or installs the anchors);
`python3 benches/anchors/run.py --help` lists the options. Standard library only: the anchors
run in their own processes with the interpreter given by --python.

Every figure is of a whole process (or a sequence of processes), taken from the kernel's own
accounting of the finished child (`os.wait4`): wall seconds, CPU seconds (user + system), and
peak resident set size as GNU time (`/usr/bin/time -f %M`) reports it. (The peak of a child this
script starts itself would count this script's own memory: Linux keeps a process's high-water
mark across `exec`, and Python starts children with vfork. Without GNU time the peak is taken
from `os.wait4` and the script says so.) pledge and the anchor run in turn, A B A B ..., and each pair gives a
ratio pledge/anchor; the table prints medians of the runs and of the paired ratios, so a
comparison holds when the machine's speed drifts. After the timings the outputs are checked
against each other (same pairs, recall, same per-topic values, same p-values).
"""

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


class Failed(Exception):
    pass


def gnu_time():
    """The GNU time binary, when there is one that reports the peak with `-f %M`."""
    path = shutil.which("time", path="/usr/bin:/bin")
    if path is None:
        return None
    ok = subprocess.run([path, "-f", "%M", "-o", os.devnull, "true"], capture_output=True)
    return path if ok.returncode == 0 else None


TIME = gnu_time()


def run_once(cmds, cwd, ok_codes, env, stdout_path):
    """Runs `cmds` one after the other; returns (wall s, CPU s, peak RSS KiB) of the sequence."""
    wall = cpu = 0.0
    peak = 0
    rss_path = stdout_path + ".rss"
    for cmd in cmds:
        argv = [TIME, "-f", "%M", "-o", rss_path, *cmd] if TIME else cmd
        with open(stdout_path, "wb") as out, open(stdout_path + ".err", "wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
            _, status, usage = os.wait4(proc.pid, 0)
            wall += time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        cpu += usage.ru_utime + usage.ru_stime  # includes the children of GNU time
        if TIME:
            # The last line; a first line says "Command exited with non-zero status N".
            peak = max(peak, int(Path(rss_path).read_text().split()[-1]))
        else:
            peak = max(peak, usage.ru_maxrss)
        if proc.returncode not in ok_codes:
            tail = Path(stdout_path + ".err").read_text(errors="replace").strip().splitlines()[-5:]
            raise Failed(f"`{' '.join(map(str, cmd))}` exited {proc.returncode}: " + " / ".join(tail))
    return wall, cpu, peak


class Command:
    """A named command (or sequence of commands) to time."""

    def __init__(self, name, cmds, ok_codes=(0,), env=None):
        self.name, self.cmds, self.ok_codes = name, [list(map(str, c)) for c in cmds], ok_codes
        self.env = env
        self.samples = []
        self.ratios = None

    def once(self, work, count=True):
        """One run in `work`; its standard output (of the last command) is kept in
        `work/<first word of the name>.stdout`."""
        out = str(Path(work) / (self.name.split()[0] + ".stdout"))
        s = run_once(self.cmds, work, self.ok_codes, self.env, out)
        if count:
            self.samples.append(s)
        return s


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def paired(pledge, anchor, runs, work, warmup, log, warm_anchor=True):
    """`runs` rounds of pledge then anchor after `warmup` uncounted rounds (of pledge alone
    unless `warm_anchor`); the paired ratios."""
    for _ in range(warmup):
        pledge.once(work, count=False)
        if warm_anchor:
            anchor.once(work, count=False)
    ratios = []
    for r in range(runs):
        a = pledge.once(work)
        b = anchor.once(work)
        ratios.append(tuple(x / y if y else float("nan") for x, y in zip(a, b)))
        log(f"  round {r + 1}/{runs}: {pledge.name} {a[0]:.2f} s, {anchor.name} {b[0]:.2f} s")
    anchor.ratios = ratios
    return ratios


def fmt_row(name, samples, ratios=None, result=""):
    wall = median([s[0] for s in samples])
    cpu = median([s[1] for s in samples])
    peak = median([s[2] for s in samples]) / 1024
    cells = [f"{name:<44}", f"{wall:>8.2f}", f"{cpu:>8.2f}", f"{peak:>9.0f}"]
    if ratios:
        cells += [f"{median([r[i] for r in ratios]):>7.3f}" for i in range(3)]
    else:
        cells += [f"{'':>7}"] * 3
    return " ".join(cells) + ("  " + result if result else "")


HEADER = (
    f"{'command':<44} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9} {'wall':>7} {'CPU':>7} {'peak':>7}"
    "  (pledge/anchor, medians of paired runs)"
)


def has_module(python, module):
    if not python:
        return False
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def summary(cmd):
    return {
        "command": cmd.name,
        "wall_s": median([s[0] for s in cmd.samples]),
        "cpu_s": median([s[1] for s in cmd.samples]),
        "peak_mib": median([s[2] for s in cmd.samples]) / 1024,
        "runs": len(cmd.samples),
        "ratios_pledge_over_this": None
        if not cmd.ratios
        else {k: median([r[i] for r in cmd.ratios]) for i, k in enumerate(["wall", "cpu", "peak"])},
    }


# ---------------------------------------------------------------- near-duplicate join


def near_duplicate_rule(protocol):
    with open(protocol, "rb") as f:
        p = tomllib.load(f)
    rules = [r for r in p.get("link-rules", []) if r.get("kind") == "near-duplicate-passage"]
    if len(rules) != 1:
        raise Failed(f"{protocol}: expected one near-duplicate-passage rule, found {len(rules)}")
    r = rules[0]
    return r.get("shingle-size", 5), r.get("jaccard", 0.8), r.get("normalization", "nfc")


def read_pairs(path):
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            if line.startswith("{"):
                r = json.loads(line)
                a, b = r["a"], r["b"]
            else:
                a, b = line.rstrip("\n").split("\t")
            out.add((a, b) if a < b else (b, a))
    return out


def components_group(args, work, log, results):
    data = Path(args.data) / "statutes-kr"
    passages, questions = data / "passages.jsonl.gz", data / "questions.jsonl.gz"
    if not (passages.exists() and questions.exists()):
        print(f"near-duplicate join: skipped, {passages} or {questions} is absent")
        return
    size, jaccard, norm = near_duplicate_rule(args.protocol)
    w = Path(work) / "components"
    w.mkdir()
    pledge = Command(
        "pledge components --dry-run --write-pairs",
        [[args.pledge, "components", args.protocol, "--passages", passages, "--questions", questions,
          "--dry-run", "--write-pairs", w / "pledge.jsonl", "--format", "json"]],
        ok_codes=(0, 3),  # 3: the stop rule said stop, as it does on this corpus
    )
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    rule = ["--passages", passages, "--shingle-size", size, "--jaccard", jaccard, "--normalization", norm]
    anchors = [("Python exact prefix-filter join", None, [HERE / "exact_join.py"], "exact")]
    anchors.append(("datasketch MinHashLSH (128 perm)", "datasketch", [HERE / "minhash_lsh.py", "--library", "datasketch"], "datasketch"))
    anchors.append(("rensa RMinHashLSH (16 bands x 8)", "rensa", [HERE / "minhash_lsh.py", "--library", "rensa"], "rensa"))
    print(f"\nnear-duplicate join on {passages.name} (shingles: {norm}, {size}-grams, Jaccard >= {jaccard})")
    timed = []
    for name, module, script, tag in anchors:
        if tag not in args.anchors:
            continue
        python = args.python if module else (args.python or sys.executable)
        if module and not has_module(python, module):
            print(f"  {name}: skipped, {module} is not installed (benches/anchors.sh --install)")
            continue
        anchor = Command(name, [[python, *script, *rule, "--out", w / f"{tag}.tsv"]], env=env)
        log(f"{name}: {args.runs} paired runs")
        # One uncounted pledge run first (it brings the input into the page cache); the
        # anchors take minutes a run and are not warmed up.
        paired(pledge, anchor, args.runs, w, 1 if not timed else 0, log, warm_anchor=False)
        timed.append((anchor, tag))
    if not timed:
        return
    ours = read_pairs(w / "pledge.jsonl")
    count = json.loads((w / "pledge.stdout").read_text())["count"]
    counts = [count["before_rules"]["components"]] + [r["components"] for r in count["ablation"]]
    rows = [fmt_row(pledge.name, pledge.samples, None, f"{len(ours):,} pairs; components {' -> '.join(map(str, counts))}")]
    group = {"passages": str(passages), "pairs": len(ours), "commands": [summary(pledge)]}
    for anchor, tag in timed:
        theirs = read_pairs(w / f"{tag}.tsv")
        if tag == "exact":
            same = theirs == ours
            res = f"{len(theirs):,} pairs, {'the same pairs as pledge' if same else 'NOT the same pairs as pledge'}"
            group["exact_same_pairs"] = same
        else:
            recall = len(theirs & ours) / len(ours) if ours else float("nan")
            extra = len(theirs - ours)
            res = f"{len(theirs):,} verified pairs, recall {100 * recall:.2f}%"
            if extra:
                res += f", {extra} pairs pledge lacks"
            group[f"{tag}_recall"] = recall
        rows.append(fmt_row(anchor.name, anchor.samples, anchor.ratios, res))
        group["commands"].append(summary(anchor))
    print(HEADER)
    print("\n".join(rows))
    results["near_duplicate_join"] = group


# ---------------------------------------------------------------- trec_eval


def parse_trec(text):
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if len(f) == 3:
            out[(f[0].strip(), f[1].strip())] = f[2].strip()
    return out


def trec_group(args, work, log, results):
    root = Path(args.data) / "robust03" / "examples" / "robust03"
    qrels = root / "qrel" / "robust03_qrels.txt"
    if not qrels.exists():
        print(f"\ntrec_eval: skipped, {qrels} is absent")
        return
    if not args.trec_eval:
        print("\ntrec_eval: skipped, no trec_eval binary (benches/anchors.sh --install builds one, or set TREC_EVAL)")
        return
    w = Path(work) / "trec"
    (w / "runs").mkdir(parents=True)
    runs = []
    for gz in sorted((root / "runs").glob("*.gz")):
        plain = w / "runs" / gz.stem
        plain.write_bytes(gzip.decompress(gz.read_bytes()))  # trec_eval reads plain files
        runs.append(plain)
    print(f"\ntrec_eval -q -m all_trec on {len(runs)} TREC 2003 Robust runs ({qrels.name}), plain files")
    te = Command(f"trec_eval -q -m all_trec, {len(runs)} processes", [[args.trec_eval, "-q", "-m", "all_trec", qrels, r] for r in runs])
    one = Command("pledge eval -m all_trec, 1 process", [[args.pledge, "eval", qrels, *runs, "-m", "all_trec", "--format", "trec"]])
    each = Command(f"pledge eval -m all_trec, {len(runs)} processes", [[args.pledge, "eval", qrels, r, "-m", "all_trec", "--format", "trec"] for r in runs])
    # One anchor command, two pledge commands: ratios are pledge/trec_eval for each.
    log(f"trec_eval: {args.runs} paired runs, twice")
    r_one = paired(one, te, args.runs, w, 1, log)
    r_each = paired(each, te, args.runs, w, 0, log)
    te.ratios = None
    # Agreement: per run, pledge's output against trec_eval's.
    identical = values = same_values = topics_rows = same_topics = 0
    for r in runs:
        a = subprocess.run([args.trec_eval, "-q", "-m", "all_trec", qrels, r], capture_output=True, check=True).stdout
        b = subprocess.run([args.pledge, "eval", qrels, r, "-m", "all_trec", "--format", "trec"], capture_output=True, check=True).stdout
        identical += a == b
        pa, pb = parse_trec(a.decode()), parse_trec(b.decode())
        for k, v in pa.items():
            values += 1
            same_values += pb.get(k) == v
            if k[1] != "all":
                topics_rows += 1
                same_topics += pb.get(k) == v
        values += len(pb.keys() - pa.keys())
    print(HEADER)
    print(fmt_row(te.name, te.samples))
    print(fmt_row(one.name, one.samples, r_one))
    print(fmt_row(each.name, each.samples, r_each))
    print(
        f"agreement: output byte for byte identical on {identical} of {len(runs)} runs; "
        f"{same_values:,} of {values:,} printed values equal ({same_topics:,} of {topics_rows:,} per-topic values)"
    )
    results["trec_eval"] = {
        "runs": len(runs),
        "identical_outputs": identical,
        "values": values,
        "same_values": same_values,
        "per_topic_values": topics_rows,
        "same_per_topic_values": same_topics,
        "commands": [summary(te), summary(one) | {"ratios_pledge_over_trec_eval": {k: median([x[i] for x in r_one]) for i, k in enumerate(["wall", "cpu", "peak"])}},
                     summary(each) | {"ratios_pledge_over_trec_eval": {k: median([x[i] for x in r_each]) for i, k in enumerate(["wall", "cpu", "peak"])}}],
    }


# ---------------------------------------------------------------- scipy


def stats_group(args, work, log, results):
    root = Path(args.data) / "robust03" / "examples" / "robust03"
    qrels = root / "qrel" / "robust03_qrels.txt"
    if not qrels.exists():
        print(f"\npaired tests: skipped, {qrels} is absent")
        return
    if not has_module(args.python, "scipy"):
        print("\npaired tests: skipped, scipy is not installed (benches/anchors.sh --install)")
        return
    w = Path(work) / "stats"
    w.mkdir()
    maker = "trec_eval" if args.trec_eval else "pledge eval"
    files = []
    for gz in sorted((root / "runs").glob("*.gz")):
        tag = gz.stem.removeprefix("input.")
        path = w / f"{tag}.txt"
        if args.trec_eval:
            plain = w / gz.stem
            plain.write_bytes(gzip.decompress(gz.read_bytes()))
            cmd = [args.trec_eval, "-q", "-m", "map", qrels, plain]
        else:
            cmd = [args.pledge, "eval", qrels, gz, "-m", "map", "-q", "--format", "trec"]
        path.write_bytes(subprocess.run(list(map(str, cmd)), capture_output=True, check=True).stdout)
        files.append(path)
    tags = [f.stem for f in files]
    baseline = "uic0301" if "uic0301" in tags else tags[0]
    trials = ["--trials", args.trials, "--randomization-trials", args.trials]
    scores = [x for f in files for x in ("--scores", f)]
    print(
        f"\npaired tests on per-topic AP ({len(files)} runs x 100 topics from {maker} -q -m map), each run against "
        f"{baseline}: bootstrap {args.trials} trials + randomization {args.trials} trials + t-test, {len(files) - 1} comparisons"
    )
    pledge = Command("pledge compare", [[args.pledge, "compare", *scores, "--measure", "map", "--baseline", baseline, *trials, "--format", "json"]])
    scipy = Command("scipy bootstrap+permutation_test+ttest_rel",
                    [[args.python, HERE / "paired_tests.py", *scores, "--measure", "map", "--baseline", baseline, *trials]],
                    env=dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1"))
    log(f"paired tests: {args.runs} paired runs")
    ratios = paired(pledge, scipy, args.runs, w, 1, log)
    ours = json.loads(subprocess.run(pledge.cmds[0], capture_output=True, check=True, cwd=w).stdout)
    theirs = {c["system"]: c for c in json.loads(subprocess.run(scipy.cmds[0], capture_output=True, check=True, cwd=w).stdout)}
    d_t = d_tci = d_boot = d_rand = z_rand = 0.0
    b = args.trials
    for c in ours["comparisons"]:
        s = theirs[c["system"]]
        d_t = max(d_t, abs(c["t_test"]["p"] - s["t_p"]))
        d_tci = max(d_tci, *(abs(x - y) for x, y in zip(c["t_test"]["ci"], s["t_interval"])))
        d_boot = max(d_boot, *(abs(x - y) for x, y in zip(c["paired"]["interval"], s["bootstrap_interval"])))
        p1, p2 = c["randomization"]["p"], s["randomization_p"]
        d_rand = max(d_rand, abs(p1 - p2))
        se = ((p1 * (1 - p1) + p2 * (1 - p2)) / b) ** 0.5
        z_rand = max(z_rand, abs(p1 - p2) / se if se else 0.0)
    print(HEADER)
    print(fmt_row(pledge.name, pledge.samples))
    print(fmt_row(scipy.name, scipy.samples, ratios))
    print(
        f"agreement over {len(ours['comparisons'])} comparisons, largest difference: t-test p {d_t:.1e}, t interval {d_tci:.1e} "
        f"(both exact); bootstrap interval endpoints {d_boot:.4f}, randomization p {d_rand:.4f} = {z_rand:.1f} "
        f"standard errors of the difference of two Monte-Carlo estimates (independent generators, {b} trials each)"
    )
    results["paired_tests"] = {
        "comparisons": len(ours["comparisons"]),
        "max_abs_diff": {"t_p": d_t, "t_interval": d_tci, "bootstrap_interval": d_boot, "randomization_p": d_rand},
        "max_randomization_p_z": z_rand,
        "commands": [summary(pledge), summary(scipy)],
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pledge", required=True, help="the pledge binary (a release build)")
    p.add_argument("--python", help="interpreter with the anchor packages (none: only the standard-library anchor)")
    p.add_argument("--trec-eval", help="a trec_eval binary")
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data"), help="data directory (default ../shared/data)")
    p.add_argument("--protocol", default=str(ROOT / "protocols" / "statutes-kr.toml"))
    p.add_argument("--runs", type=int, default=3, help="paired runs of each comparison (default 3)")
    p.add_argument("--trials", type=int, default=10000, help="bootstrap and randomization trials (default 10000)")
    p.add_argument("--only", default="components,trec,stats", help="groups to run: components,trec,stats")
    p.add_argument("--anchors", default="exact,datasketch,rensa", help="near-duplicate anchors: exact,datasketch,rensa")
    p.add_argument("--json", help="also write the figures here as JSON")
    args = p.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    if not Path(args.data).is_dir():
        print(f"anchors: skipped, the data directory {args.data} is absent (pass --data DIR)")
        return 0
    args.anchors = set(args.anchors.split(","))
    # The commands run in temporary directories: absolute paths.
    for name in ("pledge", "python", "trec_eval"):
        value = getattr(args, name)
        if value:
            found = shutil.which(value)
            if not found:
                sys.exit(f"--{name.replace('_', '-')} {value}: no such executable")
            setattr(args, name, os.path.abspath(found))  # not resolved: a venv's python is a symlink
    args.data, args.protocol = os.path.abspath(args.data), os.path.abspath(args.protocol)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    groups = {"components": components_group, "trec": trec_group, "stats": stats_group}
    results = {"date": time.strftime("%Y-%m-%d", time.gmtime()), "cpus": os.cpu_count(), "runs": args.runs}
    if TIME is None:
        print("note: no GNU time in /usr/bin: peaks from os.wait4, which count this script's own memory too")
    failed = False
    with tempfile.TemporaryDirectory(prefix="pledge-anchors-") as work:
        for g in args.only.split(","):
            if g not in groups:
                sys.exit(f"unknown group {g} (components, trec, stats)")
            try:
                groups[g](args, work, log, results)
            except (Failed, subprocess.CalledProcessError, OSError) as e:
                print(f"{g}: failed: {e}")
                failed = True
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
