package nvptx_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/tle"
)

const limitVectorAdd = `kernel k(x *f32, y *f32, out *f32, n i32, BLOCK const i32) {
    offs := program_id(0)*BLOCK + arange(0, BLOCK)
    m := offs < n
    a := load(x + offs, mask: m, other: 0)
    b := load(y + offs, mask: m, other: 0)
    store(out + offs, a + b, mask: m)
}
`

const limitRole = `kernel k(x *f32, out *f32, ROW const i32) {
    cols := arange(0, ROW)
    warp_specialize {
        role copy(warps: 1) {
            store(out + cols, load(x + cols))
        }
    }
}
`

// buildLL builds kernel k of src to LLVM IR (no llc): the per-thread limit
// is reported before any LLVM IR is made.
func buildLL(t *testing.T, src string, defines map[string]string, numWarps int) error {
	t.Helper()
	prog, err := tle.Parse("k.tle", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("k")
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Build(tle.CompileOptions{Defines: defines, NumWarps: numWarps}, tle.GPUOptions{}, "ll")
	return err
}

// TestTileRegsLimit: a tile whose per-thread share is over MaxTileRegs is a
// user error at the .tle expression that makes it, saying what to change;
// at the limit the kernel builds.
func TestTileRegsLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src      string
		defines  map[string]string
		warps    int
		want     string // "" builds
		line     int
		col      int
		mentions []string
	}{
		// 131072 elements on 4 warps: 1024 per thread, 2048 registers for
		// the pointer tiles (the worst tile of the kernel).
		{name: "4warps", src: limitVectorAdd, defines: map[string]string{"BLOCK": "131072"}, warps: 4,
			want: "tile [131072]*f32 needs 2048 32-bit registers per thread (1024 elements per thread on 4 warps), more than the limit of 1024: use at least 8 warps (--num-warps 8), or make the tile smaller (a smaller BLOCK)",
			line: 4, col: 17},
		{name: "8warps", src: limitVectorAdd, defines: map[string]string{"BLOCK": "131072"}, warps: 8},
		{name: "at-limit", src: limitVectorAdd, defines: map[string]string{"BLOCK": "65536"}, warps: 4},
		// 2^20 elements (the checker's limit) do not fit whatever the warps.
		{name: "2^20", src: limitVectorAdd, defines: map[string]string{"BLOCK": "1048576"}, warps: 32,
			want: "tile [1048576]*f32 needs 2048 32-bit registers per thread (1024 elements per thread on 32 warps), more than the limit of 1024: make the tile smaller (a smaller BLOCK): even on 32 warps it needs 2048 registers per thread",
			line: 4, col: 17},
		// Inside a role the share is over the role's warps.
		{name: "role", src: limitRole, defines: map[string]string{"ROW": "32768"},
			want: "(1024 elements per thread on 1 warp), more than the limit of 1024: give role copy at least 2 warps (warps: 2)",
			line: 5, col: 23},
		{name: "role-at-limit", src: limitRole, defines: map[string]string{"ROW": "16384"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := buildLL(t, tc.src, tc.defines, tc.warps)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("want a build, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want an error containing %q, got a build", tc.want)
			}
			var d *diag.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("want a diagnostic at a .tle position, got %T: %v", err, err)
			}
			if !strings.Contains(d.Msg, tc.want) || strings.Contains(d.Msg, "internal") {
				t.Errorf("message %q, want it to contain %q", d.Msg, tc.want)
			}
			if p := d.Position(); p.Line != tc.line || p.Col != tc.col {
				t.Errorf("at %d:%d, want %d:%d (%s)", p.Line, p.Col, tc.line, tc.col, d.Msg)
			}
		})
	}
}
