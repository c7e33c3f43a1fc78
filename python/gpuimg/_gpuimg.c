/* SPDX-License-Identifier: MIT */
/* gpuimg._gpuimg: the C side of the Python binding, over libgpuimg (SPEC §8).
 *
 * Kept thin: pixels cross in both directions through the buffer protocol
 * (PEP 3118), so NumPy arrays are read in place and results are handed out
 * as the library's own memory, without a copy either way and without
 * NumPy's C API (no build dependency on it). Everything that does work runs
 * with the GIL released; a context is used by one thread at a time (its
 * lock), so Python threads may share one. The Python layer (__init__.py)
 * gives the friendly signatures, the error classes and the docstrings. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"

/* ---- errors ------------------------------------------------------------- */

/* gpuimg.Error's subclasses by status, registered by __init__.py. */
static PyObject *error_classes;

static PyObject *raise_status(gpuimg_status st, const char *message)
{
    PyObject *cls = NULL;
    if (error_classes && PyTuple_Check(error_classes) &&
        (Py_ssize_t)st < PyTuple_GET_SIZE(error_classes))
        cls = PyTuple_GET_ITEM(error_classes, st);
    if (!cls)
        cls = PyExc_RuntimeError;
    PyObject *args =
        Py_BuildValue("(is)", (int)st, message && message[0] ? message : gpuimg_strerror(st));
    if (args) {
        PyErr_SetObject(cls, args);
        Py_DECREF(args);
    }
    return NULL;
}

static PyObject *register_errors(PyObject *self, PyObject *classes)
{
    (void)self;
    if (!PyTuple_Check(classes))
        return PyErr_Format(PyExc_TypeError, "expected a tuple of classes");
    Py_XDECREF(error_classes);
    Py_INCREF(classes);
    error_classes = classes;
    Py_RETURN_NONE;
}

/* ---- Image: the library's image, exported as a buffer ------------------- */

typedef struct {
    PyObject_HEAD gpuimg_image img;
    Py_ssize_t shape[3], strides[3];
    Py_ssize_t gray_strides[2]; /* (H, W): the row's bytes, one value's */
} ImageObject;

static PyTypeObject ImageType;

static void image_dealloc(ImageObject *self)
{
    gpuimg_image_free(&self->img); /* safe on any thread, after its context too */
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Takes img (its pixels and metadata) into a new Image. */
static PyObject *image_new(gpuimg_image *img)
{
    ImageObject *o = PyObject_New(ImageObject, &ImageType);
    if (!o) {
        gpuimg_image_free(img);
        return NULL;
    }
    o->img = *img;
    memset(img, 0, sizeof *img);
    size_t vs = gpuimg_image_value_size(&o->img);
    size_t stride = o->img.stride ? o->img.stride : (size_t)o->img.width * o->img.channels * vs;
    o->shape[0] = o->img.height;
    o->shape[1] = o->img.width;
    o->shape[2] = o->img.channels;
    o->strides[0] = (Py_ssize_t)stride;
    o->strides[1] = (Py_ssize_t)(o->img.channels * vs);
    o->strides[2] = (Py_ssize_t)vs;
    o->gray_strides[0] = (Py_ssize_t)stride;
    o->gray_strides[1] = (Py_ssize_t)vs;
    return (PyObject *)o;
}

/* (H, W) for gray, (H, W, C) otherwise (SPEC §8); uint8 or uint16. */
static int image_getbuffer(ImageObject *self, Py_buffer *view, int flags)
{
    size_t vs = gpuimg_image_value_size(&self->img);
    int ndim = self->img.channels == 1 ? 2 : 3;
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES &&
        (size_t)self->strides[0] != (size_t)self->img.width * self->img.channels * vs) {
        PyErr_SetString(PyExc_BufferError, "gpuimg image rows are padded: ask for strides");
        return -1;
    }
    view->obj = (PyObject *)self;
    Py_INCREF(self);
    view->buf = self->img.data;
    view->len = (Py_ssize_t)((size_t)self->img.width * self->img.height * self->img.channels * vs);
    view->readonly = 0;
    view->itemsize = (Py_ssize_t)vs;
    view->format = (flags & PyBUF_FORMAT) ? (vs == 2 ? "H" : "B") : NULL;
    view->ndim = ndim;
    view->shape = (flags & PyBUF_ND) ? self->shape : NULL;
    view->strides = !(flags & PyBUF_STRIDES) ? NULL
                    : ndim == 2              ? self->gray_strides
                                             : self->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyObject *image_get_depth(ImageObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(gpuimg_image_depth(&self->img));
}

static PyObject *image_get_icc(ImageObject *self, void *closure)
{
    (void)closure;
    if (!self->img.meta || !self->img.meta->icc)
        Py_RETURN_NONE;
    return PyBytes_FromStringAndSize((const char *)self->img.meta->icc,
                                     (Py_ssize_t)self->img.meta->icc_len);
}

static PyBufferProcs image_as_buffer = {(getbufferproc)image_getbuffer, NULL};

static PyGetSetDef image_getset[] = {
    {"depth", (getter)image_get_depth, NULL, "bits per value, 8 or 16", NULL},
    {"icc", (getter)image_get_icc, NULL, "the ICC profile the file carried, or None", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject ImageType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gpuimg._gpuimg.Image",
    .tp_basicsize = sizeof(ImageObject),
    .tp_dealloc = (destructor)image_dealloc,
    .tp_as_buffer = &image_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An image in the library's memory; numpy.asarray() views it without a copy.",
    .tp_getset = image_getset,
};

/* ---- reading a caller's array ------------------------------------------- */

/* A view of obj (a C-ordered uint8 or uint16 array of shape (H, W) or
 * (H, W, C), rows may be padded) described as a gpuimg_image over its
 * memory. 0 with a Python error otherwise: the Python layer copies arrays
 * whose layout this refuses (np.ascontiguousarray) before calling. */
static int image_view(PyObject *obj, Py_buffer *view, gpuimg_image *img)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_RECORDS_RO) != 0)
        return 0;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    int depth = (strcmp(f, "B") == 0 && view->itemsize == 1)   ? 8
                : (strcmp(f, "H") == 0 && view->itemsize == 2) ? 16
                                                               : 0;
    int ndim = view->ndim;
    int c = ndim == 3 ? (int)view->shape[2] : 1;
    const char *why = NULL;
    if (!depth)
        why = "images are uint8 or uint16 arrays";
    else if (ndim != 2 && ndim != 3)
        why = "images have shape (H, W) or (H, W, C)";
    else if (c < 1 || c > 4)
        why = "an image has 1 to 4 channels";
    else if (view->shape[0] < 1 || view->shape[1] < 1 || view->shape[0] > 65535 ||
             view->shape[1] > 65535)
        why = "an image is 1 to 65535 pixels a side";
    else if ((ndim == 3 && view->strides[2] != view->itemsize) ||
             view->strides[1] != c * view->itemsize ||
             view->strides[0] < view->shape[1] * c * view->itemsize || view->suboffsets)
        why = "the array's pixels are not packed (use numpy.ascontiguousarray)";
    if (why) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError, why);
        return 0;
    }
    gpuimg_image_wrap(img, (int)view->shape[1], (int)view->shape[0], c, view->buf,
                      (size_t)view->strides[0]);
    img->depth = depth;
    return 1;
}

/* ---- Context ------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD gpuimg_ctx *ctx;
    PyThread_type_lock lock;
} ContextObject;

/* The code (variadic: its commas are its own) on the context, the GIL
 * released and the context's lock held: no Python inside. */
#define UNLOCKED(self, ...)                                                                        \
    do {                                                                                           \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((self)->lock, WAIT_LOCK);                     \
        __VA_ARGS__;                                                                               \
        PyThread_release_lock((self)->lock);                                                       \
        Py_END_ALLOW_THREADS                                                                       \
    } while (0)

/* The context's message, copied while its lock is still held: once
 * released, another thread's failure on the same context may overwrite it. */
#define ERROR_LEN 512
static void snapshot(ContextObject *self, char *err)
{
    snprintf(err, ERROR_LEN, "%s", gpuimg_ctx_error(self->ctx));
}

/* st = call, on the context under its lock with the GIL released, and
 * the message of a failure in err. */
#define LOCKED(self, st, err, call)                                                                \
    UNLOCKED(self, (st) = (call); if ((st) != GPUIMG_OK) snapshot((self), (err)))

static int context_init(ContextObject *self, PyObject *args, PyObject *kw)
{
    static char *names[] = {"backend",      "device",     "threads",    "png_level",
                            "jpeg_quality", "depth",      "strip",      "lossless",
                            "auto_orient",  "max_pixels", "jpeg_codec", NULL};
    const char *backend = "auto", *jpeg_codec = "auto";
    int device = 0, threads = 0, png_level = 6, quality = 90, depth = 0, strip = 0, lossless = 0,
        auto_orient = 1;
    unsigned long long max_pixels = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|siiiiipppKs", names, &backend, &device, &threads,
                                     &png_level, &quality, &depth, &strip, &lossless, &auto_orient,
                                     &max_pixels, &jpeg_codec))
        return -1;
    gpuimg_config cfg;
    gpuimg_config_init(&cfg);
    if (!gpuimg_backend_from_name(backend, &cfg.backend)) {
        PyErr_Format(PyExc_ValueError, "backend: '%s' is not auto, cpu or cuda", backend);
        return -1;
    }
    cfg.jpeg_codec = strcmp(jpeg_codec, "cpu") == 0   ? GPUIMG_JPEG_CPU
                     : strcmp(jpeg_codec, "gpu") == 0 ? GPUIMG_JPEG_GPU
                                                      : GPUIMG_JPEG_AUTO;
    cfg.device = device;
    cfg.threads = threads;
    cfg.png_level = png_level;
    cfg.jpeg_quality = quality;
    cfg.depth = depth;
    cfg.strip = strip;
    cfg.lossless = lossless;
    cfg.no_auto_orient = !auto_orient;
    cfg.max_pixels = max_pixels;
    /* made once: images of the context (device ones point into its
     * backend) and other threads' calls may still use it */
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "a gpuimg Context is initialised once");
        return -1;
    }
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    gpuimg_status st = gpuimg_ctx_create(&cfg, &self->ctx);
    if (st != GPUIMG_OK) {
        raise_status(st, gpuimg_ctx_error(NULL));
        return -1;
    }
    return 0;
}

static void context_dealloc(ContextObject *self)
{
    if (self->ctx)
        gpuimg_ctx_destroy(self->ctx);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int ready(ContextObject *self)
{
    if (self->ctx)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "Context was not initialised");
    return 0;
}

/* Steps from a sequence of "op:key=value,..." strings, parsed on ctx. */
typedef struct {
    gpuimg_step **v;
    int n;
} steps_t;

static void steps_free(steps_t *s)
{
    for (int i = 0; i < s->n; i++)
        gpuimg_step_free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

static int steps_parse(ContextObject *self, PyObject *seq, steps_t *s)
{
    s->v = NULL;
    s->n = 0;
    PyObject *fast = PySequence_Fast(seq, "steps must be a sequence of strings");
    if (!fast)
        return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    const char **texts = calloc(n ? (size_t)n : 1, sizeof *texts);
    s->v = calloc(n ? (size_t)n : 1, sizeof *s->v);
    if (!s->v || !texts) {
        free(texts);
        steps_free(s);
        Py_DECREF(fast);
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!(texts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i)))) {
            free(texts);
            steps_free(s);
            Py_DECREF(fast);
            return 0;
        }
    }
    /* parsed under the context's lock: a failure writes its message */
    gpuimg_status st = GPUIMG_OK;
    char err[ERROR_LEN] = "";
    UNLOCKED(
        self, for (Py_ssize_t i = 0; i < n; i++) {
            if ((st = gpuimg_step_parse(self->ctx, texts[i], &s->v[i])) != GPUIMG_OK) {
                snapshot(self, err);
                break;
            }
            s->n++;
        });
    free(texts);
    Py_DECREF(fast);
    if (st != GPUIMG_OK) {
        steps_free(s);
        raise_status(st, err);
        return 0;
    }
    return 1;
}

static gpuimg_format format_arg(const char *name)
{
    return name && name[0] ? gpuimg_format_from_name(name) : GPUIMG_FORMAT_NONE;
}

static PyObject *ctx_load(ContextObject *self, PyObject *args)
{
    PyObject *src;
    const char *name = NULL;
    if (!PyArg_ParseTuple(args, "O|z", &src, &name) || !ready(self))
        return NULL;
    gpuimg_image img = {0};
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    if (PyUnicode_Check(src)) {
        const char *path = PyUnicode_AsUTF8(src);
        if (!path)
            return NULL;
        LOCKED(self, st, err, gpuimg_load(self->ctx, path, &img));
    } else {
        Py_buffer b;
        if (PyObject_GetBuffer(src, &b, PyBUF_SIMPLE) != 0)
            return NULL;
        LOCKED(self, st, err,
               gpuimg_load_memory(self->ctx, b.buf, (size_t)b.len, name ? name : "<bytes>", &img));
        PyBuffer_Release(&b);
    }
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    return image_new(&img);
}

static PyObject *ctx_run(ContextObject *self, PyObject *args)
{
    PyObject *array, *steps_seq;
    if (!PyArg_ParseTuple(args, "OO", &array, &steps_seq) || !ready(self))
        return NULL;
    steps_t steps;
    if (!steps_parse(self, steps_seq, &steps))
        return NULL;
    Py_buffer view;
    gpuimg_image in, out = {0};
    if (!image_view(array, &view, &in)) {
        steps_free(&steps);
        return NULL;
    }
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_run(self->ctx, &in, steps.v, steps.n, &out));
    PyBuffer_Release(&view);
    steps_free(&steps);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    return image_new(&out);
}

static PyObject *ctx_encode(ContextObject *self, PyObject *args)
{
    PyObject *array;
    const char *format;
    if (!PyArg_ParseTuple(args, "Os", &array, &format) || !ready(self))
        return NULL;
    gpuimg_format f = format_arg(format);
    if (f == GPUIMG_FORMAT_NONE)
        return raise_status(GPUIMG_ERR_FORMAT, "format: not a format gpuimg writes");
    Py_buffer view;
    gpuimg_image in;
    if (!image_view(array, &view, &in))
        return NULL;
    uint8_t *data = NULL;
    size_t len = 0;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_encode(self->ctx, &in, f, &data, &len));
    PyBuffer_Release(&view);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    PyObject *bytes = PyBytes_FromStringAndSize((const char *)data, (Py_ssize_t)len);
    free(data);
    return bytes;
}

static PyObject *ctx_save(ContextObject *self, PyObject *args)
{
    PyObject *array;
    const char *path;
    if (!PyArg_ParseTuple(args, "Os", &array, &path) || !ready(self))
        return NULL;
    Py_buffer view;
    gpuimg_image in;
    if (!image_view(array, &view, &in))
        return NULL;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_save(self->ctx, path, GPUIMG_FORMAT_NONE, &in));
    PyBuffer_Release(&view);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    Py_RETURN_NONE;
}

static PyObject *ctx_process(ContextObject *self, PyObject *args)
{
    Py_buffer data;
    PyObject *steps_seq;
    const char *format = NULL, *name = NULL;
    if (!PyArg_ParseTuple(args, "y*O|zz", &data, &steps_seq, &format, &name))
        return NULL;
    steps_t steps;
    if (!ready(self) || !steps_parse(self, steps_seq, &steps)) {
        PyBuffer_Release(&data);
        return NULL;
    }
    gpuimg_format f = format_arg(format);
    if (format && format[0] && f == GPUIMG_FORMAT_NONE) {
        PyBuffer_Release(&data);
        steps_free(&steps);
        return raise_status(GPUIMG_ERR_FORMAT, "format: not a format gpuimg writes");
    }
    uint8_t *out = NULL;
    size_t len = 0;
    gpuimg_format written = GPUIMG_FORMAT_NONE;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err,
           gpuimg_process_memory(self->ctx, data.buf, (size_t)data.len, name ? name : "<bytes>", f,
                                 steps.v, steps.n, &out, &len, &written, NULL));
    PyBuffer_Release(&data);
    steps_free(&steps);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    PyObject *r = Py_BuildValue("(y#s)", (const char *)out, (Py_ssize_t)len,
                                gpuimg_format_extension(written));
    free(out);
    return r;
}

/* ---- compare --------------------------------------------------------------- */

/* The options tuple of __init__.py's compare():
 * (fuzz, threshold, antialiasing, max_shift, ignore, mask, ssim, flip,
 *  max_diff, max_differing, max_differing_pct, min_psnr, min_ssim, max_flip, diff) */
typedef struct {
    gpuimg_compare_options opt;
    gpuimg_compare_limits lim;
    gpuimg_rect *rects;
    gpuimg_image mask;
    Py_buffer mask_view;
    int has_mask, want_diff;
} compare_args;

static int limit(PyObject *o, int *has, double *v)
{
    if (o == Py_None)
        return 1;
    *v = PyFloat_AsDouble(o);
    if (*v == -1.0 && PyErr_Occurred())
        return 0;
    *has = 1;
    return 1;
}

static void compare_args_free(compare_args *a)
{
    free(a->rects);
    a->rects = NULL;
    if (a->has_mask)
        PyBuffer_Release(&a->mask_view);
    a->has_mask = 0;
}

static int compare_args_parse(PyObject *t, compare_args *a)
{
    memset(a, 0, sizeof *a);
    gpuimg_compare_options_init(&a->opt);
    PyObject *ignore, *mask, *lmd, *lmdc, *lmdp, *lpsnr, *lssim, *lflip;
    if (!PyArg_ParseTuple(t, "idpiOOppOOOOOOp", &a->opt.fuzz, &a->opt.threshold,
                          &a->opt.antialiasing, &a->opt.max_shift, &ignore, &mask, &a->opt.ssim,
                          &a->opt.flip, &lmd, &lmdc, &lmdp, &lpsnr, &lssim, &lflip, &a->want_diff))
        return 0;
    double md = 0;
    if (!limit(lmd, &a->lim.has_max_diff, &md) ||
        !limit(lmdc, &a->lim.has_max_differing, &a->lim.max_differing) ||
        !limit(lmdp, &a->lim.has_max_differing_pct, &a->lim.max_differing_pct) ||
        !limit(lpsnr, &a->lim.has_min_psnr, &a->lim.min_psnr) ||
        !limit(lssim, &a->lim.has_min_ssim, &a->lim.min_ssim) ||
        !limit(lflip, &a->lim.has_max_flip, &a->lim.max_flip))
        return 0;
    a->lim.max_diff = (int)md;
    /* SSIM and FLIP computed when asked or limited (the CLI's rule) */
    a->opt.ssim = a->opt.ssim || a->lim.has_min_ssim;
    a->opt.flip = a->opt.flip || a->lim.has_max_flip;
    PyObject *fast = PySequence_Fast(ignore, "ignore must be a sequence of (x, y, w, h)");
    if (!fast)
        return 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    a->rects = calloc(n ? (size_t)n : 1, sizeof *a->rects);
    if (!a->rects) {
        Py_DECREF(fast);
        PyErr_NoMemory();
        return 0;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        gpuimg_rect *r = &a->rects[i];
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, i), "iiii", &r->x, &r->y, &r->width,
                              &r->height)) {
            Py_DECREF(fast);
            compare_args_free(a);
            return 0;
        }
    }
    Py_DECREF(fast);
    a->opt.ignore = a->rects;
    a->opt.nignore = (int)n;
    if (mask != Py_None) {
        if (!image_view(mask, &a->mask_view, &a->mask)) {
            compare_args_free(a);
            return 0;
        }
        a->has_mask = 1;
        a->opt.mask = &a->mask;
    }
    return 1;
}

static PyObject *optional(int has, double v)
{
    if (has)
        return PyFloat_FromDouble(v);
    Py_RETURN_NONE;
}

static PyObject *compare_dict(const gpuimg_pair *p, int flip, gpuimg_image *diff)
{
    const gpuimg_compare_result *r = &p->result;
    char text[2048];
    gpuimg_compare_text(p, flip, text, sizeof text);
    PyObject *failures = PyTuple_New(0);
    if (!failures)
        gpuimg_image_free(diff);
    for (unsigned bit = 1; failures && bit <= GPUIMG_FAILED_MAX_FLIP; bit <<= 1) {
        if (!(p->failed & bit))
            continue;
        PyObject *name = PyUnicode_FromString(gpuimg_compare_failure_name(bit));
        Py_ssize_t k = PyTuple_GET_SIZE(failures);
        if (!name || _PyTuple_Resize(&failures, k + 1) != 0) {
            Py_XDECREF(name);
            Py_XDECREF(failures);
            gpuimg_image_free(diff);
            return NULL;
        }
        PyTuple_SET_ITEM(failures, k, name);
    }
    if (!failures)
        return NULL;
    PyObject *diff_obj = Py_None;
    if (diff && diff->data) {
        if (!(diff_obj = image_new(diff))) {
            Py_DECREF(failures);
            return NULL;
        }
    } else {
        Py_INCREF(Py_None);
    }
    PyObject *bbox =
        r->differing ? Py_BuildValue("(iiii)", r->bbox.x, r->bbox.y, r->bbox.width, r->bbox.height)
                     : (Py_INCREF(Py_None), Py_None);
    return Py_BuildValue(
        "{s:s,s:s,s:N,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:(ii),s:(ii),s:K,s:K,s:K,s:K,s:K,s:K,s:i,"
        "s:d,s:d,s:N,s:N,s:N,s:N,s:N,s:N,s:N}",
        "status", gpuimg_pair_status_name(p->status), "reason", p->reason, "failures", failures,
        "text", text, "identical", r->identical, "size_differs", r->size_differs, "width", r->width,
        "height", r->height, "channels", r->channels, "depth", r->depth, "expected_size",
        p->expected_width, p->expected_height, "actual_size", p->actual_width, p->actual_height,
        "compared", (unsigned long long)r->compared, "ignored", (unsigned long long)r->ignored,
        "differing", (unsigned long long)r->differing, "forgiven", (unsigned long long)r->forgiven,
        "shifted", (unsigned long long)r->shifted, "groups_shifted",
        (unsigned long long)r->groups_shifted, "max_diff", r->max_diff, "mae", r->mae, "rmse",
        r->rmse, "psnr", optional(r->has_psnr, r->psnr), "ssim", optional(r->has_ssim, r->ssim),
        "flip_mean", optional(r->has_flip, r->flip_mean), "flip_p95",
        optional(r->has_flip, r->flip_p95), "flip_p99", optional(r->has_flip, r->flip_p99), "bbox",
        bbox, "diff", diff_obj);
}

/* compare(kind, a, b, options): kind "images" (arrays), "encoded" (bytes)
 * or "files" (paths). */
static PyObject *ctx_compare(ContextObject *self, PyObject *args)
{
    const char *kind;
    PyObject *a, *b, *opts;
    if (!PyArg_ParseTuple(args, "sOOO", &kind, &a, &b, &opts) || !ready(self))
        return NULL;
    compare_args ca;
    if (!compare_args_parse(opts, &ca))
        return NULL;
    gpuimg_pair p;
    memset(&p, 0, sizeof p);
    gpuimg_image diff = {0};
    gpuimg_image *want = ca.want_diff ? &diff : NULL;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    if (strcmp(kind, "files") == 0) {
        const char *pa = PyUnicode_AsUTF8(a), *pb = pa ? PyUnicode_AsUTF8(b) : NULL;
        if (!pb) {
            compare_args_free(&ca);
            return NULL;
        }
        LOCKED(self, st, err, gpuimg_compare_files(self->ctx, pa, pb, &ca.opt, &ca.lim, &p, want));
    } else if (strcmp(kind, "encoded") == 0) {
        Py_buffer va, vb;
        if (PyObject_GetBuffer(a, &va, PyBUF_SIMPLE) != 0) {
            compare_args_free(&ca);
            return NULL;
        }
        if (PyObject_GetBuffer(b, &vb, PyBUF_SIMPLE) != 0) {
            PyBuffer_Release(&va);
            compare_args_free(&ca);
            return NULL;
        }
        LOCKED(self, st, err,
               gpuimg_compare_encoded(self->ctx, va.buf, (size_t)va.len, "expected", vb.buf,
                                      (size_t)vb.len, "actual", &ca.opt, &ca.lim, &p, want));
        PyBuffer_Release(&va);
        PyBuffer_Release(&vb);
    } else {
        Py_buffer va, vb;
        gpuimg_image ia, ib;
        if (!image_view(a, &va, &ia)) {
            compare_args_free(&ca);
            return NULL;
        }
        if (!image_view(b, &vb, &ib)) {
            PyBuffer_Release(&va);
            compare_args_free(&ca);
            return NULL;
        }
        LOCKED(self, st, err, gpuimg_compare(self->ctx, &ia, &ib, &ca.opt, &p.result, want));
        PyBuffer_Release(&va);
        PyBuffer_Release(&vb);
        if (st == GPUIMG_OK) {
            p.expected_width = ia.width, p.expected_height = ia.height;
            p.actual_width = ib.width, p.actual_height = ib.height;
            gpuimg_compare_classify(&p, &ca.lim);
        }
    }
    int flip = ca.opt.flip;
    compare_args_free(&ca);
    if (st != GPUIMG_OK) {
        gpuimg_image_free(&diff);
        return raise_status(st, err);
    }
    return compare_dict(&p, flip, &diff);
}

/* ---- batch ------------------------------------------------------------------ */

typedef struct {
    char **lines; /* "input\terror" of each failed file */
    size_t n, cap;
} failures_t;

static void on_event(void *user, const gpuimg_batch_event *e)
{
    failures_t *f = user;
    if (e->outcome != GPUIMG_BATCH_FAILED)
        return;
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        char **lines = realloc(f->lines, cap * sizeof *lines);
        if (!lines)
            return; /* the summary still counts it */
        f->lines = lines;
        f->cap = cap;
    }
    size_t len = strlen(e->input) + strlen(e->error ? e->error : "") + 2;
    char *line = malloc(len);
    if (line) {
        snprintf(line, len, "%s\t%s", e->input, e->error ? e->error : "");
        f->lines[f->n++] = line;
    }
}

static PyObject *ctx_batch(ContextObject *self, PyObject *args)
{
    const char *in_dir, *out_dir, *format = NULL;
    PyObject *steps_seq, *devices = Py_None;
    int recursive = 0, skip_existing = 0, fail_fast = 0, jobs = 0, shard_index = 0, shard_count = 1;
    if (!PyArg_ParseTuple(args, "ssO|zpppiiiO", &in_dir, &out_dir, &steps_seq, &format, &recursive,
                          &skip_existing, &fail_fast, &jobs, &shard_index, &shard_count,
                          &devices) ||
        !ready(self))
        return NULL;
    gpuimg_format f = format_arg(format);
    if (format && format[0] && f == GPUIMG_FORMAT_NONE)
        return raise_status(GPUIMG_ERR_FORMAT, "format: not a format gpuimg writes");
    steps_t steps;
    if (!steps_parse(self, steps_seq, &steps))
        return NULL;
    int devs[64], ndevs = 0;
    if (devices != Py_None) {
        PyObject *fast = PySequence_Fast(devices, "devices must be a sequence of ints");
        if (!fast) {
            steps_free(&steps);
            return NULL;
        }
        if (PySequence_Fast_GET_SIZE(fast) > 64) {
            Py_DECREF(fast);
            steps_free(&steps);
            return raise_status(GPUIMG_ERR_USAGE, "devices: at most 64");
        }
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast); i++)
            devs[ndevs++] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        Py_DECREF(fast);
        if (PyErr_Occurred()) {
            steps_free(&steps);
            return NULL;
        }
    }
    failures_t fails = {0};
    gpuimg_batch_options o;
    memset(&o, 0, sizeof o);
    o.in_dir = in_dir;
    o.out_dir = out_dir;
    o.steps = steps.v;
    o.nsteps = steps.n;
    o.format = f;
    o.recursive = recursive;
    o.skip_existing = skip_existing;
    o.fail_fast = fail_fast;
    o.jobs = jobs;
    o.devices = devices != Py_None ? devs : NULL;
    o.ndevices = devices != Py_None ? ndevs : 0;
    o.shard_index = shard_index;
    o.shard_count = shard_count;
    o.on_event = on_event;
    o.user = &fails;
    gpuimg_batch_summary sum;
    memset(&sum, 0, sizeof sum);
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_batch(self->ctx, &o, &sum));
    steps_free(&steps);
    PyObject *list = st == GPUIMG_OK ? PyList_New(0) : NULL;
    for (size_t i = 0; i < fails.n; i++) {
        if (list) {
            char *tab = strchr(fails.lines[i], '\t');
            *tab = '\0';
            PyObject *item = Py_BuildValue("(ss)", fails.lines[i], tab + 1);
            if (!item || PyList_Append(list, item) != 0)
                Py_CLEAR(list);
            Py_XDECREF(item);
        }
        free(fails.lines[i]);
    }
    free(fails.lines);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    if (!list)
        return NULL;
    return Py_BuildValue(
        "{s:K,s:K,s:K,s:K,s:K,s:d,s:O,s:N}", "total", (unsigned long long)sum.total, "processed",
        (unsigned long long)sum.processed, "failed", (unsigned long long)sum.failed, "skipped",
        (unsigned long long)sum.skipped, "ignored", (unsigned long long)sum.ignored, "seconds",
        sum.seconds, "cancelled", sum.cancelled ? Py_True : Py_False, "failures", list);
}

static PyObject *ctx_backend(ContextObject *self, PyObject *noargs)
{
    (void)noargs;
    if (!ready(self))
        return NULL;
    const char *name = NULL;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_ctx_backend(self->ctx, &name));
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    return PyUnicode_FromString(name);
}

/* ---- DeviceImage: planes on a CUDA device, exported through DLPack ---- */

/* DLPack's ABI (dlpack.h, v0.8: the unversioned "dltensor" capsule every
 * consumer takes), declared here rather than vendored. */
typedef struct {
    int32_t device_type, device_id;
} DLDevice;
typedef struct {
    uint8_t code, bits;
    uint16_t lanes;
} DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
enum { DL_CUDA = 2, DL_UINT = 1 };

typedef struct {
    PyObject_HEAD gpuimg_device_image img;
    ContextObject *owner; /* the context whose backend holds the planes */
} DeviceImageObject;

static PyTypeObject DeviceImageType;

static void device_image_dealloc(DeviceImageObject *self)
{
    if (self->owner) {
        UNLOCKED(self->owner, gpuimg_device_image_free(&self->img));
        Py_CLEAR(self->owner);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *device_image_new(ContextObject *owner, gpuimg_device_image *img)
{
    DeviceImageObject *o = PyObject_New(DeviceImageObject, &DeviceImageType);
    if (!o) {
        UNLOCKED(owner, gpuimg_device_image_free(img));
        return NULL;
    }
    o->img = *img;
    memset(img, 0, sizeof *img);
    Py_INCREF(owner);
    o->owner = owner;
    return (PyObject *)o;
}

/* What a capsule's tensor holds: its shape and strides, and the image it
 * keeps alive until the consumer is done with it. */
typedef struct {
    DLManagedTensor managed;
    int64_t shape[3], strides[3];
    PyObject *image;
} export_t;

static void export_delete(DLManagedTensor *m)
{
    export_t *e = m->manager_ctx;
    if (!Py_IsInitialized()) { /* a consumer's tensor outlived the interpreter */
        free(e);
        return;
    }
    PyGILState_STATE g = PyGILState_Ensure(); /* consumers free from any thread */
    Py_XDECREF(e->image);
    PyGILState_Release(g);
    free(e);
}

static void capsule_destructor(PyObject *capsule)
{
    /* consumed capsules are renamed "used_dltensor": their consumer deletes */
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(capsule, "dltensor");
        if (m && m->deleter)
            m->deleter(m);
    }
}

static PyObject *device_image_dlpack(DeviceImageObject *self, PyObject *args, PyObject *kw)
{
    /* stream, max_version, dl_device, copy: the planes are complete when
     * made (the library synchronises), so any stream may read them */
    static char *names[] = {"stream", "max_version", "dl_device", "copy", NULL};
    PyObject *stream = NULL, *max_version = NULL, *dl_device = NULL, *copy = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOO", names, &stream, &max_version, &dl_device,
                                     &copy))
        return NULL;
    int want_copy = copy ? PyObject_IsTrue(copy) : 0;
    if (want_copy < 0)
        return NULL;
    if (want_copy == 1)
        return PyErr_Format(PyExc_BufferError, "gpuimg device images are exported without copy");
    if (dl_device && dl_device != Py_None) {
        int type = -1, id = -1;
        if (!PyArg_ParseTuple(dl_device, "ii", &type, &id))
            return NULL;
        if (type != DL_CUDA || id != self->img.device)
            return PyErr_Format(PyExc_BufferError,
                                "a gpuimg device image lives on CUDA device %d; it is not copied",
                                self->img.device);
    }
    /* the consumer's kernels may still read the planes when it lets them
     * go: their free then waits for the whole device (library's rule) */
    self->img.exported = 1;
    export_t *e = calloc(1, sizeof *e);
    if (!e)
        return PyErr_NoMemory();
    const gpuimg_device_image *im = &self->img;
    size_t vs = im->depth == 16 ? 2 : 1;
    e->shape[0] = im->channels;
    e->shape[1] = im->height;
    e->shape[2] = im->width;
    e->strides[0] = (int64_t)(im->plane_stride / vs); /* in values, as DLPack counts */
    e->strides[1] = im->width;
    e->strides[2] = 1;
    DLTensor *t = &e->managed.dl_tensor;
    t->data = im->data;
    t->device.device_type = DL_CUDA;
    t->device.device_id = im->device;
    t->ndim = 3;
    t->dtype.code = DL_UINT;
    t->dtype.bits = (uint8_t)(8 * vs);
    t->dtype.lanes = 1;
    t->shape = e->shape;
    t->strides = e->strides;
    e->managed.manager_ctx = e;
    e->managed.deleter = export_delete;
    e->image = (PyObject *)self;
    Py_INCREF(self);
    PyObject *capsule = PyCapsule_New(&e->managed, "dltensor", capsule_destructor);
    if (!capsule)
        export_delete(&e->managed);
    return capsule;
}

static PyObject *device_image_dlpack_device(DeviceImageObject *self, PyObject *noargs)
{
    (void)noargs;
    return Py_BuildValue("(ii)", DL_CUDA, self->img.device);
}

static PyObject *device_image_to_host(DeviceImageObject *self, PyObject *noargs)
{
    (void)noargs;
    gpuimg_image out = {0};
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self->owner, st, err, gpuimg_device_image_download(self->owner->ctx, &self->img, &out));
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    return image_new(&out);
}

static PyObject *device_image_get_shape(DeviceImageObject *self, void *closure)
{
    (void)closure;
    return Py_BuildValue("(iii)", self->img.channels, self->img.height, self->img.width);
}

static PyObject *device_image_get_depth(DeviceImageObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->img.depth);
}

static PyObject *device_image_get_device(DeviceImageObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLong(self->img.device);
}

static PyObject *ctx_run_device(ContextObject *self, PyObject *args);

/* run(steps): on the context that made the image, whichever that is. */
static PyObject *device_image_run(DeviceImageObject *self, PyObject *steps)
{
    PyObject *args = Py_BuildValue("(OO)", (PyObject *)self, steps);
    PyObject *r = args ? ctx_run_device(self->owner, args) : NULL;
    Py_XDECREF(args);
    return r;
}

static PyMethodDef device_image_methods[] = {
    {"run", (PyCFunction)device_image_run, METH_O,
     "run(steps) -> DeviceImage: the steps on the device, on this image's context."},
    {"__dlpack__", (PyCFunction)(void (*)(void))device_image_dlpack, METH_VARARGS | METH_KEYWORDS,
     "A DLPack capsule of the planes, (C, H, W), on the device: no copy."},
    {"__dlpack_device__", (PyCFunction)device_image_dlpack_device, METH_NOARGS,
     "(kDLCUDA, device ordinal)"},
    {"to_host", (PyCFunction)device_image_to_host, METH_NOARGS,
     "The image copied to the host, interleaved: an Image (numpy.asarray views it)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef device_image_getset[] = {
    {"shape", (getter)device_image_get_shape, NULL, "(C, H, W)", NULL},
    {"depth", (getter)device_image_get_depth, NULL, "bits per value, 8 or 16", NULL},
    {"device", (getter)device_image_get_device, NULL, "the CUDA device ordinal", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject DeviceImageType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gpuimg._gpuimg.DeviceImage",
    .tp_basicsize = sizeof(DeviceImageObject),
    .tp_dealloc = (destructor)device_image_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "An image on a CUDA device as planes (C, H, W); exports DLPack.",
    .tp_methods = device_image_methods,
    .tp_getset = device_image_getset,
};

static PyObject *ctx_decode_device(ContextObject *self, PyObject *list)
{
    if (!ready(self))
        return NULL;
    PyObject *fast = PySequence_Fast(list, "decode takes a sequence of bytes");
    if (!fast)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    Py_buffer *views = calloc(n ? (size_t)n : 1, sizeof *views);
    const void **data = calloc(n ? (size_t)n : 1, sizeof *data);
    size_t *sizes = calloc(n ? (size_t)n : 1, sizeof *sizes);
    gpuimg_device_image *out = calloc(n ? (size_t)n : 1, sizeof *out);
    Py_ssize_t got = 0;
    PyObject *result = NULL;
    if (!views || !data || !sizes || !out) {
        PyErr_NoMemory();
        goto done;
    }
    for (; got < n; got++) {
        if (PyObject_GetBuffer(PySequence_Fast_GET_ITEM(fast, got), &views[got], PyBUF_SIMPLE) != 0)
            goto done;
        data[got] = views[got].buf;
        sizes[got] = (size_t)views[got].len;
    }
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_decode_device(self->ctx, (int)n, data, sizes, out));
    if (st != GPUIMG_OK) {
        raise_status(st, err);
        goto done;
    }
    result = PyList_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *img = result ? device_image_new(self, &out[i]) : NULL;
        if (!img) {
            UNLOCKED(self, gpuimg_device_image_free(&out[i]));
            Py_CLEAR(result);
            continue;
        }
        PyList_SET_ITEM(result, i, img);
    }
done:
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&views[i]);
    free(views);
    free(data);
    free(sizes);
    free(out);
    Py_DECREF(fast);
    return result;
}

static PyObject *ctx_run_device(ContextObject *self, PyObject *args)
{
    PyObject *steps_seq;
    DeviceImageObject *in;
    if (!PyArg_ParseTuple(args, "O!O", &DeviceImageType, &in, &steps_seq) || !ready(self))
        return NULL;
    if (in->owner != self)
        return raise_status(GPUIMG_ERR_USAGE,
                            "run: a device image runs on the context that made it");
    steps_t steps;
    if (!steps_parse(self, steps_seq, &steps))
        return NULL;
    gpuimg_device_image out;
    gpuimg_status st;
    char err[ERROR_LEN] = "";
    LOCKED(self, st, err, gpuimg_run_device(self->ctx, &in->img, steps.v, steps.n, &out));
    steps_free(&steps);
    if (st != GPUIMG_OK)
        return raise_status(st, err);
    return device_image_new(self, &out);
}

static PyMethodDef context_methods[] = {
    {"load", (PyCFunction)ctx_load, METH_VARARGS, "load(path_or_bytes, name=None) -> Image"},
    {"run", (PyCFunction)ctx_run, METH_VARARGS, "run(array, steps) -> Image"},
    {"encode", (PyCFunction)ctx_encode, METH_VARARGS, "encode(array, format) -> bytes"},
    {"save", (PyCFunction)ctx_save, METH_VARARGS, "save(array, path)"},
    {"process", (PyCFunction)ctx_process, METH_VARARGS,
     "process(data, steps, format=None, name=None) -> (bytes, format)"},
    {"compare", (PyCFunction)ctx_compare, METH_VARARGS, "compare(kind, a, b, options) -> dict"},
    {"batch", (PyCFunction)ctx_batch, METH_VARARGS, "batch(in_dir, out_dir, steps, ...) -> dict"},
    {"backend", (PyCFunction)ctx_backend, METH_NOARGS, "backend() -> 'cpu' or 'cuda'"},
    {"decode_device", (PyCFunction)ctx_decode_device, METH_O,
     "decode_device(list_of_bytes) -> [DeviceImage]"},
    {"run_device", (PyCFunction)ctx_run_device, METH_VARARGS,
     "run_device(device_image, steps) -> DeviceImage"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject ContextType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gpuimg._gpuimg.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "A gpuimg context (libgpuimg's gpuimg_ctx).",
    .tp_methods = context_methods,
    .tp_init = (initproc)context_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module ------------------------------------------------------------- */

static PyObject *mod_version(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return PyUnicode_FromString(GPUIMG_VERSION);
}

static PyObject *mod_codecs(PyObject *self, PyObject *noargs)
{
    (void)self, (void)noargs;
    return PyUnicode_FromString(gpuimg_codec_versions());
}

static PyObject *mod_probe(PyObject *self, PyObject *args)
{
    (void)self;
    const char *name;
    int device = 0;
    if (!PyArg_ParseTuple(args, "s|i", &name, &device))
        return NULL;
    char text[512];
    gpuimg_status st;
    Py_BEGIN_ALLOW_THREADS st = gpuimg_backend_probe(name, device, text, sizeof text);
    Py_END_ALLOW_THREADS return Py_BuildValue("(Os)", st == GPUIMG_OK ? Py_True : Py_False, text);
}

static PyMethodDef module_methods[] = {
    {"_register_errors", register_errors, METH_O, NULL},
    {"version", mod_version, METH_NOARGS, "the library's version"},
    {"codecs", mod_codecs, METH_NOARGS, "the codec libraries and their versions"},
    {"probe", mod_probe, METH_VARARGS, "probe(backend, device=0) -> (usable, description)"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT,
                                    "_gpuimg",
                                    "libgpuimg's C binding (use the gpuimg package)",
                                    -1,
                                    module_methods,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL};

PyMODINIT_FUNC PyInit__gpuimg(void)
{
    if (PyType_Ready(&ImageType) < 0 || PyType_Ready(&ContextType) < 0 ||
        PyType_Ready(&DeviceImageType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&ImageType);
    Py_INCREF(&ContextType);
    Py_INCREF(&DeviceImageType);
    if (PyModule_AddObject(m, "Image", (PyObject *)&ImageType) < 0 ||
        PyModule_AddObject(m, "DeviceImage", (PyObject *)&DeviceImageType) < 0 ||
        PyModule_AddObject(m, "Context", (PyObject *)&ContextType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
