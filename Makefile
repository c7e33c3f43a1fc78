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
LDLIBS  = -lstb -lpng16 -lz -lm -lpthread
CHECK_LIBS = $(shell pkg-config --libs check)

LIB_SRC  = $(wildcard src/*.c src/cpu/*.c)
CLI_SRC  = $(wildcard src/cli/*.c)
TEST_SRC = $(wildcard tests/*.c)

LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_OBJ = $(TEST_SRC:%.c=$(BUILD)/%.o)

GPUIMG = $(BUILD)/gpuimg
SUITE  = $(BUILD)/check_gpuimg

.PHONY: all test test-unit test-sanitize test-photo golden static install clean

all: $(GPUIMG)

$(BUILD)/libgpuimg.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(GPUIMG): $(CLI_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(SUITE): $(TEST_OBJ) $(BUILD)/libgpuimg.a
	$(CC) $(LDFLAGS) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

# The suites find the program and the goldens through these variables.
test-unit: $(GPUIMG) $(SUITE)
	GPUIMG_BIN=$(abspath $(GPUIMG)) GPUIMG_GOLDEN=$(abspath tests/golden) $(SUITE)

test-sanitize:
	$(MAKE) BUILD=build-sanitize OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test-unit

test: test-unit test-sanitize

# gpuimg blur on a real 4000x3000 photograph (from a Debian package) against
# the NumPy reference: see tests/photo/README. Downloads about 11 MB.
test-photo: $(GPUIMG)
	bash tests/photo/fetch_photo.sh $(BUILD)/photo_4000x3000.png
	/usr/bin/python3 tests/photo/check_blur.py $(GPUIMG) $(BUILD)/photo_4000x3000.png $(BUILD)

# Remakes the goldens from the independent NumPy/SciPy reference.
golden:
	/usr/bin/python3 tests/golden/make_golden.py

# A self-contained binary to carry to another machine (see DEVICE.md).
static:
	$(MAKE) BUILD=build-static LDFLAGS=-static all

install: $(GPUIMG)
	install -D -m 755 $(GPUIMG) $(DESTDIR)$(or $(PREFIX),/usr/local)/bin/gpuimg

clean:
	rm -rf build build-sanitize build-static

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(TEST_OBJ:.o=.d)
