# SPDX-License-Identifier: MIT
"""Builds gpuimg._gpuimg against the checkout's libgpuimg.so.

The library is built by the checkout's Makefile (`make shared`, which is
quick when `make` already ran), then copied into the package beside the
extension, which finds it through an $ORIGIN run path: the installed
module needs no LD_LIBRARY_PATH and does not depend on the checkout
staying where it is. GPUIMG_BUILD names the build folder (default
../build) and GPUIMG_MAKE_ARGS adds make arguments (e.g. "NVCC=" for a
CPU-only library); GPUIMG_NO_MAKE=1 takes the library as it is.
"""
import os
import re
import shlex
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BUILD = os.path.abspath(os.environ.get("GPUIMG_BUILD") or os.path.join(ROOT, "build"))


def soname() -> str:
    """libgpuimg.so.MAJOR.MINOR, from the header's version (as the Makefile names it)."""
    with open(os.path.join(ROOT, "include", "gpuimg.h")) as f:
        m = re.search(r'#define GPUIMG_VERSION "(\d+)\.(\d+)\.\d+"', f.read())
    if not m:
        raise RuntimeError("include/gpuimg.h: no GPUIMG_VERSION")
    return f"libgpuimg.so.{m.group(1)}.{m.group(2)}"


class BuildWithLibrary(build_ext):
    def run(self) -> None:
        if not os.environ.get("GPUIMG_NO_MAKE"):
            jobs = str(os.cpu_count() or 1)
            cmd = ["make", "-C", ROOT, f"-j{jobs}", f"BUILD={BUILD}",
                   *shlex.split(os.environ.get("GPUIMG_MAKE_ARGS", "")),
                   os.path.join(BUILD, "libgpuimg.so")]
            subprocess.check_call(cmd)
        super().run()
        # the library beside the extension, under the name it is linked by
        lib = os.path.join(BUILD, soname())
        dest = os.path.join(self.build_lib, "gpuimg", soname())
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copy2(os.path.realpath(lib), dest)
        if self.inplace:
            shutil.copy2(os.path.realpath(lib), os.path.join(HERE, "gpuimg", soname()))


ext = Extension(
    "gpuimg._gpuimg",
    sources=["gpuimg/_gpuimg.c"],
    include_dirs=[os.path.join(ROOT, "include")],
    extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-Werror"],
    # the exact soname, so that the copy beside the module is the one found
    extra_link_args=[f"-L{BUILD}", f"-l:{soname()}", "-Wl,-rpath,$ORIGIN"],
)

setup(ext_modules=[ext], cmdclass={"build_ext": BuildWithLibrary})
