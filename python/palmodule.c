/* palmodule.c -- the Python module `pal`: PAL's reader for Python (doc/pal.md,
 * "Python"). A layer above libpal that uses pal.h only: traces open as PAL
 * opens them (a file, a run, a foreign trace with its dictionary), records
 * iterate as Python objects, and a record type's fields decode in C straight
 * into numpy arrays (Trace.columns), which Trace.to_pandas hands to pandas
 * with ids resolved to names through PAL's pal_names table.
 *
 * Every pass over the trace opens its own pal_reader, so iterations and
 * column reads are independent and may interleave. */
/* Built by make (config.h) or by pip (python/setup.py, which defines
 * PACKAGE_VERSION, and PAL_PY_NO_NUMPY when the environment it builds in has
 * no numpy: records then iterate, and columns/to_pandas say what is missing).
 * numpy is imported when columns are first asked for, not at import. */
#ifdef HAVE_CONFIG_H
#include <config.h>
#endif

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#ifndef PAL_PY_NO_NUMPY
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#endif

#include <math.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pal.h>
#ifdef PAL_PY_WAITS
#include "views/synth.h"
#include "views/waits.h"
#endif

static PyObject *pal_error;           /* pal.Error */

/* ---------------- errors ---------------- */

static const char *status_name(pal_status st)
{
    static const char *const names[] = {
        "PAL_OK", "PAL_END", "PAL_ENOFIELD", "PAL_ETYPE", "PAL_ERANGE", "PAL_EIO",
        "PAL_EFORMAT", "PAL_ENODICT", "PAL_ENOMEM", "PAL_EINVAL", "PAL_EUNDEF"};
    return (unsigned)st < sizeof names / sizeof names[0] ? names[st] : "PAL_E?";
}

/* Raises pal.Error(message) with .status = "PAL_E..." (MemoryError for
 * PAL_ENOMEM); returns NULL. */
static PyObject *raise_status(pal_status st, const char *message)
{
    if (st == PAL_ENOMEM)
        return PyErr_NoMemory();
    PyObject *exc = PyObject_CallFunction(pal_error, "s", message && *message ? message
                                                              : pal_status_string(st));
    if (!exc)
        return NULL;
    PyObject *name = PyUnicode_FromString(status_name(st));
    if (name) {
        PyObject_SetAttrString(exc, "status", name);
        Py_DECREF(name);
    }
    PyErr_SetObject(pal_error, exc);
    Py_DECREF(exc);
    return NULL;
}

/* ---------------- Trace ---------------- */

typedef struct {
    PyObject_HEAD
    char **paths;                 /* owned copies */
    size_t npaths;
    char *dict_path;              /* NULL: the embedded dictionary */
    unsigned flags;               /* PAL_OPEN_FORCE */
    int strict;
    pal_reader *reader;           /* opened at pal.open: dictionary and header */
    int64_t start_ns;             /* pal_reader_start_ns: times are seconds from it */
    pal_reader_stats stats;       /* of the last pass read to its end */
    int have_stats;
} TraceObject;

static PyTypeObject TraceType, RecordType, IterType;

static pal_reader *trace_open_reader(TraceObject *t)
{
    pal_reader *r = NULL;
    pal_status st;
    Py_BEGIN_ALLOW_THREADS
    st = pal_reader_open_run((const char *const *)t->paths, t->npaths, t->dict_path, t->flags,
                             &r);
    Py_END_ALLOW_THREADS
    if (st != PAL_OK) {
        raise_status(st, pal_last_error());
        return NULL;
    }
    pal_reader_set_strict(r, t->strict);
    return r;
}

/* Ends a pass: PAL_END keeps the reader's statistics as the trace's; an
 * error raises. Returns 0, or -1 with an exception set. */
static int trace_end_pass(TraceObject *t, pal_reader *r, pal_status st)
{
    if (st != PAL_END) {
        raise_status(st, pal_reader_error(r));
        return -1;
    }
    pal_reader_get_stats(r, &t->stats);
    t->have_stats = 1;
    return 0;
}

static char *dup_path(PyObject *o)
{
    PyObject *b = NULL;
    if (!PyUnicode_FSConverter(o, &b))
        return NULL;
    char *s = strdup(PyBytes_AS_STRING(b));
    Py_DECREF(b);
    if (!s)
        PyErr_NoMemory();
    return s;
}

static void trace_free_paths(TraceObject *t)
{
    for (size_t i = 0; i < t->npaths; i++)
        free(t->paths[i]);
    free(t->paths);
    free(t->dict_path);
    t->paths = NULL;
    t->npaths = 0;
    t->dict_path = NULL;
}

static void trace_dealloc(TraceObject *t)
{
    pal_reader_close(t->reader);
    trace_free_paths(t);
    Py_TYPE(t)->tp_free((PyObject *)t);
}

/* pal.open(path, dictionary=None, force=False, strict=False) */
static PyObject *pal_open(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"path", "dictionary", "force", "strict", NULL};
    PyObject *path, *dict = Py_None;
    int force = 0, strict = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Opp:open", kwlist, &path, &dict, &force,
                                     &strict))
        return NULL;
    TraceObject *t = PyObject_New(TraceObject, &TraceType);
    if (!t)
        return NULL;
    t->paths = NULL;
    t->npaths = 0;
    t->dict_path = NULL;
    t->reader = NULL;
    t->have_stats = 0;
    t->flags = force ? PAL_OPEN_FORCE : 0;
    t->strict = strict;
    memset(&t->stats, 0, sizeof t->stats);
    /* one path, or a list or tuple of them (the per-rank traces of a run) */
    if (PyList_Check(path) || PyTuple_Check(path)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(path);
        if (n == 0) {
            PyErr_SetString(PyExc_ValueError, "pal.open: no trace given (empty list)");
            goto fail;
        }
        t->paths = calloc((size_t)n, sizeof *t->paths);
        if (!t->paths) {
            PyErr_NoMemory();
            goto fail;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            if (!(t->paths[i] = dup_path(PySequence_Fast_GET_ITEM(path, i))))
                goto fail;
            t->npaths++;
        }
    } else {
        t->paths = calloc(1, sizeof *t->paths);
        if (!t->paths) {
            PyErr_NoMemory();
            goto fail;
        }
        if (!(t->paths[0] = dup_path(path)))
            goto fail;
        t->npaths = 1;
    }
    if (dict != Py_None && !(t->dict_path = dup_path(dict)))
        goto fail;
    if (!(t->reader = trace_open_reader(t)))
        goto fail;
    t->start_ns = pal_reader_start_ns(t->reader);
    return (PyObject *)t;
fail:
    Py_DECREF(t);
    return NULL;
}

static int dict_set(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static int is_key_field(const pal_dict *d, size_t i)
{
    const pal_bindinfo *b = pal_dict_bindinfo(d);
    for (unsigned k = 0; k < pal_bindinfo_key_count(b); k++)
        if (pal_bindinfo_key_index(b, k) == i)
            return 1;
    return 0;
}

static int list_append_str(PyObject *list, const char *s)
{
    PyObject *v = PyUnicode_FromString(s);
    int rc = v ? PyList_Append(list, v) : -1;
    Py_XDECREF(v);
    return rc;
}

static int trace_check(TraceObject *t)
{
    if (!t->reader) {
        PyErr_SetString(PyExc_ValueError, "pal: operation on a closed trace");
        return -1;
    }
    return 0;
}

/* The record descriptor a type name (str) names; NULL with KeyError when the
 * dictionary has none. */
static const pal_recdesc *trace_recdesc(TraceObject *t, PyObject *arg)
{
    if (trace_check(t) < 0)
        return NULL;
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name)
        return NULL;
    const pal_recdesc *rd = pal_dict_find_record(pal_reader_dict(t->reader), name);
    if (!rd)
        PyErr_Format(PyExc_KeyError, "trace has no record type '%s' (see Trace.types())", name);
    return rd;
}

static PyObject *trace_close(TraceObject *t, PyObject *unused)
{
    pal_reader_close(t->reader);
    t->reader = NULL;
    Py_RETURN_NONE;
}

static PyObject *trace_enter(TraceObject *t, PyObject *unused)
{
    if (trace_check(t) < 0)
        return NULL;
    Py_INCREF(t);
    return (PyObject *)t;
}

static PyObject *trace_exit(TraceObject *t, PyObject *args)
{
    return trace_close(t, NULL);
}

/* types(role=None): the record type names of the dictionary, in its order;
 * with a record role ("enter", "send", ...), those that have it */
static PyObject *trace_types(TraceObject *t, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"role", NULL};
    const char *role_name = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|z:types", kwlist, &role_name))
        return NULL;
    if (trace_check(t) < 0)
        return NULL;
    const pal_dict *d = pal_reader_dict(t->reader);
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    if (role_name) {
        pal_record_role role = pal_record_role_by_name(role_name);
        if (role == PAL_ROLE_NONE) {
            Py_DECREF(list);
            return PyErr_Format(PyExc_ValueError, "unknown record role '%s' (doc/edl.md, "
                                "\"Roles\": enter, leave, call, send, ...)", role_name);
        }
        for (const pal_recdesc *rd = pal_dict_find_role(d, role, NULL); rd;
             rd = pal_dict_find_role(d, role, rd)) {
            if (list_append_str(list, pal_recdesc_name(rd)) < 0) {
                Py_DECREF(list);
                return NULL;
            }
        }
        return list;
    }
    for (size_t i = 0; i < pal_dict_record_count(d); i++)
        if (list_append_str(list, pal_recdesc_name(pal_dict_record(d, i))) < 0) {
            Py_DECREF(list);
            return NULL;
        }
    return list;
}

static PyObject *str_or_none(const char *s)
{
    if (s && *s)
        return PyUnicode_FromString(s);
    Py_RETURN_NONE;
}

/* describe(type_name): what the description says of a record type -- its
 * roles, the region it names by text, and each field's type, unit,
 * description, role and reference */
static PyObject *trace_describe(TraceObject *t, PyObject *arg)
{
    const pal_recdesc *rd = trace_recdesc(t, arg);
    if (!rd)
        return NULL;
    PyObject *roles = PyList_New(0), *cond = PyList_New(0), *fields = PyDict_New(), *r = NULL;
    if (!roles || !cond || !fields)
        goto out;
    for (int code = 1; code < PAL_ROLE_LIMIT; code++) {
        const char *rn = pal_record_role_name((pal_record_role)code);
        int has = rn ? pal_recdesc_has_role(rd, (pal_record_role)code) : 0;
        if (!has)
            continue;
        if (list_append_str(has == 1 ? roles : cond, rn) < 0)
            goto out;
    }
    for (size_t i = 0; i < pal_recdesc_field_count(rd); i++) {
        const pal_fielddesc *f = pal_recdesc_field(rd, i);
        const char *rec, *fld;
        int global = 0;
        PyObject *ref;
        if (pal_field_reference(f, &rec, &fld, &global) == PAL_OK)
            ref = PyUnicode_FromFormat("%s.%s", rec, fld);
        else {
            ref = Py_None;
            Py_INCREF(ref);
        }
        PyObject *fd = PyDict_New();
        if (!fd || dict_set(fd, "type", PyUnicode_FromString(pal_field_type_name(f))) < 0 ||
            dict_set(fd, "unit", str_or_none(pal_field_unit(f))) < 0 ||
            dict_set(fd, "description", str_or_none(pal_field_description(f))) < 0 ||
            dict_set(fd, "role", str_or_none(pal_field_role_name(pal_field_role_of(f)))) < 0 ||
            dict_set(fd, "refers_to", ref) < 0 ||
            dict_set(fd, "global", PyBool_FromLong(global)) < 0 ||
            dict_set(fd, "key", PyBool_FromLong(is_key_field(pal_reader_dict(t->reader), i))) < 0 ||
            PyDict_SetItemString(fields, pal_field_name(f), fd) < 0) {
            Py_XDECREF(fd);
            goto out;
        }
        Py_DECREF(fd);
    }
    r = PyDict_New();
    if (r && (dict_set(r, "name", PyUnicode_FromString(pal_recdesc_name(rd))) < 0 ||
              dict_set(r, "description", str_or_none(pal_recdesc_description(rd))) < 0 ||
              PyDict_SetItemString(r, "roles", roles) < 0 ||
              PyDict_SetItemString(r, "conditional_roles", cond) < 0 ||
              dict_set(r, "region", str_or_none(pal_recdesc_region(rd))) < 0 ||
              PyDict_SetItemString(r, "fields", fields) < 0))
        Py_CLEAR(r);
out:
    Py_XDECREF(roles);
    Py_XDECREF(cond);
    Py_XDECREF(fields);
    return r;
}

/* fields(type_name): {field name: type name ("uint32", ..., "string", "array")} */
static PyObject *trace_fields(TraceObject *t, PyObject *arg)
{
    const pal_recdesc *rd = trace_recdesc(t, arg);
    if (!rd)
        return NULL;
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < pal_recdesc_field_count(rd); i++) {
        const pal_fielddesc *f = pal_recdesc_field(rd, i);
        if (dict_set(d, pal_field_name(f), PyUnicode_FromString(pal_field_type_name(f))) < 0)
            Py_CLEAR(d);
    }
    return d;
}

/* counts(): {type: records} of the types present -- pal-dump --count */
static PyObject *trace_counts(TraceObject *t, PyObject *unused)
{
    if (trace_check(t) < 0)
        return NULL;
    pal_reader *r = trace_open_reader(t);
    if (!r)
        return NULL;
    size_t cap = 64;
    uint64_t *count = calloc(cap, sizeof *count);
    const pal_record *rec;
    pal_status st = PAL_OK;
    PyObject *result = NULL;
    if (!count) {
        PyErr_NoMemory();
        goto out;
    }
    Py_BEGIN_ALLOW_THREADS
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        size_t i = pal_recdesc_index(pal_record_desc(rec));
        if (i >= cap) {
            size_t ncap = i * 2 + 1;
            uint64_t *c = realloc(count, ncap * sizeof *c);
            if (!c) {
                st = PAL_ENOMEM;
                break;
            }
            memset(c + cap, 0, (ncap - cap) * sizeof *c);
            count = c;
            cap = ncap;
        }
        count[i]++;
    }
    Py_END_ALLOW_THREADS
    if (trace_end_pass(t, r, st) < 0)
        goto out;
    result = PyDict_New();
    const pal_dict *d = pal_reader_dict(r);
    for (size_t i = 0; result && i < cap && i < pal_dict_record_count(d); i++) {
        if (!count[i])
            continue;
        if (dict_set(result, pal_recdesc_name(pal_dict_record(d, i)),
                     PyLong_FromUnsignedLongLong(count[i])) < 0)
            Py_CLEAR(result);
    }
out:
    free(count);
    pal_reader_close(r);
    return result;
}

/* info(): the header's clock and identity, and the counts of damage and loss
 * of the last whole pass (one is made if none was). */
static PyObject *trace_info(TraceObject *t, PyObject *unused)
{
    if (trace_check(t) < 0)
        return NULL;
    if (!t->have_stats) {
        PyObject *c = trace_counts(t, NULL);
        if (!c)
            return NULL;
        Py_DECREF(c);
    }
    pal_trace_info in;
    pal_status st = pal_reader_info(t->reader, &in);
    if (st != PAL_OK)
        return raise_status(st, pal_reader_error(t->reader));
    const pal_dict *d = pal_reader_dict(t->reader);
    static const char *const clocks[] = {"unknown", "monotonic", "cycle counter", "realtime"};
    const pal_reader_stats *s = &t->stats;
    PyObject *r = PyDict_New();
    if (!r ||
        dict_set(r, "format", PyUnicode_FromString(pal_dict_name(d))) < 0 ||
        dict_set(r, "format_version", PyUnicode_FromString(pal_dict_version(d))) < 0 ||
        dict_set(r, "representation", PyUnicode_FromString(pal_dict_representation(d))) < 0 ||
        dict_set(r, "ticks_per_second", PyFloat_FromDouble(in.ticks_per_second)) < 0 ||
        dict_set(r, "clock", PyUnicode_FromString(
            (unsigned)in.clock_source < 4 ? clocks[in.clock_source] : "unknown")) < 0 ||
        dict_set(r, "realtime_offset_ns", PyLong_FromLongLong(in.realtime_offset_ns)) < 0 ||
        dict_set(r, "host", PyUnicode_DecodeUTF8(in.host, (Py_ssize_t)strnlen(in.host,
                                                 sizeof in.host), "replace")) < 0 ||
        dict_set(r, "pid", PyLong_FromUnsignedLong(in.pid)) < 0 ||
        dict_set(r, "rank", PyLong_FromLong(in.rank)) < 0 ||
        dict_set(r, "ranks", PyLong_FromLong(in.size)) < 0 ||
        dict_set(r, "start_time", PyLong_FromUnsignedLongLong(in.start_time)) < 0 ||
        dict_set(r, "records", PyLong_FromUnsignedLongLong(s->records)) < 0 ||
        dict_set(r, "chunks", PyLong_FromUnsignedLongLong(s->chunks)) < 0 ||
        dict_set(r, "damaged", PyLong_FromUnsignedLongLong(s->damaged)) < 0 ||
        dict_set(r, "bytes_skipped", PyLong_FromUnsignedLongLong(s->bytes_skipped)) < 0 ||
        dict_set(r, "truncated", PyBool_FromLong(s->truncated)) < 0 ||
        dict_set(r, "files", PyLong_FromUnsignedLong(s->files)) < 0 ||
        dict_set(r, "not_closed", PyLong_FromUnsignedLong(s->not_closed)) < 0 ||
        dict_set(r, "signaled", PyLong_FromUnsignedLong(s->signaled)) < 0 ||
        dict_set(r, "chunks_missing", PyLong_FromUnsignedLongLong(s->chunks_missing)) < 0 ||
        dict_set(r, "lost", PyLong_FromUnsignedLongLong(s->lost)) < 0 ||
        dict_set(r, "ranks_missing", PyLong_FromUnsignedLong(s->ranks_missing)) < 0 ||
        dict_set(r, "clock_fallbacks", PyLong_FromUnsignedLong(s->clock_fallbacks)) < 0)
        Py_CLEAR(r);
    return r;
}

static PyObject *trace_repr(TraceObject *t)
{
    if (!t->npaths)
        return PyUnicode_FromString("<pal.Trace>");
    return PyUnicode_FromFormat("<pal.Trace '%s'%s%s>", t->paths[0],
                                t->npaths > 1 ? " (a run)" : "", t->reader ? "" : " closed");
}

/* ---------------- field plans: how each field of a type is read ---------------- */

enum col_kind {
    K_INT,        /* signed integer, by pal_record_i64, stored as its own width */
    K_UINT,       /* unsigned integer, by pal_record_u64 */
    K_FLOAT,      /* float32/float64, by pal_record_f64 */
    K_NAME,       /* a reference resolved to its name (categorical codes) */
    K_STRING,     /* str (object) */
    K_ARRAY       /* list of items (object) */
};

typedef struct field_plan {
    size_t index;                 /* in the record descriptor */
    const char *name;             /* the column's name */
    pal_type type;
    enum col_kind kind;
    const pal_handle *h;
    int is_ref;
} field_plan;

/* The fields a record type shows, as pal-dump shows them: every field but
 * the time field and the bind keys -- except a key that has a role (PICL's
 * user event number is the region of its begin and end records). */
static int shown_field(const pal_dict *d, const pal_recdesc *rd, size_t i)
{
    pal_field_role role = pal_field_role_of(pal_recdesc_field(rd, i));
    if (role == PAL_FROLE_TIMESTAMP)
        return 0;
    return !is_key_field(d, i) || role != PAL_FROLE_NONE;
}

/* Plans the shown fields of rd for reader r; resolve: references become
 * names. Returns the number of plans (in *out, freed by the caller) or -1
 * with an exception set. */
static Py_ssize_t plan_fields(pal_reader *r, const pal_recdesc *rd, int resolve,
                              field_plan **out)
{
    const pal_dict *d = pal_reader_dict(r);
    size_t nf = pal_recdesc_field_count(rd), n = 0;
    field_plan *p = calloc(nf ? nf : 1, sizeof *p);
    if (!p) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < nf; i++) {
        if (!shown_field(d, rd, i))
            continue;
        const pal_fielddesc *f = pal_recdesc_field(rd, i);
        field_plan *fp = &p[n++];
        fp->index = i;
        fp->name = pal_field_name(f);
        fp->type = pal_field_type(f);
        fp->is_ref = pal_field_reference(f, NULL, NULL, NULL) == PAL_OK;
        pal_status st = pal_reader_handle(r, fp->name, &fp->h);
        if (st != PAL_OK) {
            free(p);
            raise_status(st, pal_reader_error(r));
            return -1;
        }
        switch (fp->type) {
        case PAL_INT8: case PAL_INT16: case PAL_INT32: case PAL_INT64:
            fp->kind = K_INT;
            break;
        case PAL_UINT8: case PAL_UINT16: case PAL_UINT32: case PAL_UINT64:
            fp->kind = K_UINT;
            break;
        case PAL_FLOAT32: case PAL_FLOAT64:
            fp->kind = K_FLOAT;
            break;
        case PAL_STRING:
            fp->kind = K_STRING;
            break;
        default:
            fp->kind = K_ARRAY;
            break;
        }
        if ((fp->kind == K_INT || fp->kind == K_UINT) && fp->is_ref && resolve)
            fp->kind = K_NAME;
    }
    *out = p;
    return (Py_ssize_t)n;
}

static PyObject *decode_str(const char *s, size_t len)
{
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)len, "surrogateescape");
}

/* A field's value as a Python object: int, float, str, a list for arrays
 * (tuples for items of several components), None when absent. */
static PyObject *field_value(const pal_record *rec, const field_plan *fp)
{
    if (!pal_record_present(rec, fp->index))
        Py_RETURN_NONE;
    pal_status st = PAL_OK;
    switch (fp->kind) {
    case K_INT: case K_NAME: {
        int64_t v;
        if ((st = pal_record_i64(rec, fp->h, &v)) == PAL_OK)
            return PyLong_FromLongLong(v);
        break;
    }
    case K_UINT: {
        uint64_t v;
        if ((st = pal_record_u64(rec, fp->h, &v)) == PAL_OK)
            return PyLong_FromUnsignedLongLong(v);
        break;
    }
    case K_FLOAT: {
        double v;
        if ((st = pal_record_f64(rec, fp->h, &v)) == PAL_OK)
            return PyFloat_FromDouble(v);
        break;
    }
    case K_STRING: {
        const char *s;
        size_t len;
        if ((st = pal_record_str(rec, fp->h, &s, &len)) == PAL_OK)
            return decode_str(s, len);
        break;
    }
    case K_ARRAY: {
        size_t n, nc = 1;
        if ((st = pal_record_count(rec, fp->h, &n)) != PAL_OK)
            break;
        pal_record_get_components(rec, fp->name, &nc);
        PyObject *list = PyList_New((Py_ssize_t)n);
        for (size_t i = 0; list && i < n; i++) {
            PyObject *item = nc == 1 ? NULL : PyTuple_New((Py_ssize_t)nc);
            for (size_t c = 0; c < nc; c++) {
                PyObject *v = NULL;
                switch (pal_record_item_type(rec, fp->index, c)) {
                case PAL_FLOAT32: case PAL_FLOAT64: {
                    double x = 0;
                    pal_record_item_f64(rec, fp->h, i, c, &x);
                    v = PyFloat_FromDouble(x);
                    break;
                }
                case PAL_STRING: {
                    const char *s = "";
                    size_t len = 0;
                    pal_record_item_str(rec, fp->h, i, c, &s, &len);
                    v = decode_str(s, len);
                    break;
                }
                case PAL_UINT64: {
                    uint64_t x = 0;
                    pal_record_item_u64(rec, fp->h, i, c, &x);
                    v = PyLong_FromUnsignedLongLong(x);
                    break;
                }
                default: {
                    int64_t x = 0;
                    pal_record_item_i64(rec, fp->h, i, c, &x);
                    v = PyLong_FromLongLong(x);
                    break;
                }
                }
                if (nc == 1)
                    item = v;
                else if (item && v)
                    PyTuple_SET_ITEM(item, (Py_ssize_t)c, v);
                else
                    Py_XDECREF(v);
            }
            if (!item) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
        }
        return list;
    }
    }
    if (st == PAL_ENOFIELD)
        Py_RETURN_NONE;
    return raise_status(st, "cannot read field");
}

/* ---------------- Record ---------------- */

/* What records of one type share: their type name and field names. */
typedef struct type_info {
    PyObject *name;               /* str */
    PyObject *index;              /* {field name: position} */
    field_plan *plans;
    Py_ssize_t nplans;
    int has_time;
} type_info;

typedef struct {
    PyObject_HEAD
    PyObject *type;               /* str */
    double time;                  /* seconds from the start; NaN without a time field */
    uint32_t process, stream;
    PyObject *index;              /* shared {field: position} */
    PyObject *values;             /* tuple */
    PyObject *names;              /* tuple: the name a reference resolves to, or None */
} RecordObject;

static void record_dealloc(RecordObject *r)
{
    Py_XDECREF(r->type);
    Py_XDECREF(r->index);
    Py_XDECREF(r->values);
    Py_XDECREF(r->names);
    Py_TYPE(r)->tp_free((PyObject *)r);
}

static Py_ssize_t record_position(RecordObject *r, PyObject *key, int raise)
{
    PyObject *pos = PyDict_GetItemWithError(r->index, key);
    if (!pos) {
        if (!PyErr_Occurred() && raise)
            PyErr_Format(PyExc_KeyError, "record '%U' has no field %R", r->type, key);
        return -1;
    }
    return PyLong_AsSsize_t(pos);
}

/* The item of a record's values or names tuple for field key (KeyError). */
static PyObject *record_at(RecordObject *r, PyObject *tuple, PyObject *key)
{
    Py_ssize_t i = record_position(r, key, 1);
    if (i < 0)
        return NULL;
    PyObject *v = PyTuple_GET_ITEM(tuple, i);
    Py_INCREF(v);
    return v;
}

static PyObject *record_getitem(RecordObject *r, PyObject *key)
{
    return record_at(r, r->values, key);
}

static Py_ssize_t record_len(RecordObject *r)
{
    return PyTuple_GET_SIZE(r->values);
}

/* attributes: type, time, process, stream, then the fields by name */
static PyObject *record_getattro(RecordObject *r, PyObject *name)
{
    PyObject *v = PyObject_GenericGetAttr((PyObject *)r, name);
    if (v || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return v;
    PyErr_Clear();
    Py_ssize_t i = record_position(r, name, 0);
    if (i < 0) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_AttributeError, "record '%U' has no field '%U'", r->type, name);
        return NULL;
    }
    v = PyTuple_GET_ITEM(r->values, i);
    Py_INCREF(v);
    return v;
}

static PyObject *record_keys(RecordObject *r, PyObject *unused)
{
    return PyDict_Keys(r->index);
}

static PyObject *record_get(RecordObject *r, PyObject *args)
{
    PyObject *key, *dflt = Py_None;
    if (!PyArg_ParseTuple(args, "O|O:get", &key, &dflt))
        return NULL;
    Py_ssize_t i = record_position(r, key, 0);
    if (i < 0) {
        if (PyErr_Occurred())
            return NULL;
        Py_INCREF(dflt);
        return dflt;
    }
    PyObject *v = PyTuple_GET_ITEM(r->values, i);
    Py_INCREF(v);
    return v;
}

/* name(field): the name the id in a reference field resolves to (region 4 ->
 * "compute"), None when the field is no reference or the id is undefined */
static PyObject *record_name(RecordObject *r, PyObject *key)
{
    return record_at(r, r->names, key);
}

/* as_dict(resolve=False): {field: value}, references as names with resolve */
static PyObject *record_as_dict(RecordObject *r, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"resolve", NULL};
    int resolve = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p:as_dict", kwlist, &resolve))
        return NULL;
    PyObject *d = PyDict_New(), *key, *pos;
    Py_ssize_t it = 0;
    while (d && PyDict_Next(r->index, &it, &key, &pos)) {
        Py_ssize_t i = PyLong_AsSsize_t(pos);
        PyObject *v = PyTuple_GET_ITEM(r->names, i);
        if (!resolve || v == Py_None)
            v = PyTuple_GET_ITEM(r->values, i);
        if (PyDict_SetItem(d, key, v) < 0)
            Py_CLEAR(d);
    }
    return d;
}

static PyObject *record_repr(RecordObject *r)
{
    PyObject *fields = PyUnicode_FromString(""), *key, *pos;
    Py_ssize_t it = 0;
    while (fields && PyDict_Next(r->index, &it, &key, &pos)) {
        Py_ssize_t i = PyLong_AsSsize_t(pos);
        PyObject *v = PyTuple_GET_ITEM(r->names, i);
        if (v == Py_None)
            v = PyTuple_GET_ITEM(r->values, i);
        PyObject *s = PyUnicode_FromFormat("%U %U=%R", fields, key, v);
        Py_DECREF(fields);
        fields = s;
    }
    if (!fields)
        return NULL;
    char t[32];
    snprintf(t, sizeof t, "%.9f", r->time);
    PyObject *s = PyUnicode_FromFormat("<pal.Record %s p%u s%u %U%U>", t, (unsigned)r->process,
                                       (unsigned)r->stream, r->type, fields);
    Py_DECREF(fields);
    return s;
}

static PyObject *record_get_time(RecordObject *r, void *unused)
{
    return PyFloat_FromDouble(r->time);
}

static PyObject *record_get_process(RecordObject *r, void *unused)
{
    return PyLong_FromUnsignedLong(r->process);
}

static PyObject *record_get_stream(RecordObject *r, void *unused)
{
    return PyLong_FromUnsignedLong(r->stream);
}

static PyObject *record_get_type(RecordObject *r, void *unused)
{
    Py_INCREF(r->type);
    return r->type;
}

static PyGetSetDef record_getset[] = {
    {"type", (getter)record_get_type, NULL, "the record type's name", NULL},
    {"time", (getter)record_get_time, NULL,
     "seconds from the start of the trace or run (NaN: the type has no time field)", NULL},
    {"process", (getter)record_get_process, NULL, "the record's process (rank)", NULL},
    {"stream", (getter)record_get_stream, NULL, "the record's stream (thread)", NULL},
    {NULL, NULL, NULL, NULL, NULL}
};

static PyMethodDef record_methods[] = {
    {"keys", (PyCFunction)record_keys, METH_NOARGS, "the field names"},
    {"get", (PyCFunction)record_get, METH_VARARGS, "get(field, default=None)"},
    {"name", (PyCFunction)record_name, METH_O,
     "name(field): the name a reference field's id resolves to, or None"},
    {"as_dict", (PyCFunction)(void (*)(void))record_as_dict, METH_VARARGS | METH_KEYWORDS,
     "as_dict(resolve=False): the fields as a dict; resolve: references as names"},
    {NULL, NULL, 0, NULL}
};

static PyMappingMethods record_mapping = {
    (lenfunc)record_len, (binaryfunc)record_getitem, NULL
};

/* ---------------- iteration ---------------- */

typedef struct {
    PyObject_HEAD
    TraceObject *trace;
    pal_reader *r;
    pal_names *names;
    type_info *types;             /* by record descriptor index */
    size_t ntypes;
} IterObject;

static void iter_free_types(IterObject *it)
{
    for (size_t i = 0; i < it->ntypes; i++) {
        Py_XDECREF(it->types[i].name);
        Py_XDECREF(it->types[i].index);
        free(it->types[i].plans);
    }
    free(it->types);
    it->types = NULL;
    it->ntypes = 0;
}

static void iter_dealloc(IterObject *it)
{
    iter_free_types(it);
    pal_names_destroy(it->names);
    pal_reader_close(it->r);
    Py_XDECREF(it->trace);
    Py_TYPE(it)->tp_free((PyObject *)it);
}

static PyObject *trace_iter(TraceObject *t)
{
    if (trace_check(t) < 0)
        return NULL;
    IterObject *it = PyObject_New(IterObject, &IterType);
    if (!it)
        return NULL;
    it->trace = t;
    Py_INCREF(t);
    it->names = NULL;
    it->types = NULL;
    it->ntypes = 0;
    if (!(it->r = trace_open_reader(t))) {
        Py_DECREF(it);
        return NULL;
    }
    if (pal_names_create(&it->names) != PAL_OK) {
        Py_DECREF(it);
        return PyErr_NoMemory();
    }
    return (PyObject *)it;
}

static type_info *iter_type(IterObject *it, const pal_recdesc *rd)
{
    size_t i = pal_recdesc_index(rd);
    if (i >= it->ntypes) {
        size_t n = i + 16;
        type_info *t = realloc(it->types, n * sizeof *t);
        if (!t) {
            PyErr_NoMemory();
            return NULL;
        }
        memset(t + it->ntypes, 0, (n - it->ntypes) * sizeof *t);
        it->types = t;
        it->ntypes = n;
    }
    type_info *ti = &it->types[i];
    if (ti->name)
        return ti;
    if ((ti->nplans = plan_fields(it->r, rd, 0, &ti->plans)) < 0)
        return NULL;
    ti->has_time = pal_recdesc_role_field(rd, PAL_FROLE_TIMESTAMP) != NULL;
    ti->index = PyDict_New();
    for (Py_ssize_t k = 0; ti->index && k < ti->nplans; k++) {
        PyObject *pos = PyLong_FromSsize_t(k);
        if (!pos || PyDict_SetItemString(ti->index, ti->plans[k].name, pos) < 0)
            Py_CLEAR(ti->index);
        Py_XDECREF(pos);
    }
    if (ti->index)
        ti->name = PyUnicode_FromString(pal_recdesc_name(rd));
    if (!ti->name) {
        Py_CLEAR(ti->index);
        free(ti->plans);
        ti->plans = NULL;
        return NULL;
    }
    return ti;
}

static PyObject *iter_next(IterObject *it)
{
    if (!it->r)
        return NULL;
    const pal_record *rec;
    pal_status st = pal_reader_next(it->r, &rec);
    if (st != PAL_OK) {
        trace_end_pass(it->trace, it->r, st);   /* StopIteration, or the error */
        pal_reader_close(it->r);
        it->r = NULL;
        return NULL;
    }
    if (pal_names_add(it->names, rec) != PAL_OK)
        return PyErr_NoMemory();
    type_info *ti = iter_type(it, pal_record_desc(rec));
    if (!ti)
        return NULL;
    RecordObject *r = PyObject_New(RecordObject, &RecordType);
    if (!r)
        return NULL;
    r->type = ti->name;
    Py_INCREF(r->type);
    r->index = ti->index;
    Py_INCREF(r->index);
    r->time = ti->has_time ? (double)(pal_record_time_ns(rec) - it->trace->start_ns) / 1e9 : NAN;
    r->process = pal_record_process(rec);
    r->stream = pal_record_stream(rec);
    r->values = PyTuple_New(ti->nplans);
    r->names = PyTuple_New(ti->nplans);
    if (!r->values || !r->names) {
        Py_DECREF(r);
        return NULL;
    }
    for (Py_ssize_t k = 0; k < ti->nplans; k++) {
        const field_plan *fp = &ti->plans[k];
        PyObject *v = field_value(rec, fp);
        if (!v) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r->values, k, v);
        PyObject *name = NULL;
        const char *s;
        size_t len;
        if (fp->is_ref && pal_names_field(it->names, rec, fp->index, &s, &len) == PAL_OK)
            name = decode_str(s, len);
        else {
            name = Py_None;
            Py_INCREF(name);
        }
        if (!name) {
            Py_DECREF(r);
            return NULL;
        }
        PyTuple_SET_ITEM(r->names, k, name);
    }
    return (PyObject *)r;
}

/* ---------------- columns: one type's fields into numpy arrays ---------------- */
#ifndef PAL_PY_NO_NUMPY

/* Imports module for Trace.what, or raises an ImportError that says that
 * what needs it (the import's own error as its cause); NULL then. */
static PyObject *import_for(const char *module, const char *what)
{
    PyObject *m = PyImport_ImportModule(module);
    if (m)
        return m;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    PyErr_Format(PyExc_ImportError, "pal: Trace.%s needs %s, which this Python cannot import "
                 "(pip install %s; iterating records needs neither numpy nor pandas)",
                 what, module, module);
    PyObject *type2, *value2, *tb2;
    PyErr_Fetch(&type2, &value2, &tb2);
    PyErr_NormalizeException(&type2, &value2, &tb2);
    PyException_SetCause(value2, value);   /* steals value */
    Py_XDECREF(type);
    Py_XDECREF(tb);
    PyErr_Restore(type2, value2, tb2);
    return NULL;
}

/* numpy's C API, loaded on first use: 0, or -1 with an ImportError set. */
static int need_numpy(const char *what)
{
    if (PyArray_API)
        return 0;
    PyObject *np = import_for("numpy", what);
    if (!np)
        return -1;
    Py_DECREF(np);
    if (_import_array() < 0) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_Format(PyExc_ImportError, "pal: Trace.%s: the numpy this Python imports does not "
                     "match the numpy pal was built with (rebuild: pip install --no-build-isolation "
                     "ECL's python/ in this environment)", what);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return -1;
    }
    return 0;
}

/* A growing column. Numeric values go into data; str and list values into
 * objs (references owned); names into codes with their own table. */
typedef struct column {
    const field_plan *fp;         /* NULL: a designation column */
    enum { D_NONE, D_TIME, D_PROCESS, D_STREAM } designation;
    const char *name;
    int npy;                      /* numpy type number */
    size_t esize;
    char *data;
    PyObject **objs;
    uint8_t *missing;             /* allocated at the first missing value */
    size_t nmissing;
    /* K_NAME: distinct names, by the pointer pal_names hands out (stable
     * while the table lives) or by the id when it is undefined */
    struct name_slot { uintptr_t key; int undefined; int32_t code; } *slots;
    size_t nslots, nnames;
    struct name_entry { const char *s; size_t len; int64_t id; int undefined; } *names;
    /* recent (process, id) -> code, valid while no definition came since */
    struct name_cache { uint64_t gen; int64_t id; uint32_t process; int32_t code; } cache[64];
} column;

typedef struct columns {
    column *c;
    size_t nc;
    size_t n, cap;                /* rows */
    uint64_t gen;                 /* definitions fed to the names table, + 1 */
} columns;

static int npy_of(pal_type t)
{
    switch (t) {
    case PAL_INT8: return NPY_INT8;
    case PAL_INT16: return NPY_INT16;
    case PAL_INT32: return NPY_INT32;
    case PAL_INT64: return NPY_INT64;
    case PAL_UINT8: return NPY_UINT8;
    case PAL_UINT16: return NPY_UINT16;
    case PAL_UINT32: return NPY_UINT32;
    case PAL_UINT64: return NPY_UINT64;
    case PAL_FLOAT32: return NPY_FLOAT32;
    default: return NPY_FLOAT64;
    }
}

static size_t npy_size(int npy)
{
    switch (npy) {
    case NPY_INT8: case NPY_UINT8: return 1;
    case NPY_INT16: case NPY_UINT16: return 2;
    case NPY_INT32: case NPY_UINT32: case NPY_FLOAT32: return 4;
    case NPY_OBJECT: return sizeof(PyObject *);
    default: return 8;
    }
}

static void columns_free(columns *cs)
{
    for (size_t i = 0; i < cs->nc; i++) {
        column *c = &cs->c[i];
        if (c->objs)
            for (size_t k = 0; k < cs->n; k++)
                Py_XDECREF(c->objs[k]);
        free(c->objs);
        free(c->data);
        free(c->missing);
        free(c->slots);
        free(c->names);
    }
    free(cs->c);
}

/* Column buffers: large ones on 2 MiB boundaries with transparent huge pages
 * asked for (numpy does the same for its large arrays), so that filling
 * 100 MB of columns costs a few hundred page faults rather than 25,000 --
 * on a VM a fault costs tens of microseconds, more than decoding the
 * records. Freed with free(). */
#define HUGE_ALIGN ((size_t)2 << 20)
static void *col_alloc(size_t size)
{
    void *p = NULL;
    if (size < 2 * HUGE_ALIGN)
        return malloc(size ? size : 1);
    if (posix_memalign(&p, HUGE_ALIGN, size) != 0)
        return NULL;
#ifdef MADV_HUGEPAGE
    madvise(p, size, MADV_HUGEPAGE);
#endif
    return p;
}

static void *col_grow(void *old, size_t used, size_t size)
{
    if (size < 2 * HUGE_ALIGN)
        return realloc(old, size);
    void *p = col_alloc(size);
    if (!p)
        return NULL;
    if (used)
        memcpy(p, old, used);
    free(old);
    return p;
}

static int columns_grow(columns *cs)
{
    size_t cap = cs->cap ? cs->cap * 2 : 4096;
    for (size_t i = 0; i < cs->nc; i++) {
        column *c = &cs->c[i];
        if (c->npy == NPY_OBJECT) {
            PyObject **o = col_grow(c->objs, cs->n * sizeof *o, cap * sizeof *o);
            if (!o)
                return -1;
            c->objs = o;
        } else {
            char *d = col_grow(c->data, cs->n * c->esize, cap * c->esize);
            if (!d)
                return -1;
            c->data = d;
        }
        if (c->missing) {
            uint8_t *m = realloc(c->missing, cap);
            if (!m)
                return -1;
            memset(m + cs->cap, 0, cap - cs->cap);
            c->missing = m;
        }
    }
    cs->cap = cap;
    return 0;
}

static int column_set_missing(column *c, size_t row, size_t cap)
{
    if (!c->missing && !(c->missing = calloc(cap ? cap : 1, 1)))
        return -1;
    c->missing[row] = 1;
    c->nmissing++;
    return 0;
}

static void store_int(column *c, size_t row, int64_t v)
{
    char *p = c->data + row * c->esize;
    switch (c->esize) {
    case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
    default: memcpy(p, &v, 8); break;
    }
}

static void store_float(column *c, size_t row, double v)
{
    char *p = c->data + row * c->esize;
    if (c->esize == 4) {
        float x = (float)v;
        memcpy(p, &x, 4);
    } else
        memcpy(p, &v, 8);
}

/* The code of the name a reference resolves to (or of the id, undefined). */
static int32_t column_name_code(column *c, const char *s, size_t len, int64_t id, int undefined)
{
    uintptr_t key = undefined ? (uintptr_t)id : (uintptr_t)s;
    if (c->nnames * 2 >= c->nslots) {
        size_t n = c->nslots ? c->nslots * 2 : 64;
        struct name_slot *sl = calloc(n, sizeof *sl);
        if (!sl)
            return -1;
        for (size_t i = 0; i < c->nslots; i++) {
            if (!c->slots[i].code)
                continue;
            uintptr_t k = c->slots[i].key;
            size_t h = (size_t)(k * 0x9E3779B97F4A7C15ull) & (n - 1);
            while (sl[h].code)
                h = (h + 1) & (n - 1);
            sl[h] = c->slots[i];
        }
        free(c->slots);
        c->slots = sl;
        c->nslots = n;
        struct name_entry *e = realloc(c->names, n / 2 * sizeof *e);
        if (!e)
            return -1;
        c->names = e;
    }
    size_t h = (size_t)(key * 0x9E3779B97F4A7C15ull) & (c->nslots - 1);
    while (c->slots[h].code) {           /* codes are stored + 1: 0 is empty */
        if (c->slots[h].key == key && c->slots[h].undefined == undefined)
            return c->slots[h].code - 1;
        h = (h + 1) & (c->nslots - 1);
    }
    int32_t code = (int32_t)c->nnames;
    c->names[c->nnames++] = (struct name_entry){s, len, id, undefined};
    c->slots[h] = (struct name_slot){key, undefined, code + 1};
    return code;
}

enum { STORE_OK = 0, STORE_NOMEM = -1, STORE_PYERR = -2 };

/* Appends rec's values to every column at row cs->n. */
static int columns_store(columns *cs, const pal_record *rec, const pal_names *names,
                         int64_t start_ns)
{
    size_t row = cs->n;
    for (size_t i = 0; i < cs->nc; i++) {
        column *c = &cs->c[i];
        const field_plan *fp = c->fp;
        if (!fp) {                        /* designations */
            if (c->designation == D_TIME)
                store_float(c, row, (double)(pal_record_time_ns(rec) - start_ns) / 1e9);
            else
                store_int(c, row, c->designation == D_PROCESS ? pal_record_process(rec)
                                                              : pal_record_stream(rec));
            continue;
        }
        pal_status st;
        switch (fp->kind) {
        case K_INT: {
            int64_t v = 0;
            st = pal_record_i64(rec, fp->h, &v);
            store_int(c, row, v);
            break;
        }
        case K_UINT: {
            uint64_t v = 0;
            st = pal_record_u64(rec, fp->h, &v);
            store_int(c, row, (int64_t)v);
            break;
        }
        case K_FLOAT: {
            double v = NAN;
            st = pal_record_f64(rec, fp->h, &v);
            store_float(c, row, v);
            break;
        }
        case K_NAME: {
            const char *s = NULL;
            size_t len = 0;
            int64_t id = 0;
            st = pal_record_i64(rec, fp->h, &id);
            int32_t code = -1;
            if (st == PAL_OK) {
                uint32_t proc = pal_record_process(rec);
                struct name_cache *nc = &c->cache[((uint64_t)id * 31u + proc) & 63u];
                if (nc->gen == cs->gen && nc->id == id && nc->process == proc)
                    code = nc->code;
                else {
                    pal_status ns = pal_names_field(names, rec, fp->index, &s, &len);
                    code = column_name_code(c, s, len, id, ns != PAL_OK);
                    if (code < 0)
                        return STORE_NOMEM;
                    *nc = (struct name_cache){cs->gen, id, proc, code};
                }
            }
            memcpy(c->data + row * 4, &code, 4);
            break;
        }
        default: {                        /* str, list: Python objects */
            PyObject *v = field_value(rec, fp);
            if (!v)
                return STORE_PYERR;
            st = v == Py_None ? PAL_ENOFIELD : PAL_OK;
            c->objs[row] = v;
            break;
        }
        }
        if (st != PAL_OK && c->npy != NPY_OBJECT && column_set_missing(c, row, cs->cap) < 0)
            return STORE_NOMEM;
    }
    cs->n++;
    return STORE_OK;
}

static void free_capsule(PyObject *cap)
{
    free(PyCapsule_GetPointer(cap, "pal.column"));
}

/* The column as a numpy array (its buffer handed over). Integers with
 * missing values become float64 with NaN. */
static PyObject *column_array(column *c, size_t n)
{
    npy_intp dims[1] = {(npy_intp)n};
    PyObject *a;
    if (c->npy == NPY_OBJECT) {
        a = PyArray_SimpleNew(1, dims, NPY_OBJECT);
        if (!a)
            return NULL;
        if (n)
            memcpy(PyArray_DATA((PyArrayObject *)a), c->objs, n * sizeof *c->objs);
        free(c->objs);               /* the references now belong to the array */
        c->objs = NULL;
        return a;
    }
    if (c->nmissing && c->npy != NPY_FLOAT32 && c->npy != NPY_FLOAT64 &&
        !(c->fp && c->fp->kind == K_NAME)) {
        a = PyArray_SimpleNew(1, dims, NPY_FLOAT64);
        if (!a)
            return NULL;
        double *out = PyArray_DATA((PyArrayObject *)a);
        int is_signed = c->fp->kind == K_INT;
        for (size_t i = 0; i < n; i++) {
            const char *p = c->data + i * c->esize;
            int64_t sv = 0;
            uint64_t uv = 0;
            switch (c->esize) {
            case 1: { int8_t x; uint8_t y; memcpy(&x, p, 1); memcpy(&y, p, 1); sv = x; uv = y; break; }
            case 2: { int16_t x; uint16_t y; memcpy(&x, p, 2); memcpy(&y, p, 2); sv = x; uv = y; break; }
            case 4: { int32_t x; uint32_t y; memcpy(&x, p, 4); memcpy(&y, p, 4); sv = x; uv = y; break; }
            default: memcpy(&sv, p, 8); memcpy(&uv, p, 8); break;
            }
            out[i] = c->missing[i] ? NAN : is_signed ? (double)sv : (double)uv;
        }
        return a;
    }
    if (c->nmissing && (c->npy == NPY_FLOAT32 || c->npy == NPY_FLOAT64))
        for (size_t i = 0; i < n; i++)
            if (c->missing[i])
                store_float(c, i, NAN);
    if (n == 0)
        return PyArray_SimpleNew(1, dims, c->npy);
    a = PyArray_SimpleNewFromData(1, dims, c->npy, c->data);
    if (!a)
        return NULL;
    PyObject *cap = PyCapsule_New(c->data, "pal.column", free_capsule);
    if (!cap) {
        Py_DECREF(a);
        return NULL;
    }
    c->data = NULL;                  /* the capsule owns it */
    if (PyArray_SetBaseObject((PyArrayObject *)a, cap) < 0) {
        Py_DECREF(a);
        return NULL;
    }
    return a;
}

/* The categories of a name column: a list of str, codes remapped so that
 * equal names (defined by several processes) share one. */
static PyObject *column_categories(column *c, PyObject *codes)
{
    PyObject *cats = PyList_New(0), *seen = PyDict_New();
    int32_t *map = malloc((c->nnames ? c->nnames : 1) * sizeof *map);
    if (!cats || !seen || !map)
        goto fail;
    for (size_t i = 0; i < c->nnames; i++) {
        const struct name_entry *e = &c->names[i];
        PyObject *s = e->undefined ? PyUnicode_FromFormat("%lld", (long long)e->id)
                                   : decode_str(e->s, e->len);
        if (!s)
            goto fail;
        PyObject *code = PyDict_GetItemWithError(seen, s);
        if (code)
            map[i] = (int32_t)PyLong_AsLong(code);
        else if (!PyErr_Occurred()) {
            map[i] = (int32_t)PyList_GET_SIZE(cats);
            code = PyLong_FromLong(map[i]);
            if (!code || PyDict_SetItem(seen, s, code) < 0 || PyList_Append(cats, s) < 0) {
                Py_XDECREF(code);
                Py_DECREF(s);
                goto fail;
            }
            Py_DECREF(code);
        }
        Py_DECREF(s);
        if (PyErr_Occurred())
            goto fail;
    }
    int32_t *v = PyArray_DATA((PyArrayObject *)codes);
    npy_intp n = PyArray_SIZE((PyArrayObject *)codes);
    for (npy_intp i = 0; i < n; i++)
        if (v[i] >= 0)
            v[i] = map[v[i]];
    free(map);
    Py_DECREF(seen);
    return cats;
fail:
    free(map);
    Py_XDECREF(seen);
    Py_XDECREF(cats);
    return NULL;
}

enum { AS_IDS, AS_OBJECTS, AS_CATEGORIES };

/* Reads every record of type_name into columns: {name: array}. mode:
 * AS_IDS references stay ids; AS_OBJECTS they become arrays of str;
 * AS_CATEGORIES (codes int32, categories list) tuples, for to_pandas. */
static PyObject *read_columns(TraceObject *t, const char *type_name, int mode)
{
    if (trace_check(t) < 0)
        return NULL;
    pal_reader *r = trace_open_reader(t);
    if (!r)
        return NULL;
    PyObject *result = NULL;
    pal_names *names = NULL;
    field_plan *plans = NULL;
    columns cs = {NULL, 0, 0, 0, 1};
    uint8_t *is_def = NULL;       /* per record type: 0 unknown, 1 no definition, 2 one */
    size_t ndef = 0;
    const pal_recdesc *rd = pal_dict_find_record(pal_reader_dict(r), type_name);
    if (!rd) {
        PyErr_Format(PyExc_KeyError, "trace has no record type '%s' (see Trace.types())",
                     type_name);
        goto out;
    }
    int resolve = mode != AS_IDS;
    Py_ssize_t np = plan_fields(r, rd, resolve, &plans);
    if (np < 0)
        goto out;
    if (resolve && pal_names_create(&names) != PAL_OK) {
        PyErr_NoMemory();
        goto out;
    }
    /* time, then process and stream unless fields designate them, then the fields */
    int has_time = pal_recdesc_role_field(rd, PAL_FROLE_TIMESTAMP) != NULL;
    int proc_field = pal_recdesc_role_field(rd, PAL_FROLE_PROCESS) != NULL;
    int stream_field = pal_recdesc_role_field(rd, PAL_FROLE_THREAD) != NULL;
    cs.c = calloc((size_t)np + 3, sizeof *cs.c);
    if (!cs.c) {
        PyErr_NoMemory();
        goto out;
    }
    if (has_time)
        cs.c[cs.nc++] = (column){.name = "time", .designation = D_TIME, .npy = NPY_FLOAT64, .esize = 8};
    if (!proc_field)
        cs.c[cs.nc++] = (column){.name = "process", .designation = D_PROCESS, .npy = NPY_UINT32, .esize = 4};
    if (!stream_field)
        cs.c[cs.nc++] = (column){.name = "stream", .designation = D_STREAM, .npy = NPY_UINT32, .esize = 4};
    int need_gil = 0;
    for (Py_ssize_t k = 0; k < np; k++) {
        column *c = &cs.c[cs.nc++];
        c->fp = &plans[k];
        c->name = plans[k].name;
        switch (plans[k].kind) {
        case K_STRING: case K_ARRAY: c->npy = NPY_OBJECT; need_gil = 1; break;
        case K_NAME: c->npy = NPY_INT32; break;
        default: c->npy = npy_of(plans[k].type); break;
        }
        c->esize = npy_size(c->npy);
    }
    const pal_record *rec;
    pal_status st = PAL_OK;
    int store = STORE_OK;
    PyThreadState *save = need_gil ? NULL : PyEval_SaveThread();
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        const pal_recdesc *rrd = pal_record_desc(rec);
        if (names) {
            /* only definitions define names (edlc refuses references to
             * anything else): the others need not be fed, and a definition
             * ends what the name caches hold */
            size_t k = pal_recdesc_index(rrd);
            if (k >= ndef) {
                size_t nn = k * 2 + 16;
                uint8_t *nd = realloc(is_def, nn);
                if (!nd) {
                    store = STORE_NOMEM;
                    break;
                }
                memset(nd + ndef, 0, nn - ndef);
                is_def = nd;
                ndef = nn;
            }
            if (!is_def[k])
                is_def[k] = pal_recdesc_has_role(rrd, PAL_ROLE_DEFINITION) ? 2 : 1;
            if (is_def[k] == 2) {
                if (pal_names_add(names, rec) != PAL_OK) {
                    store = STORE_NOMEM;
                    break;
                }
                cs.gen++;
            }
        }
        if (rrd != rd)
            continue;
        if (cs.n == cs.cap && columns_grow(&cs) < 0) {
            store = STORE_NOMEM;
            break;
        }
        if ((store = columns_store(&cs, rec, names, t->start_ns)) != STORE_OK)
            break;
    }
    if (save)
        PyEval_RestoreThread(save);
    if (store == STORE_NOMEM) {
        PyErr_NoMemory();
        goto out;
    }
    if (store == STORE_PYERR || trace_end_pass(t, r, st) < 0)
        goto out;
    result = PyDict_New();
    for (size_t i = 0; result && i < cs.nc; i++) {
        column *c = &cs.c[i];
        PyObject *a = column_array(c, cs.n), *v = a;
        if (a && c->fp && c->fp->kind == K_NAME) {
            PyObject *cats = column_categories(c, a);
            if (!cats)
                v = NULL;
            else if (mode == AS_CATEGORIES)
                v = PyTuple_Pack(2, a, cats);
            else {                          /* str objects, shared per name */
                npy_intp dims[1] = {(npy_intp)cs.n};
                v = PyArray_SimpleNew(1, dims, NPY_OBJECT);
                if (v) {
                    PyObject **o = PyArray_DATA((PyArrayObject *)v);
                    const int32_t *code = PyArray_DATA((PyArrayObject *)a);
                    for (size_t k = 0; k < cs.n; k++) {
                        o[k] = code[k] < 0 ? Py_None : PyList_GET_ITEM(cats, code[k]);
                        Py_INCREF(o[k]);
                    }
                }
            }
            Py_XDECREF(cats);
            if (v != a)
                Py_DECREF(a);
        }
        if (!v || PyDict_SetItemString(result, c->name, v) < 0)
            Py_CLEAR(result);
        Py_XDECREF(v);
    }
out:
    free(is_def);
    columns_free(&cs);
    free(plans);
    pal_names_destroy(names);
    pal_reader_close(r);
    return result;
}

/* columns(type_name, resolve=False) */
static PyObject *trace_columns(TraceObject *t, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"type", "resolve", NULL};
    const char *type;
    int resolve = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|p:columns", kwlist, &type, &resolve))
        return NULL;
    if (need_numpy("columns") < 0)
        return NULL;
    return read_columns(t, type, resolve ? AS_OBJECTS : AS_IDS);
}

/* to_pandas(type_name, resolve=True): a DataFrame, one row per record;
 * references as categorical names */
static PyObject *trace_to_pandas(TraceObject *t, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"type", "resolve", NULL};
    const char *type;
    int resolve = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|p:to_pandas", kwlist, &type, &resolve))
        return NULL;
    if (need_numpy("to_pandas") < 0)
        return NULL;
    PyObject *pd = import_for("pandas", "to_pandas");
    if (!pd)
        return NULL;
    PyObject *cols = read_columns(t, type, resolve ? AS_CATEGORIES : AS_IDS);
    PyObject *df = NULL, *key, *v;
    Py_ssize_t it = 0;
    if (!cols)
        goto out;
    while (PyDict_Next(cols, &it, &key, &v)) {
        if (!PyTuple_Check(v))
            continue;
        PyObject *cat = PyObject_GetAttrString(pd, "Categorical");
        PyObject *c = cat ? PyObject_CallMethod(cat, "from_codes", "OO", PyTuple_GET_ITEM(v, 0),
                                                PyTuple_GET_ITEM(v, 1)) : NULL;
        Py_XDECREF(cat);
        if (!c || PyDict_SetItem(cols, key, c) < 0) {   /* same key: no resize */
            Py_XDECREF(c);
            goto out;
        }
        Py_DECREF(c);
    }
    df = PyObject_CallMethod(pd, "DataFrame", "O", cols);
out:
    Py_XDECREF(cols);
    Py_DECREF(pd);
    return df;
}
#else
/* Built without numpy: columns and to_pandas say so. */
static PyObject *no_numpy(const char *what)
{
    PyErr_Format(PyExc_ImportError, "pal: Trace.%s needs numpy, and this pal module was built "
                 "without it (numpy was not installed where pip built it: install numpy, then "
                 "pip install --no-build-isolation ECL's python/ again)", what);
    return NULL;
}

static PyObject *trace_columns(TraceObject *t, PyObject *args, PyObject *kw)
{
    return no_numpy("columns");
}

static PyObject *trace_to_pandas(TraceObject *t, PyObject *args, PyObject *kw)
{
    return no_numpy("to_pandas");
}
#endif

/* ---------------- events: Trace.events() ---------------- */
typedef struct {
    PyObject_HEAD
    TraceObject *trace;
    pal_reader *r;
    pal_events *ev;
} EventIterObject;

static PyTypeObject EventIterType;

static void eviter_dealloc(EventIterObject *it)
{
    pal_events_destroy(it->ev);
    pal_reader_close(it->r);
    Py_XDECREF(it->trace);
    Py_TYPE(it)->tp_free((PyObject *)it);
}

static PyObject *trace_events(TraceObject *t, PyObject *unused)
{
    (void)unused;
    if (trace_check(t) < 0)
        return NULL;
    EventIterObject *it = PyObject_New(EventIterObject, &EventIterType);
    if (!it)
        return NULL;
    it->trace = t;
    Py_INCREF(t);
    it->ev = NULL;
    if (!(it->r = trace_open_reader(t))) {
        Py_DECREF(it);
        return NULL;
    }
    if (pal_events_create(it->r, &it->ev) != PAL_OK) {
        Py_DECREF(it);
        return PyErr_NoMemory();
    }
    return (PyObject *)it;
}

/* d[key] = v, v's reference taken; -1 with an exception set */
static int set_new(PyObject *d, const char *key, PyObject *v)
{
    if (!v)
        return -1;
    int rc = PyDict_SetItemString(d, key, v);
    Py_DECREF(v);
    return rc;
}

static PyObject *event_dict(EventIterObject *it, const pal_event *e)
{
    double t0 = (double)it->trace->start_ns;
#define SECS(ns) PyFloat_FromDouble(((double)(ns) - t0) / 1e9)
    PyObject *d = PyDict_New();
    if (!d)
        return NULL;
    int rc = set_new(d, "kind", PyUnicode_FromString(pal_event_kind_name(e->kind))) |
             set_new(d, "time", SECS(e->time)) |
             set_new(d, "process", PyLong_FromUnsignedLong(e->process)) |
             set_new(d, "stream", PyLong_FromUnsignedLong(e->stream));
    if (e->name)
        rc |= set_new(d, "name", decode_str(e->name, e->name_len));
    if (e->flags) {
        static const struct { unsigned bit; const char *name; } fl[] = {
            {PAL_EVF_COMMUNICATION, "communication"}, {PAL_EVF_IDLE, "idle"},
            {PAL_EVF_COLLECTIVE, "collective"}, {PAL_EVF_SETUP, "setup"},
            {PAL_EVF_UNMATCHED, "unmatched"}, {PAL_EVF_ORPHAN, "orphan"},
            {PAL_EVF_NONBLOCKING, "nonblocking"}, {PAL_EVF_DEVICE, "device"}};
        PyObject *f = PyTuple_New(0);
        for (size_t b = 0; f && b < sizeof fl / sizeof fl[0]; b++)
            if (e->flags & fl[b].bit) {
                PyObject *one = Py_BuildValue("(s)", fl[b].name);
                PyObject *g = one ? PySequence_Concat(f, one) : NULL;
                Py_XDECREF(one);
                Py_DECREF(f);
                f = g;
            }
        rc |= set_new(d, "flags", f);
    }
    switch (e->kind) {
    case PAL_EV_ENTER:
        rc |= set_new(d, "depth", PyLong_FromUnsignedLong(e->depth));
        break;
    case PAL_EV_LEAVE:
        if (!e->record)   /* open at the end of the trace */
            rc |= set_new(d, "at_end", PyBool_FromLong(1));
        rc |= set_new(d, "depth", PyLong_FromUnsignedLong(e->depth)) |
              set_new(d, "start", SECS(e->start)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->bytes));
        break;
    case PAL_EV_SEND:
    case PAL_EV_RECV:
    case PAL_EV_UNTIMED_RECV:
        rc |= set_new(d, "peer", PyLong_FromLongLong(e->peer)) |
              set_new(d, "tag", PyLong_FromLongLong(e->tag)) |
              set_new(d, "comm", PyLong_FromLongLong(e->comm)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->bytes));
        break;
    case PAL_EV_MESSAGE:
        rc |= set_new(d, "send", Py_BuildValue("(kkN)", (unsigned long)e->send.process,
                                               (unsigned long)e->send.stream,
                                               SECS(e->send.time))) |
              set_new(d, "recv", Py_BuildValue("(kkN)", (unsigned long)e->recv.process,
                                               (unsigned long)e->recv.stream,
                                               SECS(e->recv.time))) |
              set_new(d, "tag", PyLong_FromLongLong(e->tag)) |
              set_new(d, "comm", PyLong_FromLongLong(e->comm)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->bytes));
        break;
    case PAL_EV_COLLECTIVE:
        rc |= set_new(d, "start", SECS(e->start)) |
              set_new(d, "comm", PyLong_FromLongLong(e->comm)) |
              set_new(d, "root", PyLong_FromLongLong(e->root)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->bytes)) |
              set_new(d, "op", str_or_none(pal_coll_op_name(e->op)));
        break;
    case PAL_EV_COLL_INSTANCE:
        rc |= set_new(d, "members", PyLong_FromUnsignedLong(e->coll.members)) |
              set_new(d, "size", PyLong_FromUnsignedLong(e->coll.size)) |
              set_new(d, "ranks", Py_BuildValue("(kk)", (unsigned long)e->coll.lo,
                                                (unsigned long)e->coll.hi)) |
              set_new(d, "late", PyLong_FromUnsignedLong(e->coll.late)) |
              set_new(d, "root", PyLong_FromLongLong(e->coll.root)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->coll.bytes)) |
              set_new(d, "op", str_or_none(pal_coll_op_name(e->coll.op))) |
              set_new(d, "first_start", SECS(e->coll.min_start)) |
              set_new(d, "last_start", SECS(e->coll.max_start)) |
              set_new(d, "last_end", SECS(e->coll.max_end));
        break;
    case PAL_EV_RMA:
        rc |= set_new(d, "rma", str_or_none(pal_rma_kind_name(e->rma))) |
              set_new(d, "window", PyLong_FromLongLong(e->window)) |
              set_new(d, "peer", PyLong_FromLongLong(e->peer)) |
              set_new(d, "bytes", PyLong_FromUnsignedLongLong(e->bytes));
        break;
    case PAL_EV_COUNTER:
        rc |= set_new(d, "value", PyFloat_FromDouble(e->value));
        break;
    case PAL_EV_OVERHEAD:
        rc |= set_new(d, "duration", PyFloat_FromDouble((double)e->duration / 1e9));
        break;
    case PAL_EV_LOST:
        rc |= set_new(d, "count", PyLong_FromUnsignedLongLong(e->count));
        break;
    default:
        break;
    }
#undef SECS
    if (rc) {
        Py_DECREF(d);
        return NULL;
    }
    return d;
}

static PyObject *eviter_next(EventIterObject *it)
{
    if (!it->ev)
        return NULL;
    const pal_event *e;
    pal_status st = pal_events_next(it->ev, &e);
    if (st != PAL_OK) {
        trace_end_pass(it->trace, it->r, st);   /* StopIteration, or the error */
        pal_events_destroy(it->ev);
        pal_reader_close(it->r);
        it->ev = NULL;
        it->r = NULL;
        return NULL;
    }
    return event_dict(it, e);
}

static PyTypeObject EventIterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pal.EventIterator",
    .tp_basicsize = sizeof(EventIterObject),
    .tp_dealloc = (destructor)eviter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)eviter_next,
};

static PyMethodDef trace_methods[] = {
    {"types", (PyCFunction)(void (*)(void))trace_types, METH_VARARGS | METH_KEYWORDS,
     "types(role=None): the record type names of the dictionary; with a record role "
     "(\"enter\", \"send\", ...), the types that have it"},
    {"describe", (PyCFunction)trace_describe, METH_O,
     "describe(type): roles, region and fields (type, unit, description, role, "
     "refers_to) of a record type, as its description says"},
    {"fields", (PyCFunction)trace_fields, METH_O,
     "fields(type): {field name: type name} of a record type"},
    {"counts", (PyCFunction)trace_counts, METH_NOARGS,
     "counts(): {type: records} of the types present (one pass; pal-dump --count)"},
    {"info", (PyCFunction)trace_info, METH_NOARGS,
     "info(): clock, identity, and damage/loss counts of the last whole pass"},
    {"columns", (PyCFunction)(void (*)(void))trace_columns, METH_VARARGS | METH_KEYWORDS,
     "columns(type, resolve=False): {column: numpy array} of every record of a type"},
    {"to_pandas", (PyCFunction)(void (*)(void))trace_to_pandas, METH_VARARGS | METH_KEYWORDS,
     "to_pandas(type, resolve=True): a DataFrame, one row per record of a type"},
    {"events", (PyCFunction)trace_events, METH_NOARGS,
     "events(): the trace's typed events (pal_events: enter, leave, send, recv, matched "
     "message, collective and its instance, rma, counter, marker, ...), one dict each"},
    {"close", (PyCFunction)trace_close, METH_NOARGS, "close(): release the trace"},
    {"__enter__", (PyCFunction)trace_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)trace_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}
};

static PyTypeObject TraceType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pal.Trace",
    .tp_basicsize = sizeof(TraceObject),
    .tp_dealloc = (destructor)trace_dealloc,
    .tp_repr = (reprfunc)trace_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A trace opened by pal.open; iterate it for records.",
    .tp_iter = (getiterfunc)trace_iter,
    .tp_methods = trace_methods,
};

static PyTypeObject IterType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pal.TraceIterator",
    .tp_basicsize = sizeof(IterObject),
    .tp_dealloc = (destructor)iter_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)iter_next,
};

static PyTypeObject RecordType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "pal.Record",
    .tp_basicsize = sizeof(RecordObject),
    .tp_dealloc = (destructor)record_dealloc,
    .tp_repr = (reprfunc)record_repr,
    .tp_as_mapping = &record_mapping,
    .tp_getattro = (getattrofunc)record_getattro,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One record: .type, .time (s), .process, .stream; fields as rec['name'] "
              "or rec.name",
    .tp_methods = record_methods,
    .tp_getset = record_getset,
};

/* ---------------- the diagnosis: pal.waits ---------------- */
#ifdef PAL_PY_WAITS
/* pal.waits(paths, dictionary=None, what_if=None, frames=False): pal-view
 * --waits=json (or --what-if SPEC) as Python objects (doc/diagnosis.md,
 * "Python"): a dict of lists of dicts, each list a pandas DataFrame with
 * frames=True. */
static PyObject *frames_of(PyObject *d, PyObject *pd)
{
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &key, &val)) {
        PyObject *nv = NULL;
        if (PyList_Check(val))
            nv = PyObject_CallMethod(pd, "DataFrame", "O", val);
        else if (PyDict_Check(val) && frames_of(val, pd) == NULL)
            return NULL;
        if (PyList_Check(val)) {
            if (nv == NULL || PyDict_SetItem(d, key, nv) < 0) {
                Py_XDECREF(nv);
                return NULL;
            }
            Py_DECREF(nv);
        }
    }
    return d;
}

/* pal.waits, or pal.predict when np > 0 */
static PyObject *diagnose(PyObject *paths, const char *dict, const char *spec, double np,
                          int frames, const char *synth_out)
{
    PyObject *seq = NULL, *json = NULL, *res = NULL;
    const char *what = np > 0 ? "pal.predict" : "pal.waits";
    if (PyUnicode_Check(paths))
        seq = PyTuple_Pack(1, paths);
    else
        seq = PySequence_Tuple(paths);
    if (seq == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    const char **pv = PyMem_Calloc((size_t)n + 1, sizeof *pv);
    char *buf = NULL;
    size_t len = 0;
    if (pv == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if ((pv[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(seq, i))) == NULL)
            goto out;
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "%s: no trace given", what);
        goto out;
    }
    vw_what_if m;
    if (np <= 0 && spec && vw_what_if_parse(spec, &m)) {
        PyErr_Format(PyExc_ValueError, "pal.waits: bad what_if '%s' (the message is on stderr)",
                     spec);
        goto out;
    }
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    /* with the GIL held: the analysis sorts through file-scope comparator
     * state (qsort has no context argument), so two at once would race */
    int rc = np > 0 && synth_out
                 ? vw_synth_predict(np, pv, (size_t)n, dict, VW_WAITS_JSON, synth_out, 0, f)
             : np > 0 ? vw_predict_run(np, pv, (size_t)n, dict, VW_WAITS_JSON, f)
                      : vw_waits_run(pv, (size_t)n, dict, VW_WAITS_JSON, spec ? &m : NULL, f);
    if (fclose(f) != 0 && rc == 0)
        rc = -1;
    if (rc < 0) {
        PyErr_Format(pal_error, "%s: cannot analyse '%s' (the reason is on stderr)", what,
                     pv[0]);
        goto out;
    }
    if (rc == 1 && PyErr_WarnEx(PyExc_RuntimeWarning,
                                "pal.waits: the trace is damaged or partial (stderr says how)",
                                1) < 0)
        goto out;
    if ((json = PyImport_ImportModule("json")) == NULL ||
        (res = PyObject_CallMethod(json, "loads", "s#", buf, (Py_ssize_t)len)) == NULL)
        goto out;
    if (frames) {
        PyObject *pd = PyImport_ImportModule("pandas");
        if (pd == NULL) {
            PyErr_Format(PyExc_ImportError,
                         "%s(frames=True) needs pandas (without it: lists of dicts)", what);
            Py_CLEAR(res);
            goto out;
        }
        if (frames_of(res, pd) == NULL)
            Py_CLEAR(res);
        Py_DECREF(pd);
    }
out:
    free(buf);
    PyMem_Free(pv);
    Py_XDECREF(json);
    Py_DECREF(seq);
    return res;
}

static PyObject *pal_waits(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"paths", "dictionary", "what_if", "frames", NULL};
    PyObject *paths;
    const char *dict = NULL, *spec = NULL;
    int frames = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|zzp:waits", kwlist, &paths, &dict, &spec,
                                     &frames))
        return NULL;
    return diagnose(paths, dict, spec, 0, frames, NULL);
}

/* pal.predict(np, runs, dictionary=None, frames=False, out=None): pal-view
 * --predict NP --waits=json [-o OUT] */
static PyObject *pal_predict(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"np", "runs", "dictionary", "frames", "out", NULL};
    PyObject *runs;
    const char *dict = NULL, *out = NULL;
    double np = 0;
    int frames = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "dO|zpz:predict", kwlist, &np, &runs, &dict,
                                     &frames, &out))
        return NULL;
    if (!(np >= 1)) {
        PyErr_SetString(PyExc_ValueError, "pal.predict: np must be a process count >= 1");
        return NULL;
    }
    return diagnose(runs, dict, NULL, np, frames, out);
}
#endif

static PyMethodDef module_methods[] = {
    {"open", (PyCFunction)(void (*)(void))pal_open, METH_VARARGS | METH_KEYWORDS,
     "open(path, dictionary=None, force=False, strict=False): open a trace -- an ECL "
     "file, a run (a directory, or a list of per-rank files), or a foreign trace with "
     "its dictionary (binary or EDL source)"},
#ifdef PAL_PY_WAITS
    {"waits", (PyCFunction)(void (*)(void))pal_waits, METH_VARARGS | METH_KEYWORDS,
     "waits(paths, dictionary=None, what_if=None, frames=False): the wait states, their "
     "causes, the load imbalance and the critical path of a trace or run (pal-view "
     "--waits=json), or with what_if=SPEC the what-if replay (--what-if SPEC), as dicts "
     "and lists of dicts; frames=True: each list a pandas DataFrame"},
    {"predict", (PyCFunction)(void (*)(void))pal_predict, METH_VARARGS | METH_KEYWORDS,
     "predict(np, runs, dictionary=None, frames=False, out=None): per region models over "
     "runs of one program at several process counts, predicted at np processes (pal-view "
     "--predict NP --waits=json) as a dict; frames=True: the regions as a pandas DataFrame; "
     "out=PATH: also a run of np ranks synthesized from them written there (-o PATH)"},
#endif
    {NULL, NULL, 0, NULL}
};

static struct PyModuleDef pal_module = {
    PyModuleDef_HEAD_INIT, "pal",
    "Read any trace PAL reads (ECL, a run, PICL with its dictionary): records by name, "
    "numpy columns, pandas DataFrames. See doc/pal.md, \"Python\".",
    -1, module_methods, NULL, NULL, NULL, NULL
};

/* The only symbol the module exports. */
PyMODINIT_FUNC PyInit_pal(void) __attribute__((visibility("default")));

PyMODINIT_FUNC PyInit_pal(void)
{
    if (PyType_Ready(&TraceType) < 0 || PyType_Ready(&RecordType) < 0 ||
        PyType_Ready(&IterType) < 0 || PyType_Ready(&EventIterType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&pal_module);
    if (!m)
        return NULL;
    pal_error = PyErr_NewExceptionWithDoc("pal.Error",
                                          "A trace cannot be opened or read; .status names "
                                          "PAL's status (PAL_EIO, PAL_EFORMAT, ...).",
                                          NULL, NULL);
    if (!pal_error || PyModule_AddObject(m, "Error", pal_error) < 0 ||
        PyModule_AddObject(m, "Trace", (PyObject *)&TraceType) < 0 ||
        PyModule_AddObject(m, "Record", (PyObject *)&RecordType) < 0 ||
        PyModule_AddStringConstant(m, "__version__", PACKAGE_VERSION) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(pal_error);
    Py_INCREF(&TraceType);
    Py_INCREF(&RecordType);
    return m;
}
