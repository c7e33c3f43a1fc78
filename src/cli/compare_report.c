/* SPDX-License-Identifier: MIT */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
/* `compare --report DIR` and `--junit FILE` (SPEC §7).
 *
 * The report is one HTML page with its styles and its few lines of script
 * inline, and the images it shows copied beside it under images/, named
 * after each pair's path, so the folder works from file://, offline, as a CI
 * artifact. Failing pairs come first, each with expected, actual and diff
 * side by side (one scale for a pair's images, so that sizes that differ
 * look different), a slider that wipes between expected and actual, and a
 * 4x view of the box of the counted pixels; a click on an image shows it
 * whole, 1:1 or larger, in an overlay. Then a table of the pairs that
 * passed. Every file is written atomically (gpuimg_write_file). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare_out.h"
#include "core/utf8.h"
#include "json.h"

struct compare_report {
    gpuimg_ctx *ctx;
    char *dir;
};

/* Text for HTML and XML: the five special characters as entities; the
 * characters XML 1.0 does not allow (control characters but tab and
 * newline, U+FFFE, U+FFFF) dropped; each byte that is not part of a
 * well-formed UTF-8 character written as U+FFFD, so that the page and the
 * JUnit file parse whatever the file names hold. */
static void markup(FILE *f, const char *s)
{
    while (s && *s) {
        uint32_t cp;
        int len = gpuimg__utf8_next(s, &cp);
        if (len == 0) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD */
            s++;
            continue;
        }
        switch (cp) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default:
            if ((cp >= 0x20 || cp == '\t' || cp == '\n') && cp != 0x7f && cp != 0xFFFE &&
                cp != 0xFFFF)
                fwrite(s, 1, (size_t)len, f);
        }
        s += len;
    }
}

/* A file name for a pair's image: the path's letters and digits (others
 * become '_') and a hash of the whole path, so two paths never share one. */
static void image_name(const gpuimg_pair *p, const char *role, const char *ext, char *out,
                       size_t len)
{
    char stem[96];
    size_t n = 0;
    for (const char *s = p->path; *s && n + 1 < sizeof stem; s++)
        stem[n++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                            (*s >= '0' && *s <= '9') || *s == '-'
                        ? *s
                        : '_';
    stem[n] = '\0';
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *s = p->path; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    snprintf(out, len, "%s-%08x-%s.%s", stem, h, role, ext);
}

static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "img";
}

compare_report *compare_report_open(gpuimg_ctx *ctx, const char *dir)
{
    char images[4200];
    snprintf(images, sizeof images, "%s/images", dir);
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || (mkdir(images, 0777) != 0 && errno != EEXIST))
        return NULL; /* errno says why */
    /* an earlier report's images go: the page shows this run's */
    DIR *d = opendir(images);
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char path[4500];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", images, e->d_name);
        if (e->d_name[0] != '.' && lstat(path, &sb) == 0 && S_ISREG(sb.st_mode))
            unlink(path);
    }
    if (d)
        closedir(d);
    compare_report *r = calloc(1, sizeof *r);
    if (r && !(r->dir = strdup(dir))) {
        free(r);
        r = NULL;
    }
    if (!r)
        errno = ENOMEM;
    if (r)
        r->ctx = ctx;
    return r;
}

void compare_report_free(compare_report *r)
{
    if (r) {
        free(r->dir);
        free(r);
    }
}

/* The report shows only what decodes, copied from the bytes decoded
 * (gpuimg_copy_image): never a link's target, a FIFO or an endless file
 * from an actual folder an untrusted job filled. The expected image comes
 * from the golden folder, the project's own, where links are followed. */
static int copy_image(compare_report *r, const gpuimg_pair *p, const char *role, const char *from)
{
    char name[160], path[4500], folder[4500];
    image_name(p, role, extension(from), name, sizeof name);
    snprintf(path, sizeof path, "%s/images/%s", r->dir, name);
    snprintf(folder, sizeof folder, "%.*s", (int)(strlen(from) - strlen(p->path) - 1), from);
    int trusted = from == p->expected;
    return gpuimg_copy_image(r->ctx, folder, p->path, trusted, path) == GPUIMG_OK ? 0 : -1;
}

int compare_report_add_images(compare_report *r, const gpuimg_pair *p, const gpuimg_image *diff)
{
    if (copy_image(r, p, "expected", p->expected) != 0 ||
        copy_image(r, p, "actual", p->actual) != 0)
        return -1;
    if (!diff || !diff->data)
        return 0;
    char name[160], path[4500];
    image_name(p, "diff", "png", name, sizeof name);
    snprintf(path, sizeof path, "%s/images/%s", r->dir, name);
    return gpuimg_save(r->ctx, path, GPUIMG_FORMAT_NONE, diff) == GPUIMG_OK ? 0 : -1;
}

static const char STYLE[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fafafa}"
    "h1{font-size:1.4em}h2{font-size:1.1em;margin:0 0 .4em}"
    ".pair{background:#fff;border:1px solid #ddd;border-left:6px solid #c33;padding:1em;"
    "margin:0 0 1.5em}.pair.new{border-left-color:#c90}"
    ".reason{font-family:monospace;color:#a00}"
    ".imgs{display:flex;gap:1em;flex-wrap:wrap;align-items:flex-start}"
    "figure{margin:0}figcaption{font-size:.85em;color:#555}"
    "figure img{max-width:320px;image-rendering:pixelated;border:1px solid #ccc;display:block}"
    "img.z{cursor:zoom-in}h3{font-size:1em;font-weight:normal;margin:.8em 0 .3em}"
    ".crop{overflow:auto;border:1px solid #ccc}.box{position:relative;overflow:hidden}"
    ".box img{position:absolute;max-width:none;border:0}"
    ".wipe{position:relative;display:inline-block;line-height:0;border:1px solid #ccc}"
    ".wipe img{max-width:320px;display:block;image-rendering:pixelated}"
    ".wipe .top{position:absolute;left:0;top:0;overflow:hidden;height:100%;width:50%}"
    ".wipe .top img{max-width:none}"
    "table{border-collapse:collapse}td,th{padding:2px 10px;text-align:left;"
    "border-bottom:1px solid #eee}td.n{text-align:right;font-family:monospace}"
    ".none{color:#888;font-style:italic}"
    "#zoom{display:none;position:fixed;inset:0;z-index:9;background:#222;color:#eee;"
    "flex-direction:column}#zoom.open{display:flex}"
    "#zoom .bar{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;padding:.5em 1em}"
    "#zoom button.on{background:#fd6;font-weight:bold}#zoom .name{margin:0 1em}"
    "#zoom .view{flex:1;overflow:auto}#zoom .view img{display:block;image-rendering:pixelated}";

/* The page's script, small and without requests. Wipes: the top image as
 * wide as the bottom one, its edge moved by the slider. Zoom: a click on an
 * image (class z) shows it whole in #zoom, at the largest whole scale (1 to
 * 8) that fits the window's width, with buttons for the scale (fit, 1:1,
 * 2x, 4x, 8x) and for the pair's other images, shown at the same place and
 * scale so that switching between them blinks the difference; the arrow
 * keys switch, Esc closes; a click on a 4x crop scrolls to its box. Once
 * loaded, the body counts the images that loaded and those that did not
 * (data-images-loaded, -broken) and each zoomable image records the size it
 * is drawn at (data-shown, WxH): the tests read them from a headless
 * browser; index.html#zoom=N opens the Nth zoomable image, for them too. */
static const char SCRIPT[] =
    "document.querySelectorAll('.wipe').forEach(function (w) {\n"
    "  var top = w.querySelector('.top'), ti = top.querySelector('img'),\n"
    "      bi = w.querySelector('.bottom'), r = w.parentNode.querySelector('input');\n"
    "  function fit() { ti.style.width = bi.clientWidth + 'px'; }\n"
    "  bi.addEventListener('load', fit); fit();\n"
    "  r.addEventListener('input', function () { top.style.width = r.value + '%'; });\n"
    "});\n"
    "var zoom = document.getElementById('zoom'), view = zoom.querySelector('.view'),\n"
    "    big = view.querySelector('img'), roles = zoom.querySelector('.roles'),\n"
    "    scale = 0, shown = [], at = 0, focus = null;\n"
    "function mark(list, on) {\n"
    "  list.forEach(function (b, i) { b.className = on(b, i) ? 'on' : ''; });\n"
    "}\n"
    "function setScale(s) {\n"
    "  var w = big.naturalWidth;\n"
    "  scale = s;\n"
    "  big.style.width = (s ? w * s : view.clientWidth) + 'px';\n"
    "  zoom.setAttribute('data-scale', s ? s : 'fit');\n"
    "  mark(zoom.querySelectorAll('[data-s]'), function (b) { return +b.dataset.s === s; });\n"
    "  if (focus && s) { view.scrollLeft = focus[0] * s - 40; view.scrollTop = focus[1] * s - 40; "
    "}\n"
    "}\n"
    "function show(i) {\n"
    "  at = (i + shown.length) % shown.length;\n"
    "  mark(roles.querySelectorAll('button'), function (b, k) { return k === at; });\n"
    "  zoom.querySelector('.name').textContent = shown[at].alt;\n"
    "  function ready() {\n"
    "    /* the pair's widest image fits: a size mismatch keeps one scale */\n"
    "    var w = Math.max.apply(null, shown.map(function (s) { return s.naturalWidth; }));\n"
    "    var fits = Math.floor(view.clientWidth / Math.max(w, big.naturalWidth));\n"
    "    setScale(scale || Math.max(1, Math.min(8, fits)));\n"
    "    focus = null;\n"
    "  }\n"
    "  if (big.src === shown[at].src && big.complete) ready();\n"
    "  else { big.onload = ready; big.src = shown[at].src; }\n"
    "}\n"
    "function openZoom(img) {\n"
    "  var pair = img.closest('.pair');\n"
    "  shown = Array.prototype.slice.call(pair.querySelectorAll('img.full'));\n"
    "  roles.textContent = '';\n"
    "  shown.forEach(function (s, i) {\n"
    "    var b = document.createElement('button');\n"
    "    b.textContent = s.alt.split(':')[0];\n"
    "    b.onclick = function () { show(i); };\n"
    "    roles.appendChild(b);\n"
    "  });\n"
    "  focus = img.dataset.x ? [+img.dataset.x, +img.dataset.y] : null;\n"
    "  scale = 0;\n"
    "  zoom.className = 'open';\n"
    "  document.body.style.overflow = 'hidden'; /* only the overlay scrolls */\n"
    "  show(Math.max(0, shown.findIndex(function (s) { return s.src === img.src; })));\n"
    "}\n"
    "document.querySelectorAll('img.z').forEach(function (i) {\n"
    "  i.addEventListener('click', function () { openZoom(i); });\n"
    "});\n"
    "zoom.querySelectorAll('[data-s]').forEach(function (b) {\n"
    "  b.onclick = function () { setScale(+b.dataset.s); };\n"
    "});\n"
    "function closeZoom() { zoom.className = ''; document.body.style.overflow = ''; }\n"
    "zoom.querySelector('.close').onclick = closeZoom;\n"
    "document.addEventListener('keydown', function (e) {\n"
    "  if (zoom.className !== 'open') return;\n"
    "  if (e.key === 'Escape') closeZoom();\n"
    "  if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') show(at + (e.key === 'ArrowRight' ? 1 "
    ": -1));\n"
    "});\n"
    "window.addEventListener('load', function () {\n"
    "  var ok = 0, bad = 0;\n"
    "  document.querySelectorAll('img').forEach(function (i) {\n"
    "    if (i === big) return;\n"
    "    if (i.complete && i.naturalWidth > 0) ok++; else bad++;\n"
    "    if (i.classList.contains('z'))\n"
    "      i.setAttribute('data-shown', i.clientWidth + 'x' + i.clientHeight);\n"
    "  });\n"
    "  document.body.setAttribute('data-images-loaded', ok);\n"
    "  document.body.setAttribute('data-images-broken', bad);\n"
    "  var m = /zoom=(\\d+)/.exec(location.hash);\n"
    "  if (m) openZoom(document.querySelectorAll('img.z')[+m[1]]);\n"
    "});\n";

/* The overlay the script fills when an image is clicked. */
static const char ZOOM[] =
    "<div id=zoom><div class=bar><span class=roles></span><span class=name></span>"
    "<button data-s=0>fit</button><button data-s=1>1:1</button><button data-s=2>2&times;</button>"
    "<button data-s=4>4&times;</button><button data-s=8>8&times;</button>"
    "<button class=close>close (Esc)</button></div><div class=view><img alt=\"\"></div></div>\n";

/* How a pair's images are drawn: one scale for all of them, from the larger
 * width, so that a size mismatch shows as one; an image wider than SHOW is
 * scaled down to it, a smaller one up by a whole factor (at most 4, pixels
 * kept square by image-rendering: pixelated) so that small renders are not
 * thumbnails. 0 when no size is known (a missing pair): CSS's max-width. */
#define SHOW 320
static double pair_scale(const gpuimg_pair *p)
{
    int w = p->expected_width > p->actual_width ? p->expected_width : p->actual_width;
    int h = p->expected_height > p->actual_height ? p->expected_height : p->actual_height;
    if (w <= 0 || h <= 0)
        return 0;
    if (w > SHOW)
        return (double)SHOW / w;
    int s = SHOW / (w > h ? w : h);
    return s < 1 ? 1 : s > 4 ? 4 : s;
}

/* The inline size of an image w x h drawn at scale (none when 0). */
static void shown_size(FILE *f, int w, int h, double scale)
{
    if (scale > 0 && w > 0 && h > 0)
        fprintf(f, " style=\"width:%.0fpx;height:%.0fpx\"", w * scale, h * scale);
}

static void html_figure(FILE *f, compare_report *r, const gpuimg_pair *p, const char *role,
                        const char *ext, const char *caption, int present, int w, int h)
{
    char name[160];
    image_name(p, role, ext, name, sizeof name);
    fprintf(f, "<figure>");
    if (present) {
        fprintf(f, "<img class=\"z full\" src=\"images/");
        markup(f, name);
        fprintf(f, "\" alt=\"%s\"", caption);
        shown_size(f, w, h, pair_scale(p));
        fprintf(f, ">");
    } else {
        fprintf(f, "<div class=\"none\">none</div>");
    }
    fprintf(f, "<figcaption>%s</figcaption></figure>", caption);
    (void)r;
}

static void html_figures_row(FILE *f, const gpuimg_pair *p)
{
    const gpuimg_compare_result *x = &p->result;
    double pct = x->compared ? 100.0 * (double)x->differing / (double)x->compared : 0.0;
    fprintf(f, "<table><tr><th>differing</th><td class=n>%llu (%.4f%%)</td></tr>",
            (unsigned long long)x->differing, pct);
    fprintf(f, "<tr><th>forgiven</th><td class=n>%llu</td></tr>", (unsigned long long)x->forgiven);
    fprintf(f, "<tr><th>ignored</th><td class=n>%llu</td></tr>", (unsigned long long)x->ignored);
    fprintf(f, "<tr><th>max_diff</th><td class=n>%d</td></tr>", x->max_diff);
    fprintf(f, "<tr><th>mae / rmse</th><td class=n>%.4f / %.4f</td></tr>", x->mae, x->rmse);
    if (x->has_psnr)
        fprintf(f, "<tr><th>psnr</th><td class=n>%.2f dB</td></tr>", x->psnr);
    if (x->has_ssim)
        fprintf(f, "<tr><th>ssim</th><td class=n>%.6f</td></tr>", x->ssim);
    if (x->has_flip)
        fprintf(f, "<tr><th>flip mean / p95 / p99</th><td class=n>%.4f / %.4f / %.4f</td></tr>",
                x->flip_mean, x->flip_p95, x->flip_p99);
    if (x->differing)
        fprintf(f, "<tr><th>box</th><td class=n>%d,%d %dx%d</td></tr>", x->bbox.x, x->bbox.y,
                x->bbox.width, x->bbox.height);
    fprintf(f, "</table>");
}

/* The counted pixels' box, padded by BOX_PAD and clamped to the image, at
 * 4x: expected, actual and diff cropped by CSS (a box with overflow hidden,
 * the whole image scaled and moved inside it), so no other file is written.
 * A box whose 4x exceeds BOX_VIEW is drawn at the largest whole scale that
 * fits, never below 1x; past BOX_VIEW at 1x its view scrolls. */
#define BOX_PAD 8
#define BOX_VIEW 800
static void html_box(FILE *f, const gpuimg_pair *p)
{
    const gpuimg_compare_result *x = &p->result;
    int w = x->width, h = x->height;
    int x0 = x->bbox.x - BOX_PAD < 0 ? 0 : x->bbox.x - BOX_PAD;
    int y0 = x->bbox.y - BOX_PAD < 0 ? 0 : x->bbox.y - BOX_PAD;
    int x1 = x->bbox.x + x->bbox.width + BOX_PAD, y1 = x->bbox.y + x->bbox.height + BOX_PAD;
    int bw = (x1 > w ? w : x1) - x0, bh = (y1 > h ? h : y1) - y0, s = 4;
    while (s > 1 && (bw * s > BOX_VIEW || bh * s > BOX_VIEW))
        s--;
    fprintf(f,
            "<h3>The counted pixels: box %d,%d %dx%d, shown with %d pixels around it at "
            "%d&times;%s (click for the whole image)</h3><div class=imgs>",
            x->bbox.x, x->bbox.y, x->bbox.width, x->bbox.height, BOX_PAD, s,
            bw > BOX_VIEW || bh > BOX_VIEW ? ", scroll for the rest" : "");
    static const char *const role[3] = {"expected", "actual", "diff"};
    for (int k = 0; k < 3; k++) {
        char name[160];
        image_name(p, role[k], k == 2 ? "png" : extension(k ? p->actual : p->expected), name,
                   sizeof name);
        fprintf(f,
                "<figure><div class=crop style=\"max-width:%dpx;max-height:%dpx\">"
                "<div class=box style=\"width:%dpx;height:%dpx\"><img class=z src=\"images/",
                BOX_VIEW, BOX_VIEW, bw * s, bh * s);
        markup(f, name);
        fprintf(f,
                "\" alt=\"%s, %d&times;\" data-x=%d data-y=%d style=\"width:%dpx;height:%dpx;"
                "left:%dpx;top:%dpx\"></div></div><figcaption>%s</figcaption></figure>",
                role[k], s, x0, y0, w * s, h * s, -x0 * s, -y0 * s, role[k]);
    }
    fprintf(f, "</div>");
}

static void html_pair(FILE *f, compare_report *r, const gpuimg_pair *p)
{
    int compared = p->status == GPUIMG_PAIR_FAILED;
    int has_e = p->status != GPUIMG_PAIR_NEW && p->status != GPUIMG_PAIR_ERROR;
    int has_a = p->status != GPUIMG_PAIR_MISSING && p->status != GPUIMG_PAIR_ERROR;
    fprintf(f, "<section class=\"pair %s\"><h2>%s: ", gpuimg_pair_status_name(p->status),
            gpuimg_pair_status_name(p->status));
    markup(f, p->path);
    fprintf(f, "</h2><p class=reason>");
    markup(f, p->reason);
    fprintf(f, "</p>");
    if (compared && p->result.differing && p->result.bbox.width > 0)
        html_box(f, p);
    fprintf(f, "<div class=imgs>");
    html_figure(f, r, p, "expected", extension(p->expected), "expected", has_e, p->expected_width,
                p->expected_height);
    html_figure(f, r, p, "actual", extension(p->actual), "actual", has_a, p->actual_width,
                p->actual_height);
    if (compared) {
        html_figure(f, r, p, "diff", "png", "diff: red counted, yellow forgiven, blue ignored", 1,
                    p->expected_width, p->expected_height);
        char e[160], a[160];
        image_name(p, "expected", extension(p->expected), e, sizeof e);
        image_name(p, "actual", extension(p->actual), a, sizeof a);
        fprintf(f, "<figure><div class=wipe><img class=bottom src=\"images/");
        markup(f, e);
        fprintf(f, "\" alt=\"expected\"");
        shown_size(f, p->expected_width, p->expected_height, pair_scale(p));
        fprintf(f, "><div class=top><img src=\"images/");
        markup(f, a);
        fprintf(f, "\" alt=\"actual\"></div></div><input type=range min=0 max=100 value=50 "
                   "aria-label=\"wipe between expected and actual\">"
                   "<figcaption>actual (left of the edge) over expected</figcaption></figure>");
        html_figures_row(f, p);
    }
    fprintf(f, "</div></section>\n");
}

static void html_thresholds(FILE *f, const compare_settings *s)
{
    const gpuimg_compare_options *o = &s->opt;
    const gpuimg_compare_limits *l = &s->lim;
    fprintf(f, "<p>Pixel rule: ");
    if (o->threshold > 0)
        fprintf(f, "YIQ distance above %g", o->threshold);
    else
        fprintf(f, "a channel differing by more than %d", o->fuzz);
    if (o->antialiasing)
        fprintf(f, "; anti-aliasing forgiven");
    if (o->max_shift)
        fprintf(f, "; shifts up to %d pixels forgiven", o->max_shift);
    if (o->nignore)
        fprintf(f, "; %d rectangle%s ignored", o->nignore, o->nignore == 1 ? "" : "s");
    fprintf(f, ". Limits: ");
    int any = 0;
    if (l->has_max_diff)
        fprintf(f, "%smax_diff &le; %d", any++ ? ", " : "", l->max_diff);
    if (l->has_max_differing)
        fprintf(f, "%sdiffering &le; %g", any++ ? ", " : "", l->max_differing);
    if (l->has_max_differing_pct)
        fprintf(f, "%sdiffering &le; %g%%", any++ ? ", " : "", l->max_differing_pct);
    if (l->has_min_psnr)
        fprintf(f, "%spsnr &ge; %g dB", any++ ? ", " : "", l->min_psnr);
    if (l->has_min_ssim)
        fprintf(f, "%sssim &ge; %g", any++ ? ", " : "", l->min_ssim);
    if (l->has_max_flip)
        fprintf(f, "%sflip mean &le; %g", any++ ? ", " : "", l->max_flip);
    if (!any)
        fprintf(f, "none (one counted pixel fails)");
    fprintf(f, ".</p>\n");
}

static void html_page(FILE *f, compare_report *r, const gpuimg_folder_result *res,
                      const compare_settings *s, const char *expected_dir, const char *actual_dir)
{
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
            "<title>gpuimg compare</title><style>%s</style></head><body>\n",
            STYLE);
    fprintf(f, "<h1>gpuimg compare: ");
    markup(f, expected_dir);
    fprintf(f, " (expected) and ");
    markup(f, actual_dir);
    fprintf(f, " (actual)</h1>\n<p>%zu pairs:", res->npairs);
    for (int k = 0; k < GPUIMG_PAIR_STATUS_COUNT; k++)
        fprintf(f, "%s %zu %s", k ? "," : "", res->count[k],
                gpuimg_pair_status_name((gpuimg_pair_status)k));
    fprintf(f, ".</p>\n");
    html_thresholds(f, s);
    for (size_t i = 0; i < res->npairs; i++)
        if (res->pairs[i].status > GPUIMG_PAIR_PASSED)
            html_pair(f, r, &res->pairs[i]);
    fprintf(f, "<h2>Within tolerance</h2><table><tr><th>pair</th><th>status</th>"
               "<th>differing</th><th>forgiven</th><th>max_diff</th></tr>\n");
    for (size_t i = 0; i < res->npairs; i++) {
        const gpuimg_pair *p = &res->pairs[i];
        if (p->status > GPUIMG_PAIR_PASSED)
            continue;
        fprintf(f, "<tr><td>");
        markup(f, p->path);
        fprintf(f,
                "</td><td>%s</td><td class=n>%llu</td><td class=n>%llu</td><td "
                "class=n>%d</td></tr>\n",
                gpuimg_pair_status_name(p->status), (unsigned long long)p->result.differing,
                (unsigned long long)p->result.forgiven, p->result.max_diff);
    }
    fprintf(f, "</table>\n%s<script>\n%s</script></body></html>\n", ZOOM, SCRIPT);
}

/* Builds a document in memory with fill, then writes it atomically. */
int compare_write_document(gpuimg_ctx *ctx, const char *path, void (*fill)(FILE *, void *),
                           void *arg)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    fill(f, arg);
    if (fclose(f) != 0) {
        free(buf);
        return -1;
    }
    gpuimg_status st = gpuimg_write_file(ctx, path, buf, len);
    free(buf);
    return st == GPUIMG_OK ? 0 : -1;
}

struct page_args {
    compare_report *r;
    const gpuimg_folder_result *res;
    const compare_settings *s;
    const char *expected_dir, *actual_dir;
};

static void fill_page(FILE *f, void *arg)
{
    struct page_args *a = arg;
    html_page(f, a->r, a->res, a->s, a->expected_dir, a->actual_dir);
}

static void fill_json(FILE *f, void *arg)
{
    struct page_args *a = arg;
    compare_json_document(f, a->res, a->s);
}

int compare_report_finish(compare_report *r, const gpuimg_folder_result *res,
                          const compare_settings *s, const char *expected_dir,
                          const char *actual_dir)
{
    /* the failing pairs that were not compared: the images that exist */
    for (size_t i = 0; i < res->npairs; i++) {
        const gpuimg_pair *p = &res->pairs[i];
        if ((p->status == GPUIMG_PAIR_SIZE || p->status == GPUIMG_PAIR_MISSING) &&
            copy_image(r, p, "expected", p->expected) != 0)
            return -1;
        if ((p->status == GPUIMG_PAIR_SIZE || p->status == GPUIMG_PAIR_NEW) &&
            copy_image(r, p, "actual", p->actual) != 0)
            return -1;
    }
    struct page_args a = {r, res, s, expected_dir, actual_dir};
    char path[4500];
    snprintf(path, sizeof path, "%s/report.json", r->dir);
    if (compare_write_document(r->ctx, path, fill_json, &a) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/index.html", r->dir);
    return compare_write_document(r->ctx, path, fill_page, &a);
}

struct junit_args {
    const gpuimg_folder_result *res;
    int allow_new;
};

static void fill_junit(FILE *f, void *arg)
{
    const struct junit_args *a = arg;
    const gpuimg_folder_result *res = a->res;
    size_t failures = 0, errors = res->count[GPUIMG_PAIR_ERROR];
    for (size_t i = 0; i < res->npairs; i++)
        failures += res->pairs[i].status != GPUIMG_PAIR_ERROR &&
                    compare_pair_fails(res->pairs[i].status, a->allow_new);
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"gpuimg compare\" tests=\"%zu\" failures=\"%zu\" "
            "errors=\"%zu\">\n  <testsuite name=\"gpuimg compare\" tests=\"%zu\" "
            "failures=\"%zu\" errors=\"%zu\" skipped=\"0\">\n",
            res->npairs, failures, errors, res->npairs, failures, errors);
    for (size_t i = 0; i < res->npairs; i++) {
        const gpuimg_pair *p = &res->pairs[i];
        fprintf(f, "    <testcase classname=\"gpuimg.compare\" name=\"");
        markup(f, p->path);
        const char *status = gpuimg_pair_status_name(p->status);
        if (!compare_pair_fails(p->status, a->allow_new)) {
            fprintf(f, "\"/>\n");
            continue;
        }
        const char *tag = p->status == GPUIMG_PAIR_ERROR ? "error" : "failure";
        fprintf(f, "\">\n      <%s type=\"%s\" message=\"%s: ", tag, status, status);
        markup(f, p->reason);
        fprintf(f, "\">");
        markup(f, p->reason);
        fprintf(f, "</%s>\n    </testcase>\n", tag);
    }
    fprintf(f, "  </testsuite>\n</testsuites>\n");
}

int compare_junit(gpuimg_ctx *ctx, const char *path, const gpuimg_folder_result *res, int allow_new)
{
    struct junit_args a = {res, allow_new};
    return compare_write_document(ctx, path, fill_junit, &a);
}
