"""`doctor --device X` asks MindSpore about X (issue 26 item 2): it used to judge the device
by the backend libraries a build ships, so `--device gpu` was all PASS with exit 0 on a
machine where MindSpore says "libcuda.so not found / Unsupported device target GPU".
Now a child of the target interpreter calls set_device(X) and runs one op there."""

from __future__ import annotations

import ctypes.util
import json

import pytest
from click.testing import CliRunner

from msgraphlint.doctor.checks import FAIL, PASS, check_device_runtime, doctor_command


def test_no_device_or_quick_adds_no_check():
    assert check_device_runtime(None, {"stage": "done", "result_ok": True}) is None
    assert check_device_runtime("gpu", None) is None  # --quick: no probe ran


def test_a_probe_that_ran_the_op_passes_and_one_that_failed_names_mindsporess_error():
    assert check_device_runtime("gpu", {"stage": "done", "result_ok": True}).status == PASS
    c = check_device_runtime("gpu", {"stage": "set_device", "error": "RuntimeError: Unsupported device target GPU."})
    assert c.status == FAIL and "set_device('GPU')" in c.detail and "Unsupported device target GPU" in c.detail
    assert check_device_runtime("ascend", {"stage": "done", "result_ok": False}).status == FAIL


def _run(device, tmp_path):
    r = CliRunner().invoke(doctor_command, ["--device", device, "--root", str(tmp_path), "--format", "json"],
                           catch_exceptions=False)
    return {c["name"]: c for c in json.loads(r.output)["checks"]}, r.exit_code


@pytest.mark.mindspore
def test_cpu_is_asked_for_real_and_works(tmp_path):
    checks, _ = _run("cpu", tmp_path)
    assert checks["device-runtime"]["status"] == PASS, checks["device-runtime"]


@pytest.mark.mindspore
@pytest.mark.skipif(ctypes.util.find_library("cuda") is not None, reason="this machine has libcuda")
def test_gpu_without_libcuda_fails_with_mindspores_words(tmp_path):
    checks, code = _run("gpu", tmp_path)
    assert checks["device-runtime"]["status"] == FAIL
    assert "GPU" in checks["device-runtime"]["detail"]
    assert code == 1
