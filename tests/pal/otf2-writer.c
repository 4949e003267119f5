/* otf2-writer.c -- writes a small OTF2 archive with libotf2's writer API, the
 * input of tests/pal/otf2.sh (PAL's OTF2 import): 2 ranks (locations 0 and
 * 1), timer resolution 1e6 (us) from offset 1000. Rank 0: main { MPI_Send
 * (64 bytes, tag 5, to 1), MPI_Isend (128 bytes, tag 6, request 7) and
 * MPI_Wait completing it, MPI_Barrier, a metric "flops" = 42, the parameter
 * "phase" = "done" }. Rank 1: main { two MPI_Recv from 0 (tags 5 and 6),
 * MPI_Barrier, "flops" = 43 }.
 * Usage: otf2-writer DIR [broken]   (writes DIR/traces.otf2)
 * "broken": an archive libotf2 writes and reads without complaint but whose
 * content does not hold together, as a damaged archive (OTF2 has no
 * checksums) may not: after rank 1's events, an enter and a leave of
 * region 99 (not defined), an enter at 1003 (before the event preceding
 * it: out of order), a send on communicator 7 (not defined) and a leave;
 * rank 1 declares 3 events fewer than it holds; MPI_Wait's name is string
 * 77 (not defined).
 * Usage: otf2-writer DIR scorep
 * writes instead what Score-P writes for POSIX I/O and CUDA: one process
 * (location group 0, location 0) that writes 100 bytes to "out.txt" with
 * write() (IoOperationBegin/Complete on the pre-created IoHandle 0 of the
 * IoParadigm POSIX, IoRegularFile 0) and launches a kernel, which runs on
 * location 5, an ACCELERATOR_STREAM of the ACCELERATOR location group 1
 * created by group 0. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *cd, bool final)
{
    (void)ud, (void)ft, (void)l, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)ud, (void)ft, (void)l;
    return 0;
}

enum { R_MAIN, R_SEND, R_RECV, R_BARRIER, R_ISEND, R_WAIT };

static void barrier(OTF2_EvtWriter *w)
{
    OTF2_EvtWriter_Enter(w, NULL, 1040, R_BARRIER);
    OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, 1040);
    OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, 1050, OTF2_COLLECTIVE_OP_BARRIER, 0,
                                    OTF2_UNDEFINED_UINT32, 0, 0);
    OTF2_EvtWriter_Leave(w, NULL, 1050, R_BARRIER);
}

static void metric(OTF2_EvtWriter *w, int64_t v)
{
    OTF2_Type type = OTF2_TYPE_INT64;
    OTF2_MetricValue value;
    value.signed_int = v;
    OTF2_EvtWriter_Metric(w, NULL, 1060, 0, 1, &type, &value);
}

/* libotf2 refuses to write a time before the last one: the time 1074 of
 * rank 1 becomes 1003 in the file (a timestamp is 8 bytes, little-endian
 * here). 0, or 1 with a message. */
static int unorder(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/1.evt", dir);
    FILE *f = fopen(path, "r+b");
    unsigned char b[65536];
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    for (size_t i = 0; i + 8 <= n; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | b[i + k];
        if (v == 1074) {
            unsigned char t[8] = { 1003 & 0xff, 1003 >> 8, 0, 0, 0, 0, 0, 0 };
            if (fseek(f, (long)i, SEEK_SET) == 0 && fwrite(t, 1, 8, f) == 8 && fclose(f) == 0)
                return 0;
            break;
        }
    }
    fprintf(stderr, "otf2-writer: cannot put a time out of order in '%s'\n", path);
    if (f)
        fclose(f);
    return 1;
}

/* otf2-writer DIR scorep (above). 0, or 1 with a message. */
static int scorep(OTF2_Archive *ar)
{
    enum { S_MAIN, S_WRITE, S_LAUNCH, S_KERNEL };
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, 0);
    OTF2_EvtWriter_Enter(w, NULL, 1000, S_MAIN);
    OTF2_EvtWriter_Enter(w, NULL, 1010, S_WRITE);
    OTF2_EvtWriter_IoOperationBegin(w, NULL, 1010, 0, OTF2_IO_OPERATION_MODE_WRITE,
                                    OTF2_IO_OPERATION_FLAG_NONE, 100, 0);
    OTF2_EvtWriter_IoOperationComplete(w, NULL, 1012, 0, 100, 0);
    OTF2_EvtWriter_Leave(w, NULL, 1012, S_WRITE);
    OTF2_EvtWriter_Enter(w, NULL, 1020, S_LAUNCH);
    OTF2_EvtWriter_Leave(w, NULL, 1021, S_LAUNCH);
    OTF2_EvtWriter_Leave(w, NULL, 1070, S_MAIN);
    OTF2_EvtWriter *gw = OTF2_Archive_GetEvtWriter(ar, 5);
    OTF2_EvtWriter_Enter(gw, NULL, 1030, S_KERNEL);
    OTF2_EvtWriter_Leave(gw, NULL, 1040, S_KERNEL);
    uint64_t n0 = 0, n5 = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w, &n0);
    OTF2_EvtWriter_GetNumberOfEvents(gw, &n5);
    OTF2_Archive_CloseEvtWriter(ar, w);
    OTF2_Archive_CloseEvtWriter(ar, gw);
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000, 1000, 71, OTF2_UNDEFINED_TIMESTAMP);
    static const char *const strings[] = {
        "", "main", "write", "cudaLaunchKernel", "saxpy", "POSIX", "POSIX I/O", "out.txt",
        "node", "host", "rank 0", "master thread", "CUDA[0:13]", "CUDA device 0"};
    for (unsigned i = 0; i < sizeof strings / sizeof strings[0]; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 9, 8, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 10, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, 13, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 11, OTF2_LOCATION_TYPE_CPU_THREAD, n0, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 5, 12, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, n5, 1);
    OTF2_GlobalDefWriter_WriteRegion(g, S_MAIN, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, S_WRITE, 2, 2, 0, OTF2_REGION_ROLE_FILE_IO,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, S_LAUNCH, 3, 3, 0, OTF2_REGION_ROLE_WRAPPER,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, S_KERNEL, 4, 4, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_CUDA, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, 5, 6, OTF2_IO_PARADIGM_CLASS_SERIAL,
                                         OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL);
    OTF2_GlobalDefWriter_WriteIoRegularFile(g, 0, 7, 0);
    OTF2_GlobalDefWriter_WriteIoHandle(g, 0, 7, 0, 0, OTF2_IO_HANDLE_FLAG_PRE_CREATED,
                                       OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE);
    OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(g, 0, OTF2_IO_ACCESS_MODE_WRITE_ONLY,
                                                      OTF2_IO_STATUS_FLAG_NONE);
    OTF2_ErrorCode rc = OTF2_Archive_Close(ar);
    if (rc != OTF2_SUCCESS) {
        fprintf(stderr, "otf2-writer: %s\n", OTF2_Error_GetDescription(rc));
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2 && !(argc == 3 && (strcmp(argv[2], "broken") == 0 ||
                                      strcmp(argv[2], "scorep") == 0))) {
        fprintf(stderr, "usage: otf2-writer DIR [broken|scorep]\n");
        return 1;
    }
    int broken = argc == 3 && strcmp(argv[2], "broken") == 0;
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "otf2-writer: cannot create the archive in '%s'\n", argv[1]);
        return 1;
    }
    static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };
    OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    if (argc == 3 && !broken)
        return scorep(ar);

    OTF2_EvtWriter *w0 = OTF2_Archive_GetEvtWriter(ar, 0);
    OTF2_EvtWriter_Enter(w0, NULL, 1000, R_MAIN);
    OTF2_EvtWriter_Enter(w0, NULL, 1010, R_SEND);
    OTF2_EvtWriter_MpiSend(w0, NULL, 1011, 1, 0, 5, 64);
    OTF2_EvtWriter_Leave(w0, NULL, 1015, R_SEND);
    OTF2_EvtWriter_Enter(w0, NULL, 1020, R_ISEND);
    OTF2_EvtWriter_MpiIsend(w0, NULL, 1021, 1, 0, 6, 128, 7);
    OTF2_EvtWriter_Leave(w0, NULL, 1022, R_ISEND);
    OTF2_EvtWriter_Enter(w0, NULL, 1030, R_WAIT);
    OTF2_EvtWriter_MpiIsendComplete(w0, NULL, 1035, 7);
    OTF2_EvtWriter_Leave(w0, NULL, 1036, R_WAIT);
    barrier(w0);
    metric(w0, 42);
    OTF2_EvtWriter_ParameterString(w0, NULL, 1061, 0, 9);
    OTF2_EvtWriter_Leave(w0, NULL, 1070, R_MAIN);

    OTF2_EvtWriter *w1 = OTF2_Archive_GetEvtWriter(ar, 1);
    OTF2_EvtWriter_Enter(w1, NULL, 1000, R_MAIN);
    OTF2_EvtWriter_Enter(w1, NULL, 1005, R_RECV);
    OTF2_EvtWriter_MpiRecv(w1, NULL, 1016, 0, 0, 5, 64);
    OTF2_EvtWriter_Leave(w1, NULL, 1016, R_RECV);
    OTF2_EvtWriter_Enter(w1, NULL, 1017, R_RECV);
    OTF2_EvtWriter_MpiRecv(w1, NULL, 1025, 0, 0, 6, 128);
    OTF2_EvtWriter_Leave(w1, NULL, 1025, R_RECV);
    barrier(w1);
    metric(w1, 43);
    OTF2_EvtWriter_Leave(w1, NULL, 1070, R_MAIN);
    if (broken) {
        OTF2_EvtWriter_Enter(w1, NULL, 1071, 99);
        OTF2_EvtWriter_Leave(w1, NULL, 1072, 99);
        OTF2_EvtWriter_Enter(w1, NULL, 1074, R_MAIN);     /* made 1003 below */
        OTF2_EvtWriter_MpiSend(w1, NULL, 1075, 0, 7, 9, 8);
        OTF2_EvtWriter_Leave(w1, NULL, 1076, R_MAIN);
    }

    uint64_t n0 = 0, n1 = 0;
    OTF2_EvtWriter_GetNumberOfEvents(w0, &n0);
    OTF2_EvtWriter_GetNumberOfEvents(w1, &n1);
    OTF2_Archive_CloseEvtWriter(ar, w0);
    OTF2_Archive_CloseEvtWriter(ar, w1);
    OTF2_Archive_CloseEvtFiles(ar);

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000, 1000, 71, OTF2_UNDEFINED_TIMESTAMP);
    static const char *const strings[] = {
        "", "main", "MPI_Send", "MPI_Recv", "MPI_Barrier", "MPI_Isend", "MPI_Wait", "flops",
        "phase", "done", "node", "rank 0", "rank 1", "master 0", "master 1", "MPI_COMM_WORLD",
        "host"};
    for (unsigned i = 0; i < sizeof strings / sizeof strings[0]; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 16, 10, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, 11, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, 12, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                            OTF2_UNDEFINED_LOCATION_GROUP);
    OTF2_GlobalDefWriter_WriteLocation(g, 0, 13, OTF2_LOCATION_TYPE_CPU_THREAD, n0, 0);
    OTF2_GlobalDefWriter_WriteLocation(g, 1, 14, OTF2_LOCATION_TYPE_CPU_THREAD,
                                       broken ? n1 - 3 : n1, 1);
    OTF2_GlobalDefWriter_WriteRegion(g, R_MAIN, 1, 1, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_SEND, 2, 2, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_RECV, 3, 3, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_BARRIER, 4, 4, 0, OTF2_REGION_ROLE_BARRIER,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_ISEND, 5, 5, 0, OTF2_REGION_ROLE_POINT2POINT,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteRegion(g, R_WAIT, broken ? 77 : 6, 6, 0, OTF2_REGION_ROLE_FUNCTION,
                                     OTF2_PARADIGM_MPI, OTF2_REGION_FLAG_NONE, 0, 0, 0);
    const uint64_t locs[] = {0, 1}, ranks[] = {0, 1};
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, locs);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, 2, ranks);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 15, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 7, 0, OTF2_METRIC_TYPE_USER,
                                           OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_INT64,
                                           OTF2_BASE_DECIMAL, 0, 0);
    const OTF2_MetricMemberRef members[] = {0};
    OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 1, members, OTF2_METRIC_ASYNCHRONOUS,
                                          OTF2_RECORDER_KIND_ABSTRACT);
    OTF2_GlobalDefWriter_WriteParameter(g, 0, 8, OTF2_PARAMETER_TYPE_STRING);
    OTF2_ErrorCode rc = OTF2_Archive_Close(ar);
    if (rc != OTF2_SUCCESS) {
        fprintf(stderr, "otf2-writer: %s\n", OTF2_Error_GetDescription(rc));
        return 1;
    }
    return broken ? unorder(argv[1]) : 0;
}
