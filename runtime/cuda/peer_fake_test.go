package cuda

import (
	"errors"
	"strings"
	"testing"
)

// Peer access and IPC against the fake driver: the 64-byte handle goes
// by value to cuIpcOpenMemHandle_v2 (the fake checks every byte of it),
// with lazy peer access; an old driver without the entry points gives a
// clean error.
func TestFakeIPCHandleRoundTrip(t *testing.T) {
	c := fakeContext(t)
	p, err := c.Alloc(256)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Free(p)
	h, err := c.IPCMemHandle(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := c.OpenIPCMemHandle(h)
	if err != nil {
		t.Fatal(err)
	}
	if q != p+64 {
		t.Errorf("OpenIPCMemHandle = %#x, want the fake's mapping %#x of %#x", q, p+64, p)
	}
	fn, err := dlsym(c.d.handle, "fake_ipc_flags")
	if err != nil {
		t.Fatal(err)
	}
	if f := callPtr(fn); f != 1 {
		t.Errorf("cuIpcOpenMemHandle_v2 flags = %d, want CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS (1)", f)
	}
	h[40] ^= 1
	if _, err := c.OpenIPCMemHandle(h); err == nil {
		t.Error("a corrupted handle opened")
	}
	if err := c.CloseIPCMemHandle(q); err != nil {
		t.Error(err)
	}
}

func TestFakePeerAccess(t *testing.T) {
	c := fakeContext(t)
	ok, err := c.Driver().CanAccessPeer(0, 0)
	if err != nil || !ok {
		t.Errorf("CanAccessPeer(0, 0) = %v, %v", ok, err)
	}
	if _, err := c.Driver().CanAccessPeer(0, 3); err == nil {
		t.Error("CanAccessPeer of a device that is not there succeeded")
	}
	// the fake answers ALREADY_ENABLED, which is no error
	if err := c.EnablePeerAccess(c); err != nil {
		t.Error(err)
	}
	if err := c.Do(func() error { return errors.New("inner") }); err == nil || err.Error() != "inner" {
		t.Errorf("Do = %v, want fn's error", err)
	}
}

func TestFakePeerOldDriver(t *testing.T) {
	c := fakeContext(t, "NO_EX")
	_, err := c.IPCMemHandle(1 << 20)
	if !errors.Is(err, ErrNoDriver) || !strings.Contains(err.Error(), "cuIpcGetMemHandle") {
		t.Errorf("IPCMemHandle on an old driver: %v", err)
	}
	if _, err := c.Driver().CanAccessPeer(0, 0); err == nil || !strings.Contains(err.Error(), "cuDeviceCanAccessPeer") {
		t.Errorf("CanAccessPeer on an old driver: %v", err)
	}
}
