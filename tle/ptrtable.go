package tle

import (
	"fmt"

	"github.com/tlego/tle/internal/hostmem"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/interp"
	"github.com/tlego/tle/runtime/npy"
)

// PointerTable is the argument of an *i64 or *u64 parameter that holds the
// addresses of other tensors, as Triton's grouped GEMM passes its matrices
// (a tensor of data_ptr()s): the kernel loads an entry and converts it back
// to a pointer, load(table + g).to(*f16).
//
// DType is the entries' element dtype ("f16"); each entry is a *Tensor, an
// *Array or a bare slice of that dtype (Elem's table), bound as a pointer
// argument of type *DType would be. The launch hands each entry out (the
// GPU: a device buffer; the interpreter: a buffer whose address it
// accepts back) and passes the table of their addresses in order.
// Writes through an entry's pointer are copied back into every entry
// (the compiler cannot tell which entries a kernel writes); an *Array or
// bare slice is written in place on the interpreter, as elsewhere. Each
// entry is a buffer of its own: data passed both as an entry and as another
// argument is two copies on a GPU (and, for a Tensor, on the interpreter),
// so a kernel must not write through one and read through the other.
//
// Run and RunContext take a PointerTable (BenchKernels and a mesh's runs
// do not); the GPU API's Prepare takes device buffers, where a table is an
// i64 DeviceBuffer holding DeviceBuffer.Ptr values.
type PointerTable struct {
	DType   string
	Entries []any
}

// bindTable binds a PointerTable to pointer parameter p (an *i64 or
// *u64): each entry as a pointer argument of the table's dtype, named
// p[k] in messages.
func bindTable(p hostParam, pt *PointerTable, b *boundArg) error {
	if pt == nil {
		return fmt.Errorf("argument %s (%s) is a nil *tle.PointerTable", p.name, p.typ)
	}
	if p.dt != ir.I64 && p.dt != ir.U64 {
		return fmt.Errorf("argument %s (%s): a PointerTable is an *i64 or *u64 argument (the addresses), not %s", p.name, p.typ, p.typ)
	}
	dt, ok := ir.ParseDType(pt.DType)
	if !ok || dt == ir.I1 {
		return fmt.Errorf("argument %s (%s): PointerTable.DType %q is no element dtype (f16, f32, i32, ...)", p.name, p.typ, pt.DType)
	}
	b.table = make([]*boundArg, len(pt.Entries))
	for k, e := range pt.Entries {
		ep := hostParam{name: fmt.Sprintf("%s[%d]", p.name, k), typ: "*" + dt.String(), kind: pointerParam, dt: dt}
		eb := &boundArg{param: ep, arg: e}
		if t, ok := asTyped(e); ok {
			if err := bindTyped(ep, e, t, eb); err != nil {
				return err
			}
		} else {
			ten, ok := e.(*Tensor)
			if !ok || ten == nil {
				return fmt.Errorf("pointer table entry %s (%s) needs a tensor, got %T (a *tle.Tensor, or a *tle.Array or bare slice of type %s)", ep.name, ep.typ, e, interp.SliceType(dt))
			}
			n, err := numel(ten.Shape)
			if err != nil {
				return fmt.Errorf("pointer table entry %s (%s): %v", ep.name, ep.typ, err)
			}
			if n != len(ten.Data) {
				return fmt.Errorf("pointer table entry %s: shape %v holds %d elements but the data has %d", ep.name, ten.Shape, n, len(ten.Data))
			}
			if err := checkIntElems(ep, ten.Data); err != nil {
				return err
			}
			eb.tensor, eb.n = ten, n
		}
		b.table[k] = eb
	}
	b.n = len(pt.Entries)
	return nil
}

// hasTable reports the first argument given a PointerTable, for the
// entry points that do not take one.
func hasTable(bound []*boundArg) (string, bool) {
	for _, a := range bound {
		if a.table != nil {
			return a.param.name, true
		}
	}
	return "", false
}

// interpTable makes the interpreter's PointerTable of a bound one; each
// entry's buffer is kept in its boundArg (tableBuf) for copyTableBack.
func interpTable(a *boundArg) (*interp.PointerTable, error) {
	t := &interp.PointerTable{Bufs: make([]*interp.Buffer, len(a.table))}
	for k, e := range a.table {
		var err error
		if e.typed != nil { // in place
			if e.buf, err = interp.FromSlice(e.param.dt, e.typed); err != nil {
				return nil, fmt.Errorf("pointer table entry %s (%s): %w", e.param.name, e.param.typ, err)
			}
		} else {
			e.buf = interp.FromFloat64(e.param.dt, e.tensor.Data)
		}
		t.Bufs[k] = e.buf
	}
	return t, nil
}

// copyTableBack copies every entry of a table argument given as a Tensor
// back from its interpreter buffer (an Array or slice was used in place).
func copyTableBack(a *boundArg) {
	for _, e := range a.table {
		if e.tensor != nil && e.buf != nil {
			e.buf.CopyToFloat64(e.tensor.Data, 0)
		}
	}
}

// uploadTable gives each entry of table argument a a device buffer and
// returns the table of their addresses, uploaded, and the entries'
// buffers (zero where none was made), all to be freed after the launch.
func (g *GPU) uploadTable(a *boundArg) (table DevicePtr, entries []DevicePtr, err error) {
	entries = make([]DevicePtr, len(a.table))
	addrs := make([]int64, max(len(a.table), 2))
	for k, e := range a.table {
		var raw []byte
		if e.typed != nil {
			raw = hostmem.SliceBytes(e.typed)
		} else if raw, err = npy.Encode(e.param.dt, e.tensor.Data); err != nil {
			return 0, entries, fmt.Errorf("pointer table entry %s: %w", e.param.name, err)
		}
		p, err := g.ctx.Alloc(max(len(raw), 16))
		if err != nil {
			return 0, entries, fmt.Errorf("pointer table entry %s: %w", e.param.name, err)
		}
		entries[k] = p
		if err := g.ctx.CopyHtoD(p, raw); err != nil {
			return 0, entries, err
		}
		addrs[k] = int64(p)
	}
	raw := hostmem.SliceBytes(addrs)
	table, err = g.ctx.Alloc(len(raw))
	if err != nil {
		return 0, entries, fmt.Errorf("argument %s: %w", a.param.name, err)
	}
	return table, entries, g.ctx.CopyHtoD(table, raw)
}

// downloadTable copies every entry of a table argument back from its
// device buffer.
func (g *GPU) downloadTable(a *boundArg, entries []DevicePtr) error {
	for k, e := range a.table {
		if e.typed != nil {
			if err := g.ctx.CopyDtoH(hostmem.SliceBytes(e.typed), entries[k]); err != nil {
				return err
			}
			continue
		}
		raw := make([]byte, len(e.tensor.Data)*e.param.dt.Bytes())
		if err := g.ctx.CopyDtoH(raw, entries[k]); err != nil {
			return err
		}
		vals, err := npy.Decode(e.param.dt, raw)
		if err != nil {
			return err
		}
		copy(e.tensor.Data, vals)
	}
	return nil
}
