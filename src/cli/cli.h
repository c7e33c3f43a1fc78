/* SPDX-License-Identifier: MIT */
/* The command-line program: argument parsing, printing and exit codes (SPEC
 * §1). Everything else is a library call. */
#ifndef GPUIMG_CLI_H
#define GPUIMG_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "gpuimg.h"

enum { EXIT_DIFFERS = 1, EXIT_USAGE = 2, EXIT_IO = 3, EXIT_DEVICE = 4 };

typedef struct cli {
    const char *command;
    gpuimg_config cfg;
    gpuimg_format format; /* --format, for OUT "-" */
    const char *format_name;
    int quiet, verbose, time;
    /* Every argument parsed and checked, each command stops before it
     * touches a file (see cli_main). */
    int parse_only;
    int backend_given; /* --backend was given: GPUIMG_BACKEND is not read */
    /* a progress line is on the terminal: a warning clears it first */
    int progress_line;
    gpuimg_ctx *ctx; /* created once the arguments are parsed */
} cli;

/* The program: parses argv, runs the command, returns the exit code (SPEC
 * §1). parse_only (the fuzz harness of the argument parser) stops every
 * command once its arguments, options and steps are parsed, before any
 * file is read or written. */
int cli_main(int argc, char **argv, int parse_only);

/* Long options every command accepts (SPEC §1's global options). Command
 * tables append theirs after these; option values >= OPT_COMMAND belong to
 * the command. */
enum { OPT_COMMAND = 1000 };
int cli_global_option(cli *c, int opt, const char *arg);
extern const struct option cli_global_options[];
extern const int cli_global_count;

/* What a command adds to the global options. */
typedef struct cli_spec {
    const struct option *opts; /* values OPT_COMMAND + k */
    int nopts;
    /* Called for each command option; returns an exit code, or -1 to go on. */
    int (*handle)(cli *c, void *data, int opt, const char *arg);
    void *data;
    void (*help)(void);
    int before_command; /* stop at the first non-option: the command word */
} cli_spec;

/* Parses argv[1..] (argv[0] is the program or the command) with the global
 * options plus spec's, options and positionals in any order; pos receives
 * the positionals in argv order. Returns an exit code, or -1 to go on. */
int cli_parse(cli *c, int argc, char **argv, const cli_spec *spec, char ***pos, int *npos);

/* Prints "gpuimg: COMMAND: message" on stderr. */
void cli_error(const cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the context's error detail and returns the status's exit code. */
int cli_fail(const cli *c, gpuimg_status st);
int cli_exit_code(gpuimg_status st);
/* Creates c->ctx from c->cfg. Returns an exit code, or -1 to go on. */
int cli_open(cli *c);
/* Prints --time's figures on stderr. */
void cli_report_time(const cli *c);
/* Checks an output path before any work (gpuimg_check_output, and --format
 * only with "-"); needs c->ctx. Returns an exit code, or -1 to go on. */
int cli_check_output(const cli *c, const char *out, const char *in);
/* Its first half: --format only with "-" (gpuimg_process_file checks the
 * path itself, once). */
int cli_check_format(const cli *c, const char *out);
/* Strict number parsing for option values; the second also refuses fractions. */
int cli_number(const cli *c, const char *option, const char *text, double min, double max,
               double *out);
int cli_whole_number(const cli *c, const char *option, const char *text, double min, double max,
                     double *out);

/* Parses and finishes STEP texts (run, batch), reporting the first bad one.
 * Returns an exit code, or -1 with *steps set (free with cli_free_steps). */
int cli_parse_steps(cli *c, char **texts, int n, gpuimg_step ***steps);
void cli_free_steps(gpuimg_step **steps, int n);

/* R, G, B, A; or Y, A. */
const char *cli_channel_name(int channels, int c);

int cmd_image_op(cli *c, int argc, char **argv);
int cmd_run(cli *c, int argc, char **argv);
int cmd_histogram(cli *c, int argc, char **argv);
int cmd_stats(cli *c, int argc, char **argv);
int cmd_compare(cli *c, int argc, char **argv);
int cmd_info(cli *c, int argc, char **argv);
int cmd_batch(cli *c, int argc, char **argv);

#endif
