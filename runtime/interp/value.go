package interp

import (
	"sync"
	"sync/atomic"
)

// val is the runtime value of one SSA value. Scalars and tiles are dense
// row-major arrays: f for float dtypes, i for integers, i1 and pointers (a
// scalar is an array of one element). Everything else (memdesc views,
// barriers, pipes, slots, meshes, descriptors) is a ref.
type val struct {
	f     []float64
	i     []int64
	ref   any
	facts facts
}

// facts are what an op that made a value knows of its elements, so that a
// later op need not scan them: only the op that fills a fresh array sets
// them (a copied or recycled array has none), and each is a promise about
// the elements as stored.
type facts uint8

const (
	// factSeq: i[k] == i[0] + k for every k (int64 arithmetic, wrapping):
	// arange, and addptr or add of such a tile and a uniform one. A
	// pointer tile with it addresses consecutive elements.
	factSeq facts = 1 << iota
	// factUni: every element equals the first (splat).
	factUni
	// factOn: every element is non-zero (a mask all on).
	factOn
	// factLazy (with factSeq): a pointer tile of a lazy addptr held as its
	// first element only, element k being i[0] + k; only loads and stores
	// read it (access.pointers), never through bcastI.
	factLazy
)

// uniform reports whether every element of v equals its first.
func (v val) uniform() bool { return v.facts&factUni != 0 || len(v.i)+len(v.f) == 1 }

// pool recycles the arrays of dead values. Each goroutine (a CTA's main
// thread or a role) owns one, so no locking is needed.
type pool struct {
	f map[int][][]float64
	i map[int][][]int64
	// scratch for splatted operands, dot rows and tf32-rounded dot
	// operands (4, 5)
	scrF [6][]float64
	scrI [3][]int64
}

const poolDepth = 32

func newPool() *pool { return &pool{f: map[int][][]float64{}, i: map[int][][]int64{}} }

func (p *pool) getF(n int) []float64 { return take(p.f, n) }

func (p *pool) getI(n int) []int64 { return take(p.i, n) }

func (p *pool) put(v val) {
	if v.f != nil {
		give(p.f, v.f)
	}
	if v.i != nil {
		give(p.i, v.i)
	}
}

// take is an array of n elements from the free lists, else a new one.
func take[T float64 | int64](free map[int][][]T, n int) []T {
	if l := free[n]; len(l) > 0 {
		s := l[len(l)-1]
		free[n] = l[:len(l)-1]
		return s
	}
	return make([]T, n)
}

// give returns s to the free lists, unless poolDepth arrays of its length
// are there.
func give[T float64 | int64](free map[int][][]T, s []T) {
	if l := free[len(s)]; len(l) < poolDepth {
		free[len(s)] = append(l, s)
	}
}

var rolePools = sync.Pool{New: func() any { return newPool() }}

// ---- pointers

// A pointer is packed into an int64: a region id in the high bits and a
// signed element offset (|offset| < 2^39) in the low bits, so that addptr is
// one integer addition. Id 0 is the null region.
const offBits = 40

func pack(id int, off int64) int64 { return int64(id)<<offBits + off }

func unpack(p int64) (int, int64) {
	id := (p + 1<<(offBits-1)) >> offBits
	return int(id), p - id<<offBits
}

// region is what a pointer may address: elements [lo, hi) of a buffer,
// optionally guarded by a pipe slot's protocol state.
type region struct {
	buf    *Buffer
	lo, hi int
	name   string
	guard  *guard
	shared bool
	sym    *Symmetric // the symmetric allocation the buffer is rank dev's part of
	dev    int        // the device whose argument it is
}

// registry maps region ids to regions. Lookups are lock-free; registration
// (global buffers at launch, shared-memory views at local_ptr) takes a lock.
type registry struct {
	mu     sync.Mutex
	chunks [1 << 12]atomic.Pointer[[1 << 12]atomic.Pointer[region]]
	next   int
	free   []int
}

const maxRegions = 1 << 24

func newRegistry() *registry { return &registry{next: 1} }

func (r *registry) add(rg *region) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var id int
	if n := len(r.free); n > 0 {
		id = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		if r.next >= maxRegions {
			return 0, false
		}
		id = r.next
		r.next++
	}
	c := r.chunks[id>>12].Load()
	if c == nil {
		c = new([1 << 12]atomic.Pointer[region])
		r.chunks[id>>12].Store(c)
	}
	c[id&(1<<12-1)].Store(rg)
	return id, true
}

func (r *registry) remove(ids []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		r.chunks[id>>12].Load()[id&(1<<12-1)].Store(nil)
		r.free = append(r.free, id)
	}
}

func (r *registry) get(id int) *region {
	if id <= 0 || id >= maxRegions {
		return nil
	}
	c := r.chunks[id>>12].Load()
	if c == nil {
		return nil
	}
	return c[id&(1<<12-1)].Load()
}
