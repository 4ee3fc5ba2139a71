package registry

import (
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/tle"
)

// inputBlock is how many values a benchmark input draws: larger buffers
// repeat the block, since a timed kernel needs values (never zeros), not
// distinct ones, and drawing gigabytes would take longer than the run.
const inputBlock = 1 << 20

// RandomBuffer allocates n elements of dt on g and fills them from fill
// (one block of inputBlock draws, repeated). On a dry GPU it only
// allocates: nothing is uploaded, so nothing is drawn, and a dry run lists
// its builds without generating gigabytes of inputs.
func RandomBuffer(g *tle.GPU, dt ir.DType, n int, fill func() float64) (*tle.DeviceBuffer, error) {
	b, err := g.Alloc(dt, n)
	if err != nil {
		return nil, err
	}
	if err := FillRandom(g, b, fill); err != nil {
		g.Free(b)
		return nil, err
	}
	return b, nil
}

// FillRandom fills b as RandomBuffer does: the block is drawn and uploaded
// once, then copied on the device across the rest of b.
func FillRandom(g *tle.GPU, b *tle.DeviceBuffer, fill func() float64) error {
	if g.Dry() {
		return nil
	}
	host := make([]float64, min(b.N, inputBlock))
	for i := range host {
		host[i] = b.DType.Round(fill())
	}
	src, err := g.Upload(b.DType, host)
	if err != nil {
		return err
	}
	defer g.Free(src)
	size := b.DType.Bytes()
	for off := 0; off < b.N; off += len(host) {
		cnt := min(len(host), b.N-off)
		dst := &tle.DeviceBuffer{Ptr: b.Ptr + cuda.DevicePtr(off*size), DType: b.DType, N: cnt}
		if err := g.CopyDtoD(dst, src, cnt*size); err != nil {
			return err
		}
	}
	return nil
}
