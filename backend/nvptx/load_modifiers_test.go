package nvptx_test

import (
	"strings"
	"testing"

	"github.com/tlego/tle/tle"
)

const loadModifiersPTXSrc = `
kernel load_mod_ptx(x *f32, y *f32, z *f32, n i32) {
    offs := program_id(0) * 512 + arange(0, 512)
    m := offs < n
    a := load(x + offs, cache_modifier: ".cg")
    b := load(x + offs, mask: m, eviction_policy: "evict_last")
    c := load(y, volatile: true)
    d := load(y + 1, cache_modifier: ".cv")
    e := load(z + offs, mask: m, cache_modifier: ".ca", other: 1.0)
    f := load(z + offs, eviction_policy: "evict_first")
    store(y + offs, a + b + c + d, cache_modifier: ".cs", mask: m)
    store(z + offs, e, eviction_policy: "evict_first")
    store(x + offs, f, cache_modifier: ".wt")
    store(x + offs + n, a, cache_modifier: ".wb", mask: m)
    store(x + offs + 2 * n, b, cache_modifier: ".cg")
    store(x + offs + 3 * n, b, eviction_policy: "evict_last")
}

kernel plain_ptx(x *f32, y *f32, n i32) {
    offs := program_id(0) * 512 + arange(0, 512)
    store(y + offs, load(x + offs, cache_modifier: "", eviction_policy: ""), eviction_policy: "")
}
`

// TestPTXLoadModifiers: load's and store's cache_modifier: and
// eviction_policy: and load's volatile: become the qualifiers Triton's
// lowering writes (ld.global.cg, ld.global.L1::evict_last,
// ld.volatile.global, st.global.cs, ...), masked or not; "" writes none
// (plain LLVM loads and stores, as before).
func TestPTXLoadModifiers(t *testing.T) {
	prog, err := tle.Parse("load_mod.tle", []byte(loadModifiersPTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "load_mod_ptx", nil).PTX
	wantPTX(t, ptx, 1,
		`ld\.global\.cg(\.v\d)?\.f32 `,
		`@%p ld\.global\.L1::evict_last(\.v\d)?\.f32 `,
		`ld\.volatile\.global\.f32 `,
		`ld\.global\.cv\.f32 `,
		`@%p ld\.global\.ca(\.v\d)?\.f32 `,
		`ld\.global\.L1::evict_first(\.v\d)?\.f32 `,
		`@%p st\.global\.cs(\.v\d)?\.f32 `,
		`st\.global\.L1::evict_first(\.v\d)?\.f32 `,
		`st\.global\.wt(\.v\d)?\.f32 `,
		`st\.global\.wb(\.v\d)?\.f32 `,
		`st\.global\.cg(\.v\d)?\.f32 `,
		`st\.global\.L1::evict_last(\.v\d)?\.f32 `,
	)
	plain := compileTLE(t, prog, "plain_ptx", nil)
	if strings.Contains(plain.LLVMIR, "asm") {
		t.Errorf("plain_ptx: \"\" modifiers gave inline asm:\n%s", plain.LLVMIR)
	}
	wantPTX(t, plain.PTX, 1, `ld\.global\.v4\.f32 `, `st\.global\.v4\.f32 `)
}
