# SPDX-License-Identifier: MIT
"""gpuimg from Python: images as NumPy arrays, the library's operations on
them, golden-image comparison, and whole folders (SPEC §8).

Images are NumPy arrays of ``uint8`` or ``uint16``, shape ``(H, W)`` (gray)
or ``(H, W, C)`` (C = 2 gray + alpha, 3 RGB, 4 RGBA). Arrays whose pixels
are packed (rows may be padded) are read in place; results are arrays over
the library's own memory, so nothing is copied either way. Every call that
does work releases the GIL.

    >>> import gpuimg
    >>> img = gpuimg.load("samples/chelsea.png")
    >>> out = gpuimg.run(img, "blur:sigma=2", "resize:width=256")
    >>> gpuimg.save(out, "small.png")
    >>> gpuimg.compare("golden.png", out, threshold=0.1).passed

Steps are written as on the command line (``gpuimg run``): ``"op:key=value,
key=value"``. Errors raise :class:`gpuimg.Error` subclasses carrying the
command line's exit code (SPEC §1) and its one-line message. ``import
gpuimg`` needs no GPU: the default backend is ``auto`` (CUDA where a GPU is
usable and the work is large enough, else the CPU).
"""
from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional, Sequence, Tuple, Union

import numpy as np

from . import _gpuimg

__all__ = [
    "Context", "CompareResult", "BatchSummary", "Error", "UsageError", "FormatError",
    "ImageIOError", "DecodeError", "TooLargeError", "OutOfMemoryError", "NoDeviceError",
    "DeviceError", "InternalError", "load", "save", "encode", "run", "process", "compare",
    "batch", "decode", "DeviceImage", "backend_available", "__version__",
]

__version__: str = _gpuimg.version()

PathLike = Union[str, "os.PathLike[str]"]
Source = Union[np.ndarray, bytes, bytearray, memoryview, PathLike]


# ---- errors -----------------------------------------------------------------

class Error(Exception):
    """A gpuimg failure: ``exit_code`` is what the command line would exit
    with (SPEC §1: 2 usage, 3 input/output, 4 device or resource) and
    ``message`` its one-line error, naming the file or option at fault."""

    exit_code: int = 4

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def __reduce__(self) -> Any:
        # rebuilt from both arguments: pickling crosses processes (Ray's
        # actors raise it to the driver, multiprocessing's workers too)
        return (type(self), (self.status, self.message))


class UsageError(Error, ValueError):
    """A bad step, option or value (exit code 2)."""
    exit_code = 2


class FormatError(UsageError):
    """An output format gpuimg does not write (exit code 2)."""


class ImageIOError(Error, OSError):
    """A file that cannot be opened, read or written (exit code 3)."""
    exit_code = 3

    def __init__(self, status: int, message: str) -> None:
        Error.__init__(self, status, message)
        self.args = (message,)


class DecodeError(ImageIOError):
    """Not a supported image, or a damaged one (exit code 3)."""


class TooLargeError(ImageIOError):
    """Over the pixel limit or 65535 pixels a side (exit code 3)."""


class OutOfMemoryError(Error, MemoryError):
    """Host memory exhausted (exit code 4)."""


class NoDeviceError(Error):
    """The backend asked for is not available, e.g. CUDA without a GPU (exit code 4)."""


class DeviceError(Error):
    """The GPU failed: out of device memory, a CUDA error (exit code 4)."""


class InternalError(Error):
    """A bug in gpuimg: an invariant did not hold (exit code 4)."""


# in gpuimg_status order (include/gpuimg.h): OK has no class
_gpuimg._register_errors((Error, UsageError, FormatError, ImageIOError, DecodeError,
                          TooLargeError, OutOfMemoryError, NoDeviceError, DeviceError,
                          InternalError))


# ---- contexts ---------------------------------------------------------------

def _path(p: PathLike) -> str:
    return os.fsdecode(os.fspath(p))


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _array(image: Any) -> np.ndarray:
    """image as an array gpuimg reads in place: a copy only when its layout
    needs one (not C-ordered pixels, another dtype's bytes)."""
    a = np.asarray(image)
    if a.dtype.kind != "u" or a.dtype.itemsize not in (1, 2):
        raise UsageError(1, f"images are uint8 or uint16 arrays, not {a.dtype}")
    if a.ndim not in (2, 3):
        raise UsageError(1, f"images have shape (H, W) or (H, W, C), not {a.shape}")
    if a.ndim == 3 and not 1 <= a.shape[2] <= 4:
        raise UsageError(1, f"an image has 1 to 4 channels, not {a.shape[2]}")
    values = a.shape[1] * (a.shape[2] if a.ndim == 3 else 1)
    packed = a.strides[-1] == a.itemsize and (a.ndim == 2 or a.strides[1] == a.shape[2] * a.itemsize) \
        and a.strides[0] >= values * a.itemsize
    if not packed or not a.dtype.isnative:
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("="))
    return a


def _to_array(img: "_gpuimg.Image") -> np.ndarray:
    """The library's image as an array over its memory (no copy)."""
    return np.asarray(img)


class Context:
    """A gpuimg context: the backend, the codecs' settings, and reusable
    memory. The module's functions use one per thread and backend; make your
    own to set other options.

    backend: ``"auto"``, ``"cpu"`` or ``"cuda"``; device: the CUDA ordinal;
    threads: CPU threads (0: every core); png_level 0-9; jpeg_quality 1-100;
    depth: 8 or 16 to load every image at that depth (0: the file's own);
    strip: write no metadata; lossless: WebP, HEIF/AVIF and JPEG XL lossless;
    auto_orient: turn images upright by their EXIF orientation; max_pixels:
    the largest image accepted (0: 2^30); jpeg_codec: ``"auto"``, ``"cpu"``
    or ``"gpu"`` (nvJPEG).
    """

    def __init__(self, backend: str = "auto", device: int = 0, *, threads: int = 0,
                 png_level: int = 6, jpeg_quality: int = 90, depth: int = 0,
                 strip: bool = False, lossless: bool = False, auto_orient: bool = True,
                 max_pixels: int = 0, jpeg_codec: str = "auto") -> None:
        self._c = _gpuimg.Context(backend, device, threads, png_level, jpeg_quality, depth,
                                  strip, lossless, auto_orient, max_pixels, jpeg_codec)
        self.backend_name = backend
        self.device = device

    def backend(self) -> str:
        """The backend in use, ``"cpu"`` or ``"cuda"`` (resolving ``auto`` now)."""
        return self._c.backend()

    def load(self, src: Union[PathLike, bytes, bytearray, memoryview]) -> np.ndarray:
        """Decodes a file (a path) or an encoded image (bytes) into an array."""
        if _is_path(src):
            return _to_array(self._c.load(_path(src)))
        return _to_array(self._c.load(src))

    def save(self, image: Any, path: PathLike) -> None:
        """Writes image to path, its format from the extension, atomically."""
        self._c.save(_array(image), _path(path))

    def encode(self, image: Any, format: str = "png") -> bytes:
        """The bytes of image encoded as format (``"png"``, ``"jpg"``, ``"webp"``, ...)."""
        return self._c.encode(_array(image), format)

    def run(self, image: Any, *steps: str) -> Any:
        """image through the steps (``"blur:sigma=2"``, ``"resize:width=512"``...):
        an array for an array, a DeviceImage for a DeviceImage (of this context)."""
        if isinstance(image, _gpuimg.DeviceImage):
            return image.run(_steps(steps))
        return _to_array(self._c.run(_array(image), _steps(steps)))

    def process(self, data: Union[bytes, bytearray, memoryview], *steps: str,
                format: Optional[str] = None, name: str = "<bytes>") -> Tuple[bytes, str]:
        """An encoded image's bytes through the steps into encoded bytes: the
        file ``gpuimg batch`` writes for an input holding data (format None:
        the input's own, GIF and PSD as PNG), and the format written."""
        return self._c.process(data, _steps(steps), format, name)

    def compare(self, expected: Source, actual: Source, **options: Any) -> "CompareResult":
        """See :func:`gpuimg.compare`."""
        return _compare(self._c, expected, actual, **options)

    def batch(self, in_dir: PathLike, out_dir: PathLike, steps: Iterable[str] = (), **options: Any) -> "BatchSummary":
        """See :func:`gpuimg.batch`."""
        return _batch(self._c, in_dir, out_dir, steps, **options)

    def decode(self, data: Sequence[Union[bytes, bytearray, memoryview]]) -> list:
        """See :func:`gpuimg.decode`."""
        return _decode(self, data)


def _steps(steps: Iterable[str]) -> Tuple[str, ...]:
    if isinstance(steps, str):
        return (steps,)
    out = tuple(steps)
    for s in out:
        if not isinstance(s, str):
            raise UsageError(1, f"a step is a string like 'blur:sigma=2', not {s!r}")
    return out


_local = threading.local()


def _context(backend: Optional[str] = None, device: int = 0) -> Context:
    """The calling thread's context for (backend, device), made once."""
    key = (backend or os.environ.get("GPUIMG_BACKEND") or "auto", device)
    cache = getattr(_local, "contexts", None)
    if cache is None:
        cache = _local.contexts = {}
    ctx = cache.get(key)
    if ctx is None:
        ctx = cache[key] = Context(key[0], device)
    return ctx


# ---- images -------------------------------------------------------------------

def load(src: Union[PathLike, bytes, bytearray, memoryview], *, backend: Optional[str] = None) -> np.ndarray:
    """Decodes an image file (a path) or an encoded image (bytes) into an
    array of shape (H, W) or (H, W, C), uint8 or uint16 as the file holds,
    turned upright by its EXIF orientation."""
    return _context(backend).load(src)


def save(image: Any, path: PathLike, *, backend: Optional[str] = None) -> None:
    """Writes an image array to path in the format its extension names,
    atomically (a temporary file renamed into place: no partial file)."""
    _context(backend).save(image, path)


def encode(image: Any, format: str = "png", *, backend: Optional[str] = None) -> bytes:
    """The bytes of an image array encoded as format (png, jpg, webp, tif,
    bmp, ...), as :func:`save` would write them."""
    return _context(backend).encode(image, format)


def run(image: Any, *steps: str, backend: Optional[str] = None, device: int = 0) -> Any:
    """An image array through steps written as on the command line, e.g.
    ``run(img, "blur:sigma=2", "resize:width=512")``; the result is a new
    array. backend: ``"cpu"``, ``"cuda"`` or None (``auto``, or
    $GPUIMG_BACKEND). A DeviceImage (from :func:`decode`) runs on its GPU and
    gives a DeviceImage: nothing crosses to the host."""
    if isinstance(image, _gpuimg.DeviceImage):
        return image.run(_steps(steps))
    return _context(backend, device).run(image, *steps)


def process(data: Union[bytes, bytearray, memoryview], *steps: str, format: Optional[str] = None,
            name: str = "<bytes>", backend: Optional[str] = None, device: int = 0) -> Tuple[bytes, str]:
    """An encoded image (a file's bytes) through steps into the bytes
    ``gpuimg batch`` would write for it, and their format (``"png"``,
    ``"jpg"``...). format None keeps the input's (GIF and PSD become PNG)."""
    return _context(backend, device).process(data, *steps, format=format, name=name)


def backend_available(name: str = "cuda", device: int = 0) -> Tuple[bool, str]:
    """Whether a backend can open here, and its description or the reason not."""
    return _gpuimg.probe(name, device)


# ---- compare --------------------------------------------------------------------

@dataclass(frozen=True)
class CompareResult:
    """Two images compared (SPEC §7). ``passed`` is the verdict; ``reason``
    says which limit failed and by how much (``"differing 1532 pixels
    (0.37%) > 1000"``); ``text`` is what ``gpuimg compare A B`` prints
    (also ``str(result)``). Figures are over the compared pixels; ``psnr``
    is None when no value differs (infinite), ``ssim``/``flip_*`` None when
    not computed; ``diff`` is the difference picture (an RGB array) when
    asked with ``diff=True``."""

    status: str
    reason: str
    failures: Tuple[str, ...]
    text: str
    identical: bool
    size_differs: bool
    width: int
    height: int
    channels: int
    depth: int
    expected_size: Tuple[int, int]
    actual_size: Tuple[int, int]
    compared: int
    ignored: int
    differing: int
    forgiven: int
    shifted: int
    groups_shifted: int
    max_diff: int
    mae: float
    rmse: float
    psnr: Optional[float]
    ssim: Optional[float]
    flip_mean: Optional[float]
    flip_p95: Optional[float]
    flip_p99: Optional[float]
    bbox: Optional[Tuple[int, int, int, int]]
    diff: Optional[np.ndarray] = field(default=None, repr=False, compare=False)

    @property
    def passed(self) -> bool:
        """True when the pair is identical or within every limit given."""
        return self.status in ("identical", "passed")

    def __bool__(self) -> bool:
        return self.passed

    def __str__(self) -> str:
        return self.text


def _encoded(x: Any) -> bool:
    return isinstance(x, (bytes, bytearray, memoryview))


def _compare(c: "_gpuimg.Context", expected: Source, actual: Source, *, fuzz: int = 0,
             threshold: float = 0.0, antialiasing: bool = False, max_shift: int = 0,
             ignore: Iterable[Tuple[int, int, int, int]] = (), mask: Any = None,
             ssim: bool = False, flip: bool = False, max_diff: Optional[int] = None,
             max_differing: Optional[float] = None, max_differing_pct: Optional[float] = None,
             min_psnr: Optional[float] = None, min_ssim: Optional[float] = None,
             max_flip: Optional[float] = None, diff: bool = False) -> CompareResult:
    if _is_path(mask) or _encoded(mask):
        mask = c.load(_path(mask) if _is_path(mask) else mask)
    options = (int(fuzz), float(threshold), bool(antialiasing), int(max_shift),
               [tuple(int(v) for v in r) for r in ignore],
               None if mask is None else _array(mask), bool(ssim), bool(flip),
               max_diff, max_differing, max_differing_pct, min_psnr, min_ssim, max_flip, bool(diff))
    if _is_path(expected) and _is_path(actual):
        r = c.compare("files", _path(expected), _path(actual), options)
    elif not isinstance(expected, np.ndarray) and not isinstance(actual, np.ndarray) \
            and (_is_path(expected) or _encoded(expected)) and (_is_path(actual) or _encoded(actual)):
        def data(x: Any) -> Any:
            if _is_path(x):
                with open(x, "rb") as f:
                    return f.read()
            return x
        r = c.compare("encoded", data(expected), data(actual), options)
    else:
        def image(x: Any) -> np.ndarray:
            if _is_path(x):
                return np.asarray(c.load(_path(x)))
            if _encoded(x):
                return np.asarray(c.load(x))
            return _array(x)
        r = c.compare("images", image(expected), image(actual), options)
    if r["diff"] is not None:
        r["diff"] = np.asarray(r["diff"])
    r["identical"] = bool(r["identical"])
    r["size_differs"] = bool(r["size_differs"])
    return CompareResult(**r)


def compare(expected: Source, actual: Source, *, fuzz: int = 0, threshold: float = 0.0,
            antialiasing: bool = False, max_shift: int = 0,
            ignore: Iterable[Tuple[int, int, int, int]] = (), mask: Any = None,
            ssim: bool = False, flip: bool = False, max_diff: Optional[int] = None,
            max_differing: Optional[float] = None, max_differing_pct: Optional[float] = None,
            min_psnr: Optional[float] = None, min_ssim: Optional[float] = None,
            max_flip: Optional[float] = None, diff: bool = False,
            backend: Optional[str] = None) -> CompareResult:
    """Compares two images as ``gpuimg compare`` does (SPEC §7); expected
    and actual are each an array, encoded bytes (PNG from Playwright's
    ``page.screenshot()``) or a path. Two paths are compared as the command
    compares files: byte-identical PNGs are not even decoded.

    Pixel rule: fuzz (a channel differing by more, in the image's units), or
    threshold (0-1, pixelmatch's YIQ distance); antialiasing forgives
    anti-aliased pixels; max_shift (0-8) forgives content that moved.
    ignore: rectangles (x, y, w, h) never counted; mask: an image (or path)
    whose first channel 0 ignores the pixel. Limits (any given must hold;
    with none, one counted pixel fails): max_diff, max_differing (a count),
    max_differing_pct (a percentage), min_psnr, min_ssim, max_flip. ssim and
    flip compute those figures (a limit on them does too). diff=True gives
    the difference picture as ``result.diff``.
    """
    return _compare(_context(backend)._c, expected, actual, fuzz=fuzz, threshold=threshold,
                    antialiasing=antialiasing, max_shift=max_shift, ignore=ignore, mask=mask,
                    ssim=ssim, flip=flip, max_diff=max_diff, max_differing=max_differing,
                    max_differing_pct=max_differing_pct, min_psnr=min_psnr, min_ssim=min_ssim,
                    max_flip=max_flip, diff=diff)


# ---- batch --------------------------------------------------------------------

@dataclass(frozen=True)
class BatchSummary:
    """What :func:`batch` did: counts of the files selected (``total``),
    written, failed, skipped (``skip_existing``) and ignored (not images),
    the seconds it took, and each failed file with its one-line error."""

    total: int
    processed: int
    failed: int
    skipped: int
    ignored: int
    seconds: float
    cancelled: bool
    failures: Tuple[Tuple[str, str], ...]

    @property
    def ok(self) -> bool:
        """True when no file failed (``gpuimg batch`` would exit 0)."""
        return self.failed == 0 and not self.cancelled


def _batch(c: "_gpuimg.Context", in_dir: PathLike, out_dir: PathLike, steps: Iterable[str] = (), *,
           format: Optional[str] = None, recursive: bool = False, skip_existing: bool = False,
           fail_fast: bool = False, jobs: int = 0, shard: Optional[Tuple[int, int]] = None,
           devices: Optional[Sequence[int]] = None) -> BatchSummary:
    k, n = shard if shard is not None else (0, 1)
    if not (isinstance(k, int) and isinstance(n, int) and 0 <= k < n):
        raise UsageError(2, f"shard: {shard!r} is not (K, N) with 0 <= K < N")
    r = c.batch(_path(in_dir), _path(out_dir), _steps(steps), format, recursive, skip_existing,
                fail_fast, jobs, k, n, None if devices is None else list(devices))
    r["failures"] = tuple(r["failures"])
    return BatchSummary(**r)


def batch(in_dir: PathLike, out_dir: PathLike, steps: Iterable[str] = (), *,
          format: Optional[str] = None, recursive: bool = False, skip_existing: bool = False,
          fail_fast: bool = False, jobs: int = 0, shard: Optional[Tuple[int, int]] = None,
          backend: Optional[str] = None, devices: Optional[Sequence[int]] = None) -> BatchSummary:
    """Every image of in_dir through steps into out_dir, as ``gpuimg batch``
    (SPEC §5): every core, every GPU (devices: ordinals; None: the
    backend's), one bad file named and counted, not fatal. shard=(K, N)
    takes the files whose sorted index is K mod N."""
    return _batch(_context(backend)._c, in_dir, out_dir, steps, format=format,
                  recursive=recursive, skip_existing=skip_existing, fail_fast=fail_fast,
                  jobs=jobs, shard=shard, devices=devices)


# ---- device images (CUDA) ---------------------------------------------------------

DeviceImage = _gpuimg.DeviceImage


def _decode(ctx: Context, data: Sequence[Union[bytes, bytearray, memoryview]]) -> list:
    return ctx._c.decode_device(list(data))


def decode(data: Sequence[Union[bytes, bytearray, memoryview]], device: int = 0) -> list:
    """Decodes encoded images (JPEGs through nvJPEG, batched; other formats
    on the CPU and uploaded) into images resident on CUDA device ``device``,
    as planes of shape (C, H, W). Each exports DLPack (``__dlpack__``), so
    ``torch.from_dlpack(img)``, ``cupy.from_dlpack(img)`` or
    ``jax.dlpack.from_dlpack(img)`` take it without a copy, and
    :func:`run` takes it back without a round trip to the host."""
    return _decode(_context("cuda", device), data)
