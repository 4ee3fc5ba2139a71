package nccl

import (
	"context"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestDecodeVersion(t *testing.T) {
	for _, c := range []struct {
		code int
		want Version
	}{{2804, Version{2, 8, 4}}, {22304, Version{2, 23, 4}}, {22907, Version{2, 29, 7}}, {23001, Version{2, 30, 1}}, {30000, Version{3, 0, 0}}} {
		if got := DecodeVersion(c.code); got != c.want {
			t.Errorf("DecodeVersion(%d) = %v, want %v", c.code, got, c.want)
		}
	}
	if !(Version{2, 28, 9}).Less(PeerPointerVersion) || PeerPointerVersion.Less(Version{2, 28, 9}) || MinVersion.Less(MinVersion) {
		t.Error("Less orders releases wrongly")
	}
}

// The version choice, against fakes of several releases.
func TestOpenChoosesByVersion(t *testing.T) {
	for _, c := range []struct {
		defines []string
		version Version
		mode    HeapMode
	}{
		{nil, Version{2, 29, 7}, PeerPointers},
		{[]string{"FAKE_VERSION=23002"}, Version{2, 30, 2}, PeerPointers},
		{[]string{"FAKE_VERSION=22803"}, Version{2, 28, 3}, DriverPeers},                // symbols there, too old for them
		{[]string{"FAKE_VERSION=22907", "NO_PEER_PTR"}, Version{2, 29, 7}, DriverPeers}, // a build without the host API
		{[]string{"FAKE_VERSION=22304", "NO_PEER_PTR", "NO_WINDOWS"}, Version{2, 23, 4}, DriverPeers},
	} {
		l := fakeLib(t, c.defines...)
		if l.Version != c.version || l.Heap != c.mode {
			t.Errorf("%v: version %v heap %v, want %v %v", c.defines, l.Version, l.Heap, c.version, c.mode)
		}
	}
}

func TestOpenTooOld(t *testing.T) {
	_, err := Open(Options{Library: fakeLibPath(t, "FAKE_VERSION=22204", "NO_SCALABLE")})
	var ve *VersionError
	if !errors.As(err, &ve) || !errors.Is(err, ErrNoNCCL) || ve.Have != (Version{2, 22, 4}) {
		t.Fatalf("a 2.22 library: %v", err)
	}
	if !strings.Contains(err.Error(), "2.22.4") || !strings.Contains(err.Error(), "2.23.0") || !strings.Contains(err.Error(), "TLE_NCCL") {
		t.Errorf("the message should say both versions and how to point at another: %v", err)
	}
	// a library claiming 2.29 but lacking the init call
	_, err = Open(Options{Library: fakeLibPath(t, "FAKE_VERSION=22908", "NO_SCALABLE")})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "ncclCommInitRankScalable") {
		t.Errorf("a library without ncclCommInitRankScalable: %v", err)
	}
}

func TestOpenMissing(t *testing.T) {
	_, err := Open(Options{Library: "/nonexistent/libnccl.so.2"})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "/nonexistent/libnccl.so.2") || !strings.Contains(err.Error(), "TLE_NCCL") {
		t.Errorf("a missing library: %v", err)
	}
	t.Setenv(EnvLibrary, "/nonexistent/other.so")
	_, err = Open(Options{})
	if !errors.Is(err, ErrNoNCCL) || !strings.Contains(err.Error(), "$TLE_NCCL: /nonexistent/other.so") {
		t.Errorf("$TLE_NCCL at a missing library: %v", err)
	}
}

// Where the library is looked for: the option, then $TLE_NCCL, then the
// python packages, then the system loader.
func TestCandidates(t *testing.T) {
	t.Setenv(EnvLibrary, "/env/libnccl.so.2")
	if c := Candidates(Options{Library: "/opt/x.so"}); len(c) != 1 || c[0] != (Candidate{"option", "/opt/x.so"}) {
		t.Errorf("with an option: %v", c)
	}
	if c := Candidates(Options{}); len(c) != 1 || c[0] != (Candidate{"$TLE_NCCL", "/env/libnccl.so.2"}) {
		t.Errorf("with $TLE_NCCL: %v", c)
	}
	os.Unsetenv(EnvLibrary)
	// a python3 on $PATH whose site-packages hold the CUDA Python package
	dir := t.TempDir()
	site := filepath.Join(dir, "site")
	lib := filepath.Join(site, "nvidia", "nccl", "lib", "libnccl.so.2")
	if err := os.MkdirAll(filepath.Dir(lib), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lib, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	if err := os.WriteFile(filepath.Join(bin, "python3"), []byte("#!/bin/sh\necho /nowhere\necho "+site+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("CONDA_PREFIX", "")
	c := Candidates(Options{})
	if len(c) < 2 || c[0] != (Candidate{"python site-packages", lib}) || c[len(c)-1] != (Candidate{"system loader", "libnccl.so.2"}) {
		t.Errorf("with the python package: %v", c)
	}
}

func TestInitAllCallSequence(t *testing.T) {
	l := fakeLib(t)
	cs := initAll(t, l, 4)
	for i, c := range cs {
		if c.Rank != i || c.Size != 4 || c.Device.Ordinal() != i {
			t.Errorf("comm %d: rank %d of %d on device %d", i, c.Rank, c.Size, c.Device.Ordinal())
		}
	}
	log := fakeLog(t, l)
	if !slices.Contains(log, "ncclCommInitAll(ndev=4, devlist=0,1,2,3)") {
		t.Errorf("log: %q", log)
	}
	if v := fakeGet(t, l, "nvls_env"); v != 0 {
		t.Errorf("NCCL_NVLS_ENABLE seen by NCCL at init = %d, want 0", v)
	}
	if _, err := l.InitAll([]Device{cs[0].Device, cs[0].Device}); err == nil || !strings.Contains(err.Error(), "both device 0") {
		t.Errorf("two ranks on one device: %v", err)
	}
}

func TestNVLSKeptOff(t *testing.T) {
	l := fakeLib(t)
	t.Setenv("NCCL_NVLS_ENABLE", "1")
	_, err := l.InitAll(newFakeDevices(2))
	if err == nil || !strings.Contains(err.Error(), "NCCL_NVLS_ENABLE=1") {
		t.Errorf("NCCL_NVLS_ENABLE=1: %v", err)
	}
	if n := fakeGet(t, l, "inits"); n != 0 {
		t.Errorf("%d communicators made despite NCCL_NVLS_ENABLE=1", n)
	}
}

func TestErrorsNameTheCall(t *testing.T) {
	l := fakeLib(t)
	fakeFail(t, l, "ncclCommInitAll", 2)
	_, err := l.InitAll(newFakeDevices(2))
	var ne *Error
	if !errors.As(err, &ne) || ne.Code != 2 || ne.Func != "ncclCommInitAll" {
		t.Fatalf("a failing init: %v", err)
	}
	for _, want := range []string{"ncclCommInitAll", "ncclSystemError", "unhandled system error", "fake: ncclCommInitAll failed as configured"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	fakeFail(t, l, "", 0)
	cs := initAll(t, l, 2)
	if err := cs[0].AsyncError(); err != nil {
		t.Errorf("a healthy communicator: %v", err)
	}
	fakeSet(t, l, "async_error", 6)
	if err := cs[1].AsyncError(); err == nil || !strings.Contains(err.Error(), "ncclRemoteError") || !strings.Contains(err.Error(), "rank 1") {
		t.Errorf("an async error: %v", err)
	}
	cs[0].Destroy()
	if err := cs[0].AllReduce(1, 1, 1, Float32, Sum, 0); err == nil || !strings.Contains(err.Error(), "destroyed") {
		t.Errorf("a call on a destroyed communicator: %v", err)
	}
}

// The collectives move the bytes (in the fake, between the ranks' host
// buffers), one goroutine a rank or one thread in a group.
func TestCollectives(t *testing.T) {
	l := fakeLib(t)
	const n = 3
	cs := initAll(t, l, n)
	f32 := func(d Device, vals []float32) uint64 {
		p, err := d.Alloc(4 * len(vals))
		if err != nil {
			t.Fatal(err)
		}
		d.CopyHtoD(p, unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), 4*len(vals)))
		return p
	}
	read := func(d Device, p uint64, k int) []float32 {
		b := make([]byte, 4*k)
		d.CopyDtoH(b, p)
		return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), k)
	}
	send, recv := make([]uint64, n), make([]uint64, n)
	for r, c := range cs {
		send[r] = f32(c.Device, []float32{float32(r + 1), float32(10 * (r + 1)), 0.5, float32(r)})
		recv[r] = f32(c.Device, make([]float32, 4*n))
	}
	errs := eachRank(cs, func(c *Comm) error { return c.AllReduce(send[c.Rank], recv[c.Rank], 4, Float32, Sum, 0) })
	for r := range cs {
		if errs[r] != nil {
			t.Fatal(errs[r])
		}
		if got := read(cs[r].Device, recv[r], 4); !slices.Equal(got, []float32{6, 60, 1.5, 3}) {
			t.Errorf("all-reduce on rank %d = %v", r, got)
		}
	}
	// one thread, every rank in a group
	err := l.Group(func() error {
		for r, c := range cs {
			if err := c.AllGather(send[r], recv[r], 2, Float32, 0); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(cs[2].Device, recv[2], 6); !slices.Equal(got, []float32{1, 10, 2, 20, 3, 30}) {
		t.Errorf("all-gather = %v", got)
	}
	errs = eachRank(cs, func(c *Comm) error { return c.ReduceScatter(send[c.Rank], recv[c.Rank], 1, Float32, Sum, 0) })
	for r := range cs {
		want := []float32{6, 60, 1.5}[r]
		if errs[r] != nil || read(cs[r].Device, recv[r], 1)[0] != want {
			t.Errorf("reduce-scatter on rank %d = %v, %v; want %v", r, read(cs[r].Device, recv[r], 1), errs[r], want)
		}
	}
	log := fakeLog(t, l)
	if logHas(t, log, "ncclAllReduce(") != n || logHas(t, log, "ncclAllGather(") != n || logHas(t, log, "ncclReduceScatter(rank=1, recvcount=1, dtype=7, op=0") != 1 {
		t.Errorf("log: %q", log)
	}
	i := slices.Index(log, "ncclGroupStart")
	if i < 0 || log[i+n+1] != "ncclGroupEnd" {
		t.Errorf("the group's calls are not between ncclGroupStart and ncclGroupEnd: %q", log)
	}
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// Four goroutines share rank 0's id over loopback TCP and make their
// communicators with ncclCommInitRankScalable, the id by pointer.
func TestTCPRendezvousAndInitRank(t *testing.T) {
	l := fakeLib(t)
	addr := freePort(t)
	const n = 4
	devs := newFakeDevices(n)
	comms := make([]*Comm, n)
	errs := make([]error, n)
	ids := make([]UniqueID, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rv := Rendezvous{Rank: r, World: n, Addr: addr, Timeout: 10 * time.Second}
			ids[r], errs[r] = rv.ShareID(context.Background(), l.UniqueID)
			if errs[r] == nil {
				comms[r], errs[r] = l.InitRank(ids[r], n, r, devs[r])
			}
		}()
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil {
			t.Fatalf("rank %d: %v", r, errs[r])
		}
		if ids[r] != ids[0] || comms[r].Rank != r || comms[r].Size != n {
			t.Errorf("rank %d: id differs or rank %d of %d", r, comms[r].Rank, comms[r].Size)
		}
		defer comms[r].Destroy()
	}
	log := fakeLog(t, l)
	if logHas(t, log, "ncclGetUniqueId") != 1 {
		t.Errorf("ncclGetUniqueId called other than once: %q", log)
	}
	var tags []string
	for _, line := range log {
		if strings.HasPrefix(line, "ncclCommInitRankScalable(") {
			if !strings.Contains(line, "nranks=4") || !strings.Contains(line, "nId=1") || !strings.Contains(line, "config=NULL") {
				t.Errorf("init call: %s", line)
			}
			tags = append(tags, line[strings.Index(line, "id="):])
		}
	}
	if len(tags) != n || slices.Compact(slices.Clone(tags))[0] != tags[0] || len(slices.Compact(slices.Sorted(slices.Values(tags)))) != 1 {
		t.Errorf("the ranks' ids: %q", tags)
	}
}

func TestFileRendezvous(t *testing.T) {
	file := filepath.Join(t.TempDir(), "id")
	const n = 3
	ids := make([]UniqueID, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rv := Rendezvous{Rank: r, World: n, IDFile: file, Timeout: 10 * time.Second}
			ids[r], errs[r] = rv.ShareID(context.Background(), func() (UniqueID, error) {
				var id UniqueID
				copy(id[:], "the id of this test, made by rank 0")
				return id, nil
			})
		}()
	}
	wg.Wait()
	for r := range n {
		if errs[r] != nil || ids[r] != ids[0] || !strings.HasPrefix(string(ids[r][:]), "the id of this test") {
			t.Errorf("rank %d: %q, %v", r, ids[r][:20], errs[r])
		}
	}
	left, _ := filepath.Glob(file + "*")
	if len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
	// a stale file for another world size is refused, not used
	os.WriteFile(file, append([]byte("tle-nccl-id 8\n"), make([]byte, 128)...), 0o600)
	_, err := Rendezvous{Rank: 1, World: 2, IDFile: file, Timeout: time.Second}.ShareID(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "world of 8") {
		t.Errorf("a file of another world: %v", err)
	}
}

func TestRendezvousTimeouts(t *testing.T) {
	addr := freePort(t)
	start := time.Now()
	_, err := Rendezvous{Rank: 1, World: 2, Addr: addr, Timeout: 300 * time.Millisecond}.ShareID(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "could not reach rank 0") {
		t.Errorf("rank 1 alone: %v", err)
	}
	_, err = Rendezvous{Rank: 0, World: 3, Addr: addr, Timeout: 300 * time.Millisecond}.ShareID(context.Background(), func() (UniqueID, error) { return UniqueID{}, nil })
	if err == nil || !strings.Contains(err.Error(), "heard from 0 of the 2 other ranks") {
		t.Errorf("rank 0 alone: %v", err)
	}
	_, err = Rendezvous{Rank: 1, World: 2, IDFile: filepath.Join(t.TempDir(), "never"), Timeout: 200 * time.Millisecond}.ShareID(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "waited") {
		t.Errorf("no file: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeouts took %v", d)
	}
}

func TestRendezvousWorldMismatch(t *testing.T) {
	addr := freePort(t)
	var wg sync.WaitGroup
	var err0, err1 error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, err0 = Rendezvous{Rank: 0, World: 2, Addr: addr, Timeout: 5 * time.Second}.ShareID(context.Background(), func() (UniqueID, error) { return UniqueID{1}, nil })
	}()
	go func() {
		defer wg.Done()
		_, err1 = Rendezvous{Rank: 1, World: 3, Addr: addr, Timeout: 5 * time.Second}.ShareID(context.Background(), nil)
	}()
	wg.Wait()
	for i, err := range []error{err0, err1} {
		if err == nil || !strings.Contains(err.Error(), "rank 1 says the world has 3 ranks, rank 0 says 2") {
			t.Errorf("rank %d: %v", i, err)
		}
	}
}

func TestRendezvousFromEnv(t *testing.T) {
	for _, k := range []string{"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TLE_NCCL_PORT", "TLE_NCCL_ID_FILE"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	if _, err := RendezvousFromEnv(); err == nil || !strings.Contains(err.Error(), "$RANK") {
		t.Errorf("no RANK: %v", err)
	}
	t.Setenv("RANK", "2")
	t.Setenv("WORLD_SIZE", "2")
	if _, err := RendezvousFromEnv(); err == nil || !strings.Contains(err.Error(), "out of range") {
		t.Errorf("RANK=2 of 2: %v", err)
	}
	t.Setenv("WORLD_SIZE", "x")
	if _, err := RendezvousFromEnv(); err == nil || !strings.Contains(err.Error(), `$WORLD_SIZE="x"`) {
		t.Errorf("WORLD_SIZE=x: %v", err)
	}
	t.Setenv("WORLD_SIZE", "4")
	if _, err := RendezvousFromEnv(); err == nil || !strings.Contains(err.Error(), "MASTER_PORT") {
		t.Errorf("no port: %v", err)
	}
	t.Setenv("MASTER_PORT", "29500")
	rv, err := RendezvousFromEnv()
	if err != nil || rv.Rank != 2 || rv.World != 4 || rv.LocalRank != 2 || rv.Addr != "127.0.0.1:29501" {
		t.Errorf("torchrun's variables: %+v, %v", rv, err)
	}
	t.Setenv("LOCAL_RANK", "0")
	t.Setenv("MASTER_ADDR", "10.0.0.1")
	t.Setenv("TLE_NCCL_PORT", "4000")
	if rv, _ := RendezvousFromEnv(); rv.LocalRank != 0 || rv.Addr != "10.0.0.1:4000" {
		t.Errorf("LOCAL_RANK and TLE_NCCL_PORT: %+v", rv)
	}
	t.Setenv("TLE_NCCL_ID_FILE", "/tmp/x")
	if rv, _ := RendezvousFromEnv(); rv.IDFile != "/tmp/x" || rv.Addr != "" {
		t.Errorf("TLE_NCCL_ID_FILE: %+v", rv)
	}
}

func heaps(t *testing.T, cs []*Comm, size func(r int) int, sync int) ([]*Heap, []error) {
	hs := make([]*Heap, len(cs))
	errs := eachRank(cs, func(c *Comm) error {
		h, err := NewHeap(c, size(c.Rank), sync)
		hs[c.Rank] = h
		return err
	})
	t.Cleanup(func() {
		for _, h := range hs {
			h.Close()
		}
	})
	return hs, errs
}

func checkBases(t *testing.T, hs []*Heap) {
	t.Helper()
	for r, h := range hs {
		for p, b := range h.Bases {
			if b != hs[p].Base {
				t.Errorf("rank %d's base of rank %d = %#x, want %#x", r, p, b, hs[p].Base)
			}
		}
		tab := make([]byte, 8*len(hs))
		h.Comm.Device.CopyDtoH(tab, h.BasesDev)
		for p := range hs {
			if binary.LittleEndian.Uint64(tab[8*p:]) != h.Bases[p] {
				t.Errorf("rank %d's heap_bases[%d] on the device is not its Bases", r, p)
			}
		}
		sync := make([]byte, h.SyncBytes)
		h.Comm.Device.CopyDtoH(sync, h.Sync())
		if slices.ContainsFunc(sync, func(b byte) bool { return b != 0 }) {
			t.Errorf("rank %d's sync area is not zero", r)
		}
	}
}

// NCCL 2.29+: the heap is NCCL's memory registered as a symmetric window,
// and the peers' addresses are NCCL's.
func TestHeapPeerPointers(t *testing.T) {
	l := fakeLib(t)
	cs := initAll(t, l, 3)
	hs, errs := heaps(t, cs, func(int) int { return 10000 }, 8*3*5)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	checkBases(t, hs)
	h := hs[1]
	if h.Mode != PeerPointers || h.SyncBytes != 256 || h.Size != 12288 || h.Base%4096 != 0 {
		t.Errorf("heap: mode %v, sync %d, size %d, base %#x", h.Mode, h.SyncBytes, h.Size, h.Base)
	}
	log := fakeLog(t, l)
	if logHas(t, log, "ncclMemAlloc(size=12288)") != 3 || logHas(t, log, "ncclCommWindowRegister(rank=2, size=12288, flags=1)") != 1 ||
		logHas(t, log, "ncclGetPeerDevicePointer(offset=0, peer=") != 6 {
		t.Errorf("log: %q", log)
	}
	// rank 1's collective calls, in order: the headers, the window, the
	// reachability status, the closing barrier
	var seq []string
	for _, l := range log {
		if strings.Contains(l, "(rank=1,") {
			seq = append(seq, l[:strings.Index(l, "(")])
		}
	}
	if want := []string{"ncclAllGather", "ncclCommWindowRegister", "ncclAllGather", "ncclAllGather"}; !slices.Equal(seq, want) {
		t.Errorf("rank 1's calls: %v, want %v", seq, want)
	}
	if i, j := slices.IndexFunc(log, func(l string) bool { return strings.HasPrefix(l, "ncclMemAlloc") }),
		slices.IndexFunc(log, func(l string) bool { return strings.HasPrefix(l, "ncclCommWindowRegister") }); i < 0 || j < i {
		t.Errorf("ncclMemAlloc (line %d) is not before the first ncclCommWindowRegister (line %d)", i, j)
	}
	a, err := h.Alloc(1000)
	b, err2 := h.Alloc(10)
	if err != nil || err2 != nil || a.Offset != 256 || b.Offset != 256+1024 || b.Ptr != h.Base+1280 {
		t.Errorf("allocations: %+v %+v %v %v", a, b, err, err2)
	}
	if _, err := h.Alloc(12000); err == nil || !strings.Contains(err.Error(), "bytes left") {
		t.Errorf("an allocation past the end: %v", err)
	}
	for _, x := range hs {
		x.Close()
	}
	log = fakeLog(t, l)
	if logHas(t, log, "ncclCommWindowDeregister") != 3 || logHas(t, log, "ncclMemFree") != 3 {
		t.Errorf("closing: %q", log)
	}
}

func TestHeapUnreachablePeer(t *testing.T) {
	l := fakeLib(t)
	cs := initAll(t, l, 3)
	fakeSet(t, l, "unreachable", 2)
	_, errs := heaps(t, cs, func(int) int { return 4096 }, 0)
	for r := range 2 {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "cannot load from or store to rank 2's memory") {
			t.Errorf("rank %d: %v", r, errs[r])
		}
	}
	// rank 2 reaches everyone but hears that the others did not
	if errs[2] == nil || !strings.Contains(errs[2].Error(), "rank 0 could not map every peer's heap") {
		t.Errorf("rank 2: %v", errs[2])
	}
}

func TestHeapRanksDisagree(t *testing.T) {
	l := fakeLib(t)
	cs := initAll(t, l, 2)
	_, errs := heaps(t, cs, func(r int) int { return 4096 * (r + 1) }, 0)
	for r, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "rank 0 asks for 4096 bytes (sync area 0), rank 1 for 8192 (sync area 0)") {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	if n := logHas(t, fakeLog(t, l), "ncclCommWindowRegister"); n != 0 {
		t.Errorf("a window registered (%d calls) for heaps the ranks disagree on", n)
	}
}

// Before 2.29 the heap is the driver's: peer access within a process,
// IPC handles across processes.
func TestHeapDriverPeers(t *testing.T) {
	l := fakeLib(t, "FAKE_VERSION=22803")
	cs := initAll(t, l, 3)
	hs, errs := heaps(t, cs, func(int) int { return 512 }, 100)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	checkBases(t, hs)
	if got := cs[0].Device.(*fakeDevice).enabled; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("rank 0 enabled peer access to %v, want [1 2]", got)
	}
	if n := logHas(t, fakeLog(t, l), "ncclMemAlloc"); n != 0 {
		t.Error("the driver's heap called ncclMemAlloc")
	}
	// every rank in its own process: IPC handles
	defer func(f func(*Comm) int) { heapPID = f }(heapPID)
	heapPID = func(c *Comm) int { return 1000 + c.Rank }
	hs, errs = heaps(t, initAll(t, l, 2), func(int) int { return 512 }, 0)
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
	checkBases(t, hs)
	if got := hs[0].Comm.Device.(*fakeDevice).opened; !slices.Equal(got, []uint64{hs[1].Base}) {
		t.Errorf("rank 0 opened %#x, want rank 1's heap %#x", got, hs[1].Base)
	}
	// no peer path
	cs = initAll(t, l, 2)
	cs[1].Device.(*fakeDevice).noPeer[0] = true
	_, errs = heaps(t, cs, func(int) int { return 512 }, 0)
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "rank 1's device 1 cannot access rank 0's device 0") {
		t.Errorf("no peer path: %v", errs[1])
	}
}

func TestHeapModeMismatch(t *testing.T) {
	a := heapHeader{size: 512, mode: PeerPointers, version: Version{2, 29, 7}}
	b := heapHeader{size: 512, mode: DriverPeers, version: Version{2, 28, 3}, rank: 1, world: 2}
	if got, ok := decodeHeapHeader(b.encode()); !ok || got != b {
		t.Errorf("header round trip: %+v, want %+v", got, b)
	}
	err := checkHeaders([]heapHeader{a, b})
	if err == nil || !strings.Contains(err.Error(), "rank 0 has NCCL 2.29.7 (NCCL symmetric windows and ncclGetPeerDevicePointer), rank 1 NCCL 2.28.3") {
		t.Errorf("two NCCLs: %v", err)
	}
}

func TestAgreeLaunch(t *testing.T) {
	l := fakeLib(t)
	cs := initAll(t, l, 3)
	rec := func(r int) LaunchRecord {
		return LaunchRecord{Kernel: "all_reduce_oneshot", Binary: [16]byte{1, 2}, Grid: [3]int{8, 1, 1}, Block: 128,
			Buffers: []BufferRecord{{"x", 4096, 256}, {"out", 4096, -1}}}
	}
	for r, err := range eachRank(cs, func(c *Comm) error { return c.AgreeLaunch(rec(c.Rank)) }) {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
	for _, c := range []struct {
		change func(*LaunchRecord)
		want   string
	}{
		{func(x *LaunchRecord) { x.Grid[0] = 4 }, "rank 0's grid is [8 1 1], rank 2's [4 1 1]"},
		{func(x *LaunchRecord) { x.Kernel = "all_gather" }, "rank 0 launches all_reduce_oneshot, rank 2 all_gather"},
		{func(x *LaunchRecord) { x.Buffers[1].Bytes = 8192 }, "out has 4096 bytes"},
		{func(x *LaunchRecord) { x.Binary[0] = 9 }, "another build"},
	} {
		errs := eachRank(cs, func(cm *Comm) error {
			x := rec(cm.Rank)
			x.Buffers = slices.Clone(x.Buffers)
			if cm.Rank == 2 {
				c.change(&x)
			}
			return cm.AgreeLaunch(x)
		})
		for r, err := range errs {
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("rank %d: %v, want %q", r, err, c.want)
			}
		}
	}
}

func TestUniqueIDDistinct(t *testing.T) {
	l := fakeLib(t)
	a, err := l.UniqueID()
	b, err2 := l.UniqueID()
	if err != nil || err2 != nil || a == b {
		t.Errorf("two ids: equal %v, %v %v", a == b, err, err2)
	}
	fakeFail(t, l, "ncclGetUniqueId", 3)
	if _, err := l.UniqueID(); err == nil || !strings.Contains(err.Error(), "ncclInternalError") {
		t.Errorf("failing ncclGetUniqueId: %v", err)
	}
}
