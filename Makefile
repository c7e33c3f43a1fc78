# SPDX-License-Identifier: MIT
# gpuimg: `make` builds build/gpuimg; `make test` runs the Check suites, then
# again under AddressSanitizer + UndefinedBehaviorSanitizer.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2 -g
SAN     ?=
CFLAGS  += $(OPT) $(SAN) -std=c11 -Wall -Wextra -Werror -MMD -MP
CPPFLAGS += -Iinclude -Isrc $(shell pkg-config --cflags stb)
LDFLAGS += $(SAN)
LDLIBS  = -lturbojpeg -ljpeg -ldeflate -lstb -lpng16 -lz -lm -lpthread
CHECK_LIBS = $(shell pkg-config --libs check)
# `make static`: Debian's static archives by full path, for a binary that
# runs on another distribution (the GPU machine; see shared/DEVICE.md).
ifeq ($(STATIC),1)
ARCHIVES = /usr/lib/x86_64-linux-gnu
LDLIBS  = $(ARCHIVES)/libturbojpeg.a $(ARCHIVES)/libdeflate.a $(ARCHIVES)/libstb.a $(ARCHIVES)/libpng16.a \
          $(ARCHIVES)/libz.a -lm -lpthread
CHECK_LIBS = $(ARCHIVES)/libcheck.a $(ARCHIVES)/libsubunit.a -lrt
endif

LIB_SRC  = $(wildcard src/*.c src/cpu/*.c)
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(wildcard tests/*.c)

# The CUDA backend is built when nvcc is found (NVCC= forces a CPU-only
# build, whose src/cuda_absent.c makes `--backend cuda` exit 4). Kernels are
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
LIB_SRC := $(filter-out src/cuda_absent.c,$(LIB_SRC))
CUDA_LIBS = -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lstdc++
endif

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_SRC:%.cu=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

GPUIMG = $(BUILD)/gpuimg
SUITE  = $(BUILD)/check_gpuimg

.PHONY: all test test-unit test-sanitize test-photo golden static bench install clean

all: $(GPUIMG)

# Rebuilt whole: `ar r` would keep members that are no longer in the list
# (src/cuda_absent.o after nvcc appears).
$(BUILD)/libgpuimg.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(GPUIMG): $(CLI_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(CUDA_LIBS)

$(SUITE): $(TEST_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS) $(CUDA_LIBS)

# The PNG filters' loops are branch-free byte arithmetic that GCC's -O2
# leaves scalar (its cheap cost model). Vectorized, a level-0 encode (the
# filtering, nearly alone) of a 2000x1500 photograph takes 34 ms, not 57.
$(BUILD)/src/io_png_write.o: CFLAGS += -ftree-vectorize -fvect-cost-model=dynamic

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	$(NVCC) -std=c++17 $(NVCCFLAGS) $(CUDA_ARCH) -Iinclude -Isrc -Werror all-warnings \
	    -Xcompiler -Wall,-Wextra,-Werror -MMD -MP -c -o $@ $<

# The suites find the program and the goldens through these variables.
test-unit: $(GPUIMG) $(SUITE)
	GPUIMG_BIN=$(abspath $(GPUIMG)) GPUIMG_GOLDEN=$(abspath tests/golden) $(SUITE)

# CPU-only (NVCC=): the CUDA runtime and ASan do not share an address space
# well; on the GPU machine compute-sanitizer checks the kernels instead.
test-sanitize:
	$(MAKE) BUILD=build-sanitize NVCC= OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all" test-unit

test: test-unit test-sanitize

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

# Remakes the goldens from the independent NumPy/SciPy reference.
golden:
	/usr/bin/python3 tests/golden/make_golden.py

# The program and the suite, to carry to the GPU machine (see DEVICE.md).
static:
	$(MAKE) BUILD=build-static STATIC=1 all build-static/check_gpuimg build-static/codec_bench

install: $(GPUIMG)
	install -D -m 755 $(GPUIMG) $(DESTDIR)$(or $(PREFIX),/usr/local)/bin/gpuimg

clean:
	rm -rf build build-sanitize build-static

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
