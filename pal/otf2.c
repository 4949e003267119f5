/* otf2.c -- PAL reads an OTF2 archive (its .otf2 anchor file) as a described
 * trace: libotf2's readers decode the archive, and every definition and event
 * becomes a record of the dictionary below, whose roles say what it means
 * (doc/pal.md, "OTF2 archives"). Definitions come first, then the events of
 * every location merged in time order by OTF2's global event reader, one
 * event read per record asked for, so memory does not grow with the trace.
 * Built into libpal when configure found libotf2 (pal/otf2-none.c otherwise). */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <otf2/otf2.h>

#include "pal/reader-internal.h"

/* The fields every Leave record below starts with. */
#define LEAVE_HEAD                                                                             \
    "    FIELD event    IS string;\n"                                                          \
    "    FIELD time     IS int64 UNIT \"ns\";\n"                                               \
    "    FIELD rank     IS int64;\n"                                                           \
    "    FIELD thread   IS int64;\n"                                                           \
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"               \
    "    FIELD comm     IS uint64 ROLE communicator REFERS TO comm.comm GLOBAL;\n"
/* A Leave of a collective region whose MpiCollectiveEnd names an operation
 * EDL knows: the operation is the record's OPERATION. */
#define COLL_LEAVE_OP(op)                                                                      \
    "RECORD coll_leave_" op " DESCRIPTION \"Leave of a collective region, operation " op "\" IS\n" \
    "BEGIN\n"                                                                                  \
    "    ROLE IS leave, collective, communication;\n"                                          \
    "    OPERATION IS \"" op "\";\n"                                                           \
    LEAVE_HEAD                                                                                 \
    "    FIELD root     IS int64 ROLE root DESCRIPTION \"world rank, -1 none\";\n"             \
    "    FIELD sent     IS uint64 ROLE bytes_sent;\n"                                          \
    "    FIELD received IS uint64 ROLE bytes_received;\n"                                      \
    "END;\n\n"
/* A Leave of a region in which one-sided events (Rma*) happened: their
 * role, window, target and bytes. */
#define RMA_LEAVE(k)                                                                           \
    "RECORD rma_" k "_leave DESCRIPTION \"Leave of a region with an Rma event: rma_" k "\" IS\n" \
    "BEGIN\n"                                                                                  \
    "    ROLE IS leave, communication, rma_" k ";\n"                                           \
    LEAVE_HEAD                                                                                 \
    "    FIELD win      IS uint64 ROLE window DESCRIPTION \"OTF2 RmaWin id\";\n"              \
    "    FIELD peer     IS int64 ROLE peer DESCRIPTION \"target, world rank; -1 all\";\n"     \
    "    FIELD bytes    IS uint64 ROLE bytes;\n"                                               \
    "END;\n\n"
#define BIND_SELF(n) "    \"" n "\" IS \"" n "\";\n"

/* The description of what this reader hands out; `pal-dump --dict x.otf2`
 * prints it. Every record starts with event, time, rank, thread. */
static const char otf2_edl[] =
    "-- otf2: an OTF2 archive as PAL reads it (pal/otf2.c): one record per OTF2\n"
    "-- event, definitions first. Times in ns from the archive's global offset;\n"
    "-- rank = location group, thread = the location's index in its group; peers\n"
    "-- and roots as world ranks; ids of regions, communicators, metrics and\n"
    "-- parameters refer to the definition records that name them.\n"
    "HEADER IS\n"
    "BEGIN\n"
    "    NAME IS otf2;\n"
    "    VERSION IS \"3\";\n"
    "    REPRESENTATION IS ASCII;\n"
    "    SEPARATORS IS \" \";\n"
    "    COMMENT IS NONE;\n"
    "    QUOTE IS \"\\\"\";\n"
    "    TIMESTAMP IS time UNIT \"ns\";\n"
    "    PROCESS IS rank;\n"
    "    THREAD IS thread REFERS TO location.thread;\n"
    "END;\n"
    "\n"
    "RECORD location DESCRIPTION \"a location (thread) of a location group (process)\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD location IS uint64 DESCRIPTION \"OTF2 location id\";\n"
    "    FIELD name     IS string ROLE name;\n"
    "    FIELD events   IS uint64 DESCRIPTION \"events the archive says it holds\";\n"
    "END;\n"
    "\n"
    "RECORD region DESCRIPTION \"a region\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64;\n"
    "    FIELD name     IS string ROLE name;\n"
    "    FIELD role     IS string DESCRIPTION \"OTF2 region role\";\n"
    "    FIELD paradigm IS string DESCRIPTION \"OTF2 paradigm\";\n"
    "END;\n"
    "\n"
    "RECORD comm DESCRIPTION \"a communicator and its members (world ranks)\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD comm     IS uint64 ROLE communicator;\n"
    "    FIELD name     IS string ROLE name;\n"
    "    FIELD size     IS int64 ROLE size;\n"
    "    FIELD members  IS string ROLE members;\n"
    "END;\n"
    "\n"
    "RECORD metric DESCRIPTION \"a metric (OTF2 metric member)\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD metric   IS uint64;\n"
    "    FIELD name     IS string ROLE name;\n"
    "    FIELD unit     IS string ROLE unit;\n"
    "END;\n"
    "\n"
    "RECORD parameter DESCRIPTION \"a parameter\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event     IS string;\n"
    "    FIELD time      IS int64 UNIT \"ns\";\n"
    "    FIELD rank      IS int64;\n"
    "    FIELD thread    IS int64;\n"
    "    FIELD parameter IS uint64;\n"
    "    FIELD name      IS string ROLE name;\n"
    "END;\n"
    "\n"
    "RECORD io_handle DESCRIPTION \"an I/O handle (IoHandle): the file it works on, its paradigm\" IS\n"
    "BEGIN\n"
    "    ROLE IS definition;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD handle   IS uint64;\n"
    "    FIELD name     IS string ROLE name;\n"
    "    FIELD file     IS string DESCRIPTION \"the IoRegularFile's or IoDirectory's name\";\n"
    "    FIELD paradigm IS string DESCRIPTION \"the IoParadigm's identification (POSIX, ...)\";\n"
    "END;\n"
    "\n"
    "RECORD overhead DESCRIPTION \"Enter and Leave of a region of the measurement system (role ARTIFICIAL, paradigm MEASUREMENT_SYSTEM: a tool's buffer flush), at its Leave: [time, time + duration]\" IS\n"
    "BEGIN\n"
    "    ROLE IS overhead;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD duration IS int64 UNIT \"ns\" ROLE duration;\n"
    "END;\n"
    "\n"
    "RECORD io_leave DESCRIPTION \"Leave of a region with I/O events (IoOperationBegin/Complete, IoCreateHandle, IoDestroyHandle)\" IS\n"
    "BEGIN\n"
    "    ROLE IS leave, io;\n"
    "    FIELD event     IS string;\n"
    "    FIELD time      IS int64 UNIT \"ns\";\n"
    "    FIELD rank      IS int64;\n"
    "    FIELD thread    IS int64;\n"
    "    FIELD region    IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD handle    IS uint64 ROLE file REFERS TO io_handle.handle GLOBAL;\n"
    "    FIELD operation IS string DESCRIPTION \"read, write, flush, open (IoCreateHandle), close (IoDestroyHandle)\";\n"
    "    FIELD bytes     IS uint64 UNIT \"bytes\" ROLE bytes DESCRIPTION \"bytes the operations moved (bytesResult)\";\n"
    "END;\n"
    "\n"
    "RECORD enter DESCRIPTION \"Enter\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD leave DESCRIPTION \"Leave, with the bytes of its ecl:bytes* attributes\" IS\n"
    "BEGIN\n"
    "    ROLE IS leave;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD sent     IS uint64 OPTIONAL ROLE bytes_sent;\n"
    "    FIELD received IS uint64 OPTIONAL ROLE bytes_received;\n"
    "    FIELD bytes    IS uint64 OPTIONAL ROLE bytes;\n"
    "END;\n"
    "\n"
    "RECORD mpi_enter DESCRIPTION \"Enter of a region of paradigm MPI\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, communication;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD mpi_leave DESCRIPTION \"Leave of a region of paradigm MPI, with the bytes of its ecl:bytes* attributes\" IS\n"
    "BEGIN\n"
    "    ROLE IS leave, communication;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD sent     IS uint64 OPTIONAL ROLE bytes_sent;\n"
    "    FIELD received IS uint64 OPTIONAL ROLE bytes_received;\n"
    "    FIELD bytes    IS uint64 OPTIONAL ROLE bytes;\n"
    "END;\n"
    "\n"
    "RECORD enter_idle DESCRIPTION \"Enter of a region that waits (description ecl:idle)\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, idle;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD mpi_enter_idle DESCRIPTION \"Enter of a region of paradigm MPI that waits (ecl:idle)\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, communication, idle;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD coll_enter_idle DESCRIPTION \"Enter of a collective region that waits (ecl:idle)\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, collective, communication, idle;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD process_begin DESCRIPTION \"Enter and Leave of a region that starts the process (ecl:process_begin: MPI_Init), at its Leave\" IS\n"
    "BEGIN\n"
    "    ROLE IS process_begin;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD duration IS int64 UNIT \"ns\" ROLE duration;\n"
    "END;\n"
    "\n"
    "RECORD process_end DESCRIPTION \"Enter and Leave of a region that ends the process (ecl:process_end: MPI_Finalize), at its Leave\" IS\n"
    "BEGIN\n"
    "    ROLE IS process_end;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD duration IS int64 UNIT \"ns\" ROLE duration;\n"
    "END;\n"
    "\n"
    "RECORD coll_enter DESCRIPTION \"Enter of a collective region (region role barrier or coll_*)\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, collective, communication;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "END;\n"
    "\n"
    "RECORD coll_leave DESCRIPTION \"Leave of a collective region, with its MpiCollectiveEnd's data\" IS\n"
    "BEGIN\n"
    "    ROLE IS leave, collective, communication;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD comm     IS uint64 OPTIONAL ROLE communicator REFERS TO comm.comm GLOBAL;\n"
    "    FIELD root     IS int64 OPTIONAL ROLE root DESCRIPTION \"world rank, -1 none\";\n"
    "    FIELD sent     IS uint64 OPTIONAL ROLE bytes_sent;\n"
    "    FIELD received IS uint64 OPTIONAL ROLE bytes_received;\n"
    "END;\n"
    "\n"
    "RECORD send DESCRIPTION \"MpiSend\" IS\n"
    "BEGIN\n"
    "    ROLE IS message, send;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD peer   IS int64 ROLE peer DESCRIPTION \"receiver, world rank\";\n"
    "    FIELD comm   IS uint64 ROLE communicator REFERS TO comm.comm GLOBAL;\n"
    "    FIELD tag    IS int64 ROLE tag;\n"
    "    FIELD bytes  IS uint64 ROLE bytes_sent;\n"
    "END;\n"
    "\n"
    "RECORD isend DESCRIPTION \"MpiIsend\" IS\n"
    "BEGIN\n"
    "    ROLE IS message, send;\n"
    "    FIELD event   IS string;\n"
    "    FIELD time    IS int64 UNIT \"ns\";\n"
    "    FIELD rank    IS int64;\n"
    "    FIELD thread  IS int64;\n"
    "    FIELD peer    IS int64 ROLE peer DESCRIPTION \"receiver, world rank\";\n"
    "    FIELD comm    IS uint64 ROLE communicator REFERS TO comm.comm GLOBAL;\n"
    "    FIELD tag     IS int64 ROLE tag;\n"
    "    FIELD bytes   IS uint64 ROLE bytes_sent;\n"
    "    FIELD request IS uint64 ROLE request;\n"
    "END;\n"
    "\n"
    "RECORD isend_complete DESCRIPTION \"MpiIsendComplete\" IS\n"
    "BEGIN\n"
    "    ROLE IS request_complete;\n"
    "    FIELD event   IS string;\n"
    "    FIELD time    IS int64 UNIT \"ns\";\n"
    "    FIELD rank    IS int64;\n"
    "    FIELD thread  IS int64;\n"
    "    FIELD request IS uint64 ROLE request;\n"
    "END;\n"
    "\n"
    "RECORD irecv_request DESCRIPTION \"MpiIrecvRequest\" IS\n"
    "BEGIN\n"
    "    ROLE IS request_start;\n"
    "    FIELD event   IS string;\n"
    "    FIELD time    IS int64 UNIT \"ns\";\n"
    "    FIELD rank    IS int64;\n"
    "    FIELD thread  IS int64;\n"
    "    FIELD request IS uint64 ROLE request;\n"
    "END;\n"
    "\n"
    "RECORD recv DESCRIPTION \"MpiRecv\" IS\n"
    "BEGIN\n"
    "    ROLE IS message, recv;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD peer   IS int64 ROLE peer DESCRIPTION \"sender, world rank\";\n"
    "    FIELD comm   IS uint64 ROLE communicator REFERS TO comm.comm GLOBAL;\n"
    "    FIELD tag    IS int64 ROLE tag;\n"
    "    FIELD bytes  IS uint64 ROLE bytes_received;\n"
    "END;\n"
    "\n"
    "RECORD irecv DESCRIPTION \"MpiIrecv\" IS\n"
    "BEGIN\n"
    "    ROLE IS request_complete, recv;\n"
    "    FIELD event   IS string;\n"
    "    FIELD time    IS int64 UNIT \"ns\";\n"
    "    FIELD rank    IS int64;\n"
    "    FIELD thread  IS int64;\n"
    "    FIELD peer    IS int64 ROLE peer DESCRIPTION \"sender, world rank\";\n"
    "    FIELD comm    IS uint64 ROLE communicator REFERS TO comm.comm GLOBAL;\n"
    "    FIELD tag     IS int64 ROLE tag;\n"
    "    FIELD bytes   IS uint64 ROLE bytes_received;\n"
    "    FIELD request IS uint64 ROLE request;\n"
    "END;\n"
    "\n"
    "RECORD collective_begin DESCRIPTION \"MpiCollectiveBegin\" IS\n"
    "BEGIN\n"
    "    ROLE IS metadata;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "END;\n"
    "\n"
    "RECORD collective_end DESCRIPTION \"MpiCollectiveEnd\" IS\n"
    "BEGIN\n"
    "    ROLE IS metadata;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD op       IS string DESCRIPTION \"OTF2 collective operation\";\n"
    "    FIELD comm     IS uint64 REFERS TO comm.comm GLOBAL;\n"
    "    FIELD root     IS int64 DESCRIPTION \"world rank, -1 none\";\n"
    "    FIELD sent     IS uint64;\n"
    "    FIELD received IS uint64;\n"
    "END;\n"
    "\n"
    "RECORD metric_int DESCRIPTION \"one member of a Metric event, signed integer\" IS\n"
    "BEGIN\n"
    "    ROLE IS counter;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD metric IS uint64 ROLE counter REFERS TO metric.metric GLOBAL;\n"
    "    FIELD value  IS int64 ROLE value;\n"
    "END;\n"
    "\n"
    "RECORD metric_uint DESCRIPTION \"one member of a Metric event, unsigned integer\" IS\n"
    "BEGIN\n"
    "    ROLE IS counter;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD metric IS uint64 ROLE counter REFERS TO metric.metric GLOBAL;\n"
    "    FIELD value  IS uint64 ROLE value;\n"
    "END;\n"
    "\n"
    "RECORD metric_float DESCRIPTION \"one member of a Metric event, floating point\" IS\n"
    "BEGIN\n"
    "    ROLE IS counter;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD metric IS uint64 ROLE counter REFERS TO metric.metric GLOBAL;\n"
    "    FIELD value  IS float64 ROLE value;\n"
    "END;\n"
    "\n"
    "RECORD marker DESCRIPTION \"ParameterString (pal-view --export otf2 writes markers so)\" IS\n"
    "BEGIN\n"
    "    ROLE IS marker;\n"
    "    FIELD event     IS string;\n"
    "    FIELD time      IS int64 UNIT \"ns\";\n"
    "    FIELD rank      IS int64;\n"
    "    FIELD thread    IS int64;\n"
    "    FIELD parameter IS uint64 REFERS TO parameter.parameter GLOBAL;\n"
    "    FIELD text      IS string ROLE text;\n"
    "END;\n"
    "\n"
    "RECORD parameter_int DESCRIPTION \"ParameterInt and ParameterUnsignedInt\" IS\n"
    "BEGIN\n"
    "    ROLE IS metadata;\n"
    "    FIELD event     IS string;\n"
    "    FIELD time      IS int64 UNIT \"ns\";\n"
    "    FIELD rank      IS int64;\n"
    "    FIELD thread    IS int64;\n"
    "    FIELD parameter IS uint64 REFERS TO parameter.parameter GLOBAL;\n"
    "    FIELD value     IS int64;\n"
    "END;\n"
    "\n"
    "RECORD pause DESCRIPTION \"MeasurementOnOff: off\" IS\n"
    "BEGIN\n"
    "    ROLE IS pause;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "END;\n"
    "\n"
    "RECORD resume DESCRIPTION \"MeasurementOnOff: on\" IS\n"
    "BEGIN\n"
    "    ROLE IS resume;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "END;\n"
    "\n"
#define X(id, name, otf2_op, otf2_role) COLL_LEAVE_OP(name)
    PAL_COLLECTIVE_OPS(X)
#undef X
#define X(id, name, role, otf2) RMA_LEAVE(name)
    PAL_RMA_KINDS(X)
#undef X
    /* GPU work: Enter and Leave on an ACCELERATOR_STREAM location */
    "RECORD device_enter DESCRIPTION \"Enter on a GPU stream (an ACCELERATOR_STREAM location)\" IS\n"
    "BEGIN\n"
    "    ROLE IS enter, device;\n"
    "    FIELD event  IS string;\n"
    "    FIELD time   IS int64 UNIT \"ns\";\n"
    "    FIELD rank   IS int64;\n"
    "    FIELD thread IS int64;\n"
    "    FIELD region IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD device IS int64 OPTIONAL ROLE device_id DESCRIPTION \"the device: the number of its ACCELERATOR_DEVICE system tree node\";\n"
    "END;\n"
    "\n"
    "RECORD device_leave DESCRIPTION \"Leave on a GPU stream, with the bytes of a copy inside (RmaGet: received, RmaPut: sent) or of its ecl:bytes* attributes\" IS\n"
    "BEGIN\n"
    "    ROLE IS leave, device;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD region   IS uint64 ROLE region REFERS TO region.region GLOBAL;\n"
    "    FIELD sent     IS uint64 OPTIONAL ROLE bytes_sent;\n"
    "    FIELD received IS uint64 OPTIONAL ROLE bytes_received;\n"
    "    FIELD bytes    IS uint64 OPTIONAL ROLE bytes;\n"
    "    FIELD device   IS int64 OPTIONAL ROLE device_id;\n"
    "END;\n"
    "\n"
    "RECORD device_copy DESCRIPTION \"a copy between host and GPU outside any region of its stream (Score-P's CUDA memcpy: RmaGet or RmaPut, then RmaOpCompleteBlocking), at its end\" IS\n"
    "BEGIN\n"
    "    ROLE IS call, device;\n"
    "    FIELD event    IS string;\n"
    "    FIELD time     IS int64 UNIT \"ns\";\n"
    "    FIELD rank     IS int64;\n"
    "    FIELD thread   IS int64;\n"
    "    FIELD duration IS int64 UNIT \"ns\" ROLE duration;\n"
    "    FIELD region   IS string ROLE region DESCRIPTION \"memcpy HtoD (RmaGet), memcpy DtoH (RmaPut), memcpy (both)\";\n"
    "    FIELD received IS uint64 ROLE bytes_received DESCRIPTION \"bytes the device read from the host (RmaGet)\";\n"
    "    FIELD sent     IS uint64 ROLE bytes_sent DESCRIPTION \"bytes the device wrote to the host (RmaPut)\";\n"
    "    FIELD device   IS int64 OPTIONAL ROLE device_id;\n"
    "END;\n"
    "\n"
    "BIND IS\n"
    "KEYFIELD INDEX IS 0;\n"
    "BEGIN\n"
    "    \"location\" IS \"location\";\n"
    "    \"region\" IS \"region\";\n"
    "    \"comm\" IS \"comm\";\n"
    "    \"metric\" IS \"metric\";\n"
    "    \"parameter\" IS \"parameter\";\n"
    "    \"enter\" IS \"enter\";\n"
    "    \"leave\" IS \"leave\";\n"
    "    \"mpi_enter\" IS \"mpi_enter\";\n"
    "    \"mpi_leave\" IS \"mpi_leave\";\n"
    "    \"coll_enter\" IS \"coll_enter\";\n"
    "    \"coll_leave\" IS \"coll_leave\";\n"
    "    \"send\" IS \"send\";\n"
    "    \"isend\" IS \"isend\";\n"
    "    \"isend_complete\" IS \"isend_complete\";\n"
    "    \"irecv_request\" IS \"irecv_request\";\n"
    "    \"recv\" IS \"recv\";\n"
    "    \"irecv\" IS \"irecv\";\n"
    "    \"collective_begin\" IS \"collective_begin\";\n"
    "    \"collective_end\" IS \"collective_end\";\n"
    "    \"metric_int\" IS \"metric_int\";\n"
    "    \"metric_uint\" IS \"metric_uint\";\n"
    "    \"metric_float\" IS \"metric_float\";\n"
    "    \"marker\" IS \"marker\";\n"
    "    \"parameter_int\" IS \"parameter_int\";\n"
    "    \"pause\" IS \"pause\";\n"
    "    \"resume\" IS \"resume\";\n"
    BIND_SELF("enter_idle")
    BIND_SELF("mpi_enter_idle")
    BIND_SELF("coll_enter_idle")
    BIND_SELF("process_begin")
    BIND_SELF("process_end")
    BIND_SELF("io_handle")
    BIND_SELF("overhead")
    BIND_SELF("io_leave")
#define X(id, name, otf2_op, otf2_role) BIND_SELF("coll_leave_" name)
    PAL_COLLECTIVE_OPS(X)
#undef X
#define X(id, name, role, otf2) BIND_SELF("rma_" name "_leave")
    PAL_RMA_KINDS(X)
#undef X
    BIND_SELF("device_enter")
    BIND_SELF("device_leave")
    BIND_SELF("device_copy")
    "END;\n";

/* The records, in the order of the EDL above. */
enum {
    R_LOCATION, R_REGION, R_COMM, R_METRIC, R_PARAMETER, R_ENTER, R_LEAVE, R_MPI_ENTER,
    R_MPI_LEAVE, R_COLL_ENTER, R_COLL_LEAVE, R_SEND, R_ISEND, R_ISEND_COMPLETE, R_IRECV_REQUEST,
    R_RECV, R_IRECV, R_COLLECTIVE_BEGIN, R_COLLECTIVE_END, R_METRIC_INT, R_METRIC_UINT,
    R_METRIC_FLOAT, R_MARKER, R_PARAMETER_INT, R_PAUSE, R_RESUME, R_ENTER_IDLE,
    R_MPI_ENTER_IDLE, R_COLL_ENTER_IDLE, R_PROCESS_BEGIN, R_PROCESS_END, R_IO_HANDLE,
    R_OVERHEAD, R_IO_LEAVE,
    R_COLL_OP,                  /* coll_leave_<op>, in pal_coll_op order */
    R_RMA = R_COLL_OP + PAL_COLL_OP_COUNT,  /* rma_<kind>_leave, in pal_rma_kind order */
    /* Enter, Leave on an ACCELERATOR_STREAM location */
    R_DEVICE_ENTER = R_RMA + PAL_RMA_KIND_COUNT, R_DEVICE_LEAVE,
    R_DEVICE_COPY,              /* RmaGet/Put ... RmaOpCompleteBlocking outside a region */
    R_COUNT
};
static const char *const rec_names[R_COUNT] = {
    "location", "region", "comm", "metric", "parameter", "enter", "leave", "mpi_enter",
    "mpi_leave", "coll_enter", "coll_leave", "send", "isend", "isend_complete", "irecv_request",
    "recv", "irecv", "collective_begin", "collective_end", "metric_int", "metric_uint",
    "metric_float", "marker", "parameter_int", "pause", "resume", "enter_idle",
    "mpi_enter_idle", "coll_enter_idle", "process_begin", "process_end", "io_handle",
    "overhead", "io_leave",
#define X(id, name, otf2_op, otf2_role) "coll_leave_" name,
    PAL_COLLECTIVE_OPS(X)
#undef X
#define X(id, name, role, otf2) "rma_" name "_leave",
    PAL_RMA_KINDS(X)
#undef X
    "device_enter", "device_leave", "device_copy",
};


#define MAXF 12

typedef struct orec {
    int type;
    uint32_t process, stream;
    int64_t tns;
    pal_value v[MAXF];
    uint32_t len[MAXF];
} orec;

typedef struct oloc {
    uint64_t id;
    uint32_t group, thread;
    uint32_t name;
    uint64_t events;                 /* as its definition declares */
    uint64_t seen;                   /* events read (of the kinds read) */
    OTF2_TimeStamp last_t;           /* the time of its last event read */
    int accel;                       /* an ACCELERATOR_STREAM (a GPU stream) */
    int64_t device;                  /* its device's number, -1: not said */
    /* a GPU stream: regions open, and the copy (RmaGet, RmaPut) since
     * copy_t0 not yet in a record (copy_open) */
    unsigned depth;
    int copy_open;
    OTF2_TimeStamp copy_t0;
    uint64_t copy_in, copy_out;
    /* the last MpiCollectiveEnd, for the Leave that follows it */
    int coll_pending;
    pal_coll_op coll_op;        /* PAL_COLL_OP_NONE: an operation EDL does not know */
    uint64_t coll_comm, coll_sent, coll_recv;
    int64_t coll_root;
    /* an open ecl:process_begin/_end region: its Enter's time */
    int proc_open;
    OTF2_TimeStamp proc_t;
    int ovh_open;               /* an overhead region is open, since ovh_t */
    OTF2_TimeStamp ovh_t;
    /* the last Rma event (rma_pending: its kind + 1), for the next Leave */
    int rma_pending;
    uint64_t rma_win, rma_bytes;
    int64_t rma_peer;
    /* the I/O events since the last Enter or Leave, for the next Leave */
    int io_pending;
    const char *io_op;
    uint64_t io_handle, io_bytes;
} oloc;

/* ECL's region descriptions (views/otf2.c, doc/views.md "OTF2 export"):
 * what OTF2's region roles cannot say */
enum { RF_IDLE = 1, RF_PROCESS_BEGIN = 2, RF_PROCESS_END = 4, RF_OVERHEAD = 8 };
typedef struct oregion {
    uint32_t name, descr;
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    int used;
    int flags;                  /* RF_*, from descr once strings are read; -1: not yet */
} oregion;
typedef struct ogroup { OTF2_GroupType type; OTF2_Paradigm paradigm; uint64_t *members; uint32_t n; int used; } ogroup;
typedef struct ocomm { uint32_t name; uint32_t group; int used; } ocomm;
typedef struct omember { uint32_t name, unit; int used; } omember;
typedef struct oclass { OTF2_MetricMemberRef *members; uint8_t n; int used; } oclass;
typedef struct oparam { uint32_t name; int used; } oparam;
typedef struct oiohandle { uint32_t name, file, paradigm; int used; } oiohandle;
typedef struct olgroup {
    OTF2_LocationGroupType type;
    OTF2_LocationGroupRef creator;
    OTF2_SystemTreeNodeRef parent;
    int used;
} olgroup;
/* a system tree node: an accelerator device is one of domain
 * ACCELERATOR_DEVICE (Score-P's "CUDA Device" nodes, named by the number) */
typedef struct onode { uint32_t name; int accel; int used; } onode;

struct pal_otf2 {
    OTF2_Reader *rd;
    OTF2_GlobalEvtReader *ger;
    const char *path;
    const pal_recdesc *rdesc[R_COUNT];
    /* definitions, by OTF2 id */
    char **str;
    size_t nstr;
    oregion *regions;
    size_t nregions;
    ogroup *groups;
    size_t ngroups;
    ocomm *comms;
    size_t ncomms;
    OTF2_CommRef *wincomm;           /* RmaWin id -> its communicator */
    size_t nwins;
    omember *members;
    size_t nmembers;
    oclass *classes;
    size_t nclasses;
    oparam *params;
    size_t nparams;
    uint32_t *iofile_name;           /* IoFile id -> its name */
    size_t niofiles;
    uint32_t *ioparadigm_id;         /* IoParadigm id -> its identification */
    size_t nioparadigms;
    oiohandle *iohandles;
    size_t niohandles;
    olgroup *lgroups;                /* location groups: an accelerator's creator */
    size_t nlgroups;
    onode *nodes;                    /* system tree nodes: devices */
    size_t nnodes;
    /* attribute definitions (their name strings), and which are the
     * ecl:bytes_sent, ecl:bytes_received, ecl:bytes ones (ref + 1; 0: none) */
    uint32_t *attr_name;
    size_t nattrs;
    int attrs_resolved;
    uint64_t attr_bytes[3];
    oloc *locs;                      /* sorted by group, then id */
    size_t nlocs, caplocs;
    oloc **byid, *last;              /* sorted by id, for loc_find */
    long commloc;                    /* the COMM_LOCATIONS group last used, -1 */
    uint64_t res, offset, length, realtime;
    /* records waiting to be handed out */
    orec *q;
    size_t qhead, qn, qcap;
    orec cur;
    uint64_t events, represented;
    /* consistency (no checksums in OTF2): what can be checked is counted
     * and said at the end, as damage */
    uint64_t undef_loc, undef_region, undef_comm, out_of_order;
    int failed;
    char *members_text;              /* comm members, one string per comm, kept */
    char **texts;
    size_t ntexts;
};

static const char *str_of(const pal_otf2 *o, uint32_t id)
{
    return id < o->nstr && o->str[id] ? o->str[id] : "";
}

/* Grows *arr (elements of size sz, *n of them) so that index i exists. */
static int grow(void **arr, size_t *n, size_t i, size_t sz)
{
    if (i < *n)
        return 0;
    size_t nn = *n ? *n : 16;
    while (nn <= i)
        nn *= 2;
    if (i >= ((size_t)1 << 24))      /* ids are dense: refuse absurd ones */
        return -1;
    void *p = realloc(*arr, nn * sz);
    if (!p)
        return -1;
    memset((char *)p + *n * sz, 0, (nn - *n) * sz);
    *arr = p;
    *n = nn;
    return 0;
}

/* ---------------- global definitions ---------------- */

static OTF2_CallbackCode d_clock(void *ud, uint64_t res, uint64_t off, uint64_t len, uint64_t rt)
{
    pal_otf2 *o = ud;
    o->res = res;
    o->offset = off;
    o->length = len;
    o->realtime = rt;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_string(void *ud, OTF2_StringRef self, const char *s)
{
    pal_otf2 *o = ud;
    if (grow((void **)&o->str, &o->nstr, self, sizeof *o->str) != 0)
        return OTF2_CALLBACK_ERROR;
    free(o->str[self]);
    if (!(o->str[self] = strdup(s)))
        return OTF2_CALLBACK_ERROR;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_region(void *ud, OTF2_RegionRef self, OTF2_StringRef name,
                                  OTF2_StringRef canon, OTF2_StringRef descr, OTF2_RegionRole role,
                                  OTF2_Paradigm paradigm, OTF2_RegionFlag flags, OTF2_StringRef file,
                                  uint32_t b, uint32_t e)
{
    (void)canon, (void)flags, (void)file, (void)b, (void)e;
    pal_otf2 *o = ud;
    if (grow((void **)&o->regions, &o->nregions, self, sizeof *o->regions) != 0)
        return OTF2_CALLBACK_ERROR;
    o->regions[self] = (oregion){ name, descr, role, paradigm, 1, -1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_attribute(void *ud, OTF2_AttributeRef self, OTF2_StringRef name,
                                     OTF2_StringRef descr, OTF2_Type type)
{
    (void)descr, (void)type;
    pal_otf2 *o = ud;
    if (grow((void **)&o->attr_name, &o->nattrs, self, sizeof *o->attr_name) != 0)
        return OTF2_CALLBACK_ERROR;
    o->attr_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_locgroup(void *ud, OTF2_LocationGroupRef self, OTF2_StringRef name,
                                    OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent,
                                    OTF2_LocationGroupRef creator)
{
    (void)name;
    pal_otf2 *o = ud;
    if (grow((void **)&o->lgroups, &o->nlgroups, self, sizeof *o->lgroups) != 0)
        return OTF2_CALLBACK_ERROR;
    o->lgroups[self] = (olgroup){ type, creator, parent, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_stnode(void *ud, OTF2_SystemTreeNodeRef self, OTF2_StringRef name,
                                  OTF2_StringRef cls, OTF2_SystemTreeNodeRef parent)
{
    (void)cls, (void)parent;
    pal_otf2 *o = ud;
    if (grow((void **)&o->nodes, &o->nnodes, self, sizeof *o->nodes) != 0)
        return OTF2_CALLBACK_ERROR;
    o->nodes[self].name = name;
    o->nodes[self].used = 1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_stdomain(void *ud, OTF2_SystemTreeNodeRef node,
                                    OTF2_SystemTreeDomain domain)
{
    pal_otf2 *o = ud;
    if (domain != OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE)
        return OTF2_CALLBACK_SUCCESS;
    if (grow((void **)&o->nodes, &o->nnodes, node, sizeof *o->nodes) != 0)
        return OTF2_CALLBACK_ERROR;
    o->nodes[node].accel = 1;
    return OTF2_CALLBACK_SUCCESS;
}

/* The device of location group g: the number that names its system tree
 * node of domain ACCELERATOR_DEVICE; -1 when it has none. */
static int64_t group_device(const pal_otf2 *o, OTF2_LocationGroupRef g)
{
    if (g >= o->nlgroups || !o->lgroups[g].used)
        return -1;
    OTF2_SystemTreeNodeRef n = o->lgroups[g].parent;
    if (n >= o->nnodes || !o->nodes[n].used || !o->nodes[n].accel)
        return -1;
    const char *s = str_of(o, o->nodes[n].name);
    if (!s || !*s || strlen(s) > 9 || strspn(s, "0123456789") != strlen(s))
        return -1;
    return strtoll(s, NULL, 10);
}

static OTF2_CallbackCode d_location(void *ud, OTF2_LocationRef self, OTF2_StringRef name,
                                    OTF2_LocationType type, uint64_t nev, OTF2_LocationGroupRef g)
{
    pal_otf2 *o = ud;
    if (o->nlocs == o->caplocs) {
        size_t nc = o->caplocs ? o->caplocs * 2 : 16;
        oloc *nl = realloc(o->locs, nc * sizeof *nl);
        if (!nl)
            return OTF2_CALLBACK_ERROR;
        o->locs = nl;
        o->caplocs = nc;
    }
    oloc *l = &o->locs[o->nlocs++];
    memset(l, 0, sizeof *l);
    l->id = self;
    l->group = g;
    l->name = name;
    l->events = nev;
    l->accel = type == OTF2_LOCATION_TYPE_ACCELERATOR_STREAM;
    l->device = -1;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_group(void *ud, OTF2_GroupRef self, OTF2_StringRef name,
                                 OTF2_GroupType type, OTF2_Paradigm paradigm, OTF2_GroupFlag flags,
                                 uint32_t n, const uint64_t *members)
{
    (void)name, (void)flags;
    pal_otf2 *o = ud;
    if (grow((void **)&o->groups, &o->ngroups, self, sizeof *o->groups) != 0)
        return OTF2_CALLBACK_ERROR;
    ogroup *g = &o->groups[self];
    free(g->members);
    *g = (ogroup){ type, paradigm, malloc((n ? n : 1) * sizeof *members), n, 1 };
    if (!g->members)
        return OTF2_CALLBACK_ERROR;
    memcpy(g->members, members, n * sizeof *members);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_comm(void *ud, OTF2_CommRef self, OTF2_StringRef name,
                                OTF2_GroupRef group, OTF2_CommRef parent, OTF2_CommFlag flags)
{
    (void)parent, (void)flags;
    pal_otf2 *o = ud;
    if (grow((void **)&o->comms, &o->ncomms, self, sizeof *o->comms) != 0)
        return OTF2_CALLBACK_ERROR;
    o->comms[self] = (ocomm){ name, group, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_rmawin(void *ud, OTF2_RmaWinRef self, OTF2_StringRef name,
                                  OTF2_CommRef comm, OTF2_RmaWinFlag flags)
{
    (void)name, (void)flags;
    pal_otf2 *o = ud;
    if (grow((void **)&o->wincomm, &o->nwins, self, sizeof *o->wincomm) != 0)
        return OTF2_CALLBACK_ERROR;
    o->wincomm[self] = comm;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_member(void *ud, OTF2_MetricMemberRef self, OTF2_StringRef name,
                                  OTF2_StringRef descr, OTF2_MetricType mt, OTF2_MetricMode mode,
                                  OTF2_Type vt, OTF2_Base base, int64_t exp, OTF2_StringRef unit)
{
    (void)descr, (void)mt, (void)mode, (void)vt, (void)base, (void)exp;
    pal_otf2 *o = ud;
    if (grow((void **)&o->members, &o->nmembers, self, sizeof *o->members) != 0)
        return OTF2_CALLBACK_ERROR;
    o->members[self] = (omember){ name, unit, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_class(void *ud, OTF2_MetricRef self, uint8_t n,
                                 const OTF2_MetricMemberRef *m, OTF2_MetricOccurrence occ,
                                 OTF2_RecorderKind kind)
{
    (void)occ, (void)kind;
    pal_otf2 *o = ud;
    if (grow((void **)&o->classes, &o->nclasses, self, sizeof *o->classes) != 0)
        return OTF2_CALLBACK_ERROR;
    oclass *c = &o->classes[self];
    free(c->members);
    *c = (oclass){ malloc((n ? n : 1) * sizeof *m), n, 1 };
    if (!c->members)
        return OTF2_CALLBACK_ERROR;
    memcpy(c->members, m, n * sizeof *m);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_param(void *ud, OTF2_ParameterRef self, OTF2_StringRef name,
                                 OTF2_ParameterType type)
{
    (void)type;
    pal_otf2 *o = ud;
    if (grow((void **)&o->params, &o->nparams, self, sizeof *o->params) != 0)
        return OTF2_CALLBACK_ERROR;
    o->params[self] = (oparam){ name, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_ioparadigm(void *ud, OTF2_IoParadigmRef self, OTF2_StringRef ident,
                                      OTF2_StringRef name, OTF2_IoParadigmClass cls,
                                      OTF2_IoParadigmFlag flags, uint8_t n,
                                      const OTF2_IoParadigmProperty *props, const OTF2_Type *types,
                                      const OTF2_AttributeValue *values)
{
    (void)name, (void)cls, (void)flags, (void)n, (void)props, (void)types, (void)values;
    pal_otf2 *o = ud;
    if (grow((void **)&o->ioparadigm_id, &o->nioparadigms, self, sizeof *o->ioparadigm_id) != 0)
        return OTF2_CALLBACK_ERROR;
    o->ioparadigm_id[self] = ident;
    return OTF2_CALLBACK_SUCCESS;
}

/* IoRegularFile and IoDirectory: one name space */
static OTF2_CallbackCode d_iofile(void *ud, OTF2_IoFileRef self, OTF2_StringRef name,
                                  OTF2_SystemTreeNodeRef scope)
{
    (void)scope;
    pal_otf2 *o = ud;
    if (grow((void **)&o->iofile_name, &o->niofiles, self, sizeof *o->iofile_name) != 0)
        return OTF2_CALLBACK_ERROR;
    o->iofile_name[self] = name;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode d_iohandle(void *ud, OTF2_IoHandleRef self, OTF2_StringRef name,
                                    OTF2_IoFileRef file, OTF2_IoParadigmRef paradigm,
                                    OTF2_IoHandleFlag flags, OTF2_CommRef comm,
                                    OTF2_IoHandleRef parent)
{
    (void)flags, (void)comm, (void)parent;
    pal_otf2 *o = ud;
    if (grow((void **)&o->iohandles, &o->niohandles, self, sizeof *o->iohandles) != 0)
        return OTF2_CALLBACK_ERROR;
    o->iohandles[self] = (oiohandle){ name, file, paradigm, 1 };
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------- locations, ranks ---------------- */

static int loc_cmp(const void *a, const void *b)
{
    const oloc *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static int byid_cmp(const void *a, const void *b)
{
    const oloc *x = *(const oloc *const *)a, *y = *(const oloc *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The location with OTF2 id `id` (events come in runs from one location:
 * the last one found is tried first), NULL if the archive defines none. */
static oloc *loc_find(pal_otf2 *o, uint64_t id)
{
    if (o->last && o->last->id == id)
        return o->last;
    size_t lo = 0, hi = o->nlocs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->byid[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < o->nlocs && o->byid[lo]->id == id)
        return o->last = o->byid[lo];
    return NULL;
}

/* The world rank (location group) of rank r of communicator comm; r as it
 * is when the communicator's groups do not say. */
static int64_t world_rank(pal_otf2 *o, OTF2_CommRef comm, uint32_t r)
{
    if (r == OTF2_UNDEFINED_UINT32)
        return -1;
    if (comm >= o->ncomms || !o->comms[comm].used)
        return r;
    uint32_t g = o->comms[comm].group;
    if (g >= o->ngroups || !o->groups[g].used)
        return r;
    const ogroup *cg = &o->groups[g];
    if (cg->type == OTF2_GROUP_TYPE_COMM_SELF)
        return -1;
    if (cg->type != OTF2_GROUP_TYPE_COMM_GROUP || r >= cg->n)
        return r;
    uint64_t idx = cg->members[r];
    if (o->commloc < 0 || o->groups[o->commloc].paradigm != cg->paradigm) {
        /* the COMM_LOCATIONS group of the paradigm (one, for MPI) */
        o->commloc = -1;
        for (size_t i = 0; i < o->ngroups && o->commloc < 0; i++)
            if (o->groups[i].used && o->groups[i].type == OTF2_GROUP_TYPE_COMM_LOCATIONS &&
                o->groups[i].paradigm == cg->paradigm)
                o->commloc = (long)i;
    }
    if (o->commloc >= 0 && idx < o->groups[o->commloc].n) {
        const oloc *l = loc_find(o, o->groups[o->commloc].members[idx]);
        return l ? (int64_t)l->group : (int64_t)idx;
    }
    return (int64_t)idx;
}

/* ---------------- records ---------------- */

/* an OTF2 time in ns from the archive's offset */
static int64_t ns_of(const pal_otf2 *o, OTF2_TimeStamp t)
{
    if (t == OTF2_UNDEFINED_TIMESTAMP)
        return 0;
    if (o->res == 1000000000)
        return (int64_t)(t - o->offset);
    /* a damaged timer resolution or time can scale beyond int64: kept at its ends */
    double ns = ((double)t - (double)o->offset) * (1e9 / (double)(o->res ? o->res : 1));
    return ns >= 9.2e18 ? INT64_MAX : ns <= -9.2e18 ? INT64_MIN : (int64_t)ns;
}

static orec *push(pal_otf2 *o, int type, const oloc *l, OTF2_TimeStamp t)
{
    if (o->qn == o->qcap) {
        size_t nc = o->qcap ? o->qcap * 2 : 64;
        orec *nq = realloc(o->q, nc * sizeof *nq);
        if (!nq) {
            o->failed = 1;
            return NULL;
        }
        o->q = nq;
        o->qcap = nc;
    }
    orec *e = &o->q[o->qn++];
    e->type = type;
    e->process = l ? l->group : 0;
    e->stream = l ? l->thread : 0;
    e->tns = ns_of(o, t);
    const char *n = rec_names[type];
    e->v[0].s = (const unsigned char *)n;
    e->len[0] = (uint32_t)strlen(n);
    e->v[1].i = e->tns;
    e->len[1] = 0;
    e->v[2].i = e->process;
    e->len[2] = 0;
    e->v[3].i = e->stream;
    e->len[3] = 0;
    for (size_t i = 4; i < MAXF; i++)
        e->len[i] = 0;
    return e;
}

static void set_s(orec *e, int i, const char *s)
{
    e->v[i].s = (const unsigned char *)s;
    e->len[i] = (uint32_t)strlen(s);
}

static void set_u(orec *e, int i, uint64_t v) { e->v[i].u = v; }
static void set_i(orec *e, int i, int64_t v) { e->v[i].i = v; }

static const char *role_name(OTF2_RegionRole r)
{
    switch (r) {
    case OTF2_REGION_ROLE_FUNCTION: return "function";
    case OTF2_REGION_ROLE_BARRIER: return "barrier";
    case OTF2_REGION_ROLE_COLL_ONE2ALL: return "coll_one2all";
    case OTF2_REGION_ROLE_COLL_ALL2ONE: return "coll_all2one";
    case OTF2_REGION_ROLE_COLL_ALL2ALL: return "coll_all2all";
    case OTF2_REGION_ROLE_COLL_OTHER: return "coll_other";
    case OTF2_REGION_ROLE_POINT2POINT: return "point2point";
    case OTF2_REGION_ROLE_ARTIFICIAL: return "artificial";
    case OTF2_REGION_ROLE_WRAPPER: return "wrapper";
    case OTF2_REGION_ROLE_LOOP: return "loop";
    case OTF2_REGION_ROLE_CODE: return "code";
    case OTF2_REGION_ROLE_FILE_IO: return "file_io";
    case OTF2_REGION_ROLE_RMA: return "rma";
    default: return "other";
    }
}

static const char *paradigm_name(OTF2_Paradigm p)
{
    switch (p) {
    case OTF2_PARADIGM_USER: return "user";
    case OTF2_PARADIGM_COMPILER: return "compiler";
    case OTF2_PARADIGM_MPI: return "mpi";
    case OTF2_PARADIGM_OPENMP: return "openmp";
    case OTF2_PARADIGM_PTHREAD: return "pthread";
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM: return "measurement_system";
    case OTF2_PARADIGM_CUDA: return "cuda";
    default: return "other";
    }
}

/* The operation of the vocabulary (pal.h), PAL_COLL_OP_NONE for OTF2's others. */
static pal_coll_op coll_of_otf2(OTF2_CollectiveOp op)
{
    switch (op) {
#define X(id, name, otf2_op, otf2_role) case OTF2_COLLECTIVE_OP_##otf2_op: return PAL_COLL_##id;
    PAL_COLLECTIVE_OPS(X)
#undef X
    default: return PAL_COLL_OP_NONE;
    }
}

static const char *op_name(OTF2_CollectiveOp op)
{
    pal_coll_op c = coll_of_otf2(op);
    if (c != PAL_COLL_OP_NONE)
        return pal_coll_op_name(c);
    switch (op) {   /* OTF2's operations beyond MPI's */
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE: return "create_handle";
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE: return "destroy_handle";
    case OTF2_COLLECTIVE_OP_ALLOCATE: return "allocate";
    case OTF2_COLLECTIVE_OP_DEALLOCATE: return "deallocate";
    case OTF2_COLLECTIVE_OP_CREATE_HANDLE_AND_ALLOCATE: return "create_handle_and_allocate";
    case OTF2_COLLECTIVE_OP_DESTROY_HANDLE_AND_DEALLOCATE: return "destroy_handle_and_deallocate";
    default: return "other";
    }
}

static int collective_role(OTF2_RegionRole r)
{
    return r == OTF2_REGION_ROLE_BARRIER || r == OTF2_REGION_ROLE_IMPLICIT_BARRIER ||
           r == OTF2_REGION_ROLE_COLL_ONE2ALL || r == OTF2_REGION_ROLE_COLL_ALL2ONE ||
           r == OTF2_REGION_ROLE_COLL_ALL2ALL || r == OTF2_REGION_ROLE_COLL_OTHER;
}

/* ---------------- events ---------------- */

#define EV_HEAD OTF2_LocationRef lid, OTF2_TimeStamp t, void *ud, OTF2_AttributeList *al
#define EV_BEGIN(type)                                                          \
    pal_otf2 *o = ud;                                                           \
    (void)al;                                                                   \
    oloc *l = loc_find(o, lid);                                                 \
    o->represented++;                                                           \
    check_event(o, l, t);                                                       \
    orec *e = push(o, (type), l, t);                                            \
    if (!e)                                                                     \
        return OTF2_CALLBACK_INTERRUPT

/* An event's location: defined, its times in order, its events no more
 * than its definition declares (checked at the end). */
static void check_event(pal_otf2 *o, oloc *l, OTF2_TimeStamp t)
{
    if (!l) {
        o->undef_loc++;
        return;
    }
    if (l->seen++ > 0 && t < l->last_t && t != OTF2_UNDEFINED_TIMESTAMP)
        o->out_of_order++;
    if (t != OTF2_UNDEFINED_TIMESTAMP)
        l->last_t = t;
}

/* RF_* of region r: the words of its description ("ecl:idle", ...) */
static int region_flags(pal_otf2 *o, OTF2_RegionRef r)
{
    if (r >= o->nregions || !o->regions[r].used)
        return 0;
    oregion *g = &o->regions[r];
    if (g->flags < 0) {
        const char *d = str_of(o, g->descr);
        /* the measurement system's own time (Score-P's and ECL's buffer
         * flushes): overhead, not a region of the program */
        g->flags = g->role == OTF2_REGION_ROLE_ARTIFICIAL &&
                           g->paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM
                       ? RF_OVERHEAD
                       : 0;
        for (const char *w = d; w && *w;) {
            size_t n = strcspn(w, " ");
            if (n == 8 && memcmp(w, "ecl:idle", 8) == 0)
                g->flags |= RF_IDLE;
            else if (n == 17 && memcmp(w, "ecl:process_begin", 17) == 0)
                g->flags |= RF_PROCESS_BEGIN;
            else if (n == 15 && memcmp(w, "ecl:process_end", 15) == 0)
                g->flags |= RF_PROCESS_END;
            w += n + (w[n] == ' ');
        }
    }
    return g->flags;
}

static int region_type(pal_otf2 *o, OTF2_RegionRef r, int leave, const oloc *l)
{
    int idle = !leave && (region_flags(o, r) & RF_IDLE);
    if (l && l->accel)
        return leave ? R_DEVICE_LEAVE : R_DEVICE_ENTER;
    if (r < o->nregions && o->regions[r].used) {
        if (collective_role(o->regions[r].role))
            return leave ? R_COLL_LEAVE : idle ? R_COLL_ENTER_IDLE : R_COLL_ENTER;
        if (o->regions[r].paradigm == OTF2_PARADIGM_MPI)
            return leave ? R_MPI_LEAVE : idle ? R_MPI_ENTER_IDLE : R_MPI_ENTER;
    }
    return leave ? R_LEAVE : idle ? R_ENTER_IDLE : R_ENTER;
}

/* the ecl:bytes* attributes among the definitions, once */
static void resolve_attrs(pal_otf2 *o)
{
    static const char *const names[3] = {"ecl:bytes_sent", "ecl:bytes_received", "ecl:bytes"};
    o->attrs_resolved = 1;
    for (size_t a = 0; a < o->nattrs; a++)
        for (int i = 0; i < 3; i++) {
            const char *n = str_of(o, o->attr_name[a]);
            if (n && strcmp(n, names[i]) == 0)
                o->attr_bytes[i] = a + 1;
        }
}

static OTF2_CallbackCode e_enter(EV_HEAD, OTF2_RegionRef r)
{
    if (region_flags(ud, r) & RF_OVERHEAD) {
        /* one overhead record with its duration, at the Leave */
        oloc *pl = loc_find(ud, lid);
        if (pl) {
            pl->ovh_open = 1;
            pl->ovh_t = t;
        }
        ((pal_otf2 *)ud)->represented++;   /* by the record at the Leave */
        return OTF2_CALLBACK_SUCCESS;
    }
    if (region_flags(ud, r) & (RF_PROCESS_BEGIN | RF_PROCESS_END)) {
        /* one process_begin/_end record with its duration, at the Leave */
        oloc *pl = loc_find(ud, lid);
        if (pl) {
            pl->proc_open = 1;
            pl->proc_t = t;
        }
        ((pal_otf2 *)ud)->represented++;   /* by the record at the Leave */
        return OTF2_CALLBACK_SUCCESS;
    }
    EV_BEGIN(region_type(ud, r, 0, loc_find(ud, lid)));
    if (r >= o->nregions || !o->regions[r].used)
        o->undef_region++;
    set_u(e, 4, r);
    if (e->type == R_DEVICE_ENTER && l) {
        l->depth++;
        set_i(e, 5, l->device);
        e->len[5] = l->device < 0 ? PAL_ABSENT : 0;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_process(EV_HEAD, OTF2_RegionRef r, int type)
{
    oloc *pl = loc_find(ud, lid);
    OTF2_TimeStamp t0 = pl && pl->proc_open ? pl->proc_t : t;
    if (pl)
        pl->proc_open = 0;
    EV_BEGIN(type);
    set_u(e, 4, r);
    set_i(e, 5, e->tns - ns_of(o, t0));
    return OTF2_CALLBACK_SUCCESS;
}

/* The overhead region r entered at t0 (its Enter, or t without one) and
 * left at t: an overhead record at t0 with the duration. Nothing happens on
 * the location in between (a flush encloses no event), so the records stay
 * in time order. */
static OTF2_CallbackCode e_overhead(EV_HEAD, OTF2_RegionRef r)
{
    oloc *pl = loc_find(ud, lid);
    OTF2_TimeStamp t1 = t;
    if (pl && pl->ovh_open && pl->ovh_t <= t)
        t = pl->ovh_t;
    if (pl)
        pl->ovh_open = 0;
    EV_BEGIN(R_OVERHEAD);
    set_u(e, 4, r);
    set_i(e, 5, ns_of(o, t1) - e->tns);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_leave(EV_HEAD, OTF2_RegionRef r)
{
    int pf = region_flags(ud, r);
    if (pf & RF_OVERHEAD)
        return e_overhead(lid, t, ud, al, r);
    if (pf & (RF_PROCESS_BEGIN | RF_PROCESS_END))
        return e_process(lid, t, ud, al, r, (pf & RF_PROCESS_BEGIN) ? R_PROCESS_BEGIN
                                                                  : R_PROCESS_END);
    const oloc *pl = loc_find(ud, lid);
    int type = region_type(ud, r, 1, pl);
    if (type == R_COLL_LEAVE && pl && pl->coll_pending && pl->coll_op != PAL_COLL_OP_NONE)
        type = R_COLL_OP + (int)pl->coll_op;
    else if (type != R_COLL_LEAVE && type != R_DEVICE_LEAVE && pl && pl->rma_pending)
        type = R_RMA + pl->rma_pending - 1;
    else if (type == R_LEAVE && pl && pl->io_pending)
        type = R_IO_LEAVE;
    EV_BEGIN(type);
    set_u(e, 4, r);
    if (r >= o->nregions || !o->regions[r].used)
        o->undef_region++;
    if (type >= R_RMA && type < R_RMA + PAL_RMA_KIND_COUNT && l) {
        OTF2_CommRef c = l->rma_win < o->nwins ? o->wincomm[l->rma_win] : 0;
        set_u(e, 5, c);
        set_u(e, 6, l->rma_win);
        set_i(e, 7, l->rma_peer);
        set_u(e, 8, l->rma_bytes);
        l->rma_pending = 0;
    } else if (type == R_IO_LEAVE && l) {
        set_u(e, 5, l->io_handle);
        set_s(e, 6, l->io_op);
        set_u(e, 7, l->io_bytes);
        l->io_pending = 0;
        l->io_bytes = 0;
    } else if (type == R_MPI_LEAVE || type == R_LEAVE || type == R_DEVICE_LEAVE) {
        /* the bytes the call moved, when the writer said them (ECL's export:
         * MPI calls, and any other call that moves bytes -- POSIX I/O, GPU
         * copies) */
        if (!o->attrs_resolved)
            resolve_attrs(o);
        for (int i = 0; i < 3; i++) {
            uint64_t v;
            e->len[5 + i] = PAL_ABSENT;
            OTF2_AttributeRef a = (OTF2_AttributeRef)(o->attr_bytes[i] - 1);
            if (al && o->attr_bytes[i] && OTF2_AttributeList_TestAttributeByID(al, a) &&
                OTF2_AttributeList_GetUint64(al, a, &v) == OTF2_SUCCESS) {
                set_u(e, 5 + i, v);
                e->len[5 + i] = 0;
            }
        }
        if (type == R_DEVICE_LEAVE && l) {
            /* a copy inside the region (RmaGet/RmaPut): its bytes, by
             * direction; the device */
            if (l->copy_open) {
                set_u(e, 5, l->copy_out);
                set_u(e, 6, l->copy_in);
                e->len[5] = e->len[6] = 0;
                l->copy_open = 0;
                l->copy_in = l->copy_out = 0;
            }
            if (l->depth)
                l->depth--;
            set_i(e, 8, l->device);
            e->len[8] = l->device < 0 ? PAL_ABSENT : 0;
        }
    } else if (e->type == R_COLL_LEAVE || (type >= R_COLL_OP && type < R_RMA)) {
        if (l && l->coll_pending) {
            set_u(e, 5, l->coll_comm);
            set_i(e, 6, l->coll_root);
            set_u(e, 7, l->coll_sent);
            set_u(e, 8, l->coll_recv);
            l->coll_pending = 0;
        } else {
            for (int i = 5; i <= 8; i++)
                e->len[i] = PAL_ABSENT;
        }
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* A message sent or received: the other end as a world rank. */
static OTF2_CallbackCode p2p(EV_HEAD, int type, uint32_t other, OTF2_CommRef comm, uint32_t tag,
                             uint64_t len, uint64_t req)
{
    EV_BEGIN(type);
    if (comm >= o->ncomms || !o->comms[comm].used)
        o->undef_comm++;
    set_i(e, 4, world_rank(o, comm, other));
    set_u(e, 5, comm);
    set_i(e, 6, tag == OTF2_UNDEFINED_UINT32 ? -1 : (int64_t)tag);
    set_u(e, 7, len);
    set_u(e, 8, req);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_send(EV_HEAD, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                uint64_t len)
{
    return p2p(lid, t, ud, al, R_SEND, receiver, comm, tag, len, 0);
}

static OTF2_CallbackCode e_isend(EV_HEAD, uint32_t receiver, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len, uint64_t req)
{
    return p2p(lid, t, ud, al, R_ISEND, receiver, comm, tag, len, req);
}

static OTF2_CallbackCode e_recv(EV_HEAD, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                uint64_t len)
{
    return p2p(lid, t, ud, al, R_RECV, sender, comm, tag, len, 0);
}

static OTF2_CallbackCode e_irecv(EV_HEAD, uint32_t sender, OTF2_CommRef comm, uint32_t tag,
                                 uint64_t len, uint64_t req)
{
    return p2p(lid, t, ud, al, R_IRECV, sender, comm, tag, len, req);
}

/* A request completed or announced. */
static OTF2_CallbackCode request(EV_HEAD, int type, uint64_t req)
{
    EV_BEGIN(type);
    set_u(e, 4, req);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_isend_done(EV_HEAD, uint64_t req)
{
    return request(lid, t, ud, al, R_ISEND_COMPLETE, req);
}

static OTF2_CallbackCode e_irecv_req(EV_HEAD, uint64_t req)
{
    return request(lid, t, ud, al, R_IRECV_REQUEST, req);
}

static OTF2_CallbackCode e_coll_begin(EV_HEAD)
{
    EV_BEGIN(R_COLLECTIVE_BEGIN);
    (void)e;
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_coll_end(EV_HEAD, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root,
                                    uint64_t sent, uint64_t recvd)
{
    EV_BEGIN(R_COLLECTIVE_END);
    int64_t wr = root >= OTF2_COLLECTIVE_ROOT_THIS_GROUP ? -1 : world_rank(o, comm, root);
    set_s(e, 4, op_name(op));
    set_u(e, 5, comm);
    set_i(e, 6, wr);
    set_u(e, 7, sent);
    set_u(e, 8, recvd);
    if (l) {
        l->coll_pending = 1;
        l->coll_op = coll_of_otf2(op);
        l->coll_comm = comm;
        l->coll_root = wr;
        l->coll_sent = sent;
        l->coll_recv = recvd;
    }
    return OTF2_CALLBACK_SUCCESS;
}

/* An Rma event: remembered for the Leave of its region (it becomes the
 * leave's rma_ role); the data the record needs, the target as a world rank. */
static OTF2_CallbackCode rma(EV_HEAD, int kind, OTF2_RmaWinRef win, uint32_t remote,
                             uint64_t bytes)
{
    pal_otf2 *o = ud;
    (void)al;
    oloc *l = loc_find(o, lid);
    o->represented++;
    if (l && l->accel) {
        /* on a GPU stream, a copy between host and device (Score-P's CUDA
         * memcpy): the device reads (RmaGet) or writes (RmaPut) host
         * memory; the window's other events say nothing of it */
        if (kind == PAL_RMA_GET || kind == PAL_RMA_PUT) {
            if (!l->copy_open) {
                l->copy_open = 1;
                l->copy_t0 = t;
            }
            if (kind == PAL_RMA_GET)
                l->copy_in += bytes;
            else
                l->copy_out += bytes;
        }
        return OTF2_CALLBACK_SUCCESS;
    }
    if (l && !l->rma_pending) {     /* one per region: the first */
        OTF2_CommRef c = win < o->nwins ? o->wincomm[win] : 0;
        l->rma_pending = kind + 1;
        l->rma_win = win;
        l->rma_peer = remote == OTF2_UNDEFINED_UINT32 ? -1 : world_rank(o, c, remote);
        l->rma_bytes = bytes;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_rma_put(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                                   uint64_t mid)
{
    (void)mid;
    return rma(lid, t, ud, al, PAL_RMA_PUT, w, remote, bytes);
}

static OTF2_CallbackCode e_rma_get(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t bytes,
                                   uint64_t mid)
{
    (void)mid;
    return rma(lid, t, ud, al, PAL_RMA_GET, w, remote, bytes);
}

static OTF2_CallbackCode e_rma_atomic(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote,
                                      OTF2_RmaAtomicType type, uint64_t sent, uint64_t recvd,
                                      uint64_t mid)
{
    (void)type, (void)recvd, (void)mid;
    return rma(lid, t, ud, al, PAL_RMA_ATOMIC, w, remote, sent);
}

static OTF2_CallbackCode e_rma_wcreate(EV_HEAD, OTF2_RmaWinRef w)
{
    return rma(lid, t, ud, al, PAL_RMA_WIN_CREATE, w, OTF2_UNDEFINED_UINT32, 0);
}

static OTF2_CallbackCode e_rma_wdestroy(EV_HEAD, OTF2_RmaWinRef w)
{
    return rma(lid, t, ud, al, PAL_RMA_WIN_FREE, w, OTF2_UNDEFINED_UINT32, 0);
}

static OTF2_CallbackCode e_rma_sync(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote,
                                    OTF2_RmaSyncType type)
{
    (void)type;
    return rma(lid, t, ud, al, PAL_RMA_SYNC, w, remote, 0);
}

static OTF2_CallbackCode e_rma_gsync(EV_HEAD, OTF2_RmaSyncLevel level, OTF2_RmaWinRef w,
                                     OTF2_GroupRef g)
{
    (void)level, (void)g;
    return rma(lid, t, ud, al, PAL_RMA_SYNC, w, OTF2_UNDEFINED_UINT32, 0);
}

static OTF2_CallbackCode e_rma_lock(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t id,
                                    OTF2_LockType type)
{
    (void)id, (void)type;
    return rma(lid, t, ud, al, PAL_RMA_LOCK, w, remote, 0);
}

static OTF2_CallbackCode e_rma_unlock(EV_HEAD, OTF2_RmaWinRef w, uint32_t remote, uint64_t id)
{
    (void)id;
    return rma(lid, t, ud, al, PAL_RMA_UNLOCK, w, remote, 0);
}

static OTF2_CallbackCode e_rma_done(EV_HEAD, OTF2_RmaWinRef w, uint64_t mid)
{
    (void)w, (void)mid;
    oloc *pl = loc_find(ud, lid);
    if (!pl || !pl->accel || !pl->copy_open || pl->depth > 0) {
        ((pal_otf2 *)ud)->represented++;    /* the operation's record says it */
        return OTF2_CALLBACK_SUCCESS;
    }
    /* a copy on a GPU stream outside any region (Score-P's): one call
     * record, at its end */
    OTF2_TimeStamp t0 = pl->copy_t0 <= t ? pl->copy_t0 : t;
    EV_BEGIN(R_DEVICE_COPY);
    set_i(e, 4, e->tns - ns_of(o, t0));
    set_s(e, 5, l->copy_in && !l->copy_out   ? "memcpy HtoD"
                : l->copy_out && !l->copy_in ? "memcpy DtoH"
                                             : "memcpy");
    set_u(e, 6, l->copy_in);
    set_u(e, 7, l->copy_out);
    set_i(e, 8, l->device);
    e->len[8] = l->device < 0 ? PAL_ABSENT : 0;
    l->copy_open = 0;
    l->copy_in = l->copy_out = 0;
    return OTF2_CALLBACK_SUCCESS;
}

/* An I/O event: remembered for the Leave of its region (an io_leave record):
 * the handle, what was done, the bytes moved. */
static OTF2_CallbackCode io_event(EV_HEAD, OTF2_IoHandleRef h, const char *op, uint64_t bytes)
{
    pal_otf2 *o = ud;
    (void)al, (void)t;
    oloc *l = loc_find(o, lid);
    o->represented++;
    if (l) {
        if (!l->io_pending) {
            l->io_bytes = 0;
            l->io_op = "";
        }
        l->io_pending = 1;
        l->io_handle = h;
        if (op)
            l->io_op = op;
        l->io_bytes += bytes;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_io_create(EV_HEAD, OTF2_IoHandleRef h, OTF2_IoAccessMode mode,
                                     OTF2_IoCreationFlag cflags, OTF2_IoStatusFlag sflags)
{
    (void)mode, (void)cflags, (void)sflags;
    return io_event(lid, t, ud, al, h, "open", 0);
}

static OTF2_CallbackCode e_io_destroy(EV_HEAD, OTF2_IoHandleRef h)
{
    return io_event(lid, t, ud, al, h, "close", 0);
}

static OTF2_CallbackCode e_io_begin(EV_HEAD, OTF2_IoHandleRef h, OTF2_IoOperationMode mode,
                                    OTF2_IoOperationFlag flags, uint64_t request, uint64_t mid)
{
    (void)flags, (void)request, (void)mid;
    return io_event(lid, t, ud, al, h,
                    mode == OTF2_IO_OPERATION_MODE_READ ? "read"
                    : mode == OTF2_IO_OPERATION_MODE_WRITE ? "write" : "flush", 0);
}

static OTF2_CallbackCode e_io_done(EV_HEAD, OTF2_IoHandleRef h, uint64_t result, uint64_t mid)
{
    (void)mid;
    /* a failed operation's result is OTF2_UNDEFINED_UINT64 in some writers */
    return io_event(lid, t, ud, al, h, NULL, result == OTF2_UNDEFINED_UINT64 ? 0 : result);
}

static OTF2_CallbackCode e_metric(EV_HEAD, OTF2_MetricRef metric, uint8_t n, const OTF2_Type *types,
                                  const OTF2_MetricValue *values)
{
    pal_otf2 *o = ud;
    (void)al;
    oloc *l = loc_find(o, lid);
    o->represented++;
    const oclass *c = metric < o->nclasses && o->classes[metric].used ? &o->classes[metric] : NULL;
    for (uint8_t i = 0; i < n; i++) {
        int type = types[i] == OTF2_TYPE_DOUBLE || types[i] == OTF2_TYPE_FLOAT ? R_METRIC_FLOAT
                   : types[i] == OTF2_TYPE_UINT64 || types[i] == OTF2_TYPE_UINT32 ||
                           types[i] == OTF2_TYPE_UINT16 || types[i] == OTF2_TYPE_UINT8
                       ? R_METRIC_UINT : R_METRIC_INT;
        orec *e = push(o, type, l, t);
        if (!e)
            return OTF2_CALLBACK_INTERRUPT;
        /* a member of a known class, else the metric's id (no name) */
        set_u(e, 4, c && i < c->n ? c->members[i] : metric);
        if (type == R_METRIC_FLOAT)
            e->v[5].f = values[i].floating_point;
        else if (type == R_METRIC_UINT)
            e->v[5].u = values[i].unsigned_int;
        else
            e->v[5].i = values[i].signed_int;
    }
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_pstring(EV_HEAD, OTF2_ParameterRef p, OTF2_StringRef s)
{
    EV_BEGIN(R_MARKER);
    set_u(e, 4, p);
    set_s(e, 5, str_of(o, s));
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_pint(EV_HEAD, OTF2_ParameterRef p, int64_t v)
{
    EV_BEGIN(R_PARAMETER_INT);
    set_u(e, 4, p);
    set_i(e, 5, v);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_puint(EV_HEAD, OTF2_ParameterRef p, uint64_t v)
{
    EV_BEGIN(R_PARAMETER_INT);
    set_u(e, 4, p);
    set_i(e, 5, (int64_t)v);
    return OTF2_CALLBACK_SUCCESS;
}

static OTF2_CallbackCode e_onoff(EV_HEAD, OTF2_MeasurementMode mode)
{
    EV_BEGIN(mode == OTF2_MEASUREMENT_OFF ? R_PAUSE : R_RESUME);
    (void)e;
    return OTF2_CALLBACK_SUCCESS;
}

/* ---------------- open, next, close ---------------- */

static void ignore_diag(void *ctx, const edl_diagnostic *d)
{
    (void)ctx, (void)d;
}

/* The definition records, queued before every event. */
static int queue_defs(pal_otf2 *o)
{
    for (size_t i = 0; i < o->nlocs; i++) {
        oloc *l = &o->locs[i];
        orec *e = push(o, R_LOCATION, l, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, l->id);
        set_s(e, 5, str_of(o, l->name));
        set_u(e, 6, l->events);
    }
    for (size_t i = 0; i < o->nregions; i++) {
        if (!o->regions[i].used)
            continue;
        orec *e = push(o, R_REGION, NULL, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, i);
        set_s(e, 5, str_of(o, o->regions[i].name));
        set_s(e, 6, role_name(o->regions[i].role));
        set_s(e, 7, paradigm_name(o->regions[i].paradigm));
    }
    /* members as world ranks, "0,1,2": one text per communicator, kept */
    o->texts = calloc(o->ncomms + 1, sizeof *o->texts);
    if (!o->texts)
        return -1;
    o->ntexts = o->ncomms;
    for (size_t i = 0; i < o->ncomms; i++) {
        if (!o->comms[i].used)
            continue;
        uint32_t g = o->comms[i].group;
        uint32_t n = g < o->ngroups && o->groups[g].used &&
                     o->groups[g].type == OTF2_GROUP_TYPE_COMM_GROUP ? o->groups[g].n : 0;
        char *t = malloc((size_t)n * 22 + 1);
        if (!t)
            return -1;
        size_t k = 0;
        t[0] = '\0';
        for (uint32_t r = 0; r < n; r++)
            k += (size_t)sprintf(t + k, r ? ",%" PRId64 : "%" PRId64,
                                 world_rank(o, (OTF2_CommRef)i, r));
        o->texts[i] = t;
        orec *e = push(o, R_COMM, NULL, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, i);
        set_s(e, 5, str_of(o, o->comms[i].name));
        set_i(e, 6, n);
        set_s(e, 7, t);
    }
    for (size_t i = 0; i < o->nmembers; i++) {
        if (!o->members[i].used)
            continue;
        orec *e = push(o, R_METRIC, NULL, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, i);
        set_s(e, 5, str_of(o, o->members[i].name));
        set_s(e, 6, str_of(o, o->members[i].unit));
    }
    for (size_t i = 0; i < o->nparams; i++) {
        if (!o->params[i].used)
            continue;
        orec *e = push(o, R_PARAMETER, NULL, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, i);
        set_s(e, 5, str_of(o, o->params[i].name));
    }
    for (size_t i = 0; i < o->niohandles; i++) {
        const oiohandle *h = &o->iohandles[i];
        if (!h->used)
            continue;
        orec *e = push(o, R_IO_HANDLE, NULL, OTF2_UNDEFINED_TIMESTAMP);
        if (!e)
            return -1;
        set_u(e, 4, i);
        set_s(e, 5, str_of(o, h->name));
        set_s(e, 6, h->file < o->niofiles ? str_of(o, o->iofile_name[h->file]) : "");
        set_s(e, 7, h->paradigm < o->nioparadigms ? str_of(o, o->ioparadigm_id[h->paradigm])
                                                  : "");
    }
    return 0;
}

void pal_otf2_close(pal_otf2 *o)
{
    if (!o)
        return;
    if (o->rd)
        OTF2_Reader_Close(o->rd);
    for (size_t i = 0; i < o->nstr; i++)
        free(o->str[i]);
    free(o->str);
    free(o->regions);
    for (size_t i = 0; i < o->ngroups; i++)
        free(o->groups[i].members);
    free(o->groups);
    free(o->comms);
    free(o->wincomm);
    free(o->members);
    for (size_t i = 0; i < o->nclasses; i++)
        free(o->classes[i].members);
    free(o->classes);
    free(o->params);
    free(o->iofile_name);
    free(o->ioparadigm_id);
    free(o->iohandles);
    free(o->lgroups);
    free(o->nodes);
    free(o->attr_name);
    free(o->locs);
    free(o->byid);
    free(o->q);
    for (size_t i = 0; i < o->ntexts; i++)
        free(o->texts[i]);
    free(o->texts);
    free(o);
}

/* Whether the location has a local definitions file (ARCHIVE/NAME/ID.def
 * beside ARCHIVE/NAME.otf2): writers may leave it out, and libotf2 reports
 * a missing one on stderr. */
static int local_defs(const char *anchor, uint64_t id)
{
    char p[4200];
    size_t n = strlen(anchor);
    if (n < 5 || strcmp(anchor + n - 5, ".otf2") != 0 || n > 4000)
        return 1;
    snprintf(p, sizeof p, "%.*s/%" PRIu64 ".def", (int)(n - 5), anchor, id);
    return access(p, F_OK) == 0;
}

#define OFAIL(status, ...)                                                      \
    do {                                                                        \
        pal_set_last_error(__VA_ARGS__);                                        \
        st = (status);                                                          \
        goto fail;                                                              \
    } while (0)

pal_status pal_otf2_open(pal_reader *r, pal_src *s)
{
    pal_status st = PAL_OK;
    const char *path = s->path;
    edl_dict *ed = NULL;
    pal_dict *d = NULL;
    char err[256] = "";
    pal_otf2 *o = calloc(1, sizeof *o);
    if (!o)
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    o->path = path;
    o->res = 1000000000;
    o->commloc = -1;
    int compiled = edl_compile_string("otf2", otf2_edl, sizeof otf2_edl - 1, ignore_diag, NULL,
                                      &ed) == EDL_OK;
    if (!compiled)
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': the OTF2 description does not compile", path);
    if ((st = pal_dict_wrap(ed, &d, err, sizeof err)) != PAL_OK)
        OFAIL(st, "cannot open trace '%s': %s", path, err);
    for (int i = 0; i < R_COUNT; i++)
        if (!(o->rdesc[i] = pal_dict_find_record(d, rec_names[i])))
            OFAIL(PAL_EFORMAT, "cannot open trace '%s': no record '%s' in the OTF2 description",
                  path, rec_names[i]);
    if (!(o->rd = OTF2_Reader_Open(path)))
        OFAIL(PAL_EFORMAT, "cannot open trace '%s': libotf2 cannot open it as an OTF2 archive",
              path);
    OTF2_ErrorCode oc = OTF2_Reader_SetSerialCollectiveCallbacks(o->rd);
    OTF2_GlobalDefReader *gdr = oc == OTF2_SUCCESS ? OTF2_Reader_GetGlobalDefReader(o->rd) : NULL;
    if (!gdr)
        OFAIL(PAL_EFORMAT, "cannot open trace '%s': no global definitions (%s)", path,
              OTF2_Error_GetDescription(oc));
    OTF2_GlobalDefReaderCallbacks *dc = OTF2_GlobalDefReaderCallbacks_New();
    if (!dc)
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(dc, d_clock);
    OTF2_GlobalDefReaderCallbacks_SetStringCallback(dc, d_string);
    OTF2_GlobalDefReaderCallbacks_SetRegionCallback(dc, d_region);
    OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(dc, d_attribute);
    OTF2_GlobalDefReaderCallbacks_SetLocationCallback(dc, d_location);
    OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(dc, d_locgroup);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(dc, d_stnode);
    OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeDomainCallback(dc, d_stdomain);
    OTF2_GlobalDefReaderCallbacks_SetGroupCallback(dc, d_group);
    OTF2_GlobalDefReaderCallbacks_SetCommCallback(dc, d_comm);
    OTF2_GlobalDefReaderCallbacks_SetRmaWinCallback(dc, d_rmawin);
    OTF2_GlobalDefReaderCallbacks_SetMetricMemberCallback(dc, d_member);
    OTF2_GlobalDefReaderCallbacks_SetMetricClassCallback(dc, d_class);
    OTF2_GlobalDefReaderCallbacks_SetParameterCallback(dc, d_param);
    OTF2_GlobalDefReaderCallbacks_SetIoParadigmCallback(dc, d_ioparadigm);
    OTF2_GlobalDefReaderCallbacks_SetIoRegularFileCallback(dc, d_iofile);
    OTF2_GlobalDefReaderCallbacks_SetIoDirectoryCallback(dc, d_iofile);
    OTF2_GlobalDefReaderCallbacks_SetIoHandleCallback(dc, d_iohandle);
    OTF2_Reader_RegisterGlobalDefCallbacks(o->rd, gdr, dc, o);
    OTF2_GlobalDefReaderCallbacks_Delete(dc);
    uint64_t ndefs = 0;
    oc = OTF2_Reader_ReadAllGlobalDefinitions(o->rd, gdr, &ndefs);
    if (oc != OTF2_SUCCESS)
        OFAIL(PAL_EFORMAT, "cannot open trace '%s': reading the global definitions: %s", path,
              OTF2_Error_GetDescription(oc));
    OTF2_Reader_CloseGlobalDefReader(o->rd, gdr);
    /* definitions that name others the archive does not define */
    uint64_t undef_str = 0, undef_group = 0;
    for (size_t i = 0; i < o->nregions; i++)
        undef_str += o->regions[i].used &&
                     (o->regions[i].name >= o->nstr || !o->str[o->regions[i].name]);
    for (size_t i = 0; i < o->nlocs; i++)
        undef_str += o->locs[i].name != OTF2_UNDEFINED_STRING &&
                     (o->locs[i].name >= o->nstr || !o->str[o->locs[i].name]);
    for (size_t i = 0; i < o->ncomms; i++)
        undef_group += o->comms[i].used && o->comms[i].group != OTF2_UNDEFINED_GROUP &&
                       (o->comms[i].group >= o->ngroups || !o->groups[o->comms[i].group].used);
    if (undef_str)
        pal_reader_note(r, "%s: %" PRIu64 " region or location definitions name a string the "
                        "archive does not define: read as \"\"", path, undef_str);
    if (undef_group)
        pal_reader_note(r, "%s: %" PRIu64 " communicator definitions name a group the archive "
                        "does not define: their ranks are read as world ranks", path,
                        undef_group);
    r->st.damaged += undef_str + undef_group;
    /* a location of an ACCELERATOR group (GPU streams) is of the process
     * that created the group: its rank, threads after the process's own */
    for (size_t i = 0; i < o->nlocs; i++) {
        oloc *l = &o->locs[i];
        if (l->accel)
            l->device = group_device(o, l->group);
        for (int hops = 0; hops < 4 && l->group < o->nlgroups && o->lgroups[l->group].used &&
                           o->lgroups[l->group].type == OTF2_LOCATION_GROUP_TYPE_ACCELERATOR &&
                           o->lgroups[l->group].creator != OTF2_UNDEFINED_LOCATION_GROUP;
             hops++)
            l->group = o->lgroups[l->group].creator;
    }
    /* threads numbered within their location group, by location id */
    if (o->nlocs > 1)      /* none: an archive without locations, locs NULL */
        qsort(o->locs, o->nlocs, sizeof *o->locs, loc_cmp);
    for (size_t i = 0; i < o->nlocs; i++)
        o->locs[i].thread = i > 0 && o->locs[i - 1].group == o->locs[i].group
                                ? o->locs[i - 1].thread + 1 : 0;
    if (!(o->byid = malloc((o->nlocs + 1) * sizeof *o->byid)))
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    for (size_t i = 0; i < o->nlocs; i++)
        o->byid[i] = &o->locs[i];
    if (o->nlocs > 1)
        qsort(o->byid, o->nlocs, sizeof *o->byid, byid_cmp);
    for (size_t i = 0; i < o->nlocs; i++)
        OTF2_Reader_SelectLocation(o->rd, o->locs[i].id);
    int have_defs = OTF2_Reader_OpenDefFiles(o->rd) == OTF2_SUCCESS;
    if ((oc = OTF2_Reader_OpenEvtFiles(o->rd)) != OTF2_SUCCESS)
        OFAIL(PAL_EFORMAT, "cannot open trace '%s': opening the event files: %s", path,
              OTF2_Error_GetDescription(oc));
    for (size_t i = 0; i < o->nlocs; i++) {
        if (have_defs && local_defs(path, o->locs[i].id)) {
            /* local definitions: the id mappings of the location, if any */
            OTF2_DefReader *dr = OTF2_Reader_GetDefReader(o->rd, o->locs[i].id);
            if (dr) {
                uint64_t n = 0;
                OTF2_Reader_ReadAllLocalDefinitions(o->rd, dr, &n);
                OTF2_Reader_CloseDefReader(o->rd, dr);
            }
        }
        OTF2_Reader_GetEvtReader(o->rd, o->locs[i].id);
    }
    if (have_defs)
        OTF2_Reader_CloseDefFiles(o->rd);
    if (!(o->ger = OTF2_Reader_GetGlobalEvtReader(o->rd)))
        OFAIL(PAL_EFORMAT, "cannot open trace '%s': no global event reader", path);
    OTF2_GlobalEvtReaderCallbacks *ec = OTF2_GlobalEvtReaderCallbacks_New();
    if (!ec)
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    OTF2_GlobalEvtReaderCallbacks_SetEnterCallback(ec, e_enter);
    OTF2_GlobalEvtReaderCallbacks_SetLeaveCallback(ec, e_leave);
    OTF2_GlobalEvtReaderCallbacks_SetMpiSendCallback(ec, e_send);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCallback(ec, e_isend);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIsendCompleteCallback(ec, e_isend_done);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvRequestCallback(ec, e_irecv_req);
    OTF2_GlobalEvtReaderCallbacks_SetMpiRecvCallback(ec, e_recv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiIrecvCallback(ec, e_irecv);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveBeginCallback(ec, e_coll_begin);
    OTF2_GlobalEvtReaderCallbacks_SetMpiCollectiveEndCallback(ec, e_coll_end);
    OTF2_GlobalEvtReaderCallbacks_SetMetricCallback(ec, e_metric);
    OTF2_GlobalEvtReaderCallbacks_SetParameterStringCallback(ec, e_pstring);
    OTF2_GlobalEvtReaderCallbacks_SetParameterIntCallback(ec, e_pint);
    OTF2_GlobalEvtReaderCallbacks_SetParameterUnsignedIntCallback(ec, e_puint);
    OTF2_GlobalEvtReaderCallbacks_SetMeasurementOnOffCallback(ec, e_onoff);
    OTF2_GlobalEvtReaderCallbacks_SetRmaPutCallback(ec, e_rma_put);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGetCallback(ec, e_rma_get);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAtomicCallback(ec, e_rma_atomic);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinCreateCallback(ec, e_rma_wcreate);
    OTF2_GlobalEvtReaderCallbacks_SetRmaWinDestroyCallback(ec, e_rma_wdestroy);
    OTF2_GlobalEvtReaderCallbacks_SetRmaSyncCallback(ec, e_rma_sync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaGroupSyncCallback(ec, e_rma_gsync);
    OTF2_GlobalEvtReaderCallbacks_SetRmaAcquireLockCallback(ec, e_rma_lock);
    OTF2_GlobalEvtReaderCallbacks_SetRmaReleaseLockCallback(ec, e_rma_unlock);
    OTF2_GlobalEvtReaderCallbacks_SetRmaOpCompleteBlockingCallback(ec, e_rma_done);
    OTF2_GlobalEvtReaderCallbacks_SetIoCreateHandleCallback(ec, e_io_create);
    OTF2_GlobalEvtReaderCallbacks_SetIoDestroyHandleCallback(ec, e_io_destroy);
    OTF2_GlobalEvtReaderCallbacks_SetIoOperationBeginCallback(ec, e_io_begin);
    OTF2_GlobalEvtReaderCallbacks_SetIoOperationCompleteCallback(ec, e_io_done);
    OTF2_Reader_RegisterGlobalEvtCallbacks(o->rd, o->ger, ec, o);
    OTF2_GlobalEvtReaderCallbacks_Delete(ec);
    if (queue_defs(o) != 0)
        OFAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    for (size_t i = 0; i < o->nlocs; i++)
        o->events += o->locs[i].events;
    /* times are handed out in ns from the archive's global offset */
    d->ns_per_tick = 1;
    r->info.ticks_per_second = 1e9;
    if (o->realtime != OTF2_UNDEFINED_TIMESTAMP && o->realtime <= INT64_MAX)
        r->info.realtime_offset_ns = (int64_t)o->realtime;
    s->dict = d;
    s->framing = FRAMING_OTF2;
    s->otf2 = o;
    return PAL_OK;
fail:
    pal_dict_destroy(d);
    pal_otf2_close(o);
    return st;
}

/* What an OTF2 archive, which has no checksums, lets a reader check: each
 * inconsistency said once with its count, and counted as damage. */
static void consistency(pal_reader *r, const pal_src *s, pal_otf2 *o)
{
    if (o->undef_loc)
        pal_reader_note(r, "%s: %" PRIu64 " events on locations the definitions do not define: "
                        "read as process 0", s->path, o->undef_loc);
    if (o->undef_region)
        pal_reader_note(r, "%s: %" PRIu64 " enter or leave events name a region the "
                        "definitions do not define", s->path, o->undef_region);
    if (o->undef_comm)
        pal_reader_note(r, "%s: %" PRIu64 " messages name a communicator the definitions do "
                        "not define: their peers are read as given", s->path, o->undef_comm);
    if (o->out_of_order)
        pal_reader_note(r, "%s: %" PRIu64 " events come before the event preceding them on "
                        "their location (times out of order)", s->path, o->out_of_order);
    uint64_t over = 0;
    for (size_t i = 0; i < o->nlocs; i++) {
        const oloc *l = &o->locs[i];
        if (l->seen > l->events) {
            if (over++ == 0)
                pal_reader_note(r, "%s: location %" PRIu64 " holds %" PRIu64 " events where "
                                "its definition declares %" PRIu64, s->path, l->id, l->seen,
                                l->events);
        }
    }
    if (over > 1)
        pal_reader_note(r, "%s: %" PRIu64 " locations in all hold more events than their "
                        "definitions declare", s->path, over);
    r->st.damaged += o->undef_loc + o->undef_region + o->undef_comm + o->out_of_order + over;
}

pal_status pal_otf2_next(pal_reader *r, const pal_record **out)
{
    pal_src *s = &r->srcs[0];
    pal_otf2 *o = s->otf2;
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    while (o->qhead == o->qn) {
        o->qhead = o->qn = 0;
        int more = 0;
        OTF2_ErrorCode oc = OTF2_Reader_HasGlobalEvent(o->rd, o->ger, &more);
        if (oc == OTF2_SUCCESS && more)
            oc = OTF2_Reader_ReadGlobalEvent(o->rd, o->ger);
        if (o->failed) {
            pal_reader_note(r, "%s: out of memory", s->path);
            r->state = ST_FAILED;
            r->failed = PAL_ENOMEM;
            return PAL_ENOMEM;
        }
        if (oc != OTF2_SUCCESS) {
            pal_reader_note(r, "%s: event %" PRIu64 ": libotf2: %s; the rest is skipped",
                            s->path, o->represented, OTF2_Error_GetDescription(oc));
            r->st.damaged++;
            r->state = r->strict ? ST_FAILED : ST_ENDED;
            r->failed = PAL_EFORMAT;
            return r->strict ? PAL_EFORMAT : PAL_END;
        }
        if (!more) {
            consistency(r, s, o);
            /* events of kinds the description above has no record for */
            if (o->events > o->represented)
                pal_reader_note(r, "%s: %" PRIu64 " of the archive's %" PRIu64 " events are of "
                                "kinds PAL does not read from OTF2 (threads, I/O seeks and locks, "
                                "calling contexts, ...): skipped", s->path,
                                o->events - o->represented, o->events);
            r->state = ST_ENDED;
            return PAL_END;
        }
    }
    o->cur = o->q[o->qhead++];
    pal_record *rec = &r->rec;
    memset(rec, 0, sizeof *rec);
    rec->desc = o->rdesc[o->cur.type];
    rec->vals = o->cur.v;
    rec->lens = o->cur.len;
    rec->time_ns = o->cur.tns;
    rec->time = o->cur.tns > 0 ? (uint64_t)o->cur.tns : 0;
    rec->process = o->cur.process;
    rec->stream = o->cur.stream;
    rec->offset = r->st.records;
    r->st.records++;
    *out = rec;
    return PAL_OK;
}
