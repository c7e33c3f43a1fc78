"""The pytest plugin (SPEC §8): assert_image_matches and --gpuimg-update, run on inner test files by pytester."""

from __future__ import annotations

import inspect
import os
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
import pytest

import gpuimg
from gpuimg.pytest_plugin import sanitise_node_id

pytest_plugins = ["pytester"]


def plugin_args() -> List[str]:
    """Load the plugin in the inner runs: through its pytest11 entry point once the
    package is installed (what users get), by -p before that (registering it
    both ways would be an error)."""
    if not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        for ep in metadata.entry_points(group="pytest11"):
            if ep.value.startswith("gpuimg.pytest_plugin"):
                return []
    return ["-p", "gpuimg.pytest_plugin"]


def box() -> "np.ndarray":
    """The test picture: a blue box on grey, 60x40 RGB."""
    import numpy as np

    a = np.full((40, 60, 3), 200, np.uint8)
    a[10:30, 12:48] = (30, 90, 200)
    return a


# Inner test files start with this: box() and numpy.
PRELUDE = "import numpy as np\nfrom pathlib import Path\n" + inspect.getsource(box) + "\n"


def snapshot(folder: Path) -> Dict[str, Tuple[bytes, int]]:
    """Every file under folder with its bytes and mtime, to show nothing was written."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def golden(pytester: pytest.Pytester) -> Path:
    """golden/box.png in the inner test folder, made from box()."""
    path = pytester.path / "golden" / "box.png"
    path.parent.mkdir()
    path.write_bytes(gpuimg.encode(box(), "png"))
    return path


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", *args)


def test_match_passes_for_array_bytes_and_path(pytester: pytest.Pytester, golden: Path) -> None:
    before = snapshot(golden.parent)
    pytester.makepyfile(
        PRELUDE
        + """
def test_array(assert_image_matches):
    result = assert_image_matches(box(), "golden/box.png")
    assert result.passed

def test_png_bytes(assert_image_matches):
    assert_image_matches((Path(__file__).parent / "golden/box.png").read_bytes(), "golden/box.png")

def test_path_and_absolute_golden(assert_image_matches):
    g = Path(__file__).parent / "golden/box.png"
    assert_image_matches(str(g), g)
"""
    )
    result = run(pytester)
    result.assert_outcomes(passed=3)
    assert snapshot(golden.parent) == before
    # A passing run leaves no pictures behind.
    assert not (pytester.path / "test-results").exists()


def test_one_pixel_fails_with_reason_and_writes_diff(pytester: pytest.Pytester, golden: Path) -> None:
    before = snapshot(golden.parent)
    test_file = pytester.makepyfile(
        test_one=PRELUDE
        + """
def test_changed(assert_image_matches):
    a = box()
    a[5, 7] = (255, 255, 255)
    assert_image_matches(a, "golden/box.png")
"""
    )
    changed = box()
    changed[5, 7] = (255, 255, 255)
    expected = gpuimg.compare(str(golden), changed)
    assert not expected.passed and "differing 1 pixel" in expected.reason

    result = run(pytester)
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    # compare's own reason, after the golden's name, and its figures.
    assert f"golden/box.png: {expected.reason}" in out
    assert expected.text.splitlines()[0] in out

    folder = pytester.path / "test-results" / sanitise_node_id(f"{test_file.name}::test_changed")
    assert sorted(p.name for p in folder.iterdir()) == ["box-actual.png", "box-diff.png", "box-expected.png"]
    assert (folder / "box-expected.png").read_bytes() == golden.read_bytes()
    np.testing.assert_array_equal(gpuimg.load(folder / "box-actual.png"), changed)
    diff = gpuimg.load(folder / "box-diff.png")
    assert diff.shape == (40, 60, 3)
    red = np.all(diff == (255, 0, 0), axis=2)
    assert red[5, 7] and red.sum() == 1
    assert str((folder / "box-diff.png").relative_to(pytester.path)) in out
    # Nothing was written into the golden folder.
    assert snapshot(golden.parent) == before


def test_thresholds_as_keyword_arguments(pytester: pytest.Pytester, golden: Path) -> None:
    pytester.makepyfile(
        PRELUDE
        + """
def two_pixels():
    a = box()
    a[5, 7] = (203, 203, 203)   # 3 levels
    a[20, 20] = (33, 90, 200)   # 3 levels
    return a

def test_count_allows(assert_image_matches):
    assert_image_matches(two_pixels(), "golden/box.png", max_differing=2)

def test_fuzz_allows(assert_image_matches):
    assert_image_matches(two_pixels(), "golden/box.png", fuzz=3)

def test_count_too_small(assert_image_matches):
    assert_image_matches(two_pixels(), "golden/box.png", max_differing=1)

def test_fuzz_too_small(assert_image_matches):
    assert_image_matches(two_pixels(), "golden/box.png", fuzz=2)
"""
    )
    result = run(pytester)
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines(["*golden/box.png: differing 2 pixels* > 1*"])


def test_missing_golden_fails_and_says_how_to_make_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_missing=PRELUDE
        + """
def test_new(assert_image_matches):
    assert_image_matches(box(), "golden/new.png")
"""
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*golden/new.png: golden image does not exist; run pytest with --gpuimg-update*"])
    assert not (pytester.path / "golden").exists()
    # The actual is kept for a look.
    folder = pytester.path / "test-results" / sanitise_node_id("test_missing.py::test_new")
    np.testing.assert_array_equal(gpuimg.load(folder / "new-actual.png"), box())


def test_update_writes_goldens_then_they_pass(pytester: pytest.Pytester) -> None:
    png = gpuimg.encode(box(), "png")
    (pytester.path / "shot.png").write_bytes(png)
    pytester.makepyfile(
        PRELUDE
        + """
def test_array(assert_image_matches):
    assert_image_matches(box(), "golden/array.png")

def test_bytes(assert_image_matches):
    assert_image_matches((Path(__file__).parent / "shot.png").read_bytes(), "golden/sub/bytes.png")

def test_path(assert_image_matches):
    assert_image_matches(str(Path(__file__).parent / "shot.png"), "golden/path.png")
"""
    )
    result = run(pytester, "--gpuimg-update")
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*gpuimg golden images updated*", "created: *array.png"])
    gold = pytester.path / "golden"
    # No temporary files are left beside the goldens.
    assert sorted(str(p.relative_to(gold)) for p in gold.rglob("*") if p.is_file()) == [
        "array.png",
        "path.png",
        os.path.join("sub", "bytes.png"),
    ]
    np.testing.assert_array_equal(gpuimg.load(gold / "array.png"), box())
    # PNG bytes and PNG files are copied as they are.
    assert (gold / "sub" / "bytes.png").read_bytes() == png
    assert (gold / "path.png").read_bytes() == png
    assert not (pytester.path / "test-results").exists()

    run(pytester).assert_outcomes(passed=3)


def test_update_replaces_failing_and_keeps_passing_goldens(pytester: pytest.Pytester, golden: Path) -> None:
    other = golden.with_name("other.png")
    other.write_bytes(golden.read_bytes())
    pytester.makepyfile(
        PRELUDE
        + """
def changed():
    a = box()
    a[0:2, 0:2] = 0
    return a

def test_fails(assert_image_matches):
    assert_image_matches(changed(), "golden/box.png")

def test_within_thresholds(assert_image_matches):
    assert_image_matches(changed(), "golden/other.png", max_differing=4)
"""
    )
    kept = snapshot(golden.parent)["other.png"]
    run(pytester).assert_outcomes(passed=1, failed=1)
    result = run(pytester, "--gpuimg-update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["replaced: *box.png"])
    assert snapshot(golden.parent)["other.png"] == kept
    replaced = gpuimg.load(golden)
    assert (replaced[0:2, 0:2] == 0).all() and replaced.shape == (40, 60, 3)
    run(pytester).assert_outcomes(passed=2)


def test_update_replaces_an_unreadable_golden(pytester: pytest.Pytester) -> None:
    bad = pytester.path / "golden" / "box.png"
    bad.parent.mkdir()
    bad.write_bytes(b"\x89PNG\r\n\x1a\ntruncated")
    pytester.makepyfile(
        PRELUDE
        + """
def test_box(assert_image_matches):
    assert_image_matches(box(), "golden/box.png")
"""
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*DecodeError*"])
    run(pytester, "--gpuimg-update").assert_outcomes(passed=1)
    np.testing.assert_array_equal(gpuimg.load(bad), box())


def test_mask_beside_golden_and_as_argument(pytester: pytest.Pytester, golden: Path) -> None:
    mask = np.full((40, 60), 255, np.uint8)
    mask[0:4, 0:4] = 0
    (golden.parent / "ignore.png").write_bytes(gpuimg.encode(mask, "png"))
    other = golden.with_name("other.png")
    other.write_bytes(golden.read_bytes())
    golden.with_name("other.mask.png").write_bytes(gpuimg.encode(mask, "png"))
    pytester.makepyfile(
        PRELUDE
        + """
def changed():
    a = box()
    a[1, 1] = 0
    return a

def test_mask_argument(assert_image_matches):
    assert_image_matches(changed(), "golden/box.png", mask="golden/ignore.png")

def test_mask_beside(assert_image_matches):
    assert_image_matches(changed(), "golden/other.png")

def test_no_mask(assert_image_matches):
    assert_image_matches(changed(), "golden/box.png")
"""
    )
    run(pytester).assert_outcomes(passed=2, failed=1)


def test_size_mismatch_fails(pytester: pytest.Pytester, golden: Path) -> None:
    pytester.makepyfile(
        PRELUDE
        + """
def test_wider(assert_image_matches):
    a = np.full((40, 61, 3), 200, np.uint8)
    assert_image_matches(a, "golden/box.png")
"""
    )
    result = run(pytester)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*golden/box.png: *"])


def test_output_option(pytester: pytest.Pytester, golden: Path) -> None:
    pytester.makepyfile(
        test_out=PRELUDE
        + """
import pytest
@pytest.mark.parametrize("n", [1])
def test_p(assert_image_matches, n):
    assert_image_matches(np.zeros((40, 60, 3), np.uint8), "golden/box.png")
"""
    )
    run(pytester, "--gpuimg-output", "artifacts/shots").assert_outcomes(failed=1)
    folder = pytester.path / "artifacts" / "shots" / "test-out-py-test-p-1"
    assert (folder / "box-diff.png").is_file()
    assert not (pytester.path / "test-results").exists()


def test_sanitise_node_id() -> None:
    assert sanitise_node_id("tests/test_ui.py::test_home[chromium]") == "tests-test-ui-py-test-home-chromium"
    long_a = "t.py::test_x[" + "a" * 300 + "]"
    long_b = "t.py::test_x[" + "a" * 299 + "b]"
    assert len(sanitise_node_id(long_a)) <= 120
    assert sanitise_node_id(long_a) != sanitise_node_id(long_b)


def test_entry_point_is_registered() -> None:
    try:
        dist = metadata.distribution("gpuimg")
    except metadata.PackageNotFoundError:
        pytest.skip("gpuimg is not installed as a distribution (running from the source tree)")
    eps = [ep for ep in dist.entry_points if ep.group == "pytest11"]
    assert [ep.value for ep in eps] == ["gpuimg.pytest_plugin"]
