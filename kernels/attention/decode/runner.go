package decode

import (
	"fmt"

	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/kernels/attention/paged"
	"github.com/tlego/tle/tle"
)

// DeviceInputs are one call's tensors in GPU memory, in the kernels'
// dtypes: Q and the caches bf16 (BF16) or f8e4m3 (FP8); BlockIDs i32 [B,
// max blocks] (ids past a request's pages are never read; ids outside i32
// become -1); KVLens i32 [B]; the FP8 scales f32; the outputs O bf16
// [B*Sq, Hq, 128] and LSE f32 [B*Sq, Hq] (natural log).
type DeviceInputs struct {
	Q, KCache, VCache, BlockIDs, KVLens *tle.DeviceBuffer
	QScale, KScale, VScale              *tle.DeviceBuffer
	O, LSE                              *tle.DeviceBuffer
}

// Upload copies validated inputs (d from Validate) to the GPU and
// allocates the outputs; Free releases them.
func Upload(g *tle.GPU, in *Inputs, d *Dims) (*DeviceInputs, error) {
	dt := ir.BF16
	if d.FP8 {
		dt = ir.F8E4M3
	}
	t := &DeviceInputs{}
	var err error
	up := func(dst **tle.DeviceBuffer, dt ir.DType, data []float64) {
		if err == nil {
			*dst, err = g.Upload(dt, data)
		}
	}
	up(&t.Q, dt, in.Q.Data)
	up(&t.KCache, dt, in.KCache.Data)
	up(&t.VCache, dt, in.VCache.Data)
	up(&t.BlockIDs, ir.I32, d.FlatTable(in.BlockIDs, in.KVLens))
	up(&t.KVLens, ir.I32, paged.Floats(in.KVLens))
	if d.FP8 {
		up(&t.QScale, ir.F32, in.QScale.Data)
		up(&t.KScale, ir.F32, in.KScale.Data)
		up(&t.VScale, ir.F32, in.VScale.Data)
	}
	if err == nil {
		t.O, err = g.Alloc(ir.BF16, d.B*d.Sq*d.Hq*paged.HeadDim)
	}
	if err == nil {
		t.LSE, err = g.Alloc(ir.F32, d.B*d.Sq*d.Hq)
	}
	if err != nil {
		t.Free(g)
		return nil, err
	}
	return t, nil
}

// Free releases every buffer of t.
func (t *DeviceInputs) Free(g *tle.GPU) {
	for _, b := range []*tle.DeviceBuffer{t.Q, t.KCache, t.VCache, t.BlockIDs, t.KVLens, t.QScale, t.KScale, t.VScale, t.O, t.LSE} {
		if b != nil {
			g.Free(b)
		}
	}
}

// Runner is one decode shape on a GPU, ready to launch again and again:
// the workspace (partial O and LSE) and both launches are made once, so a
// step allocates nothing. Between steps the caller rewrites the device
// inputs in place (new tokens in the caches, new lengths in KVLens); a new
// shape (B, Sq, heads, page, dtype, max blocks, splits) needs a new Runner.
// The kernels trust what is rewritten as Validate would have checked it:
// lengths from 0 (a padding slot: o 0, lse -inf) to max blocks * page, and
// every id of the pages a length covers a block of the caches (an fp8
// quant-0 K scale is gathered by page id).
type Runner struct {
	g       *tle.GPU
	d       Dims
	ws      []*tle.DeviceBuffer
	decode  *tle.Prepared
	combine *tle.Prepared
	pdl     bool // the combine is launched as a programmatic dependent launch
}

// NewRunner prepares the launches of sizes d (from Validate, with
// Params.SMs = DeviceSMs(g) so that the split fills g) over t. When
// d's cluster size is the policy's (Params.Cluster ClusterAuto) and the
// driver says fewer clusters of it run at once than the padded grid needs
// in one wave of the plan's program slots (d.CTAs x SMs), the Runner
// launches CL 1 instead (a smaller cluster would no longer finish every
// request; Cluster reports the size it launches).
func NewRunner(g *tle.GPU, d *Dims, t *DeviceInputs) (*Runner, error) {
	r := &Runner{g: g, d: *d}
	partO, err := g.Alloc(ir.F32, d.WorkspaceRows()*paged.HeadDim)
	if err != nil {
		return nil, fmt.Errorf("decode: workspace: %w", err)
	}
	partL, err := g.Alloc(ir.F32, d.WorkspaceRows())
	if err != nil {
		g.Free(partO)
		return nil, fmt.Errorf("decode: workspace: %w", err)
	}
	r.ws = []*tle.DeviceBuffer{partO, partL}
	desc := func(b *tle.DeviceBuffer) tle.DeviceDesc {
		return tle.DeviceDesc{Buf: b, Shape: d.DescShape(), Strides: d.DescStrides()}
	}
	var args []any
	if d.FP8 {
		blk, tok, head := d.KScaleStrides()
		args = []any{desc(t.KCache), desc(t.VCache), t.Q, t.QScale, t.KScale, t.VScale, t.BlockIDs, t.KVLens, partO, partL}
		if d.hasOutputs() {
			args = append(args, t.O, t.LSE)
		}
		args = append(args, d.MaxBlocks, d.Hq, d.Scale, d.B, d.Programs, d.chunkArg(), blk, tok, head)
	} else {
		args = []any{desc(t.KCache), desc(t.VCache), t.Q, t.BlockIDs, t.KVLens, partO, partL}
		if d.hasOutputs() {
			args = append(args, t.O, t.LSE)
		}
		args = append(args, d.MaxBlocks, d.Hq, d.Scale, d.B, d.Programs, d.chunkArg())
	}
	var pl Launches
	for {
		pl = Plan(&r.d)
		dk, err := Kernel(pl.Decode)
		if err != nil {
			r.Close()
			return nil, err
		}
		if r.decode, err = g.Prepare(dk, pl.DecodeOptions(), pl.DecodeGrid, args...); err != nil {
			r.Close()
			return nil, fmt.Errorf("%s: %w", pl.Decode, err)
		}
		if r.d.clusterSet || r.d.cluster() == 1 || r.clustersFit() {
			break
		}
		r.decode.Close()
		r.decode = nil
		r.d.CL = 1
	}
	ck, err := Kernel(pl.Combine)
	if err != nil {
		r.Close()
		return nil, err
	}
	if r.combine, err = g.Prepare(ck, pl.CombineOptions(), pl.CombineGrid,
		partO, partL, t.O, t.LSE, t.KVLens, d.B, d.Programs, d.chunkArg(), d.Hq, d.Sq, d.G, d.N); err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", pl.Combine, err)
	}
	r.pdl = g.SupportsPDL()
	return r, nil
}

// clustersFit reports whether the prepared decode launch's clusters run
// in as few waves as its programs would without clusters: the driver's
// resident clusters (MaxActiveClusters) against the plan's program slots,
// d.CTAs x SMs. Without the driver's figure (an old driver) it trusts the
// plan, which kept the padded grid within the slots (ChooseCluster).
func (r *Runner) clustersFit() bool {
	n, err := r.decode.MaxActiveClusters()
	if err != nil || n < 1 {
		return true
	}
	sms, err := r.g.SMs()
	if err != nil || sms < 1 {
		return true
	}
	d := &r.d
	clusters := d.gridX() / d.cluster() * d.Hkv
	slots := d.CTAs * sms
	return (clusters+n-1)/n <= (d.Programs*d.Hkv+slots-1)/slots
}

// Cluster is the decode kernel's cluster size the Runner launches (the
// plan's, or smaller when the device holds too few of its clusters).
func (r *Runner) Cluster() int { return r.d.cluster() }

// Launch enqueues one decode step (both kernels); it does not wait. Both
// are programmatic dependent launches (on sm_90 and newer): the combine's
// programs start while the decode grid drains (each decode program lets
// it once its loop is done), plan their partials and wait for the decode
// grid's writes (grid_dependency_wait) before reading them; the decode
// grid's launch overlaps whatever kernel came before it, and its programs
// wait for that kernel before reading anything (the previous step's
// combine reads the workspace they write; a model's kernel writes q and
// the caches).
func (r *Runner) Launch() error {
	if err := r.decode.LaunchWith(tle.LaunchOptions{PDL: r.pdl}); err != nil {
		return err
	}
	return r.combine.LaunchWith(tle.LaunchOptions{PDL: r.pdl})
}

// Capture records one step (both launches, as Launch makes them) as a
// CUDA graph: a serving loop replays it (Graph.Launch) at one driver
// call's CPU cost instead of two launches'. Each replay reads the device
// inputs as they are then (new tokens, new lengths), as Launch does; the
// caller closes the graph before the Runner.
func (r *Runner) Capture() (*tle.Graph, error) {
	o := tle.LaunchOptions{PDL: r.pdl}
	return r.g.Capture(tle.GraphStep{Launch: r.decode, Options: o}, tle.GraphStep{Launch: r.combine, Options: o})
}

// Close frees the workspace and the launches.
func (r *Runner) Close() {
	for _, p := range []*tle.Prepared{r.decode, r.combine} {
		if p != nil {
			p.Close()
		}
	}
	for _, b := range r.ws {
		r.g.Free(b)
	}
	r.decode, r.combine, r.ws = nil, nil, nil
}
