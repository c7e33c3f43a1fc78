/* SPDX-License-Identifier: MIT */
/* compare's JSON reader (src/cli/json_read.c) on any bytes: the shards'
 * parts of --merge and --ignore-file's regions come from other machines
 * and editors. A document parses or is refused with a reason; regions
 * read from one are whole rectangles, never 0 wide. */
#include <string.h>

#include "compare_out.h"
#include "fuzz.h"
#include "json_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[600];
    json_value *v = json_parse((const char *)data, size, why, sizeof why);
    FUZZ_CHECK(v || why[0], "refused without a reason");
    json_free(v);
    gpuimg_ignore_region *regions;
    size_t n;
    if (compare_regions_parse("fuzz.json", (const char *)data, size, &regions, &n, why,
                              sizeof why) == 0) {
        for (size_t i = 0; i < n; i++)
            FUZZ_CHECK(regions[i].glob && regions[i].rect.width >= 1 && regions[i].rect.height >= 1,
                       "region %zu", i);
        gpuimg_rect out[4];
        compare_regions_for(regions, n, "a/b.png", out, 4);
        compare_regions_free(regions, n);
    }
    return 0;
}
