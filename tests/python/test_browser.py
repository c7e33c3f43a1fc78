"""assert_image_matches on a real browser's screenshots (issue 29, item 3).

Debian's chromium, driven by Playwright for Python (executable_path, since
browsers cannot be downloaded here) when Playwright is installed, else by
`chromium --headless --screenshot`. One browser for the session; the inner
test runs (pytester) take their screenshots from it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Callable, Iterator, List, Optional

import pytest

pytest_plugins = ["pytester"]

# chromium --headless --screenshot paints nothing in a window much smaller than this.
WIDTH, HEIGHT = 400, 300

# Boxes only, no text: fonts and their hinting differ between machines, boxes
# of whole pixels do not.
PAGE = """<!doctype html>
<html><head><style>
html, body {{ margin: 0; background: #ffffff; }}
#panel {{ position: absolute; left: {left}px; top: 20px; width: 80px; height: 40px;
          background: {colour}; border: {border}px solid #202020; }}
</style></head><body><div id="panel"></div></body></html>
"""
BASE = dict(left=30, colour="#3366cc", border=2)

Shoot = Callable[[str], bytes]


def chromium_path() -> Optional[str]:
    """Debian's chromium (GPUIMG_CHROMIUM may name another)."""
    return os.environ.get("GPUIMG_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def screenshot() -> Iterator[Shoot]:
    """A function from HTML to PNG bytes, WIDTH x HEIGHT, from one browser for the session."""
    exe = chromium_path()
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    if sync_playwright is None and exe is None:
        pytest.skip("neither Playwright for Python nor chromium (Debian: apt-get install chromium)")
    if sync_playwright is not None:
        with sync_playwright() as p:
            try:
                # Debian's chromium; without one, a browser Playwright downloaded.
                browser = p.chromium.launch(executable_path=exe)
            except PlaywrightError as e:
                if exe is not None:
                    raise
                pytest.skip(f"no chromium, and Playwright has no browser of its own: {str(e).splitlines()[0]}")
            context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}, device_scale_factor=1)

            def shoot(html: str) -> bytes:
                page = context.new_page()
                try:
                    page.set_content(html)
                    return page.screenshot(animations="disabled", caret="hide")
                finally:
                    page.close()

            yield shoot
            browser.close()
        return
    assert exe is not None

    # No Playwright: one chromium per screenshot (slower: a launch each).
    with tempfile.TemporaryDirectory(prefix="gpuimg-chromium-") as tmp:

        def shoot_cli(html: str) -> bytes:
            page = Path(tmp) / "page.html"
            out = Path(tmp) / "shot.png"
            page.write_text(html)
            out.unlink(missing_ok=True)
            args: List[str] = [exe, "--headless", "--hide-scrollbars", "--force-device-scale-factor=1",
                               f"--user-data-dir={tmp}/profile", f"--window-size={WIDTH},{HEIGHT}",
                               f"--screenshot={out}", page.as_uri()]
            if os.geteuid() == 0:
                # chromium refuses to run as root with its sandbox (containers, CI).
                args.insert(1, "--no-sandbox")
            subprocess.run(args, check=True, capture_output=True, timeout=60)
            return out.read_bytes()

        yield shoot_cli


class _Screenshots:
    """Gives the inner test runs the outer session's browser as a fixture."""

    def __init__(self, shoot: Shoot) -> None:
        self._shoot = shoot

    @pytest.fixture
    def screenshot(self) -> Shoot:
        return self._shoot


INNER = """
import json
from pathlib import Path

def test_page(screenshot, assert_image_matches):
    here = Path(__file__).parent
    html = (here / "page.html").read_text()
    thresholds = json.loads((here / "thresholds.json").read_text())
    assert_image_matches(screenshot(html), "golden/page.png", **thresholds)
"""


def plugin_args() -> List[str]:
    if not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        for ep in metadata.entry_points(group="pytest11"):
            if ep.value.startswith("gpuimg.pytest_plugin"):
                return []
    return ["-p", "gpuimg.pytest_plugin"]


def test_browser_screenshots(pytester: pytest.Pytester, screenshot: Shoot) -> None:
    import gpuimg

    plugin = _Screenshots(screenshot)
    page = pytester.path / "page.html"
    pytester.makepyfile(test_page=INNER)
    golden = pytester.path / "golden" / "page.png"

    def run(*args: str) -> pytest.RunResult:
        return pytester.runpytest(*plugin_args(), "-p", "no:cacheprovider", *args, plugins=[plugin])

    thresholds = pytester.path / "thresholds.json"
    thresholds.write_text("{}")
    page.write_text(PAGE.format(**BASE))
    run("--gpuimg-update").assert_outcomes(passed=1)
    shot = gpuimg.load(golden)
    assert shot.shape[:2] == (HEIGHT, WIDTH)
    golden_bytes = golden.read_bytes()
    assert golden_bytes.startswith(b"\x89PNG")
    run().assert_outcomes(passed=1)

    # Pixel-level CSS edits: a border 1px wider, a colour 3 levels off, the
    # panel 1px to the right; each fails, and the last two pass with the
    # threshold made for them (the wider border is a change, not a move).
    edits = [
        (dict(border=3), None),
        (dict(colour="#3369cc"), '{"fuzz": 3}'),
        (dict(left=31), '{"max_shift": 1}'),
    ]
    for edit, allowing in edits:
        page.write_text(PAGE.format(**{**BASE, **edit}))
        result = run()
        result.assert_outcomes(failed=1)
        result.stdout.fnmatch_lines(["*golden/page.png: differing * pixel*"])
        assert golden.read_bytes() == golden_bytes, edit
        diff = pytester.path / "test-results" / "test-page-py-test-page" / "page-diff.png"
        assert diff.is_file(), edit
        if allowing is not None:
            thresholds.write_text(allowing)
            run().assert_outcomes(passed=1)
            thresholds.write_text("{}")

    page.write_text(PAGE.format(**BASE))
    run().assert_outcomes(passed=1)
    # The passing run removed the failing run's pictures.
    assert not (pytester.path / "test-results" / "test-page-py-test-page").exists()
