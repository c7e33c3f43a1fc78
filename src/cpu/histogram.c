/* SPDX-License-Identifier: MIT */
/* Exact histograms, one bin per value (256 or 65536), every channel, alpha
 * included (stats derive from them: backend_common.c). */
#include "cpu.h"

gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out)
{
    (void)be;
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++) {
        uint64_t *counts = out->counts[c];
        if (src->depth == 16) {
            const uint16_t *v = (const uint16_t *)src->plane[c];
            for (size_t i = 0; i < n; i++)
                counts[v[i]]++;
        } else {
            const uint8_t *v = src->plane[c];
            for (size_t i = 0; i < n; i++)
                counts[v[i]]++;
        }
    }
    return GPUIMG_OK;
}
