package nvptx_test

import (
	"testing"

	"github.com/tlego/tle/tle"
)

const reduceCombinePTXSrc = `
func bor(a i32, b i32) i32 {
    return a | b
}

func mul(a f32, b f32) f32 {
    return a * b
}

kernel reduce_combine_ptx(x *f32, y *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    t := load(x + r[:, None]*256 + c[None, :])
    store(x + r, reduce(t, 1, mul))
    u := load(y + r[:, None]*256 + c[None, :])
    store(y + c, reduce(u, 0, bor))
    store(y + 256, reduce(u, combine: bor))
}
`

// TestPTXReduceCombine: reduce with helper combines compiles through
// llc-19: the helper's body (or.b32, mul.rn.f32) at every step of the
// butterfly shuffles across lanes and of the shared-memory step across
// warps.
func TestPTXReduceCombine(t *testing.T) {
	prog, err := tle.Parse("combine.tle", []byte(reduceCombinePTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "reduce_combine_ptx", nil)
	wantPTX(t, b.PTX, 1, `or\.b32`, `mul\.rn\.f32`, `shfl\.sync\.bfly\.b32`, `st\.shared`, `ld\.shared`)
}

const scanCombinePTXSrc = `
func mx(a i32, b i32) i32 {
    return maximum(a, b)
}

func first(a f32, b f32) f32 {
    return a
}

kernel scan_combine_ptx(x *f32, y *i32) {
    r := arange(0, 8)
    c := arange(0, 256)
    t := load(x + r[:, None]*256 + c[None, :])
    store(x + r[:, None]*256 + c[None, :], associative_scan(t, 1, first))
    u := load(y + r[:, None]*256 + c[None, :])
    store(y + r[:, None]*256 + c[None, :], associative_scan(u, 1, mx, reverse: true))
}
`

// TestPTXScanCombine: associative_scan with helper combines compiles
// through llc-19: the helper's body (max.s32) at every step, lanes by
// shfl.up (shfl.down reversed), warps through shared memory.
func TestPTXScanCombine(t *testing.T) {
	prog, err := tle.Parse("scan.tle", []byte(scanCombinePTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "scan_combine_ptx", nil)
	wantPTX(t, b.PTX, 1, `max\.s32`, `shfl\.sync\.up\.b32`, `shfl\.sync\.down\.b32`, `st\.shared`, `ld\.shared`)
}

const reduceCombineIfSrc = `
func mn(a f64, b f64) f64 {
    if a < b {
        return a
    } else {
        return b
    }
}

kernel reduce_combine_if(y *f64) {
    r := arange(0, 8)
    c := arange(0, 256)
    u := load(y + r[:, None]*256 + c[None, :])
    store(y, reduce(u, combine: mn))
}
`

// TestPTXReduceCombineIf: a combine helper with an if, emitted at the
// reduction's dozens of steps, compiles: the shared-memory state of the
// two arms of each if is merged without repeating it (it doubled at every
// if, running out of memory after some 30).
func TestPTXReduceCombineIf(t *testing.T) {
	prog, err := tle.Parse("combine_if.tle", []byte(reduceCombineIfSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "reduce_combine_if", nil)
	wantPTX(t, b.PTX, 1, `setp\.lt\.f64`, `shfl\.sync\.bfly\.b32`, `st\.shared\.u32`, `ld\.shared\.f64`)
}
