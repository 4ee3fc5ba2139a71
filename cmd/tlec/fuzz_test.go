package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// The command line's parsers never panic, and what they accept is what
// they say. Seeds run in plain `go test`; the long runs are
//
//	go test -run XXX -fuzz FuzzScalarArg -fuzztime 5m ./cmd/tlec
//	go test -run XXX -fuzz FuzzDefines -fuzztime 5m ./cmd/tlec
//	go test -run XXX -fuzz FuzzZeros -fuzztime 5m ./cmd/tlec

// fuzzKernel has one parameter of each kind --arg binds.
var fuzzKernel = func() *tle.Kernel {
	prog, err := tle.Parse("fuzz.tle", []byte(`kernel k(x *f32, n i32, u u8, f f32, h f16, B const i32) {
    store(x + arange(0, B), zeros([B], f32))
}
`))
	if err != nil {
		panic(err)
	}
	k, err := prog.Kernel("k")
	if err != nil {
		panic(err)
	}
	return k
}()

func FuzzScalarArg(f *testing.F) {
	for _, s := range []string{"100", "-1", "0x10", "4294967396", "2147483648", "1e30", "1.5", "NaN", "-Inf",
		"18446744073709551615", "99999999999999999999999", "1e400", "0b101", "1_000", "", "=", "abc", "zeros:4", "n=1"} {
		f.Add("n", s)
		f.Add("f", s)
	}
	f.Add("x", "zeros:4x4")
	f.Add("B", "4")
	f.Add("nope", "1")
	f.Fuzz(func(t *testing.T, name, value string) {
		if spec, ok := strings.CutPrefix(value, "zeros:"); ok {
			if shape, err := parseZeros(spec); err == nil && numel(shape) > 1<<16 {
				return // a valid request for gigabytes: the fuzzer would only measure the allocator
			}
		}
		// Every other parameter gets a valid argument, so that buildArgs
		// and the API below judge the fuzzed one alone.
		raw := []string{name + "=" + value}
		for _, other := range []string{"x=zeros:4", "n=4", "u=1", "f=0.5", "h=1"} {
			if n, _, _ := strings.Cut(other, "="); n != name {
				raw = append(raw, other)
			}
		}
		args, _, err := buildArgs(fuzzKernel, nil, raw)
		if err != nil {
			return
		}
		if v, ok := args[name]; ok {
			switch v.(type) {
			case int64, uint64, float64, *tle.Tensor, *tle.Array[float32]: // x is an *f32
			default:
				t.Fatalf("--arg %s=%s gave a %T", name, value, v)
			}
		}
		// The API validates the rest; it must not panic either, and a value
		// it accepts for n must be an i32.
		err = fuzzKernel.Run(tle.CPU(), [3]int{1, 1, 1}, tle.CompileOptions{Defines: map[string]string{"B": "4"}}, args)
		if name == "n" && err == nil {
			if v, ok := args["n"].(int64); !ok || v != int64(int32(v)) {
				t.Fatalf("--arg n=%s accepted as %v (%T) for an i32", value, args["n"], args["n"])
			}
		}
	})
}

func numel(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

func FuzzDefines(f *testing.F) {
	f.Add("BLOCK=128", "BLOCK=256")
	f.Add("BLOCK=128", "N=4")
	f.Add("=1", "A=")
	f.Add("A = 1", "a.b=2")
	f.Add("X=true", "X=true")
	f.Fuzz(func(t *testing.T, a, b string) {
		m, err := defineMap([]string{a, b})
		if err != nil {
			return
		}
		if len(m) != 2 {
			t.Fatalf("-D %q -D %q: %d bindings, want 2 (a name bound twice is an error)", a, b, len(m))
		}
		for name, value := range m {
			if name == "" || value == "" || strings.TrimSpace(name) != name {
				t.Fatalf("-D %q -D %q: bad binding %q=%q", a, b, name, value)
			}
		}
	})
}

func FuzzZeros(f *testing.F) {
	for _, s := range []string{"4", "4x100", "0", "4x", "x4", "-1", "+4", "1099511627776x1099511627776", "65536x65536", "2x3x4x5x6", " 4", "0x10"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		shape, err := parseZeros(spec)
		if err != nil {
			return
		}
		n := 1
		var parts []string
		for _, d := range shape {
			if d < 1 {
				t.Fatalf("zeros:%s: dimension %d", spec, d)
			}
			n *= d
			if n > maxZerosElems {
				t.Fatalf("zeros:%s: %d elements, over the limit", spec, n)
			}
			parts = append(parts, strconv.Itoa(d))
		}
		again, err := parseZeros(strings.Join(parts, "x"))
		if err != nil || !slices.Equal(again, shape) {
			t.Fatalf("zeros:%s read as %v, which does not read back (%v, %v)", spec, shape, again, err)
		}
	})
}

// FuzzCommandLine gives tlec whole argument lists (split at newlines) in a
// directory holding a kernel, an .npy file and an op's input directory:
// whatever the arguments, tlec answers with an exit status and a message,
// never a panic (status 3) or a hang.
//
//	go test -run XXX -fuzz FuzzCommandLine -fuzztime 5m ./cmd/tlec
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"check\nk.tle", "check\n-D\nB=4\nk.tle\n--arch\nsm_80", "fmt\nk.tle", "fmt\n-w\nk.tle",
		"build\nk.tle\n--kernel\nk\n-D\nB=16\n--emit\ntir", "build\nk.tle\n--emit\nll\n-D\nB=16\n-o\nout.ll",
		"run\nk.tle\n--grid\n1\n-D\nB=16\n--arg\nx=zeros:16\n--arg\nn=4\n--save\nx=o.npy",
		"run\nk.tle\n--grid\n2,2\n--arg\nx=x.npy\n-D\nB=8\n--arg\nn=1\n--grid\n1",
		"op\nkda_fwd\n--in\nin\n--out\nout", "op\nlist", "help\nrun", "version", "bench\nlist", "bench\ntutorials\n--reps\n-1",
		"run\n--kernel", "build\n--emit\nptx\nk.tle\n--toolchain\nbogus", "check\n-D\n=\nk.tle", "\x00\n--\n-",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\n")
		if args[0] == "bench" && (len(args) < 2 || args[1] != "list") {
			return // a suite's dry run or every build's compile: minutes, not a parser's answer
		}
		for _, a := range args {
			if spec, ok := strings.CutPrefix(a, "x=zeros:"); ok {
				if shape, err := parseZeros(spec); err == nil && numel(shape) > 1<<16 {
					return
				}
			}
		}
		if len(args) > 0 && args[0] == "run" {
			args = append(args, "--timeout", "2s", "--device", "cpu")
		}
		t.Chdir(fuzzDir(t))
		var out, errs strings.Builder
		code := runGuarded(&env{stdin: strings.NewReader("kernel k(x *f32) {}\n"), stdout: &out, stderr: &errs}, args)
		if code == exitInternal {
			t.Fatalf("tlec %q: internal error:\n%s", args, errs.String())
		}
		if code != 0 && errs.Len() == 0 {
			t.Fatalf("tlec %q: exit %d with no message", args, code)
		}
	})
}

// fuzzDir is a fresh directory with k.tle, x.npy and in/ (a small op
// input directory).
func fuzzDir(t *testing.T) string {
	dir := t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(dir, "k.tle"), []byte("kernel k(x *f32, n i32, B const i32) {\n    o := arange(0, B)\n    store(x + o, zeros([B], f32), mask: o < n)\n}\n"), 0o644))
	must(npy.WriteFile(filepath.Join(dir, "x.npy"), npy.Float32([]int{16}, make([]float32, 16))))
	must(os.Mkdir(filepath.Join(dir, "in"), 0o755))
	must(npy.WriteFile(filepath.Join(dir, "in", "q.npy"), npy.Float32([]int{1, 2, 1, 16}, make([]float32, 32))))
	must(os.WriteFile(filepath.Join(dir, "in", "params.json"), []byte(`{"lower_bound": -5}`), 0o644))
	return dir
}
