package paged

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

// OpArgs reads the .npy inputs and params.json values of the ops
// attn_decode and attn_prefill; every error names its argument.
type OpArgs struct {
	Op     string // the op's name, for unknown-name errors
	In     map[string]*npy.Array
	Params map[string]any
}

// Known refuses an input or parameter the op does not take.
func (a OpArgs) Known(inputs, params []registry.Arg) error {
	for _, c := range []struct {
		names  []string
		args   []registry.Arg
		format string
	}{{slices.Sorted(maps.Keys(a.In)), inputs, "takes no input named so (inputs: %s)"}, {slices.Sorted(maps.Keys(a.Params)), params, "has no parameter named so (parameters: %s)"}} {
		ok := map[string]bool{}
		var all []string
		for _, arg := range c.args {
			ok[arg.Name] = true
			all = append(all, arg.Name)
		}
		for _, n := range c.names {
			if !ok[n] {
				return argErr(n, a.Op+" "+c.format, strings.Join(all, ", "))
			}
		}
	}
	return nil
}

// Str is the required string parameter name.
func (a OpArgs) Str(name string) (string, error) {
	v, ok := a.Params[name]
	if !ok || v == nil {
		return "", argErr(name, "missing")
	}
	s, ok := v.(string)
	if !ok {
		return "", argErr(name, "want a string, got %T (%v)", v, v)
	}
	return s, nil
}

// Integer is the integer parameter name and whether it is given (an error
// when it is required and not).
func (a OpArgs) Integer(name string, required bool) (int, bool, error) {
	v, ok := a.Params[name]
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

// Scale is the optional positive number "scale" (0 when absent: the
// default).
func (a OpArgs) Scale() (float64, error) {
	v, ok := a.Params["scale"]
	if !ok || v == nil {
		return 0, nil
	}
	x, isNum := v.(float64)
	if !isNum {
		return 0, argErr("scale", "want a number, got %T (%v)", v, v)
	}
	if x <= 0 || math.IsNaN(x) {
		return 0, argErr("scale", "must be positive, got %v", x)
	}
	return x, nil
}

// Float is the optional float array name as a tensor (nil when absent).
func (a OpArgs) Float(name string) (*tle.Tensor, error) {
	arr := a.In[name]
	if arr == nil {
		return nil, nil
	}
	if err := arr.Validate(); err != nil {
		return nil, argErr(name, "%v", err)
	}
	if !arr.IsFloat() {
		return nil, argErr(name, "want a float array, got dtype %s", arr.DType)
	}
	return &tle.Tensor{Shape: append([]int(nil), arr.Shape...), Data: arr.F64}, nil
}

// Ints is the required int32 or int64 array name of the given rank (what
// is its shape's name).
func (a OpArgs) Ints(name string, rank int, what string) (*npy.Array, error) {
	arr := a.In[name]
	if arr == nil {
		return nil, argErr(name, "missing (want %s int32 or int64)", what)
	}
	if err := arr.Validate(); err != nil {
		return nil, argErr(name, "%v", err)
	}
	if arr.DType != "<i4" && arr.DType != "<i8" {
		return nil, argErr(name, "want int32 or int64, got dtype %s", arr.DType)
	}
	if len(arr.Shape) != rank {
		return nil, argErr(name, "want shape %s, got %v", what, arr.Shape)
	}
	return arr, nil
}

// Arrays are the inputs decode and prefill share.
type Arrays struct {
	Q, KCache, VCache, QScale, KScale, VScale *tle.Tensor
	BlockIDs                                  [][]int64
	KVLens                                    []int64
}

// Arrays reads q, the caches, the scales, block_ids and kv_lens.
func (a OpArgs) Arrays() (*Arrays, error) {
	p := &Arrays{}
	var err error
	for _, f := range []struct {
		name string
		dst  **tle.Tensor
	}{{"q", &p.Q}, {"k_cache", &p.KCache}, {"v_cache", &p.VCache},
		{"q_scale", &p.QScale}, {"k_scale", &p.KScale}, {"v_scale", &p.VScale}} {
		if *f.dst, err = a.Float(f.name); err != nil {
			return nil, err
		}
	}
	bt, err := a.Ints("block_ids", 2, "[B, max_blocks]")
	if err != nil {
		return nil, err
	}
	if bt.Shape[0] < 1 || bt.Shape[1] < 1 {
		return nil, argErr("block_ids", "want a non-empty [B, max_blocks], got %v", bt.Shape)
	}
	for b := range bt.Shape[0] {
		p.BlockIDs = append(p.BlockIDs, bt.I64[b*bt.Shape[1]:(b+1)*bt.Shape[1]])
	}
	kl, err := a.Ints("kv_lens", 1, "[B]")
	if err != nil {
		return nil, err
	}
	p.KVLens = kl.I64
	return p, nil
}

// Format reads the call's format, as decode and prefill take it: layout,
// dtype, and quant_type, which an fp8 call needs and a bf16 call must not
// give (it would be ignored).
func (a OpArgs) Format() (layout, dtype string, quantType int, err error) {
	if layout, err = a.Str("layout"); err != nil {
		return
	}
	if dtype, err = a.Str("dtype"); err != nil {
		return
	}
	qt, has, err := a.Integer("quant_type", false)
	switch {
	case err != nil:
		return
	case dtype == DTypeFP8 && !has:
		err = argErr("quant_type", "missing (0 or 1 for fp8)")
	case dtype != DTypeFP8 && has:
		err = argErr("quant_type", "given for dtype %q (fp8 only)", dtype)
	}
	return layout, dtype, qt, err
}

// OpOutputs are an attention call's outputs as the op returns them: o and
// lse as f32 arrays.
func OpOutputs(o, lse *tle.Tensor) map[string]*npy.Array {
	return map[string]*npy.Array{"o": registry.F32(o), "lse": registry.F32(lse)}
}

// CacheInputs are the op inputs decode and prefill share, in their order
// after q (and prefill's cu_seqlens_q): the paged K and V caches and their
// page table, then kv_lens (lens says what it counts).
func CacheInputs(lens string) []registry.Arg {
	return []registry.Arg{
		{Name: "k_cache", Doc: "[blocks, page, Hkv, 128] (nhd) or [blocks, Hkv, page, 128] (hnd) float (fp8: e4m3 values; NaN allowed in unread slots)"},
		{Name: "v_cache", Doc: "k_cache's shape"},
		{Name: "block_ids", Doc: "[B, max_blocks] int32 or int64"},
		{Name: "kv_lens", Doc: "[B] int32 or int64, " + lens},
	}
}

// ScaleInputs are the FP8 K and V scales both ops take, after q_scale.
func ScaleInputs() []registry.Arg {
	return []registry.Arg{
		{Name: "k_scale", Optional: true, Doc: "fp8: [1] (quant type 1, non-negative) or [blocks, page, Hkv] / [blocks, Hkv, page] (type 0)"},
		{Name: "v_scale", Optional: true, Doc: "fp8: [1] (quant type 1) or [Hkv] (type 0)"},
	}
}
