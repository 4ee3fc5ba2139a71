package nvptx_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// emitTLEErr lowers the kernel k of a .tle source to LLVM IR.
func emitTLEErr(t *testing.T, src string) (*nvptx.Result, error) {
	t.Helper()
	return nvptx.EmitLLVM(lowerTLE(t, src), nvptx.Options{NumWarps: 4})
}

// lowerTLE compiles the kernel k of a .tle source to the tile IR the
// backend takes (layouts and shared memory assigned).
func lowerTLE(t *testing.T, src string) *ir.Module {
	t.Helper()
	prog, err := tle.Parse("k.tle", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	m, err := k.IR(tle.CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := nvptx.Prepare(m, 4); err != nil {
		t.Fatal(err)
	}
	return m
}

func emitTLE(t *testing.T, src string) *nvptx.Result {
	t.Helper()
	res, err := emitTLEErr(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestTMANVVMDialect: the map parameter keeps byval align 64 (without the
// type argument libNVVM's LLVM 7 parser rejects) and its annotation.
func TestTMANVVMDialect(t *testing.T) {
	src := `kernel k(x desc[f32, 16, 32], out *f32) {
    buf := alloc([16, 32], f32)
    b := barrier(count: 1)
    expect(b, 16 * 32 * 4)
    copy(x, buf, program_id(0) * 16, 0, barrier: b)
    wait(b, 0)
    copy(buf, x, program_id(0) * 16, 32)
}
`
	res := emitTLE(t, src)
	if len(res.Kernels) != 1 || len(res.Kernels[0].Descs) != 1 {
		t.Fatalf("kernels %+v", res.Kernels)
	}
	if d := res.Kernels[0].Descs[0]; d.Param != 0 || d.DType != "f32" || !slices.Equal(d.Box, []int{16, 32}) || d.Swizzle != 0 {
		t.Errorf("desc metadata %+v", d)
	}
	if res.Kernels[0].ParamBytes[0] != 128 {
		t.Errorf("param bytes %v", res.Kernels[0].ParamBytes)
	}
	n := nvptx.ToNVVMDialect(res.LLVMIR)
	for _, want := range []string{"[128 x i8]* byval align 64 %x", `!"grid_constant"`, "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes", "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"} {
		if !strings.Contains(n, want) {
			t.Errorf("NVVM dialect IR lacks %q", want)
		}
	}
}

// TestMakeDesc: a make_desc writes its map into the program's slot of the
// hidden scratch parameter: assembled in shared memory by tensormap.replace
// (fields innermost first, the outer stride in bytes), copied out with
// tensormap.cp_fenceproxy and acquired before the copy uses it.
func TestMakeDesc(t *testing.T) {
	src := `kernel k(x *bf16, n i32, ld i32) {
    buf := alloc([64, 64], bf16)
    b := barrier(count: 1)
    d := make_desc(x, shape: [n, 64], strides: [ld, 1], block: [64, 64])
    expect(b, 64 * 64 * 2)
    copy(d, buf, 0, 0, barrier: b)
    wait(b, 0)
    e := make_desc(x, shape: [n, 64], strides: [ld, 1], block: [64, 64])
    copy(buf, e, 64, 0)
}
`
	res := emitTLE(t, src)
	k := res.Kernels[0]
	if k.ScratchBytes != 256 || len(k.Params) != 3 || len(k.Descs) != 0 {
		t.Fatalf("scratch %d bytes, params %v, descs %v; want 256 bytes (two maps) and 3 parameters", k.ScratchBytes, k.Params, k.Descs)
	}
	ll := res.LLVMIR
	for _, want := range []string{
		"i8 addrspace(1)* %tle_scratch)",
		"tensormap.replace.tile.global_address.shared::cta.b1024.b64 [$1], $3;",
		"tensormap.replace.tile.rank.shared::cta.b1024.b32 [$1], 1;",
		"tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [$1], 0, 64;",
		"tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$1], 0, $4;",
		"tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [$1], 1, $5;",
		"tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [$1], 0, $6;",
		"tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [$1], 10;",
		"tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [$1], 0;",
		"tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$2], [$1], 128;",
		"fence.proxy.tensormap::generic.acquire.gpu [$0], 128;",
		"cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes",
		"cp.async.bulk.tensor.2d.global.shared::cta.bulk_group",
	} {
		if !strings.Contains(ll, want) {
			t.Errorf("LLVM IR lacks %q", want)
		}
	}
	// the outer stride in bytes (ld elements of 2 bytes) is the last operand
	m := regexp.MustCompile(`r,r,l,l,r,r,l,~\{memory\}"\(.*, i64 %(v\d+)\)`).FindStringSubmatch(ll)
	if m == nil || !regexp.MustCompile(`(?m)^\t%`+m[1]+` = mul i64 %v\d+, 2$`).MatchString(ll) {
		t.Errorf("the stride operand is not ld * 2 bytes")
	}
}

func TestMakeDescRefused(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`kernel k(x *f32, n i32, s i32) {
    buf := alloc([16, 16], f32)
    b := barrier(count: 1)
    d := make_desc(x, shape: [n, 16], strides: [16, s], block: [16, 16])
    expect(b, 16 * 16 * 4)
    copy(d, buf, 0, 0, barrier: b)
    wait(b, 0)
}
`, "k.tle:4:10: make_desc on the GPU needs the innermost stride to be the constant 1"},
		{`kernel k(x *f32, n i32) {
    buf := alloc([16, 16], f32)
    b := barrier(count: 1)
    warp_specialize {
    role load(warps: 1) {
        d := make_desc(x, shape: [n, 16], strides: [16, 1], block: [16, 16])
        expect(b, 16 * 16 * 4)
        copy(d, buf, 0, 0, barrier: b)
        wait(b, 0)
    }
    }
}
`, "make_desc inside a warp role is not supported on the GPU"},
		{`kernel k(x *f32, n i32) {
    d := make_desc(x, shape: [n, 2], strides: [16, 1], block: [16, 2])
}
`, "k.tle:2:10: make_desc: the block's rows are 8 bytes; TMA needs a multiple of 16"},
	} {
		_, err := emitTLEErr(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
