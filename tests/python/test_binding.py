# SPDX-License-Identifier: MIT
"""The Python binding (SPEC §8) against the command line it wraps: the
same library, so the same bytes and figures; arrays shared, not copied;
errors as gpuimg.Error subclasses with the CLI's exit codes."""
import os
import shutil
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

import gpuimg

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
GPUIMG_BIN = os.environ.get("GPUIMG_BIN", str(ROOT / "build" / "gpuimg"))


def cli(*args, check=True):
    """The program, CPU backend, as a user runs it."""
    env = dict(os.environ, GPUIMG_BACKEND="cpu")
    return subprocess.run([GPUIMG_BIN, *map(str, args)], capture_output=True, text=True,
                          env=env, check=check)


@pytest.fixture(autouse=True)
def cpu_backend(monkeypatch):
    monkeypatch.setenv("GPUIMG_BACKEND", "cpu")


@pytest.fixture(scope="module")
def chelsea():
    return gpuimg.load(SAMPLES / "chelsea.png")


def test_load_path_and_bytes(chelsea):
    data = (SAMPLES / "chelsea.png").read_bytes()
    from_bytes = gpuimg.load(data)
    assert chelsea.shape == (300, 451, 3) and chelsea.dtype == np.uint8
    assert np.array_equal(chelsea, from_bytes)
    # the library's memory, viewed: no copy was made into a NumPy buffer
    assert not chelsea.flags["OWNDATA"] and chelsea.flags["WRITEABLE"]


def test_run_equals_the_command_line(chelsea, tmp_path):
    out = gpuimg.run(chelsea, "blur:sigma=2", "resize:width=200")
    cli("run", SAMPLES / "chelsea.png", tmp_path / "cli.png", "blur:sigma=2", "resize:width=200")
    assert np.array_equal(out, gpuimg.load(tmp_path / "cli.png"))
    assert out.shape[1] == 200


def test_input_arrays_any_layout(chelsea):
    # a strided view is copied into packed pixels first; padded rows are read in place
    view = chelsea[::2, ::3]
    assert np.array_equal(gpuimg.run(view, "invert"), 255 - view)
    padded = np.zeros((chelsea.shape[0], chelsea.shape[1] + 7, 3), np.uint8)
    padded[:, : chelsea.shape[1]] = chelsea
    rows = padded[:, : chelsea.shape[1]]
    assert not rows.flags["C_CONTIGUOUS"]
    assert np.array_equal(gpuimg.run(rows, "invert"), 255 - chelsea)
    gray = gpuimg.run(chelsea, "grayscale")
    assert gray.shape == chelsea.shape[:2]


def test_sixteen_bits_round_trip():
    rng = np.random.default_rng(7)
    a = rng.integers(0, 65536, size=(37, 53, 3), dtype=np.uint16)
    back = gpuimg.load(gpuimg.encode(a, "png"))
    assert back.dtype == np.uint16 and np.array_equal(back, a)
    assert np.array_equal(gpuimg.run(a, "invert"), 65535 - a)


def test_encode_equals_save(chelsea, tmp_path):
    for fmt in ("png", "jpg", "webp"):
        gpuimg.save(chelsea, tmp_path / f"x.{fmt}")
        assert gpuimg.encode(chelsea, fmt) == (tmp_path / f"x.{fmt}").read_bytes(), fmt


def test_process_gives_the_bytes_batch_writes(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("chelsea.png", "coffee.png"):
        shutil.copy(SAMPLES / name, src / name)
    gpuimg.save(gpuimg.load(SAMPLES / "astronaut.png"), src / "astronaut.jpg")
    steps = ("unsharp:sigma=1", "thumbnail:size=96")
    cli("batch", src, tmp_path / "out", *steps)
    for f in sorted(src.iterdir()):
        data, fmt = gpuimg.process(f.read_bytes(), *steps, name=f.name)
        assert fmt == f.suffix[1:]
        assert data == (tmp_path / "out" / f.name).read_bytes(), f.name


def test_compare_text_and_figures_equal_the_cli(chelsea, tmp_path):
    changed = chelsea.copy()
    changed[10:20, 30:50] += 40
    gpuimg.save(changed, tmp_path / "b.png")
    a, b = SAMPLES / "chelsea.png", tmp_path / "b.png"
    args = dict(threshold=0.1, antialiasing=True, max_differing=50)
    r = gpuimg.compare(a, b, **args, diff=True)
    p = cli("compare", a, b, "--threshold", "0.1", "--antialiasing", "--max-differing", "50",
            "--diff", tmp_path / "diff.png", check=False)
    assert p.returncode == 1 and not r.passed and r.status == "failed"
    assert r.text == p.stdout
    assert 150 < r.differing <= 200 and r.bbox == (30, 10, 20, 10)
    assert r.reason.startswith(f"differing {r.differing} pixels") and r.failures == ("max_differing",)
    assert np.array_equal(r.diff, gpuimg.load(tmp_path / "diff.png"))
    # the same pair as arrays and as bytes: the same figures
    for x, y in ((chelsea, changed), (a.read_bytes(), b.read_bytes()), (a, changed)):
        s = gpuimg.compare(x, y, **args)
        assert (s.differing, s.max_diff, s.mae, s.text) == (r.differing, r.max_diff, r.mae, r.text)
    ok = gpuimg.compare(a, b, threshold=0.1, max_differing=200)
    assert ok.passed and bool(ok) and ok.reason == ""
    assert gpuimg.compare(a, a).status == "identical"


def test_compare_size_and_ignore(chelsea):
    r = gpuimg.compare(chelsea, chelsea[:100])
    assert r.status == "size" and r.size_differs and not r.passed
    assert r.reason == "size differs: 451x300 vs 451x100"
    b = chelsea.copy()
    b[0:5, 0:5] = 0
    assert gpuimg.compare(chelsea, b, ignore=[(0, 0, 5, 5)]).status == "passed"
    mask = np.full(chelsea.shape[:2], 255, np.uint8)
    mask[0:5, 0:5] = 0
    assert gpuimg.compare(chelsea, b, mask=mask).status == "passed"


def test_errors_carry_exit_codes(chelsea, tmp_path):
    with pytest.raises(gpuimg.UsageError) as e:
        gpuimg.run(chelsea, "blur:sigma=-1")
    assert e.value.exit_code == 2 and "sigma" in e.value.message and "\n" not in e.value.message
    with pytest.raises(gpuimg.ImageIOError) as e:
        gpuimg.load(tmp_path / "missing.png")
    assert e.value.exit_code == 3 and "missing.png" in str(e.value)
    with pytest.raises(gpuimg.DecodeError) as e:
        gpuimg.load(b"\x89PNG\r\n\x1a\n broken")
    assert e.value.exit_code == 3 and isinstance(e.value, gpuimg.Error)
    with pytest.raises(gpuimg.FormatError):
        gpuimg.encode(chelsea, "nope")
    with pytest.raises(gpuimg.UsageError):
        gpuimg.run(np.zeros((4, 4), np.float32), "invert")
    with pytest.raises(gpuimg.ImageIOError):
        gpuimg.save(chelsea, tmp_path / "no" / "such" / "folder.png")
    assert not (tmp_path / "no").exists()
    # CUDA without a GPU (or a CPU-only build): a device error, exit 4
    if not gpuimg.backend_available("cuda")[0]:
        with pytest.raises(gpuimg.NoDeviceError) as e:
            gpuimg.run(chelsea, "invert", backend="cuda")
        assert e.value.exit_code == 4
        with pytest.raises(gpuimg.NoDeviceError):
            gpuimg.decode([(SAMPLES / "chelsea.png").read_bytes()])


def test_batch(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("chelsea.png", "coffee.png"):
        shutil.copy(SAMPLES / name, src / name)
    (src / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    s = gpuimg.batch(src, tmp_path / "out", ["invert"])
    assert (s.total, s.processed, s.failed) == (3, 2, 1) and not s.ok
    assert s.failures[0][0].endswith("bad.png") and "bad.png" in s.failures[0][1]
    assert not (tmp_path / "out" / "bad.png").exists()
    halves = [gpuimg.batch(src, tmp_path / f"s{k}", ["invert"], shard=(k, 2)) for k in (0, 1)]
    assert sum(h.total for h in halves) == 3
    with pytest.raises(gpuimg.UsageError):
        gpuimg.batch(src, tmp_path / "x", shard=(2, 2))


def test_threads_share_contexts(chelsea):
    # every call releases the GIL; a context is used by one thread at a time
    ctx = gpuimg.Context("cpu")
    want = gpuimg.run(chelsea, "blur:sigma=1.5")
    results, errors = [], []

    def work():
        try:
            for _ in range(3):
                results.append(ctx.run(chelsea, "blur:sigma=1.5"))
                results.append(gpuimg.run(chelsea, "blur:sigma=1.5"))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 24
    assert all(np.array_equal(r, want) for r in results)


def test_help_shows_docstrings():
    for f in (gpuimg.load, gpuimg.run, gpuimg.compare, gpuimg.batch, gpuimg.decode, gpuimg.process):
        assert f.__doc__ and len(f.__doc__) > 80, f.__name__
    assert "threshold" in gpuimg.compare.__doc__
    assert gpuimg.run.__annotations__


def test_errors_pickle_and_byte_order(chelsea):
    import pickle

    # exceptions cross processes (Ray's actors, multiprocessing) intact
    for e in (gpuimg.UsageError(1, "'blur:sigma=-1': sigma out of range"),
              gpuimg.DecodeError(4, "x.png: not a supported image")):
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is type(e) and back.message == e.message
        assert back.exit_code == e.exit_code and back.status == e.status
    # a big-endian uint16 array is converted, not refused
    a = np.arange(30 * 20 * 3, dtype=np.uint16).reshape(20, 30, 3) * 41
    assert np.array_equal(gpuimg.run(a.astype(">u2"), "invert"), 65535 - a)
    with pytest.raises(gpuimg.UsageError):
        gpuimg.batch(SAMPLES, SAMPLES / "x", devices=list(range(65)))
