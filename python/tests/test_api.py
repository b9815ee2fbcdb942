"""The Python API against the CLI: every result equals the JSON the `pledge` binary prints for
the same command, on the bundled HotpotQA data and a TREC pair; errors carry the CLI's text and
exit code; the ledger operations refuse as the CLI does.

Run by .ci/run against the wheel it builds (`pip install` into the CI venv), with
PLEDGE_BINARY set to the binary of the same build (default: target/release/pledge).
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import pledge

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
HOTPOT = DATA / "hotpotqa-100" / "correctness.csv"
QUESTIONS = DATA / "hotpotqa-100" / "questions.json"
PROTOCOL = ROOT / "protocols" / "hotpotqa.toml"
QRELS = DATA / "trec" / "qrels.rel_level"
RUN_A = DATA / "trec" / "input.InexpC2.subset.gz"
RUN_B = DATA / "trec" / "input.humR03dc.subset.gz"
NOW = "2026-11-30T12:00:00Z"


def binary() -> str:
    b = os.environ.get("PLEDGE_BINARY") or str(ROOT / "target" / "release" / "pledge")
    if not os.path.exists(b):
        if os.environ.get("CI") == "true":
            pytest.fail("the pledge binary %s is missing (CI=true)" % b)
        pytest.skip("no pledge binary at %s" % b)
    return b


def cli(*args, cwd=None):
    """Runs the binary; returns (exit code, stdout, stderr)."""
    p = subprocess.run([binary(), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args, cwd=None, code=0, same_as=None):
    """The binary's `--format json` output; with `same_as`, the paths under `cwd` (a twin
    repository) read as under `same_as` (the repository the API ran in)."""
    c, out, err = cli(*args, "--format", "json", cwd=cwd)
    assert c == code, err
    if same_as is not None:
        out = out.replace(json.dumps(str(cwd))[1:-1], json.dumps(str(same_as))[1:-1])
    return json.loads(out)


@pytest.fixture
def hermetic(monkeypatch):
    """A fixed clock and git without the user's configuration, for the API and the binary."""
    for k, v in {
        "PLEDGE_NOW": NOW,
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.org",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.org",
        "GIT_AUTHOR_DATE": NOW,
        "GIT_COMMITTER_DATE": NOW,
    }.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)


# --- scores and comparisons -------------------------------------------------------------------


def test_read_gives_the_per_topic_scores_and_the_cli_means():
    t = pledge.read(HOTPOT, labels={"HALTED": 0})
    assert len(t.systems) == 6 and len(t.topics) == 100
    # The provenance's counts: gpt-3.5-turbo 57/100 correct, gpt-4 68/100.
    assert t.mean("cot_context_gpt-3.5-turbo_trial1") == pytest.approx(0.57, abs=1e-12)
    assert t.mean("cot_context_gpt-4_trial1") == pytest.approx(0.68, abs=1e-12)
    assert t.scores("cot_context_gpt-4_trial1")["5a7613c15542994ccc9186bf"] == 1.0
    df = t.to_pandas()
    assert df.shape == (100, 6) and df.index.name == "topic"
    assert df["cot_context_gpt-3.5-turbo_trial1"].sum() == 57


def test_compare_equals_the_cli_json_on_hotpotqa():
    r = pledge.compare(HOTPOT, labels={"HALTED": 0}, baseline="cot_context_gpt-4_trial1", trials=2000,
                       randomization_trials=2000)
    want = cli_json("compare", "--scores", HOTPOT, "--label", "HALTED=0", "--baseline", "cot_context_gpt-4_trial1",
                    "--trials", 2000, "--randomization-trials", 2000)
    assert r.data == want
    assert [s.name for s in r.systems] == [s["name"] for s in want["systems"]]
    assert [s.mean for s in r.systems] == [s["mean"] for s in want["systems"]]
    c = r.comparisons[0]
    w = want["comparisons"][0]
    assert (c.system, c.baseline, c.difference) == (w["system"], w["baseline"], w["difference"])
    assert c.interval == tuple(w["paired"]["interval"])
    assert c.reversal_rate == w["paired"]["reversal_rate"]
    assert c.t_p == w["t_test"]["p"] and c.randomization_p == w["randomization"]["p"]
    assert c.p_adjusted == w["p_adjusted"]["p"]
    frame = r.to_pandas()
    assert list(frame["difference"]) == [x["difference"] for x in want["comparisons"]]
    assert list(r.to_pandas("systems")["mean"]) == [s["mean"] for s in want["systems"]]
    topics = r.to_pandas("topics")
    assert topics.shape == (100, 6)
    for s in want["systems"]:
        assert topics[s["name"]].mean() == pytest.approx(s["mean"], abs=1e-12)


def test_compare_with_a_margin_carries_the_verdict():
    r = pledge.compare(HOTPOT, labels={"HALTED": 0}, kind="non-inferiority", margin=0.02, trials=200,
                       randomization_trials=200)
    want = [c["hypothesis"]["judgement"]["verdict"] for c in r.data["comparisons"]]
    assert [c.verdict for c in r.comparisons] == want
    assert set(want) <= {"supported", "not supported", "inconclusive"} and len(want) == 15
    plain = pledge.compare(HOTPOT, labels={"HALTED": 0}, trials=200, randomization_trials=200)
    assert {c.verdict for c in plain.comparisons} == {None}
    for empty in ([], {}):
        with pytest.raises(pledge.InputError) as e:
            pledge.read(empty)
        assert e.value.exit_code == 2 and "no scores given" in str(e.value)


def test_compare_of_a_dataframe_equals_the_cli_on_its_file():
    pd = pytest.importorskip("pandas")
    df = pd.read_csv(HOTPOT)
    r = pledge.compare(df, labels={"HALTED": 0}, trials=500, randomization_trials=500)
    want = cli_json("compare", "--scores", HOTPOT, "--label", "HALTED=0", "--trials", 500,
                    "--randomization-trials", 500)
    assert r.data["systems"] == want["systems"]
    assert r.data["comparisons"] == want["comparisons"]
    # A score table read once compares the same.
    t = pledge.read(df, labels={"HALTED": 0})
    assert pledge.compare(t, trials=500, randomization_trials=500).data["comparisons"] == want["comparisons"]


def test_compare_and_eval_of_a_trec_pair_equal_the_cli():
    r = pledge.compare(qrels=QRELS, runs=[RUN_A, RUN_B], measure="map", trials=1000, randomization_trials=1000)
    want = cli_json("compare", "--qrels", QRELS, "--run", RUN_A, "--run", RUN_B, "--measure", "map",
                    "--trials", 1000, "--randomization-trials", 1000)
    assert r.data == want
    assert [s.name for s in r.systems] == ["InexpC2", "humR03dc"]
    # The per-topic values compared: their means are the compared means, and each is trec_eval's
    # per-topic map of `pledge eval` (to the single precision the comparison reads runs in).
    topics = r.to_pandas("topics")
    assert list(topics.columns) == ["InexpC2", "humR03dc"]
    for s in r.systems:
        assert len(r.scores.scores(s.name)) == s.topics
        assert abs(r.scores.mean(s.name) - s.mean) < 1e-12
    e = pledge.eval(QRELS, [RUN_A, RUN_B], measures=["map", "P.10"])
    per_topic = {(run, t): v for run, t, m, v in e.to_pandas().itertuples(index=False) if m == "map"}
    for t, s, v in r.scores.long():
        assert abs(per_topic[(s, t)] - v) < 1e-6, (s, t)
    assert e.data == cli_json("eval", QRELS, RUN_A, RUN_B, "-m", "map", "-m", "P.10")
    assert e.means["InexpC2"]["map"] == e.data["runs"][0]["all"][0]
    long = e.to_pandas()
    assert set(long["measure"]) == {"map", "P_10"} and set(long["run"]) == {"InexpC2", "humR03dc"}


def test_power_and_components_equal_the_cli():
    p = pledge.power(sd=0.4, mde=0.1)
    assert p.data == cli_json("power", "--sd", 0.4, "--mde", 0.1)
    assert p.components == 128  # t method: 127.5... rounded up
    c = pledge.components(PROTOCOL, questions=QUESTIONS)
    assert c.data == cli_json("components", PROTOCOL, "--questions", QUESTIONS, "--dry-run")
    assert (c.decision, c.components, c.required) == ("go", 100, 73)


# --- errors -----------------------------------------------------------------------------------


def error_text(stderr: str) -> str:
    """The `error:` line and what follows it in the binary's human stderr."""
    lines = stderr.splitlines()
    i = next(i for i, l in enumerate(lines) if l.startswith("error: "))
    return "\n".join(lines[i:])


def test_errors_carry_the_cli_text_and_exit_code(tmp_path):
    with pytest.raises(pledge.InputError) as e:
        pledge.compare(tmp_path / "missing.csv")
    code, _, err = cli("compare", "--scores", tmp_path / "missing.csv")
    assert e.value.exit_code == code == 2
    assert str(e.value) == error_text(err)
    # A label the reader does not know: the message names the file, line and the fix.
    with pytest.raises(pledge.InputError) as e:
        pledge.read(HOTPOT)
    code, _, err = cli("compare", "--scores", HOTPOT)
    assert e.value.exit_code == code == 2
    assert str(e.value) == error_text(err)
    assert "correctness.csv:16" in e.value.message and "--label HALTED=0" in e.value.message
    assert isinstance(e.value, pledge.PledgeError)


# --- the ledger -------------------------------------------------------------------------------


def git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def study(tmp_path) -> Path:
    repo = tmp_path / "study"
    (repo / "protocols").mkdir(parents=True)
    (repo / "data").mkdir()
    shutil.copy(PROTOCOL, repo / "protocols" / "hotpotqa.toml")
    shutil.copy(QUESTIONS, repo / "data" / "questions.json")
    shutil.copy(HOTPOT, repo / "data" / "correctness.csv")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "the study")
    return repo


def test_ledger_operations_equal_the_cli_and_refuse_as_it_does(tmp_path, hermetic):
    repo = study(tmp_path)
    proto = "protocols/hotpotqa.toml"
    # analyze before anything is registered: refused as the CLI refuses.
    with pytest.raises(pledge.PledgeError) as e:
        pledge.analyze(proto, "data/correctness.csv", cwd=repo)
    code, _, err = cli("analyze", proto, "--scores", "data/correctness.csv", cwd=repo)
    assert e.value.exit_code == code and code in (1, 2)
    assert str(e.value) == error_text(err)

    twin = tmp_path / "twin"
    shutil.copytree(repo, twin)
    reg = pledge.register(proto, cwd=repo)
    assert reg.data == cli_json("register", proto, cwd=twin, same_as=repo)

    # Count with the binary in both (the API's components is a dry run), then analyze.
    for r in (repo, twin):
        assert cli("components", proto, "--questions", "data/questions.json", "--out", "components.csv", cwd=r)[0] == 0
    a = pledge.analyze(proto, "data/correctness.csv", components="components.csv", cwd=repo)
    want = cli_json("analyze", proto, "--scores", "data/correctness.csv", "--components", "components.csv", cwd=twin, same_as=repo)
    assert a.data == want
    assert a.comparisons and a.comparisons[0].difference == want["comparisons"][0]["difference"]

    v = pledge.verify(proto, cwd=repo)
    assert v.ok and v.data == cli_json("verify", proto, cwd=twin, same_as=repo)
    assert pledge.report(cwd=repo).data == cli_json("report", cwd=twin, same_as=repo)

    # A registered protocol edited without `pledge amend`: a finding (exit 1), not an exception.
    for r in (repo, twin):
        p = r / proto
        p.write_text(p.read_text().replace("mde = 0.15", "mde = 0.10"))
    v = pledge.verify(proto, cwd=repo)
    assert not v.ok and v.exit_code == 1
    assert v.data == cli_json("verify", proto, cwd=twin, code=1, same_as=repo)


# --- the wheel --------------------------------------------------------------------------------


def test_the_wheel_installs_in_a_fresh_venv_with_the_pledge_command(tmp_path):
    wheel = os.environ.get("PLEDGE_WHEEL")
    if not wheel:
        if os.environ.get("CI") == "true":
            pytest.fail("PLEDGE_WHEEL is not set (CI=true)")
        pytest.skip("PLEDGE_WHEEL is not set")
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", venv], check=True)
    py = venv / "bin" / "python"
    subprocess.run([py, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", wheel], check=True)
    out = subprocess.run([py, "-c", "import pledge; print(pledge.__version__)"], check=True,
                         capture_output=True, text=True, cwd=tmp_path).stdout.strip()
    assert out == pledge.__version__
    cmd = venv / "bin" / "pledge"
    version = subprocess.run([cmd, "--version"], check=True, capture_output=True, text=True).stdout
    assert version == cli("--version")[1]
    code, out, err = (lambda p: (p.returncode, p.stdout, p.stderr))(
        subprocess.run([cmd, "compare", "--scores", HOTPOT], capture_output=True, text=True))
    assert (code, out, err) == cli("compare", "--scores", HOTPOT)
