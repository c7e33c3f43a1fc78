"""Golden-image assertions for pytest (SPEC §8): the ``assert_image_matches`` fixture.

Installed with the ``gpuimg`` package and loaded by pytest through its
``pytest11`` entry point, so a test only names the fixture::

    def test_home_page(page, assert_image_matches):
        page.goto("http://localhost:8000/")
        assert_image_matches(page.screenshot(), "golden/home.png", max_differing=20)

Options:

``--gpuimg-update``
    Write the goldens that are missing or fail (from the actuals) instead of
    failing; goldens that pass are left untouched, as ``gpuimg compare
    --update`` does (SPEC §7).
``--gpuimg-output DIR``
    Where a failing comparison writes its pictures (default ``test-results``,
    as pytest-playwright's ``--output``): ``DIR/<test id>/NAME-actual.png``,
    ``NAME-expected.EXT`` (the golden, byte for byte) and ``NAME-diff.png``.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, List, Optional, Tuple, Union

import numpy as np
import pytest

import gpuimg

#: What the fixture takes as ``actual``: an array (anything NumPy turns into
#: an ``(H, W)`` or ``(H, W, C)`` array), encoded bytes (``page.screenshot()``)
#: or a path to an image file.
ActualImage = Union[np.ndarray, bytes, bytearray, memoryview, str, "os.PathLike[str]"]

# config.stash keys (pytest >= 7): the goldens this session wrote, for the summary.
_UPDATED = pytest.StashKey[List[Tuple[str, str]]]()

# Output format of a golden, from its extension (the ones SPEC §2 writes);
# another extension is handed to gpuimg.encode as is, which names the
# supported ones if it is not.
_FORMAT_OF_SUFFIX = {
    ".png": "png",
    ".jpg": "jpeg",
    ".jpeg": "jpeg",
    ".webp": "webp",
    ".bmp": "bmp",
    ".tif": "tiff",
    ".tiff": "tiff",
    ".tga": "tga",
    ".ppm": "ppm",
    ".pgm": "pgm",
    ".heic": "heic",
    ".heif": "heif",
    ".avif": "avif",
    ".jxl": "jxl",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--gpuimg-update`` and ``--gpuimg-output``."""
    group = parser.getgroup("gpuimg", "gpuimg golden images (assert_image_matches)")
    group.addoption(
        "--gpuimg-update",
        action="store_true",
        default=False,
        help="write the golden images that are missing or fail from the actual images "
        "instead of failing (goldens that pass are kept)",
    )
    group.addoption(
        "--gpuimg-output",
        default="test-results",
        metavar="DIR",
        help="folder for the actual, expected and diff images of failing comparisons, "
        "one subfolder per test (default: test-results)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_UPDATED] = []


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """List the goldens that ``--gpuimg-update`` wrote, so the run says what it changed."""
    updated = config.stash.get(_UPDATED, [])
    if not updated:
        return
    terminalreporter.section("gpuimg golden images updated")
    for path, why in updated:
        terminalreporter.write_line(f"{why}: {path}")


def sanitise_node_id(node_id: str) -> str:
    """Turn a pytest node id into one folder name, as pytest-playwright's ``--output`` does.

    ``tests/test_ui.py::test_home[chromium]`` becomes
    ``tests-test-ui-py-test-home-chromium``; a name over 120 characters is cut
    and ends with a hash of the whole id, so that two tests never share a folder.
    """
    name = re.sub(r"[^A-Za-z0-9]+", "-", node_id).strip("-").lower() or "test"
    if len(name) > 120:
        digest = hashlib.sha1(node_id.encode("utf-8")).hexdigest()[:10]
        name = name[:109].rstrip("-") + "-" + digest
    return name


def _sniff_format(data: bytes) -> Optional[str]:
    """The format of encoded image bytes by their signature, or None when unknown."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data.startswith(b"BM"):
        return "bmp"
    if data[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    return None


def _format_of(path: Path) -> str:
    suffix = path.suffix.lower()
    return _FORMAT_OF_SUFFIX.get(suffix, suffix.lstrip(".") or "png")


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    os.replace, so a reader (or an interrupted run) never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _is_bytes(x: object) -> bool:
    return isinstance(x, (bytes, bytearray, memoryview))


def _is_path(x: object) -> bool:
    return isinstance(x, (str, os.PathLike))


def _encoded(actual: ActualImage, fmt: str) -> bytes:
    """``actual`` as a file in format ``fmt``: encoded bytes and files already in
    that format are taken byte for byte (a screenshot's PNG stays the browser's
    PNG); anything else is decoded if need be and encoded by gpuimg.encode."""
    if _is_bytes(actual):
        data = bytes(actual)  # type: ignore[arg-type]
        if _sniff_format(data) == fmt:
            return data
        return gpuimg.encode(gpuimg.load(data), fmt)
    if _is_path(actual):
        path = Path(actual)  # type: ignore[arg-type]
        data = path.read_bytes()
        if (_sniff_format(data) or _format_of(path)) == fmt:
            return data
        return gpuimg.encode(gpuimg.load(data), fmt)
    return gpuimg.encode(actual, fmt)


def _compare_input(actual: ActualImage) -> Any:
    """What gpuimg.compare takes for ``actual`` (bytearray and memoryview become bytes)."""
    if isinstance(actual, (bytearray, memoryview)):
        return bytes(actual)
    return actual


class ImageMatcher:
    """The value of the ``assert_image_matches`` fixture; call it to assert.

    ``assert_image_matches(actual, golden, **thresholds)`` compares ``actual``
    with the golden image file ``golden`` by :func:`gpuimg.compare` and
    returns its :class:`gpuimg.CompareResult` when the pair passes.

    ``actual``: a NumPy array, encoded image bytes (PNG bytes from
    Playwright's ``page.screenshot()``) or a path to an image file (relative
    to the current directory, as ``open`` takes it).

    ``golden``: the golden image's path, relative to the folder of the test's
    file (an absolute path is taken as it is).

    ``thresholds``: gpuimg.compare's keyword arguments (SPEC §7): ``fuzz``,
    ``threshold``, ``antialiasing``, ``max_shift``, ``ignore``, ``mask``,
    ``ssim``, ``flip``, ``max_diff``, ``max_differing``,
    ``max_differing_pct``, ``min_psnr``, ``min_ssim``, ``max_flip``,
    ``backend``. With none of the limits, one differing pixel fails. A
    ``mask`` path is relative to the test file's folder too; without one,
    ``NAME.mask.png`` beside the golden is used when it exists, as
    ``gpuimg compare`` does in folder mode.

    On failure the test fails with compare's reason (``differing 1532 pixels
    (0.37%) > 1000``) and its figures, and ``NAME-actual.png``,
    ``NAME-expected.EXT`` (a copy of the golden) and ``NAME-diff.png`` are
    written to ``<--gpuimg-output>/<test id>/``. A missing golden fails and
    says to run ``pytest --gpuimg-update``, which writes the goldens that are
    missing or fail instead of comparing (arrays encoded as the golden's
    extension says, files and bytes of that format copied byte for byte) and
    lets the test pass; nothing is written beside the goldens otherwise.
    """

    def __init__(self, request: pytest.FixtureRequest) -> None:
        self._request = request
        self._config = request.config
        self._test_dir = Path(request.path).parent
        self._output_dir = (
            Path(self._config.invocation_params.dir)
            / self._config.getoption("gpuimg_output")
            / sanitise_node_id(request.node.nodeid)
        )

    @property
    def output_dir(self) -> Path:
        """The folder where this test's failing comparisons write their pictures."""
        return self._output_dir

    def __call__(
        self, actual: ActualImage, golden: Union[str, "os.PathLike[str]"], **thresholds: Any
    ) -> Optional["gpuimg.CompareResult"]:
        """Assert that ``actual`` matches the golden image ``golden`` within ``thresholds``.

        See :class:`ImageMatcher` (``help(gpuimg.pytest_plugin.ImageMatcher)``)
        for the arguments. Returns the :class:`gpuimg.CompareResult` (None when
        ``--gpuimg-update`` created the golden).
        """
        __tracebackhide__ = True
        if not (_is_bytes(actual) or _is_path(actual) or hasattr(actual, "__array_interface__")
                or hasattr(actual, "__array__")):
            raise TypeError(
                f"assert_image_matches: actual must be an array, image bytes or a path, not {type(actual).__name__}"
            )
        golden_path = Path(golden)
        if not golden_path.is_absolute():
            golden_path = self._test_dir / golden_path
        self._clear_outputs(golden_path)
        update = bool(self._config.getoption("gpuimg_update"))
        options = dict(thresholds)
        mask = options.get("mask")
        if isinstance(mask, (str, os.PathLike)) and not Path(mask).is_absolute():
            # A mask file is found as the golden is: beside the test file.
            options["mask"] = str(self._test_dir / mask)
        elif mask is None:
            # As in folder mode (SPEC §7): NAME.mask.png beside the golden is its mask.
            beside = golden_path.with_name(golden_path.stem + ".mask.png")
            if beside.is_file():
                options["mask"] = str(beside)
        # Always ask for the diff picture: it is what a failure leaves behind.
        options["diff"] = True

        if not golden_path.exists():
            if update:
                self._update(golden_path, actual, "created")
                return None
            written = self._write_outputs(golden_path, actual, None, None)
            pytest.fail(
                f"{self._show(golden_path)}: golden image does not exist; run pytest with "
                f"--gpuimg-update to create it from the actual image\n{written}"
            )

        try:
            result = gpuimg.compare(str(golden_path), _compare_input(actual), **options)
        except gpuimg.Error as e:
            if update and getattr(e, "exit_code", None) == 3 and _readable(actual):
                # An unreadable golden (I/O, exit 3) is replaced like a failing
                # one, by an actual that decodes (a damaged actual is never
                # recorded); a usage error (a bad threshold) is raised as it is.
                self._update(golden_path, actual, f"replaced ({e})")
                return None
            raise
        if result.passed:
            # Also under --gpuimg-update: as `gpuimg compare --update`, a golden
            # that passes is kept, so re-recording a suite does not churn files
            # for noise the thresholds allow.
            return result
        if update:
            self._update(golden_path, actual, "replaced")
            return result
        written = self._write_outputs(golden_path, actual, golden_path, result)
        reason = result.reason or result.status
        pytest.fail(f"{self._show(golden_path)}: {reason}\n{result.text.rstrip()}\n{written}")

    def _show(self, path: Path) -> str:
        """A path as a failure shows it: relative to where pytest was started when
        under it (short enough for the one-line summary), else absolute."""
        try:
            return str(path.relative_to(Path(self._config.invocation_params.dir)))
        except ValueError:
            return str(path)

    def _update(self, golden_path: Path, actual: ActualImage, why: str) -> None:
        _write_atomic(golden_path, _encoded(actual, _format_of(golden_path)))
        self._config.stash[_UPDATED].append((str(golden_path), why))
        # A note in the test's report too (junit XML properties, --report-log).
        self._request.node.user_properties.append(("gpuimg_updated", str(golden_path)))

    def _names(self, golden_path: Path) -> Tuple[Path, Path, Path]:
        stem = golden_path.stem
        return (
            self._output_dir / f"{stem}-actual.png",
            self._output_dir / f"{stem}-expected{golden_path.suffix.lower() or '.png'}",
            self._output_dir / f"{stem}-diff.png",
        )

    def _clear_outputs(self, golden_path: Path) -> None:
        """Remove this golden's pictures left by an earlier run, so the folder only
        ever shows this run's failures (only our own three names are touched)."""
        for p in self._names(golden_path):
            try:
                p.unlink()
            except FileNotFoundError:
                pass
        try:
            self._output_dir.rmdir()  # only when empty
        except OSError:
            pass

    def _write_outputs(
        self, golden_path: Path, actual: ActualImage, expected: Optional[Path], result: Any
    ) -> str:
        """Write the actual, the golden's copy and the diff; return lines naming them."""
        actual_out, expected_out, diff_out = self._names(golden_path)
        lines = []
        _write_atomic(actual_out, _encoded(actual, "png"))
        lines.append(f"actual:   {self._show(actual_out)}")
        if expected is not None:
            _write_atomic(expected_out, expected.read_bytes())
            lines.append(f"expected: {self._show(expected_out)}")
        diff = getattr(result, "diff", None) if result is not None else None
        if diff is not None:
            _write_atomic(diff_out, gpuimg.encode(diff, "png"))
            lines.append(f"diff:     {self._show(diff_out)}")
        return "\n".join(lines)


@pytest.fixture
def assert_image_matches(request: pytest.FixtureRequest) -> ImageMatcher:
    """Compare an image with a golden file: ``assert_image_matches(actual, "golden.png", **thresholds)``.

    ``actual`` is a NumPy array, PNG bytes (``page.screenshot()``) or a path;
    ``golden`` is relative to the test file's folder; ``thresholds`` are
    gpuimg.compare's keyword arguments (``max_differing=100``,
    ``threshold=0.1``, ``antialiasing=True``, ...). A failure gives compare's
    reason and writes NAME-actual.png, NAME-expected.png and NAME-diff.png to
    ``test-results/<test id>/`` (``--gpuimg-output``); ``pytest
    --gpuimg-update`` writes missing or failing goldens instead.
    """
    return ImageMatcher(request)


def _readable(actual: Any) -> bool:
    """Whether the actual image decodes: only such an actual may become a golden."""
    if isinstance(actual, np.ndarray):
        return True
    try:
        gpuimg.load(actual if isinstance(actual, (bytes, bytearray, memoryview)) else str(actual))
        return True
    except gpuimg.Error:
        return False
