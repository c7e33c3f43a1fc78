/* SPDX-License-Identifier: MIT */
/* A compared pair as JSON, one shape whatever happened (SPEC §7): a field
 * that does not apply is null, never missing, so a CI script reads every
 * record the same way. */
#include <string.h>

#include "compare_out.h"
#include "json.h"

int compare_pair_fails(gpuimg_pair_status s, int allow_new)
{
    return s == GPUIMG_PAIR_FAILED || s == GPUIMG_PAIR_SIZE || s == GPUIMG_PAIR_MISSING ||
           s == GPUIMG_PAIR_ERROR || (s == GPUIMG_PAIR_NEW && !allow_new);
}

static void json_size(FILE *f, int w, int h)
{
    if (w > 0)
        fprintf(f, "[%d, %d]", w, h);
    else
        fputs("null", f);
}

/* ", \"name\": value", or null where it does not apply. */
static void field_u64(FILE *f, const char *name, uint64_t v, int valid)
{
    fprintf(f, ", \"%s\": ", name);
    if (valid)
        fprintf(f, "%llu", (unsigned long long)v);
    else
        fputs("null", f);
}

static void field_number(FILE *f, const char *name, double v, int valid)
{
    fprintf(f, ", \"%s\": ", name);
    json_number(f, v, valid);
}

static void json_thresholds(FILE *f, const compare_settings *s)
{
    const gpuimg_compare_options *o = &s->opt;
    const gpuimg_compare_limits *l = &s->lim;
    fprintf(f, "{\"fuzz\": %d, \"threshold\": ", o->fuzz);
    json_number(f, o->threshold, o->threshold > 0);
    fprintf(f, ", \"antialiasing\": %s, \"max_shift\": %d, \"ignore\": [",
            o->antialiasing ? "true" : "false", o->max_shift);
    for (int i = 0; i < o->nignore; i++)
        fprintf(f, "%s[%d, %d, %d, %d]", i ? ", " : "", o->ignore[i].x, o->ignore[i].y,
                o->ignore[i].width, o->ignore[i].height);
    fprintf(f, "], \"mask\": ");
    if (s->mask)
        json_string(f, s->mask);
    else
        fputs("null", f);
    field_number(f, "max_diff", l->max_diff, l->has_max_diff);
    field_number(f, "max_differing", l->max_differing, l->has_max_differing);
    field_number(f, "max_differing_pct", l->max_differing_pct, l->has_max_differing_pct);
    field_number(f, "min_psnr", l->min_psnr, l->has_min_psnr);
    field_number(f, "min_ssim", l->min_ssim, l->has_min_ssim);
    field_number(f, "max_flip", l->max_flip, l->has_max_flip);
    fputc('}', f);
}

void compare_json_record(FILE *f, const gpuimg_pair *p, const compare_settings *s, int single)
{
    const gpuimg_compare_result *r = &p->result;
    int compared = p->status == GPUIMG_PAIR_IDENTICAL || p->status == GPUIMG_PAIR_PASSED ||
                   p->status == GPUIMG_PAIR_FAILED;
    fputc('{', f);
    if (single) {
        fputs("\"a\": ", f);
        json_string(f, p->expected);
        fputs(", \"b\": ", f);
        json_string(f, p->actual);
    } else {
        fputs("\"path\": ", f);
        json_string(f, p->path);
    }
    fprintf(f, ", \"status\": \"%s\", \"pass\": %s, \"size_differs\": %s",
            gpuimg_pair_status_name(p->status), compare_pair_fails(p->status, 0) ? "false" : "true",
            p->status == GPUIMG_PAIR_SIZE ? "true" : "false");
    double pct = r->compared ? 100.0 * (double)r->differing / (double)r->compared : 0.0;
    field_number(f, "width", r->width, compared);
    field_number(f, "height", r->height, compared);
    fputs(", \"expected_size\": ", f);
    json_size(f, p->expected_width, p->expected_height);
    fputs(", \"actual_size\": ", f);
    json_size(f, p->actual_width, p->actual_height);
    field_number(f, "channels", r->channels, compared);
    field_u64(f, "compared", r->compared, compared);
    field_u64(f, "ignored", r->ignored, compared);
    field_u64(f, "differing", r->differing, compared);
    field_number(f, "differing_pct", pct, compared);
    field_u64(f, "forgiven", r->forgiven, compared);
    field_u64(f, "shifted", r->shifted, compared);
    field_u64(f, "groups_shifted", r->groups_shifted, compared);
    field_number(f, "max_diff", r->max_diff, compared);
    field_number(f, "mae", r->mae, compared);
    field_number(f, "rmse", r->rmse, compared);
    field_number(f, "psnr", r->psnr, compared && r->has_psnr);
    field_number(f, "ssim", r->ssim, compared && r->has_ssim);
    fputs(", \"flip\": ", f);
    if (compared && r->has_flip) {
        fputs("{\"mean\": ", f);
        json_number(f, r->flip_mean, 1);
        fputs(", \"p95\": ", f);
        json_number(f, r->flip_p95, 1);
        fputs(", \"p99\": ", f);
        json_number(f, r->flip_p99, 1);
        fputc('}', f);
    } else {
        fputs("null", f);
    }
    fputs(", \"bbox\": ", f);
    if (compared && r->differing > 0)
        fprintf(f, "{\"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d}", r->bbox.x, r->bbox.y,
                r->bbox.width, r->bbox.height);
    else
        fputs("null", f);
    if (!single) { /* the known variant the actual passed against (SPEC §7) */
        fputs(", \"variant\": ", f);
        if (p->matched > 0 && p->matched <= p->nvariants) {
            size_t root = strlen(p->expected) - strlen(p->path);
            json_string(f, p->variants[p->matched - 1] + root);
        } else {
            fputs("null", f);
        }
    }
    fputs(", \"thresholds\": ", f);
    json_thresholds(f, s);
    fputs(", \"failed\": [", f);
    int n = 0;
    for (unsigned bit = 1; bit <= GPUIMG_FAILED_MAX_FLIP; bit <<= 1)
        if (p->failed & bit)
            fprintf(f, "%s\"%s\"", n++ ? ", " : "", gpuimg_compare_failure_name(bit));
    fputs("], \"reason\": ", f);
    if (p->reason[0] && p->status != GPUIMG_PAIR_ERROR)
        json_string(f, p->reason);
    else
        fputs("null", f);
    fputs(", \"error\": ", f);
    if (p->status == GPUIMG_PAIR_ERROR)
        json_string(f, p->reason);
    else
        fputs("null", f);
    fputc('}', f);
}

void compare_json_document(FILE *f, const gpuimg_folder_result *res, const compare_settings *s)
{
    fputs("{\"pairs\": [", f);
    for (size_t i = 0; i < res->npairs; i++) {
        fprintf(f, "%s\n  ", i ? "," : "");
        compare_json_record(f, &res->pairs[i], s, 0);
    }
    fprintf(f, "%s], \"summary\": {", res->npairs ? "\n" : "");
    for (int k = 0; k < GPUIMG_PAIR_STATUS_COUNT; k++)
        fprintf(f, "%s\"%s\": %zu", k ? ", " : "", gpuimg_pair_status_name((gpuimg_pair_status)k),
                res->count[k]);
    fprintf(f, ", \"pairs\": %zu, \"updated\": %zu, \"pruned\": %zu}", res->npairs, s->updated,
            s->pruned);
    fputs(",\n \"expected_dir\": ", f);
    json_string(f, s->expected_dir ? s->expected_dir : "");
    fputs(", \"actual_dir\": ", f);
    json_string(f, s->actual_dir ? s->actual_dir : "");
    if (s->shard_count > 1)
        fprintf(f, ", \"shard\": {\"index\": %d, \"count\": %d}", s->shard_index, s->shard_count);
    else
        fputs(", \"shard\": null", f);
    fprintf(f, ", \"all_pairs\": %zu, \"allow_new\": %s, \"allow_empty\": %s, \"thresholds\": ",
            s->all_pairs, s->allow_new ? "true" : "false", s->allow_empty ? "true" : "false");
    json_thresholds(f, s);
    fputs(", \"regions\": [", f); /* --ignore-file's */
    for (size_t i = 0; i < s->nregions; i++) {
        const gpuimg_rect *q = &s->regions[i].rect;
        fputs(i ? ", {\"glob\": " : "{\"glob\": ", f);
        json_string(f, s->regions[i].glob);
        fprintf(f, ", \"rect\": [%d, %d, %d, %d]}", q->x, q->y, q->width, q->height);
    }
    fputs("]}\n", f);
}

struct document_args {
    const gpuimg_folder_result *res;
    const compare_settings *s;
};

static void fill_document(FILE *f, void *arg)
{
    const struct document_args *a = arg;
    compare_json_document(f, a->res, a->s);
}

int compare_json_file(gpuimg_ctx *ctx, const char *path, const gpuimg_folder_result *res,
                      const compare_settings *s)
{
    struct document_args a = {res, s};
    return compare_write_document(ctx, path, fill_document, &a);
}
