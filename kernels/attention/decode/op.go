package decode

import (
	"github.com/tlego/tle/kernels/attention/paged"
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
	in := []registry.Arg{{Name: "q", Doc: "[B*Sq, Hq, 128] float (fp8: e4m3 values)"}}
	in = append(in, paged.CacheInputs("counting the Sq new tokens")...)
	in = append(in, registry.Arg{Name: "q_scale", Optional: true, Doc: "fp8: [B*Sq, Hq], non-negative"})
	return append(in, paged.ScaleInputs()...)
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
		{Name: "cluster", Optional: true, Doc: "pages of 64: the decode kernel's cluster size, 1, 2, 4 or 8 (the pieces of a request in one cluster merged in distributed shared memory; 1, the default: all through the combine; -1: the policy's, ChooseCluster)"},
		{Name: "schedule", Optional: true, Doc: `pages of 64: "fixed" (every request cut into pieces of one length), "dynamic" (all requests' tiles dealt evenly over a persistent grid on the GPU); default the policy's (ChooseSchedule)`},
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

// Parse turns npy arrays and params into Inputs and Params and
// validates them (every error names its argument).
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
	if p.Sq, _, err = a.Integer("sq", true); err != nil {
		return nil, p, err
	}
	if p.Splits, _, err = a.Integer("splits", false); err != nil {
		return nil, p, err
	}
	if p.Cluster, _, err = a.Integer("cluster", false); err != nil {
		return nil, p, err
	}
	if _, ok := params["schedule"]; ok {
		if p.Schedule, err = a.Str("schedule"); err != nil {
			return nil, p, err
		}
	}
	if p.Scale, err = a.Scale(); err != nil {
		return nil, p, err
	}
	pa, err := a.Arrays()
	if err != nil {
		return nil, p, err
	}
	inputs := &Inputs{Q: pa.Q, KCache: pa.KCache, VCache: pa.VCache, QScale: pa.QScale, KScale: pa.KScale, VScale: pa.VScale,
		BlockIDs: pa.BlockIDs, KVLens: pa.KVLens}
	if _, err := Validate(inputs, p); err != nil {
		return nil, p, err
	}
	return inputs, p, nil
}
