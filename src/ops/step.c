/* SPDX-License-Identifier: MIT */
/* The STEP language ("blur:sigma=2,border=wrap", SPEC §1): a step is an op
 * table row with its parameters, parsed, range-checked and set one by one,
 * finished once (its combinations checked, its weights or table made),
 * then applied to planes through a backend. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

double gpuimg__steps_cpu_ns(gpuimg_step *const *steps, int nsteps)
{
    double ns = 1.0; /* the copies in and out of planes */
    for (int i = 0; i < nsteps; i++)
        ns += steps[i]->op->cost(steps[i]);
    return ns;
}

void gpuimg__steps_shape(gpuimg_step *const *steps, int nsteps, int *w, int *h, int *c)
{
    for (int i = 0; i < nsteps; i++)
        steps[i]->op->shape(steps[i], *w, *h, *c, w, h, c);
}

gpuimg_status gpuimg_step_new(gpuimg_ctx *ctx, const char *name, gpuimg_step **out)
{
    *out = NULL;
    const gpuimg__op *op = gpuimg__op_named(name, strlen(name));
    if (!op)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "unknown operation '%s'", name);
    gpuimg_step *s = calloc(1, sizeof *s);
    if (!s)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    s->op = op;
    for (int i = 0; i < op->info.nparams; i++)
        s->value[i] = op->info.params[i].default_value;
    *out = s;
    return GPUIMG_OK;
}

/* What finish made, freed before it runs again and with the step. */
static void release_finished(gpuimg_step *s)
{
    free(s->weights);
    free(s->lut8);
    free(s->lut16);
    gpuimg__colour_cache_free(s->colour_cache);
    s->colour_cache = NULL;
    s->weights = NULL;
    s->lut8 = NULL;
    s->lut16 = NULL;
}

void gpuimg_step_free(gpuimg_step *s)
{
    if (!s)
        return;
    for (int i = 0; i < GPUIMG__MAX_PARAMS; i++)
        free(s->text[i]);
    release_finished(s);
    free(s);
}

int gpuimg_parse_number(const char *text, double *out)
{
    /* [+-] digits [. digits] [e [+-] digits], with a digit on some side of
     * the point: strtod's grammar less its leading spaces, hex, inf and nan */
    const char *p = text;
    p += *p == '+' || *p == '-';
    size_t whole = strspn(p, "0123456789");
    p += whole;
    size_t frac = 0;
    if (*p == '.') {
        frac = strspn(p + 1, "0123456789");
        p += 1 + frac;
    }
    if (whole + frac == 0)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        size_t exp = strspn(p, "0123456789");
        if (exp == 0)
            return 0;
        p += exp;
    }
    if (*p != '\0')
        return 0;
    errno = 0;
    double v = strtod(text, NULL);
    if (errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static gpuimg_status parse_number(gpuimg_ctx *ctx, const gpuimg_param_info *p, const char *text,
                                  double *out)
{
    double v;
    if (!gpuimg_parse_number(text, &v))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not a number", p->name, text);
    if (p->type == GPUIMG_PARAM_INT && v != floor(v))
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not a whole number", p->name, text);
    int below = p->min_exclusive ? v <= p->min : v < p->min;
    if (below || v > p->max)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: %s is out of range (%g %s %s <= %g)",
                            p->name, text, p->min, p->min_exclusive ? "<" : "<=", p->name, p->max);
    *out = v;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_set(gpuimg_ctx *ctx, gpuimg_step *s, const char *key, const char *value)
{
    const gpuimg_op_info *info = &s->op->info;
    int i = 0;
    while (i < info->nparams && strcmp(info->params[i].name, key) != 0)
        i++;
    if (i == info->nparams)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: unknown parameter '%s'", info->name, key);
    const gpuimg_param_info *p = &info->params[i];
    s->finished = 0;
    switch (p->type) {
    case GPUIMG_PARAM_FLOAT:
    case GPUIMG_PARAM_INT: {
        double v = 0;
        gpuimg_status st = parse_number(ctx, p, value, &v);
        if (st != GPUIMG_OK)
            return st;
        s->value[i] = v;
        break;
    }
    case GPUIMG_PARAM_CHOICE: {
        int k = 0;
        while (p->choices[k] && strcmp(p->choices[k], value) != 0)
            k++;
        if (!p->choices[k]) {
            char allowed[160] = "";
            for (int j = 0; p->choices[j]; j++) /* "90, 180 or 270" */
                snprintf(allowed + strlen(allowed), sizeof allowed - strlen(allowed), "%s%s",
                         j == 0              ? ""
                         : p->choices[j + 1] ? ", "
                                             : " or ",
                         p->choices[j]);
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not one of %s", p->name, value,
                                allowed);
        }
        s->value[i] = k;
        break;
    }
    case GPUIMG_PARAM_FLAG: {
        static const char *const on[] = {"", "1", "true", "yes", "on"};
        static const char *const off[] = {"0", "false", "no", "off"};
        int v = -1;
        for (size_t k = 0; k < sizeof on / sizeof on[0]; k++)
            if (strcmp(value, on[k]) == 0)
                v = 1;
        for (size_t k = 0; k < sizeof off / sizeof off[0]; k++)
            if (strcmp(value, off[k]) == 0)
                v = 0;
        if (v < 0)
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: '%s' is not 1/0, true/false or yes/no",
                                p->name, value);
        s->value[i] = v;
        break;
    }
    case GPUIMG_PARAM_TEXT: {
        if (!value[0])
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "%s: empty value", p->name);
        char *copy = strdup(value);
        if (!copy)
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        free(s->text[i]);
        s->text[i] = copy;
        break;
    }
    }
    s->given |= 1u << i;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_finish(gpuimg_ctx *ctx, gpuimg_step *s)
{
    if (s->finished)
        return GPUIMG_OK;
    const gpuimg_op_info *info = &s->op->info;
    for (int i = 0; i < info->nparams; i++)
        if (info->params[i].required && !(s->given & (1u << i)))
            return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "missing --%s (%s=%s in a step)",
                                info->params[i].name, info->params[i].name,
                                info->params[i].metavar);
    release_finished(s);
    if (s->op->finish) {
        gpuimg_status st = s->op->finish(ctx, s);
        if (st != GPUIMG_OK)
            return st;
    }
    s->finished = 1;
    return GPUIMG_OK;
}

static int param_index(const gpuimg_op_info *info, const char *key)
{
    for (int i = 0; i < info->nparams; i++)
        if (strcmp(info->params[i].name, key) == 0)
            return i;
    return -1;
}

/* text parameter i's value followed by "," and more */
static gpuimg_status append_text(gpuimg_ctx *ctx, gpuimg_step *s, int i, const char *more)
{
    size_t have = strlen(s->text[i]), add = strlen(more);
    char *joined = realloc(s->text[i], have + add + 2);
    if (!joined)
        return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
    joined[have] = ',';
    memcpy(joined + have + 1, more, add + 1);
    s->text[i] = joined;
    return GPUIMG_OK;
}

gpuimg_status gpuimg_step_parse(gpuimg_ctx *ctx, const char *text, gpuimg_step **out)
{
    *out = NULL;
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    const gpuimg__op *op = gpuimg__op_named(text, len);
    if (!op)
        return gpuimg__fail(ctx, GPUIMG_ERR_USAGE, "'%s': unknown operation '%.*s'", text, (int)len,
                            text);
    gpuimg_step *s;
    gpuimg_status st = gpuimg_step_new(ctx, op->info.name, &s);
    if (st != GPUIMG_OK)
        return st;
    if (colon) {
        char *rest = strdup(colon + 1);
        if (!rest) {
            gpuimg_step_free(s);
            return gpuimg__fail(ctx, GPUIMG_ERR_NOMEM, "out of memory");
        }
        char *save = NULL;
        int list = -1; /* the text parameter a bare value continues, or -1 */
        for (char *pair = strtok_r(rest, ",", &save); pair && st == GPUIMG_OK;
             pair = strtok_r(NULL, ",", &save)) {
            pair += strspn(pair, " "); /* "blur:sigma=2, radius=3" reads as typed */
            char *eq = strchr(pair, '=');
            if (!eq && list >= 0 && param_index(&op->info, pair) < 0) {
                /* "crop:rect=10,20,30,40": a list value goes on after its
                 * commas until the next key */
                st = append_text(ctx, s, list, pair);
                continue;
            }
            if (eq)
                *eq = '\0';
            st = gpuimg_step_set(ctx, s, pair, eq ? eq + 1 : "");
            int i = param_index(&op->info, pair);
            list = eq && i >= 0 && op->info.params[i].type == GPUIMG_PARAM_TEXT ? i : -1;
        }
        free(rest);
        if (st != GPUIMG_OK) {
            char detail[sizeof ctx->error];
            memcpy(detail, ctx->error, sizeof detail);
            gpuimg_step_free(s);
            return gpuimg__fail(ctx, st, "'%s': %s", text, detail);
        }
    }
    *out = s;
    return GPUIMG_OK;
}

gpuimg_status gpuimg__step_apply(gpuimg_ctx *ctx, gpuimg_backend *be, const gpuimg_step *s,
                                 const gpuimg_planes *src, gpuimg_planes *dst, int poison)
{
    int w, h, c;
    gpuimg_status st;
    if (s->op->check && (st = s->op->check(ctx, s, src->width, src->height)) != GPUIMG_OK)
        return st;
    s->op->shape(s, src->width, src->height, src->channels, &w, &h, &c);
    st = be->ops->planes_alloc(be, dst, w, h, c, src->depth);
    if (st == GPUIMG_OK && poison >= 0)
        st = be->ops->planes_fill(be, dst, (uint8_t)poison);
    if (st == GPUIMG_OK && s->op->value_op) {
        /* SPEC §2: value operations leave alpha (the last of 2 or 4 planes)
         * alone. Done here once: the backend sees the colour planes, and
         * alpha is copied. */
        int alpha = src->channels % 2 == 0;
        gpuimg_planes colour_src = *src, colour_dst = *dst;
        colour_src.channels -= alpha;
        colour_dst.channels -= alpha;
        st = s->op->apply(be, s, &colour_src, &colour_dst);
        if (st == GPUIMG_OK && alpha)
            st = be->ops->copy_plane(be, src->plane[src->channels - 1],
                                     dst->plane[dst->channels - 1], gpuimg__plane_bytes(src));
    } else if (st == GPUIMG_OK) {
        st = s->op->apply(be, s, src, dst);
    }
    if (st != GPUIMG_OK) {
        be->ops->planes_free(be, dst);
        return gpuimg__backend_fail(ctx, st, s->op->info.name);
    }
    return GPUIMG_OK;
}
