package kda

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// Arg describes one input, parameter or output of an op.
type Arg = registry.Arg

func init() { registry.Register(Op{}) }

// Op is kda_fwd as a registered op (see package kernels): tensors in and out
// as npy arrays, scalars from a JSON-like map.
type Op struct{}

// Name is the op's name.
func (Op) Name() string { return "kda_fwd" }

// Doc is a one-line summary.
func (Op) Doc() string {
	return "Kimi Delta Attention forward (FlashKDA's interface): o and the final state"
}

// Inputs are the tensors the op reads.
func (Op) Inputs() []Arg {
	return []Arg{
		{Name: "q", Doc: "[B, T, H, K] float, run as bf16"},
		{Name: "k", Doc: "[B, T, H, K] float, run as bf16"},
		{Name: "v", Doc: "[B, T, H, V] float, run as bf16"},
		{Name: "g", Doc: "[B, T, H, K] raw gate, float, run as bf16"},
		{Name: "beta", Doc: "[B, T, H] logits, float, run as bf16"},
		{Name: "A_log", Doc: "[H] float, run as f32"},
		{Name: "dt_bias", Doc: "[H, K] float, run as f32"},
		{Name: "h0", Optional: true, Doc: "[N, H, V, K] initial state, float, run as state_dtype"},
		{Name: "cu_seqlens", Optional: true, Doc: "[N+1] integer sequence boundaries (then B = 1)"},
	}
}

// Params are the scalars the op reads.
func (Op) Params() []Arg {
	return []Arg{
		{Name: "scale", Optional: true, Doc: "number; default K^-0.5"},
		{Name: "lower_bound", Doc: "number in [-5, 0)"},
		{Name: "state_dtype", Optional: true, Doc: `"f32" (default) or "bf16": the dtype of h0 and ht`},
		{Name: "output_final_state", Optional: true, Doc: "bool; default true when h0 is given"},
		{Name: "fast", Optional: true, Doc: "bool; skip the hi/lo split of the intra-chunk products (default false)"},
		{Name: "block_v", Optional: true, Doc: "V columns per recurrence program, a power of two in [16, 128] dividing V; default per size"},
		{Name: "prep_warps", Optional: true, Doc: "warps of the preparation kernel: 1, 2 (default), 4 or 8"},
	}
}

// Outputs are the tensors the op writes.
func (Op) Outputs() []Arg {
	return []Arg{
		{Name: "o", Doc: "[B, T, H, V] f32 (bf16 values)"},
		{Name: "ht", Optional: true, Doc: "[N, H, V, K] f32 (state_dtype values), with output_final_state"},
	}
}

// Run validates everything, then runs the forward pass on dev.
func (op Op) Run(dev tle.Device, in map[string]*npy.Array, params map[string]any) (map[string]*npy.Array, error) {
	inputs, p, err := op.Parse(in, params)
	if err != nil {
		return nil, err
	}
	out, err := Forward(dev, inputs, p)
	if err != nil {
		return nil, err
	}
	res := map[string]*npy.Array{"o": registry.F32(out.O)}
	if out.HT != nil {
		res["ht"] = registry.F32(out.HT)
	}
	return res, nil
}

// Parse turns npy arrays and params into Inputs and Params and validates
// them (every error names its argument).
func (op Op) Parse(in map[string]*npy.Array, params map[string]any) (*Inputs, Params, error) {
	var p Params
	if err := unknownArg(slices.Sorted(maps.Keys(in)), op.Inputs(), "takes no input named so (inputs: %s)"); err != nil {
		return nil, p, err
	}
	inputs := &Inputs{}
	tensor := func(name string, required bool) (*tle.Tensor, error) {
		a := in[name]
		if a == nil {
			if required {
				return nil, argErr(name, "missing")
			}
			return nil, nil
		}
		if err := a.Validate(); err != nil {
			return nil, argErr(name, "%v", err)
		}
		if !a.IsFloat() {
			return nil, argErr(name, "want a float array, got dtype %s", a.DType)
		}
		dt := tle.BF16 // q, k, v, g and beta run as bf16
		if name == "A_log" || name == "dt_bias" || name == "h0" {
			dt = tle.F32
		}
		if err := registry.CheckValues(name, a.F64, dt); err != nil {
			return nil, err
		}
		return &tle.Tensor{Shape: append([]int(nil), a.Shape...), Data: a.F64}, nil
	}
	var err error
	for _, f := range []struct {
		name string
		dst  **tle.Tensor
		req  bool
	}{
		{"q", &inputs.Q, true}, {"k", &inputs.K, true}, {"v", &inputs.V, true}, {"g", &inputs.G, true},
		{"beta", &inputs.Beta, true}, {"A_log", &inputs.ALog, true}, {"dt_bias", &inputs.DtBias, true},
		{"h0", &inputs.H0, false},
	} {
		if *f.dst, err = tensor(f.name, f.req); err != nil {
			return nil, p, err
		}
	}
	if a := in["cu_seqlens"]; a != nil {
		if err := a.Validate(); err != nil {
			return nil, p, argErr("cu_seqlens", "%v", err)
		}
		if a.IsFloat() || a.DType == "|b1" || a.DType == "<u8" {
			return nil, p, argErr("cu_seqlens", "want a signed integer array (int64), got dtype %s", a.DType)
		}
		if len(a.Shape) != 1 {
			return nil, p, argErr("cu_seqlens", "want shape [N+1], got %v", a.Shape)
		}
		inputs.CuSeqlens = append([]int64{}, a.I64...)
	}

	// Parameters.
	if err := unknownArg(slices.Sorted(maps.Keys(params)), op.Params(), "has no parameter named so (parameters: %s)"); err != nil {
		return nil, p, err
	}
	number := func(name string) (float64, bool, error) {
		v, ok := params[name]
		if !ok || v == nil {
			return 0, false, nil
		}
		switch x := v.(type) {
		case float64:
			return x, true, nil
		case float32:
			return float64(x), true, nil
		case int:
			return float64(x), true, nil
		case int64:
			return float64(x), true, nil
		}
		return 0, false, argErr(name, "want a number, got %T (%v)", v, v)
	}
	boolean := func(name string, def bool) (bool, error) {
		v, ok := params[name]
		if !ok || v == nil {
			return def, nil
		}
		b, ok := v.(bool)
		if !ok {
			return false, argErr(name, "want true or false, got %T (%v)", v, v)
		}
		return b, nil
	}
	var ok bool
	if p.LowerBound, ok, err = number("lower_bound"); err != nil {
		return nil, p, err
	} else if !ok {
		return nil, p, argErr("lower_bound", "missing (a number in [-5, 0))")
	}
	if p.Scale, ok, err = number("scale"); err != nil {
		return nil, p, err
	} else if !ok && inputs.Q != nil && len(inputs.Q.Shape) == 4 && inputs.Q.Shape[3] > 0 {
		p.Scale = DefaultScale(inputs.Q.Shape[3])
	}
	p.StateDType = StateF32
	if v, ok := params["state_dtype"]; ok && v != nil {
		s, isStr := v.(string)
		if !isStr {
			return nil, p, argErr("state_dtype", "want %q or %q, got %T (%v)", StateF32, StateBF16, v, v)
		}
		p.StateDType = s
	}
	if p.FinalState, err = boolean("output_final_state", inputs.H0 != nil); err != nil {
		return nil, p, err
	}
	if p.Fast, err = boolean("fast", false); err != nil {
		return nil, p, err
	}
	if bv, ok, err := number("block_v"); err != nil {
		return nil, p, err
	} else if ok {
		if bv != math.Trunc(bv) || bv < 1 || bv > 1<<20 {
			return nil, p, argErr("block_v", "want a power of two of at least 16, got %v", bv)
		}
		p.BlockV = int(bv)
	}
	if nw, ok, err := number("prep_warps"); err != nil {
		return nil, p, err
	} else if ok {
		if nw != math.Trunc(nw) || nw < 0 || nw > 64 {
			return nil, p, argErr("prep_warps", "want 1, 2, 4 or 8, got %v", nw)
		}
		p.PrepWarps = int(nw)
	}
	if _, err := Validate(inputs, p); err != nil {
		return nil, p, err
	}
	return inputs, p, nil
}

// unknownArg is the error for the first of keys that is none of args:
// "kda_fwd " then format, which gets the names of args.
func unknownArg(keys []string, args []Arg, format string) error {
	known := map[string]bool{}
	for _, a := range args {
		known[a.Name] = true
	}
	for _, name := range keys {
		if !known[name] {
			return argErr(name, "kda_fwd "+format, names(args))
		}
	}
	return nil
}

func names(args []Arg) string {
	var s []string
	for _, a := range args {
		s = append(s, a.Name)
	}
	return strings.Join(s, ", ")
}

// Validate checks the arguments as Run would, without running anything.
func (op Op) Validate(in map[string]*npy.Array, params map[string]any) error {
	_, _, err := op.Parse(in, params)
	return err
}
