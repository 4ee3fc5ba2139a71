package ir

// Promote is the dtype two operands of a binary operation are converted to,
// Triton's rules: a float wins over an integer; among floats the wider wins,
// f16 with bf16 gives f32, and fp8 loses to any 16-bit float; among integers
// the wider wins and, at equal width, unsigned wins over signed; i1 loses to
// any other integer.
func Promote(a, b DType) DType {
	if a == b {
		return a
	}
	switch {
	case a.IsFloat() && !b.IsFloat():
		return a
	case b.IsFloat() && !a.IsFloat():
		return b
	case a.IsFloat():
		if (a == F16 && b == BF16) || (a == BF16 && b == F16) {
			return F32
		}
		if (a == F8E4M3 && b == F8E5M2) || (a == F8E5M2 && b == F8E4M3) {
			return F16
		}
		if a.Bits() != b.Bits() {
			if a.Bits() > b.Bits() {
				return a
			}
			return b
		}
		return a
	}
	// integers
	if a == I1 {
		return b
	}
	if b == I1 {
		return a
	}
	if a.Bits() != b.Bits() {
		if a.Bits() > b.Bits() {
			return a
		}
		return b
	}
	if a.IsUnsigned() {
		return a
	}
	return b
}

// BroadcastShapes returns the NumPy broadcast of two shapes (right-aligned;
// a dimension of 1 stretches), or ok=false when they are incompatible.
func BroadcastShapes(a, b []int) (out []int, ok bool) {
	n := max(len(a), len(b))
	out = make([]int, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db:
			out[i] = da
		case da == 1:
			out[i] = db
		case db == 1:
			out[i] = da
		default:
			return nil, false
		}
	}
	return out, true
}
