/* otf2-cuda-writer.c -- writes, with libotf2, a small archive the way
 * Score-P's CUDA adapter writes one (tests/views/otf2-gpu.sh): a process,
 * a "CUDA Device" system tree node "3" of domain ACCELERATOR_DEVICE, an
 * ACCELERATOR location group of it created by the process, one
 * ACCELERATOR_STREAM with two kernels (Enter/Leave of CUDA regions) and three
 * copies as RMA events outside any region: RmaGet (host to device) or RmaPut
 * (device to host) on the CUDA window, remote the host thread, then
 * RmaOpCompleteBlocking. An oracle independent of ECL's exporter.
 *
 *   otf2-cuda-writer DIR     (DIR/traces.otf2; exit 0, or 1 with a message) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <otf2/otf2.h>

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *cd,
                                bool final)
{
    (void)ud, (void)ft, (void)l, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)ud, (void)ft, (void)l;
    return 0;
}

static int failed;
#define CK(call)                                                                           \
    do {                                                                                   \
        OTF2_ErrorCode rc_ = (call);                                                       \
        if (rc_ != OTF2_SUCCESS && !failed) {                                              \
            fprintf(stderr, "otf2-cuda-writer: %s: %s\n", #call, OTF2_Error_GetDescription(rc_)); \
            failed = 1;                                                                    \
        }                                                                                  \
    } while (0)

enum { S_MACHINE, S_NODE, S_DEVNAME, S_DEVCLASS, S_PROCESS, S_CONTEXT, S_HOST, S_STREAM,
       S_MEMCPY, S_KERNEL, S_EMPTY, S_COMM, S_WIN, S_COUNT };
static const char *const strings[S_COUNT] = {
    "machine", "node", "3", "CUDA Device", "process 0", "CUDA Context 1", "Master thread",
    "CUDA[3:7]", "cudaMemcpy", "kernel", "", "CUDA_COMM", "CUDA_WINDOW"};

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: otf2-cuda-writer DIR\n");
        return 2;
    }
    OTF2_Archive *ar = OTF2_Archive_Open(argv[1], "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                         4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                                         OTF2_COMPRESSION_NONE);
    if (!ar) {
        fprintf(stderr, "otf2-cuda-writer: cannot create an archive in '%s'\n", argv[1]);
        return 1;
    }
    static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };
    CK(OTF2_Archive_SetFlushCallbacks(ar, &flush, NULL));
    CK(OTF2_Archive_SetSerialCollectiveCallbacks(ar));
    CK(OTF2_Archive_OpenEvtFiles(ar));
    if (failed)
        return 1;
    /* the host thread: the runtime calls (ns) */
    OTF2_EvtWriter *h = OTF2_Archive_GetEvtWriter(ar, 0);
    OTF2_EvtWriter *s = OTF2_Archive_GetEvtWriter(ar, 1);
    if (!h || !s) {
        fprintf(stderr, "otf2-cuda-writer: no event writer\n");
        return 1;
    }
    CK(OTF2_EvtWriter_Enter(h, NULL, 8000, 0));
    CK(OTF2_EvtWriter_Leave(h, NULL, 16000, 0));
    CK(OTF2_EvtWriter_Enter(h, NULL, 38000, 0));
    CK(OTF2_EvtWriter_Leave(h, NULL, 45000, 0));
    CK(OTF2_EvtWriter_Enter(h, NULL, 68000, 0));
    CK(OTF2_EvtWriter_Leave(h, NULL, 81000, 0));
    /* the stream: 1 KiB to the device [10, 15] us, a kernel, 2 KiB back
     * [40, 44], 2 KiB to the device [70, 80], a kernel */
    CK(OTF2_EvtWriter_RmaWinCreate(s, NULL, 10000, 0));
    CK(OTF2_EvtWriter_RmaGet(s, NULL, 10000, 0, 0, 1024, 42));
    CK(OTF2_EvtWriter_RmaOpCompleteBlocking(s, NULL, 15000, 0, 42));
    CK(OTF2_EvtWriter_Enter(s, NULL, 20000, 1));
    CK(OTF2_EvtWriter_Leave(s, NULL, 30000, 1));
    CK(OTF2_EvtWriter_RmaPut(s, NULL, 40000, 0, 0, 2048, 42));
    CK(OTF2_EvtWriter_RmaOpCompleteBlocking(s, NULL, 44000, 0, 42));
    CK(OTF2_EvtWriter_RmaGet(s, NULL, 70000, 0, 0, 2048, 42));
    CK(OTF2_EvtWriter_RmaOpCompleteBlocking(s, NULL, 80000, 0, 42));
    CK(OTF2_EvtWriter_Enter(s, NULL, 90000, 1));
    CK(OTF2_EvtWriter_Leave(s, NULL, 95000, 1));
    uint64_t nh = 0, ns = 0;
    CK(OTF2_EvtWriter_GetNumberOfEvents(h, &nh));
    CK(OTF2_EvtWriter_GetNumberOfEvents(s, &ns));
    CK(OTF2_Archive_CloseEvtWriter(ar, h));
    CK(OTF2_Archive_CloseEvtWriter(ar, s));
    CK(OTF2_Archive_CloseEvtFiles(ar));

    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    if (!g) {
        fprintf(stderr, "otf2-cuda-writer: no definition writer\n");
        return 1;
    }
    CK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 100000,
                                                 OTF2_UNDEFINED_TIMESTAMP));
    for (int i = 0; i < S_COUNT; i++)
        CK(OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, strings[i]));
    CK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, S_MACHINE, S_NODE,
                                                OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    CK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 1, S_DEVNAME, S_DEVCLASS, 0));
    CK(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(g, 1,
                                                      OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE));
    CK(OTF2_GlobalDefWriter_WriteLocationGroup(g, 0, S_PROCESS, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                               0, OTF2_UNDEFINED_LOCATION_GROUP));
    CK(OTF2_GlobalDefWriter_WriteLocationGroup(g, 1, S_CONTEXT,
                                               OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 1, 0));
    CK(OTF2_GlobalDefWriter_WriteLocation(g, 0, S_HOST, OTF2_LOCATION_TYPE_CPU_THREAD, nh, 0));
    CK(OTF2_GlobalDefWriter_WriteLocation(g, 1, S_STREAM, OTF2_LOCATION_TYPE_ACCELERATOR_STREAM,
                                          ns, 1));
    CK(OTF2_GlobalDefWriter_WriteRegion(g, 0, S_MEMCPY, S_MEMCPY, S_EMPTY,
                                        OTF2_REGION_ROLE_DATA_TRANSFER, OTF2_PARADIGM_CUDA,
                                        OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
    CK(OTF2_GlobalDefWriter_WriteRegion(g, 1, S_KERNEL, S_KERNEL, S_EMPTY,
                                        OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA,
                                        OTF2_REGION_FLAG_NONE, S_EMPTY, 0, 0));
    uint64_t members[2] = { 0, 1 };
    CK(OTF2_GlobalDefWriter_WriteGroup(g, 0, S_COMM, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                       OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE, 2, members));
    CK(OTF2_GlobalDefWriter_WriteGroup(g, 1, S_COMM, OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE, 2, members));
    CK(OTF2_GlobalDefWriter_WriteComm(g, 0, S_COMM, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
    CK(OTF2_GlobalDefWriter_WriteRmaWin(g, 0, S_WIN, 0, OTF2_RMA_WIN_FLAG_NONE));
    CK(OTF2_Archive_OpenDefFiles(ar));
    for (OTF2_LocationRef l = 0; l < 2; l++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(ar, l);
        if (dw)
            CK(OTF2_Archive_CloseDefWriter(ar, dw));
    }
    CK(OTF2_Archive_CloseDefFiles(ar));
    CK(OTF2_Archive_Close(ar));
    return failed;
}
