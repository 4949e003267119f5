/* records.h -- what a record means for the views beyond the filter's facts:
 * counter samples and markers, found through the dictionary's roles (record
 * role counter with fields of role value and counter, the id resolved to its
 * name through PAL's name table; record role marker with a field of role
 * text). Shared by the Chrome export and the timeline. */
#ifndef VW_RECORDS_H
#define VW_RECORDS_H

#include <stddef.h>

#include "pal/pal.h"

typedef struct vw_records vw_records;

typedef struct vw_rec_meaning {
    enum { VW_REC_OTHER = 0, VW_REC_COUNTER, VW_REC_MARKER } what;
    const char *name;   /* counter name or marker text, not NUL-terminated */
    size_t len;
    double value;       /* counter value */
    const char *unit;   /* counter: its unit (the definition's field of role unit,
                         * else the value field's unit), "" if none; NUL-terminated */
} vw_rec_meaning;

vw_records *vw_records_create(void);
void vw_records_destroy(vw_records *r);
/* Feeds one record (every record, in trace order, so definitions are seen)
 * and says what it is. The strings stay valid until the next call. */
void vw_records_feed(vw_records *r, const pal_record *rec, vw_rec_meaning *m);

#endif /* VW_RECORDS_H */
