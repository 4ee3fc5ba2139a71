package kda

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/tlego/tle/tle"
)

// VariantV3 is the two-kernel forward pass of kda_v3.tle: kda_prep builds
// each chunk's state-independent operands for all chunks at once, kda_rec
// runs the recurrence with the transposed state in registers.
const VariantV3 = "v3"

// WorkspaceBytes is the size of v3's workspace per (16-token chunk, head)
// for head size K: 3 C KP + 2 C C bf16 values and KP f32 values (13,824
// bytes at K = 128).
func WorkspaceBytes(k int) int {
	kp := paddedK(k)
	return (3*Chunk*kp+2*Chunk*Chunk)*2 + kp*4
}

// paddedK is v3's KP: the power of two >= K, at least 32 (the recurrence
// splits it in two halves of at least 16).
func paddedK(k int) int { return max(32, nextPow2(k)) }

// wsElems is the bf16 workspace elements per (chunk, head).
func wsElems(k int) int { kp := paddedK(k); return 3*Chunk*kp + 2*Chunk*Chunk }

// ChunkTables are v3's chunk indices of cu_seqlens: Chunks holds (first
// token, end of its sequence) per 16-token chunk, sequence by sequence;
// Off[n] is the index of sequence n's first chunk (Off[N] the chunk count).
type ChunkTables struct {
	Chunks []int32
	Off    []int32
}

// NumChunks is the number of chunks.
func (c *ChunkTables) NumChunks() int { return len(c.Chunks) / 2 }

// MakeChunkTables indexes the chunks of the sequences cu (validated).
func MakeChunkTables(cu []int64) *ChunkTables {
	t := &ChunkTables{Off: make([]int32, len(cu))}
	for n := 0; n+1 < len(cu); n++ {
		t.Off[n] = int32(len(t.Chunks) / 2)
		for s := cu[n]; s < cu[n+1]; s += Chunk {
			t.Chunks = append(t.Chunks, int32(s), int32(cu[n+1]))
		}
	}
	t.Off[len(cu)-1] = int32(len(t.Chunks) / 2)
	return t
}

// BlockVV3 is v3's V block: the largest power of two dividing V, at most
// 128 (the recurrence runs one warp per 16 rows of it).
func BlockVV3(v int) int {
	bv := 16
	for bv < 128 && v%(2*bv) == 0 {
		bv *= 2
	}
	return bv
}

// LaunchesV3 are v3's two launches for sizes d: the preparation over
// nchunks chunks, then the recurrence with V block bv; both built with the
// PDL builtins when p.PDL. The preparation's grid is one program per
// (chunk, head) item, the most its persistent loop can use: the Runner
// shrinks it to the programs the GPU holds at once (prepPrograms).
func LaunchesV3(d *Dims, p Params, bv, nchunks int, hasH0 bool) (prep, rec Launch) {
	b := strconv.FormatBool
	kp := strconv.Itoa(paddedK(d.K))
	kb := p.PrepBlockK
	if kb == 0 {
		kb = DefaultPrepBlockK(d.K)
	}
	nw := p.NumWarps
	if nw == 0 {
		nw = DefaultPrepWarps
	}
	prep = Launch{
		Defines: map[string]string{"K": strconv.Itoa(d.K), "KP": kp, "KB": strconv.Itoa(kb), "SPLIT": b(!p.Fast),
			"PDL": b(p.PDL)},
		Grid:     [3]int{max(1, nchunks*d.H), 1, 1},
		NumWarps: nw,
		// its persistent loop would keep ~150 per-thread addresses live
		// (255 registers, 4 programs an SM)
		LoopAddresses: true,
	}
	rec = Launch{
		Defines: map[string]string{
			"K": strconv.Itoa(d.K), "KP": kp, "V": strconv.Itoa(d.V), "BV": strconv.Itoa(bv),
			"USE_H0": b(hasH0), "STORE_HT": b(p.FinalState), "STATE_BF16": b(p.StateDType == StateBF16),
			"SPLIT": b(!p.Fast), "PDL": b(p.PDL),
		},
		Grid:     [3]int{d.V / bv, d.H, d.N},
		NumWarps: bv / Chunk,
	}
	return prep, rec
}

var v3Kernels struct {
	once      sync.Once
	prep, rec *tle.Kernel
	err       error
}

// KernelsV3 are kda_prep and kda_rec (parsed and checked once per process).
func KernelsV3() (prep, rec *tle.Kernel, err error) {
	v3Kernels.once.Do(func() {
		prog, err := tle.Load(FS, "kda_v3.tle")
		if err != nil {
			v3Kernels.err = err
			return
		}
		if v3Kernels.prep, err = prog.Kernel("kda_prep"); err != nil {
			v3Kernels.err = err
			return
		}
		v3Kernels.rec, v3Kernels.err = prog.Kernel("kda_rec")
	})
	return v3Kernels.prep, v3Kernels.rec, v3Kernels.err
}

// interpPrepPrograms is the persistent preparation's grid on the
// interpreter.
const interpPrepPrograms = 3

// prepPrograms is the persistent preparation's grid for items (chunk,
// head) items and slots programs the device runs at once: one program a
// slot, never more than the items.
func prepPrograms(items, slots int) int { return max(1, min(items, slots)) }

// DefaultPrepWarps is the warps of v3's preparation kernel when
// Params.NumWarps is 0: 2 warps measured faster on the H200 than 4 or 8
// (docs/perf-log.md, "kda_prep: fewer instructions"): the [16, 16]
// products of 4 warps duplicate half their work, and each warp repeats the
// per-program address set-up.
const DefaultPrepWarps = 2

// DefaultPrepBlockK is the K block of v3's preparation kernel for head
// size k (Params.PrepBlockK 0): the whole padded head. Smaller blocks cut
// the registers but serialise each block's loads behind the previous
// block's work, and were no faster on the H200 (docs/perf-log.md).
func DefaultPrepBlockK(k int) int { return paddedK(k) }

// checkPrepBlockK validates Params.PrepBlockK for head size k.
func checkPrepBlockK(kb, k int) error {
	if kp := paddedK(k); kb != 0 && (kb < 16 || kb > kp || kb&(kb-1) != 0) {
		return argErr("prep_block_k", "v3 wants a power of two in [16, %d] (the padded head size), got %d", kp, kb)
	}
	return nil
}

// checkBlockVV3 validates Params.BlockV for v3.
func checkBlockVV3(bv, v int) error {
	if bv != 0 && (bv < 16 || bv > 128 || bv&(bv-1) != 0 || v%bv != 0) {
		return argErr("block_v", "v3 wants a power of two in [16, 128] dividing V = %d, got %d", v, bv)
	}
	return nil
}

// forwardV3 runs both kernels of v3 on dev: on a GPU through the device's
// Runner (device buffers kept between calls), on the interpreter through
// tensors, one launch after the other (kda_prep has completed when kda_rec
// starts, so the PDL builtins have nothing to wait for).
func forwardV3(dev tle.Device, in *Inputs, d *Dims, p Params) (*Outputs, error) {
	prepK, recK, err := KernelsV3()
	if err != nil {
		return nil, err
	}
	if g, ok := dev.(*tle.GPU); ok {
		return runnerFor(g).forward(in, d, p)
	}
	bv := p.BlockV
	if bv == 0 {
		bv = DefaultBlockVV3(d)
	}
	ct := MakeChunkTables(d.CuSeqlens)
	nc := ct.NumChunks()
	prep, rec := LaunchesV3(d, p, bv, nc, in.H0 != nil)
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
