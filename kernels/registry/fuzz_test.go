package registry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// The long runs:
//
//	go test -run XXX -fuzz FuzzParseParams -fuzztime 5m ./kernels/registry
//	go test -run XXX -fuzz FuzzReadDir -fuzztime 5m ./kernels/registry

// ParseParams never panics; what it accepts is one object without
// repeated keys, which encoding/json reads the same.
func FuzzParseParams(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": 1}`, `{"a": 1, "a": 2}`, "\ufeff{\"a\": true}", `{"a": {"b": 1, "b": 2}}`,
		`{"a": [1, {"x": null}]}`, `[]`, `1`, `{"a": 1} {}`, `{"a"`, `{"a": 1e999}`, `{"a": "\u00e9"}`, ``, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParseParams(raw)
		if err != nil {
			return
		}
		var want map[string]any
		trimmed := []byte(strings.TrimPrefix(string(raw), "\ufeff"))
		if err := json.Unmarshal(trimmed, &want); err != nil {
			t.Fatalf("ParseParams accepted %q, encoding/json did not: %v", raw, err)
		}
		if want == nil {
			want = map[string]any{}
		}
		if !reflect.DeepEqual(p, want) {
			t.Fatalf("ParseParams(%q) = %v, encoding/json %v", raw, p, want)
		}
	})
}

// fuzzOp reads one required and one optional input and writes one output.
type fuzzOp struct{}

func (fuzzOp) Name() string   { return "fuzz_op" }
func (fuzzOp) Doc() string    { return "" }
func (fuzzOp) Inputs() []Arg  { return []Arg{{Name: "q"}, {Name: "h0", Optional: true}} }
func (fuzzOp) Params() []Arg  { return []Arg{{Name: "scale", Optional: true}} }
func (fuzzOp) Outputs() []Arg { return []Arg{{Name: "o"}} }
func (fuzzOp) Run(tle.Device, map[string]*npy.Array, map[string]any) (map[string]*npy.Array, error) {
	return nil, nil
}

// ReadDir never panics and never hangs on any directory: file names and
// contents (npy or not), links, dangling or to directories, are each
// read, refused with a message naming the file, or skipped as the
// optional input they are.
func FuzzReadDir(f *testing.F) {
	var good strings.Builder
	npy.Write(&good, npy.Float32([]int{2}, []float32{1, 2}))
	f.Add("q.npy", good.String(), "params.json", `{"scale": 1}`, uint8(0))
	f.Add("q.npy", good.String(), "h0.npy", "nope", uint8(1))
	f.Add("q.npy", "\x93NUMPY\x01\x00\x10\x00{'descr': '<f4'", "cu.npy", "", uint8(2))
	f.Add("x.npy", "", "params.json", `{"a":1,"a":2}`, uint8(3))
	f.Fuzz(func(t *testing.T, name1, data1, name2, data2 string, links uint8) {
		dir := t.TempDir()
		for _, nd := range [][2]string{{name1, data1}, {name2, data2}} {
			name := filepath.Base(nd[0])
			if name == "." || name == "/" || name == ".." || strings.ContainsRune(name, 0) || len(name) > 64 {
				continue
			}
			os.WriteFile(filepath.Join(dir, name), []byte(nd[1]), 0o644)
		}
		if links&1 != 0 {
			os.Symlink("missing.npy", filepath.Join(dir, "h0.npy"))
		}
		if links&2 != 0 {
			os.Symlink(".", filepath.Join(dir, "q.npy"))
		}
		if links&4 != 0 {
			os.Mkdir(filepath.Join(dir, "params.json"), 0o755)
		}
		in, params, err := ReadDir(fuzzOp{}, dir)
		if err != nil {
			if msg := err.Error(); !strings.Contains(msg, dir) && !strings.Contains(msg, "input ") {
				t.Fatalf("error %q names no file", msg)
			}
			return
		}
		if in["q"] == nil || params == nil {
			t.Fatalf("ReadDir succeeded without q or params: %v %v", in, params)
		}
	})
}
