/* SPDX-License-Identifier: MIT */
/* gpuimg_probe_memory, as `gpuimg info FILE` reaches it: every format's
 * header, the PNG and JPEG metadata walkers, the EXIF orientation and the
 * ICC profile's description (v2 and v4 tags), on bytes of any shape. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpuimg_ctx *ctx = fuzz_ctx(1);
    gpuimg_file_info f;
    if (gpuimg_probe_memory(ctx, data, size, "fuzz", &f) != GPUIMG_OK)
        return 0;
    FUZZ_CHECK(f.format && f.stored_width > 0 && f.stored_height > 0 && f.width > 0 &&
                   f.height > 0,
               "%dx%d", f.width, f.height);
    FUZZ_CHECK(f.channels >= 1 && f.channels <= 4, "%d channels", f.channels);
    FUZZ_CHECK(f.orientation >= 1 && f.orientation <= 8, "orientation %d", f.orientation);
    FUZZ_CHECK(strlen(f.profile) < sizeof f.profile && (f.icc_bytes || !f.profile[0]),
               "profile '%s' of %zu bytes", f.profile, f.icc_bytes);
    return 0;
}
