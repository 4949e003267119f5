/* edl-roles.h -- the role vocabulary of EDL, one list (doc/edl.md, "Roles";
 * doc/dictionary-format.md): every record role and field role with its code
 * (as binary dictionaries store it) and its name (as EDL sources write it).
 * X-macro lists, expanded by edl.h (EDL_ROLE_*, EDL_FROLE_*), pal.h
 * (PAL_ROLE_*, PAL_FROLE_*) and edl/roles.c (the names), so that the copies
 * cannot drift. Installed beside edl.h and pal.h, which include it.
 *
 *   X(NAME, CODE, "name")
 *
 * Record roles: a record with roles has exactly one of the first group
 * (codes 1-31: what it is), unconditionally, and any of the second (32 and
 * up: what else it is); every code is below 64. Field roles: what a field's
 * value means; at most one field of a record has a given role; codes are
 * consecutive from 1. */
#ifndef EDL_ROLE_LIST_H
#define EDL_ROLE_LIST_H

#define EDL_RECORD_ROLE_LIST(X) \
    X(ENTER, 1, "enter")                     /* a region is entered */ \
    X(LEAVE, 2, "leave")                     /* a region is left */ \
    /* a whole call, recorded when it returns: [time - duration, time] */ \
    X(CALL, 3, "call") \
    X(OVERHEAD, 4, "overhead")               /* the tool's own time: [time, time + duration] */ \
    X(MARKER, 5, "marker")                   /* an instant event, with a text */ \
    X(COUNTER, 6, "counter")                 /* a counter sample */ \
    X(DEFINITION, 7, "definition")           /* defines an id that references point to */ \
    X(METADATA, 8, "metadata")               /* about the trace, not the program's activity */ \
    X(LOST, 9, "lost")                       /* records were lost */ \
    X(PROCESS_BEGIN, 10, "process_begin") \
    X(PROCESS_END, 11, "process_end") \
    X(THREAD_BEGIN, 12, "thread_begin") \
    X(THREAD_END, 13, "thread_end") \
    X(STATE, 14, "state")                    /* the thread enters a state */ \
    X(PAUSE, 15, "pause")                    /* recording stops */ \
    X(RESUME, 16, "resume")                  /* recording resumes */ \
    X(REQUEST_COMPLETE, 17, "request_complete") /* a nonblocking request completed */ \
    X(REQUEST_START, 18, "request_start")    /* a (persistent) request was started */ \
    /* a message sent or received at one instant (needs send or recv) */ \
    X(MESSAGE, 19, "message") \
    X(SEND, 32, "send")                      /* a message is sent here */ \
    X(RECV, 33, "recv")                      /* a message is received here */ \
    X(COLLECTIVE, 34, "collective")          /* a collective operation */ \
    X(COMMUNICATION, 35, "communication")    /* time inside is communication */ \
    X(IDLE, 36, "idle")                      /* time inside is waiting */ \
    /* its message completed unseen, at an unknown time (a receive released with \
       MPI_Request_free) */ \
    X(UNTIMED, 37, "untimed") \
    /* 1.3 (doc/dictionary-format.md, "The 1.3 tail"): one-sided communication */ \
    X(RMA_PUT, 38, "rma_put")                /* writes into a window of another process */ \
    X(RMA_GET, 39, "rma_get")                /* reads from a window of another process */ \
    /* an atomic update of a window (accumulate, fetch-and-op) */ \
    X(RMA_ATOMIC, 40, "rma_atomic") \
    X(RMA_WIN_CREATE, 41, "rma_win_create")  /* creates a window */ \
    X(RMA_WIN_FREE, 42, "rma_win_free")      /* frees a window */ \
    /* synchronises a window (fence, flush, post/start/...) */ \
    X(RMA_SYNC, 43, "rma_sync") \
    X(RMA_LOCK, 44, "rma_lock")              /* locks a window (of one process, or all) */ \
    X(RMA_UNLOCK, 45, "rma_unlock")          /* unlocks it */ \
    /* 1.4 (doc/dictionary-format.md, "The 1.4 tail"): time inside is spent on a device \
       (a GPU kernel, memory copy or memset on a GPU location) */ \
    X(DEVICE, 46, "device") \
    /* 1.4: time inside is I/O (POSIX read, write, open, ...): the file is the field with \
       role file, the bytes those with bytes, bytes_sent or bytes_received */ \
    X(IO, 47, "io") \
    /* end of the list */

#define EDL_FIELD_ROLE_LIST(X) \
    /* the record's time (the header's TIMESTAMP by default) */ \
    X(TIMESTAMP, 1, "timestamp") \
    X(PROCESS, 2, "process")                 /* the record's process (PROCESS) */ \
    X(THREAD, 3, "thread")                   /* the record's thread (THREAD) */ \
    X(DURATION, 4, "duration")               /* a duration, in the timestamp's unit */ \
    /* the region entered, left or called: an id or a name */ \
    X(REGION, 5, "region") \
    X(PEER, 6, "peer")                       /* the other process of a message */ \
    X(DEST, 7, "dest")                       /* the destination of the message sent */ \
    X(SOURCE, 8, "source")                   /* the source of the message received */ \
    /* the message tag (of the message sent, when both) */ \
    X(TAG, 9, "tag") \
    /* the tag of the message received, beside a sent one */ \
    X(RECV_TAG, 10, "recv_tag") \
    X(COMMUNICATOR, 11, "communicator")      /* the communicator (process group) */ \
    X(BYTES_SENT, 12, "bytes_sent") \
    X(BYTES_RECEIVED, 13, "bytes_received") \
    /* bytes an operation moves, when sent and received are not told apart (a broadcast's \
       size) */ \
    X(BYTES, 14, "bytes") \
    X(ROOT, 15, "root")                      /* the root process of a collective */ \
    X(REQUEST, 16, "request")                /* a request id */ \
    X(VALUE, 17, "value")                    /* a counter's value */ \
    X(COUNTER, 18, "counter")                /* which counter: an id or a name */ \
    X(NAME, 19, "name")                      /* the name a definition gives */ \
    X(UNIT, 20, "unit")                      /* the unit of a counter */ \
    X(TEXT, 21, "text")                      /* a marker's text */ \
    X(COUNT, 22, "count")                    /* how many (records lost, ...) */ \
    X(SIZE, 23, "size")                      /* the number of processes of a group */ \
    X(MEMBERS, 24, "members")                /* a group's processes as text: "0-3,8" */ \
    X(STATE, 25, "state")                    /* the state entered: an id or a name */ \
    X(REMOTE_MEMBERS, 26, "remote_members")  /* an intercommunicator's remote group, as text */ \
    X(WINDOW, 27, "window")                  /* 1.3: a one-sided communication window (its id) */ \
    /* 1.4: links records of one operation (a CUDA call and the GPU work it started) */ \
    X(CORRELATION, 28, "correlation") \
    /* 1.4: the file or handle an I/O works on: an id referring to a definition that names \
       it, or a name */ \
    X(FILE, 29, "file") \
    /* 1.4: the type of a passive target lock: 1 exclusive, 2 shared (MPI_Win_lock) */ \
    X(LOCK_TYPE, 30, "lock_type") \
    /* 1.5 (doc/dictionary-format.md, "The 1.5 tail"): the device (GPU) a record's work \
       ran on, by its number in the process (CUDA's device ordinal) */ \
    X(DEVICE_ID, 31, "device_id") \
    /* end of the list */

#endif /* EDL_ROLE_LIST_H */
