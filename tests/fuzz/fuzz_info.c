/* SPDX-License-Identifier: MIT */
/* gpuimg_probe_memory, as `gpuimg info FILE` reaches it: every row of the
 * format table (its sniff, its header probe, its metadata reader), the EXIF
 * orientation and the ICC profile's description (v2 and v4 tags), on bytes
 * of any shape. Every row's sniff runs on the input: at most one row with
 * a signature takes it (the table's order then never matters), and the
 * format info names is the row gpuimg__sniff chose. */
#include <string.h>

#include "fuzz.h"
#include "io/formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gpuimg_ctx *ctx = fuzz_ctx(1);
    int signatures = 0;
    for (const gpuimg__format *const *r = gpuimg__formats; *r; r++)
        signatures += !(*r)->guessed && (*r)->sniff(data, size);
    FUZZ_CHECK(signatures <= 1, "%d formats' signatures take the input", signatures);
    const gpuimg__format *row = gpuimg__sniff(data, size);
    gpuimg_file_info f;
    if (gpuimg_probe_memory(ctx, data, size, "fuzz", &f) != GPUIMG_OK)
        return 0;
    FUZZ_CHECK(row && strcmp(f.format, row->name) == 0, "info says %s", f.format);
    FUZZ_CHECK(f.format && f.stored_width > 0 && f.stored_height > 0 && f.width > 0 && f.height > 0,
               "%dx%d", f.width, f.height);
    FUZZ_CHECK(f.channels >= 1 && f.channels <= 4, "%d channels", f.channels);
    FUZZ_CHECK(f.orientation >= 1 && f.orientation <= 8, "orientation %d", f.orientation);
    FUZZ_CHECK(strlen(f.profile) < sizeof f.profile && (f.icc_bytes || !f.profile[0]),
               "profile '%s' of %zu bytes", f.profile, f.icc_bytes);
    return 0;
}
