/* SPDX-License-Identifier: MIT */
/* The format table (formats.h) and what derives from it: the extension
 * lists, --format's names, batch's choice of files and output names, and
 * the recognition of a file by its signature. A new format is its own file
 * with its row, and one line here. */
#include <string.h>
#include <strings.h>

#include "io/formats.h"

const gpuimg__format *const gpuimg__formats[] = {
    &gpuimg__format_png,
    &gpuimg__format_jpeg,
    &gpuimg__format_bmp,
    &gpuimg__format_tga,
    &gpuimg__format_pnm,
    &gpuimg__format_webp,
    &gpuimg__format_tiff,
    &gpuimg__format_gif,
    &gpuimg__format_psd,
    &gpuimg__format_jxl,
    &gpuimg__format_heic,
    &gpuimg__format_avif,
    NULL,
};

#define EXTENSIONS                                                                                 \
    (sizeof gpuimg__formats[0]->extensions / sizeof gpuimg__formats[0]->extensions[0])

const gpuimg__format *gpuimg__sniff(const uint8_t *data, size_t size)
{
    /* the rows with a signature first: a guess (TGA's) never takes a file
     * another row recognises */
    for (int guessed = 0; guessed < 2; guessed++)
        for (const gpuimg__format *const *f = gpuimg__formats; *f; f++)
            if ((*f)->guessed == guessed && (*f)->sniff(data, size))
                return *f;
    return NULL;
}

const gpuimg__format *gpuimg__format_of_extension(const char *ext, const gpuimg__extension **entry)
{
    for (const gpuimg__format *const *f = gpuimg__formats; *f; f++)
        for (size_t k = 0; k < EXTENSIONS && (*f)->extensions[k].name; k++)
            if (strcasecmp(ext, (*f)->extensions[k].name) == 0) {
                if (entry)
                    *entry = &(*f)->extensions[k];
                return *f;
            }
    return NULL;
}

const gpuimg__format *gpuimg__format_writing(gpuimg_format format, const char **ext)
{
    for (const gpuimg__format *const *f = gpuimg__formats; *f && format != GPUIMG_FORMAT_NONE; f++)
        for (size_t k = 0; k < EXTENSIONS && (*f)->extensions[k].name; k++)
            if ((*f)->extensions[k].writes == format) {
                if (ext)
                    *ext = (*f)->extensions[k].name;
                return *f;
            }
    return NULL;
}

/* A path's extension, or NULL: none in its last component. */
static const char *extension(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    return dot ? dot + 1 : NULL;
}

gpuimg_format gpuimg_format_from_name(const char *name)
{
    const gpuimg__extension *e;
    return gpuimg__format_of_extension(name, &e) ? e->writes : GPUIMG_FORMAT_NONE;
}

gpuimg_format gpuimg_format_from_path(const char *path)
{
    const char *ext = extension(path);
    return ext ? gpuimg_format_from_name(ext) : GPUIMG_FORMAT_NONE;
}

/* The extensions, ", "-separated, into text: those written, then (read)
 * those only read. */
static void list_extensions(char *text, size_t len, int read)
{
    size_t at = 0;
    text[0] = '\0';
    for (int only_read = 0; only_read < 1 + read; only_read++)
        for (const gpuimg__format *const *f = gpuimg__formats; *f; f++)
            for (size_t k = 0; k < EXTENSIONS && (*f)->extensions[k].name; k++)
                if (((*f)->extensions[k].writes == GPUIMG_FORMAT_NONE) == only_read)
                    at += (size_t)snprintf(text + at, at < len ? len - at : 0, "%s%s",
                                           at ? ", " : "", (*f)->extensions[k].name);
}

const char *gpuimg_format_list(void)
{
    static char text[128];
    list_extensions(text, sizeof text, 0);
    return text;
}

const char *gpuimg_format_read_list(void)
{
    static char text[128];
    list_extensions(text, sizeof text, 1);
    return text;
}

int gpuimg_is_image_path(const char *path)
{
    const char *slash = strrchr(path, '/'), *ext = extension(path);
    if ((slash ? slash[1] : path[0]) == '.') /* hidden files, our own temporaries among them */
        return 0;
    return ext && gpuimg__format_of_extension(ext, NULL);
}

const char *gpuimg_format_extension(gpuimg_format format)
{
    const char *ext = NULL;
    gpuimg__format_writing(format, &ext);
    return ext;
}

gpuimg_format gpuimg_format_written_for(const char *path)
{
    const char *ext = extension(path);
    const gpuimg__extension *e;
    const gpuimg__format *f = ext ? gpuimg__format_of_extension(ext, &e) : NULL;
    return !f ? GPUIMG_FORMAT_NONE : e->writes != GPUIMG_FORMAT_NONE ? e->writes : f->written_as;
}

int gpuimg__format_holds_16(gpuimg_format format)
{
    const gpuimg__format *f = gpuimg__format_writing(format, NULL);
    return f && f->holds_16;
}
