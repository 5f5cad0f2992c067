"""`kosan campaign` with a CPU stand-in for the GPU step.

The stand-in (campaign/fake_compiler.py) replaces kosan-clang++ and the
GPU: it "builds" each mutant into a small program that passes, fails,
crashes, hangs or changes its output as the mutant's line in the source
says. What runs for real: kosan-mutate list (on the stand-in's listing),
the campaign's scheduling, its SQLite file and resume, the oracles' scoring
from exit statuses and outputs, and the reports. Which part of kosan's
verdict fires is tested on traces written as a GPU run writes them
(kosan-make-trace) with the real kosan-report and kosan-diff; kosan's
verdict on real mutants needs a GPU (test/gpu/campaign.test,
bench/mutation/run_campaign.sh).
"""

from __future__ import annotations

import html.parser
import json
import os
import pathlib
import sqlite3
import subprocess
import sys

import pytest

from kosan.campaign import main as campaign_main

HERE = pathlib.Path(__file__).resolve().parent
FAKE = HERE / "campaign" / "fake_compiler.py"


def _tools() -> pathlib.Path | None:
    lib = os.environ.get("KOSAN_HOST_LIB")
    candidates = [pathlib.Path(lib).resolve().parent.parent / "bin"] if lib else []
    candidates.append(HERE.parents[1] / "build" / "bin")
    for c in candidates:
        if (c / "kosan-mutate").exists():
            return c
    return None


TOOLS = _tools()
needs_tools = pytest.mark.skipif(TOOLS is None, reason="kosan-mutate is not built (build kosan first)")

PROGRAMS = {
    "alpha": ["aaaaaaaaaa01 relational same", "aaaaaaaaaa02 index fail", "aaaaaaaaaa03 index differs",
              "aaaaaaaaaa04 barrier crash", "aaaaaaaaaa05 guard hang"],
    "beta": ["bbbbbbbbbb01 arith fail", "bbbbbbbbbb02 constant nobuild", "bbbbbbbbbb03 relational fail",
             "bbbbbbbbbb04 store same"],
}


@pytest.fixture
def kernels(tmp_path):
    d = tmp_path / "kernels"
    d.mkdir()
    for name, mutants in PROGRAMS.items():
        (d / f"{name}.cu").write_text("// a stand-in program\n" + "".join(
            f"// fake-mutant: {m}\n" for m in mutants))
    return d


def _campaign(kernels, out, *extra, log=None, capsys=None):
    env_log = os.environ.get("FAKE_COMPILER_LOG")
    if log:
        os.environ["FAKE_COMPILER_LOG"] = str(log)
    try:
        return campaign_main([str(kernels), "--out", str(out), "--compiler", f"{sys.executable} {FAKE}",
                              "--runner", sys.executable, "--tools", str(TOOLS), "--seeds", "1,2",
                              "--timeout", "1", "--jobs", "4", "--gpus", "0", "--per-gpu", "2", *extra])
    finally:
        if log:
            if env_log is None:
                del os.environ["FAKE_COMPILER_LOG"]
            else:
                os.environ["FAKE_COMPILER_LOG"] = env_log


@needs_tools
def test_scores_equivalents_and_survivors(kernels, tmp_path, capsys):
    out = tmp_path / "out"
    assert _campaign(kernels, out, "--format", "json") == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert "mutants judged" in captured.err  # the progress line
    assert summary["listed"] == 9 and summary["mutants"] == 9
    assert summary["build_errors"] == 1  # bbbbbbbbbb02
    assert summary["equivalent"] == 2    # aaaaaaaaaa01, bbbbbbbbbb04: same output, no finding
    assert summary["non_equivalent"] == 6
    own = summary["scores"]["own"]
    # fail x3, crash, hang are caught by the programs' own check; "differs" is not.
    assert own["killed"] == 5 and own["score"] == pytest.approx(5 / 6)
    # Without kosan's traces (no GPU), kosan's verdict is only the crash and the hang.
    assert summary["scores"]["crash"]["killed"] == 2
    assert summary["scores"]["kosan"]["killed"] == 2
    assert summary["scores"]["either"]["killed"] == 5
    assert summary["by_operator"]["index"]["non_equivalent"] == 2
    assert summary["by_operator"]["index"]["scores"]["own"]["score"] == pytest.approx(0.5)
    assert summary["by_kernel"]["beta"]["build_errors"] == 1
    survivors = {m["id"]: m for m in summary["survivors"]}
    assert survivors["aaaaaaaaaa03"]["same_output"] is False
    assert survivors["aaaaaaaaaa03"]["killed_by_own"] is False
    assert summary["false_alarms"] == {"reference_runs": 4, "alarms": [], "retried": 0}
    assert summary["seconds_per_mutant"] > 0
    text = (out / "report.txt").read_text()
    assert "mutation score over the non-equivalent mutants: own 83.3% (5)" in text
    assert "alpha aaaaaaaaaa03" in text


@needs_tools
def test_resume_does_only_what_is_missing(kernels, tmp_path):
    out, log = tmp_path / "out", tmp_path / "compiler.log"
    assert _campaign(kernels, out, "--only", "alpha", log=log) == 0
    first = log.read_text().splitlines()
    assert first and all("beta" not in line for line in first)
    # A campaign stopped half-way: two results are lost.
    with sqlite3.connect(out / "campaign.sqlite") as db:
        db.execute("DELETE FROM results WHERE id IN ('aaaaaaaaaa02', 'aaaaaaaaaa03')")
    log.write_text("")
    assert _campaign(kernels, out, "--only", "alpha", log=log) == 0
    again = log.read_text().splitlines()
    # Only the two mutants are built again (plain and checked), nothing else.
    assert len(again) == 4
    assert all("--kosan-mutate=aaaaaaaaaa02" in l or "--kosan-mutate=aaaaaaaaaa03" in l for l in again)
    with sqlite3.connect(out / "campaign.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM results").fetchone()[0] == 5
    # Another program joins the same campaign; the done ones stay done.
    log.write_text("")
    assert _campaign(kernels, out, log=log) == 0
    assert all("beta" in line for line in log.read_text().splitlines())


@needs_tools
def test_other_settings_are_refused_on_resume(kernels, tmp_path, capsys):
    out = tmp_path / "out"
    assert _campaign(kernels, out, "--only", "beta") == 0
    capsys.readouterr()
    assert _campaign(kernels, out, "--only", "beta", "--seeds", "1,2,3") == 2
    err = capsys.readouterr().err
    assert "kosan campaign: error:" in err and "holds a campaign with other settings" in err


@needs_tools
def test_max_mutants_takes_each_operator_in_turn(kernels, tmp_path, capsys):
    out = tmp_path / "out"
    assert _campaign(kernels, out, "--only", "alpha", "--max-mutants", "3", "--format", "json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mutants"] == 3
    assert len(summary["by_operator"]) == 3  # barrier, guard, index: one each, in name order


class _Balanced(html.parser.HTMLParser):
    """Checks that every element is closed, in order (void elements aside)."""

    VOID = {"meta", "br", "img", "input", "link", "hr", "line", "rect"}

    def __init__(self):
        super().__init__()
        self.stack, self.errors, self.tags = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if tag in self.VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes <{self.stack[-1] if self.stack else None}>")
        else:
            self.stack.pop()


@needs_tools
def test_html_report_parses_and_has_plots(kernels, tmp_path):
    out = tmp_path / "out"
    assert _campaign(kernels, out) == 0
    page = (out / "report.html").read_text()
    parser = _Balanced()
    parser.feed(page)
    parser.close()
    assert parser.errors == [] and parser.stack == []
    assert parser.tags.count("svg") == 3  # per oracle, per operator, per program
    assert parser.tags.count("rect") >= 3 * 8
    assert "aaaaaaaaaa03" in page  # the survivor, with what the oracles said
    assert "PASS fake (seed 1)" in page


@needs_tools
def test_unknown_operator_is_trouble(kernels, tmp_path, capsys):
    assert _campaign(kernels, tmp_path / "out", "--operators", "index,swap") == 2
    assert "--operators: unknown operator 'swap' (operators: relational, index," in capsys.readouterr().err


def test_bad_kernel_directory_is_trouble(tmp_path, capsys):
    assert campaign_main([str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2
    assert "is not a directory of CUDA programs" in capsys.readouterr().err


def test_ray_missing_is_a_clear_error(kernels, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` fails as where it is not installed
    assert campaign_main([str(kernels), "--out", str(tmp_path / "o"), "--ray", "local",
                          "--compiler", f"{sys.executable} {FAKE}"]) == 2
    assert "--ray needs Ray" in capsys.readouterr().err


@needs_tools
def test_on_a_local_ray_instance(kernels, tmp_path, capsys):
    pytest.importorskip("ray", reason="Ray is not installed (pip install ray; test/python/requirements.txt "
                                      "has it)")
    out = tmp_path / "out"
    assert _campaign(kernels, out, "--ray", "local", "--format", "json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["scheduler"]["scheduler"] == "ray"
    assert summary["scores"]["own"]["killed"] == 5


def test_kosan_command_lists_campaign():
    p = subprocess.run([sys.executable, "-m", "kosan", "--help"], capture_output=True, text=True,
                       cwd=HERE.parent)
    assert "campaign" in p.stdout


def _make_trace(tmp_path, name, launch):
    maker = TOOLS.parent / "test" / "bin" / "kosan-make-trace"
    if not maker.exists():
        pytest.skip("kosan-make-trace (a test tool of the build) is not built")
    desc = tmp_path / f"{name}.json"
    desc.write_text(json.dumps({"argv": [f"./{name}"], "launches": [launch]}))
    trace = tmp_path / f"{name}.kosan"
    subprocess.run([str(maker), str(desc), str(trace)], check=True)
    return trace


def _launch(values, oob=None, bits_ulp=None, race=False, cause=None, scaled_bits=None, order=None):
    launch = {"kernel": "k(float*, int)", "mangled": "_Z1kPfi", "module": 1,
              "snapshots": [{"arg": 0, "name": "y", "dtype": "f32", "count": len(values),
                             "values": values, "store_sites": ["k.cu:5:3"]}]}
    if oob:
        launch["oob"] = [{"kind": "global-buffer-overflow", "access": "WRITE", "size": 4, "count": 1,
                          "file": "k.cu", "line": 5, "column": 3, "function": "k", "buffer_name": "y"}]
    if race:
        launch.setdefault("oob", []).append(
            {"kind": "data-race", "access": "READ", "size": 4, "count": 3, "file": "k.cu", "line": 9,
             "column": 7, "function": "k", "buffer_name": "k::tile", "space": "shared",
             "conflict": "WRITE of size 4 at k.cu:6:5 in k by thread (40,0,0)"})
    if bits_ulp:
        launch["precision"] = [{"kind": "store", "op": "store", "dtype": "f32", "file": "k.cu", "line": 5,
                                "column": 3, "function": "k", "site_id": 1, "module": 1, "count": 4,
                                "mean_rel_err": 1e-6, "max_rel_err": 1e-5, "max_ulp_err": bits_ulp,
                                "hist": [4, 0, 0, 0, 0, 0, 0, 0], "overflows": 0, "underflows": 0,
                                "nans": 0, "real": 1, "shadow": 1, "block": [0, 0, 0], "thread": [0, 0, 0]}]
        if scaled_bits is not None:
            launch["precision"][0].update({"scaled_bits": scaled_bits, "max_abs_err": 1e-6, "scale": 4})
        if cause:
            launch["precision"][0]["cause"] = {"kind": "op", "op": cause, "dtype": "f32", "file": "k.cu",
                                               "line": 4, "column": 9, "local_log2": -21}
    if order:
        launch.update(order)
    return launch


@needs_tools
def test_kosan_verdict_parts_on_real_traces(tmp_path):
    """Which part of kosan's verdict fires, from traces as a GPU run writes
    them (kosan-make-trace) and the real kosan-report and kosan-diff."""
    from kosan.campaign._work import kosan_verdict

    settings = {"tools": str(TOOLS), "checks": "oob,precision"}
    ok_run = {"status": 0, "timeout": False}
    ref = _make_trace(tmp_path, "ref", _launch([1.0, 2.0, 3.0, 4.0], bits_ulp=4))
    same = _make_trace(tmp_path, "same", _launch([1.0, 2.0, 3.0, 4.0], bits_ulp=4))
    differs = _make_trace(tmp_path, "differs", _launch([1.0, 2.0, 3.5, 4.0], bits_ulp=4))
    oob = _make_trace(tmp_path, "oob", _launch([1.0, 2.0, 3.0, 4.0], oob=True, bits_ulp=4))
    lossy = _make_trace(tmp_path, "lossy", _launch([1.0, 2.0, 3.0, 4.0], bits_ulp=4096))
    race = _make_trace(tmp_path, "race", _launch([1.0, 2.0, 3.0, 4.0], bits_ulp=4, race=True))
    both = _make_trace(tmp_path, "both", _launch([1.0, 2.0, 3.0, 4.0], oob=True, bits_ulp=4, race=True))

    def parts(cand, run=ok_run):
        return kosan_verdict(settings, ref, cand, run, ref_nondeterministic=None)["parts"]

    assert parts(same) == []
    assert parts(differs) == ["diff"]
    assert parts(oob) == ["memory"]
    assert parts(lossy) == ["precision"]  # 12 bits lost against 2
    # A data race (checks=race) is its own part, beside memory errors.
    assert parts(race) == ["race"]
    assert parts(both) == ["memory", "race"]
    assert "data-race" in kosan_verdict(settings, ref, race, ok_run, ref_nondeterministic=None)["summary"]
    assert parts(tmp_path / "missing.kosan") == ["crash"]
    assert parts(same, {"status": -11, "timeout": False}) == ["crash"]
    verdict = kosan_verdict(settings, ref, differs, ok_run, ref_nondeterministic=None)
    assert "1 of 1 output differs" in verdict["summary"]


@needs_tools
def test_precision_part_names_a_root_cause_the_reference_lacks(tmp_path):
    """A mutant that swaps an exact operation for a fast intrinsic loses a
    little more at the same store: below any threshold, but a root cause
    the reference does not have, so the precision part fires."""
    from kosan.campaign._work import kosan_verdict

    settings = {"tools": str(TOOLS), "checks": "oob,precision"}
    ok_run = {"status": 0, "timeout": False}
    values = [1.0, 2.0, 3.0, 4.0]
    ref = _make_trace(tmp_path, "ref", _launch(values, bits_ulp=2, cause="fadd", scaled_bits=1.0))
    fast = _make_trace(tmp_path, "fast", _launch(values, bits_ulp=2, cause="lg2.approx.f32", scaled_bits=2.5))
    same_cause = _make_trace(tmp_path, "same", _launch(values, bits_ulp=2, cause="fadd", scaled_bits=2.5))
    no_worse = _make_trace(tmp_path, "noworse", _launch(values, bits_ulp=2, cause="lg2.approx.f32",
                                                          scaled_bits=1.2))
    verdict = kosan_verdict(settings, ref, fast, ok_run, ref_nondeterministic=None)
    assert verdict["parts"] == ["precision"]
    assert "lg2.approx.f32 at k.cu:4" in verdict["summary"]
    assert kosan_verdict(settings, ref, same_cause, ok_run, ref_nondeterministic=None)["parts"] == []
    assert kosan_verdict(settings, ref, no_worse, ok_run, ref_nondeterministic=None)["parts"] == []

    # A narrowing to bf16 where the reference only narrows to f16.
    def narrowing(name, dtype):
        launch = _launch(values, bits_ulp=2, cause="fadd", scaled_bits=1.0)
        launch["precision"].append({**launch["precision"][0], "kind": "narrow", "op": "fptrunc", "dtype": dtype,
                                    "from_dtype": "f32", "line": 4, "site_id": 2, "scaled_bits": 8.0})
        del launch["precision"][1]["cause"]
        return _make_trace(tmp_path, name, launch)

    to_f16, to_bf16 = narrowing("f16", "f16"), narrowing("bf16", "bf16")
    assert kosan_verdict(settings, to_f16, narrowing("f16b", "f16"), ok_run, ref_nondeterministic=None)["parts"] == []
    verdict = kosan_verdict(settings, to_f16, to_bf16, ok_run, ref_nondeterministic=None)
    assert verdict["parts"] == ["precision"] and "f32->bf16 narrowing at k.cu:4" in verdict["summary"]


def _order(stores_seed, atomics_reversed=False):
    return {"order_stores": [{"arg": 0, "name": "y", "dtype": "f32", "count": 4, "seed": stores_seed}],
            "order_atomics": [{"arg": 1, "name": "mean", "dtype": "f32", "op": "fadd", "count": 1,
                               "contributions": 4, "seed": "0x7", **({"reverse": [0]} if atomics_reversed else {})}]}


@needs_tools
def test_order_part_leaves_out_what_varies_in_the_reference(tmp_path):
    """The reference's float atomics land in another order from run to run;
    a mutant whose only change is that order is not killed by it, but one
    whose stored output is computed differently is."""
    from kosan.campaign._work import kosan_verdict, order_changes

    settings = {"tools": str(TOOLS), "checks": "oob,order"}
    ok_run = {"status": 0, "timeout": False}
    values = [1.0, 2.0, 3.0, 4.0]
    ref = _make_trace(tmp_path, "ref", _launch(values, order=_order("0x1")))
    ref2 = _make_trace(tmp_path, "ref2", _launch(values, order=_order("0x1", atomics_reversed=True)))
    varies = order_changes(settings, ref, ref2)
    assert varies == {"0:1"}
    atomics_only = _make_trace(tmp_path, "atomics", _launch(values, order=_order("0x1", atomics_reversed=True)))
    recomputed = _make_trace(tmp_path, "recomputed", _launch(values, order=_order("0x2")))
    assert kosan_verdict(settings, ref, atomics_only, ok_run, sorted(varies))["parts"] == []
    verdict = kosan_verdict(settings, ref, recomputed, ok_run, sorted(varies))
    assert verdict["parts"] == ["order"] and "0:0" in verdict["summary"]
    # Without the reference's runs compared, every change counts.
    assert kosan_verdict(settings, ref, atomics_only, ok_run, [])["parts"] == ["order"]


@needs_tools
def test_equivalence_allows_the_references_own_spread(tmp_path):
    """A mutant is likely equivalent where its outputs are the reference's
    bits, except outputs that vary in the reference itself, which may vary
    as much as they do there (twice the spread seen)."""
    from kosan.campaign._work import _same_as_reference, output_spread

    settings = {"tools": str(TOOLS), "checks": "oob,order"}
    ref = _make_trace(tmp_path, "ref", _launch([1.0, 2.0, 3.0, 4.0]))
    ref2 = _make_trace(tmp_path, "ref2", _launch([1.0, 2.0, 3.0, 4.0 + 2 ** -20]))
    spread = output_spread(settings, ref, ref2)
    assert spread == {"0:0": pytest.approx(2 ** -20)}
    reference = {"trace": str(ref)}
    close = _make_trace(tmp_path, "close", _launch([1.0, 2.0, 3.0, 4.0 - 2 ** -20]))
    far = _make_trace(tmp_path, "far", _launch([1.0, 2.0, 3.0, 4.001]))
    assert _same_as_reference(settings, reference, close, ["0:0"], spread)
    assert not _same_as_reference(settings, reference, far, ["0:0"], spread)
    # Where the output does not vary in the reference, only its bits count.
    assert not _same_as_reference(settings, reference, close, ["0:1"], spread)
    # Two runs of the reference that happened to land alike (no spread
    # seen) still allow a few units in the last place: 4 ULP of 4.0 is 2^-19.
    assert _same_as_reference(settings, reference, close, ["0:0"], spread={})
    two_ulp = _make_trace(tmp_path, "two_ulp", _launch([1.0, 2.0, 3.0, 4.0 + 2 ** -20]))
    eight_ulp = _make_trace(tmp_path, "eight_ulp", _launch([1.0, 2.0, 3.0, 4.0 + 2 ** -18]))
    assert _same_as_reference(settings, reference, two_ulp, ["0:0"], spread={"0:0": 0.0})
    assert not _same_as_reference(settings, reference, eight_ulp, ["0:0"], spread={"0:0": 0.0})


@needs_tools
def test_no_mutants_judges_only_the_references_over_many_draws(kernels, tmp_path, capsys):
    """--no-mutants: the false-alarm measurement over many seeds, draws run
    side by side, no mutant built."""
    out, log = tmp_path / "out", tmp_path / "builds.log"
    assert _campaign(kernels, out, "--no-mutants", "--seeds", "1-12", "--format", "json", log=log) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["mutants"] == 0
    assert summary["false_alarms"] == {"reference_runs": 24, "alarms": [], "retried": 0}
    built = log.read_text()
    assert "--kosan-mutate=" not in built


@needs_tools
def test_no_mutants_resumes_draw_by_draw_chunk(kernels, tmp_path, capsys):
    """Draws are recorded chunk by chunk, so a stopped run resumes where it
    stopped; run again when done, it has nothing left to do, and each
    program is built once."""
    out, log = tmp_path / "out", tmp_path / "builds.log"
    assert _campaign(kernels, out, "--no-mutants", "--seeds", "1-12", log=log) == 0
    db = sqlite3.connect(out / "campaign.sqlite")
    assert db.execute("SELECT COUNT(*) FROM ref_runs").fetchone()[0] == 24
    builds = log.read_text().count("ref.kosan")
    assert builds == 2  # one checked build per program, whatever the chunks
    capsys.readouterr()
    assert _campaign(kernels, out, "--no-mutants", "--seeds", "1-12", log=log) == 0
    assert log.read_text().count("ref.kosan") == builds  # nothing left to do


@needs_tools
def test_a_reference_run_past_the_timeout_is_run_again_not_called_a_false_alarm(kernels, tmp_path, capsys):
    """A correct program that once runs past the timeout (a loaded machine)
    is run again with more time; the report counts it, and no false alarm
    is charged to kosan. A program that always hangs still fails."""
    src = kernels / "alpha.cu"
    src.write_text("// fake-reference: slowonce\n" + src.read_text())
    out = tmp_path / "out"
    assert _campaign(kernels, out, "--no-mutants", "--seeds", "1-3", "--format", "json") == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["false_alarms"] == {"reference_runs": 6, "alarms": [], "retried": 3}
    assert "(3 program runs past the timeout, run again with more time)" in (out / "report.txt").read_text()
    src.write_text(src.read_text().replace("fake-reference: slowonce", "fake-reference: hang"))
    out2 = tmp_path / "out2"
    _campaign(kernels, out2, "--no-mutants", "--seeds", "1", "--format", "json")
    summary = json.loads(capsys.readouterr().out)
    kernel = {k["name"]: k for k in summary["kernels"]}["alpha"]
    assert kernel["status"] == "reference-fails"
