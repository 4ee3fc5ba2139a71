package check

import (
	"math"
	"strings"

	"github.com/tlego/tle/ir"
)

// Type is the type of a .tle value. String prints it the way the language
// writes it where the language has a spelling ([16,128]bf16, *f32,
// desc[bf16,64,64]) and as a short description otherwise (memdesc[..]T,
// barrier, mesh(...)).
type Type interface {
	String() string
	isType()
}

// DType is a scalar element type, or one of the untyped constant kinds. Its
// values are ir's ir.DType values (convert with ir.DType(d)), and every
// fact about a dtype (name, width, kind) comes from there; it is a type of
// its own only to be a Type and to hold the two untyped kinds, at the top of
// the range, where ir has no dtype. Invalid prints "invalid type".
type DType ir.DType

// The scalar dtypes. Invalid is the type of an erroneous expression: every
// check accepts it silently, so one mistake gives one error.
const (
	Invalid = DType(ir.Invalid)
	I1      = DType(ir.I1)
	I8      = DType(ir.I8)
	I16     = DType(ir.I16)
	I32     = DType(ir.I32)
	I64     = DType(ir.I64)
	U8      = DType(ir.U8)
	U16     = DType(ir.U16)
	U32     = DType(ir.U32)
	U64     = DType(ir.U64)
	F16     = DType(ir.F16)
	BF16    = DType(ir.BF16)
	F32     = DType(ir.F32)
	F64     = DType(ir.F64)
	F8E4M3  = DType(ir.F8E4M3)
	F8E5M2  = DType(ir.F8E5M2)

	UntypedInt   DType = math.MaxUint8 - 1 // an integer constant that has not yet taken a type
	UntypedFloat DType = math.MaxUint8     // a float constant that has not yet taken a type
)

// DTypes lists the dtypes the language spells, in declaration order
// (ir.AllDTypes).
var DTypes = func() []DType {
	ds := make([]DType, len(ir.AllDTypes))
	for i, d := range ir.AllDTypes {
		ds[i] = DType(d)
	}
	return ds
}()

// DTypeByName maps a spelling (f32) to its dtype.
func DTypeByName(name string) (DType, bool) {
	d, ok := ir.ParseDType(name)
	return DType(d), ok
}

func (d DType) String() string {
	switch {
	case d == UntypedInt:
		return "untyped int"
	case d == UntypedFloat:
		return "untyped float"
	case ir.DType(d).Bits() == 0:
		return "invalid type"
	}
	return ir.DType(d).String()
}
func (DType) isType() {}

// IsInteger reports i1..u64 and untyped int.
func (d DType) IsInteger() bool { return ir.DType(d).IsInt() || d == UntypedInt }

// IsUnsigned reports u8..u64 (not i1, which ir counts as unsigned).
func (d DType) IsUnsigned() bool { return ir.DType(d).IsUnsigned() && d != I1 }

// IsFloat reports f16..f8e5m2 and untyped float.
func (d DType) IsFloat() bool { return ir.DType(d).IsFloat() || d == UntypedFloat }

// IsFP8 reports the 8-bit float formats.
func (d DType) IsFP8() bool { return d == F8E4M3 || d == F8E5M2 }

// IsUntyped reports the untyped constant kinds.
func (d DType) IsUntyped() bool { return d == UntypedInt || d == UntypedFloat }

// Bits is the width in bits (1 for i1); 0 for untyped and invalid.
func (d DType) Bits() int { return ir.DType(d).Bits() }

// Size is the storage size in bytes (i1 takes a byte).
func (d DType) Size() int64 { return int64(ir.DType(d).Bytes()) }

// Default is the type an untyped constant takes when nothing else decides:
// i32 for ints (i64 when the value does not fit), f32 for floats.
func (d DType) Default() DType {
	switch d {
	case UntypedInt:
		return I32
	case UntypedFloat:
		return F32
	}
	return d
}

// Space is the address space a pointer points into.
type Space int

const (
	Global Space = iota // device global memory
	Shared              // this CTA's shared memory (local_ptr)
	Remote              // another CTA's shared memory in the cluster (local_ptr of a remote view)
)

// Pointer is *T. Pointers into shared memory come only from local_ptr and
// print as *shared T (or *remote T); the language has no spelling for them.
type Pointer struct {
	Elem  DType
	Space Space
	// ReadOnly marks pointers into a pipe reader slot: storing through them is
	// an error.
	ReadOnly bool
}

func (p *Pointer) String() string {
	switch p.Space {
	case Shared:
		return "*shared " + p.Elem.String()
	case Remote:
		return "*remote " + p.Elem.String()
	}
	return "*" + p.Elem.String()
}
func (*Pointer) isType() {}

// Tile is [D0, D1, ...]E, E a DType or a *Pointer (a tile of pointers).
type Tile struct {
	Shape Shape
	Elem  Type
}

func (t *Tile) String() string { return t.Shape.String() + t.Elem.String() }
func (*Tile) isType()          {}

// Desc is a TMA tensor descriptor desc[T, B0, B1, ...] (B = block shape).
type Desc struct {
	Elem  DType
	Block Shape
}

func (d *Desc) String() string {
	parts := []string{d.Elem.String()}
	for _, b := range d.Block {
		parts = append(parts, b.String())
	}
	return "desc[" + strings.Join(parts, ",") + "]"
}
func (*Desc) isType() {}

// MemDesc is a view of a shared-memory buffer: an alloc, a slot of one, a
// transposed/permuted view, a pipe slot's field, or a remote CTA's buffer.
type MemDesc struct {
	Shape Shape
	Elem  DType
	// Perm is the permutation from the view's dims to the underlying buffer's
	// (nil for the identity); .T and permute set it.
	Perm []int
	// Remote marks a view of another CTA's buffer (remote(buf, rank, mesh)).
	Remote bool
	// ReadOnly marks a pipe reader slot's field.
	ReadOnly bool
	// FromSlot marks a view of a pipe slot's field (or a view of one): its
	// life ends at the slot's commit or release, so a helper cannot return
	// it.
	FromSlot bool
	// AnyShape marks the declared type `memdesc T` (a parameter or result
	// of a helper): a view of any shape of T.
	AnyShape bool
}

func (m *MemDesc) String() string {
	s := "memdesc" + m.Shape.String() + m.Elem.String()
	if m.AnyShape {
		s = "memdesc " + m.Elem.String()
	}
	if m.Remote {
		s = "remote " + s
	}
	return s
}
func (*MemDesc) isType() {}

// Field is one named buffer of a pipe slot.
type Field struct {
	Name string
	Type *Tile
}

// Pipe is a ring of Capacity shared-memory slots with full/empty barriers.
type Pipe struct {
	Capacity Dim
	Fields   []Field
	// Any marks the declared type `pipe` of a helper parameter: any pipe.
	Any bool
}

func (p *Pipe) String() string {
	if p.Any {
		return "pipe"
	}
	parts := []string{"capacity: " + p.Capacity.String()}
	for _, f := range p.Fields {
		parts = append(parts, f.Name+": "+f.Type.String())
	}
	return "pipe(" + strings.Join(parts, ", ") + ")"
}
func (*Pipe) isType() {}

// Field looks a field up by name.
func (p *Pipe) Field(name string) (Field, bool) {
	for _, f := range p.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return Field{}, false
}

// Slot is one slot of a pipe: a writer (from acquire) or a reader (from wait).
type Slot struct {
	Pipe   *Pipe
	Writer bool
}

func (s *Slot) String() string {
	side := "reader"
	if s.Writer {
		side = "writer"
	}
	if s.Pipe == nil || s.Pipe.Any { // the declared type of a helper parameter
		return side + " slot"
	}
	var parts []string
	for _, f := range s.Pipe.Fields {
		parts = append(parts, f.Name+": "+f.Type.String())
	}
	return side + " slot(" + strings.Join(parts, ", ") + ")"
}
func (*Slot) isType() {}

// Barrier is an mbarrier, or with Slots set an array of that many mbarriers
// (barrier(count: c, slots: n)), indexed with .slot(i).
type Barrier struct {
	Slots *Dim // nil for a single barrier
}

func (b *Barrier) String() string {
	if b.Slots != nil {
		return "barrier[" + b.Slots.String() + "]"
	}
	return "barrier"
}
func (*Barrier) isType() {}

// Mesh is a CTA cluster seen as a mesh (device_mesh), and with HasDevice
// a mesh across Device devices too (device_mesh(device: n, ...)).
type Mesh struct {
	X, Y, Z   Dim
	Device    Dim
	HasDevice bool
	Any       bool // the declared type `mesh` of a helper parameter: any mesh
}

func (m *Mesh) String() string {
	if m.Any {
		return "mesh"
	}
	s := "mesh(cluster_x: " + m.X.String()
	if m.HasDevice {
		s = "mesh(device: " + m.Device.String() + ", cluster_x: " + m.X.String()
	}
	if !isOne(m.Y) || !isOne(m.Z) {
		s += ", cluster_y: " + m.Y.String()
	}
	if !isOne(m.Z) {
		s += ", cluster_z: " + m.Z.String()
	}
	return s + ")"
}
func (*Mesh) isType() {}

// TypeVal is the type of a type used as a value: f32 in cast(x, f32), or
// [16,128]bf16 as a pipe field.
type TypeVal struct{ T Type }

func (t *TypeVal) String() string { return "type " + t.T.String() }
func (*TypeVal) isType()          {}

// ShapeVal is the type of x.shape: a tile's compile-time shape, taken
// where a shape is (zeros(x.shape, T)) and indexed by a known integer
// (x.shape[0], a compile-time i32).
type ShapeVal struct{ Shape Shape }

func (t *ShapeVal) String() string { return "shape " + t.Shape.String() }
func (*ShapeVal) isType()          {}

// Basic is one of the few non-numeric value types: string literals and the
// memory-scope names (smem).
type Basic string

// The basic types.
const (
	String    Basic = "string"
	ScopeType Basic = "scope"
	NoValue   Basic = "no value" // the "type" of a call that returns nothing
	// DTypeKind is the declared type of a helper's `T const dtype`
	// parameter; bound at a call, the parameter is a type value.
	DTypeKind Basic = "dtype"
	// NoneType is None's, in p == None and p != None
	NoneType Basic = "None"
)

func (b Basic) String() string { return string(b) }
func (Basic) isType()          {}

// List is a bracketed list of values, [a, b, c]: a shape, strides, offsets.
type List struct{ Elems []Type }

func (l *List) String() string { return "list[" + joinTypes(l.Elems) + "]" }
func (*List) isType()          {}

// Tuple is the result of a func returning several values.
type Tuple struct{ Types []Type }

func (t *Tuple) String() string { return "(" + joinTypes(t.Types) + ")" }
func (*Tuple) isType()          {}

// joinTypes prints types separated by ", ".
func joinTypes(ts []Type) string {
	parts := make([]string, len(ts))
	for i, x := range ts {
		parts[i] = x.String()
	}
	return strings.Join(parts, ", ")
}

// Identical reports whether two types are the same (shapes compared
// symbolically; a pointer's ReadOnly flag does not count).
func Identical(a, b Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.String() == b.String()
}

// ElemOf returns the element of a tile, or t itself for a scalar/pointer.
func ElemOf(t Type) Type {
	if tt, ok := t.(*Tile); ok {
		return tt.Elem
	}
	return t
}

// ShapeOf returns a tile's shape (nil for a scalar).
func ShapeOf(t Type) Shape {
	if tt, ok := t.(*Tile); ok {
		return tt.Shape
	}
	return nil
}

// TileOf builds a tile of elem with shape, or elem itself for a rank-0 shape.
func TileOf(elem Type, shape Shape) Type {
	if len(shape) == 0 {
		return elem
	}
	return &Tile{Shape: shape, Elem: elem}
}

// isInvalid reports the error type (or a missing type).
func isInvalid(t Type) bool {
	if t == nil {
		return true
	}
	if d, ok := ElemOf(t).(DType); ok && d == Invalid {
		return true
	}
	return false
}

// scalarDType returns the dtype of a scalar or tile of scalars.
func scalarDType(t Type) (DType, bool) {
	d, ok := ElemOf(t).(DType)
	return d, ok
}

// BlockPtr is a block pointer (make_block_ptr, Triton's): a Block-shaped
// window of a strided tensor of Elem in global memory. Its base, shape,
// strides and offsets are runtime values; Block is compile-time. It prints
// as block_ptr[T, B0, B1, ...]; the language has no spelling for it, so it
// lives in variables (loop-carried ones too), not in parameters.
type BlockPtr struct {
	Elem  DType
	Block Shape
}

func (b *BlockPtr) String() string {
	parts := []string{b.Elem.String()}
	for _, d := range b.Block {
		parts = append(parts, d.String())
	}
	return "block_ptr[" + strings.Join(parts, ",") + "]"
}
func (*BlockPtr) isType() {}
