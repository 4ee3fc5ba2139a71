package kda

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/tle"
)

// DeviceTensors are the forward pass's tensors in device memory, in the
// kernels' dtypes: bf16 Q, K, V, G, Beta and O; f32 ALog and DtBias; the
// state dtype for H0 (nil: no initial state) and HT (nil: no final state).
type DeviceTensors struct {
	Q, K, V, G, Beta, ALog, DtBias *tle.DeviceBuffer
	H0, O, HT                      *tle.DeviceBuffer
}

// Runner runs the forward pass on one GPU from device memory it keeps between
// calls: the workspace, the chunk tables and the launches are made for the
// first call of a size and reused by every later call that fits, so a warm
// call allocates no device memory (Allocs counts the allocations it made).
// A Runner is safe for concurrent use; calls are serialised.
type Runner struct {
	g      *tle.GPU
	mu     sync.Mutex
	bufs   map[string]*tle.DeviceBuffer
	cu     []int64 // the cu_seqlens the uploaded chunk tables were built from
	ct     *ChunkTables
	ctFor  []int64 // the cu_seqlens ct was built from
	key    string  // the launches' key
	preps  []*tle.Prepared
	Allocs int
}

// NewRunner makes a Runner on g.
func NewRunner(g *tle.GPU) *Runner {
	return &Runner{g: g, bufs: map[string]*tle.DeviceBuffer{}}
}

var runners sync.Map // *tle.GPU -> *Runner

// runnerFor is the package's Runner of g (Forward on a GPU uses it).
func runnerFor(g *tle.GPU) *Runner {
	r, _ := runners.LoadOrStore(g, NewRunner(g))
	return r.(*Runner)
}

// buf is the runner's buffer name with room for n elements of dt: the one
// it has when big enough, else a new one (the old one is freed).
func (r *Runner) buf(name string, dt ir.DType, n int) (*tle.DeviceBuffer, error) {
	n = max(n, 1)
	if b, ok := r.bufs[name]; ok && b.DType == dt && b.N >= n {
		return &tle.DeviceBuffer{Ptr: b.Ptr, DType: dt, N: n}, nil
	}
	if b, ok := r.bufs[name]; ok {
		r.g.Free(b)
		delete(r.bufs, name)
	}
	b, err := r.g.Alloc(dt, n)
	if err != nil {
		return nil, fmt.Errorf("kda: allocating %s (%d x %s): %w", name, n, dt, err)
	}
	r.Allocs++
	r.cu = nil // a new table buffer holds nothing yet
	r.bufs[name] = b
	return &tle.DeviceBuffer{Ptr: b.Ptr, DType: dt, N: n}, nil
}

// Close frees the runner's device memory and launches.
func (r *Runner) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closePreps()
	for name, b := range r.bufs {
		r.g.Free(b)
		delete(r.bufs, name)
	}
	r.cu = nil
}

func (r *Runner) closePreps() {
	for _, p := range r.preps {
		p.Close()
	}
	r.preps, r.key = nil, ""
}

// Launch enqueues kda_prep and kda_rec for sizes d (from Validate) on the
// tensors t; it does not wait. The chunk tables are uploaded when
// d.CuSeqlens changes, the launches prepared when a size, a parameter or a
// buffer changes.
func (r *Runner) Launch(d *Dims, p Params, t *DeviceTensors) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.launch(d, p, t)
}

// launch is Launch with r.mu held.
func (r *Runner) launch(d *Dims, p Params, t *DeviceTensors) error {
	if err := r.prepare(d, p, t); err != nil {
		return err
	}
	for _, pr := range r.preps {
		if err := pr.Launch(); err != nil {
			return err
		}
	}
	return nil
}

func (r *Runner) prepare(d *Dims, p Params, t *DeviceTensors) error {
	if err := checkDeviceTensors(d, p, t); err != nil {
		return err
	}
	prepK, recK, err := Kernels()
	if err != nil {
		return err
	}
	bv := p.BlockV
	if bv == 0 {
		bv = DefaultBlockV(d)
	}
	if r.ct == nil || !slices.Equal(r.ctFor, d.CuSeqlens) {
		r.ct, r.ctFor = MakeChunkTables(d.CuSeqlens), slices.Clone(d.CuSeqlens)
	}
	ct := r.ct
	nc := ct.NumChunks()
	chunks, err := r.buf("chunks", ir.I32, len(ct.Chunks))
	if err != nil {
		return err
	}
	off, err := r.buf("chunk_off", ir.I32, len(ct.Off))
	if err != nil {
		return err
	}
	cu, err := r.buf("cu_seqlens", ir.I64, len(d.CuSeqlens))
	if err != nil {
		return err
	}
	ws, err := r.buf("ws", ir.BF16, nc*d.H*wsElems(d.K))
	if err != nil {
		return err
	}
	wd, err := r.buf("wd", ir.F32, nc*d.H*paddedK(d.K))
	if err != nil {
		return err
	}
	if !slices.Equal(r.cu, d.CuSeqlens) {
		for _, u := range []struct {
			b    *tle.DeviceBuffer
			data []float64
		}{{chunks, floats(ct.Chunks)}, {off, floats(ct.Off)}, {cu, floats(d.CuSeqlens)}} {
			if len(u.data) > 0 {
				if err := r.g.UploadTo(u.b, u.data); err != nil {
					return err
				}
			}
		}
		r.cu = slices.Clone(d.CuSeqlens)
	}
	// the state pointers a specialisation does not touch get a placeholder
	dummyF, err := r.buf("dummy_f32", ir.F32, 1)
	if err != nil {
		return err
	}
	dummyB, err := r.buf("dummy_bf16", ir.BF16, 1)
	if err != nil {
		return err
	}
	h0f, h0b, htf, htb := dummyF, dummyB, dummyF, dummyB
	bf16 := p.StateDType == StateBF16
	if t.H0 != nil {
		if bf16 {
			h0b = t.H0
		} else {
			h0f = t.H0
		}
	}
	if p.FinalState {
		if t.HT == nil {
			return argErr("ht", "the final state was asked for but has no buffer")
		}
		if bf16 {
			htb = t.HT
		} else {
			htf = t.HT
		}
	}
	key := fmt.Sprint(*d, p, bv, nc) + bufKey(chunks, off, cu, ws, wd, t.Q, t.K, t.V, t.G, t.Beta, t.ALog, t.DtBias, t.H0, t.O, t.HT)
	if key == r.key {
		return nil
	}
	r.closePreps()
	prep, rec := Launches(d, p, bv, nc, t.H0 != nil)
	if nc > 0 {
		pp, err := r.preparePrep(prepK, prep, nc*d.H, t.Q, t.K, t.G, t.Beta, t.ALog, t.DtBias, chunks, ws, wd,
			float32(p.Scale), float32(p.LowerBound), int32(d.H), int32(d.B*d.T), int32(nc*d.H))
		if err != nil {
			return err
		}
		r.preps = append(r.preps, pp)
	}
	rp, err := r.g.Prepare(recK, rec.Options(), rec.Grid, ws, wd, t.V, cu, off, h0f, h0b, htf, htb, t.O, int32(d.H))
	if err != nil {
		r.closePreps()
		return err
	}
	r.preps = append(r.preps, rp)
	r.key = key
	return nil
}

// preparePrep prepares the persistent kda_prep over items items with one
// program for each that the GPU holds at once (the driver's occupancy of
// the loaded kernel times the SMs), so that every program is resident from
// the start and the items are shared out evenly.
func (r *Runner) preparePrep(k *tle.Kernel, l Launch, items int, args ...any) (*tle.Prepared, error) {
	pp, err := r.g.Prepare(k, l.Options(), [3]int{1, 1, 1}, args...)
	if err != nil {
		return nil, err
	}
	per, err := pp.ResidentPerSM()
	if err == nil && per < 1 {
		err = fmt.Errorf("kda_prep: no program fits on an SM (occupancy 0)")
	}
	sms, err2 := r.g.SMs()
	pp.Close()
	if err = errors.Join(err, err2); err != nil {
		return nil, err
	}
	return r.g.Prepare(k, l.Options(), [3]int{prepPrograms(items, per*sms), 1, 1}, args...)
}

// checkDeviceTensors checks each buffer's dtype and size against d and p,
// so that nothing reads or writes past a buffer.
func checkDeviceTensors(d *Dims, p Params, t *DeviceTensors) error {
	if err := checkBlockV(p.BlockV, d.V); err != nil {
		return err
	}
	cu := d.CuSeqlens
	if len(cu) != d.N+1 || d.N < 1 || cu[0] != 0 || cu[d.N] != int64(d.B*d.T) {
		return argErr("cu_seqlens", "want N+1 = %d boundaries from 0 to B*T = %d, got %v", d.N+1, d.B*d.T, cu)
	}
	for i := 1; i < len(cu); i++ {
		if cu[i] < cu[i-1] {
			return argErr("cu_seqlens", "must be non-decreasing: cu_seqlens[%d] = %d < cu_seqlens[%d] = %d", i, cu[i], i-1, cu[i-1])
		}
	}
	if d.H < 1 || d.K < 16 || d.V < 16 || d.K > MaxHeadDim || d.V > MaxHeadDim || d.K%16 != 0 || d.V%16 != 0 {
		return argErr("q", "sizes H = %d, K = %d, V = %d are not supported", d.H, d.K, d.V)
	}
	sdt := ir.F32
	if p.StateDType == StateBF16 {
		sdt = ir.BF16
	}
	tok := d.B * d.T * d.H
	state := d.N * d.H * d.V * d.K
	for _, c := range []struct {
		name string
		b    *tle.DeviceBuffer
		dt   ir.DType
		n    int
		opt  bool
	}{
		{"q", t.Q, ir.BF16, tok * d.K, false}, {"k", t.K, ir.BF16, tok * d.K, false}, {"v", t.V, ir.BF16, tok * d.V, false},
		{"g", t.G, ir.BF16, tok * d.K, false}, {"beta", t.Beta, ir.BF16, tok, false},
		{"A_log", t.ALog, ir.F32, d.H, false}, {"dt_bias", t.DtBias, ir.F32, d.H * d.K, false},
		{"o", t.O, ir.BF16, tok * d.V, false}, {"h0", t.H0, sdt, state, true}, {"ht", t.HT, sdt, state, !p.FinalState},
	} {
		switch {
		case c.b == nil && c.opt:
		case c.b == nil || c.b.Ptr == 0:
			return argErr(c.name, "no device buffer")
		case c.b.DType != c.dt:
			return argErr(c.name, "device buffer of %s, want %s", c.b.DType, c.dt)
		case c.b.N < c.n:
			return argErr(c.name, "device buffer of %d elements, want at least %d", c.b.N, c.n)
		}
	}
	return nil
}

// bufKey identifies buffers by address, dtype and length (nil as such), for
// the launch cache.
func bufKey(bs ...*tle.DeviceBuffer) string {
	var k strings.Builder
	for _, b := range bs {
		if b == nil {
			k.WriteString(";nil")
			continue
		}
		fmt.Fprintf(&k, ";%#x/%s/%d", uint64(b.Ptr), b.DType, b.N)
	}
	return k.String()
}

// Forward validates in and runs the forward pass on the runner's GPU: the inputs go into
// device buffers the runner keeps, o and the final state come back.
func (r *Runner) Forward(in *Inputs, p Params) (*Outputs, error) {
	d, err := Validate(in, p)
	if err != nil {
		return nil, err
	}
	return r.forward(in, d, p)
}

func (r *Runner) forward(in *Inputs, d *Dims, p Params) (*Outputs, error) {
	sdt := ir.F32
	if p.StateDType == StateBF16 {
		sdt = ir.BF16
	}
	t := &DeviceTensors{}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, u := range []struct {
		name string
		dst  **tle.DeviceBuffer
		src  *tle.Tensor
		dt   ir.DType
	}{
		{"q", &t.Q, in.Q, ir.BF16}, {"k", &t.K, in.K, ir.BF16}, {"v", &t.V, in.V, ir.BF16}, {"g", &t.G, in.G, ir.BF16},
		{"beta", &t.Beta, in.Beta, ir.BF16}, {"A_log", &t.ALog, in.ALog, ir.F32}, {"dt_bias", &t.DtBias, in.DtBias, ir.F32},
		{"h0", &t.H0, in.H0, sdt},
	} {
		if u.src == nil {
			continue
		}
		b, err := r.buf(u.name, u.dt, len(u.src.Data))
		if err == nil && len(u.src.Data) > 0 {
			err = r.g.UploadTo(b, u.src.Data)
		}
		if err != nil {
			return nil, fmt.Errorf("kda: %s: %w", u.name, err)
		}
		*u.dst = b
	}
	var err error
	if t.O, err = r.buf("o", ir.BF16, d.B*d.T*d.H*d.V); err == nil && p.FinalState {
		t.HT, err = r.buf("ht", sdt, d.N*d.H*d.V*d.K)
	}
	if err != nil {
		return nil, err
	}
	if err := r.launch(d, p, t); err != nil {
		return nil, fmt.Errorf("kda on %s: %w", r.g.Name(), err)
	}
	out := &Outputs{O: &tle.Tensor{Shape: []int{d.B, d.T, d.H, d.V}}}
	if out.O.Data, err = r.g.Download(t.O); err != nil {
		return nil, err
	}
	if p.FinalState {
		out.HT = &tle.Tensor{Shape: []int{d.N, d.H, d.V, d.K}}
		if out.HT.Data, err = r.g.Download(t.HT); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// DefaultBlockV is the recurrence's V block for sizes d: 64 (or the
// largest power of two dividing V, if smaller), and 32 when that leaves
// fewer than 256 recurrence programs: with few long sequences the
// recurrence is bound by each program's chain of chunks, so more, narrower
// programs finish sooner.
func DefaultBlockV(d *Dims) int {
	bv := min(64, MaxBlockV(d.V))
	if bv > 32 && d.V%32 == 0 && (d.V/bv)*d.H*d.N < 256 {
		bv = 32
	}
	return bv
}
