/* A stand-in libnccl for runtime/nccl's tests, built with the system C
 * compiler. It declares the entry points as nccl.h does (2.29), records
 * every call in a log the test reads (fake_log), and is configured per
 * test: fake_set("version", 22905), fake_fail("ncclCommWindowRegister", 5),
 * fake_set("unreachable", 1). Symbols are left out with -D: NO_SCALABLE
 * (before 2.23), NO_PEER_PTR (before 2.29), NO_WINDOWS (before 2.27),
 * NO_MEMALLOC (before 2.19).
 *
 * "Device memory" is host memory here. The communicators of one unique id
 * (or of one ncclCommInitAll) form a clique in this process; each rank's
 * k-th collective call (a collective or a window registration) joins slot
 * k of its clique, and the slot runs when every rank has joined: the
 * collectives really move the bytes between the ranks' buffers. Outside a
 * group a call waits for its slot (at most 10 s, then ncclInternalError);
 * inside ncclGroupStart/End it returns at once and ncclGroupEnd waits. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int ncclResult_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef struct fcomm *ncclComm_t;
typedef struct fwin *ncclWindow_t;

#define MAXR 16
#define MAXSLOTS 4096

enum { OP_ALLREDUCE = 1, OP_ALLGATHER, OP_REDUCESCATTER, OP_WINREG };

struct slot {
    int kind, joined, done;
    size_t count; /* elements: allreduce count, allgather sendcount, reducescatter recvcount; winreg bytes */
    int dtype, op;
    const void *send[MAXR];
    void *recv[MAXR];
    struct fwin *win[MAXR];
};

struct clique {
    ncclUniqueId id;
    int nranks;
    struct fcomm *ranks[MAXR];
    struct slot *slots;
};

struct fcomm {
    struct clique *cl;
    int rank, dev, nslot, destroyed;
};

struct fwin {
    struct fcomm *comm;
    void *buf;
    size_t size;
    int flags, slot;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct clique *cliques[64];
static int ncliques;
static __thread int group_depth;
static __thread int group_pending[MAXSLOTS];
static __thread struct clique *group_cl[MAXSLOTS];
static __thread int ngroup;

/* configuration */
#ifndef FAKE_VERSION
#define FAKE_VERSION 22907
#endif
static int version = FAKE_VERSION;
static char fail_name[64];
static int fail_code, unreachable = -1, async_error, nvls_env = -2, inits;
static char logbuf[1 << 16];
static size_t loglen;
static char lasterr[256];

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...) {
    va_list ap;
    pthread_mutex_lock(&mu);
    va_start(ap, fmt);
    int n = vsnprintf(logbuf + loglen, sizeof logbuf - loglen - 1, fmt, ap);
    va_end(ap);
    if (n > 0 && loglen + n + 1 < sizeof logbuf) {
        loglen += n;
        logbuf[loglen++] = '\n';
        logbuf[loglen] = 0;
    }
    pthread_mutex_unlock(&mu);
}

/* ---- test controls ---- */
void fake_reset(void) {
    pthread_mutex_lock(&mu);
    version = FAKE_VERSION;
    fail_name[0] = 0;
    fail_code = 0;
    unreachable = -1;
    async_error = 0;
    nvls_env = -2;
    inits = 0;
    loglen = 0;
    logbuf[0] = 0;
    lasterr[0] = 0;
    pthread_mutex_unlock(&mu);
}
void fake_set(const char *k, long long v) {
    pthread_mutex_lock(&mu);
    if (!strcmp(k, "version")) version = (int)v;
    else if (!strcmp(k, "unreachable")) unreachable = (int)v;
    else if (!strcmp(k, "async_error")) async_error = (int)v;
    pthread_mutex_unlock(&mu);
}
long long fake_get(const char *k) {
    if (!strcmp(k, "nvls_env")) return nvls_env;
    if (!strcmp(k, "inits")) return inits;
    return -1;
}
void fake_fail(const char *name, int code) {
    pthread_mutex_lock(&mu);
    snprintf(fail_name, sizeof fail_name, "%s", name);
    fail_code = code;
    pthread_mutex_unlock(&mu);
}
const char *fake_log(void) { return logbuf; }

static int failing(const char *fn) {
    pthread_mutex_lock(&mu);
    int c = strcmp(fn, fail_name) ? 0 : fail_code;
    if (c) snprintf(lasterr, sizeof lasterr, "fake: %s failed as configured", fn);
    pthread_mutex_unlock(&mu);
    return c;
}
#define FAIL(fn) do { int c_ = failing(fn); if (c_) { logf_("%s -> %d", fn, c_); return c_; } } while (0)

/* ---- the API ---- */
ncclResult_t ncclGetVersion(int *v) { logf_("ncclGetVersion"); FAIL("ncclGetVersion"); *v = version; return 0; }

const char *ncclGetErrorString(ncclResult_t r) {
    switch (r) {
    case 0: return "no error";
    case 1: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case 2: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case 3: return "internal error - please report this issue to the NCCL developers";
    case 4: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case 5: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case 6: return "remote process exited or there was a network error";
    }
    return "unknown result code";
}
const char *ncclGetLastError(ncclComm_t c) { return lasterr; }

ncclResult_t ncclGetUniqueId(ncclUniqueId *id) {
    static unsigned long long n;
    logf_("ncclGetUniqueId");
    FAIL("ncclGetUniqueId");
    memset(id, 0, sizeof *id);
    pthread_mutex_lock(&mu);
    unsigned long long v = ++n ^ ((unsigned long long)time(0) << 20) ^ ((unsigned long long)(uintptr_t)&n << 3);
    pthread_mutex_unlock(&mu);
    for (int i = 0; i < 128; i++) id->internal[i] = (char)((v >> (8 * (i % 8))) + i * 31);
    return 0;
}

static void note_env(void) {
    const char *e = getenv("NCCL_NVLS_ENABLE");
    nvls_env = e ? atoi(e) : -1;
    inits++;
}

static struct clique *clique_for(const ncclUniqueId *id, int nranks) {
    for (int i = 0; i < ncliques; i++)
        if (id && !memcmp(&cliques[i]->id, id, sizeof *id)) return cliques[i];
    if (ncliques == 64) return 0;
    struct clique *c = calloc(1, sizeof *c);
    if (id) c->id = *id;
    else snprintf(c->id.internal, sizeof c->id.internal, "initall-%d", ncliques);
    c->nranks = nranks;
    c->slots = calloc(MAXSLOTS, sizeof(struct slot));
    cliques[ncliques++] = c;
    return c;
}

__attribute__((unused)) static unsigned idtag(const ncclUniqueId *id) {
    unsigned h = 2166136261u;
    for (int i = 0; i < 128; i++) h = (h ^ (unsigned char)id->internal[i]) * 16777619u;
    return h;
}

#ifndef NO_SCALABLE
ncclResult_t ncclCommInitRankScalable(ncclComm_t *comm, int nranks, int rank, int nId, ncclUniqueId *ids, void *config) {
    logf_("ncclCommInitRankScalable(nranks=%d, rank=%d, nId=%d, id=%08x, config=%s)", nranks, rank, nId, ids ? idtag(ids) : 0, config ? "set" : "NULL");
    FAIL("ncclCommInitRankScalable");
    if (!comm || !ids || nId < 1 || nranks < 1 || nranks > MAXR || rank < 0 || rank >= nranks) return 4;
    pthread_mutex_lock(&mu);
    note_env();
    struct clique *c = clique_for(ids, nranks);
    if (!c || c->nranks != nranks || c->ranks[rank]) {
        pthread_mutex_unlock(&mu);
        snprintf(lasterr, sizeof lasterr, "fake: rank %d joined twice or nranks differ", rank);
        return 5;
    }
    struct fcomm *f = calloc(1, sizeof *f);
    f->cl = c;
    f->rank = rank;
    f->dev = -1;
    c->ranks[rank] = f;
    pthread_mutex_unlock(&mu);
    *comm = f;
    return 0;
}
#endif

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist) {
    char devs[128] = "NULL";
    if (devlist) {
        int o = 0;
        for (int i = 0; i < ndev && o < 100; i++) o += snprintf(devs + o, sizeof devs - o, i ? ",%d" : "%d", devlist[i]);
    }
    logf_("ncclCommInitAll(ndev=%d, devlist=%s)", ndev, devs);
    FAIL("ncclCommInitAll");
    if (!comms || ndev < 1 || ndev > MAXR) return 4;
    pthread_mutex_lock(&mu);
    note_env();
    struct clique *c = clique_for(0, ndev);
    for (int r = 0; r < ndev; r++) {
        struct fcomm *f = calloc(1, sizeof *f);
        f->cl = c;
        f->rank = r;
        f->dev = devlist ? devlist[r] : r;
        c->ranks[r] = f;
        comms[r] = f;
    }
    pthread_mutex_unlock(&mu);
    return 0;
}

ncclResult_t ncclCommDestroy(ncclComm_t c) {
    logf_("ncclCommDestroy(rank=%d)", c ? c->rank : -1);
    FAIL("ncclCommDestroy");
    if (!c) return 4;
    c->destroyed = 1;
    return 0;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *e) {
    if (!c || !e) return 4;
    *e = async_error;
    return 0;
}
ncclResult_t ncclCommCount(ncclComm_t c, int *n) { if (!c) return 4; *n = c->cl->nranks; return 0; }
ncclResult_t ncclCommUserRank(ncclComm_t c, int *r) { if (!c) return 4; *r = c->rank; return 0; }

ncclResult_t ncclGroupStart(void) { logf_("ncclGroupStart"); group_depth++; return 0; }

static size_t dsize(int dt) {
    switch (dt) {
    case 0: case 1: case 10: case 11: return 1;
    case 6: case 9: return 2;
    case 2: case 3: case 7: return 4;
    case 4: case 5: case 8: return 8;
    }
    return 0;
}

/* run a complete slot (mu held) */
static void run_slot(struct clique *c, struct slot *s) {
    int n = c->nranks;
    size_t es = dsize(s->dtype);
    switch (s->kind) {
    case OP_ALLGATHER:
        for (int r = 0; r < n; r++)
            for (int p = 0; p < n; p++) memcpy((char *)s->recv[r] + p * s->count * es, s->send[p], s->count * es);
        break;
    case OP_ALLREDUCE:
    case OP_REDUCESCATTER: {
        /* sums only, in f32 (dtype 7), i32 (2) or u8 (1): enough for the tests */
        size_t total = s->kind == OP_ALLREDUCE ? s->count : s->count * n;
        char *acc = calloc(total, es ? es : 1);
        for (int p = 0; p < n; p++)
            for (size_t i = 0; i < total; i++) {
                if (s->dtype == 7) ((float *)acc)[i] += ((const float *)s->send[p])[i];
                else if (s->dtype == 2) ((int *)acc)[i] += ((const int *)s->send[p])[i];
                else if (s->dtype == 1) ((unsigned char *)acc)[i] += ((const unsigned char *)s->send[p])[i];
            }
        for (int r = 0; r < n; r++) {
            if (s->kind == OP_ALLREDUCE) memcpy(s->recv[r], acc, total * es);
            else memcpy(s->recv[r], acc + r * s->count * es, s->count * es);
        }
        free(acc);
        break;
    }
    }
    s->done = 1;
    pthread_cond_broadcast(&cv);
}

static int wait_slot(struct clique *c, int k) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    while (!c->slots[k].done)
        if (pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT) {
            snprintf(lasterr, sizeof lasterr, "fake: collective %d timed out waiting for the other ranks", k);
            return 3;
        }
    return 0;
}

static ncclResult_t join(ncclComm_t c, int kind, const void *send, void *recv, size_t count, int dtype, int op, struct fwin *w) {
    if (!c || c->destroyed) return 4;
    pthread_mutex_lock(&mu);
    struct clique *cl = c->cl;
    int k = c->nslot++;
    if (k >= MAXSLOTS) { pthread_mutex_unlock(&mu); return 3; }
    struct slot *s = &cl->slots[k];
    if (s->joined == 0) {
        s->kind = kind, s->count = count, s->dtype = dtype, s->op = op;
    } else if (s->kind != kind || s->count != count || s->dtype != dtype) {
        snprintf(lasterr, sizeof lasterr, "fake: rank %d's call %d differs from the other ranks'", c->rank, k);
        pthread_mutex_unlock(&mu);
        return 5;
    }
    s->send[c->rank] = send;
    s->recv[c->rank] = recv;
    s->win[c->rank] = w;
    if (w) w->slot = k;
    if (++s->joined == cl->nranks) {
        if (kind == OP_WINREG) {
            s->done = 1;
            pthread_cond_broadcast(&cv);
        } else run_slot(cl, s);
    }
    int rc = 0;
    if (group_depth > 0) {
        if (ngroup < MAXSLOTS) group_pending[ngroup] = k, group_cl[ngroup++] = cl;
    } else rc = wait_slot(cl, k);
    pthread_mutex_unlock(&mu);
    return rc;
}

ncclResult_t ncclGroupEnd(void) {
    logf_("ncclGroupEnd");
    if (group_depth == 0) return 5;
    if (--group_depth > 0) return 0;
    FAIL("ncclGroupEnd");
    int rc = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < ngroup && !rc; i++) rc = wait_slot(group_cl[i], group_pending[i]);
    ngroup = 0;
    pthread_mutex_unlock(&mu);
    return rc;
}

ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, int dtype, int op, ncclComm_t c, void *stream) {
    logf_("ncclAllReduce(rank=%d, count=%zu, dtype=%d, op=%d, stream=%p)", c ? c->rank : -1, count, dtype, op, stream);
    FAIL("ncclAllReduce");
    return join(c, OP_ALLREDUCE, send, recv, count, dtype, op, 0);
}
ncclResult_t ncclAllGather(const void *send, void *recv, size_t sendcount, int dtype, ncclComm_t c, void *stream) {
    logf_("ncclAllGather(rank=%d, sendcount=%zu, dtype=%d, stream=%p)", c ? c->rank : -1, sendcount, dtype, stream);
    FAIL("ncclAllGather");
    return join(c, OP_ALLGATHER, send, recv, sendcount, dtype, 0, 0);
}
ncclResult_t ncclReduceScatter(const void *send, void *recv, size_t recvcount, int dtype, int op, ncclComm_t c, void *stream) {
    logf_("ncclReduceScatter(rank=%d, recvcount=%zu, dtype=%d, op=%d, stream=%p)", c ? c->rank : -1, recvcount, dtype, op, stream);
    FAIL("ncclReduceScatter");
    return join(c, OP_REDUCESCATTER, send, recv, recvcount, dtype, op, 0);
}

#ifndef NO_MEMALLOC
ncclResult_t ncclMemAlloc(void **p, size_t n) {
    logf_("ncclMemAlloc(size=%zu)", n);
    FAIL("ncclMemAlloc");
    if (!p) return 4;
    *p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
    memset(*p, 0xCD, n);
    return *p ? 0 : 1;
}
ncclResult_t ncclMemFree(void *p) { logf_("ncclMemFree"); FAIL("ncclMemFree"); free(p); return 0; }
#endif

#ifndef NO_WINDOWS
ncclResult_t ncclCommWindowRegister(ncclComm_t c, void *buf, size_t size, ncclWindow_t *win, int flags) {
    logf_("ncclCommWindowRegister(rank=%d, size=%zu, flags=%d)", c ? c->rank : -1, size, flags);
    FAIL("ncclCommWindowRegister");
    if (!c || !buf || !win || ((uintptr_t)buf % 4096)) return 4;
    struct fwin *w = calloc(1, sizeof *w);
    w->comm = c, w->buf = buf, w->size = size, w->flags = flags;
    int rc = join(c, OP_WINREG, 0, 0, size, 0, 0, w);
    if (rc) { free(w); return rc; }
    *win = w;
    return 0;
}
ncclResult_t ncclCommWindowDeregister(ncclComm_t c, ncclWindow_t w) {
    logf_("ncclCommWindowDeregister(rank=%d)", c ? c->rank : -1);
    FAIL("ncclCommWindowDeregister");
    if (!c || !w) return 4;
    return 0; /* kept: a peer may still look it up */
}
#endif

#ifndef NO_PEER_PTR
ncclResult_t ncclGetPeerDevicePointer(ncclWindow_t w, size_t offset, int peer, void **out) {
    logf_("ncclGetPeerDevicePointer(offset=%zu, peer=%d)", offset, peer);
    FAIL("ncclGetPeerDevicePointer");
    if (!w || !out) return 4;
    struct clique *cl = w->comm->cl;
    if (peer < 0 || peer >= cl->nranks) return 4;
    pthread_mutex_lock(&mu);
    struct fwin *pw = cl->slots[w->slot].win[peer];
    pthread_mutex_unlock(&mu);
    *out = (peer == unreachable || !pw) ? 0 : (char *)pw->buf + offset;
    return 0;
}
#endif
