package ir

// carriesAddress reports whether values of type t hold global addresses a
// kernel may write through: pointers, tiles of pointers and TMA
// descriptors.
func carriesAddress(t Type) bool {
	switch t := t.(type) {
	case *Pointer:
		return t.Space == 0 || t.Space == Global
	case *Tile:
		p, ok := t.Elem.(*Pointer)
		return ok && (p.Space == 0 || p.Space == Global)
	case *Desc:
		return true
	}
	return false
}

// WrittenParams reports, for each parameter of f, whether the kernel may
// write the memory the parameter points to: a store, an atomic, a signal
// (on a flag of a symmetric allocation), a TMA store or inline assembly
// whose address derives from it. Addresses derive
// from a parameter through every op whose result holds an address (addptr,
// select, splat, make_desc, a loop's carried values...), never through
// loaded data: the language has no pointers in memory and no integer to
// pointer casts, so the answer is sound; it may say written for a store
// that never runs. The host copies back, after a launch, only the buffers
// this marks, so that an input shared between concurrent launches is only
// ever read.
func (f *Func) WrittenParams() []bool {
	from := map[*Value]uint64{} // the parameters (bits) an address value derives from; past 64, all written
	for i, a := range f.Body.Args {
		if i < 64 && carriesAddress(a.Type) {
			from[a] = 1 << i
		}
	}
	join := func(dst *Value, src uint64) bool {
		if dst == nil || !carriesAddress(dst.Type) || from[dst]|src == from[dst] {
			return false
		}
		from[dst] |= src
		return true
	}
	for changed := true; changed; {
		changed = false
		f.Walk(func(op *Op) {
			var in uint64
			for _, v := range op.Operands {
				in |= from[v]
			}
			switch op.Kind {
			case OpFor: // (lb, ub, step, inits...); body (iv, iters...) yields the next iters
				body := op.Regions[0]
				yield := body.Terminator()
				for k, r := range op.Results {
					carried := from[op.Operands[3+k]]
					if yield != nil && k < len(yield.Operands) {
						carried |= from[yield.Operands[k]]
					}
					changed = join(r, carried) || changed
					changed = join(body.Args[1+k], carried) || changed
				}
				return
			case OpIf:
				for _, reg := range op.Regions {
					yield := reg.Terminator()
					for k, r := range op.Results {
						if yield != nil && k < len(yield.Operands) {
							changed = join(r, from[yield.Operands[k]]) || changed
						}
					}
				}
				return
			}
			for _, r := range op.Results {
				changed = join(r, in) || changed
			}
		})
	}
	var written uint64
	f.Walk(func(op *Op) {
		switch op.Kind {
		case OpStore, OpAtomicRMW, OpAtomicCAS:
			written |= from[op.Operands[0]]
		case OpSignal: // (ptr, rank, mesh, value): sets or adds on a flag, the peer's copy of ptr's
			written |= from[op.Operands[0]]
		case OpCopy: // (src, dst, ...): a TMA store when dst is a descriptor
			if len(op.Operands) > 1 {
				written |= from[op.Operands[1]]
			}
		case OpAsm: // its template may name any parameter: every address may be written
			for _, a := range f.Body.Args {
				written |= from[a]
			}
		case OpCall:
			for _, v := range op.Operands {
				written |= from[v]
			}
		}
	})
	out := make([]bool, len(f.Params))
	for i := range out {
		out[i] = i >= 64 || written&(1<<i) != 0
	}
	return out
}
