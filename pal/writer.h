/* writer.h -- PAL's trace writer: records, given as values of a dictionary's
 * record descriptors, written into a new ECL container file (version 2,
 * doc/trace-format.md) through the container codec: chunks of a chosen size,
 * compressed in a second thread, a copy of the header, the end summary, the
 * index and the footer. The merge writes its output with it. Not installed.
 *
 * The file is written under a temporary name and renamed at close
 * (container/container.h, "output files"): nothing partial is left under the
 * target's name. */
#ifndef PAL_WRITER_H
#define PAL_WRITER_H

#include "container/container.h"
#include "pal/pal-internal.h"

typedef struct pal_writer pal_writer;

typedef struct pal_writer_options {
    int compress;                    /* ECC_COMP_* */
    int level;                       /* 0: the method's fastest */
    size_t chunk_size;               /* raw payload bytes per chunk */
    unsigned out_flags;              /* ECC_OUT_THROUGH */
} pal_writer_options;

/* Creates path for records of dict (taken, also on failure) with the file
 * header fields of hdr (its dictionary fields are set here). Every record
 * descriptor of dict must have one numeric bind key and binary fields.
 * PAL_EIO (message in err), PAL_EINVAL (a record the writer cannot encode),
 * PAL_ENOMEM. */
pal_status pal_writer_create(const char *path, edl_dict *dict, const ecc_file_header *hdr,
                             const pal_writer_options *o, pal_writer **out, char *err,
                             size_t errlen);
/* The writer's dictionary (its record descriptors are what put takes). */
const pal_dict *pal_writer_dict(const pal_writer *w);
/* Appends a record: vals/lens hold rd's fields in order (the key field's
 * value is taken from the bind). Times must not go back; a time before the
 * previous record's is written as that one. PAL_EIO once a write failed
 * (pal_writer_close then says why). */
pal_status pal_writer_put(pal_writer *w, const pal_recdesc *rd, const pal_value *vals,
                          const uint32_t *lens);
/* Records written so far, and records chunks. */
uint64_t pal_writer_records(const pal_writer *w);
uint64_t pal_writer_chunks(const pal_writer *w);
/* Writes what is buffered, the end summary, the index and the footer, and
 * renames the file into place. PAL_EIO with err on failure (the temporary
 * file is removed). Frees w either way. */
pal_status pal_writer_close(pal_writer *w, char *err, size_t errlen);
/* Gives up: removes the temporary file, frees w. */
void pal_writer_abort(pal_writer *w);

#endif /* PAL_WRITER_H */
