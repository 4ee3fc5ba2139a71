package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/runtime/npy"
)

// MaxParamsBytes bounds an op's params.json.
const MaxParamsBytes = 1 << 20

// ReadDir reads an op's input directory: NAME.npy for each input and
// params.json (absent: no parameters). Everything in dir is checked
// before anything is returned, so that the op never runs as a different
// problem: a .npy or .json file the op does not read is an error naming
// it (with the closest name the op knows), a symbolic link whose target
// is missing is an error even for an optional input, and params.json
// must be one JSON object without duplicate keys (a UTF-8 byte-order mark
// before it is accepted). The outputs' names are allowed, so that a
// directory may be both --in and --out. Every error names the file.
func ReadDir(op Op, dir string) (in map[string]*npy.Array, params map[string]any, err error) {
	if err := checkNames(op, dir); err != nil {
		return nil, nil, err
	}
	in = map[string]*npy.Array{}
	for _, a := range op.Inputs() {
		path := filepath.Join(dir, a.Name+".npy")
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			if a.Optional {
				continue
			}
			return nil, nil, fmt.Errorf("input %s: missing %s (%s)", a.Name, path, a.Doc)
		}
		if link, err := os.Readlink(path); err == nil {
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				return nil, nil, fmt.Errorf("input %s: %s is a symbolic link to %s, which does not exist", a.Name, path, link)
			}
		}
		arr, err := npy.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", a.Name, err)
		}
		in[a.Name] = arr
	}
	params, err = readParams(filepath.Join(dir, "params.json"))
	return in, params, err
}

// checkNames refuses a .npy or .json file in dir that op does not read.
func checkNames(op Op, dir string) error {
	known := map[string]bool{"params.json": true}
	var names []string
	for _, list := range [][]Arg{op.Inputs(), op.Outputs()} {
		for _, a := range list {
			known[a.Name+".npy"] = true
			names = append(names, a.Name+".npy")
		}
	}
	names = append(names, "params.json")
	es, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range es {
		n := e.Name()
		ext := filepath.Ext(n)
		if known[n] || (ext != ".npy" && ext != ".json") {
			continue
		}
		msg := fmt.Sprintf("%s: %s reads no file %s (it reads %s)", filepath.Join(dir, n), op.Name(), n, strings.Join(names, ", "))
		if s := closest(n, names); s != "" {
			msg += fmt.Sprintf("; did you mean %s?", s)
		}
		return errors.New(msg)
	}
	return nil
}

// closest is the name of names nearest to n by edit distance, when it is
// near enough to be a misspelling.
func closest(n string, names []string) string {
	best, bestD := "", 4
	for _, c := range names {
		if d := editDistance(n, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// readParams reads params.json (no file: no parameters).
func readParams(path string) (map[string]any, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	raw, err := fileio.ReadFile(path, MaxParamsBytes)
	if err != nil {
		return nil, err
	}
	p, err := ParseParams(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// ParseParams parses an op's parameters: one JSON object (a UTF-8
// byte-order mark before it is skipped), whose keys, at every level, are
// not repeated; numbers are float64 as encoding/json gives them.
func ParseParams(raw []byte) (map[string]any, error) {
	raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("want a JSON object: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, got %v", describe(tok))
	}
	v, err := objectRest(dec, "", 1)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON object")
	}
	return v, nil
}

// objectRest decodes an object after its '{', refusing repeated keys; at
// names where it is (for messages).
func objectRest(dec *json.Decoder, at string, depth int) (map[string]any, error) {
	out := map[string]any{}
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("want a JSON object: %v", err)
		}
		if d, ok := tok.(json.Delim); ok && d == '}' {
			return out, nil
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("want a key, got %v", describe(tok))
		}
		if _, dup := out[key]; dup {
			return nil, fmt.Errorf("the key %q is given twice", at+key)
		}
		if out[key], err = value(dec, at+key+".", depth); err != nil {
			return nil, err
		}
	}
}

// maxParamsDepth bounds the nesting of params.json (an op's parameters
// are flat; this keeps a file of nested brackets from taking memory).
const maxParamsDepth = 32

// value decodes one JSON value.
func value(dec *json.Decoder, at string, depth int) (any, error) {
	if depth > maxParamsDepth {
		return nil, fmt.Errorf("nested deeper than %d levels at %q", maxParamsDepth, strings.TrimSuffix(at, "."))
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("want a JSON object: %v", err)
	}
	switch d := tok.(type) {
	case json.Delim:
		if d == '{' {
			return objectRest(dec, at, depth+1)
		}
		if d == '[' {
			list := []any{}
			for dec.More() {
				v, err := value(dec, at, depth+1)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token() // ']'
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", d)
	}
	return tok, nil
}

func describe(tok any) string {
	if tok == nil {
		return "null"
	}
	return fmt.Sprintf("%T %v", tok, tok)
}

// CheckOutDir checks, before an op runs, that its outputs can be written
// into dir: dir is a directory, or does not exist and its nearest
// existing parent is a directory this process may write in.
func CheckOutDir(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("%s: too many levels of symbolic links", dir)
	case err == nil && !st.IsDir():
		return fmt.Errorf("%s exists and is not a directory", dir)
	case err == nil:
		return writable(dir)
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return err
	}
	if _, err := os.Lstat(dir); err == nil {
		return fmt.Errorf("%s is a symbolic link whose target does not exist", dir)
	}
	for p := filepath.Dir(filepath.Clean(dir)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return fmt.Errorf("%s: %s is not a directory", dir, p)
			}
			return writable(p)
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if p == filepath.Dir(p) {
			return fmt.Errorf("%s: no existing parent directory", dir)
		}
	}
}

func writable(dir string) error {
	if err := syscall.Access(dir, 2 /* W_OK */); err != nil {
		return fmt.Errorf("%s: cannot write in it: %w", dir, err)
	}
	return nil
}

// WriteOutputs writes every output into dir: each into a temporary file
// beside its target (a symbolic link is written through), renamed into
// place only once all are written, so that dir never holds a mix of two
// runs' outputs; an interrupted write removes its temporaries
// (fileio.CleanupOnSignal). An output of op that this run did not produce
// (ht.npy of an earlier run with h0) is removed, and returned in stale.
func WriteOutputs(dir string, op Op, outs map[string]*npy.Array) (stale []string, err error) {
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	type pending struct{ tmp, target string }
	var done []pending
	defer func() {
		for _, p := range done {
			if err != nil {
				os.Remove(p.tmp)
			}
			fileio.Forget(p.tmp)
		}
	}()
	// every target is checked before anything is written, so that a
	// rename cannot fail half-way on one of them (a directory in the way)
	type output struct {
		path, target string
		arr          *npy.Array
		perm         fs.FileMode
		keep         bool // the target exists: its permission bits stay
	}
	var todo []output
	for _, a := range op.Outputs() {
		path := filepath.Join(dir, a.Name+".npy")
		if outs[a.Name] == nil {
			if _, err := os.Lstat(path); err == nil {
				stale = append(stale, path)
			}
			continue
		}
		target, err := fileio.Target(path)
		if err != nil {
			return nil, err
		}
		o := output{path: path, target: target, arr: outs[a.Name], perm: 0o666}
		if st, err := os.Stat(target); err == nil {
			if !st.Mode().IsRegular() {
				return nil, fmt.Errorf("%s is in the way of the output %s: not a regular file", target, a.Name)
			}
			o.perm, o.keep = st.Mode().Perm(), true
		}
		todo = append(todo, o)
	}
	for _, o := range todo {
		f, err := fileio.CreateTemp(o.target, 0o666)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.path, err)
		}
		done = append(done, pending{f.Name(), o.target})
		err = npy.Write(f, o.arr)
		if err == nil && o.keep {
			err = f.Chmod(o.perm)
		}
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.path, err)
		}
	}
	for _, p := range done {
		if err := os.Rename(p.tmp, p.target); err != nil {
			return nil, fmt.Errorf("%s: %w", p.target, err)
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		if err := os.Remove(s); err != nil {
			return nil, err
		}
	}
	return stale, nil
}
