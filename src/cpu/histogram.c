/* SPDX-License-Identifier: MIT */
/* Exact 256-bin histograms, every channel, alpha included (stats derive
 * from them: backend_common.c). */
#include <string.h>

#include "cpu.h"

gpuimg_status gpuimg__cpu_histogram(gpuimg_backend *be, const gpuimg_planes *src,
                                    gpuimg_histogram *out)
{
    (void)be;
    memset(out, 0, sizeof *out);
    out->channels = src->channels;
    size_t n = gpuimg__plane_size(src);
    for (int c = 0; c < src->channels; c++)
        for (size_t i = 0; i < n; i++)
            out->counts[c][src->plane[c][i]]++;
    return GPUIMG_OK;
}
