# SPDX-License-Identifier: MIT
# gpuimg: `make` builds build/gpuimg; `make test` runs the Check suites, then
# again under AddressSanitizer + UndefinedBehaviorSanitizer.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
SAN     ?=
# Position-independent everywhere: the same objects make libgpuimg.a and
# libgpuimg.so (one compile, not two). -fno-semantic-interposition keeps
# GCC inlining and calling the library's own functions directly, as it
# does without -fPIC; the .so's version script hides all but gpuimg_*.
CFLAGS  += $(OPT) $(SAN) -std=c11 -fPIC -fno-semantic-interposition -Wall -Wextra -Werror -MMD -MP
# The libraries' flags from their pkg-config files (each -dev package of
# install-deps.sh ships one), asked once per make; -lm and -lpthread are
# the C library's.
PKGS    = libturbojpeg libjpeg libtiff-4 libwebpmux libwebp libdeflate stb libpng16 zlib \
          libheif libjxl libjxl_threads lcms2
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS))
CPPFLAGS += -Iinclude -Isrc $(PKG_CFLAGS)
LDFLAGS += $(SAN)
LDLIBS  = $(PKG_LIBS) -lm -lpthread
CHECK_LIBS := $(shell pkg-config --libs check)
# `make static`: Debian's static archives by full path, for a binary that
# runs on another distribution (the GPU machine; see shared/DEVICE.md).
# Named here, not from `pkg-config --static --libs`: its -l flags would
# take the shared libraries unless the whole link were static (libc too),
# and libtiff's private list adds libjpeg.a beside libturbojpeg.a, which
# already holds the libjpeg API.
# libheif, libjxl and LittleCMS come without static archives in Debian 12:
# they are linked shared, and travel to the GPU machine beside the binary
# (bench/device_libs.sh gathers them and their own dependencies).
ifeq ($(STATIC),1)
ARCHIVES = /usr/lib/x86_64-linux-gnu
SHARED_ONLY = $(shell pkg-config --libs libheif libjxl libjxl_threads lcms2)
LDLIBS  = $(ARCHIVES)/libtiff.a $(ARCHIVES)/libturbojpeg.a $(ARCHIVES)/libwebpmux.a \
          $(ARCHIVES)/libwebp.a $(ARCHIVES)/libLerc.a $(ARCHIVES)/libjbig.a $(ARCHIVES)/libzstd.a \
          $(ARCHIVES)/liblzma.a $(ARCHIVES)/libdeflate.a $(ARCHIVES)/libstb.a \
          $(ARCHIVES)/libpng16.a $(ARCHIVES)/libz.a $(SHARED_ONLY) -lstdc++ -lm -lpthread
CHECK_LIBS = $(ARCHIVES)/libcheck.a $(ARCHIVES)/libsubunit.a -lrt
endif

# Every layer's folder (src/core, io, ops, run, batch, compare, cpu); cli/
# is the program's own.
LIB_SRC  = $(sort $(filter-out src/cli/%,$(shell find src -name '*.c')))
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(wildcard tests/*.c)

# The CUDA backend is built when nvcc is found (NVCC= forces a CPU-only
# build, whose src/core/cuda_absent.c makes `--backend cuda` exit 4). Kernels are
# compiled for sm_80 and sm_90, plus PTX for later GPUs; the CUDA runtime is
# linked statically (nvcc's default), so the binary needs only the driver.
# For ncu's source view add -lineinfo (NVCCFLAGS="-O3 -lineinfo"); it triples
# the size of the kernels' code in the binary.
NVCC ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVCCFLAGS ?= -O3
ifneq ($(NVCC),)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CU_SRC   = $(wildcard kernels/*.cu)
LIB_SRC := $(filter-out src/core/cuda_absent.c,$(LIB_SRC))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
# nvJPEG is loaded at run time (kernels/nvjpeg_api.cu), so only its header
# is needed to build: the toolkit's, or where the toolkit lacks it (the
# development machines, CI) the one in PyPI's nvidia-nvjpeg wheel, fetched
# once into the build folder. The wheel's major version is the toolkit's.
ifeq ($(wildcard $(CUDA_HOME)/include/nvjpeg.h),)
CUDA_MAJOR := $(shell $(NVCC) --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
NVJPEG_WHEEL ?= $(if $(filter 12,$(CUDA_MAJOR)),nvidia-nvjpeg-cu12,nvidia-nvjpeg==13.3.2.43)
NVJPEG_H = $(BUILD)/nvjpeg/include/nvjpeg.h
NVJPEG_INC = -I$(BUILD)/nvjpeg/include
endif
endif

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_SRC:%.cu=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
# The command line less its main(): what the argument parser's fuzz harness links.
CLI_CORE = $(filter-out $(BUILD)/src/cli/gpuimg.o,$(CLI_OBJ))
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

GPUIMG = $(BUILD)/gpuimg
SUITE  = $(BUILD)/check_gpuimg

.PHONY: all test test-unit test-sanitize test-tsan test-valgrind test-install test-report test-photo golden static \
        test-formats dist test-dist \
        bench install clean fuzz fuzz-run shared test-python test-cluster

all: $(GPUIMG)

# Rebuilt whole: `ar r` would keep members that are no longer in the list
# (src/core/cuda_absent.o after nvcc appears).
$(BUILD)/libgpuimg.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

# The version, from the header (the .so's name, gpuimg.pc).
VERSION := $(shell sed -n 's/^\#define GPUIMG_VERSION "\(.*\)"/\1/p' include/gpuimg.h)

# The shared library: soname libgpuimg.so.MAJOR.MINOR (before 1.0 a minor
# release may change the ABI), only the gpuimg_ names exported
# (src/libgpuimg.map: the internal gpuimg__ ones and the static CUDA
# runtime's stay inside). Its dependencies are linked in (DT_NEEDED), so
# `-lgpuimg` alone links a program.
SONAME   = libgpuimg.so.$(word 1,$(subst ., ,$(VERSION))).$(word 2,$(subst ., ,$(VERSION)))
SHARED   = $(BUILD)/libgpuimg.so.$(VERSION)
shared: $(BUILD)/libgpuimg.so

$(SHARED): $(LIB_OBJ) src/libgpuimg.map
	$(CC) -shared $(LDFLAGS) -Wl,-soname,$(SONAME) -Wl,--version-script=src/libgpuimg.map \
	    -Wl,--no-undefined -o $@ $(LIB_OBJ) $(LDLIBS) $(CUDA_LIBS)

$(BUILD)/libgpuimg.so: $(SHARED)
	ln -sf $(notdir $(SHARED)) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(GPUIMG): $(CLI_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CUDA_LIBS)

$(SUITE): $(TEST_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS) $(CUDA_LIBS)

# The PNG filters' loops are branch-free byte arithmetic that GCC's -O2
# leaves scalar (its cheap cost model). Vectorized, a level-0 encode (the
# filtering, nearly alone) of a 2000x1500 photograph takes 34 ms, not 57.
# (GCC's flags: clang, for the fuzz build, vectorizes these at -O2 anyway.)
# The CPU backend's row loops likewise (src/cpu/): its filters are these
# loops; GPUIMG_CPU_CLONES (src/cpu/cpu.h) builds them for AVX2 as well.
# -fno-math-errno lets sqrtf be one instruction (errno is never read).
ifeq ($(findstring clang,$(CC)),)
$(BUILD)/src/io/png/write.o: CFLAGS += -ftree-vectorize -fvect-cost-model=dynamic
$(patsubst %.c,$(BUILD)/%.o,$(wildcard src/cpu/*.c)): CFLAGS += -ftree-vectorize \
	-fvect-cost-model=dynamic -fno-math-errno
endif

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/nvjpeg/include/nvjpeg.h:
	sh tools/fetch_nvjpeg_header.sh "$(NVJPEG_WHEEL)" $(BUILD)/nvjpeg

$(BUILD)/%.o: %.cu | $(NVJPEG_H)
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 $(NVCCFLAGS) $(CUDA_ARCH) -Iinclude -Isrc $(NVJPEG_INC) -Werror all-warnings \
	    -Xcompiler -fPIC,-Wall,-Wextra,-Werror -MMD -MP -c -o $@ $<

# FLIP's map without fused multiply-adds: nvcc contracts a*b+c where it
# sees fit, differently in code that treats the two images asymmetrically,
# so identical images scored 9e-7 instead of 0 and A against B differed from
# B against A; separately rounded, the kernel does the CPU's arithmetic.
$(BUILD)/kernels/flip.o: NVCCFLAGS += -fmad=false

# The suites find the program and the goldens through these variables.
test-unit: $(GPUIMG) $(SUITE)
	GPUIMG_BIN=$(abspath $(GPUIMG)) GPUIMG_GOLDEN=$(abspath tests/golden) $(SUITE)

# CPU-only (NVCC=): the CUDA runtime and ASan do not share an address space
# well; on the GPU machine compute-sanitizer checks the kernels instead.
test-sanitize:
	LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	$(MAKE) BUILD=build-sanitize NVCC= OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all" test-unit

test: test-unit test-sanitize test-tsan test-install test-report test-cross test-formats test-dist \
      test-cluster test-python

# ThreadSanitizer over the suites that drive the CPU backend's threads: every
# operation's bands (threads, steps, golden), the one pool of a CPU batch,
# compare's SSIM rows, the codecs' pieces. CPU-only, -O1; the program the
# suites run is built with it too.
TSAN_SUITES = threads steps golden batch compare compare_runs codecs
test-tsan:
	$(MAKE) BUILD=build-tsan NVCC= OPT="-O1 -g" SAN="-fsanitize=thread" \
	    build-tsan/gpuimg build-tsan/check_gpuimg
	for s in $(TSAN_SUITES); do \
	    CK_RUN_SUITE=$$s TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
	    GPUIMG_BIN=$(abspath build-tsan/gpuimg) GPUIMG_GOLDEN=$(abspath tests/golden) \
	    build-tsan/check_gpuimg || exit 1; done

# The I/O suites under valgrind's memcheck: an uninitialised byte that
# reaches a decision or an output, which ASan cannot see. CPU-only, -O1.
# tests/valgrind.supp: the video codecs' assembly inside libheif's
# encoders and decoders (x265, aom, dav1d, libde265), which memcheck
# cannot follow.
VALGRIND = valgrind --error-exitcode=1 --errors-for-leak-kinds=none --track-origins=yes -q \
           --suppressions=$(abspath tests/valgrind.supp)
test-valgrind:
	$(MAKE) BUILD=build-valgrind NVCC= OPT="-O1 -g" build-valgrind/gpuimg build-valgrind/check_gpuimg
	for s in untrusted io; do \
	    GPUIMG_MALLOC=1 CK_RUN_SUITE=$$s CK_DEFAULT_TIMEOUT=1200 GPUIMG_BIN=$(abspath build-valgrind/gpuimg) \
	    GPUIMG_GOLDEN=$(abspath tests/golden) $(VALGRIND) --trace-children=no \
	    build-valgrind/check_gpuimg || exit 1; done

# libFuzzer harnesses (tests/fuzz/README.md), built with clang, ASan and
# UBSan into build-fuzz/; `make fuzz-run` runs each for FUZZ_SECONDS on its
# seed corpus (new inputs go to build-fuzz/corpus/, findings to
# build-fuzz/artifacts/) and fails on the first finding.
FUZZ_TARGETS = load info png png_write jpeg_bands kernel steps cli tiff_exif tiff webp metadata jxl heif json
FUZZ_SECONDS ?= 60
FUZZ_BUILD ?= build-fuzz
FUZZ_SAN = -fsanitize=address,undefined -fno-sanitize-recover=all
fuzz:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=clang NVCC= OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz_%)

$(BUILD)/fuzz_cli: tests/fuzz/fuzz_cli.c $(CLI_CORE) $(BUILD)/libgpuimg.a
	$(CC) $(CPPFLAGS) -Isrc/cli $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz_json: tests/fuzz/fuzz_json.c $(BUILD)/src/cli/json_read.o $(BUILD)/src/cli/compare_regions.o $(BUILD)/libgpuimg.a
	$(CC) $(CPPFLAGS) -Isrc/cli $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libgpuimg.a
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-run: fuzz
	mkdir -p build-fuzz/artifacts
	for t in $(FUZZ_TARGETS); do \
	    mkdir -p build-fuzz/corpus/$$t; \
	    echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
	    LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp):print_suppressions=0 \
	    build-fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=30 -rss_limit_mb=4096 \
	        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix=build-fuzz/artifacts/$$t- \
	        build-fuzz/corpus/$$t tests/fuzz/corpus/$$t 2>build-fuzz/fuzz_$$t.log \
	        || { tail -40 build-fuzz/fuzz_$$t.log; exit 1; }; \
	    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss)" build-fuzz/fuzz_$$t.log; \
	    grep -Eo "cov: [0-9]+ ft: [0-9]+" build-fuzz/fuzz_$$t.log | tail -1; \
	done

# gpuimg blur on a real 4000x3000 photograph (from a Debian package) against
# the NumPy reference: see tests/photo/README. Downloads about 11 MB.
test-photo: $(GPUIMG)
	bash tests/photo/fetch_photo.sh $(BUILD)/photo_4000x3000.png
	/usr/bin/python3 tests/photo/check_blur.py $(GPUIMG) $(BUILD)/photo_4000x3000.png $(BUILD)

# Kernel figures against the copy bandwidth and NPP (see bench/bench.cu), on a
# machine with a GPU and NPP: BENCH_IMAGE=photo.png (default: synthesized).
NPP_LIBS = -L$(CUDA_HOME)/lib64 -lnppc -lnppial -lnppicc -lnppidei -lnppif -lnppig -lnppim \
           -lnppist -lnppisu -lnppitc -Xlinker -rpath=$(CUDA_HOME)/lib64
bench: $(BUILD)/libgpuimg.a
	$(NVCC) -std=c++17 $(NVCCFLAGS) $(CUDA_ARCH) -Iinclude -Isrc -Ikernels -Ibench \
	    -o $(BUILD)/bench bench/bench.cu bench/npp.cu $(BUILD)/libgpuimg.a $(LDLIBS) $(NPP_LIBS)
	$(BUILD)/bench $(or $(BENCH_IMAGE),-) $(BUILD)/bench.json

# The codecs against libpng, stb_image and stb_image_write on one
# photograph: `make $(BUILD)/codec_bench`, then bench/codec_device.sh.
$(BUILD)/codec_bench: bench/codec_bench.c $(BUILD)/libgpuimg.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgpuimg.a $(LDLIBS) $(CUDA_LIBS)

# Every operation on the CPU backend in one process, beside OpenCV's calls
# (bench/cpu_bench.sh runs both).
$(BUILD)/cpu_ops: bench/cpu_ops.c $(BUILD)/libgpuimg.a
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libgpuimg.a $(LDLIBS) $(CUDA_LIBS)

# clang-format (the root's .clang-format) over every C and CUDA source of the
# project's own; it names each file and line that clang-format would change
# (fix with `clang-format -i FILE`). CI runs it before `make test`.
.PHONY: format-check
CLANG_FORMAT ?= clang-format
FORMAT_SRC = $(shell find src kernels include tests bench examples -type f \
    \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
format-check:
	$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRC)

# Remakes the goldens from the independent NumPy/SciPy reference.
golden:
	/usr/bin/python3 tests/golden/make_golden.py

# The program and the suite, to carry to the GPU machine (see DEVICE.md).
static:
	$(MAKE) BUILD=build-static STATIC=1 all build-static/check_gpuimg build-static/codec_bench \
	    build-static/cpu_ops build-static/colour_bench

# `make dist`: dist/gpuimg-VERSION-linux-x86_64.tar.gz, the program for CI
# runners (README's CI section; tools/dist.sh packs it). The CPU backend
# alone (no CUDA in it), every library Debian 12 has a static archive of
# linked in, libstdc++ and libgcc too (Lerc, in libtiff, is C++), and only
# the C library's family linked shared: a fully static glibc would break
# its own NSS and iconv, and its 2.35-era symbols (tests/dist/check.sh
# holds the binary to GLIBC_2.35, Ubuntu 22.04's) run on Debian 12 and
# Ubuntu 22.04/24.04. libheif, libjxl and LittleCMS have no static archives
# there: their files are built with GPUIMG_NO_HEIF/_JXL/_LCMS, whose rows
# and functions fail saying so (`gpuimg info` lists what the build lacks).
# The objects are $(BUILD)'s own, less those files and the CUDA ones, so
# after `make` this compiles six files and links.
DIST_SWAP   = src/io/heif.c src/io/jxl.c src/io/io.c src/core/cms.c src/core/cuda_absent.c \
              src/core/dist_glibc.c
DIST_LIB_OBJ = $(filter-out $(DIST_SWAP:%.c=$(BUILD)/%.o) $(CU_SRC:%.cu=$(BUILD)/%.o),$(LIB_OBJ)) \
               $(DIST_SWAP:%.c=$(BUILD)/dist/%.o)
DIST_ARCHIVES = $(patsubst %,/usr/lib/x86_64-linux-gnu/lib%.a,tiff turbojpeg webpmux webp Lerc \
                jbig zstd lzma deflate stb png16 z)
DIST_NAME = gpuimg-$(VERSION)-linux-x86_64
DIST_TAR  = dist/$(DIST_NAME).tar.gz

$(BUILD)/dist/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DGPUIMG_DIST -DGPUIMG_NO_HEIF -DGPUIMG_NO_JXL -DGPUIMG_NO_LCMS $(CFLAGS) -c -o $@ $<

$(BUILD)/dist/gpuimg: $(CLI_OBJ) $(DIST_LIB_OBJ)
	$(CXX) -o $@ $^ $(DIST_ARCHIVES) -static-libstdc++ -static-libgcc -lm -lpthread -s

dist: $(BUILD)/dist/gpuimg
	bash tools/dist.sh $(BUILD)/dist/gpuimg $(VERSION) $(DIST_TAR) $(DIST_ARCHIVES) \
	    $(shell $(CXX) -print-file-name=libstdc++.a) $(shell $(CXX) -print-file-name=libgcc_eh.a)

# The tarball's program on its own: ldd, its newest GLIBC symbol, and the
# README's CI example run in a root that holds only the C library
# (tests/dist/check.sh).
test-dist: dist
	bash tests/dist/check.sh $(DIST_TAR)

# The colour kernel against the copy bandwidth on the GPU (no NPP: built
# here, run there by bench/colour_device.sh).
$(BUILD)/colour_bench: bench/colour_bench.cu $(BUILD)/libgpuimg.a
	$(NVCC) -std=c++17 $(NVCCFLAGS) $(CUDA_ARCH) -Iinclude -Isrc -Ikernels -o $@ $< \
	    $(BUILD)/libgpuimg.a $(LDLIBS)

# `make install` (PREFIX, default /usr/local; DESTDIR for staging): the
# program, the library (shared, with its soname link and the -lgpuimg one,
# and static), the header, gpuimg.pc, the man page and the bash completion.
# gpuimg.pc describes both: `pkg-config --libs gpuimg` links the shared
# library, `--static` adds what libgpuimg.a needs.
PREFIX ?= /usr/local

$(BUILD)/gpuimg.pc: include/gpuimg.h Makefile
	printf '%s\n' 'prefix=$(PREFIX)' 'includedir=$${prefix}/include' 'libdir=$${prefix}/lib' '' \
	    'Name: gpuimg' 'Description: image processing on the GPU, with a CPU reference backend' \
	    'Version: $(VERSION)' 'Cflags: -I$${includedir}' \
	    'Libs: -L$${libdir} -lgpuimg' 'Libs.private: $(strip $(LDLIBS) $(CUDA_LIBS))' > $@

install: $(GPUIMG) $(BUILD)/libgpuimg.a $(BUILD)/libgpuimg.so $(BUILD)/gpuimg.pc
	install -D -m 755 $(GPUIMG) $(DESTDIR)$(PREFIX)/bin/gpuimg
	install -D -m 644 include/gpuimg.h $(DESTDIR)$(PREFIX)/include/gpuimg.h
	install -D -m 644 $(BUILD)/libgpuimg.a $(DESTDIR)$(PREFIX)/lib/libgpuimg.a
	install -D -m 755 $(SHARED) $(DESTDIR)$(PREFIX)/lib/$(notdir $(SHARED))
	ln -sf $(notdir $(SHARED)) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(PREFIX)/lib/libgpuimg.so
	install -D -m 644 $(BUILD)/gpuimg.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/gpuimg.pc
	install -D -m 644 docs/gpuimg.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpuimg.1
	install -D -m 644 docs/gpuimg.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpuimg

# Installs into a temporary DESTDIR, builds examples/ there with pkg-config
# and the installed header alone, runs them, and checks the man page and
# the completion against the installed program (tests/install/check.sh).
test-install: $(GPUIMG) $(BUILD)/libgpuimg.a $(BUILD)/libgpuimg.so $(BUILD)/gpuimg.pc
	bash tests/install/check.sh

# The Python package (python/, SPEC §8) in a virtual environment of its
# own, BUILD/venv: tests/python/requirements.txt's packages from PyPI
# (numpy, pytest, Ray Data, Playwright), installed once by uv (PyPI's, into
# BUILD/uv: 8 s where pip takes 54; the bytecode compiled then, since
# Ray's workers would otherwise compile its modules each time they start
# where PYTHONDONTWRITEBYTECODE is set), then `pip install ./python` as a user
# would (it builds against this build's library: GPUIMG_BUILD, and NVCC as
# this make has it), then pytest over tests/python (the browser test drives
# Debian's chromium).
PYTHON ?= python3
VENV    = $(BUILD)/venv
UV      = $(BUILD)/uv/bin/uv
$(VENV)/.ready: tests/python/requirements.txt
	rm -rf $(VENV) $(BUILD)/uv
	$(PYTHON) -m pip install -q --disable-pip-version-check --target $(BUILD)/uv uv
	$(UV) venv -q --seed --python "$$($(PYTHON) -c 'import sys; print(sys.executable)')" $(VENV)
	$(UV) pip install -q --compile-bytecode --python $(VENV)/bin/python -r tests/python/requirements.txt
	touch $@

test-python: $(VENV)/.ready $(BUILD)/libgpuimg.so $(GPUIMG)
	GPUIMG_BUILD=$(abspath $(BUILD)) GPUIMG_MAKE_ARGS="NVCC=$(NVCC)" \
	    $(VENV)/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps ./python
	cd tests/python && GPUIMG_BIN=$(abspath $(GPUIMG)) $(abspath $(VENV))/bin/python -m pytest -q -rs -p no:cacheprovider

# The Slurm job array and the Kubernetes Indexed Job of examples/cluster/, run
# as their schedulers would (no cluster needed): the shards' union equals one
# batch byte for byte, no file twice; bad indexes refused (tests/cluster/check.sh).
test-cluster: $(GPUIMG)
	bash tests/cluster/check.sh $(GPUIMG)

# compare --report's page in headless Chromium: every failing pair shown,
# every image loaded, no script error, nothing fetched (tests/report/check.sh;
# says SKIP without Chromium, which CI installs).
test-report: $(GPUIMG)
	GPUIMG_BIN=$(abspath $(GPUIMG)) bash tests/report/check.sh

# resize and thumbnail against Pillow and libvips (tests/resize/README.md):
# cross-checks, not goldens; needs numpy and Pillow in Debian's python3
# (install-deps.sh), libvips only where pyvips is importable.
test-cross: $(GPUIMG)
	@if /usr/bin/python3 -c "import numpy, PIL" 2>/dev/null; then \
	    GPUIMG_BACKEND=cpu /usr/bin/python3 tests/resize/cross_check.py $(GPUIMG); \
	else echo "SKIP: resize cross-check (no numpy or Pillow in /usr/bin/python3)"; fi

# Each format and colour conversion against other tools (libheif's,
# libjxl's, LittleCMS's jpgicc and tificc, exiftool, Pillow): every
# tests/formats/check_*.py, given the program; each prints PASS/FAIL lines
# (SKIP without its tools) and exits 1 on a failure.
test-formats: $(GPUIMG)
	@if /usr/bin/python3 -c "import numpy, PIL" 2>/dev/null; then \
	    for s in tests/formats/check_*.py; do \
	        echo "== $$s"; GPUIMG_BACKEND=cpu /usr/bin/python3 $$s $(GPUIMG) || exit 1; done; \
	else echo "SKIP: format cross-checks (no numpy or Pillow in /usr/bin/python3)"; fi

clean:
	rm -rf build build-sanitize build-tsan build-static build-valgrind build-fuzz build-fuzz-static dist

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(DIST_SWAP:%.c=$(BUILD)/dist/%.d)
