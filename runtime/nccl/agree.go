package nccl

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"
)

// LaunchRecord is what every rank of a mesh must agree on before it
// launches: the kernel (its name and the hash of its binary), the grid,
// the block and shared memory, and the buffers' sizes in parameter order.
type LaunchRecord struct {
	Kernel  string
	Binary  [16]byte // a hash of what runs (the PTX)
	Grid    [3]int
	Block   int
	Smem    int
	Buffers []BufferRecord
}

// BufferRecord is one pointer argument: its parameter, its size, and its
// heap offset (-1 outside the heap).
type BufferRecord struct {
	Name   string
	Bytes  int
	Offset int
}

const (
	recordBytes   = 512
	recordName    = 64
	recordBuffers = 20 // buffers compared one by one; the rest through the hash
)

func (r LaunchRecord) encode() []byte {
	b := make([]byte, recordBytes)
	copy(b[:recordName], r.Kernel)
	copy(b[64:80], r.Binary[:])
	le := binary.LittleEndian
	for i, v := range []int{r.Grid[0], r.Grid[1], r.Grid[2], r.Block, r.Smem, len(r.Buffers)} {
		le.PutUint64(b[80+8*i:], uint64(v))
	}
	h := sha256.New()
	for _, x := range r.Buffers {
		fmt.Fprintf(h, "%d:%d;", x.Bytes, x.Offset)
	}
	copy(b[128:144], h.Sum(nil))
	for i, x := range r.Buffers {
		if i == recordBuffers {
			break
		}
		le.PutUint64(b[144+16*i:], uint64(x.Bytes))
		le.PutUint64(b[152+16*i:], uint64(x.Offset))
	}
	return b
}

type decodedRecord struct {
	kernel     string
	bin        [16]byte
	grid       [3]int
	block      int
	smem, nbuf int
	bufHash    [16]byte
	bufs       [][2]int
}

func decodeRecord(b []byte) decodedRecord {
	le := binary.LittleEndian
	u := func(o int) int { return int(int64(le.Uint64(b[o:]))) }
	d := decodedRecord{kernel: strings.TrimRight(string(b[:recordName]), "\x00")}
	copy(d.bin[:], b[64:80])
	d.grid = [3]int{u(80), u(88), u(96)}
	d.block, d.smem, d.nbuf = u(104), u(112), u(120)
	copy(d.bufHash[:], b[128:144])
	for i := 0; i < min(d.nbuf, recordBuffers); i++ {
		d.bufs = append(d.bufs, [2]int{u(144 + 16*i), u(152 + 16*i)})
	}
	return d
}

// AgreeLaunch all-gathers rec and compares every rank's with rank 0's:
// a rank that would launch another kernel, grid or buffer size is an
// error (the same on every rank) naming it and what differs. It waits for
// every rank, as a collective does.
func (c *Comm) AgreeLaunch(rec LaunchRecord) error {
	raw, err := c.AllGatherBytes(rec.encode())
	if err != nil {
		return fmt.Errorf("checking that the ranks launch the same: %w", err)
	}
	return compareRecords(raw, rec.Buffers)
}

func compareRecords(raw [][]byte, names []BufferRecord) error {
	z := decodeRecord(raw[0])
	for r := 1; r < len(raw); r++ {
		d := decodeRecord(raw[r])
		bad := func(format string, args ...any) error {
			return fmt.Errorf("nccl: the ranks disagree on the launch of %s: "+format, append([]any{z.kernel}, args...)...)
		}
		switch {
		case d.kernel != z.kernel:
			return fmt.Errorf("nccl: the ranks disagree on the launch: rank 0 launches %s, rank %d %s", z.kernel, r, d.kernel)
		case d.bin != z.bin:
			return bad("rank %d runs another build of it than rank 0 (different options or compiler)", r)
		case d.grid != z.grid:
			return bad("rank 0's grid is %v, rank %d's %v", z.grid, r, d.grid)
		case d.block != z.block || d.smem != z.smem:
			return bad("rank 0 launches %d threads and %d bytes of shared memory, rank %d %d and %d", z.block, z.smem, r, d.block, d.smem)
		case d.nbuf != z.nbuf:
			return bad("rank 0 passes %d buffers, rank %d %d", z.nbuf, r, d.nbuf)
		}
		for i := range d.bufs {
			if d.bufs[i] != z.bufs[i] {
				name := fmt.Sprintf("buffer %d", i)
				if i < len(names) && names[i].Name != "" {
					name = names[i].Name
				}
				return bad("%s has %d bytes at heap offset %d on rank 0, %d bytes at offset %d on rank %d",
					name, z.bufs[i][0], z.bufs[i][1], d.bufs[i][0], d.bufs[i][1], r)
			}
		}
		if d.bufHash != z.bufHash {
			return bad("a buffer after the first %d differs in size or heap offset between rank 0 and rank %d", recordBuffers, r)
		}
	}
	return nil
}
