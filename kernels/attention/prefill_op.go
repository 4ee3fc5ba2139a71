package attention

import (
	"math"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

func init() { registry.Register(PrefillOp{}) }

// PrefillOp is Prefill as the registered op attn_prefill (`tlec op
// attn_prefill`): issue 16's files in, o.npy and lse.npy out.
type PrefillOp struct{}

// Name is the op's name.
func (PrefillOp) Name() string { return "attn_prefill" }

// Doc is a one-line summary.
func (PrefillOp) Doc() string {
	return "paged prefill attention (varlen q, bottom-right causal, head dim 128, GQA 4/8, pages 16/32/64, bf16 or fp8): o and the LSE (natural log)"
}

// Inputs are the tensors the op reads.
func (PrefillOp) Inputs() []registry.Arg {
	return []registry.Arg{
		{Name: "q", Doc: "[T, Hq, 128] float (fp8: e4m3 values)"},
		{Name: "cu_seqlens_q", Doc: "[B+1] int32 or int64: 0, increasing, T"},
		{Name: "k_cache", Doc: "[blocks, page, Hkv, 128] (nhd) or [blocks, Hkv, page, 128] (hnd) float (fp8: e4m3 values; NaN allowed in unread slots)"},
		{Name: "v_cache", Doc: "k_cache's shape"},
		{Name: "block_ids", Doc: "[B, max_blocks] int32 or int64"},
		{Name: "kv_lens", Doc: "[B] int32 or int64, total lengths (counting the new tokens)"},
		{Name: "q_scale", Optional: true, Doc: "fp8: [T, Hq]"},
		{Name: "k_scale", Optional: true, Doc: "fp8: [1] (quant type 1) or [blocks, page, Hkv] / [blocks, Hkv, page] (type 0)"},
		{Name: "v_scale", Optional: true, Doc: "fp8: [1] (quant type 1) or [Hkv] (type 0)"},
		{Name: "block_mask", Optional: true, Doc: "not supported yet: refused (rather than ignored)"},
	}
}

// Params are the scalars the op reads.
func (PrefillOp) Params() []registry.Arg {
	return []registry.Arg{
		{Name: "layout", Doc: `"nhd" or "hnd"`},
		{Name: "dtype", Doc: `"bf16" or "fp8"`},
		{Name: "quant_type", Optional: true, Doc: "fp8: 0 or 1 (ignored for bf16)"},
		{Name: "scale", Optional: true, Doc: "number; default 128^-0.5"},
	}
}

// Outputs are the tensors the op writes.
func (PrefillOp) Outputs() []registry.Arg {
	return []registry.Arg{
		{Name: "o", Doc: "[T, Hq, 128] f32 (bf16 values)"},
		{Name: "lse", Doc: "[T, Hq] f32, natural log (-inf for a row that sees no key)"},
	}
}

// Run validates everything, then runs Prefill on dev.
func (op PrefillOp) Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error) {
	inputs, p, err := op.Parse(in, params)
	if err != nil {
		return nil, err
	}
	out, err := Prefill(dev, inputs, p)
	if err != nil {
		return nil, err
	}
	return map[string]*npy.Array{"o": f32Array(out.O), "lse": f32Array(out.LSE)}, nil
}

// Validate checks the arguments as Run would, without running anything.
func (op PrefillOp) Validate(in map[string]*npy.Array, params map[string]any) error {
	_, _, err := op.Parse(in, params)
	return err
}

// Parse turns npy arrays and params into PrefillInputs and PrefillParams
// and validates them (every error names its argument).
func (op PrefillOp) Parse(in map[string]*npy.Array, params map[string]any) (*PrefillInputs, PrefillParams, error) {
	var p PrefillParams
	for _, c := range []struct {
		names  []string
		args   []registry.Arg
		format string
	}{{keys(in), op.Inputs(), "takes no input named so (inputs: %s)"}, {keys(params), op.Params(), "has no parameter named so (parameters: %s)"}} {
		known := map[string]bool{}
		var all []string
		for _, a := range c.args {
			known[a.Name] = true
			all = append(all, a.Name)
		}
		for _, n := range c.names {
			if !known[n] {
				return nil, p, argErr(n, "attn_prefill "+c.format, strings.Join(all, ", "))
			}
		}
	}
	if in["block_mask"] != nil {
		return nil, p, argErr("block_mask", "the block-sparse mask is not supported yet (the kernels are dense causal)")
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
	var err error
	if p.Layout, err = str("layout"); err != nil {
		return nil, p, err
	}
	if p.DType, err = str("dtype"); err != nil {
		return nil, p, err
	}
	if v, ok := params["quant_type"]; ok && v != nil && p.DType == DTypeFP8 {
		x, isNum := v.(float64)
		if !isNum || x != math.Trunc(x) || math.Abs(x) > 1<<30 {
			return nil, p, argErr("quant_type", "want an integer, got %T (%v)", v, v)
		}
		p.QuantType = int(x)
	} else if p.DType == DTypeFP8 {
		return nil, p, argErr("quant_type", "missing (0 or 1 for fp8)")
	}
	if v, ok := params["scale"]; ok && v != nil {
		x, isNum := v.(float64)
		if !isNum {
			return nil, p, argErr("scale", "want a number, got %T (%v)", v, v)
		}
		if x <= 0 || math.IsNaN(x) {
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
	inputs := &PrefillInputs{}
	for _, f := range []struct {
		name string
		dst  **tle.Tensor
	}{{"q", &inputs.Q}, {"k_cache", &inputs.KCache}, {"v_cache", &inputs.VCache},
		{"q_scale", &inputs.QScale}, {"k_scale", &inputs.KScale}, {"v_scale", &inputs.VScale}} {
		if *f.dst, err = float(f.name); err != nil {
			return nil, p, err
		}
	}
	cu, err := ints("cu_seqlens_q", 1, "[B+1]")
	if err != nil {
		return nil, p, err
	}
	inputs.CuSeqlensQ = cu.I64
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
	if _, err := ValidatePrefill(inputs, p); err != nil {
		return nil, p, err
	}
	return inputs, p, nil
}
