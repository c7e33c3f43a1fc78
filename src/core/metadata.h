/* SPDX-License-Identifier: MIT */
/* An image's metadata record (metadata.c); gpuimg_metadata_free is the
 * public header's. */
#ifndef GPUIMG_CORE_METADATA_H
#define GPUIMG_CORE_METADATA_H

#include "gpuimg.h"

/* A deep copy of m (NULL for NULL), or NULL out of memory. */
gpuimg_metadata *gpuimg__metadata_dup(const gpuimg_metadata *m);

#endif
