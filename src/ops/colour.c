/* SPDX-License-Identifier: MIT */
/* colour (SPEC §2): the pixels from the image's embedded profile (sRGB
 * when it has none) to --to's, whose profile the output then carries.
 * The source differs from image to image, so the conversion is chosen per
 * image (for_profile, called by the pipeline with the profile the image
 * has at that step) from a cache of the conversions made so far, one per
 * distinct source profile: a folder of photographs from one phone builds
 * one. The CPU applies LittleCMS's transform; a device the same
 * conversion sampled as a 33^3 table (core/cms.c, core/colour_lut.h).
 * Gray images keep one channel: a gray profile's curve is converted to
 * sRGB's (a table for map_lut); without one the values stay. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/cms.h"
#include "ops/params.h"

enum { COLOUR_TO, COLOUR_INTENT };

/* The cache holds at most this many source profiles (a conversion's tables
 * are about 1.2 MB); past it an image of yet another profile builds its
 * own conversion, freed once applied. */
#define MOST_ENTRIES 64

typedef struct gpuimg__colour_entry {
    uint8_t *src; /* the source profile's bytes; NULL: none (sRGB) */
    size_t src_len;
    int gray;
    gpuimg__cms_conversion conv;
    gpuimg_colour_map map;
    struct gpuimg__colour_entry *next;
} gpuimg__colour_entry;

typedef struct gpuimg__colour_cache {
    pthread_mutex_t lock; /* a batch's workers share the step */
    uint8_t *target;      /* the profile embedded into outputs */
    size_t target_len;
    int intent;
    int entries;
    gpuimg__colour_entry *first;
} gpuimg__colour_cache;

static void entry_free(gpuimg__colour_entry *e)
{
    gpuimg__cms_conversion_free(&e->conv);
    free(e->src);
    free(e);
}

void gpuimg__colour_cache_free(gpuimg__colour_cache *cache)
{
    if (!cache)
        return;
    for (gpuimg__colour_entry *e = cache->first, *next; e; e = next) {
        next = e->next;
        entry_free(e);
    }
    free(cache->target);
    pthread_mutex_destroy(&cache->lock);
    free(cache);
}

int gpuimg__colour_target(const gpuimg_step *s, const uint8_t **icc, size_t *len)
{
    if (!s->colour_cache)
        return 0;
    *icc = s->colour_cache->target;
    *len = s->colour_cache->target_len;
    return 1;
}

static gpuimg_status colour_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    gpuimg__colour_cache *cache = calloc(1, sizeof *cache);
    if (!cache || pthread_mutex_init(&cache->lock, NULL) != 0) {
        free(cache);
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "colour: out of memory");
    }
    s->colour_cache = cache;
    cache->intent = (int)s->value[COLOUR_INTENT];
    char why[512];
    if (gpuimg__cms_target(s->text[COLOUR_TO], &cache->target, &cache->target_len, why,
                           sizeof why) != 0)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "colour: --to %s", why);
    return GPUIMG_OK;
}

/* The process-wide count that names each table (gpuimg_colour_map.id). */
static unsigned long long next_id(void)
{
    static unsigned long long last;
    return __atomic_add_fetch(&last, 1, __ATOMIC_RELAXED);
}

static gpuimg__colour_entry *made(gpuimg__colour_cache *cache, const uint8_t *icc, size_t len,
                                  int gray, char *why, size_t why_len)
{
    gpuimg__colour_entry *e = calloc(1, sizeof *e);
    if (!e || (len && !(e->src = malloc(len)))) {
        free(e);
        snprintf(why, why_len, "out of memory");
        return NULL;
    }
    if (len)
        memcpy(e->src, icc, len);
    e->src_len = len;
    e->gray = gray;
    if (gpuimg__cms_convert(icc, len, cache->target, cache->target_len, cache->intent, gray,
                            &e->conv, why, why_len) != 0) {
        free(e->src);
        free(e);
        return NULL;
    }
    e->map = (gpuimg_colour_map){.rows = gpuimg__cms_rows,
                                 .transform8 = e->conv.transform8,
                                 .transform16 = e->conv.transform16,
                                 .lut = e->conv.lut,
                                 .id = next_id()};
    return e;
}

/* The cache's conversion from icc (NULL: none) for gray or colour pixels,
 * made on first use (*owned 1: made for the caller alone, the cache being
 * full); NULL with why filled. */
static const gpuimg__colour_entry *lookup(gpuimg__colour_cache *cache, const uint8_t *icc,
                                          size_t icc_len, int gray, int *owned, char *why,
                                          size_t why_len)
{
    *owned = 0;
    if (!icc)
        icc_len = 0;
    pthread_mutex_lock(&cache->lock);
    gpuimg__colour_entry *e = cache->first;
    while (e && !(e->gray == gray && e->src_len == icc_len &&
                  (icc_len == 0 || memcmp(e->src, icc, icc_len) == 0)))
        e = e->next;
    if (!e && (e = made(cache, icc, icc_len, gray, why, why_len))) {
        if (cache->entries < MOST_ENTRIES) {
            e->next = cache->first;
            cache->first = e;
            cache->entries++;
        } else {
            *owned = 1;
        }
    }
    pthread_mutex_unlock(&cache->lock);
    return e;
}

static gpuimg_status colour_for_profile(gpuimg_ctx *ctx, gpuimg_step *copy, const uint8_t *icc,
                                        size_t icc_len, int channels, const uint8_t **out_icc,
                                        size_t *out_len)
{
    char why[256] = "";
    const gpuimg__colour_entry *e = lookup(copy->colour_cache, icc, icc_len, channels < 3,
                                           &copy->colour_owned, why, sizeof why);
    if (!e)
        return gpuimg__fail(ctx, GPUIMG_ERR_DECODE, "colour: %s", why);
    copy->colour = e;
    *out_icc = copy->colour_cache->target;
    *out_len = copy->colour_cache->target_len;
    return GPUIMG_OK;
}

static void colour_release(gpuimg_step *copy)
{
    if (copy->colour_owned)
        entry_free((gpuimg__colour_entry *)copy->colour);
    copy->colour = NULL;
    copy->colour_owned = 0;
}

static gpuimg_status colour_apply(gpuimg_backend *be, const gpuimg_step *s,
                                  const gpuimg_planes *src, gpuimg_planes *dst)
{
    const gpuimg__colour_entry *e = s->colour;
    char why[256];
    int owned = 0;
    /* a step applied outside a pipeline (which chooses per image): the
     * planes are taken as untagged, sRGB */
    if (!e && !(e = lookup(s->colour_cache, NULL, 0, src->channels < 3, &owned, why, sizeof why)))
        return GPUIMG_ERR_NOMEM;
    gpuimg_status st;
    if (src->channels == 3)
        st = be->ops->colour_map(be, src, dst, &e->map);
    else if (e->conv.lut8)
        st = be->ops->map_lut(be, src, dst, e->conv.lut8, e->conv.lut16);
    else
        st = be->ops->copy_plane(be, src->plane[0], dst->plane[0], gpuimg__plane_bytes(src));
    /* the backends copy what they need before they return */
    if (owned)
        entry_free((gpuimg__colour_entry *)e);
    return st;
}

/* LittleCMS's 8-bit matrix-shaper path: about a table lookup per value and
 * a 3x3 product per pixel, measured at 2-4 ns a value on one core. */
static double colour_cost(const gpuimg_step *s)
{
    (void)s;
    return 3.0;
}

static const char *const intent_names[] = {"perceptual", "relative", NULL};

static const gpuimg_param_info colour_params[] = {
    {.name = "to",
     .type = GPUIMG_PARAM_TEXT,
     .required = 1,
     .metavar = "srgb|display-p3|FILE.icc",
     .help = "the colour space the pixels are converted to, whose profile the output carries"},
    {.name = "intent",
     .type = GPUIMG_PARAM_CHOICE,
     .choices = intent_names,
     .default_value = 0,
     .default_text = "perceptual",
     .metavar = "perceptual|relative",
     .help = "rendering intent: perceptual, or relative colorimetric"},
};

const gpuimg__op gpuimg__op_colour = {
    .info = {"colour", "colour-space conversion through ICC profiles (LittleCMS)",
             PARAMS(colour_params)},
    .shape = gpuimg__same_shape,
    .finish = colour_finish,
    .apply = colour_apply,
    .cost = colour_cost,
    .example = "colour:to=display-p3,intent=relative",
    .value_op = 1,
    .for_profile = colour_for_profile,
    .release = colour_release,
};
