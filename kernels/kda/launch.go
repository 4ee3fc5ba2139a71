package kda

import (
	"strconv"
	"sync"

	"github.com/tlego/tle/tle"
)

// WorkspaceBytes is the size of the workspace per (16-token chunk, head)
// for head size K: 3 C KP + 2 C C bf16 values and KP f32 values (13,824
// bytes at K = 128).
func WorkspaceBytes(k int) int {
	kp := paddedK(k)
	return (3*Chunk*kp+2*Chunk*Chunk)*2 + kp*4
}

// paddedK is the kernels' KP: the power of two >= K, at least 32 (the recurrence
// splits it in two halves of at least 16).
func paddedK(k int) int { return max(32, nextPow2(k)) }

// wsElems is the bf16 workspace elements per (chunk, head).
func wsElems(k int) int { kp := paddedK(k); return 3*Chunk*kp + 2*Chunk*Chunk }

// ChunkTables are the chunk indices of cu_seqlens: Chunks holds (first
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

// MaxBlockV is the largest V block for V: the largest power of two
// dividing V, at most 128 (the recurrence runs one warp per 16 rows of it).
func MaxBlockV(v int) int {
	bv := 16
	for bv < 128 && v%(2*bv) == 0 {
		bv *= 2
	}
	return bv
}

// Launches are the two launches for sizes d: the preparation over
// nchunks chunks, then the recurrence with V block bv. The preparation's grid is one program per
// (chunk, head) item, the most its persistent loop can use: the Runner
// shrinks it to the programs the GPU holds at once (prepPrograms).
func Launches(d *Dims, p Params, bv, nchunks int, hasH0 bool) (prep, rec Launch) {
	b := strconv.FormatBool
	kp := strconv.Itoa(paddedK(d.K))
	kb := p.PrepBlockK
	if kb == 0 {
		kb = DefaultPrepBlockK(d.K)
	}
	nw := p.PrepWarps
	if nw == 0 {
		nw = DefaultPrepWarps
	}
	prep = Launch{
		Defines:  map[string]string{"K": strconv.Itoa(d.K), "KP": kp, "KB": strconv.Itoa(kb), "SPLIT": b(!p.Fast)},
		Grid:     [3]int{max(1, nchunks*d.H), 1, 1},
		NumWarps: nw,
		// its persistent loop would otherwise keep ~150 per-thread
		// addresses live across iterations, in registers that limit the
		// programs an SM holds
		LoopAddresses: true,
	}
	rec = Launch{
		Defines: map[string]string{
			"K": strconv.Itoa(d.K), "KP": kp, "V": strconv.Itoa(d.V), "BV": strconv.Itoa(bv),
			"USE_H0": b(hasH0), "STORE_HT": b(p.FinalState), "STATE_BF16": b(p.StateDType == StateBF16),
			"SPLIT": b(!p.Fast),
		},
		Grid:     [3]int{d.V / bv, d.H, d.N},
		NumWarps: bv / Chunk,
	}
	return prep, rec
}

var loaded struct {
	once      sync.Once
	prep, rec *tle.Kernel
	err       error
}

// Kernels are kda_prep and kda_rec (parsed and checked once per process).
func Kernels() (prep, rec *tle.Kernel, err error) {
	loaded.once.Do(func() {
		prog, err := tle.Load(FS, "kda.tle")
		if err != nil {
			loaded.err = err
			return
		}
		if loaded.prep, err = prog.Kernel("kda_prep"); err != nil {
			loaded.err = err
			return
		}
		loaded.rec, loaded.err = prog.Kernel("kda_rec")
	})
	return loaded.prep, loaded.rec, loaded.err
}

// interpPrepPrograms is the persistent preparation's grid on the
// interpreter.
const interpPrepPrograms = 3

// prepPrograms is the persistent preparation's grid for items (chunk,
// head) items and slots programs the device runs at once: one program a
// slot, never more than the items.
func prepPrograms(items, slots int) int { return max(1, min(items, slots)) }

// DefaultPrepWarps is the warps of the preparation kernel when
// Params.PrepWarps is 0: 2, because more warps only add work here (the
// [16, 16] products of 4 warps duplicate half their work, and each warp
// repeats the per-program address set-up).
const DefaultPrepWarps = 2

// DefaultPrepBlockK is the K block of the preparation kernel for head
// size k (Params.PrepBlockK 0): the whole padded head. Smaller blocks hold
// fewer registers but serialise each block's loads behind the previous
// block's work, and are no faster for it.
func DefaultPrepBlockK(k int) int { return paddedK(k) }

// checkPrepBlockK validates Params.PrepBlockK for head size k.
func checkPrepBlockK(kb, k int) error {
	if kp := paddedK(k); kb != 0 && (kb < 16 || kb > kp || kb&(kb-1) != 0) {
		return argErr("prep_block_k", "want a power of two in [16, %d] (the padded head size), got %d", kp, kb)
	}
	return nil
}

// checkBlockV validates Params.BlockV.
func checkBlockV(bv, v int) error {
	if bv != 0 && (bv < 16 || bv > 128 || bv&(bv-1) != 0 || v%bv != 0) {
		return argErr("block_v", "want a power of two in [16, 128] dividing V = %d, got %d", v, bv)
	}
	return nil
}
