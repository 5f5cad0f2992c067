"""kosan judge without torch or a GPU: problem files, the trial plan, the
verdict rules, the reports, exit codes, and the worker protocol (crashes,
hangs, errors, kosan's trace) through a stand-in worker
(judge/fake_worker.py) that acts out the scenario its candidate names."""

from __future__ import annotations

import json
import math
import pathlib
import sys
import xml.etree.ElementTree as ET

import pytest

import kosan.judge
from kosan.judge import _cli, _run
from kosan.judge._problem import ProblemError, load_problem, size_configurations
from kosan.judge._report import as_json, junit, text
from kosan.judge._verdict import decide, reason_of_kind

from conftest import run_python

HERE = pathlib.Path(__file__).resolve().parent / "judge"
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "kernelbench"
PROBLEM = HERE / "problem.py"


def candidate(scenario: str) -> str:
    return str(HERE / f"cand_{scenario.replace('-', '_')}.py")


@pytest.fixture
def fake_worker(monkeypatch):
    """The judge runs judge/fake_worker.py in its worker's place."""
    monkeypatch.setattr(_run, "worker_command",
                        lambda plan, fd: [sys.executable, str(HERE / "fake_worker.py"), plan, str(fd)])


def judged(scenario: str, **options) -> dict:
    options.setdefault("use_kosan", False)
    report = kosan.judge.judge(str(PROBLEM), [candidate(scenario)], **options)
    return report["candidates"][0]


def reasons(verdict: dict) -> list[str]:
    return [r["reason"] for r in verdict["reasons"]]


# --- problem files ----------------------------------------------------------

def write(tmp_path, text_, name="p.py"):
    path = tmp_path / name
    path.write_text(text_)
    return str(path)


def test_sizes_that_get_inputs_alone_reads_are_varied():
    problem = load_problem(str(PROBLEM))
    assert problem.sizes == {"batch_size": 16, "features": 64, "N": 4096}
    # features is read by get_init_inputs too: the model would change with it.
    assert problem.variable == ["batch_size", "N"]
    # About 3/4, and odd: not a multiple of any block size.
    assert problem.size_values == {"batch_size": [13], "N": [3073]}
    assert problem.batch == "batch_size"
    assert size_configurations(problem) == [{"batch_size": 16, "N": 4096},
                                            {"batch_size": 13, "N": 3073}]


def test_sizes_given_replace_the_default_ones():
    problem = load_problem(str(PROBLEM), sizes={"N": [1000, 1023]})
    assert size_configurations(problem) == [{"batch_size": 16, "N": 4096},
                                            {"batch_size": 13, "N": 1000},
                                            {"batch_size": 13, "N": 1023}]


def test_the_problem_declares_its_sizes_and_batch(tmp_path):
    path = write(tmp_path, PROBLEM.read_text() + '\nKOSAN_JUDGE = {"sizes": {"N": [100]}, "batch": None}\n')
    problem = load_problem(path)
    assert problem.size_values == {"batch_size": [13], "N": [100]}
    assert problem.batch is None


@pytest.mark.parametrize("source, message", [
    ("def get_inputs(): pass\ndef get_init_inputs(): pass\n", "no Model class at module level"),
    ("class Model: pass\ndef get_init_inputs(): pass\n", "no get_inputs function"),
    ("class Model: pass\nget_inputs = 3\ndef get_init_inputs(): pass\n", "get_inputs must be a function"),
    ("class Model:\n  def f(self) pass\n", ":2: syntax error in the problem"),
    ("class Model: pass\ndef get_inputs(): pass\ndef get_init_inputs(): pass\nKOSAN_JUDGE = dict()\n",
     "KOSAN_JUDGE must be a literal dict"),
    ("class Model: pass\ndef get_inputs(): pass\ndef get_init_inputs(): pass\nKOSAN_JUDGE = {'size': {}}\n",
     "KOSAN_JUDGE takes a dict with the keys 'sizes' and 'batch'"),
])
def test_a_bad_problem_is_one_line_naming_the_file(tmp_path, source, message):
    path = write(tmp_path, source)
    with pytest.raises(ProblemError) as error:
        load_problem(path)
    assert message in str(error.value)
    assert str(error.value).startswith(path)
    assert "\n" not in str(error.value)


def test_sizes_the_problem_cannot_change_are_refused():
    with pytest.raises(ProblemError, match="varies 'features', which get_init_inputs\\(\\) reads"):
        load_problem(str(PROBLEM), sizes={"features": [3]})
    with pytest.raises(ProblemError, match="names the size 'M', which is not an integer at module level"):
        load_problem(str(PROBLEM), sizes={"M": [3]})

def test_a_batch_variable_get_inputs_does_not_read_is_refused(tmp_path):
    path = write(tmp_path, PROBLEM.read_text() + "\nrows = 8\n")
    with pytest.raises(ProblemError, match="the batch variable 'rows' is not read by get_inputs"):
        load_problem(path, batch="rows")


def test_a_candidate_without_modelnew_is_refused(tmp_path):
    with pytest.raises(ProblemError, match="not a KernelBench candidate: no ModelNew class"):
        kosan.judge.judge(str(PROBLEM), [write(tmp_path, "class Model: pass\n")])
    with pytest.raises(ProblemError, match="cannot read the candidate"):
        kosan.judge.judge(str(PROBLEM), [str(tmp_path / "missing.py")])


def test_every_example_problem_loads():
    problems = sorted(EXAMPLES.glob("*/problem.py"))
    assert len(problems) >= 8
    for path in problems:
        problem = load_problem(str(path))
        candidates = [p for p in path.parent.glob("*.py") if p.name != "problem.py"]
        assert any(p.name == "correct.py" for p in candidates), path
        assert len(candidates) >= 2, path
        for c in candidates:
            kosan.judge._problem.check_candidate(str(c))
        assert problem.variable, path
    # The scalar loss declares that it has no batch rows.
    assert load_problem(str(EXAMPLES / "mse_loss" / "problem.py")).batch is None
    assert load_problem(str(EXAMPLES / "layernorm" / "problem.py")).variable == ["batch_size"]


def test_the_plan_has_every_seed_at_the_problem_sizes_and_one_at_each_other():
    problem = load_problem(str(PROBLEM))
    trials = kosan.judge.plan_trials(problem, seeds=3)
    assert [(t["seed"], t["own"], t["kind"], t.get("batch")) for t in trials] == [
        (0, True, "values", None), (1, True, "values", None), (2, True, "values", None),
        (0, False, "values", None), (0, False, "batch", 16), (0, False, "batch", 13)]
    no_sizes = kosan.judge.plan_trials(problem, seeds=2,
                                       checks=[c for c in kosan.judge.CHECKS if c != "sizes"])
    assert [(t["own"], t["kind"]) for t in no_sizes] == [(True, "values"), (True, "values"),
                                                         (False, "batch")]


# --- verdict rules ----------------------------------------------------------

def trial(own=True, **output):
    o = {"index": 0, "dtype": "float32", "shape": [2], "numel": 2, "allclose": True, "outside": 0,
         "max_abs": 0.0, "max_rel": 0.0, "atol": 1e-4, "rtol": 1e-4}
    o.update(output)
    return {"index": 0, "seed": 0, "sizes": {"N": 2}, "own": own, "outputs": [o],
            "shape_mismatch": None, "inputs_modified": []}


def test_bits_lost_counts_beyond_the_reference_own_error():
    # The candidate's error is 2^4 times the reference's: within 6 bits.
    assert decide({"trials": [trial(err_ref=1e-6, err_cand=16e-6)]})["kosan"] == "pass"
    lost = decide({"trials": [trial(err_ref=1e-6, err_cand=1e-3)]})
    assert lost["kosan"] == "fail" and lost["allclose"] == "pass"
    assert "10.0 bits lost" in lost["reasons"][0]["message"]
    # An exact reference does not make an ulp a loss: both floored at 2^-24.
    assert decide({"trials": [trial(err_ref=0.0, err_cand=2e-7)]})["kosan"] == "pass"
    assert decide({"trials": [trial(err_ref=1e-6, err_cand=1e-3)]},
                  max_bits_lost=12)["kosan"] == "pass"


def test_report_kinds_map_to_reasons_and_unknown_kinds_keep_their_name():
    assert reason_of_kind("global-buffer-overflow") == "out-of-bounds"
    assert reason_of_kind("shared-buffer-overflow") == "out-of-bounds"
    assert reason_of_kind("heap-use-after-free") == "use-after-free"
    assert reason_of_kind("use-of-uninitialized-value") == "uninitialized-read"
    assert reason_of_kind("misaligned-access") == "misaligned-access"


def test_allclose_is_judged_at_the_problem_sizes_only():
    verdict = decide({"trials": [trial(), trial(own=False, allclose=False, outside=1)]})
    assert verdict["allclose"] == "pass"
    assert reasons(verdict) == ["mismatch"]
    assert verdict["reasons"][0]["where"] == "seed 0, N=2"


def test_a_reason_seen_in_several_trials_is_listed_once_with_the_worst():
    verdict = decide({"trials": [trial(nondeterministic=1), trial(nondeterministic=9)]})
    assert len(verdict["reasons"]) == 1
    assert verdict["reasons"][0]["trials"] == 2
    assert "9 of 2 elements" in verdict["reasons"][0]["message"]


def test_checks_left_out_give_no_reasons():
    result = {"trials": [trial(nondeterministic=3, unwritten=2)]}
    assert reasons(decide(result)) == ["unwritten-output", "nondeterministic"]
    assert decide(result, checks=["oob"])["kosan"] == "pass"


# --- the whole judge through the stand-in worker ---------------------------

def test_a_passing_candidate(fake_worker):
    verdict = judged("pass")
    assert (verdict["allclose"], verdict["kosan"], verdict["exit_code"]) == ("pass", "pass", 0)
    assert verdict["trials"] == verdict["planned_trials"] == 6
    assert verdict["device"] == "Fake GPU"


@pytest.mark.parametrize("scenario, reason", [
    ("bits-lost", "bits-lost"),
    ("unwritten", "unwritten-output"),
    ("nondeterministic", "nondeterministic"),
    ("batch-variant", "batch-variant"),
    ("inputs-modified", "inputs-modified"),
    ("nan-error", "bits-lost"),
])
def test_faults_allclose_passes_fail_kosan(fake_worker, scenario, reason):
    verdict = judged(scenario)
    assert verdict["allclose"] == "pass"
    assert (verdict["kosan"], verdict["exit_code"]) == ("fail", 1)
    assert reasons(verdict) == [reason]


def test_a_mismatch_at_another_size(fake_worker):
    verdict = judged("mismatch-odd-size")
    assert verdict["allclose"] == "pass" and reasons(verdict) == ["mismatch"]
    assert "batch_size=13, N=3073" in verdict["reasons"][0]["where"]


def test_kosan_reports_from_the_trace_are_reasons(fake_worker):
    verdict = judged("oob", use_kosan=True)
    assert reasons(verdict) == ["out-of-bounds", "use-after-free", "uninitialized-read",
                                "misaligned-access"]
    first = verdict["reasons"][0]["message"]
    assert first.startswith("global-buffer-overflow: WRITE of size 4 at cuda.cu:12:9")
    assert "buffer 'out'" in first


def test_atomics_whose_order_decides_the_result_fail_from_one_run(fake_worker, monkeypatch):
    # The candidate is built and run with the order check added to the
    # user's checks; the trace's order_summary says which launches depend
    # on the order their float atomics landed in, even where two runs agree.
    monkeypatch.setenv("KOSAN_CHECKS", "oob,precision")
    verdict = judged("order", use_kosan=True)
    assert reasons(verdict) == ["order-dependent"]
    message = verdict["reasons"][0]["message"]
    assert message.startswith("256 locations of 'out' depend on the order float atomics land in")
    assert "kernel 'k(float*, int)', fadd at cuda.cu:21:5" in message
    environment = [n for n in verdict["notes"] if n.startswith("environment:")]
    assert environment and "KOSAN_CHECKS=oob,precision,order " in environment[0]
    # only float atomics: no store fingerprints in the trace
    assert environment[0].endswith(":checks=oob,precision,order:order_stores=0")
    # --skip order: neither built with it nor a reason.
    verdict = judged("order", use_kosan=True, checks=[c for c in _verdict_checks() if c != "order"])
    assert reasons(verdict) == []
    environment = [n for n in verdict["notes"] if n.startswith("environment:")]
    assert environment and "KOSAN_CHECKS=oob,precision " in environment[0]
    assert ":checks=" not in environment[0]


def _order_trace(path: pathlib.Path) -> None:
    """A trace of the order check as the runtime writes one: launch 1's
    float atomics on 'out' meet at 256 order-dependent locations, launch 2's
    at none."""
    from conftest import HEADER
    launch = {"type": "launch", "id": 1, "kernel": "k(float*, int)", "mangled": "_Z1kPfi",
              "module": 0, "grid": [1, 1, 1], "block": [32, 1, 1], "shared_bytes": 0,
              "stream": "0x0", "instrumented": True}

    def atomics(launch_id):
        # no landing orders: the payload is an empty zstd frame
        return {"type": "order_atomics", "launch": launch_id, "arg": 1, "name": "out",
                "dtype": "f32", "op": "fadd", "sites": ["cuda.cu:21:5"], "exact": True,
                "count": 0, "part": 0, "parts": 1, "bytes": 0, "encoding": "zstd+base64",
                "data": "KLUv/SQAAQAAmenYUQ=="}

    def summary(launch_id, dependent):
        return {"type": "order_summary", "launch": launch_id, "stores": 0, "atomics": 512,
                "dropped_stores": 0, "dropped_atomics": 0, "ops": 0, "dropped_ops": 0,
                "order_dependent_locations": dependent}
    records = [HEADER, launch, atomics(1), summary(1, 256), dict(launch, id=2), atomics(2),
               summary(2, 0), {"type": "end", "launches": 2, "errors": 0, "reports": 0,
                               "dropped": 0, "unresolved_accesses": 0}]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_the_trace_is_read_once_alike_by_the_library_and_as_json_lines(tmp_path, monkeypatch):
    # read_trace takes oob, launch and order records from one read of the
    # trace: the host library's (open_trace), or, where it is missing, one
    # pass over the JSON lines; both give the same findings.
    path = tmp_path / "candidate.kosan"
    _order_trace(path)
    opened = []
    real_open = open

    def counting_open(file, *args, **kwargs):
        if pathlib.Path(file) == path:
            opened.append(file)
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", counting_open)
    with_library = {"notes": []}
    _run.read_trace(path, with_library)
    assert opened == []  # the library read it; Python did not open it again
    expected = [{"launch": 1, "kernel": "k(float*, int)", "locations": 256, "name": "out",
                 "op": "fadd", "sites": ["cuda.cu:21:5"]}]
    assert with_library["order"] == expected
    assert with_library["notes"] == []

    from kosan import _library, _trace

    def missing():
        raise _library.LibraryNotFound("no library here")
    monkeypatch.setattr(_trace, "load", missing)
    as_lines = {"notes": []}
    _run.read_trace(path, as_lines)
    assert len(opened) == 1
    assert as_lines["order"] == expected
    assert as_lines["oob"] == with_library["oob"] == []


def _verdict_checks():
    from kosan.judge._verdict import CHECKS
    return CHECKS


def test_a_crash_is_a_verdict_with_the_last_output(fake_worker):
    verdict = judged("crash")
    assert (verdict["kosan"], verdict["exit_code"], reasons(verdict)) == ("fail", 1, ["crash"])
    message = verdict["reasons"][0]["message"]
    assert "killed by SIGSEGV during the candidate's run in trial 1" in message
    assert "Fatal Python error: Segmentation fault" in message
    assert verdict["allclose"] == "not run"


def test_a_hang_is_a_timeout_not_a_hung_judge(fake_worker):
    import time
    started = time.monotonic()
    verdict = judged("hang", timeout=1.5)
    assert time.monotonic() - started < 20
    assert reasons(verdict) == ["timeout"]
    assert "no progress for 1.5 s during the candidate's run in trial 1" in verdict["reasons"][0]["message"]


def test_the_build_has_its_own_time_limit(fake_worker):
    assert judged("slow-build", timeout=1, build_timeout=30)["kosan"] == "pass"
    verdict = judged("slow-build", timeout=30, build_timeout=1)
    assert reasons(verdict) == ["timeout"] and "building the candidate" in verdict["reasons"][0]["message"]


def test_an_exit_without_the_final_report_is_a_crash(fake_worker):
    verdict = judged("exit")
    assert reasons(verdict) == ["crash"]
    assert "exited with status 3 without finishing" in verdict["reasons"][0]["message"]


def test_errors_and_build_failures(fake_worker):
    cuda = judged("cuda-error")
    assert reasons(cuda) == ["error"] and "illegal memory access" in cuda["reasons"][0]["message"]
    assert cuda["trials"] == 3  # the three trials at the problem's sizes ran first
    build = judged("build-error")
    assert reasons(build) == ["build-error"] and build["allclose"] == "not run"
    assert "identifier \"y\" is undefined" in build["reasons"][0]["message"]


@pytest.mark.parametrize("scenario, message", [
    ("setup-error", "setting up the worker failed: torch sees no CUDA device"),
    ("reference-crash", "killed by SIGSEGV during the reference's run in trial 1"),
])
def test_trouble_that_is_not_the_candidate_fault(fake_worker, scenario, message):
    verdict = judged(scenario)
    assert (verdict["kosan"], verdict["exit_code"]) == ("trouble", 2)
    assert message in verdict["trouble"]


def test_sizes_the_reference_rejects_are_skipped_with_a_note(fake_worker):
    verdict = judged("odd-size-skipped")
    assert verdict["kosan"] == "pass"
    assert verdict["trials"] == 5
    assert any("batch_size=13, N=3073 skipped: the reference fails" in n for n in verdict["notes"])


# --- reports and the command line ------------------------------------------

def cli(args, capsys):
    code = _cli.main([str(PROBLEM)] + args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_report_and_exit_codes(fake_worker, capsys):
    code, out, err = cli([candidate("pass"), candidate("bits-lost"), "--no-kosan", "-j", "2"], capsys)
    assert code == 1
    assert "== cand_pass.py: allclose PASS, kosan PASS\n" in out
    assert "== cand_bits_lost.py: allclose PASS, kosan FAIL (bits-lost)\n" in out
    assert out.rstrip().endswith("SUMMARY: kosan judge: 1 of 2 candidates fail; allclose passes 2 of 2")
    # Progress goes to stderr.
    assert "[cand_pass.py 2/6] seed 1, batch_size=16, N=4096 ..." in err
    code, out, err = cli([candidate("pass"), "--no-kosan", "-q"], capsys)
    assert (code, err) == (0, "")
    code, out, err = cli([candidate("setup-error"), "--no-kosan", "-q"], capsys)
    assert code == 2 and "kosan TROUBLE" in out


def test_json_report(fake_worker, capsys, tmp_path):
    path = tmp_path / "r.json"
    code, out, _ = cli([candidate("nan-error"), candidate("pass"), "--no-kosan", "-q",
                        "--format", "json", "-o", str(path)], capsys)
    assert code == 1 and out == ""
    report = json.loads(path.read_text())  # strict JSON: no bare Infinity
    assert report["exit_code"] == 1
    assert [c["kosan"] for c in report["candidates"]] == ["fail", "pass"]
    assert report["candidates"][0]["reasons"][0]["reason"] == "bits-lost"
    assert report["sizes"] == {"batch_size": 16, "N": 4096}
    assert len(report["trials"]) == 6


def test_junit_report(fake_worker, capsys):
    code, out, _ = cli([candidate("pass"), candidate("unwritten"), candidate("setup-error"),
                        "--no-kosan", "-q", "--format", "junit"], capsys)
    assert code == 2
    suite = ET.fromstring(out).find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert cases["cand_pass.py"].find("failure") is None
    failure = cases["cand_unwritten.py"].find("failure")
    assert failure.get("type") == "unwritten-output"
    assert "3 of 32 elements are never written" in failure.text
    assert cases["cand_setup_error.py"].find("error").get("type") == "trouble"


def test_report_formats_agree_on_a_verdict():
    result = {"trials": [trial(err_ref=1e-7, err_cand=math.inf)]}
    verdict = decide(result)
    report = {"problem": str(PROBLEM), "sizes": {"N": 2}, "trials": [{"own": True, "sizes": {"N": 2}}],
              "batch": None, "exit_code": 1,
              "candidates": [dict(verdict, name="c.py", candidate="c.py", trials=1, planned_trials=1)]}
    assert "== c.py: allclose PASS, kosan FAIL (bits-lost)" in text(report)
    assert json.loads(as_json(report))["candidates"][0]["reasons"][0]["reason"] == "bits-lost"
    assert ET.fromstring(junit(report)).find("testsuite/testcase/failure").get("type") == "bits-lost"


@pytest.mark.parametrize("args, message", [
    (["--seeds", "0"], "argument --seeds: must be positive: '0'"),
    (["--size", "N"], "expected NAME=V[,V...] with integers"),
    (["--skip", "oob,speed"], "unknown check 'speed'"),
    (["--format", "xml"], "invalid choice: 'xml'"),
])
def test_bad_options_are_one_line_and_trouble(capsys, args, message):
    with pytest.raises(SystemExit) as exit_:
        _cli.main([str(PROBLEM), candidate("pass")] + args)
    err = capsys.readouterr().err
    assert exit_.value.code == 2
    assert message in err and err.count("\n") == 1


def test_a_bad_problem_file_is_exit_2(capsys, tmp_path):
    code = _cli.main([write(tmp_path, "x = 1\n"), candidate("pass")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("kosan judge: error: ") and "no Model class" in err


def test_python_dash_m_kosan():
    done = run_python("import sys, kosan.__main__ as m; sys.exit(m.main(['judge', '--help']))")
    assert done.returncode == 0 and "usage: kosan judge" in done.stdout
    done = run_python("import sys, kosan.__main__ as m; sys.exit(m.main(['frobnicate']))")
    assert done.returncode == 2 and "unknown command 'frobnicate'" in done.stderr


# --- the real worker, where torch is installed (on the CPU) ----------------

def test_the_worker_judges_torch_candidates_on_the_cpu():
    pytest.importorskip("torch", reason="torch is not installed: the real worker needs it")
    report = kosan.judge.judge(str(PROBLEM), [str(HERE / "torch_good.py"), str(HERE / "torch_half.py"),
                                              str(HERE / "torch_inplace.py")],
                               use_kosan=False, device="cpu", seeds=1, jobs=3,
                               sizes={"N": [33]})
    good, half, inplace = report["candidates"]
    assert (good["allclose"], good["kosan"]) == ("pass", "pass"), good
    assert half["kosan"] == "fail" and "bits-lost" in reasons(half), half
    assert (inplace["allclose"], inplace["kosan"], reasons(inplace)) == \
        ("pass", "fail", ["inputs-modified"]), inplace
    assert good["trials"] == good["planned_trials"] == 4
