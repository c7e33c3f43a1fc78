"""gpuimg in Ray Data: ``ds.map_batches(gpuimg.ray.Steps(...), ...)``.

A Ray Data pipeline of image files goes through gpuimg as a stateful map over
actors, one gpuimg context per actor (SPEC §8)::

    import ray, gpuimg.ray

    ds = ray.data.read_binary_files("/shared/photos", include_paths=True,
                                    file_extensions=list(gpuimg.ray.EXTENSIONS))
    out = ds.map_batches(gpuimg.ray.Steps("blur:sigma=2", "thumbnail:size=512"),
                         batch_format="numpy", batch_size=16,
                         num_gpus=1, concurrency=4)

Each output row has ``bytes`` (the encoded image: exactly the file ``gpuimg
--backend B batch`` writes for that input with those steps, B being the
actor's backend), ``format`` (``"png"``, ``"jpg"``, ...), ``error`` (``None``, or the one-line message of a file that
failed, whose ``bytes`` and ``format`` are then ``None``) and every other input
column (``path`` among them) unchanged. As in ``batch``, one bad file never
stops the job: it is named, and nothing is lost.

``Steps(...)`` returns a *configured class*, not an instance: Ray Data runs a
map on an actor pool (one object per actor, made once) only when it is given a
class, and a class it can construct without arguments is what makes SPEC §8's
form ``ds.map_batches(Steps("blur:sigma=2"), concurrency=N)`` work with no
``fn_constructor_args``. Given a plain callable instead, Ray would run short
tasks and rebuild the gpuimg context (and, on a GPU, its CUDA state) per task.
"""

from __future__ import annotations

import dataclasses
import math
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

import gpuimg

__all__ = ["EXTENSIONS", "Steps"]

#: The extensions ``gpuimg batch`` reads (SPEC §5: others are ignored, not
#: failures). Pass ``file_extensions=list(EXTENSIONS)`` to
#: ``ray.data.read_binary_files`` to pick the same files as ``batch``.
EXTENSIONS: tuple[str, ...] = (
    "png", "jpg", "jpeg", "bmp", "tga", "ppm", "pgm", "webp", "tif", "tiff",
    "jxl", "heic", "heif", "avif", "pnm", "gif", "psd",
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class _Config:
    """What a configured ``Steps`` class carries to its actors."""

    steps: tuple[str, ...]
    format: str | None
    column: str
    path_column: str
    backend: str | None
    workers: int | None
    options: tuple[tuple[str, Any], ...]


class Steps:
    """A gpuimg pipeline as a Ray Data callable class.

    ``Steps(*steps, format=None, column="bytes", path_column="path",
    backend=None, **options)`` returns a subclass of ``Steps`` carrying that
    configuration, to hand to ``Dataset.map_batches`` as it is::

        ds.map_batches(gpuimg.ray.Steps("thumbnail:size=512"),
                       batch_format="numpy", num_gpus=1, concurrency=2)

    Ray makes one instance per actor; each instance owns one gpuimg context,
    made on its first batch: on the actor's GPU when Ray gave it one
    (``num_gpus=...``; ``ray.get_gpu_ids()`` non-empty), else on the CPU
    backend. ``backend="cpu"`` or ``"cuda"`` forces one.

    Args:
        *steps: SPEC §1 steps, e.g. ``"blur:sigma=2"``; with none, each
            image is decoded and encoded again (a format conversion). A step
            that does not parse raises ``gpuimg.UsageError`` from the first
            batch (failing the job); errors of one file are rows.
        format: output format (``"png"``, ``"jpg"``, ...); None keeps each
            input's own format as ``batch`` does (GIF and PSD become PNG).
        column: the column of encoded image bytes (``read_binary_files``
            names it ``bytes``). Rows without it, or whose value is None,
            are read from ``path_column`` instead.
        path_column: the column of file paths (``read_binary_files(...,
            include_paths=True)`` gives it); used to name files in errors,
            and read when there are no bytes. Paths must be readable by the
            actor (a local or shared file system).
        backend: ``"cpu"``, ``"cuda"``, ``"auto"`` or None (the GPU when the
            actor has one, else the CPU).
        workers: threads that process a batch's rows at once, each with a
            context of its own (decoding, encoding and the steps release the
            GIL); default the CPUs Ray gave the actor (``num_cpus``, rounded
            up), the machine's outside Ray. A GPU actor wants several:
            ``num_gpus=1, num_cpus=16`` keeps 16 cores decoding for one GPU.
        **options: keyword arguments of ``gpuimg.Context`` (``png_level``,
            ``jpeg_quality``, ``strip``, ``depth``, ``lossless``,
            ``jpeg_codec``...), the counterparts of ``batch``'s global
            options; ``threads`` defaults to 1 a worker when there are
            several (each decodes a file of its own, as batch's decoders
            do), else to every core.

    Batches may be ``batch_format="numpy"`` (the documented form: a dict of
    arrays) or ``"pandas"``; the output has the same form.

    An instance can also be used without Ray: ``Steps("invert")()(batch)``.
    """

    _config: ClassVar[_Config | None] = None

    def __new__(
        cls,
        *steps: str,
        format: str | None = None,
        column: str = "bytes",
        path_column: str = "path",
        backend: str | None = None,
        workers: int | None = None,
        **options: Any,
    ) -> Any:
        if cls._config is None:
            # The user's call: check what can be checked here, on the driver,
            # so a wrong argument fails before any actor starts.
            for step in steps:
                if not isinstance(step, str):
                    raise TypeError(f"gpuimg.ray.Steps: a step is a str, not {type(step).__name__}")
            if format is not None and not isinstance(format, str):
                raise TypeError("gpuimg.ray.Steps: format is a str or None")
            if backend not in (None, "auto", "cpu", "cuda"):
                raise ValueError(f"gpuimg.ray.Steps: backend {backend!r} is not 'auto', 'cpu', 'cuda' or None")
            for key in ("device",):
                if key in options:
                    raise TypeError(f"gpuimg.ray.Steps: {key} is Ray's to choose (num_gpus=...)")
            if workers is not None and (not isinstance(workers, int) or workers < 1):
                raise ValueError(f"gpuimg.ray.Steps: workers {workers!r} is not a positive int")
            config = _Config(tuple(steps), format, column, path_column, backend, workers,
                             tuple(sorted(options.items())))
            # Named like the base so Ray shows "MapBatches(Steps)". Not
            # importable under that name, so cloudpickle sends it by value
            # (its configuration with it); the base goes by reference.
            return type(
                cls.__name__,
                (cls,),
                {"_config": config, "__module__": cls.__module__, "__qualname__": cls.__qualname__},
            )
        if (steps or options or format is not None or backend is not None or workers is not None
                or column != "bytes" or path_column != "path"):
            raise TypeError("a configured gpuimg.ray.Steps class takes no arguments")
        return super().__new__(cls)

    def __init__(self) -> None:
        # Only configured classes reach here (__new__ returns a class, not an
        # instance, for the unconfigured call, so Python skips __init__).
        self._context: Any = None
        self._local = threading.local()
        self._pool: Any = None
        self._workers = 0

    def __repr__(self) -> str:
        config = self._config
        return f"gpuimg.ray.Steps{config.steps!r}" if config else "gpuimg.ray.Steps"

    def _backend(self) -> str:
        config = self._config
        assert config is not None
        if config.backend is not None:
            return config.backend
        return "cuda" if _actor_has_gpu() else "cpu"

    def _get_context(self) -> Any:
        """The calling thread's gpuimg context, made on first use: one per
        worker thread of the actor (a context is one thread's at a time)."""
        context = getattr(self._local, "context", None)
        if context is None:
            config = self._config
            assert config is not None
            options = dict(config.options)
            if self._workers > 1:
                # each worker decodes its own file, as batch's decoders do:
                # one thread a context, not every core each
                options.setdefault("threads", 1)
            # Ray narrows CUDA_VISIBLE_DEVICES to the actor's GPUs, so the
            # actor's (first) GPU is device 0.
            context = self._local.context = gpuimg.Context(self._backend(), 0, **options)
            if self._context is None:
                self._context = context
        return context

    def _start_workers(self) -> None:
        """The actor's worker threads, made on its first batch: its rows are
        processed concurrently (every call releases the GIL), so one actor
        keeps its CPUs busy decoding and encoding while its GPU runs the
        steps. As many as the CPUs Ray gave the actor (num_cpus), or
        ``workers=``; one where it has less than two."""
        config = self._config
        assert config is not None
        n = config.workers or _actor_cpus()
        self._workers = max(1, n)
        if self._workers > 1:
            self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="gpuimg")

    def _one(self, context: Any, data: Any, path: str | None) -> tuple[bytes | None, str | None, str | None]:
        """One row: (output bytes, format, None) or (None, None, error)."""
        config = self._config
        assert config is not None
        name = path if path is not None else "<bytes>"
        if data is None:
            if path is None:
                return None, None, f"<row>: neither {config.column!r} nor {config.path_column!r}"
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                return None, None, f"{path}: cannot read ({e.strerror or e})"
        try:
            out, fmt = context.process(data, *config.steps, format=config.format, name=name)
        except gpuimg.Error as e:
            message = (getattr(e, "message", None) or str(e) or type(e).__name__).splitlines()[0]
            # A step that does not parse ("'blurr': unknown operation 'blurr'")
            # is wrong for every file: raise, as `batch` exits 2 before its
            # first file, rather than fill the whole dataset with error rows.
            # Errors that depend on the image (a crop outside it) stay rows.
            if isinstance(e, gpuimg.UsageError) and any(message.startswith(f"'{step}':") for step in config.steps):
                raise
            return None, None, message
        return out, fmt, None

    def __call__(self, batch: Mapping[str, Any]) -> Any:
        """Process one batch (a dict of NumPy arrays or a pandas DataFrame)."""
        config = self._config
        if config is None:
            raise TypeError("call gpuimg.ray.Steps(...) with the steps first")
        pandas = _is_dataframe(batch)
        columns = list(batch.columns) if pandas else list(batch.keys())
        if config.column not in columns and config.path_column not in columns:
            raise KeyError(
                f"gpuimg.ray.Steps: the batch has neither a {config.column!r} nor a "
                f"{config.path_column!r} column (it has {columns})"
            )
        datas: Sequence[Any] = _values(batch, config.column) if config.column in columns else ()
        paths: Sequence[Any] = _values(batch, config.path_column) if config.path_column in columns else ()
        n = len(datas) if config.column in columns else len(paths)
        # Made here, outside the per-row error handling: a context that cannot
        # be made (no usable GPU for backend="cuda") fails the actor, as
        # `batch` fails before its first file, instead of naming every row.
        if not self._workers:
            self._start_workers()
        self._get_context()
        outs, fmts, errors = _objects(n), _objects(n), _objects(n)

        def row(i: int) -> None:
            data = datas[i] if len(datas) else None
            path = paths[i] if len(paths) else None
            outs[i], fmts[i], errors[i] = self._one(self._get_context(), data,
                                                    None if path is None else str(path))

        if self._pool is None or n < 2:
            for i in range(n):
                row(i)
        else:
            for f in [self._pool.submit(row, i) for i in range(n)]:
                f.result()  # in row order; a step that does not parse raises here
        # Every input column but the consumed bytes passes through unchanged.
        result: dict[str, Any] = {c: _values(batch, c) for c in columns if c != config.column}
        result["bytes"] = outs
        result["format"] = fmts
        result["error"] = errors
        if pandas:
            import pandas as pd

            # dtype=object keeps None as None (pandas 3 would infer a str
            # column and turn it into NaN).
            return pd.DataFrame(
                {k: pd.Series(v, index=batch.index, dtype=object if k in ("bytes", "format", "error") else None)
                 for k, v in result.items()}
            )
        return result


def _actor_cpus() -> int:
    """The CPUs Ray gave this actor (num_cpus, rounded up), or the
    machine's outside Ray."""
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        try:
            cpus = ray.get_runtime_context().get_assigned_resources().get("CPU", 1)
            return max(1, math.ceil(cpus))
        except Exception:  # noqa: BLE001 - an older Ray without the call
            return 1
    return os.cpu_count() or 1


def _actor_has_gpu() -> bool:
    """True inside a Ray worker that was given a GPU."""
    # Asked only when connected: ray.get_gpu_ids() would otherwise start a
    # local Ray instance just to answer.
    ray = sys.modules.get("ray")
    if ray is None or not ray.is_initialized():
        return False
    return bool(ray.get_gpu_ids())


def _is_dataframe(batch: Any) -> bool:
    return type(batch).__name__ == "DataFrame" and hasattr(batch, "columns")


def _values(batch: Any, column: str) -> Any:
    """A column as a sequence (a NumPy array, or a pandas Series' values)."""
    values = batch[column]
    return values.to_numpy() if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray) else values


def _objects(n: int) -> np.ndarray:
    # Filled element by element: np.array(list_of_bytes) could make a fixed
    # width 'S' array, which drops trailing NUL bytes.
    return np.empty(n, dtype=object)
