package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/tests/tletest"
	"github.com/tlego/tle/tle"
)

// The interpreter's race check on shared memory (runtime/interp/race.go):
// two roles touching the same elements with nothing ordering them fail the
// launch, whatever order the goroutines happened to run in; the same
// kernels with the synchronisation they need pass. Each case is one
// kernel, with SYNC choosing whether the ordering is there, and want a
// regular expression of the error.
// barrierPair is a kernel of two roles on buf [64]f32: w runs write, then
// (SYNC) arrives on done; r (SYNC) waits for done, then runs read.
func barrierPair(write, read string) string {
	return `
kernel k(x *f32, out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    done := barrier(count: 1)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            ` + write + `
            if SYNC {
                arrive(done)
            }
        }
        role r(warps: 1) {
            if SYNC {
                wait(done, 0)
            }
            ` + read + `
        }
    }
}
`
}

var smemRaceCases = []struct {
	name, src, want string
}{
	{"write then read, no barrier", barrierPair("store(buf, load(x + c))", "store(out + c, load(buf))"), `shared-memory race on buf element 0`},
	{"a ring slot released before its read", `
kernel k(x *f32, out *f32, SYNC const i1) {
    buf := alloc([2, 64], f32)
    full := barrier(count: 1, slots: 2)
    empty := barrier(count: 1, slots: 2)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            for i := range 4 {
                s := i % 2
                if i >= 2 {
                    wait(empty.slot(s), (i/2 + 1) % 2)
                }
                store(buf.slot(s), load(x + i*64 + c))
                arrive(full.slot(s))
            }
        }
        role r(warps: 1) {
            acc := zeros([64], f32)
            for i := range 4 {
                s := i % 2
                wait(full.slot(s), (i / 2) % 2)
                if !SYNC {
                    arrive(empty.slot(s))
                }
                acc = acc + load(buf.slot(s))
                if SYNC {
                    arrive(empty.slot(s))
                }
            }
            store(out + c, acc)
        }
    }
}
`, `shared-memory race on buf element \d+: this (write|read) is not ordered after the (read|write) by role "[rw]" of program`},
	{"a pointer store read through local_ptr by another role", barrierPair("store(local_ptr(buf, c), load(x + c))", "store(out + c, load(local_ptr(buf, 63 - c)))"), `shared-memory race on buf element \d+: this (write|read) is not ordered after the (read|write) by role "[rw]" of program`},
	{"a buffer a pipe's commit publishes", `
kernel k(x *f32, out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    pp := pipe(capacity: 1, v: [1]f32)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            store(buf, load(x + c))
            s := pp.acquire(0)
            pp.commit(0)
        }
        role r(warps: 1) {
            if SYNC {
                s := pp.wait(0)
                pp.release(0)
            }
            store(out + c, load(buf))
        }
    }
}
`, `shared-memory race on buf element 0`},
	{"a TMA refill read before its barrier", `
kernel k(a desc[f32, 64], out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    full := barrier(count: 1)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            expect(full, 64 * 4)
            copy(a, buf, 0, barrier: full)
        }
        role r(warps: 1) {
            if SYNC {
                wait(full, 0)
            }
            store(out + c, load(buf))
        }
    }
}
`, `shared-memory race on buf element 0`},
	{"a peer's buffer read before the cluster's barrier", `
kernel k(x *f32, out *f32, SYNC const i1) {
    mesh := device_mesh(cluster_x: 2)
    rank := shard_id(mesh, "cluster_x")
    pid := program_id(0)
    c := arange(0, 64)
    buf := alloc([64], f32)
    store(local_ptr(buf, c), load(x + pid*64 + c))
    if SYNC {
        distributed_barrier(mesh)
    }
    v := load(local_ptr(remote(buf, 1 - rank, mesh), c))
    distributed_barrier(mesh)
    store(out + pid*64 + c, v)
}
`, `shared-memory race on buf element \d+: this (write|read) is not ordered after the (read|write) by program \([01], 0, 0\)`},
	{"a store after a copy, read by the copy's waiter", `
kernel k(a desc[f32, 64], out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    b2 := alloc([64], f32)
    full := barrier(count: 1)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            if SYNC {
                store(b2, c.to(f32))
            }
            expect(full, 64 * 4)
            copy(a, buf, 0, barrier: full)
            if !SYNC {
                store(b2, c.to(f32))
            }
        }
        role r(warps: 1) {
            wait(full, 0)
            store(out + c, load(buf) + load(b2))
        }
    }
}
`, `shared-memory race on b2 element 0`},
	{"a copy's destination read by its issuer before the wait", `
kernel k(a desc[f32, 64], out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    full := barrier(count: 1)
    c := arange(0, 64)
    expect(full, 64 * 4)
    copy(a, buf, 0, barrier: full)
    if SYNC {
        wait(full, 0)
    }
    store(out + c, load(buf))
}
`, `this read is not ordered after the write by program \(0, 0, 0\)'s TMA copies`},
	{"a wgmma operand refilled through a pipe released before the wgmma_wait", `
kernel k(x *bf16, out *f32, SYNC const i1) {
    sa := alloc([64, 64], bf16)
    pp := pipe(capacity: 1, v: [1]f32)
    r := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            store(sa, load(x + r[:, None]*64 + r[None, :]))
            s := pp.acquire(0)
            pp.commit(0)
            u := pp.acquire(1)
            store(sa, load(x + r[:, None]*64 + r[None, :]))
            pp.commit(1)
        }
        role m(warps: 4) {
            s := pp.wait(0)
            acc := wgmma(sa, sa, zeros([64, 64], f32), trans_b: true)
            if SYNC {
                wgmma_wait(0)
                pp.release(0)
            } else {
                pp.release(0)
                wgmma_wait(0)
            }
            u := pp.wait(1)
            pp.release(1)
            store(out + r[:, None]*64 + r[None, :], acc)
        }
    }
}
`, `shared-memory race on sa element|write to sa while the wgmma at race.tle:17:20 may still read it`},
	// the check runs on whole ranges; a race is still reported at the first
	// element that races, in the access's order
	{"a tile's second half written, the tile read whole", `
kernel k(x *f32, out *f32, SYNC const i1) {
    buf := alloc([3, 64], f32)
    done := barrier(count: 1)
    c := arange(0, 64)
    warp_specialize {
        role w(warps: 1) {
            store(buf.slot(1), load(x + c))
            if SYNC {
                arrive(done)
            }
        }
        role r(warps: 1) {
            if SYNC {
                wait(done, 0)
            }
            store(out + c, sum(load(buf), axis: 0))
        }
    }
}
`, `shared-memory race on buf element 64:`},
	{"an atomic and a plain read of one element", barrierPair("atomic_add(local_ptr(buf, c), 1.0)", "store(out + c, load(buf))"), `shared-memory race on buf element 0`},
	{"roles of a warp_specialize in a loop", `
kernel k(x *f32, out *f32, SYNC const i1) {
    buf := alloc([64], f32)
    c := arange(0, 64)
    for i := range 40 {
        done := barrier(count: 1)
        warp_specialize {
            role w(warps: 1) {
                store(buf, load(x + c) + cast(i, f32))
                if SYNC {
                    arrive(done)
                }
            }
            role r(warps: 1) {
                if SYNC {
                    wait(done, 0)
                }
                store(out + c, load(buf))
            }
        }
    }
}
`, `shared-memory race on buf element 0`},
}

func TestSharedMemoryRace(t *testing.T) {
	for _, c := range smemRaceCases {
		prog, err := tle.Parse("race.tle", []byte(c.src))
		require.NoError(t, err, c.name)
		k, err := prog.Kernel("k")
		require.NoError(t, err, c.name)
		for _, sync := range []bool{true, false} {
			x := tletest.Filled(1, 64*64)
			out := tletest.Filled(0, 64*64)
			args := map[string]any{"out": out}
			if strings.Contains(c.src, "a desc") {
				args["a"] = x
			} else {
				args["x"] = x
			}
			grid := [3]int{1, 1, 1}
			if strings.Contains(c.src, "device_mesh") {
				grid[0] = 2 // one cluster of two CTAs
			}
			// several launches: a race must be found whichever role runs first
			for rep := range 20 {
				err := k.Run(tle.CPU(), grid, tle.CompileOptions{Defines: map[string]string{"SYNC": fmt.Sprint(sync)}}, args)
				if sync {
					require.NoError(t, err, "%s, synchronised (launch %d)", c.name, rep)
					continue
				}
				require.Error(t, err, "%s, unsynchronised (launch %d)", c.name, rep)
				require.Regexp(t, c.want, err.Error(), c.name)
			}
		}
	}
}
