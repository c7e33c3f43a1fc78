/* SPDX-License-Identifier: MIT */
/* Image -> image commands (`gpuimg blur IN OUT --sigma 2`, one per row of the
 * op table) and `gpuimg run IN OUT STEP...`: both build steps and run them
 * as one pipeline, so `blur in out --sigma 2` and `run in out blur:sigma=2`
 * write identical files. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define MAX_OPTS 16

static const gpuimg_op_info *help_op;

static void op_help(void)
{
    const gpuimg_op_info *op = help_op;
    printf("usage: gpuimg %s IN OUT", op->name);
    for (int i = 0; i < op->nparams; i++) {
        const gpuimg_param_info *p = &op->params[i];
        const char *open = p->required ? "" : "[", *close = p->required ? "" : "]";
        if (p->type == GPUIMG_PARAM_FLAG)
            printf(" %s--%s%s", open, p->name, close);
        else
            printf(" %s--%s %s%s", open, p->name, p->metavar, close);
    }
    printf("\n  %s\n", op->summary);
    if (op->nparams)
        printf("\noptions:\n");
    for (int i = 0; i < op->nparams; i++) {
        const gpuimg_param_info *p = &op->params[i];
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", p->name, p->type == GPUIMG_PARAM_FLAG ? "" : " ",
                 p->type == GPUIMG_PARAM_FLAG ? "" : p->metavar);
        printf("  %-18s %s", left, p->help);
        if (p->type == GPUIMG_PARAM_FLOAT || p->type == GPUIMG_PARAM_INT)
            printf(" (%g %s %s <= %g)", p->min, p->min_exclusive ? "<" : "<=", p->name, p->max);
        if (p->default_text)
            printf("; default %s", p->default_text);
        printf("\n");
    }
    printf("\nas a pipeline step (run, batch): %s", op->name);
    for (int i = 0; i < op->nparams; i++)
        printf("%s%s=%s", i ? "," : ":", op->params[i].name,
               op->params[i].type == GPUIMG_PARAM_FLAG ? "1" : op->params[i].metavar);
    printf("\nIN may be '-' (standard input); OUT may be '-' (standard output, --format names "
           "the format).\nSee gpuimg --help for the global options.\n");
}

static void run_help(void)
{
    printf("usage: gpuimg run IN OUT [STEP...]\n"
           "  runs the steps in order on one image kept on the device (one upload, one\n"
           "  download). A STEP is OP or OP:key=value,key=value with the options of the\n"
           "  command of that name, e.g.\n"
           "    gpuimg run in.png out.png blur:sigma=2 rotate:angle=90 grayscale\n"
           "  With no step, run converts the format (by OUT's extension).\n"
           "operations:");
    for (int i = 0; gpuimg_op_at(i); i++)
        printf(" %s", gpuimg_op_at(i)->name);
    printf("\n");
}

/* Decodes IN, runs the steps, encodes OUT. */
static int process(cli *c, const char *in, const char *out, gpuimg_step **steps, int nsteps)
{
    if (c->parse_only)
        return 0;
    int rc = cli_check_format(c, out); /* the path itself: gpuimg_process_file's */
    if (rc >= 0)
        return rc;
    gpuimg_process_info info;
    gpuimg_status st = gpuimg_process_file(c->ctx, in, out, c->format, steps, nsteps, &info);
    if (st == GPUIMG_OK && c->verbose) {
        const char *backend = "?";
        gpuimg_ctx_backend(c->ctx, &backend);
        fprintf(stderr,
                "gpuimg: %s: %s (%dx%d, %d channels) -> %s (%dx%d, %d channels), %s backend\n",
                c->command, in, info.in_width, info.in_height, info.in_channels, out,
                info.out_width, info.out_height, info.out_channels, backend);
    }
    return st == GPUIMG_OK ? 0 : cli_fail(c, st);
}

struct pending {
    int n;
    int param[MAX_OPTS];
    const char *value[MAX_OPTS];
};

static int collect(cli *c, void *data, int opt, const char *arg)
{
    struct pending *p = data;
    if (p->n == MAX_OPTS) {
        cli_error(c, "too many options");
        return EXIT_USAGE;
    }
    p->param[p->n] = opt - OPT_COMMAND;
    p->value[p->n++] = arg ? arg : "";
    return -1;
}

int cmd_image_op(cli *c, int argc, char **argv)
{
    const gpuimg_op_info *op = gpuimg_op_find(c->command);
    struct option opts[MAX_OPTS];
    for (int i = 0; i < op->nparams; i++)
        opts[i] = (struct option){op->params[i].name,
                                  op->params[i].type == GPUIMG_PARAM_FLAG ? no_argument
                                                                          : required_argument,
                                  NULL, OPT_COMMAND + i};
    struct pending pending = {0};
    char **pos;
    int npos;
    help_op = op;
    const cli_spec spec = {opts, op->nparams, collect, &pending, op_help, 0};
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos != 2) {
        cli_error(c, "expected IN and OUT, got %d argument%s (try gpuimg %s --help)", npos,
                  npos == 1 ? "" : "s", op->name);
        return EXIT_USAGE;
    }
    c->cfg.single_image = 1; /* one image a process: the lowest peak */
    if ((rc = cli_open(c)) >= 0)
        return rc;
    gpuimg_step *step;
    gpuimg_status st = gpuimg_step_new(c->ctx, op->name, &step);
    for (int i = 0; st == GPUIMG_OK && i < pending.n; i++)
        if ((st = gpuimg_step_set(c->ctx, step, op->params[pending.param[i]].name,
                                  pending.value[i])) != GPUIMG_OK)
            cli_error(c, "--%s", gpuimg_ctx_error(c->ctx));
    if (st != GPUIMG_OK) {
        gpuimg_step_free(step);
        return cli_exit_code(st);
    }
    if ((st = gpuimg_step_finish(c->ctx, step)) != GPUIMG_OK)
        rc = cli_fail(c, st);
    else
        rc = process(c, pos[0], pos[1], &step, 1);
    gpuimg_step_free(step);
    return rc;
}

int cli_parse_steps(cli *c, char **texts, int n, gpuimg_step ***steps)
{
    *steps = calloc((size_t)n + 1, sizeof **steps);
    if (!*steps) {
        cli_error(c, "out of memory");
        return EXIT_DEVICE;
    }
    for (int i = 0; i < n; i++) {
        gpuimg_status st = gpuimg_step_parse(c->ctx, texts[i], &(*steps)[i]);
        if (st == GPUIMG_OK && (st = gpuimg_step_finish(c->ctx, (*steps)[i])) != GPUIMG_OK)
            cli_error(c, "'%s': %s", texts[i], gpuimg_ctx_error(c->ctx));
        else if (st != GPUIMG_OK)
            cli_error(c, "%s", gpuimg_ctx_error(c->ctx));
        if (st != GPUIMG_OK) {
            cli_free_steps(*steps, n);
            *steps = NULL;
            return cli_exit_code(st);
        }
    }
    return -1;
}

void cli_free_steps(gpuimg_step **steps, int n)
{
    for (int i = 0; steps && i < n; i++)
        gpuimg_step_free(steps[i]);
    free(steps);
}

int cmd_run(cli *c, int argc, char **argv)
{
    char **pos;
    int npos;
    const cli_spec spec = {.help = run_help};
    int rc = cli_parse(c, argc, argv, &spec, &pos, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2) {
        cli_error(c, "expected IN OUT [STEP...] (try gpuimg run --help)");
        return EXIT_USAGE;
    }
    c->cfg.single_image = 1;
    if ((rc = cli_open(c)) >= 0)
        return rc;
    gpuimg_step **steps;
    if ((rc = cli_parse_steps(c, pos + 2, npos - 2, &steps)) >= 0)
        return rc;
    rc = process(c, pos[0], pos[1], steps, npos - 2);
    cli_free_steps(steps, npos - 2);
    return rc;
}
