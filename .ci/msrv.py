#!/usr/bin/env python3
"""Checks that each workspace member's rust-version is true for its locked dependencies.

pledge cannot build with an older toolchain on this machine (only one is installed), so the
check is the one that can be made offline: every package in the locked dependency graph that
declares a rust-version must not need a newer compiler than pledge claims. Run from the
repository root; exits 1 with the offending packages listed.
"""
import json
import subprocess
import sys


def parse(v):
    return tuple(int(x) for x in v.split(".")) + (0,) * (3 - len(v.split(".")))


meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
by_id = {p["id"]: p for p in meta["packages"]}
failed = False
# Every workspace member: the root crate and the Python package's extension module (python/).
for member in meta["workspace_members"]:
    ours = by_id[member]
    claimed = ours.get("rust_version")
    if not claimed:
        sys.exit(f"error: {ours['name']}'s Cargo.toml declares no rust-version")
    # Only packages that a normal build compiles (not dev-dependencies).
    seen, todo = set(), [ours["id"]]
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        for d in nodes[i]["deps"]:
            if any(k["kind"] in (None, "build") for k in d["dep_kinds"]):
                todo.append(d["pkg"])
    need = [
        (by_id[i]["name"], by_id[i]["version"], by_id[i]["rust_version"])
        for i in seen
        if i != ours["id"] and by_id[i].get("rust_version")
    ]
    too_new = [n for n in need if parse(n[2]) > parse(claimed)]
    highest = max((n[2] for n in need), key=parse, default="none")
    if too_new:
        print(f"error: {ours['name']}: rust-version = {claimed} is false; these dependencies need newer compilers:")
        for name, version, rv in sorted(too_new, key=lambda n: parse(n[2]), reverse=True):
            print(f"  {name} {version}: rust-version {rv}")
        failed = True
    else:
        print(f"{ours['name']}: rust-version {claimed} holds: the highest rust-version among {len(need)} dependencies is {highest}")
sys.exit(1 if failed else 0)
