/* SPDX-License-Identifier: MIT */
/* The histogram's bar chart (`histogram --plot`): one panel per channel in
 * the channel's colour, each titled with the channel's name and its
 * tallest bin, the value axis ticked and labelled at 0, 64, 128, 192 and
 * 255; bar heights linear in the count or, with log_scale, in log(1 +
 * count), so a few huge bins (a black border, a sky) do not flatten the
 * rest. Text is a built-in 5 x 7 font: the chart needs no font library. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpuimg.h"

#define BAR 2      /* pixels per bin */
#define HEIGHT 120 /* bar area of one panel */
#define MARGIN 8   /* around the chart and between panels */
#define GLYPH_W 5  /* a glyph's columns; one more between glyphs */
#define GLYPH_H 7
#define TITLE (GLYPH_H + 4)        /* title row above the bars */
#define AXIS (1 + 4 + 2 + GLYPH_H) /* axis line, ticks, gap, tick labels */
#define PANEL (TITLE + HEIGHT + AXIS + MARGIN)

/* Rows top to bottom, bit 4 the leftmost column. */
static const struct {
    char c;
    uint8_t rows[GLYPH_H];
} font[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'A', {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
    {'B', {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E}},
    {'C', {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E}},
    {'D', {0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C}},
    {'E', {0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F}},
    {'G', {0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F}},
    {'H', {0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11}},
    {'K', {0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11}},
    {'L', {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F}},
    {'N', {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11}},
    {'O', {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'P', {0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10}},
    {'R', {0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11}},
    {'S', {0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E}},
    {'T', {0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04}},
    {'U', {0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E}},
    {'V', {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04}},
    {'Y', {0x11, 0x11, 0x11, 0x0A, 0x04, 0x04, 0x04}},
    {',', {0x00, 0x00, 0x00, 0x00, 0x0C, 0x04, 0x08}},
    {'(', {0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02}},
    {')', {0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08}},
};

static int text_width(const char *text)
{
    int n = (int)strlen(text);
    return n > 0 ? n * (GLYPH_W + 1) - 1 : 0;
}

static void put(gpuimg_image *img, int x, int y, const uint8_t rgb[3])
{
    if (x >= 0 && y >= 0 && x < img->width && y < img->height)
        memcpy(img->data + ((size_t)y * img->width + x) * 3, rgb, 3);
}

/* Text with its top-left corner at (x, y); a character outside the font
 * is left blank (the texts below use only the font's). */
static void draw_text(gpuimg_image *img, int x, int y, const char *text, const uint8_t rgb[3])
{
    for (; *text; text++, x += GLYPH_W + 1)
        for (size_t g = 0; g < sizeof font / sizeof font[0]; g++)
            if (font[g].c == *text)
                for (int r = 0; r < GLYPH_H; r++)
                    for (int col = 0; col < GLYPH_W; col++)
                        if (font[g].rows[r] >> (GLYPH_W - 1 - col) & 1)
                            put(img, x + col, y + r, rgb);
}

/* A bin's bar in pixels: any non-empty bin shows at least one. */
static int bar_height(uint64_t count, uint64_t peak, int log_scale)
{
    if (count == 0)
        return 0;
    double f =
        log_scale ? log1p((double)count) / log1p((double)peak) : (double)count / (double)peak;
    int bar = (int)ceil(f * HEIGHT - 1e-9);
    return bar < 1 ? 1 : bar > HEIGHT ? HEIGHT : bar;
}

gpuimg_status gpuimg_histogram_plot(const gpuimg_histogram *h, int log_scale, gpuimg_image *out)
{
    static const uint8_t black[3] = {0, 0, 0};
    static const uint8_t rgb_colors[4][3] = {
        {220, 40, 40}, {40, 170, 60}, {50, 90, 220}, {110, 110, 110}};
    static const uint8_t gray_colors[2][3] = {{60, 60, 60}, {150, 150, 150}};
    static const char *const rgb_names[4] = {"RED", "GREEN", "BLUE", "ALPHA"};
    static const char *const gray_names[2] = {"GRAY", "ALPHA"};
    int cn = h->channels;
    if (cn < 1 || cn > 4)
        return GPUIMG_ERR_USAGE;
    /* 256 bars whatever the depth: a 16-bit histogram's values gathered */
    gpuimg_histogram bars = {0};
    if (h->bins != 256) {
        gpuimg_status st = gpuimg_histogram_rebin(h, 256, &bars);
        if (st != GPUIMG_OK)
            return st;
        h = &bars;
    }
    int width = 256 * BAR + 2 * MARGIN, height = cn * PANEL + MARGIN;
    gpuimg_status st = gpuimg_image_alloc(out, width, height, 3);
    if (st != GPUIMG_OK) {
        gpuimg_histogram_free(&bars);
        return st;
    }
    int top_value = h->depth == 16 ? 65535 : 255;
    memset(out->data, 255, (size_t)width * (size_t)height * 3);
    for (int c = 0; c < cn; c++) {
        const uint8_t *color = cn >= 3 ? rgb_colors[c] : gray_colors[c];
        uint64_t peak = 1;
        for (int v = 0; v < 256; v++)
            if (h->counts[c][v] > peak)
                peak = h->counts[c][v];
        int top = MARGIN + c * PANEL;
        int base = top + TITLE + HEIGHT; /* the axis row */
        /* the title: the channel on the left, the y scale on the right */
        draw_text(out, MARGIN, top, cn >= 3 ? rgb_names[c] : gray_names[c], color);
        char scale[64];
        snprintf(scale, sizeof scale, "COUNT%s, PEAK %llu", log_scale ? " (LOG)" : "",
                 (unsigned long long)peak);
        draw_text(out, width - MARGIN - text_width(scale), top, scale, black);
        for (int v = 0; v < 256; v++) {
            int bar = bar_height(h->counts[c][v], peak, log_scale);
            for (int y = base - bar; y < base; y++)
                for (int k = 0; k < BAR; k++)
                    put(out, MARGIN + v * BAR + k, y, color);
        }
        for (int x = MARGIN - 1; x < width - MARGIN + 1; x++)
            put(out, x, base, black);
        /* ticks and their values under 0, 64, 128, 192 and 255 */
        static const int ticks[] = {0, 64, 128, 192, 255};
        for (int t = 0; t < 5; t++) {
            int x = MARGIN + ticks[t] * BAR + (ticks[t] == 255 ? BAR - 1 : 0);
            for (int y = base + 1; y <= base + 4; y++)
                put(out, x, y, black);
            char label[16]; /* in the image's values: 0 .. 65535 at 16 bits */
            snprintf(label, sizeof label, "%d",
                     ticks[t] == 255 ? top_value : ticks[t] * (top_value + 1) / 256);
            int lx = x - text_width(label) / 2;
            if (lx + text_width(label) > width - 1)
                lx = width - 1 - text_width(label);
            draw_text(out, lx, base + 7, label, black);
        }
        if (c == cn - 1) /* the value axis named once, under the last panel's middle */
            draw_text(out, MARGIN + 96 * BAR - text_width("VALUE") / 2, base + 7 + GLYPH_H + 1,
                      "VALUE", black);
    }
    gpuimg_histogram_free(&bars);
    return GPUIMG_OK;
}
