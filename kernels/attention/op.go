package attention

import (
	"math"
	"sort"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

func init() { registry.Register(Op{}) }

// Op is Decode as the registered op attn_decode (`tlec op attn_decode`):
// issue 15's files in, o.npy and lse.npy out.
type Op struct{}

// Name is the op's name.
func (Op) Name() string { return "attn_decode" }

// Doc is a one-line summary.
func (Op) Doc() string {
	return "paged decode attention (head dim 128, GQA 4/8, pages 16/32/64, bf16 or fp8 caches): o and the LSE (natural log)"
}

// Inputs are the tensors the op reads.
func (Op) Inputs() []registry.Arg {
	return []registry.Arg{
		{Name: "q", Doc: "[B*Sq, Hq, 128] float (fp8: e4m3 values)"},
		{Name: "k_cache", Doc: "[blocks, page, Hkv, 128] (nhd) or [blocks, Hkv, page, 128] (hnd) float (fp8: e4m3 values; NaN allowed in unread slots)"},
		{Name: "v_cache", Doc: "k_cache's shape"},
		{Name: "block_ids", Doc: "[B, max_blocks] int32 or int64"},
		{Name: "kv_lens", Doc: "[B] int32 or int64, counting the Sq new tokens"},
		{Name: "q_scale", Optional: true, Doc: "fp8: [B*Sq, Hq]"},
		{Name: "k_scale", Optional: true, Doc: "fp8: [1] (quant type 1) or [blocks, page, Hkv] / [blocks, Hkv, page] (type 0)"},
		{Name: "v_scale", Optional: true, Doc: "fp8: [1] (quant type 1) or [Hkv] (type 0)"},
	}
}

// Params are the scalars the op reads.
func (Op) Params() []registry.Arg {
	return []registry.Arg{
		{Name: "layout", Doc: `"nhd" or "hnd"`},
		{Name: "sq", Doc: "query tokens per request, 1 to 4"},
		{Name: "dtype", Doc: `"bf16" or "fp8"`},
		{Name: "quant_type", Optional: true, Doc: "fp8: 0 or 1 (absent for bf16)"},
		{Name: "scale", Optional: true, Doc: "number; default 128^-0.5"},
		{Name: "splits", Optional: true, Doc: "KV splits (pieces) of the longest request, 1 to 128 (shorter requests take fewer pieces of the same length); default the policy's (ChooseChunk)"},
	}
}

// Outputs are the tensors the op writes.
func (Op) Outputs() []registry.Arg {
	return []registry.Arg{
		{Name: "o", Doc: "[B*Sq, Hq, 128] f32 (bf16 values)"},
		{Name: "lse", Doc: "[B*Sq, Hq] f32, natural log"},
	}
}

// Run validates everything, then runs Decode on dev.
func (op Op) Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error) {
	inputs, p, err := op.Parse(in, params)
	if err != nil {
		return nil, err
	}
	out, err := Decode(dev, inputs, p)
	if err != nil {
		return nil, err
	}
	return map[string]*npy.Array{"o": f32Array(out.O), "lse": f32Array(out.LSE)}, nil
}

// Validate checks the arguments as Run would, without running anything.
func (op Op) Validate(in map[string]*npy.Array, params map[string]any) error {
	_, _, err := op.Parse(in, params)
	return err
}

// Parse turns npy arrays and params into DecodeInputs and DecodeParams and
// validates them (every error names its argument).
func (op Op) Parse(in map[string]*npy.Array, params map[string]any) (*DecodeInputs, DecodeParams, error) {
	var p DecodeParams
	if err := unknown(keys(in), op.Inputs(), "takes no input named so (inputs: %s)"); err != nil {
		return nil, p, err
	}
	if err := unknown(keys(params), op.Params(), "has no parameter named so (parameters: %s)"); err != nil {
		return nil, p, err
	}
	str := func(name string) (string, error) {
		v, ok := params[name]
		if !ok || v == nil {
			return "", argErr(name, "missing")
		}
		s, ok := v.(string)
		if !ok {
			return "", argErr(name, "want a string, got %T (%v)", v, v)
		}
		return s, nil
	}
	integer := func(name string, required bool) (int, bool, error) {
		v, ok := params[name]
		if !ok || v == nil {
			if required {
				return 0, false, argErr(name, "missing")
			}
			return 0, false, nil
		}
		var x float64
		switch t := v.(type) {
		case float64:
			x = t
		case int:
			x = float64(t)
		case int64:
			x = float64(t)
		default:
			return 0, false, argErr(name, "want an integer, got %T (%v)", v, v)
		}
		if x != math.Trunc(x) || math.Abs(x) > 1<<30 {
			return 0, false, argErr(name, "want an integer, got %v", x)
		}
		return int(x), true, nil
	}
	var err error
	if p.Layout, err = str("layout"); err != nil {
		return nil, p, err
	}
	if p.DType, err = str("dtype"); err != nil {
		return nil, p, err
	}
	if p.Sq, _, err = integer("sq", true); err != nil {
		return nil, p, err
	}
	qt, hasQT, err := integer("quant_type", false)
	if err != nil {
		return nil, p, err
	}
	switch {
	case p.DType == DTypeFP8 && !hasQT:
		return nil, p, argErr("quant_type", "missing (0 or 1 for fp8)")
	case p.DType != DTypeFP8 && hasQT:
		return nil, p, argErr("quant_type", "given for dtype %q (fp8 only)", p.DType)
	}
	p.QuantType = qt
	if p.Splits, _, err = integer("splits", false); err != nil {
		return nil, p, err
	}
	if v, ok := params["scale"]; ok && v != nil {
		x, isNum := v.(float64)
		if !isNum {
			return nil, p, argErr("scale", "want a number, got %T (%v)", v, v)
		}
		if x == 0 || x < 0 || math.IsNaN(x) {
			return nil, p, argErr("scale", "must be positive, got %v", x)
		}
		p.Scale = x
	}

	float := func(name string) (*tle.Tensor, error) {
		a := in[name]
		if a == nil {
			return nil, nil
		}
		if err := a.Validate(); err != nil {
			return nil, argErr(name, "%v", err)
		}
		if !a.IsFloat() {
			return nil, argErr(name, "want a float array, got dtype %s", a.DType)
		}
		return &tle.Tensor{Shape: append([]int(nil), a.Shape...), Data: a.F64}, nil
	}
	ints := func(name string, rank int, what string) (*npy.Array, error) {
		a := in[name]
		if a == nil {
			return nil, argErr(name, "missing (want %s int32 or int64)", what)
		}
		if err := a.Validate(); err != nil {
			return nil, argErr(name, "%v", err)
		}
		if a.DType != "<i4" && a.DType != "<i8" {
			return nil, argErr(name, "want int32 or int64, got dtype %s", a.DType)
		}
		if len(a.Shape) != rank {
			return nil, argErr(name, "want shape %s, got %v", what, a.Shape)
		}
		return a, nil
	}
	inputs := &DecodeInputs{}
	for _, f := range []struct {
		name string
		dst  **tle.Tensor
	}{{"q", &inputs.Q}, {"k_cache", &inputs.KCache}, {"v_cache", &inputs.VCache},
		{"q_scale", &inputs.QScale}, {"k_scale", &inputs.KScale}, {"v_scale", &inputs.VScale}} {
		if *f.dst, err = float(f.name); err != nil {
			return nil, p, err
		}
	}
	bt, err := ints("block_ids", 2, "[B, max_blocks]")
	if err != nil {
		return nil, p, err
	}
	if bt.Shape[0] < 1 || bt.Shape[1] < 1 {
		return nil, p, argErr("block_ids", "want a non-empty [B, max_blocks], got %v", bt.Shape)
	}
	for b := range bt.Shape[0] {
		inputs.BlockIDs = append(inputs.BlockIDs, bt.I64[b*bt.Shape[1]:(b+1)*bt.Shape[1]])
	}
	kl, err := ints("kv_lens", 1, "[B]")
	if err != nil {
		return nil, p, err
	}
	inputs.KVLens = kl.I64
	if _, err := Validate(inputs, p); err != nil {
		return nil, p, err
	}
	return inputs, p, nil
}

func f32Array(t *tle.Tensor) *npy.Array {
	f := make([]float32, len(t.Data))
	for i, x := range t.Data {
		f[i] = float32(x)
	}
	return npy.Float32(t.Shape, f)
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func unknown(names []string, args []registry.Arg, format string) error {
	known := map[string]bool{}
	var all []string
	for _, a := range args {
		known[a.Name] = true
		all = append(all, a.Name)
	}
	for _, n := range names {
		if !known[n] {
			return argErr(n, "attn_decode "+format, strings.Join(all, ", "))
		}
	}
	return nil
}
