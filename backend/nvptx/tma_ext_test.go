package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle"
)

// emitTLEErr lowers the kernel k of a .tle source to LLVM IR.
func emitTLEErr(t *testing.T, src string) (*nvptx.Result, error) {
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
	return nvptx.EmitLLVM(m, nvptx.Options{NumWarps: 4})
}

func emitTLE(t *testing.T, src string) *nvptx.Result {
	t.Helper()
	res, err := emitTLEErr(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
	if d := res.Kernels[0].Descs[0]; d.Param != 0 || d.DType != "f32" || !equalInts(d.Box, []int{16, 32}) || d.Swizzle != 0 {
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

func TestMakeDescUnsupported(t *testing.T) {
	src := `kernel k(x *f32, n i32) {
    buf := alloc([16, 16], f32)
    b := barrier(count: 1)
    d := make_desc(x, shape: [n, 16], strides: [16, 1], block: [16, 16])
    expect(b, 16 * 16 * 4)
    copy(d, buf, 0, 0, barrier: b)
    wait(b, 0)
}
`
	_, err := emitTLEErr(t, src)
	if err == nil || !strings.Contains(err.Error(), "make_desc is not supported on the GPU yet") || !strings.Contains(err.Error(), "k.tle:4:10") {
		t.Fatalf("error %v, want make_desc is not supported at k.tle:4:10", err)
	}
}
