/* SPDX-License-Identifier: MIT */
/* The shape of the tree (ARCHITECTURE.md): the `#include "..."` graph of
 * src/, kernels/ and include/ read from the sources themselves. A module
 * (a .c and its .h, one name without its extension) never reaches itself
 * again through includes, and layers point one way: cli -> batch, compare
 * -> run -> io, ops, cpu, kernels -> core -> the public header. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

#define MAX_NODES 512
#define MAX_EDGES 4096

typedef struct graph {
    char *name[MAX_NODES]; /* module: a path from the root, no extension */
    int n;
    int from[MAX_EDGES], to[MAX_EDGES];
    char *why[MAX_EDGES]; /* "file includes header" */
    int nedges;
} graph;

static int node_of(graph *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->name[i], name) == 0)
            return i;
    ck_assert_int_lt(g->n, MAX_NODES);
    g->name[g->n] = strdup(name);
    return g->n++;
}

static void add_edge(graph *g, const char *a, const char *b, const char *why)
{
    int x = node_of(g, a), y = node_of(g, b);
    if (x == y)
        return; /* a .c including its own header */
    for (int i = 0; i < g->nedges; i++)
        if (g->from[i] == x && g->to[i] == y)
            return;
    ck_assert_int_lt(g->nedges, MAX_EDGES);
    g->from[g->nedges] = x;
    g->to[g->nedges] = y;
    g->why[g->nedges] = strdup(why);
    g->nedges++;
}

/* A cycle of g, as "a -> b -> a" into out (1), or 0 when there is none:
 * depth-first search, a grey node met again closes a cycle. */
static int dfs(const graph *g, int v, int *colour, int *parent, char *out, size_t len)
{
    colour[v] = 1;
    for (int e = 0; e < g->nedges; e++) {
        if (g->from[e] != v)
            continue;
        int w = g->to[e];
        if (colour[w] == 1) {
            int path[MAX_NODES], k = 0;
            for (int u = v; u != w && k < MAX_NODES - 1; u = parent[u])
                path[k++] = u;
            path[k++] = w;
            size_t at = (size_t)snprintf(out, len, "%s", g->name[w]);
            for (int i = k - 2; i >= 0 && at < len; i--)
                at += (size_t)snprintf(out + at, len - at, " -> %s", g->name[path[i]]);
            if (at < len)
                snprintf(out + at, len - at, " -> %s", g->name[w]);
            return 1;
        }
        if (colour[w] == 0) {
            parent[w] = v;
            if (dfs(g, w, colour, parent, out, len))
                return 1;
        }
    }
    colour[v] = 2;
    return 0;
}

static int find_cycle(const graph *g, char *out, size_t len)
{
    int colour[MAX_NODES] = {0}, parent[MAX_NODES];
    for (int v = 0; v < g->n; v++)
        if (colour[v] == 0 && dfs(g, v, colour, parent, out, len))
            return 1;
    return 0;
}

static void graph_free(graph *g)
{
    for (int i = 0; i < g->n; i++)
        free(g->name[i]);
    for (int i = 0; i < g->nedges; i++)
        free(g->why[i]);
    g->n = g->nedges = 0;
}

/* The root of the checkout: tests/golden's parent's parent. */
static char root[4096];
static graph files; /* module -> module */

static int is_source(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (!strcmp(dot, ".c") || !strcmp(dot, ".h") || !strcmp(dot, ".cu") ||
                   !strcmp(dot, ".cuh"));
}

/* rel (a path from the root) without its extension. */
static void module_of(const char *rel, char *out, size_t len)
{
    snprintf(out, len, "%s", rel);
    char *dot = strrchr(out, '.');
    if (dot && !strchr(dot, '/'))
        *dot = '\0';
}

static int exists(const char *rel)
{
    char path[8192];
    struct stat sb;
    return snprintf(path, sizeof path, "%s/%s", root, rel) < (int)sizeof path &&
           stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Where the compiler finds `#include "name"` from the file rel: its own
 * folder, then -Isrc and -Iinclude (the build's flags). */
static int resolve(const char *rel, const char *name, char *out, size_t len)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", rel);
    char *slash = strrchr(dir, '/');
    *(slash ? slash : dir) = '\0';
    const char *bases[] = {dir, "src", "include"};
    for (int i = 0; i < 3; i++) {
        char cand[8192];
        if (snprintf(cand, sizeof cand, "%s/%s", bases[i], name) >= (int)sizeof cand)
            continue;
        /* "../x.h" from src/cpu: fold the one level it climbs */
        char *up;
        while ((up = strstr(cand, "/../")) != NULL) {
            char *prev = up;
            while (prev > cand && prev[-1] != '/')
                prev--;
            memmove(prev, up + 4, strlen(up + 4) + 1);
        }
        if (exists(cand)) {
            snprintf(out, len, "%s", cand);
            return 1;
        }
    }
    return 0;
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    if (type != FTW_F || !is_source(path))
        return 0;
    const char *rel = path + strlen(root) + 1;
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s: cannot open", path);
    char line[1024], self[4096];
    module_of(rel, self, sizeof self);
    node_of(&files, self);
    while (fgets(line, sizeof line, f)) {
        char name[1024];
        if (sscanf(line, " # include \"%1023[^\"]\"", name) != 1)
            continue;
        char target[8192], mod[8192], why[8192];
        ck_assert_msg(resolve(rel, name, target, sizeof target), "%s: #include \"%s\" not found",
                      rel, name);
        module_of(target, mod, sizeof mod);
        ck_assert(snprintf(why, sizeof why, "%s includes %s", rel, target) < (int)sizeof why);
        add_edge(&files, self, mod, why);
    }
    fclose(f);
    return 0;
}

static void read_tree(void)
{
    snprintf(root, sizeof root, "%s", tu_golden("../.."));
    graph_free(&files);
    const char *dirs[] = {"src", "kernels", "include"};
    for (int i = 0; i < 3; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        ck_assert_msg(nftw(path, visit, 16, FTW_PHYS) == 0, "%s: cannot walk", path);
    }
    ck_assert_int_gt(files.nedges, 100); /* the walk found the tree */
}

/* Each layer's rank: a file may include its own layer's headers and those
 * of lower ranks; layers of one rank may include each other's as long as
 * the layers themselves form no circle (the second test). */
static const struct layer {
    const char *prefix;
    int rank;
} layers[] = {
    {"include/", 0}, {"src/core/", 1}, {"src/io/", 2},    {"src/ops/", 2},     {"src/cpu/", 2},
    {"kernels/", 2}, {"src/run/", 3},  {"src/batch/", 4}, {"src/compare/", 4}, {"src/cli/", 5},
};
#define NLAYERS (int)(sizeof layers / sizeof layers[0])

static int layer_of(const char *module)
{
    for (int i = 0; i < NLAYERS; i++)
        if (strncmp(module, layers[i].prefix, strlen(layers[i].prefix)) == 0)
            return i;
    return -1;
}

START_TEST(cycle_finder_finds_a_cycle)
{
    graph g = {0};
    add_edge(&g, "src/a", "src/b", "a");
    add_edge(&g, "src/b", "src/c", "b");
    char text[512];
    ck_assert_int_eq(find_cycle(&g, text, sizeof text), 0);
    add_edge(&g, "src/c", "src/a", "c");
    ck_assert_int_eq(find_cycle(&g, text, sizeof text), 1);
    ck_assert_msg(strstr(text, "src/a") && strstr(text, "src/b") && strstr(text, "src/c"),
                  "cycle text: %s", text);
    graph_free(&g);
}
END_TEST

START_TEST(no_include_cycle)
{
    read_tree();
    char text[4096];
    int cyclic = find_cycle(&files, text, sizeof text);
    ck_assert_msg(!cyclic, "include cycle: %s", text);
}
END_TEST

START_TEST(every_file_in_a_layer)
{
    read_tree();
    for (int i = 0; i < files.n; i++)
        ck_assert_msg(layer_of(files.name[i]) >= 0,
                      "%s: in no layer (src/core, io, ops, cpu, run, batch, compare, cli; "
                      "kernels; include)",
                      files.name[i]);
}
END_TEST

START_TEST(layers_point_down)
{
    read_tree();
    graph lg = {0};
    for (int e = 0; e < files.nedges; e++) {
        int a = layer_of(files.name[files.from[e]]), b = layer_of(files.name[files.to[e]]);
        if (a < 0 || b < 0 || a == b)
            continue;
        ck_assert_msg(layers[b].rank <= layers[a].rank, "%s: %s may not reach up to %s",
                      files.why[e], layers[a].prefix, layers[b].prefix);
        add_edge(&lg, layers[a].prefix, layers[b].prefix, files.why[e]);
    }
    char text[1024];
    int cyclic = find_cycle(&lg, text, sizeof text);
    ck_assert_msg(!cyclic, "layers in a circle: %s", text);
    graph_free(&lg);
}
END_TEST

Suite *layers_suite(void)
{
    Suite *s = suite_create("layers");
    TCase *tc = tcase_create("layers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cycle_finder_finds_a_cycle);
    tcase_add_test(tc, no_include_cycle);
    tcase_add_test(tc, every_file_in_a_layer);
    tcase_add_test(tc, layers_point_down);
    suite_add_tcase(s, tc);
    return s;
}
