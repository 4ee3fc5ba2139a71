package tests

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/frontend/check"
	"github.com/tlego/tle/frontend/format"
	"github.com/tlego/tle/frontend/parser"
	"github.com/tlego/tle/frontend/parser/parsertest"
	"github.com/tlego/tle/tle"
)

// FuzzPipeline runs the whole tool chain on any byte string, as tlec does:
// parse; check; format (idempotent, and the formatted text checks to the
// same diagnostics); then, for a program that checks, each kernel with its
// compile-time parameters bound to a few plausible values (1, 16, 64; true
// and false for i1), the target-independent passes, the GPU passes and LLVM
// IR generation, and a short interpreter run over a tiny grid. Every stage
// gives a result or an error that is not internal: never a panic (the
// stages' recovers turn one into an "internal ... error"), and never a
// diagnostic outside the source. Seeded with every .tle of the repository:
//
//	go test -run XXX -fuzz FuzzPipeline -fuzztime 5m ./tests
func FuzzPipeline(f *testing.F) {
	parsertest.Fuzz(f, 8<<10, pipelineOne)
}

// pipelineOne is one FuzzPipeline input.
func pipelineOne(t *testing.T, src []byte) {
	{
		file, err := parser.Load("fuzz.tle", src, nil) // an import is an error, as in tle.Parse
		if err != nil {
			return
		}
		_, errs := check.Check(file, check.Config{})
		for _, d := range errs {
			noInternal(t, "check", d.Msg)
			if d.File == nil || d.Pos < 0 || int(d.Pos) > len(src) {
				t.Fatalf("diagnostic without a position in the source: %v", d)
			}
		}
		out, err := format.Source("fuzz.tle", src)
		if err != nil {
			t.Fatalf("format failed on a file that parses: %v", err)
		}
		again, err := format.Source("fuzz.tle", out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("format is not idempotent (%v)\n--- once\n%s\n--- twice\n%s", err, out, again)
		}
		if string(out) != string(src) {
			f2, err := parser.ParseFile("fuzz.tle", out)
			if err != nil {
				t.Fatalf("formatted text does not parse: %v\n%s", err, out)
			}
			_, errs2 := check.Check(f2, check.Config{})
			if m1, m2 := messages(errs), messages(errs2); !sameMessages(m1, m2) {
				t.Fatalf("formatting changed the diagnostics\n--- before\n%s\n--- after\n%s\n--- formatted\n%s", strings.Join(m1, "\n"), strings.Join(m2, "\n"), out)
			}
		}
		if errs.HasErrors() {
			return
		}
		pipeStats.checked.Add(1)
		prog, err := tle.Parse("fuzz.tle", src)
		if err != nil {
			t.Fatalf("check.Check passed but tle.Parse failed: %v", err)
		}
		for _, name := range prog.Kernels() {
			k, err := prog.Kernel(name)
			if err != nil {
				noInternal(t, "kernel", err.Error())
				continue
			}
			for _, v := range []string{"16", "1", "64"} {
				defines := bindEach(k, v)
				for _, wg := range []bool{false, true} {
					_, err := k.Build(tle.CompileOptions{Defines: defines, DotMMASync: !wg}, tle.GPUOptions{}, "ll")
					if err != nil {
						noInternal(t, name+" -D ="+v+" build", err.Error())
					} else {
						pipeStats.built.Add(1)
					}
				}
				if v == "16" {
					runTiny(t, k, defines)
				}
			}
		}
	}
}

// noInternal fails t when msg reports a bug (a recovered panic or an
// internal check) rather than a user error, or is empty.
func noInternal(t *testing.T, stage, msg string) {
	t.Helper()
	if msg == "" {
		t.Fatalf("%s: an empty error message", stage)
	}
	if strings.Contains(msg, "internal") && (strings.Contains(msg, "error") || strings.Contains(msg, "panic")) {
		t.Fatalf("%s: %s", stage, msg)
	}
}

// messages lists the diagnostics without their positions, which formatting
// moves.
func messages(errs diag.List) []string {
	var out []string
	for _, d := range errs {
		out = append(out, d.Msg)
	}
	return out
}

var lineRef = regexp.MustCompile(`\blines? [0-9]+`)

// sameMessages compares two lists of messages up to white space (a message
// quotes source text, which formatting respaces, and may name a line); a message that quotes a
// long expression cut short ("...") is compared up to the cut.
func sameMessages(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(lineRef.ReplaceAllString(s, "line N")), "") }
	for i := range a {
		x, y := squeeze(a[i]), squeeze(b[i])
		if x == y {
			continue
		}
		cx, _, okx := strings.Cut(x, "...")
		cy, _, oky := strings.Cut(y, "...")
		if !okx && !oky {
			return false
		}
		if n := min(len(cx), len(cy)); cx[:n] != cy[:n] {
			return false
		}
	}
	return true
}

// bindEach binds every compile-time parameter of k to v (true for i1).
func bindEach(k *tle.Kernel, v string) map[string]string {
	defines := map[string]string{}
	for _, p := range k.Params() {
		if p.Const {
			defines[p.Name] = v
			if p.Type == "i1" {
				defines[p.Name] = strconv.FormatBool(v != "1")
			}
		}
	}
	return defines
}

// pipeStats counts how far inputs got, for the mutation driver's log.
var pipeStats struct{ checked, built, ran atomic.Int64 }

var descRank = regexp.MustCompile(`^desc\[`)

// runTiny runs k on the interpreter over two CTAs, every pointer a
// 256-element buffer of zeros, every descriptor a small tensor, every
// scalar a small number; out-of-bounds accesses and the like are user
// errors, a timeout is not judged (a kernel may loop on its arguments).
func runTiny(t *testing.T, k *tle.Kernel, defines map[string]string) {
	t.Helper()
	args := map[string]any{}
	for _, p := range k.Params() {
		if p.Const {
			continue
		}
		switch {
		case strings.HasPrefix(p.Type, "*"):
			args[p.Name] = tle.NewTensor(256)
		case descRank.MatchString(p.Type):
			rank := strings.Count(p.Type, ",")
			shape := make([]int, rank)
			for i := range shape {
				shape[i] = 2
			}
			if rank > 0 {
				shape[rank-1] = 16
			}
			args[p.Name] = tle.NewTensor(shape...)
		case p.Type == "i1":
			args[p.Name] = true
		case strings.HasPrefix(p.Type, "f") || strings.HasPrefix(p.Type, "bf"):
			args[p.Name] = 0.5
		default:
			args[p.Name] = 3
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	err := k.RunContext(ctx, tle.CPU(), [3]int{2, 1, 1}, tle.CompileOptions{Defines: defines}, args)
	if err != nil && !errors.Is(err, context.DeadlineExceeded) {
		noInternal(t, k.Name()+" run", err.Error())
	}
	if err == nil {
		pipeStats.ran.Add(1)
	}
}
