package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const tupleReducePTXSrc = `
func argmax2(v0 f32, i0 i32, v1 f32, i1 i32) (f32, i32) {
    if v0 > v1 || v0 == v1 && i0 < i1 {
        return v0, i0
    } else {
        return v1, i1
    }
}

func argmin64(v0 f64, i0 i32, v1 f64, i1 i32) (f64, i32) {
    if v0 < v1 || v0 == v1 && i0 < i1 {
        return v0, i0
    } else {
        return v1, i1
    }
}

kernel tuple_reduce_ptx(x *f32, y *f64, iv *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    off := r[:, None]*256 + c[None, :]
    t := load(x + off)
    v, i := reduce([t, broadcast_to(c[None, :], [8, 256])], 1, argmax2)
    store(x + r, v)
    store(iv + r, i)
    u := load(y + off)
    w, j := reduce([u, off], combine: argmin64)
    store(y, w)
    store(iv + 8, j)
}
`

// TestPTXTupleReduce: reduce over [value, index] lists compiles through
// llc-19, each operand carried in its own registers: both are shuffled at
// every butterfly step (twice the shuffles of one operand, and two more
// for an f64, shuffled as two halves) and both go through shared memory
// across warps, the f64 in an 8-byte field next to the i32's.
func TestPTXTupleReduce(t *testing.T) {
	prog, err := tle.Parse("tuple.tle", []byte(tupleReducePTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "tuple_reduce_ptx", nil)
	// 5 lane bits along the axis: 2 shuffles (f32, i32) per step for the
	// row argmax, 3 (two halves of the f64, the i32) for the whole tile's
	if n := countPTX(b.PTX, `shfl\.sync\.bfly\.b32`); n < 5*2+5*3 {
		t.Errorf("PTX has %d butterfly shuffles, want at least %d", n, 5*2+5*3)
	}
	// the f64 field is stored as two words (align 4), read back as one
	wantPTX(t, b.PTX, 1, `setp\.gt\.f32`, `setp\.lt\.f64`, `setp\.lt\.s32`, `st\.shared\.f32`, `st\.shared\.u32`,
		`ld\.shared\.f32`, `ld\.shared\.u32`, `ld\.shared\.f64`)
}

const tupleScanPTXSrc = `
func lin(a0 f32, b0 f32, a1 f32, b1 f32) (f32, f32) {
    return a0 * a1, b0*a1 + b1
}

func runmax(v0 f64, i0 i32, v1 f64, i1 i32) (f64, i32) {
    if v1 > v0 {
        return v1, i1
    } else {
        return v0, i0
    }
}

kernel tuple_scan_ptx(a *f32, b *f32, y *f64, iv *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    off := r[:, None]*256 + c[None, :]
    ta := load(a + off)
    tb := load(b + off)
    _, h := associative_scan([ta, tb], 1, lin)
    store(b + off, h)
    _, hr := associative_scan([ta, tb], 1, lin, reverse: true)
    store(a + off, hr)
    u := load(y + off)
    m, i := associative_scan([u, off], 1, runmax)
    store(y + off, m)
    store(iv + off, i)
}
`

// TestPTXTupleScan: associative_scan over lists compiles through llc-19:
// the recurrence's body (mul, add) at every step, each operand shuffled up
// (down when reversed) across lanes and through shared memory across
// warps; an f64 with an i32.
func TestPTXTupleScan(t *testing.T) {
	prog, err := tle.Parse("tuple.tle", []byte(tupleScanPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "tuple_scan_ptx", nil)
	// 5 lane bits along the axis, 2 operands (3 words for f64 and i32)
	if n := countPTX(b.PTX, `shfl\.sync\.up\.b32`); n < 5*2+5*3 {
		t.Errorf("PTX has %d shfl.up, want at least %d", n, 5*2+5*3)
	}
	if n := countPTX(b.PTX, `shfl\.sync\.down\.b32`); n < 5*2 {
		t.Errorf("PTX has %d shfl.down, want at least %d", n, 5*2)
	}
	wantPTX(t, b.PTX, 1, `mul\.rn\.f32`, `add\.rn\.f32`, `setp\.gt\.f64`, `st\.shared\.f32`, `st\.shared\.u32`,
		`ld\.shared\.f32`, `ld\.shared\.f64`, `ld\.shared\.u32`)
}

const tuple3PTXSrc = `
func maxcount(v0 f16, i0 i32, n0 i64, v1 f16, i1 i32, n1 i64) (f16, i32, i64) {
    if v0 > v1 {
        return v0, i0, n0
    } else if v1 > v0 {
        return v1, i1, n1
    } else {
        return v0, minimum(i0, i1), n0 + n1
    }
}

kernel tuple3_ptx(x *f16, iv *i32, nv *i64) {
    r := arange(0, 8)
    c := arange(0, 256)
    t := load(x + r[:, None]*256 + c[None, :])
    v, i, n := reduce([t, broadcast_to(c[None, :], [8, 256]), full([8, 256], 1, i64)], 1, maxcount)
    store(x + r, v)
    store(iv + r, i)
    store(nv + r, n)
}
`

// TestPTXTuple3: three tiles of three dtypes (f16 carried as f32, i32,
// i64 shuffled as two words): four shuffles per butterfly step, the
// helper's body (an i64 add, an i32 minimum) at each.
func TestPTXTuple3(t *testing.T) {
	prog, err := tle.Parse("tuple3.tle", []byte(tuple3PTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "tuple3_ptx", nil)
	if n := countPTX(b.PTX, `shfl\.sync\.bfly\.b32`); n < 5*4 {
		t.Errorf("PTX has %d butterfly shuffles, want at least %d", n, 5*4)
	}
	wantPTX(t, b.PTX, 5, `add\.s64`, `min\.s32`, `cvt\.f32\.f16`)
}
