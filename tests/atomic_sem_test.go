package tests

// Memory ordering (issue 35 item 2): atomics' sem: and scope:, which the
// interpreter runs as it ran every atomic (each element read, combined and
// written under its buffer's lock: sequentially consistent, stronger than
// any sem), debug_barrier, and the lock loop of Triton's layer-norm
// backward (tutorial 05): programs running in parallel take a spin lock
// with atomic_cas, add their row into a shared accumulator and release it.

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

const atomicSemSrc = `
kernel atomic_sem(cnt *i32, old *i32, x *f32, y *f32, N const i32) {
    offs := arange(0, N)
    o1 := atomic_add(cnt + offs, 1)
    o2 := atomic_add(cnt + offs, 2, sem: "relaxed", scope: "cta")
    o3 := atomic_or(cnt + offs, 16, sem: "acquire", scope: "sys")
    o4 := atomic_xchg(cnt + offs, o3 + 100, sem: "release")
    o5 := atomic_cas(cnt + offs, offs + 103, 7, sem: "acq_rel", scope: "gpu", mask: offs < N/2)
    store(old + offs, o1 + o2 + o3 + o4 + o5)
    store(y + offs, load(x + offs) * 2.0)
    debug_barrier()
    store(x + offs, load(y + N - 1 - offs))
}
`

// TestAtomicSemInterp: each sem and scope gives the sequential answer, and
// debug_barrier is a barrier of the CTA's threads (its stores visible
// after it).
func TestAtomicSemInterp(t *testing.T) {
	prog, err := tle.Parse("atomic_sem.tle", []byte(atomicSemSrc))
	require.NoError(t, err)
	k, err := prog.Kernel("atomic_sem")
	require.NoError(t, err)
	const n = 16
	cnt, old, x, y := tle.NewTensor(n), tle.NewTensor(n), tle.NewTensor(n), tle.NewTensor(n)
	for i := range n {
		cnt.Data[i] = float64(i)
		x.Data[i] = float64(i)
	}
	require.NoError(t, k.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"N": "16"}},
		map[string]any{"cnt": cnt, "old": old, "x": x, "y": y}))
	for i := range n {
		// i, +1, +2, |16, exchanged for o3 + 100, then 7 where that equals
		// i + 103 and the mask holds (the first half)
		o1, o2, o3 := i, i+1, i+3
		o4 := o3 | 16
		want := o3 + 100
		if i < n/2 {
			require.Equal(t, float64(o1+o2+o3+o4+want), old.Data[i], "old[%d]", i)
			want = 7
		}
		require.Equal(t, float64(want), cnt.Data[i], "cnt[%d]", i)
		require.Equal(t, float64(2*(n-1-i)), x.Data[i], "x[%d]", i)
	}
}

// TestLockLoopInterp: 64 programs in parallel (the interpreter's workers;
// the GPU's CTAs when one is present) serialise on a spin lock, for
// atomic_cas(lock, 0, 1) == 1 {}, and the accumulator holds the exact sum
// of every program's row.
func TestLockLoopInterp(t *testing.T) {
	src, err := os.ReadFile("testdata/lock_sum.tle")
	require.NoError(t, err)
	prog, err := tle.Parse("lock_sum.tle", src)
	require.NoError(t, err)
	k, err := prog.Kernel("lock_sum")
	require.NoError(t, err)
	const progs, n = 64, 32
	x := tle.NewTensor(progs * n)
	want := make([]float64, n)
	for p := range progs {
		for i := range n {
			v := float64((p*7+i*3)%19 - 9) // small integers: every order sums exactly
			x.Data[p*n+i] = v
			want[i] += v
		}
	}
	for _, dev := range tletest.Devices(t) {
		lock, count, acc := tle.NewTensor(1), tle.NewTensor(1), tle.NewTensor(n)
		require.NoError(t, k.Run(dev, [3]int{progs, 1, 1}, tle.CompileOptions{NumWarps: 4, Defines: map[string]string{"N": "32"}},
			map[string]any{"lock": lock, "count": count, "acc": acc, "x": x}), dev.Name())
		require.Equal(t, want, acc.Data, dev.Name())
		require.Equal(t, []float64{0}, lock.Data, "the lock is released (%s)", dev.Name())
		require.Equal(t, []float64{1}, count.Data, dev.Name())
	}
}
