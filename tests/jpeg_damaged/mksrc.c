/* mksrc.c: encode a binary PPM (P6) or PGM (P5) from stdin as a JPEG on
 * stdout with libjpeg, with the knobs make_damaged.py needs for its clean
 * sources and Pillow 9.4 lacks (restart intervals):
 *   mksrc QUALITY H V PROGRESSIVE RESTART_MCUS RESTART_ROWS < in.ppm > out.jpg
 * H V: luma sampling factors (2 2 = 4:2:0, 2 1 = 4:2:2, 1 1 = 4:4:4).
 * Built by hand: gcc -O2 mksrc.c -ljpeg -o /tmp/mksrc (not part of the build).
 */
#include <stdio.h>
#include <stdlib.h>

#include <jpeglib.h>

int main(int argc, char **argv)
{
    if (argc != 7) {
        fprintf(stderr, "usage: mksrc Q H V PROG RST_MCUS RST_ROWS\n");
        return 2;
    }
    int magic = 0, w = 0, h = 0, maxv = 0;
    if (scanf("P%d %d %d %d", &magic, &w, &h, &maxv) != 4 || maxv != 255 ||
        (magic != 5 && magic != 6)) {
        fprintf(stderr, "mksrc: need binary P5/P6 with maxval 255\n");
        return 2;
    }
    getchar(); /* the single whitespace byte after maxval */
    int comps = magic == 6 ? 3 : 1;
    unsigned char *pix = malloc((size_t)w * h * comps);
    if (!pix || fread(pix, 1, (size_t)w * h * comps, stdin) != (size_t)w * h * comps) {
        fprintf(stderr, "mksrc: short PNM\n");
        return 2;
    }
    struct jpeg_compress_struct c;
    struct jpeg_error_mgr jerr;
    c.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&c);
    jpeg_stdio_dest(&c, stdout);
    c.image_width = w;
    c.image_height = h;
    c.input_components = comps;
    c.in_color_space = comps == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&c);
    jpeg_set_quality(&c, atoi(argv[1]), TRUE);
    if (comps == 3) {
        c.comp_info[0].h_samp_factor = atoi(argv[2]);
        c.comp_info[0].v_samp_factor = atoi(argv[3]);
    }
    if (atoi(argv[4]))
        jpeg_simple_progression(&c);
    c.restart_interval = atoi(argv[5]);
    c.restart_in_rows = atoi(argv[6]);
    jpeg_start_compress(&c, TRUE);
    while (c.next_scanline < c.image_height) {
        JSAMPROW row = pix + (size_t)c.next_scanline * w * comps;
        jpeg_write_scanlines(&c, &row, 1);
    }
    jpeg_finish_compress(&c);
    jpeg_destroy_compress(&c);
    free(pix);
    return 0;
}
