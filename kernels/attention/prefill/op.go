package prefill

import (
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

func init() { registry.Register(Op{}) }

// Op is Prefill as the registered op attn_prefill (`tlec op
// attn_prefill`): issue 16's files in, o.npy and lse.npy out.
type Op struct{}

// Name is the op's name.
func (Op) Name() string { return "attn_prefill" }

// Doc is a one-line summary.
func (Op) Doc() string {
	return "paged prefill attention (varlen q, bottom-right causal, head dim 128, GQA 4/8, pages 16/32/64, bf16 or fp8): o and the LSE (natural log)"
}

// Inputs are the tensors the op reads.
func (Op) Inputs() []registry.Arg {
	in := []registry.Arg{
		{Name: "q", Doc: "[T, Hq, 128] float (fp8: e4m3 values)"},
		{Name: "cu_seqlens_q", Doc: "[B+1] int32 or int64: 0, increasing, T"},
	}
	in = append(in, paged.CacheInputs("total lengths (counting the new tokens)")...)
	in = append(in, registry.Arg{Name: "q_scale", Optional: true, Doc: "fp8: [T, Hq], non-negative"})
	in = append(in, paged.ScaleInputs()...)
	return append(in, registry.Arg{Name: "block_mask", Optional: true, Doc: "uint8 [B, Hq, cdiv(max Lq, 128), cdiv(max L, 128)] of 0/1 over 128x128 tiles (1 = compute; a key is visible when causal and its tile is 1; no tile forced on)"})
}

// Params are the scalars the op reads.
func (Op) Params() []registry.Arg {
	return []registry.Arg{
		{Name: "layout", Doc: `"nhd" or "hnd"`},
		{Name: "dtype", Doc: `"bf16" or "fp8"`},
		{Name: "quant_type", Optional: true, Doc: "fp8: 0 or 1 (absent for bf16)"},
		{Name: "scale", Optional: true, Doc: "number; default 128^-0.5"},
		{Name: "key_step", Optional: true, Doc: "keys a step of the KV walk, 128 or the page size; fp8: default 128 for pages of 64, else the page; bf16: default 128 for pages of 64, else the page"},
	}
}

// Outputs are the tensors the op writes.
func (Op) Outputs() []registry.Arg {
	return []registry.Arg{
		{Name: "o", Doc: "[T, Hq, 128] f32 (bf16 values)"},
		{Name: "lse", Doc: "[T, Hq] f32, natural log (-inf for a row that sees no key)"},
	}
}

// Run validates everything, then runs Prefill on dev.
func (op Op) Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error) {
	inputs, p, err := op.Parse(in, params)
	if err != nil {
		return nil, err
	}
	out, err := Run(dev, inputs, p)
	if err != nil {
		return nil, err
	}
	return paged.OpOutputs(out.O, out.LSE), nil
}

// Validate checks the arguments as Run would, without running anything.
func (op Op) Validate(in map[string]*npy.Array, params map[string]any) error {
	_, _, err := op.Parse(in, params)
	return err
}

// Parse turns npy arrays and params into Inputs and Params
// and validates them (every error names its argument).
func (op Op) Parse(in map[string]*npy.Array, params map[string]any) (*Inputs, Params, error) {
	var p Params
	a := paged.OpArgs{Op: op.Name(), In: in, Params: params}
	if err := a.Known(op.Inputs(), op.Params()); err != nil {
		return nil, p, err
	}
	var err error
	if p.Layout, p.DType, p.QuantType, err = a.Format(); err != nil {
		return nil, p, err
	}
	if p.Scale, err = a.Scale(); err != nil {
		return nil, p, err
	}
	if p.KeyStep, _, err = a.Integer("key_step", false); err != nil {
		return nil, p, err
	}
	cu, err := a.Ints("cu_seqlens_q", 1, "[B+1]")
	if err != nil {
		return nil, p, err
	}
	pa, err := a.Arrays()
	if err != nil {
		return nil, p, err
	}
	inputs := &Inputs{Q: pa.Q, CuSeqlensQ: cu.I64, KCache: pa.KCache, VCache: pa.VCache, QScale: pa.QScale, KScale: pa.KScale, VScale: pa.VScale,
		BlockIDs: pa.BlockIDs, KVLens: pa.KVLens}
	if m := in["block_mask"]; m != nil {
		if err := m.Validate(); err != nil {
			return nil, p, argErr("block_mask", "%v", err)
		}
		if m.DType != "|u1" {
			return nil, p, argErr("block_mask", "want uint8 (|u1), got dtype %s", m.DType)
		}
		inputs.BlockMask = &tle.Tensor{Shape: append([]int(nil), m.Shape...), Data: m.Float64s()}
	}
	if _, err := Validate(inputs, p); err != nil {
		return nil, p, err
	}
	return inputs, p, nil
}
