package check

// The rules of sort, topk, bitonic_merge, gather and histogram (Triton's
// standard.py sort family, tl.gather, tl.histogram).

// dimOf checks a dim (axis) argument of tile t: a known integer in
// [-rank, rank), negative counting from the end; omitted, the last.
func (c *checker) dimOf(cc *callCtx, a *argv, t *Tile) (int, bool) {
	rank := len(t.Shape)
	if a == nil {
		return rank - 1, true
	}
	n, ok := c.knownInt(cc, a)
	if !ok {
		return 0, false
	}
	if n < 0 {
		n += int64(rank)
	}
	if n < 0 || n >= int64(rank) {
		c.errorf(cc.at(a), "%s %d out of range for %s (rank %d)", a.name, n, t, rank)
		return 0, false
	}
	return int(n), true
}

// powerOfTwo reports a dimension that is known and not a power of two (a
// symbolic one is checked again once bound).
func powerOfTwo(d Dim) bool {
	n, ok := d.Const()
	return !ok || n > 0 && n&(n-1) == 0
}

// sortTile checks sort's, topk's and bitonic_merge's x (a tile of
// numbers) and dim (the sorted dimension, of a power-of-two size).
func (c *checker) sortTile(cc *callCtx) (*Tile, int, bool) {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	if d, isD := ElemOf(x.typ).(DType); !ok || !isD || d == Invalid {
		c.argErr(cc, x, "a tile of numbers")
		return nil, 0, false
	}
	dim, ok := c.dimOf(cc, cc.get("dim"), t)
	if !ok {
		return nil, 0, false
	}
	if !powerOfTwo(t.Shape[dim]) {
		c.errorf(cc.at(x), "%s sorts along dimension %d of %s, whose size %s is not a power of two", cc.b.Name, dim, t, t.Shape[dim])
		return nil, 0, false
	}
	return t, dim, true
}

// sortOp: sort(x, dim, descending:) and bitonic_merge(x, dim, descending:)
// give x's type.
func (c *checker) sortOp(cc *callCtx) Type {
	t, _, ok := c.sortTile(cc)
	if !ok {
		return Invalid
	}
	if _, _, ok := c.constBool(cc, cc.get("descending")); !ok {
		return Invalid
	}
	return t
}

// topk: topk(x, k, dim) is x's shape with dim of size k, a power of two no
// larger than it.
func (c *checker) topk(cc *callCtx) Type {
	t, dim, ok := c.sortTile(cc)
	if !ok {
		return Invalid
	}
	ka := cc.get("k")
	kd, ok := c.constDim(cc, ka, true)
	if !ok {
		return Invalid
	}
	// a symbolic k is checked once bound
	k, kk := kd.Const()
	if n, known := t.Shape[dim].Const(); kk && (k&(k-1) != 0 || known && k > n) {
		c.errorf(cc.at(ka), "topk: k %d must be a power of two in [1, %s] (the size of dimension %d of %s)", k, t.Shape[dim], dim, t)
		return Invalid
	}
	shape := append(Shape{}, t.Shape...)
	shape[dim] = kd
	return TileOf(t.Elem, shape)
}

// gather: gather(src, index, axis) is src's dtype in index's shape; index
// an integer tile of src's rank whose dimensions but axis are src's.
func (c *checker) gather(cc *callCtx) Type {
	src, index := cc.get("src"), cc.get("index")
	st, ok := src.typ.(*Tile)
	if d, isD := ElemOf(src.typ).(DType); !ok || !isD || d == Invalid {
		return c.argErr(cc, src, "a tile of numbers")
	}
	it, ok := index.typ.(*Tile)
	if d, isD := ElemOf(index.typ).(DType); !ok || !isD || !d.IsInteger() || d == I1 {
		return c.argErr(cc, index, "a tile of integers")
	}
	axis, ok := c.dimOf(cc, cc.get("axis"), st)
	if !ok {
		return Invalid
	}
	if len(it.Shape) != len(st.Shape) {
		c.errorf(cc.at(index), "gather: index %s and source %s differ in rank", it, st)
		return Invalid
	}
	for d := range st.Shape {
		a, b := it.Shape[d], st.Shape[d]
		_, ka := a.Const()
		_, kb := b.Const()
		if d != axis && !a.Equal(b) && ka && kb {
			c.errorf(cc.at(index), "gather: index %s must match source %s in dimension %d (only axis %d may differ)", it, st, d, axis)
			return Invalid
		}
	}
	return TileOf(st.Elem, it.Shape)
}

// histogram: histogram(x, num_bins, mask:) of a 1-D integer tile is a
// [num_bins]i32 tile, num_bins a power of two.
func (c *checker) histogram(cc *callCtx) Type {
	x := cc.get("x")
	t, ok := x.typ.(*Tile)
	if d, isD := ElemOf(x.typ).(DType); !ok || !isD || !d.IsInteger() || d == I1 || len(t.Shape) != 1 {
		return c.argErr(cc, x, "a 1-D tile of integers")
	}
	na := cc.get("num_bins")
	nd, ok := c.constDim(cc, na, true)
	if !ok {
		return Invalid
	}
	if !powerOfTwo(nd) {
		c.errorf(cc.at(na), "histogram: num_bins %s must be a power of two", nd)
		return Invalid
	}
	if !c.maskArg(cc, t.Shape) {
		return Invalid
	}
	return TileOf(I32, Shape{nd})
}
