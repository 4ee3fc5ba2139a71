package collectives

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tle"
)

// What the interpreter reports of kernels across devices that go wrong:
// a deadlock (a rank that skips a barrier, a signal_wait nobody
// satisfies) and races between devices, each naming the ranks and lines.

func runSrc(t *testing.T, src string, world int, args func(d int) map[string]any, sym ...string) error {
	t.Helper()
	p, err := tle.Parse("mesh.tle", []byte(src))
	require.NoError(t, err)
	k, err := p.Kernel(p.Kernels()[0])
	require.NoError(t, err)
	as := make([]map[string]any, world)
	for d := range as {
		as[d] = args(d)
	}
	o := tle.CompileOptions{Defines: map[string]string{"WORLD": fmt.Sprint(world)}}
	return k.RunDevices(context.Background(), tle.SimDevices(world), [3]int{1, 1, 1}, o, as, sym...)
}

const skipBarrier = `kernel skip(x *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    if me != 1 {
        distributed_barrier(mesh, axis: "device")
    }
}
`

func TestDeadlockSkippedBarrier(t *testing.T) {
	for _, world := range worlds {
		err := runSrc(t, skipBarrier, world, func(int) map[string]any { return map[string]any{"x": tle.NewTensor(4)} })
		require.Error(t, err)
		msg := err.Error()
		t.Log(msg)
		require.Contains(t, msg, "deadlock")
		require.Contains(t, msg, "device 0 program (0, 0, 0) waits at mesh.tle:5:9 in distributed_barrier")
		require.Contains(t, msg, "finished: device 1 program (0, 0, 0)")
	}
}

const waitForever = `kernel wait_forever(flags *i32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    if me == 0 {
        signal_wait(flags, 1)
    }
}
`

func TestDeadlockSignalWait(t *testing.T) {
	err := runSrc(t, waitForever, 2, func(int) map[string]any { return map[string]any{"flags": tle.NewTensor(1)} }, "flags")
	require.Error(t, err)
	require.Contains(t, err.Error(), "deadlock")
	require.Contains(t, err.Error(), "device 0 program (0, 0, 0) waits at mesh.tle:5:9 in signal_wait: flag flags[0] is 0, waiting until it is ge 1")
}

// racy: rank 0 writes rank 1's buf (line 5) while rank 1 reads it (line
// 8), with nothing between them; ordered puts a device barrier between.
const racy = `kernel racy(buf *f32, out *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    if me == 0 {
        store(remote(buf, 1, mesh), 1.0)
    }
    BARRIER
    if me == 1 {
        store(out, load(buf))
    }
}
`

func TestRaceBetweenDevices(t *testing.T) {
	args := func(int) map[string]any { return map[string]any{"buf": tle.NewTensor(1), "out": tle.NewTensor(1)} }
	for _, world := range worlds {
		err := runSrc(t, replace(racy, "BARRIER", ""), world, args, "buf")
		require.Error(t, err)
		msg := err.Error()
		t.Log(msg)
		require.Contains(t, msg, "race on symmetric buffer buf (device 1's part) element 0")
		require.Contains(t, msg, "device 0 program (0, 0, 0)")
		require.Contains(t, msg, "device 1 program (0, 0, 0)")
		require.Contains(t, msg, "mesh.tle:5:")
		require.Contains(t, msg, "mesh.tle:9:")
		require.NoError(t, runSrc(t, replace(racy, "BARRIER", `distributed_barrier(mesh)`), world, args, "buf"))
	}
}

// pushNoWait is all_gather_push's pattern without the signal_wait: the
// reads of recv race with the peers' remote writes.
const pushNoWait = `kernel push(x *f32, recv *f32, out *f32, flags *i32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    for r := range WORLD {
        store(remote(recv + me, r, mesh), load(x))
        signal(flags, r, mesh, 1, op: "add")
    }
    WAIT
    for r := range WORLD {
        store(out + r, load(recv + r))
    }
}
`

func TestRaceWithoutSignalWait(t *testing.T) {
	args := func(int) map[string]any {
		x := tle.NewTensor(1)
		x.Data[0] = 3
		return map[string]any{"x": x, "recv": tle.NewTensor(4), "out": tle.NewTensor(4), "flags": tle.NewTensor(1)}
	}
	err := runSrc(t, replace(pushNoWait, "WAIT", ""), 4, args, "recv", "flags")
	require.Error(t, err)
	require.Contains(t, err.Error(), "race on symmetric buffer recv")
	require.Contains(t, err.Error(), "mesh.tle:5:")
	require.Contains(t, err.Error(), "mesh.tle:10:")
	require.NoError(t, runSrc(t, replace(pushNoWait, "WAIT", "signal_wait(flags, WORLD)"), 4, args, "recv", "flags"))
}

func replace(s, old, new string) string { return strings.ReplaceAll(s, old, new) }

// Launches that cannot run are clear errors, never panics or hangs.
func TestBadDeviceLaunches(t *testing.T) {
	p, err := tle.Load(FS, "all_reduce.tle")
	require.NoError(t, err)
	k, err := p.Kernel("all_reduce_oneshot")
	require.NoError(t, err)
	args := func(n int) []map[string]any {
		as := make([]map[string]any, n)
		for d := range as {
			as[d] = map[string]any{"x": tle.NewTensor(8), "out": tle.NewTensor(8), "n": 8}
		}
		return as
	}
	ctx := context.Background()
	// a mesh of 4 devices on 2
	err = k.RunDevices(ctx, tle.SimDevices(2), [3]int{1, 1, 1}, opts(4, "f32"), args(2), "x")
	require.ErrorContains(t, err, "its device_mesh has 4 devices, the launch 2")
	// x not symmetric: remote cannot reach a peer's part
	err = k.RunDevices(ctx, tle.SimDevices(2), [3]int{1, 1, 1}, opts(2, "f32"), args(2))
	require.ErrorContains(t, err, "remote: x is not a symmetric allocation")
	require.ErrorContains(t, err, "all_reduce.tle:18:")
	// one tensor on two devices
	as := args(2)
	as[1]["out"] = as[0]["out"]
	err = k.RunDevices(ctx, tle.SimDevices(2), [3]int{1, 1, 1}, opts(2, "f32"), as, "x")
	require.ErrorContains(t, err, "each device needs its own buffer")
	// symmetric parts of different lengths
	as = args(2)
	as[1]["x"] = tle.NewTensor(9)
	err = k.RunDevices(ctx, tle.SimDevices(2), [3]int{1, 1, 1}, opts(2, "f32"), as, "x")
	require.ErrorContains(t, err, "every rank's part must be alike")
	// argument maps for another number of devices
	err = k.RunDevices(ctx, tle.SimDevices(4), [3]int{1, 1, 1}, opts(4, "f32"), args(2), "x")
	require.ErrorContains(t, err, "on 4 devices with 2 argument maps")
}

// A mesh of one device: remote of rank 0 is the local part, the barriers
// have one participant each.
func TestOneDevice(t *testing.T) {
	k := kernel(t, "all_reduce.tle", "all_reduce_twoshot")
	xs := inputs(3, 1, 40, "f32")
	out := tle.NewTensor(40)
	args := []map[string]any{{"x": tensor(xs[0]), "scratch": tle.NewTensor(40), "out": out, "n": 40}}
	run(t, k, 1, 2, opts(1, "f32"), args, "x", "scratch")
	require.Equal(t, xs[0], out.Data)
}

// groupOrder: rank 0 writes rank PEER's buf, a barrier of groups of two
// devices, then PEER reads it: ordered for PEER 1 (rank 0's group), a
// race for PEER 2 (the other group's barrier orders nothing of rank 0's).
const groupOrder = `kernel group_order(buf *f32, out *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    if me == 0 {
        store(remote(buf, PEER, mesh), 1.0)
    }
    distributed_barrier(mesh, group: 2)
    if me == PEER {
        store(out, load(buf))
    }
}
`

func TestSubMeshBarrier(t *testing.T) {
	args := func(int) map[string]any { return map[string]any{"buf": tle.NewTensor(1), "out": tle.NewTensor(1)} }
	require.NoError(t, runSrc(t, replace(groupOrder, "PEER", "1"), 4, args, "buf"))
	err := runSrc(t, replace(groupOrder, "PEER", "2"), 4, args, "buf")
	require.Error(t, err)
	require.Contains(t, err.Error(), "race on symmetric buffer buf (device 2's part) element 0")
	// a rank of the second group skips its barrier: that group deadlocks
	skip := replace(skipBarrier, `me != 1`, `me != 3`)
	skip = replace(skip, `axis: "device"`, `group: 2`)
	err = runSrc(t, skip, 4, func(int) map[string]any { return map[string]any{"x": tle.NewTensor(4)} })
	require.Error(t, err)
	require.Contains(t, err.Error(), "device 2 program (0, 0, 0) waits at mesh.tle:5:9 in distributed_barrier: 1 of 2 CTAs arrived")
	require.NotContains(t, err.Error(), "device 0 program (0, 0, 0) waits")
}

// setFlags: ranks 0 and 1 each write their element of rank 2's buf and
// signal rank 2's flag; rank 2 waits and reads both. Adds chain (a wait
// for 2 acquires both signallers, as atomic adds do on the GPU); a set
// replaces the flag's value and with it what a wait acquires (only the
// signaller whose value it read, as st.release on the GPU), so reading
// both elements after a set is a race, even when both sets came before the
// wait (rank 2 spins first, so they usually do: a flag that kept every
// setter's clock would hide the race then).
const setFlags = `kernel set_flags(buf *f32, flags *i32, out *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    me := shard_id(mesh, "device")
    if me < 2 {
        store(remote(buf + me, 2, mesh), 1.0)
        signal(flags, 2, mesh, 1, op: "OP")
    }
    if me == 2 {
        // long enough that both signals are usually in before the wait
        x := 0.0
        for i := range 20000 {
            x += 1.0
        }
        signal_wait(flags, WANT, cmp: "ge")
        store(out, load(buf) + load(buf + 1) + x)
    }
}
`

func TestSignalSetAcquiresItsSignallerOnly(t *testing.T) {
	args := func(int) map[string]any {
		return map[string]any{"buf": tle.NewTensor(2), "flags": tle.NewTensor(1), "out": tle.NewTensor(1)}
	}
	require.NoError(t, runSrc(t, replace(replace(setFlags, "OP", "add"), "WANT", "2"), 3, args, "buf", "flags"))
	for range 4 { // whichever set the wait reads, the other's write races
		err := runSrc(t, replace(replace(setFlags, "OP", "set"), "WANT", "1"), 3, args, "buf", "flags")
		require.Error(t, err)
		require.Contains(t, err.Error(), "race on symmetric buffer buf (device 2's part)")
	}
}
