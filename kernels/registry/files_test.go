package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/runtime/npy"
)

func TestParseParamsRules(t *testing.T) {
	p, err := ParseParams([]byte("\ufeff{\"a\": [1, {\"b\": []}], \"c\": null}"))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"a": []any{1.0, map[string]any{"b": []any{}}}, "c": nil}, p)
	_, err = ParseParams([]byte(`{"a": {"b": 1, "b": 2}}`))
	require.ErrorContains(t, err, `the key "a.b" is given twice`)
	_, err = ParseParams([]byte(`{"a": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`))
	require.ErrorContains(t, err, "nested deeper than 32 levels")
	_, err = ParseParams([]byte(`[]`))
	require.ErrorContains(t, err, "want a JSON object")
}

// WriteOutputs checks every target before writing anything: a directory
// where an output goes leaves the others as they were.
func TestWriteOutputsChecksFirst(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "o.npy"), []byte("old"), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "ht.npy"), 0o755))
	outs := map[string]*npy.Array{"o": npy.Float32([]int{1}, []float32{1}), "ht": npy.Float32([]int{1}, []float32{2})}
	_, err := WriteOutputs(dir, twoOuts{}, outs)
	require.ErrorContains(t, err, "ht.npy is in the way of the output ht: not a regular file")
	b, err := os.ReadFile(filepath.Join(dir, "o.npy"))
	require.NoError(t, err)
	require.Equal(t, "old", string(b))
	require.NoError(t, os.Remove(filepath.Join(dir, "ht.npy")))
	_, err = WriteOutputs(dir, twoOuts{}, outs)
	require.NoError(t, err)
	st, err := os.Stat(filepath.Join(dir, "o.npy"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm(), "an existing output keeps its mode")
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, es, 2)
}

type twoOuts struct{ fuzzOp }

func (twoOuts) Outputs() []Arg { return []Arg{{Name: "o"}, {Name: "ht", Optional: true}} }
