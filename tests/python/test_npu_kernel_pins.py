"""The kernels the NPU templates emit are pinned (npu_kernel_pins.py says what and how to rewrite
the pins on purpose): code generation work that only makes it faster must leave every kernel byte
as it was, and every error as it was worded."""

import json

import npu_kernel_pins as P


def test_every_pinned_kernel_is_byte_identical():
    _, pinned = P.load()
    now = P.compute()
    assert sorted(now) == sorted(pinned), "the sampled configs changed: rewrite the pins on purpose"
    bad = [(k, pinned[k], now[k]) for k in sorted(now) if now[k] != pinned[k]]
    assert not bad, f"{len(bad)} of {len(now)} kernels differ, first: {bad[:3]}"


def test_the_pins_were_written_by_this_compiler_version():
    # Kernels changed on purpose come with a new version (npu_kernel_pins.py --write insists), so
    # a tuning log written before the change names another compiler than this one.
    from tessera.autotune import compiler_version
    version, _ = P.load()
    assert version == compiler_version(), (
        f"the pins were written by {version}, this is {compiler_version()}: rerun "
        "npu_kernel_pins.py --write")


def test_rewriting_pins_with_changed_kernels_needs_a_new_compiler_version(tmp_path, monkeypatch,
                                                                         capsys):
    from tessera.autotune import compiler_version
    _, pinned = P.load()
    key = sorted(k for k in pinned if "fingerprint" in pinned[k])[0]
    changed = dict(pinned)
    changed[key] = dict(pinned[key], fingerprint="0123456789abcdef")
    path = tmp_path / "pins.json"
    monkeypatch.setattr(P, "PINS", str(path))
    monkeypatch.setattr(P, "compute", lambda: changed)
    for version, refused in ((compiler_version(), True), ("tessera 0.0.1", False)):
        path.write_text(json.dumps({"compiler": version, "pins": pinned}))
        assert P.main(["--write"]) == (1 if refused else 0)
        written = json.loads(path.read_text())
        if refused:  # nothing is written, and the message says what to do
            assert written == {"compiler": version, "pins": pinned}
            assert "bump the project version" in capsys.readouterr().err
        else:
            assert written == {"compiler": compiler_version(), "pins": changed}
    # Another error message for the same kernels is no kernel change.
    rejected = dict(pinned, x=dict(status="invalid_config", message="tile_oh 7 > 5"))
    path.write_text(json.dumps({"compiler": compiler_version(), "pins": rejected}))
    monkeypatch.setattr(P, "compute", lambda: dict(rejected, x=dict(rejected["x"], message="?")))
    assert P.main(["--write"]) == 0


def test_the_compiler_version_is_the_project_version_of_cmake_and_pyproject():
    import os
    import re
    import tomllib
    from tessera.autotune import compiler_version
    cmake = open(os.path.join(P.ROOT, "CMakeLists.txt")).read()
    project = re.search(r"project\(tessera VERSION ([0-9.]+)", cmake).group(1)
    with open(os.path.join(P.ROOT, "pyproject.toml"), "rb") as f:
        assert tomllib.load(f)["project"]["version"] == project
    assert compiler_version() == f"tessera {project}"


def test_the_pins_cover_every_template_and_target():
    _, pinned = P.load()
    targets = {k.split(" ")[0] for k in pinned}
    templates = {k.split(" ")[1].rsplit("-", 1)[0] for k in pinned if "-" in k.split(" ")[1]}
    assert targets == set(P.TARGET_NAMES)
    assert {"conv2d", "conv2d_im2col", "depthwise_conv2d", "dense", "max_pool2d",
            "add"} <= templates
    assert sum("fingerprint" in v for v in pinned.values()) >= 300
