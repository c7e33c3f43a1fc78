"""gpuimg.ray.Steps on a local Ray cluster: every output equals `gpuimg batch`'s.

One module-scoped cluster (`ray.init(num_cpus=2)`) serves every test: starting
Ray costs seconds, and each map_batches starts its own two actors anyway.
Everything runs on the CPU backend, so the comparison with the binary is exact
on any machine.
"""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (make test-python installs ray[data])")
pytest.importorskip("ray.data", reason="ray.data needs ray[data] (pandas, pyarrow)")

import gpuimg  # noqa: E402
import gpuimg.ray  # noqa: E402

# Ray's own DataContext warns about its deprecated settings when it is made.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
STEPS = ("blur:sigma=1.5", "thumbnail:size=24")
N_IMAGES = 200


def _binary() -> str:
    path = os.environ.get("GPUIMG_BIN") or str(ROOT / "build" / "gpuimg")
    if not os.access(path, os.X_OK):
        pytest.fail(f"no gpuimg binary at {path} (run make, or set GPUIMG_BIN)")
    return path


def _batch(in_dir: Path, out_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`gpuimg batch` on the CPU backend, as the reference."""
    return subprocess.run(
        [_binary(), "--backend", "cpu", "--quiet", "batch", str(in_dir), str(out_dir), *args, *STEPS],
        capture_output=True,
        text=True,
    )


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A fresh local two-CPU Ray cluster, quiet, shut down after the module."""
    saved = dict(os.environ)
    # No usage-stats report, no token file in ~/.ray, no uv probing: a test
    # cluster needs none of them, and each costs time on a clean CI machine.
    os.environ.update(RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="disabled", RAY_ENABLE_UV_RUN_RUNTIME_ENV="0")
    os.environ.setdefault("RAY_DATA_LOG_LEVEL", "WARNING")
    ray.init(
        address="local",  # never join a cluster named by RAY_ADDRESS
        num_cpus=2,
        num_gpus=0,  # the CPU backend, whatever the machine has
        include_dashboard=False,
        object_store_memory=100 * 1024 * 1024,
        log_to_driver=False,
    )
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    try:
        yield ray
    finally:
        ray.shutdown()
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Fails a test that is still running after 5 minutes (a Ray pipeline
    starved of resources waits forever) instead of eating CI's 30."""

    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError("gpuimg.ray test still running after 300 s: a hung Ray pipeline?")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(300)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 small PNGs and JPEGs of different sizes and channel counts, one
    broken PNG, and a text file that batch and the dataset both skip."""
    folder = tmp_path_factory.mktemp("ray_in")
    rng = np.random.default_rng(29)
    for i in range(N_IMAGES):
        h, w = int(rng.integers(12, 48)), int(rng.integers(12, 48))
        shape = (h, w) if i % 5 == 0 else (h, w, 4 if i % 7 == 0 and i % 2 == 0 else 3)
        # Smooth gradients plus noise: the blur and the JPEG codec both have
        # real work to do, and no two images are alike.
        yy, xx = np.mgrid[0:h, 0:w]
        base = (xx * 255 // max(w - 1, 1) + yy * 3 + i) % 256
        pixels = (base.reshape(h, w, *([1] if len(shape) == 3 else [])) + rng.integers(0, 40, shape)) % 256
        fmt = "jpg" if i % 2 else "png"
        if fmt == "jpg" and len(shape) == 3 and shape[2] == 4:
            shape = (h, w, 3)
            pixels = pixels[:, :, :3]
        (folder / f"img{i:03d}.{fmt}").write_bytes(gpuimg.encode(pixels.astype(np.uint8), fmt))
    good = (folder / "img000.png").read_bytes()
    (folder / "broken.png").write_bytes(good[: len(good) // 2])  # truncated
    (folder / "notes.txt").write_text("not an image\n")
    return folder


def _rows(ds: Any) -> dict[str, dict[str, Any]]:
    rows = ds.take_all()
    by_name = {Path(row["path"]).name: row for row in rows}
    assert len(by_name) == len(rows), "a file came out twice"
    return by_name


def _check_against_batch(rows: dict[str, dict[str, Any]], out_dir: Path) -> None:
    """Every good file's bytes equal batch's output; the broken one is an
    error row naming it, where batch failed it and wrote nothing."""
    expected = {p.name: p for p in out_dir.iterdir()}
    assert len(expected) == N_IMAGES
    for name, row in rows.items():
        if name == "broken.png":
            assert row["bytes"] is None and row["format"] is None
            assert row["error"] and "broken.png" in row["error"] and "\n" not in row["error"]
            continue
        assert row["error"] is None, f"{name}: {row['error']}"
        # No --format: batch keeps each file's name.
        assert name in expected, f"{name}: batch wrote no {name}"
        assert bytes(row["bytes"]) == expected[name].read_bytes(), f"{name}: differs from gpuimg batch"
    # Nothing lost, nothing extra: every input is a row, once.
    assert set(rows) == set(expected) | {"broken.png"}


def test_binary_files_equal_batch(cluster: Any, images: Path, tmp_path: Path) -> None:
    """read_binary_files -> Steps over two actors (numpy batches): all 200
    outputs equal `gpuimg batch`'s byte for byte; the bad file is a row."""
    out_dir = tmp_path / "batch"
    result = _batch(images, out_dir)
    assert result.returncode == 1, result.stderr  # the broken file fails
    assert "broken.png" in result.stderr

    ds = cluster.data.read_binary_files(
        str(images), include_paths=True, file_extensions=list(gpuimg.ray.EXTENSIONS)
    )
    # SPEC §8's form. num_cpus=0.5: two actors of one CPU each would hold
    # both of the cluster's CPUs and leave none for the read tasks (a hang).
    out = ds.map_batches(
        gpuimg.ray.Steps(*STEPS), batch_format="numpy", batch_size=16, concurrency=2, num_cpus=0.5
    )
    rows = _rows(out)
    assert "notes.txt" not in rows
    _check_against_batch(rows, out_dir)
    formats = {row["format"] for row in rows.values() if row["error"] is None}
    assert len(formats) == 2  # the PNGs stayed PNG and the JPEGs JPEG


def test_paths_pandas_format_equal_batch(cluster: Any, images: Path, tmp_path: Path) -> None:
    """Rows of paths only, pandas batches, --format png: still batch's bytes."""
    out_dir = tmp_path / "batch_png"
    result = _batch(images, out_dir, "--format", "png")
    assert result.returncode == 1, result.stderr

    paths = sorted(str(p) for p in images.iterdir() if p.suffix != ".txt")
    ds = cluster.data.from_items([{"path": p} for p in paths])
    # Ray >= 2.51's spelling of concurrency=2 (which it warns is deprecated).
    out = ds.map_batches(
        gpuimg.ray.Steps(*STEPS, format="png"),
        batch_format="pandas",
        batch_size=32,
        compute=cluster.data.ActorPoolStrategy(size=2),
        num_cpus=0.5,
    )
    rows = _rows(out)
    expected = {p.name: p.read_bytes() for p in out_dir.iterdir()}
    assert len(expected) == N_IMAGES
    for name, row in rows.items():
        if name == "broken.png":
            assert row["bytes"] is None and "broken.png" in row["error"]
            continue
        assert row["error"] is None, f"{name}: {row['error']}"
        assert row["format"] == "png"
        assert bytes(row["bytes"]) == expected[Path(name).stem + ".png"], f"{name}: differs from batch --format png"
    assert len(rows) == N_IMAGES + 1


def test_direct_call_and_errors(images: Path) -> None:
    """Without Ray: a configured class, its instance on a numpy batch, a
    missing path and an undecodable row as error rows, wrong use refused."""
    configured = gpuimg.ray.Steps("invert")
    assert isinstance(configured, type) and issubclass(configured, gpuimg.ray.Steps)
    worker = configured()
    data = (images / "img000.png").read_bytes()
    batch = {
        "bytes": np.array([data, b"not an image", None, None], dtype=object),
        "path": np.array(["a.png", "b.png", str(images / "img001.jpg"), str(images / "missing.png")]),
        "label": np.array([1, 2, 3, 4]),
    }
    out = worker(batch)
    assert list(out["label"]) == [1, 2, 3, 4] and list(out["path"]) == list(batch["path"])
    assert out["bytes"][0] == gpuimg.process(data, "invert", name="a.png", backend="cpu")[0]
    assert out["bytes"][1] is None and "b.png" in out["error"][1]
    assert out["error"][2] is None and out["bytes"][2][:2] == b"\xff\xd8"  # read from its path
    assert out["bytes"][3] is None and "missing.png" in out["error"][3]
    with pytest.raises(TypeError):
        configured("blur")  # configured already: Ray constructs it with no arguments
    with pytest.raises(ValueError):
        gpuimg.ray.Steps("blur", backend="gpu")
    # A crop outside one image is that image's error; a step that does not
    # parse is every image's, so it stops the job as it stops batch.
    out = gpuimg.ray.Steps("crop:rect=0,0,5000,5000")()(batch)
    assert out["bytes"][0] is None and "5000" in out["error"][0]
    with pytest.raises(gpuimg.UsageError, match="blurr"):
        gpuimg.ray.Steps("blurr")()(batch)
    with pytest.raises(KeyError):
        worker({"image": np.array([data], dtype=object)})


def test_worker_threads_equal_batch(images: Path, tmp_path: Path) -> None:
    """One actor's rows on four worker threads (each its own context, as a
    GPU actor with num_cpus runs them): the same bytes as batch, in row order."""
    out_dir = tmp_path / "batch_threads"
    _batch(images, out_dir)
    files = sorted(p for p in images.iterdir() if p.suffix != ".txt")
    worker = gpuimg.ray.Steps(*STEPS, workers=4, backend="cpu")()
    batch = {
        "bytes": np.array([p.read_bytes() for p in files], dtype=object),
        "path": np.array([str(p) for p in files]),
    }
    out = worker(batch)
    assert worker._pool is not None and worker._workers == 4
    rows = {Path(p).name: {"bytes": b, "format": f, "error": e}
            for p, b, f, e in zip(out["path"], out["bytes"], out["format"], out["error"])}
    _check_against_batch(rows, out_dir)
    with pytest.raises(ValueError):
        gpuimg.ray.Steps("invert", workers=0)
