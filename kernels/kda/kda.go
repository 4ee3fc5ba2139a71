// Package kda is the forward pass of Kimi Delta Attention (KDA) written in
// .tle and driven from Go, with FlashKDA's interface: the gate in the
// lower-bound form (A_log, dt_bias), L2 norms of q and k, the beta sigmoid,
// an optional initial state and a final state in f32 or bf16 ([N, H, V, K]),
// variable-length sequences through cu_seqlens, and T of any length.
//
// The forward pass is two kernels (kda.tle): kda_prep, a persistent
// kernel with its inputs brought by TMA one item ahead, builds the
// state-independent operands of every 16-token chunk at once into a
// workspace of 13,824 bytes per (chunk, head) at K = 128 (FlashKDA's size),
// and kda_rec runs the recurrence with the transposed f32 state in
// registers, the chained products never leaving them (see that file). On a
// GPU, a Runner keeps the workspace, chunk tables and launches between
// calls, so that a warm call allocates no device memory. Forward validates
// every argument first (errors name the argument) and then runs the kernels
// on any tle.Device: the CPU interpreter or a GPU.
package kda

import (
	"embed"
	"errors"
	"fmt"
	"math"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

// FS holds the .tle sources.
//
//go:embed *.tle
var FS embed.FS

// Chunk is the number of tokens per chunk of the chunked algorithm.
const Chunk = 16

// MaxHeadDim is the largest K and V supported; both must be multiples of 16.
const MaxHeadDim = 256

// State dtypes of the initial and final state.
const (
	StateF32  = "f32"
	StateBF16 = "bf16"
)

// Params are the scalar arguments of the forward pass.
type Params struct {
	// Scale multiplies q·k; FlashKDA's default is K^-0.5 (see DefaultScale).
	Scale float64
	// LowerBound is the gate's lower bound, in [-5, 0).
	LowerBound float64
	// StateDType is the dtype of the initial and final state: "f32" or "bf16".
	StateDType string
	// FinalState asks for the final state (Outputs.HT).
	FinalState bool
	// Fast drops the hi/lo bf16 split of the intra-chunk products (M and
	// M U): fewer tensor-core products for a larger error in o (the tests
	// hold both forms to one tolerance).
	Fast bool
	// BlockV is the number of V columns of one recurrence program, a power
	// of two in [16, 128] dividing V; 0 picks one for the sizes (see
	// DefaultBlockV). The recurrence runs one warp per 16 of them.
	BlockV int
	// PrepWarps is the warps of the preparation kernel: 1, 2, 4 or 8 (0 is
	// DefaultPrepWarps).
	PrepWarps int
	// PrepBlockK is the head columns the preparation kernel works on at a
	// time (its element-wise tiles are [16, PrepBlockK], the products over
	// the head accumulate block by block): a power of two of at least 16
	// dividing the padded head size; 0 picks one (DefaultPrepBlockK).
	PrepBlockK int
}

// DefaultScale is K^-0.5.
func DefaultScale(k int) float64 { return 1 / math.Sqrt(float64(k)) }

// Inputs are the tensors of the forward pass, row-major, with shapes as in
// FlashKDA: q, k, g [B, T, H, K]; v [B, T, H, V]; beta [B, T, H]; ALog [H];
// DtBias [H, K]; H0 (optional) [N, H, V, K]; CuSeqlens (optional, then
// B = 1) the N+1 sequence boundaries. Float data is converted to the
// kernel's dtypes on the way in (bf16 for q, k, v, g, beta; f32 for ALog and
// DtBias; the state dtype for H0), rounding to nearest even.
type Inputs struct {
	Q, K, V, G, Beta *tle.Tensor
	ALog, DtBias     *tle.Tensor
	H0               *tle.Tensor
	CuSeqlens        []int64
}

// Outputs are o [B, T, H, V] (bf16 values) and, when asked for, the final
// state HT [N, H, V, K] (values of the state dtype).
type Outputs struct {
	O  *tle.Tensor
	HT *tle.Tensor
}

// Dims are the sizes of one call, derived and checked by Validate.
type Dims struct {
	B, T, H, K, V int
	N             int     // sequences
	CuSeqlens     []int64 // N+1 boundaries over the B*T tokens
}

// ArgError is a bad argument: Arg names it (registry.ArgError, shared by
// every op package).
type ArgError = registry.ArgError

var argErr = registry.ArgErr

// Validate checks every argument and returns the sizes; nothing runs.
func Validate(in *Inputs, p Params) (*Dims, error) {
	if in == nil {
		return nil, errors.New("kda: no inputs")
	}
	need := func(name string, t *tle.Tensor, rank int, what string) error {
		if t == nil {
			return argErr(name, "missing (want %s)", what)
		}
		if len(t.Shape) != rank {
			return argErr(name, "want shape %s, got %v (rank %d, want %d)", what, t.Shape, len(t.Shape), rank)
		}
		n := 1
		for _, d := range t.Shape {
			if d < 0 {
				return argErr(name, "negative dimension in shape %v", t.Shape)
			}
			n *= d
		}
		if n != len(t.Data) {
			return argErr(name, "shape %v holds %d elements but the data has %d", t.Shape, n, len(t.Data))
		}
		return nil
	}
	if err := need("q", in.Q, 4, "[B, T, H, K]"); err != nil {
		return nil, err
	}
	d := &Dims{B: in.Q.Shape[0], T: in.Q.Shape[1], H: in.Q.Shape[2], K: in.Q.Shape[3]}
	switch {
	case d.B < 1:
		return nil, argErr("q", "batch size B must be at least 1, got shape %v", in.Q.Shape)
	case d.T < 1:
		return nil, argErr("q", "sequence length T must be at least 1, got shape %v", in.Q.Shape)
	case d.H < 1:
		return nil, argErr("q", "head count H must be at least 1, got shape %v", in.Q.Shape)
	}
	if err := checkHeadDim("q", "K", d.K); err != nil {
		return nil, err
	}
	same := func(name string, t *tle.Tensor, what string, want ...int) error {
		if err := need(name, t, len(want), what); err != nil {
			return err
		}
		for i := range want {
			if t.Shape[i] != want[i] {
				return argErr(name, "want shape %s = %v (from q), got %v", what, want, t.Shape)
			}
		}
		return nil
	}
	if err := same("k", in.K, "[B, T, H, K]", d.B, d.T, d.H, d.K); err != nil {
		return nil, err
	}
	if err := need("v", in.V, 4, "[B, T, H, V]"); err != nil {
		return nil, err
	}
	d.V = in.V.Shape[3]
	if err := same("v", in.V, "[B, T, H, V]", d.B, d.T, d.H, d.V); err != nil {
		return nil, err
	}
	if err := checkHeadDim("v", "V", d.V); err != nil {
		return nil, err
	}
	if err := same("g", in.G, "[B, T, H, K]", d.B, d.T, d.H, d.K); err != nil {
		return nil, err
	}
	if err := same("beta", in.Beta, "[B, T, H]", d.B, d.T, d.H); err != nil {
		return nil, err
	}
	if err := same("A_log", in.ALog, "[H]", d.H); err != nil {
		return nil, err
	}
	if err := same("dt_bias", in.DtBias, "[H, K]", d.H, d.K); err != nil {
		return nil, err
	}
	if in.CuSeqlens != nil {
		cu := in.CuSeqlens
		if d.B != 1 {
			return nil, argErr("cu_seqlens", "varlen inputs need B = 1, got B = %d (q shape %v)", d.B, in.Q.Shape)
		}
		if len(cu) < 2 {
			return nil, argErr("cu_seqlens", "want N+1 >= 2 boundaries, got %d", len(cu))
		}
		if cu[0] != 0 {
			return nil, argErr("cu_seqlens", "must start at 0, got %d", cu[0])
		}
		for i := 1; i < len(cu); i++ {
			if cu[i] < cu[i-1] {
				return nil, argErr("cu_seqlens", "must be non-decreasing: cu_seqlens[%d] = %d < cu_seqlens[%d] = %d", i, cu[i], i-1, cu[i-1])
			}
		}
		if last := cu[len(cu)-1]; last != int64(d.T) {
			return nil, argErr("cu_seqlens", "must end at T = %d (the tokens of q), got %d", d.T, last)
		}
		d.N = len(cu) - 1
		d.CuSeqlens = append([]int64(nil), cu...)
	} else {
		d.N = d.B
		d.CuSeqlens = make([]int64, d.B+1)
		for i := range d.CuSeqlens {
			d.CuSeqlens[i] = int64(i * d.T)
		}
	}
	// The grid is [V blocks, H, N]; CUDA allows tle.MaxGridYZ along y and z.
	if d.H > tle.MaxGridYZ {
		return nil, argErr("q", "at most %d heads, got H = %d", tle.MaxGridYZ, d.H)
	}
	if d.N > tle.MaxGridYZ {
		arg := "q"
		if in.CuSeqlens != nil {
			arg = "cu_seqlens"
		}
		return nil, argErr(arg, "at most %d sequences, got N = %d", tle.MaxGridYZ, d.N)
	}
	if in.H0 != nil {
		if err := same("h0", in.H0, "[N, H, V, K]", d.N, d.H, d.V, d.K); err != nil {
			return nil, err
		}
	}
	if math.IsNaN(p.Scale) || math.IsInf(p.Scale, 0) || math.Abs(p.Scale) > math.MaxFloat32 {
		return nil, argErr("scale", "must be a finite f32, got %v", p.Scale)
	}
	if !(p.LowerBound >= -5 && p.LowerBound < 0) {
		return nil, argErr("lower_bound", "must be in [-5, 0), got %v", p.LowerBound)
	}
	if p.StateDType != StateF32 && p.StateDType != StateBF16 {
		return nil, argErr("state_dtype", "want %q or %q, got %q", StateF32, StateBF16, p.StateDType)
	}
	if err := checkBlockV(p.BlockV, d.V); err != nil {
		return nil, err
	}
	if err := checkPrepBlockK(p.PrepBlockK, d.K); err != nil {
		return nil, err
	}
	if err := checkPrepWarps(p.PrepWarps); err != nil {
		return nil, err
	}
	return d, nil
}

// checkPrepWarps validates Params.PrepWarps, the preparation kernel's
// warps: 1, 2, 4 or 8; 0 is the default.
func checkPrepWarps(nw int) error {
	if nw != 0 && nw != 1 && nw != 2 && nw != 4 && nw != 8 {
		return argErr("prep_warps", "want 1, 2, 4 or 8 warps for the preparation kernel (0: %d), got %d", DefaultPrepWarps, nw)
	}
	return nil
}

func checkHeadDim(arg, name string, n int) error {
	if n < 16 || n > MaxHeadDim || n%16 != 0 {
		return argErr(arg, "head size %s = %d is unsupported: want a multiple of 16 in [16, %d]", name, n, MaxHeadDim)
	}
	return nil
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// Launch is one kernel specialisation and grid.
type Launch struct {
	Defines  map[string]string
	Grid     [3]int
	NumWarps int // 0: the compiler's default (4)
	MinCTAs  int // CTAs per SM ptxas makes room for (0: no constraint)
	// LoopAddresses: per-thread addresses computed in each iteration of
	// the kernel's loop (tle.CompileOptions.LoopAddresses)
	LoopAddresses bool
}

// Options are the compile options of the launch.
func (l Launch) Options() tle.CompileOptions {
	return tle.CompileOptions{Defines: l.Defines, NumWarps: l.NumWarps, MinCTAsPerSM: l.MinCTAs, LoopAddresses: l.LoopAddresses}
}

// Forward validates the inputs and runs both kernels on dev: on a GPU
// through the device's Runner (device buffers kept between calls), on the
// interpreter through tensors, one launch after the other.
func Forward(dev tle.Device, in *Inputs, p Params) (*Outputs, error) {
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	prepK, recK, err := Kernels()
	if err != nil {
		return nil, err
	}
	if g, ok := dev.(*tle.GPU); ok {
		return runnerFor(g).forward(in, d, p)
	}
	bv := p.BlockV
	if bv == 0 {
		bv = DefaultBlockV(d)
	}
	ct := MakeChunkTables(d.CuSeqlens)
	nc := ct.NumChunks()
	prep, rec := Launches(d, p, bv, nc, in.H0 != nil)
	cu := vector(d.CuSeqlens)
	cp := copyTensor
	kp := paddedK(d.K)
	ws := tle.NewTensor(max(1, nc*d.H*wsElems(d.K)))
	wd := tle.NewTensor(max(1, nc*d.H*kp))
	if nc > 0 {
		args := map[string]any{
			"q": cp(in.Q), "k": cp(in.K), "g": cp(in.G), "beta": cp(in.Beta),
			"a_log": cp(in.ALog), "dt_bias": cp(in.DtBias), "chunks": vector(ct.Chunks), "ws": ws, "wd": wd,
			"scale": p.Scale, "lower_bound": p.LowerBound, "H": d.H, "T": d.B * d.T, "items": nc * d.H,
		}
		// a few programs, so that each runs several items of its
		// persistent loop (and they get uneven shares)
		grid := [3]int{prepPrograms(nc*d.H, interpPrepPrograms), 1, 1}
		if err := prepK.Run(dev, grid, prep.Options(), args); err != nil {
			return nil, fmt.Errorf("kda_prep on %s: %w", dev.Name(), err)
		}
	}
	st := stateArgs(in, d, p)
	out := tle.NewTensor(d.B, d.T, d.H, d.V)
	args := map[string]any{
		"ws": ws, "wd": wd, "v": copyTensor(in.V), "cu_seqlens": cu, "chunk_off": vector(ct.Off), "o": out, "H": d.H,
	}
	st.addTo(args)
	if err := recK.Run(dev, rec.Grid, rec.Options(), args); err != nil {
		return nil, fmt.Errorf("kda_rec on %s: %w", dev.Name(), err)
	}
	return &Outputs{O: out, HT: st.ht}, nil
}

// floats converts integers to the float64 values tensors and uploads take.
func floats[T int32 | int64](v []T) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// vector is a 1-D tensor of integers.
func vector[T int32 | int64](v []T) *tle.Tensor {
	return &tle.Tensor{Shape: []int{len(v)}, Data: floats(v)}
}

// copyTensor is a copy of t: a launch writes every buffer back into its
// tensor, and the caller's inputs must stay as they were.
func copyTensor(t *tle.Tensor) *tle.Tensor {
	return &tle.Tensor{Shape: append([]int(nil), t.Shape...), Data: append([]float64(nil), t.Data...)}
}

// states are the four state arguments of a kernel (h0 and ht in f32 and
// bf16): the ones the specialisation does not touch get a one-element
// placeholder. ht is the final state's tensor (nil when not asked for).
type states struct{ h0f, h0b, htf, htb, ht *tle.Tensor }

func stateArgs(in *Inputs, d *Dims, p Params) states {
	dummy := func() *tle.Tensor { return tle.NewTensor(1) }
	s := states{h0f: dummy(), h0b: dummy(), htf: dummy(), htb: dummy()}
	bf16 := p.StateDType == StateBF16
	if p.FinalState {
		s.ht = tle.NewTensor(d.N, d.H, d.V, d.K)
		if bf16 {
			s.htb = s.ht
		} else {
			s.htf = s.ht
		}
	}
	if in.H0 != nil {
		if bf16 {
			s.h0b = copyTensor(in.H0)
		} else {
			s.h0f = copyTensor(in.H0)
		}
	}
	return s
}

func (s states) addTo(args map[string]any) {
	args["h0"], args["h0_bf16"], args["ht"], args["ht_bf16"] = s.h0f, s.h0b, s.htf, s.htb
}
