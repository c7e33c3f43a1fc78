# SPDX-License-Identifier: MIT
"""Device images (SPEC §8): gpuimg.decode onto the GPU, DLPack out to
PyTorch and CuPy without a copy, gpuimg.run on them without a round trip.
Runs where a CUDA device is usable; elsewhere every test says
"SKIP: no CUDA device"."""
import os
from pathlib import Path

import numpy as np
import pytest

import gpuimg

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

USABLE, WHY = gpuimg.backend_available("cuda")
pytestmark = pytest.mark.skipif(not USABLE, reason=f"SKIP: no CUDA device ({WHY})")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two JPEGs (nvJPEG's) and a PNG (the CPU's decoder, uploaded)."""
    d = tmp_path_factory.mktemp("cuda")
    cpu = gpuimg.Context("cpu", jpeg_quality=92)
    out = []
    for name, fmt in (("chelsea", "jpg"), ("coffee", "jpg"), ("astronaut", "png")):
        img = cpu.load(SAMPLES / f"{name}.png")
        out.append(cpu.encode(img, fmt))
    return out


def test_decode_planes_match_the_host_decoder(files):
    images = gpuimg.decode(files)
    assert len(images) == 3
    for data, dev in zip(files, images):
        host = gpuimg.load(data, backend="cpu")
        h, w, c = host.shape
        assert dev.shape == (c, h, w) and dev.depth == 8 and dev.device == 0
        back = np.asarray(dev.to_host())
        # nvJPEG's IDCT and upsampling are not libjpeg-turbo's: within a few levels
        assert back.shape == host.shape
        assert np.abs(back.astype(int) - host.astype(int)).max() <= 8


def test_run_on_device_images_stays_on_the_device(files):
    dev = gpuimg.decode(files[:1])[0]
    out = gpuimg.run(dev, "blur:sigma=2", "resize:width=200")
    assert isinstance(out, gpuimg.DeviceImage) and out.shape[2] == 200
    # the same kernels on the same pixels through the host path: identical
    host = np.asarray(dev.to_host())
    want = gpuimg.run(host, "blur:sigma=2", "resize:width=200", backend="cuda")
    assert np.array_equal(np.asarray(out.to_host()), want)


def test_dlpack_into_torch_and_cupy(files):
    dev = gpuimg.decode(files[:1])[0]
    host = np.asarray(dev.to_host())
    assert dev.__dlpack_device__() == (2, 0)
    tried = 0
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_dlpack(dev)
        assert t.is_cuda and t.dtype == torch.uint8 and tuple(t.shape) == dev.shape
        assert np.array_equal(t.permute(1, 2, 0).cpu().numpy(), host)
        del t
        tried += 1
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        a = cupy.from_dlpack(dev)
        assert a.shape == dev.shape and a.dtype == cupy.uint8
        assert np.array_equal(cupy.asnumpy(a).transpose(1, 2, 0), host)
        tried += 1
    if not tried:
        pytest.skip("SKIP: neither torch nor cupy is importable")


def test_png_16_bit_on_the_device():
    a = (np.arange(40 * 30 * 3, dtype=np.uint16).reshape(30, 40, 3) * 37)
    dev = gpuimg.decode([gpuimg.encode(a, "png")])[0]
    assert dev.depth == 16 and dev.shape == (3, 30, 40)
    assert np.array_equal(np.asarray(dev.to_host()), a)


def test_decode_errors_name_the_image():
    with pytest.raises(gpuimg.DecodeError) as e:
        gpuimg.decode([b"not an image"])
    assert "image 0" in str(e.value) and e.value.exit_code == 3
