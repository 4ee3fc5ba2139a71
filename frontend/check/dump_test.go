package check

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/tlego/tle/frontend/ast"
)

// TestDump prints the types of every := variable in $TLE_DUMP (debug aid).
func TestDump(t *testing.T) {
	path := os.Getenv("TLE_DUMP")
	if path == "" {
		t.Skip("set TLE_DUMP=file.tle")
	}
	src, _ := os.ReadFile(path)
	f := parse(t, path, src)
	info, errs := Check(f, fileConfig(t, src))
	fmt.Print(format(errs))
	var lines []string
	add := func(tab *Tables, prefix string) {
		for id, o := range tab.Defs {
			lines = append(lines, fmt.Sprintf("%s%s %s: %s", prefix, f.File.Position(id.Pos()), id.Name, o.Type))
		}
		for e, tv := range tab.Types {
			if _, ok := e.(*ast.CallExpr); ok && tv.Value != nil {
				lines = append(lines, fmt.Sprintf("%s%s call = %v", prefix, f.File.Position(e.Pos()), tv.Value))
			}
		}
	}
	add(info.Tables, "")
	for fd, insts := range info.Instances {
		for i, in := range insts {
			add(in.Tables, fmt.Sprintf("[%s#%d %v -> %v] ", fd.Name.Name, i, in.Params, in.Results))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
	for _, k := range info.Kernels {
		fmt.Printf("kernel %s smem known=%v total=%d\n", k.Name, k.Smem.Known, k.Smem.Total)
		for _, b := range k.Smem.Buffers {
			fmt.Println("   ", b.note(&checker{df: f.File}))
		}
	}
}
