"""examples/tvm_te_gemm.py is a TVM TE script with only its imports changed: it must run as is
(it checks its own result against numpy and raises otherwise)."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tvm_te_gemm.py"


def test_tvm_gemm_example_differs_from_tvm_only_in_its_imports():
    text = EXAMPLE.read_text()
    assert "import tessera as tvm\n" in text and "from tessera import te\n" in text
    body = text.split("# ---- the TVM script from here on, unchanged", 1)[1]
    assert "tessera" not in body  # everything after the imports is TVM's spelling


def test_tvm_gemm_example_runs_and_matches_numpy():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "python"))
    out = subprocess.run([sys.executable, str(EXAMPLE)], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert "matches numpy" in out.stdout
    assert "for (" in out.stdout  # the lowered program was printed
