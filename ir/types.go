package ir

import (
	"fmt"
	"strings"
)

// Type is the type of an IR value. Scalars are DTypes; the other types are
// pointers to the structs below.
type Type interface {
	String() string
	isType()
}

func (DType) isType() {}

// AddrSpace is where a pointer points.
type AddrSpace int

const (
	Global  AddrSpace = 1 // device memory
	Shared  AddrSpace = 3 // this CTA's shared memory
	Cluster AddrSpace = 7 // a peer CTA's shared memory (distributed shared memory)
)

// Pointer is a pointer to elements of Elem.
type Pointer struct {
	Elem  DType
	Space AddrSpace
}

// Tile is a dense N-d block of scalars or pointers held by a program instance.
// Layout is nil until the layout passes give it one.
type Tile struct {
	Shape  []int
	Elem   Type // a DType or a *Pointer
	Layout Layout
}

// MemDesc describes a shared-memory buffer or a view of one (a slot, a
// transposed view, a pipe slot field, a peer's buffer). Order lists the
// dimensions from the fastest-varying to the slowest in memory: a fresh
// buffer is row-major ([rank-1, ..., 0]); a transposed view permutes it.
type MemDesc struct {
	Shape  []int
	Elem   DType
	Order  []int
	Space  AddrSpace // Shared, or Cluster for a remote view
	Layout Layout    // the shared layout (swizzle) chosen by the passes; nil before
}

// Barrier is an mbarrier in shared memory, or with Slots > 0 an array of
// Slots mbarriers (one per pipeline stage) indexed by barrier_index.
type Barrier struct{ Slots int }

// PipeField is one named buffer of a pipe slot.
type PipeField struct {
	Name  string
	Shape []int
	Elem  DType
}

// Pipe is a ring of Capacity slots, each holding every field, with a full and
// an empty mbarrier per slot.
type Pipe struct {
	Capacity int
	Fields   []PipeField
}

// Slot is the handle acquire (Writer) or wait (reader) returns.
type Slot struct {
	Pipe   *Pipe
	Writer bool
}

// Mesh is a CTA cluster; Dims are the cluster's x, y and z extents.
// Devices is the device axis of a mesh across devices (device_mesh(device:
// n)): 0 for a mesh of the cluster alone, else the number of devices.
type Mesh struct {
	Dims    [3]int
	Devices int
}

// Desc is a TMA tensor descriptor of rank len(Block) with its block shape.
type Desc struct {
	Elem  DType
	Block []int
}

// Layout is a distribution of a tile over threads, or of a buffer over shared
// memory. The backend's layout passes define the concrete kinds.
type Layout interface {
	String() string
}

func (*Pointer) isType() {}
func (*Tile) isType()    {}
func (*MemDesc) isType() {}
func (*Barrier) isType() {}
func (*Pipe) isType()    {}
func (*Slot) isType()    {}
func (*Mesh) isType()    {}
func (*Desc) isType()    {}

func (p *Pointer) String() string {
	switch p.Space {
	case Shared:
		return "!ptr<smem," + p.Elem.String() + ">"
	case Cluster:
		return "!ptr<cluster," + p.Elem.String() + ">"
	case 0, Global:
		return "*" + p.Elem.String()
	}
	return fmt.Sprintf("!ptr<as%d,%s>", int(p.Space), p.Elem)
}

func shapeString(s []int) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return strings.Join(parts, ",")
}

func (t *Tile) String() string {
	s := "[" + shapeString(t.Shape) + "]" + t.Elem.String()
	if t.Layout != nil {
		s += "#" + t.Layout.String()
	}
	return s
}

func (m *MemDesc) String() string {
	var b strings.Builder
	b.WriteString("!smem<[" + shapeString(m.Shape) + "]" + m.Elem.String())
	if !isRowMajor(m.Order) {
		b.WriteString(", order=[" + shapeString(m.Order) + "]")
	}
	if m.Space == Cluster {
		b.WriteString(", cluster")
	}
	if m.Layout != nil {
		b.WriteString(", #" + m.Layout.String())
	}
	b.WriteString(">")
	return b.String()
}

func (b *Barrier) String() string {
	if b.Slots > 0 {
		return fmt.Sprintf("!barrier<%d>", b.Slots)
	}
	return "!barrier"
}

func (p *Pipe) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "!pipe<%d", p.Capacity)
	for _, f := range p.Fields {
		fmt.Fprintf(&b, ", %s: [%s]%s", f.Name, shapeString(f.Shape), f.Elem)
	}
	b.WriteString(">")
	return b.String()
}

func (s *Slot) String() string {
	kind := "read"
	if s.Writer {
		kind = "write"
	}
	return "!slot<" + kind + ", " + s.Pipe.String() + ">"
}

func (m *Mesh) String() string {
	if m.Devices > 0 {
		return fmt.Sprintf("!mesh<%d,%d,%d,%d>", m.Dims[0], m.Dims[1], m.Dims[2], m.Devices)
	}
	return fmt.Sprintf("!mesh<%d,%d,%d>", m.Dims[0], m.Dims[1], m.Dims[2])
}

func (d *Desc) String() string {
	return "!desc<" + d.Elem.String() + ",[" + shapeString(d.Block) + "]>"
}

// RowMajor returns the order of a row-major buffer of the given rank.
func RowMajor(rank int) []int {
	o := make([]int, rank)
	for i := range o {
		o[i] = rank - 1 - i
	}
	return o
}

func isRowMajor(order []int) bool {
	for i, d := range order {
		if d != len(order)-1-i {
			return false
		}
	}
	return true
}

// Elem returns the element type of a tile, or t itself for a scalar or a
// pointer.
func Elem(t Type) Type {
	if tt, ok := t.(*Tile); ok {
		return tt.Elem
	}
	return t
}

// ElemDType returns the dtype of a scalar, tile of scalars, memdesc or
// pointer (its pointee), or Invalid.
func ElemDType(t Type) DType {
	switch t := t.(type) {
	case DType:
		return t
	case *Tile:
		return ElemDType(t.Elem)
	case *Pointer:
		return t.Elem
	case *MemDesc:
		return t.Elem
	case *Desc:
		return t.Elem
	}
	return Invalid
}

// ShapeOf returns a tile's or memdesc's shape, or nil for a scalar.
func ShapeOf(t Type) []int {
	switch t := t.(type) {
	case *Tile:
		return t.Shape
	case *MemDesc:
		return t.Shape
	}
	return nil
}

// NumElements is the product of a shape.
func NumElements(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// TileOf builds a tile type; it returns elem itself for an empty shape.
func TileOf(shape []int, elem Type) Type {
	if len(shape) == 0 {
		return elem
	}
	return &Tile{Shape: append([]int(nil), shape...), Elem: elem}
}

// WithElem returns a type of t's shape with element type elem.
func WithElem(t Type, elem Type) Type {
	if tt, ok := t.(*Tile); ok {
		return &Tile{Shape: tt.Shape, Elem: elem, Layout: tt.Layout}
	}
	return elem
}

// Equal reports whether two types are the same (layouts included).
func Equal(a, b Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
}

// EqualIgnoringLayout reports whether two types are the same up to layouts.
func EqualIgnoringLayout(a, b Type) bool {
	return StripLayout(a).String() == StripLayout(b).String()
}

// StripLayout returns t without its layout.
func StripLayout(t Type) Type {
	switch t := t.(type) {
	case *Tile:
		return &Tile{Shape: t.Shape, Elem: t.Elem}
	case *MemDesc:
		c := *t
		c.Layout = nil
		return &c
	}
	return t
}

// SmemBytes returns the shared-memory bytes a buffer type occupies (pipes
// include their two mbarriers per slot).
func SmemBytes(t Type) int {
	switch t := t.(type) {
	case *MemDesc:
		return NumElements(t.Shape) * t.Elem.Bytes()
	case *Barrier:
		return 8 * max(t.Slots, 1)
	case *Pipe:
		n := 0
		for _, f := range t.Fields {
			n += NumElements(f.Shape) * f.Elem.Bytes()
		}
		return n*t.Capacity + 16*t.Capacity
	}
	return 0
}

// BlockViewDims is the rule by which a shared-memory view serves a TMA
// block (copy through a desc[T, block...]): the view's shape is the
// block's with some of its dimensions of extent 1 left out (none: the
// same shape; all: a desc[bf16, 1, 1, 64, 128] block lands in a [64, 128]
// view). Leaving out unit dimensions keeps the row-major order of the
// elements, so the copy moves the same bytes either way. It returns, for
// each view dimension, the block dimension it is, or ok false when the
// view does not serve the block. Matching is greedy from the outermost
// dimension, which is exact: a skipped dimension has extent 1, so matching
// it instead changes nothing.
func BlockViewDims(block, view []int) (dims []int, ok bool) {
	j := 0
	for k, b := range block {
		switch {
		case j < len(view) && view[j] == b:
			dims = append(dims, k)
			j++
		case b != 1:
			return nil, false
		}
	}
	if j != len(view) {
		return nil, false
	}
	return dims, true
}
