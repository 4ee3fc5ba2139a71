package nccl

// Tests against testdata/fakenccl, a stand-in libnccl compiled with the
// system C compiler (skipped where there is none), and fakeDevice, a Go
// stand-in GPU whose "device memory" is host memory the fake library can
// read and write.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"

	"github.com/tlego/tle/internal/fakelib"
)

var fake = &fakelib.Builder{Name: "fakenccl", Src: filepath.Join("testdata", "fakenccl", "fakenccl.c"), Flags: []string{"-pthread"}}

func TestMain(m *testing.M) {
	code := m.Run()
	fake.Cleanup()
	os.Exit(code)
}

// fakeLibPath builds the fake library with the given -D flags (once per
// set) and returns its path.
func fakeLibPath(t testing.TB, defines ...string) string {
	t.Helper()
	return fake.Lib(t, defines...)
}

// fakeLib opens the fake (reset: its log and configuration cleared).
func fakeLib(t testing.TB, defines ...string) *Library {
	t.Helper()
	l, err := Open(Options{Library: fakeLibPath(t, defines...)})
	if err != nil {
		t.Fatal(err)
	}
	fakeCall(t, l, "fake_reset")
	t.Setenv("NCCL_NVLS_ENABLE", "") // restored after the test
	os.Unsetenv("NCCL_NVLS_ENABLE")
	return l
}

func fakeSym(t testing.TB, l *Library, name string) uintptr {
	t.Helper()
	p, err := dlsym(l.handle, name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func fakeCall(t testing.TB, l *Library, name string, args ...uintptr) uintptr {
	return callPtr(fakeSym(t, l, name), args...)
}

func cstr(s string) []byte { return append([]byte(s), 0) }

func fakeSet(t testing.TB, l *Library, key string, v int) {
	k := cstr(key)
	fakeCall(t, l, "fake_set", uintptr(unsafe.Pointer(&k[0])), uintptr(v))
}

func fakeGet(t testing.TB, l *Library, key string) int {
	k := cstr(key)
	return int(int64(fakeCall(t, l, "fake_get", uintptr(unsafe.Pointer(&k[0])))))
}

func fakeFail(t testing.TB, l *Library, fn string, code int) {
	k := cstr(fn)
	fakeCall(t, l, "fake_fail", uintptr(unsafe.Pointer(&k[0])), uintptr(code))
}

// fakeLog is the fake's call log, one call a line.
func fakeLog(t testing.TB, l *Library) []string {
	s := cString(fakeCall(t, l, "fake_log"))
	return strings.Split(strings.TrimSpace(s), "\n")
}

// fakeDevice is a GPU of host memory.
type fakeDevice struct {
	ord     int
	mu      sync.Mutex
	mem     map[uint64][]byte
	noPeer  map[int]bool // ordinals CanAccessPeer denies
	enabled []int        // EnablePeerAccess calls, by peer ordinal
	opened  []uint64     // OpenIPCHandle results
	closed  int
}

func newFakeDevices(n int) []Device {
	ds := make([]Device, n)
	for i := range ds {
		ds[i] = &fakeDevice{ord: i, mem: map[uint64][]byte{}, noPeer: map[int]bool{}}
	}
	return ds
}

func (d *fakeDevice) Ordinal() int             { return d.ord }
func (d *fakeDevice) Do(fn func() error) error { return fn() }
func (d *fakeDevice) Alloc(n int) (uint64, error) {
	b, err := syscall.Mmap(-1, 0, max(n, 1), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return 0, err
	}
	for i := range b {
		b[i] = 0xCD
	}
	p := uint64(uintptr(unsafe.Pointer(&b[0])))
	d.mu.Lock()
	d.mem[p] = b
	d.mu.Unlock()
	return p, nil
}
func (d *fakeDevice) Free(p uint64) error {
	d.mu.Lock()
	b, ok := d.mem[p]
	delete(d.mem, p)
	d.mu.Unlock()
	if !ok {
		return fmt.Errorf("fake device %d: Free of %#x, not allocated", d.ord, p)
	}
	return syscall.Munmap(b)
}
func raw(p uint64, n int) []byte {
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}
func (d *fakeDevice) Zero(p uint64, n int) error        { clear(raw(p, n)); return nil }
func (d *fakeDevice) CopyHtoD(p uint64, b []byte) error { copy(raw(p, len(b)), b); return nil }
func (d *fakeDevice) CopyDtoH(b []byte, p uint64) error { copy(b, raw(p, len(b))); return nil }
func (d *fakeDevice) Synchronize() error                { return nil }
func (d *fakeDevice) CanAccessPeer(o int) (bool, error) { return !d.noPeer[o], nil }
func (d *fakeDevice) EnablePeerAccess(p Device) error {
	d.mu.Lock()
	d.enabled = append(d.enabled, p.Ordinal())
	d.mu.Unlock()
	return nil
}
func (d *fakeDevice) IPCHandle(p uint64) ([64]byte, error) {
	var h [64]byte
	*(*uint64)(unsafe.Pointer(&h[0])) = p
	copy(h[8:], "fake ipc")
	return h, nil
}
func (d *fakeDevice) OpenIPCHandle(h [64]byte) (uint64, error) {
	if string(h[8:16]) != "fake ipc" {
		return 0, errors.New("fake: not a handle")
	}
	p := *(*uint64)(unsafe.Pointer(&h[0]))
	d.mu.Lock()
	d.opened = append(d.opened, p)
	d.mu.Unlock()
	return p, nil
}
func (d *fakeDevice) CloseIPCHandle(p uint64) error { d.closed++; return nil }

// initAll makes n communicators of the fake on fake devices.
func initAll(t testing.TB, l *Library, n int) []*Comm {
	t.Helper()
	cs, err := l.InitAll(newFakeDevices(n))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range cs {
			c.Destroy()
		}
	})
	return cs
}

// eachRank runs fn for every rank at once, one goroutine a rank, and
// returns the ranks' errors.
func eachRank(cs []*Comm, fn func(c *Comm) error) []error {
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(c)
		}()
	}
	wg.Wait()
	return errs
}

func logHas(t testing.TB, log []string, want string) int {
	t.Helper()
	n := 0
	for _, l := range log {
		if strings.HasPrefix(l, want) {
			n++
		}
	}
	return n
}
