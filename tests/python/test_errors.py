"""Failures raise Python exceptions carrying kernbench's own message: the
text the CLI prints after "kernbench: error: " for the same command line."""

import os

import pytest

import kernbench
from conftest import cli


def raised(**options):
    with pytest.raises(kernbench.Error) as e:
        kernbench.run(**options)
    return e.value


def test_an_unknown_option_is_the_clis_usage_error():
    e = raised(bogus=True)
    assert isinstance(e, kernbench.InputError) and isinstance(e, ValueError)
    assert e.exit_code == 2
    c = cli(["run", "--bogus"], want_json=False)
    assert c.exit_code == 2
    assert str(e) == c.err.splitlines()[0] == "The following argument was not expected: --bogus"


def test_a_bad_value_is_the_clis_message():
    e = raised(M="x")
    c = cli(["run", "--M", "x"], want_json=False)
    assert isinstance(e, kernbench.InputError)
    assert str(e) == c.err.splitlines()[0]


def test_a_missing_topology_names_the_file():
    e = raised(topology="/nonexistent/machine.yaml")
    c = cli(["run", "--topology", "/nonexistent/machine.yaml"], want_json=False)
    assert isinstance(e, kernbench.InputError)
    assert c.exit_code == 2
    assert c.err == f"kernbench: error: {e}\n"
    assert "/nonexistent/machine.yaml" in str(e)


def test_a_bad_set_key_is_bad_input():
    e = raised(set={"cube.pe_template.pe_gem.mac_rows": 64})
    c = cli(["run", "--set", "cube.pe_template.pe_gem.mac_rows=64"], want_json=False)
    assert c.err == f"kernbench: error: {e}\n"


def test_a_failed_run_is_a_run_error_with_its_report():
    # Work still pending at --max-sim-time: exit 1, the report on stderr.
    e = raised(M=256, K=256, N=256, max_sim_time="1ns")
    c = cli(["run", "--M", "256", "--K", "256", "--N", "256", "--max-sim-time", "1ns"],
            want_json=False)
    assert isinstance(e, kernbench.RunError) and e.exit_code == 1 == c.exit_code
    assert str(e) == c.err.rstrip("\n")
    assert "--max-sim-time" in str(e)


def test_what_needs_processes_or_stdout_is_refused():
    with pytest.raises(kernbench.InputError, match="--procs"):
        kernbench.run(procs=2)
    with pytest.raises(kernbench.InputError, match="--json -"):
        kernbench.run(json="-")
    with pytest.raises(kernbench.InputError, match="sweep"):
        kernbench.cli("sweep", "--param", "M=1,2")


def test_an_unknown_command_is_named():
    with pytest.raises(kernbench.InputError) as e:
        kernbench.cli("nosuch")
    c = cli(["nosuch"], want_json=False)
    assert c.err == f"kernbench: error: {e.value}\n"


LIB = os.environ.get("KB_TEST_KERNELS_CHECKS")


@pytest.mark.skipif(not LIB or not os.path.exists(LIB), reason="KB_TEST_KERNELS_CHECKS not built")
def test_a_verify_mismatch_is_a_result_that_is_not_ok():
    # tests/cli/kernel_libs/check_kernels_lib.cpp: wrong_gemm computes a
    # wrong tile; --verify finds it (exit 3): a result, not an exception.
    opts = dict(kernel_lib=LIB, kernel="wrong_gemm", pes=4, verify=True, quiet=True,
                args={"M": 128, "K": 128, "N": 128, "block_m": 64, "tile": 64, "dtype": "f32"})
    r = kernbench.run(**opts)
    assert r.exit_code == 3 and not r.ok
    assert "verdict: FAIL" in r.text
    assert r.json["kernel"]["verdict"] == "FAIL"
    # The library loads once per process; a second run still has its kernel.
    again = kernbench.run(**opts)
    assert again.exit_code == 3
    assert again.json["end_ps"] == r.json["end_ps"]
