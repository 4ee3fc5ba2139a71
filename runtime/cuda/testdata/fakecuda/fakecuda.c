/* A stand-in for libcuda.so.1 and libnvvm.so used by fake_test.go on
 * machines without a GPU. "Device" memory is host memory, kernels are C
 * functions, and the structs the Go side lays out by hand (CUlaunchConfig,
 * CUlaunchAttribute) are declared here as in cuda.h, so the C compiler checks
 * the Go layout. Every call that needs a context fails with
 * CUDA_ERROR_INVALID_CONTEXT unless the primary context is current on the
 * calling thread, which checks the package's thread/context discipline.
 *
 * Build flags: -DNO_EX leaves out cuLaunchKernelEx, cuTensorMapEncodeTiled
 * and cuOccupancyMaxActiveClusters.
 */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;

typedef struct {
    unsigned int id;
    char pad[8 - sizeof(unsigned int)];
    union {
        char pad[64];
        struct { unsigned int x, y, z; } clusterDim;
        int cooperative;
        unsigned char programmaticStreamSerializationAllowed;
        void *event_like;
    } value;
} CUlaunchAttribute;

typedef struct {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
    CUlaunchAttribute *attrs;
    unsigned int numAttrs;
} CUlaunchConfig;

_Static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute");
_Static_assert(sizeof(CUlaunchConfig) == 56, "CUlaunchConfig");

/* Layout facts for the Go test to compare with unsafe.Offsetof. */
long long fake_layout(const char *k) {
    if (!strcmp(k, "config.size")) return sizeof(CUlaunchConfig);
    if (!strcmp(k, "config.sharedMemBytes")) return offsetof(CUlaunchConfig, sharedMemBytes);
    if (!strcmp(k, "config.hStream")) return offsetof(CUlaunchConfig, hStream);
    if (!strcmp(k, "config.attrs")) return offsetof(CUlaunchConfig, attrs);
    if (!strcmp(k, "config.numAttrs")) return offsetof(CUlaunchConfig, numAttrs);
    if (!strcmp(k, "attr.size")) return sizeof(CUlaunchAttribute);
    if (!strcmp(k, "attr.value")) return offsetof(CUlaunchAttribute, value);
    return -1;
}

static int primary;            /* its address is the context handle */
static int retained;
static __thread void *current; /* the calling thread's current context */
static long long setcurrent_calls;

#define NEED_CTX do { if (current != &primary) return 201; } while (0)

/* last launch, for fake_get */
static long long last[32];
enum { L_GX, L_GY, L_GZ, L_BX, L_BY, L_BZ, L_SMEM, L_STREAM, L_NATTR, L_CX, L_CY, L_CZ, L_EX, L_LAUNCHES, L_PDL, L_PDL_SLOT, L_CAPTURED, L_REPLAYS };

long long fake_get(const char *k) {
    static const char *names[] = {"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "smem",
                                  "stream", "num_attrs", "cluster_x", "cluster_y", "cluster_z", "used_ex", "launches", "pdl", "pdl_slot", "captured", "replays"};
    for (int i = 0; i < (int)(sizeof names / sizeof names[0]); i++)
        if (!strcmp(k, names[i])) return last[i];
    if (!strcmp(k, "retained")) return retained;
    if (!strcmp(k, "setcurrent_calls")) return setcurrent_calls;
    return -1;
}

/* fake_clear_current makes no context current on the calling thread. */
void fake_clear_current(void) { current = 0; }

CUresult cuInit(unsigned int flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }

CUresult cuGetErrorName(CUresult e, const char **s) {
    switch (e) {
    case 1: *s = "CUDA_ERROR_INVALID_VALUE"; return 0;
    case 101: *s = "CUDA_ERROR_INVALID_DEVICE"; return 0;
    case 201: *s = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
    case 218: *s = "CUDA_ERROR_INVALID_PTX"; return 0;
    case 500: *s = "CUDA_ERROR_NOT_FOUND"; return 0;
    }
    *s = 0;
    return 1;
}

CUresult cuGetErrorString(CUresult e, const char **s) {
    switch (e) {
    case 1: *s = "invalid argument"; return 0;
    case 201: *s = "invalid device context"; return 0;
    case 218: *s = "a PTX JIT compilation failed"; return 0;
    case 500: *s = "named symbol not found"; return 0;
    }
    *s = 0;
    return 1;
}

CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal != 0) return 101;
    *d = 0;
    return 0;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    snprintf(name, len, "Fake H200");
    return 0;
}
CUresult cuDeviceGetAttribute(int *pi, int attr, CUdevice d) {
    switch (attr) {
    case 1: *pi = 1024; break;
    case 8: *pi = 49152; break;
    case 10: *pi = 32; break;
    case 12: *pi = 65536; break;
    case 13: *pi = 1980000; break;
    case 16: *pi = 132; break;
    case 36: *pi = 3201000; break;
    case 37: *pi = 6144; break;
    case 38: *pi = 62914560; break;
    case 39: *pi = 2048; break;
    case 75: *pi = 9; break;
    case 76: *pi = 0; break;
    case 81: *pi = 233472; break;
    case 82: *pi = 65536; break;
    case 97: *pi = 232448; break;
    case 120: *pi = 1; break;
    case 127: *pi = 1; break;
    default: *pi = 0;
    }
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = (size_t)150754820096ULL; return 0; }

CUresult cuDevicePrimaryCtxRetain(CUcontext *p, CUdevice d) { *p = &primary; retained++; return 0; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { retained--; return 0; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; setcurrent_calls++; return 0; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = current; return 0; }
CUresult cuCtxSynchronize(void) { NEED_CTX; return 0; }

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    NEED_CTX;
    void *m = aligned_alloc(256, (n + 255) / 256 * 256);
    if (!m) return 2;
    memset(m, 0xCD, n);
    *p = (CUdeviceptr)(uintptr_t)m;
    return 0;
}
CUresult cuMemFree_v2(CUdeviceptr p) { NEED_CTX; free((void *)(uintptr_t)p); return 0; }
CUresult cuMemAllocHost_v2(void **p, size_t n) { NEED_CTX; *p = calloc(1, n); return 0; }
CUresult cuMemFreeHost(void *p) { NEED_CTX; free(p); return 0; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { NEED_CTX; *f = 100; *t = 200; return 0; }
CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { NEED_CTX; memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { NEED_CTX; memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { NEED_CTX; memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { last[L_STREAM] = (long long)(uintptr_t)st; return cuMemcpyHtoD_v2(d, s, n); }
CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { last[L_STREAM] = (long long)(uintptr_t)st; return cuMemcpyDtoH_v2(d, s, n); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { last[L_STREAM] = (long long)(uintptr_t)st; return cuMemcpyDtoD_v2(d, s, n); }
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { NEED_CTX; memset((void *)(uintptr_t)d, v, n); return 0; }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream st) { return cuMemsetD8_v2(d, v, n); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) {
    NEED_CTX;
    unsigned int *p = (unsigned int *)(uintptr_t)d;
    for (size_t i = 0; i < n; i++) p[i] = v;
    return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream st) { return cuMemsetD32_v2(d, v, n); }

CUresult cuStreamCreate(CUstream *s, unsigned int flags) { NEED_CTX; *s = malloc(16); return 0; }
CUresult cuStreamDestroy_v2(CUstream s) { NEED_CTX; free(s); return 0; }
CUresult cuStreamSynchronize(CUstream s) { NEED_CTX; return 0; }
CUresult cuStreamQuery(CUstream s) { NEED_CTX; return 0; }
CUresult cuStreamWaitEvent(CUstream s, void *e, unsigned int flags) { NEED_CTX; return flags == 0 ? 0 : 1; }

typedef struct { long long t; } event;
static long long clock_ticks;
CUresult cuEventCreate(void **e, unsigned int flags) { NEED_CTX; *e = calloc(1, sizeof(event)); return 0; }
CUresult cuEventRecord(void *e, CUstream s) { NEED_CTX; ((event *)e)->t = ++clock_ticks; return 0; }
CUresult cuEventSynchronize(void *e) { NEED_CTX; return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    NEED_CTX;
    *ms = 0.5f * (float)(((event *)b)->t - ((event *)a)->t);
    return 0;
}
CUresult cuEventDestroy_v2(void *e) { NEED_CTX; free(e); return 0; }

/* Modules: the image must be NUL-terminated text; "BADPTX" in it fails. */
CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned int n, int *opts, void **vals) {
    NEED_CTX;
    char *errbuf = 0, *infobuf = 0;
    int errsz = -1, infosz = -1, verbose = 0;
    for (unsigned int i = 0; i < n; i++) {
        switch (opts[i]) {
        case 3: infobuf = vals[i]; break;
        case 4: infosz = (int)(uintptr_t)vals[i]; break;
        case 5: errbuf = vals[i]; break;
        case 6: errsz = (int)(uintptr_t)vals[i]; break;
        case 12: verbose = (int)(uintptr_t)vals[i]; break;
        default: return 1;
        }
    }
    const char *img = image;
    if (strstr(img, "BADPTX")) {
        const char *msg = "ptxas application ptx input, line 3; error   : fake syntax error";
        if (errbuf && errsz > 0) {
            snprintf(errbuf, errsz, "%s", msg);
            for (unsigned int i = 0; i < n; i++)
                if (opts[i] == 6) vals[i] = (void *)(uintptr_t)(strlen(errbuf) + 1);
        }
        return 218;
    }
    if (infobuf && infosz > 0 && verbose) {
        snprintf(infobuf, infosz, "ptxas info    : Used 8 registers");
        for (unsigned int i = 0; i < n; i++)
            if (opts[i] == 4) vals[i] = (void *)(uintptr_t)(strlen(infobuf) + 1);
    }
    *mod = strdup(img);
    return 0;
}
CUresult cuModuleUnload(void *m) { NEED_CTX; free(m); return 0; }

typedef struct { const char *name; int kind; int attrs[16]; } function;
static function fn_vadd = {"vadd", 1}, fn_probe = {"params_probe", 2}, fn_cluster = {"cluster_info", 3};

CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
    NEED_CTX;
    function *all[] = {&fn_vadd, &fn_probe, &fn_cluster};
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, all[i]->name) && strstr((char *)mod, name)) { *f = all[i]; return 0; }
    return 500;
}
CUresult cuFuncSetAttribute(void *f, int a, int v) {
    NEED_CTX;
    if (a < 0 || a >= 16) return 1;
    ((function *)f)->attrs[a] = v;
    return 0;
}
CUresult cuFuncGetAttribute(int *pi, int a, void *f) {
    NEED_CTX;
    if (a < 0 || a >= 16) return 1;
    *pi = a == 4 ? 8 : ((function *)f)->attrs[a];
    return 0;
}

static CUresult run(function *f, void **params, unsigned int gx, unsigned int bx) {
    switch (f->kind) {
    case 1: { /* vadd(float *a, float *b, float *c, int n) */
        float *a = (float *)(uintptr_t)*(CUdeviceptr *)params[0];
        float *b = (float *)(uintptr_t)*(CUdeviceptr *)params[1];
        float *c = (float *)(uintptr_t)*(CUdeviceptr *)params[2];
        int n = *(int *)params[3];
        for (long i = 0; i < (long)gx * bx && i < n; i++) c[i] = a[i] + b[i];
        return 0;
    }
    case 2: { /* params_probe(u8 *out, i32, f32, i64, f64, CUtensorMap, i16, i8):
                 out gets the values back to back, then 1 if the map was 64-aligned */
        unsigned char *o = (unsigned char *)(uintptr_t)*(CUdeviceptr *)params[0];
        static const int sizes[] = {4, 4, 8, 8, 128, 2, 1};
        for (int i = 0; i < 7; i++) { memcpy(o, params[i + 1], sizes[i]); o += sizes[i]; }
        *o = ((uintptr_t)params[5] % 64) == 0;
        return 0;
    }
    }
    return 0;
}

typedef struct { void *f; void **params; unsigned gx, bx; } fnode;
typedef struct { int n; fnode nodes[8]; } fgraph;
static CUstream capturing;
static fnode captured[8];
static int ncaptured;

static CUresult capture(void *f, void **params, unsigned gx, unsigned bx) {
    if (ncaptured == 8) return 2; /* the fake's graphs hold 8 launches */
    captured[ncaptured++] = (fnode){f, params, gx, bx};
    return 0;
}

static void record(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, void *st) {
    last[L_GX] = gx; last[L_GY] = gy; last[L_GZ] = gz;
    last[L_BX] = bx; last[L_BY] = by; last[L_BZ] = bz;
    last[L_SMEM] = smem; last[L_STREAM] = (long long)(uintptr_t)st;
    last[L_NATTR] = 0; last[L_CX] = last[L_CY] = last[L_CZ] = 0;
    last[L_PDL] = 0; last[L_PDL_SLOT] = -1;
    last[L_LAUNCHES]++;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream st, void **params, void **extra) {
    NEED_CTX;
    if (extra) return 1;
    record(gx, gy, gz, bx, by, bz, smem, st);
    last[L_EX] = 0;
    return run(f, params, gx, bx);
}

#ifndef NO_EX
/* Peers and IPC: the one fake device reaches itself; a handle carries the
 * pointer in its first 8 bytes and the pattern 8..63 after, which
 * cuIpcOpenMemHandle_v2 (the struct passed by value) checks. */
static long long ipc_flags = -1;
CUresult cuDeviceCanAccessPeer(int *v, CUdevice a, CUdevice b) { *v = a == 0 && b == 0; return 0; }
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    NEED_CTX;
    if (peer != &primary || flags) return 1;
    return 704; /* CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: it is itself */
}
typedef struct { char reserved[64]; } CUipcMemHandle;
CUresult cuIpcGetMemHandle(CUipcMemHandle *h, CUdeviceptr p) {
    NEED_CTX;
    memcpy(h->reserved, &p, 8);
    for (int i = 8; i < 64; i++) h->reserved[i] = (char)i;
    return 0;
}
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *p, CUipcMemHandle h, unsigned int flags) {
    NEED_CTX;
    for (int i = 8; i < 64; i++)
        if (h.reserved[i] != (char)i) return 1;
    memcpy(p, h.reserved, 8);
    *p += 64; /* another address for the same memory, as a real mapping is */
    ipc_flags = flags;
    return 0;
}
CUresult cuIpcCloseMemHandle(CUdeviceptr p) { NEED_CTX; return p ? 0 : 1; }
long long fake_ipc_flags(void) { return ipc_flags; }
#endif

#ifndef NO_EX
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, void *f, void **params, void **extra) {
    NEED_CTX;
    if (extra) return 1;
    record(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream);
    last[L_EX] = 1;
    last[L_NATTR] = c->numAttrs;
    for (unsigned i = 0; i < c->numAttrs; i++) {
        if (c->attrs[i].id == 4) {
            last[L_CX] = c->attrs[i].value.clusterDim.x;
            last[L_CY] = c->attrs[i].value.clusterDim.y;
            last[L_CZ] = c->attrs[i].value.clusterDim.z;
            if (c->gridDimX % c->attrs[i].value.clusterDim.x) return 912;
        }
        if (c->attrs[i].id == 6) { /* CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
            last[L_PDL] = c->attrs[i].value.programmaticStreamSerializationAllowed;
            last[L_PDL_SLOT] = i;
        }
    }
    if (capturing && c->hStream == capturing) return capture(f, params, c->gridDimX, c->blockDimX);
    return run(f, params, c->gridDimX, c->blockDimX);
}

/* Stream capture: launches into the capturing stream are recorded (the
   function, grid, block and the caller's parameter pointers: unlike the
   driver, the fake does not copy the arguments, so a test keeps its
   launcher alive) and run when the graph is launched. */
CUresult cuStreamBeginCapture_v2(CUstream s, int mode) {
    NEED_CTX;
    if (!s || capturing || mode < 0 || mode > 2) return 1;
    capturing = s;
    ncaptured = 0;
    return 0;
}

CUresult cuStreamEndCapture(CUstream s, void **graph) {
    NEED_CTX;
    if (!s || s != capturing) return 901; /* CUDA_ERROR_STREAM_CAPTURE_INVALIDATED */
    capturing = NULL;
    fgraph *g = malloc(sizeof *g);
    g->n = ncaptured;
    memcpy(g->nodes, captured, sizeof captured);
    *graph = g;
    last[L_CAPTURED] = ncaptured;
    return 0;
}

CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
    NEED_CTX;
    if (!graph || flags) return 1;
    fgraph *e = malloc(sizeof *e);
    memcpy(e, graph, sizeof *e);
    *exec = e;
    return 0;
}

CUresult cuGraphLaunch(void *exec, CUstream s) {
    NEED_CTX;
    fgraph *e = exec;
    last[L_REPLAYS]++;
    for (int i = 0; i < e->n; i++) {
        CUresult r = run(e->nodes[i].f, e->nodes[i].params, e->nodes[i].gx, e->nodes[i].bx);
        if (r) return r;
    }
    return 0;
}

CUresult cuGraphExecDestroy(void *exec) { NEED_CTX; free(exec); return 0; }
CUresult cuGraphDestroy(void *graph) { NEED_CTX; free(graph); return 0; }

/* cuOccupancyMaxActiveClusters: the fake device holds 264 CTAs (132 SMs of
   two) in whole clusters of the config's cluster attribute, which it needs;
   the config's block and shared memory are recorded as a launch's are. */
CUresult cuOccupancyMaxActiveClusters(int *n, void *f, const CUlaunchConfig *c) {
    NEED_CTX;
    if (!f || !n) return 1;
    record(c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ, c->sharedMemBytes, c->hStream);
    last[L_LAUNCHES]--; /* a query, not a launch */
    unsigned size = 0;
    for (unsigned i = 0; i < c->numAttrs; i++)
        if (c->attrs[i].id == 4) {
            last[L_CX] = c->attrs[i].value.clusterDim.x;
            size = c->attrs[i].value.clusterDim.x * c->attrs[i].value.clusterDim.y * c->attrs[i].value.clusterDim.z;
        }
    if (size == 0) return 1;
    *n = 264 / size;
    return 0;
}

/* The fake encoding: opaque[0] dtype, [1] rank, [2] address, [3..7] dims,
   [8..11] strides, [12] boxes (16 bits each), [13] element strides (8 bits
   each), [14] interleave | swizzle<<8 | l2<<16 | oob<<24, [15] a marker. */
CUresult cuTensorMapEncodeTiled(uint64_t *m, int dtype, unsigned rank, void *addr, const uint64_t *dims,
                                const uint64_t *strides, const uint32_t *box, const uint32_t *estr,
                                int interleave, int swizzle, int l2, int oob) {
    NEED_CTX;
    if ((uintptr_t)m % 64 != 0) return 1;
    memset(m, 0, 128);
    m[0] = dtype; m[1] = rank; m[2] = (uint64_t)(uintptr_t)addr;
    for (unsigned i = 0; i < rank; i++) m[3 + i] = dims[i];
    for (unsigned i = 0; i + 1 < rank; i++) m[8 + i] = strides[i];
    for (unsigned i = 0; i < rank && i < 4; i++) m[12] |= (uint64_t)box[i] << (16 * i);
    for (unsigned i = 0; i < rank; i++) m[13] |= (uint64_t)estr[i] << (8 * i);
    m[14] = interleave | swizzle << 8 | l2 << 16 | (uint64_t)oob << 24;
    m[15] = 0xfeedface;
    return 0;
}
#endif

/* ---- libNVVM ---- */
typedef struct { char *ir; size_t n; char log[256]; char result[1024]; } program;

const char *nvvmGetErrorString(int r) {
    switch (r) {
    case 0: return "NVVM_SUCCESS";
    case 7: return "NVVM_ERROR_INVALID_OPTION";
    case 9: return "NVVM_ERROR_COMPILATION";
    }
    return "NVVM_ERROR";
}
int nvvmVersion(int *a, int *b) { *a = 2; *b = 0; return 0; }
int nvvmIRVersion(int *a, int *b, int *c, int *d) { *a = 2; *b = 0; *c = 3; *d = 2; return 0; }
int nvvmCreateProgram(program **p) { *p = calloc(1, sizeof(program)); return 0; }
int nvvmDestroyProgram(program **p) { free((*p)->ir); free(*p); *p = 0; return 0; }
int nvvmAddModuleToProgram(program *p, const char *buf, size_t n, const char *name) {
    p->ir = realloc(p->ir, p->n + n + 1);
    memcpy(p->ir + p->n, buf, n);
    p->n += n;
    p->ir[p->n] = 0;
    return 0;
}
int nvvmLazyAddModuleToProgram(program *p, const char *buf, size_t n, const char *name) { return nvvmAddModuleToProgram(p, buf, n, name); }
int nvvmVerifyProgram(program *p, int n, const char **opts) { return 0; }
int nvvmCompileProgram(program *p, int n, const char **opts) {
    int o = snprintf(p->result, sizeof p->result, ".version 9.0\n.target sm_90a\n// options:");
    for (int i = 0; i < n; i++) {
        if (opts[i][0] != '-') return 7;
        o += snprintf(p->result + o, sizeof p->result - o, " %s", opts[i]);
    }
    if (p->ir && strstr(p->ir, "syntax error")) {
        snprintf(p->log, sizeof p->log, "fake.ll(1): error: syntax error");
        p->result[0] = 0;
        return 9;
    }
    snprintf(p->result + o, sizeof p->result - o, "\n// ir bytes: %zu\n", p->n);
    return 0;
}
int nvvmGetCompiledResultSize(program *p, size_t *n) { *n = strlen(p->result) + 1; return 0; }
int nvvmGetCompiledResult(program *p, char *buf) { strcpy(buf, p->result); return 0; }
int nvvmGetProgramLogSize(program *p, size_t *n) { *n = strlen(p->log) + 1; return 0; }
int nvvmGetProgramLog(program *p, char *buf) { strcpy(buf, p->log); return 0; }
