package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

const descLSPTXSrc = `
kernel dl_loop(x desc[bf16, 64, 64], out *f32, n_k i32) {
    acc := zeros([64, 64], f32)
    for k := range n_k {
        acc += x.load([program_id(0) * 64, k * 64]).to(f32)
        if k % 2 == 1 {
            acc += x.load([0, k * 64]).to(f32)
        }
    }
    r := arange(0, 64)
    store(out + r[:, None]*64 + r[None, :], acc)
}

kernel dl_copy(x *f32, y *f32, M i32, N i32, ld i32) {
    xd := make_desc(x, shape: [M, N], strides: [ld, 1], block: [32, 32])
    yd := make_desc(y, shape: [M, N], strides: [ld, 1], block: [32, 32])
    for j := range cdiv(N, 32) {
        yd.store([program_id(0) * 32, j * 32], 2.0 * xd.load([program_id(0) * 32, j * 32]))
    }
}
`

// TestPTXDescLoadStore: desc.load is a TMA load (cp.async.bulk.tensor into
// shared memory completing on an mbarrier, expect_tx, a try_wait loop on the
// phase read by test_wait), its mbarrier initialised once per site where
// the kernel starts, not per trip; desc.store is a TMA store from shared
// memory after a proxy fence, committed and waited for.
func TestPTXDescLoadStore(t *testing.T) {
	prog, err := tle.Parse("dl.tle", []byte(descLSPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	l := compileTLE(t, prog, "dl_loop", nil)
	wantPTX(t, l.PTX, 2,
		`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes`,
		`mbarrier\.arrive\.expect_tx\.shared::cta\.b64`,
		`mbarrier\.try_wait\.parity\.shared::cta\.b64`,
		`mbarrier\.test_wait\.parity\.shared::cta\.b64 %p\d*, \[%r\d+\], 1;`)
	if n := countPTX(l.PTX, `mbarrier\.init\.shared::cta\.b64`); n != 2 {
		t.Errorf("dl_loop: %d mbarrier.init, want 2 (one per desc.load site)", n)
	}
	checkSyncStructure(t, l.PTX)
	c := compileTLE(t, prog, "dl_copy", nil)
	wantPTX(t, c.PTX, 1,
		`cp\.async\.bulk\.tensor\.2d\.shared::cluster\.global\.mbarrier::complete_tx::bytes`,
		`fence\.proxy\.async\.shared::cta;`,
		`cp\.async\.bulk\.tensor\.2d\.global\.shared::cta\.bulk_group`,
		`cp\.async\.bulk\.commit_group;`,
		`cp\.async\.bulk\.wait_group\.read 0;`,
		`tensormap\.replace`)
	checkSyncStructure(t, c.PTX)
}

// TestDescLoadStoreArch: before Hopper, desc.load and desc.store are errors
// at the call that name it (not only the TMA op it lowers to).
func TestDescLoadStoreArch(t *testing.T) {
	prog, err := tle.Parse("dl.tle", []byte(descLSPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ kernel, want string }{
		{"dl_loop", "dl.tle:5:16: error: barrier_expect: desc.load needs sm_90 or newer (mbarrier.expect_tx); the target is sm_80"},
		{"dl_copy", "dl.tle:15:11: error: make_desc: needs sm_90 or newer"},
	} {
		k, err := prog.Kernel(c.kernel)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_80"}, "ll")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on sm_80: error %v, want %q", c.kernel, err, c.want)
		}
	}
	st, err := tle.Parse("st.tle", []byte("kernel k(c desc[f32, 32, 64]) {\n    c.store([0, 0], zeros([32, 64], f32))\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	k, err := st.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_80"}, "ll")
	if want := "st.tle:2:5: error: copy: desc.store needs sm_90 or newer (cp.async.bulk.tensor, a TMA copy)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("desc.store on sm_80: error %v, want %q", err, want)
	}
}
