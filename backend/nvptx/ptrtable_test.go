package nvptx_test

import (
	"regexp"
	"testing"

	"github.com/tlego/tle/tle"
)

const ptrTablePTXSrc = `
kernel tab(t *i64, addrs *u64, B const i32) {
    g := program_id(0)
    p := load(t + g).to(*f16)
    offs := arange(0, B)
    store(p + offs, load(p + offs) * 2.0)
    store(addrs + g, p.to(u64))
}
`

// TestPTXPointerTable: a table entry becomes a global pointer by LLVM's
// inttoptr to addrspace(1) (PTX then addresses it with ld/st.global), and
// a pointer an integer by ptrtoint.
func TestPTXPointerTable(t *testing.T) {
	prog, err := tle.Parse("ptrtable.tle", []byte(ptrTablePTXSrc))
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "tab", map[string]string{"B": "256"})
	for _, re := range []string{`inttoptr i64 %\S+ to i16 addrspace\(1\)\*`, `ptrtoint i16 addrspace\(1\)\* %\S+ to i64`} {
		if !regexp.MustCompile(re).MatchString(b.LLVMIR) {
			t.Errorf("no %q in the LLVM IR:\n%s", re, b.LLVMIR)
		}
	}
	wantPTX(t, b.PTX, 1, `ld\.global\S* \S+, \[`, `st\.global\S*\.b16 `, `st\.global\S*\.(u|b)64 `)
	if regexp.MustCompile(`\bld\.(u|b)16|\bst\.(u|b)16`).MatchString(b.PTX) {
		t.Errorf("a generic-space access through the table's pointer:\n%s", b.PTX)
	}
}
