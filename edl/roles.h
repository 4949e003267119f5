/* roles.h -- the role vocabulary of EDL and its rules, said once: the model
 * (dict.c) refuses a meaning that breaks them, the compiler's check pass
 * (check.c) reports each break at its place in the source. Internal to edl/. */
#ifndef EDL_ROLES_H
#define EDL_ROLES_H

#include "edl/edl.h"

/* A known role of the first group (what a record is) / of the second (what
 * else it is). */
int edl_role_is_primary(edl_record_role r);
int edl_role_is_qualifier(edl_record_role r);
/* Whether qualifier q fits a record that is primary p. */
int edl_role_qualifies(edl_record_role p, edl_record_role q);
/* Whether a record of role r names a region (field role region or REGION). */
int edl_role_has_region(edl_record_role r);

/* What a role needs in its record: a field with one of the roles any[] (none
 * when any[0] is EDL_FROLE_NONE). */
typedef struct edl_role_need {
    edl_field_role any[2];
} edl_role_need;
edl_role_need edl_role_needs(edl_record_role r);
/* "duration" or "peer or dest": the need as text, for messages. */
const char *edl_role_need_text(edl_role_need n);

/* NULL when a scalar field of type t may have role fr; otherwise what the
 * role needs ("an integer", "a number", "a string", "an integer or a
 * string"). */
const char *edl_field_role_type_need(edl_field_role fr, edl_type t);
/* Timestamp, process and thread: the roles the header designates, which an
 * OPTIONAL field cannot have. */
int edl_field_role_is_designation(edl_field_role fr);

/* Canonical decimal text of an integer for a field of type t ("-3", "7"; no
 * sign on zero, no leading zeros), into buf; 0 when text is no integer of
 * that type (*range set when it is one out of range). */
int edl_canon_int(const char *text, edl_type t, char *buf, size_t size, int *range);

/* Whether a role is one of 1.3's (carried in the dictionary's 1.3 tail, so
 * that a 1.2 reader still reads the rest). */
int edl_role_is_1_3(edl_record_role r);
int edl_field_role_is_1_3(edl_field_role r);
/* Roles of the 1.4 tail: record role device, field role correlation. */
int edl_role_is_1_4(edl_record_role r);
int edl_field_role_is_1_4(edl_field_role r);
/* Roles of the 1.5 tail: field role device_id (no record role yet). */
int edl_role_is_1_5(edl_record_role r);
int edl_field_role_is_1_5(edl_field_role r);
/* Whether name is an operation OPERATION IS may name. */
int edl_operation_known(const char *name);

/* Every name of the vocabularies, NULL-terminated (for "did you mean"). */
extern const char *const edl_record_role_names[];
extern const char *const edl_field_role_names[];

#endif /* EDL_ROLES_H */
