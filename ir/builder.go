package ir

import "github.com/tlego/tle/diag"

// Builder appends ops to a block of a function.
type Builder struct {
	Func  *Func
	Block *Block
	Pos   diag.Pos // position given to new ops
}

// NewBuilder returns a builder appending to f's body.
func NewBuilder(f *Func) *Builder { return &Builder{Func: f, Block: f.Body, Pos: diag.NoPos} }

// Create appends an op with the given results types and returns it.
func (b *Builder) Create(kind Kind, results []Type, operands []*Value, attrs Attrs) *Op {
	op := &Op{Kind: kind, Operands: operands, Attrs: attrs, Pos: b.Pos, Parent: b.Block}
	if op.Attrs == nil {
		op.Attrs = Attrs{}
	}
	for i, t := range results {
		op.Results = append(op.Results, b.Func.NewValue(t, "", op, nil, i))
	}
	b.Block.Ops = append(b.Block.Ops, op)
	return op
}

// Value appends a single-result op and returns its result.
func (b *Builder) Value(kind Kind, result Type, operands []*Value, attrs Attrs) *Value {
	return b.Create(kind, []Type{result}, operands, attrs).Results[0]
}

// NewRegion adds an empty region block to op and returns it.
func (b *Builder) NewRegion(op *Op) *Block {
	blk := &Block{Parent: op}
	op.Regions = append(op.Regions, blk)
	return blk
}

// ConstInt makes an integer constant of type t (a dtype or a tile).
func (b *Builder) ConstInt(v int64, t Type) *Value {
	return b.Value(OpConstant, t, nil, Attrs{"value": v})
}

// ConstFloat makes a float constant of type t.
func (b *Builder) ConstFloat(v float64, t Type) *Value {
	return b.Value(OpConstant, t, nil, Attrs{"value": v})
}
