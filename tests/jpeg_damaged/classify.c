/* classify.c: say what libjpeg-turbo thinks of each JPEG file named on the
 * command line, one line each: file<TAB>ok|refused<TAB>first message.
 *
 * "refused" means any warning (emit_message with msg_level < 0) or error
 * (error_exit) during a full decompression; gpuimg treats a libjpeg warning
 * as an error (SPEC §2), so the two are one verdict here.  A tool to
 * regenerate expected.tsv, not part of the build:
 *   gcc -O2 classify.c -ljpeg -o /tmp/classify
 *   cd tests/jpeg_damaged && /tmp/classify *.jpg public/<files> > expected.tsv
 */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>

struct err {
    struct jpeg_error_mgr pub;
    jmp_buf jb;
    char first[JMSG_LENGTH_MAX]; /* first warning or error, "" if none */
};

static void on_error(j_common_ptr cinfo)
{
    struct err *e = (struct err *)cinfo->err;
    if (!e->first[0])
        (*cinfo->err->format_message)(cinfo, e->first);
    longjmp(e->jb, 1);
}

static void on_message(j_common_ptr cinfo, int msg_level)
{
    struct err *e = (struct err *)cinfo->err;
    /* msg_level < 0 is a warning (corrupt data); >= 0 is trace output. */
    if (msg_level < 0 && !e->first[0])
        (*cinfo->err->format_message)(cinfo, e->first);
    if (msg_level < 0)
        cinfo->err->num_warnings++;
}

/* Returns 1 when the file decodes with no warning and no error. */
static int classify(const char *path, char *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(msg, JMSG_LENGTH_MAX, "cannot open");
        return 0;
    }
    /* the whole file in memory, as gpuimg reads it (see jpeg_mem_src below) */
    static unsigned char data[1 << 24];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    struct jpeg_decompress_struct cinfo;
    struct err e;
    memset(&e, 0, sizeof e);
    cinfo.err = jpeg_std_error(&e.pub);
    e.pub.error_exit = on_error;
    e.pub.emit_message = on_message;
    JSAMPARRAY row = NULL;
    int ok = 0;
    if (setjmp(e.jb)) {
        ok = 0;
    } else {
        jpeg_create_decompress(&cinfo);
        /* from memory, as gpuimg reads: the whole file is in the buffer,
         * so libjpeg-turbo takes its fast Huffman path, which reads a code
         * its tables lack as symbol 0 without a warning (the slow path a
         * file source takes near each 4 KB refill warns) */
        jpeg_mem_src(&cinfo, data, (unsigned long)size);
        jpeg_read_header(&cinfo, TRUE);
        jpeg_start_decompress(&cinfo);
        row = (*cinfo.mem->alloc_sarray)((j_common_ptr)&cinfo, JPOOL_IMAGE,
                                         cinfo.output_width * cinfo.output_components, 1);
        while (cinfo.output_scanline < cinfo.output_height)
            jpeg_read_scanlines(&cinfo, row, 1);
        jpeg_finish_decompress(&cinfo);
        ok = e.pub.num_warnings == 0 && !e.first[0];
    }
    jpeg_destroy_decompress(&cinfo);
    strcpy(msg, e.first);
    return ok;
}

int main(int argc, char **argv)
{
    char msg[JMSG_LENGTH_MAX];
    for (int i = 1; i < argc; i++) {
        int ok = classify(argv[i], msg);
        /* Tabs and newlines never occur in libjpeg messages, but be safe. */
        for (char *p = msg; *p; p++)
            if (*p == '\t' || *p == '\n')
                *p = ' ';
        printf("%s\t%s\t%s\n", argv[i], ok ? "ok" : "refused", msg);
    }
    return 0;
}
