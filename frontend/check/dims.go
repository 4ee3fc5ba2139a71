package check

import (
	"crypto/sha256"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Dim is a compile-time integer that may be symbolic in unbound const
// parameters: a normalized polynomial with integer coefficients over symbols.
// A symbol is a const parameter name (BLOCK) or an opaque atom for an operation
// that is not polynomial, written in parentheses ("(N/2)"). Normalization makes
// equal polynomials print equally, so BLOCK*2 and 2*BLOCK are the same Dim.
// The zero value is the constant 0.
type Dim struct {
	terms []term // sorted, no zero coefficients, distinct monomials
}

type term struct {
	coef int64
	syms []string // sorted; repeated for powers; empty for the constant term
}

func (t term) key() string { return strings.Join(t.syms, "*") }

// ConstDim returns the constant n.
func ConstDim(n int64) Dim {
	if n == 0 {
		return Dim{}
	}
	return Dim{terms: []term{{coef: n}}}
}

// SymDim returns the symbol name (a const parameter, or an atom).
func SymDim(name string) Dim { return Dim{terms: []term{{coef: 1, syms: []string{name}}}} }

// atomDim makes an opaque symbol for a non-polynomial expression. A long
// one is named by a prefix and a hash of its text: an atom made from a
// polynomial of many terms that holds another atom would otherwise repeat
// that atom's text in each term, and nesting such atoms grows their names
// exponentially.
func atomDim(s string) Dim {
	if len(s) > maxAtomText {
		sum := sha256.Sum256([]byte(s))
		s = fmt.Sprintf("%s...#%x", s[:maxAtomText/2], sum[:8])
	}
	return SymDim("(" + s + ")")
}

// maxAtomText bounds the text of an atom's name.
const maxAtomText = 160

// maxTerms bounds the terms of a Dim: a product of sums over distinct
// symbols, (A0+B0)*(A1+B1)*..., doubles its terms with each factor, and a
// larger result becomes an opaque atom instead (real shapes have a handful).
const maxTerms = 64

// normalize sorts and merges ts; ok is false when a coefficient overflows
// int64 or there are more than maxTerms terms (the caller makes an atom).
func normalize(ts []term) (d Dim, ok bool) {
	m := map[string]*term{}
	var keys []string
	for _, t := range ts {
		syms := append([]string(nil), t.syms...)
		sort.Strings(syms)
		k := strings.Join(syms, "*")
		if p, ok := m[k]; ok {
			sum := p.coef + t.coef
			if (sum > p.coef) != (t.coef > 0) {
				return Dim{}, false
			}
			p.coef = sum
			continue
		}
		m[k] = &term{coef: t.coef, syms: syms}
		keys = append(keys, k)
	}
	var out []term
	for _, k := range keys {
		if t := m[k]; t.coef != 0 {
			out = append(out, *t)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if len(a.syms) != len(b.syms) {
			return len(a.syms) > len(b.syms)
		}
		return a.key() < b.key()
	})
	if len(out) > maxTerms {
		return Dim{}, false
	}
	return Dim{terms: out}, true
}

// Const returns the value of a dim with no symbols.
func (d Dim) Const() (int64, bool) {
	switch len(d.terms) {
	case 0:
		return 0, true
	case 1:
		if len(d.terms[0].syms) == 0 {
			return d.terms[0].coef, true
		}
	}
	return 0, false
}

// IsConst reports whether d has no symbols.
func (d Dim) IsConst() bool { _, ok := d.Const(); return ok }

// Symbols lists the symbols d mentions, sorted and distinct.
func (d Dim) Symbols() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range d.terms {
		for _, s := range t.syms {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Equal reports whether two dims are the same polynomial.
func (d Dim) Equal(o Dim) bool { return d.String() == o.String() }

// Add returns d+o (an atom when the sum does not stay a small polynomial
// with int64 coefficients).
func (d Dim) Add(o Dim) Dim {
	if n, ok := normalize(append(append([]term(nil), d.terms...), o.terms...)); ok {
		return n
	}
	return opaque("+", d, o)
}

// Neg returns -d.
func (d Dim) Neg() Dim {
	ts := make([]term, len(d.terms))
	for i, t := range d.terms {
		ts[i] = term{coef: -t.coef, syms: t.syms}
	}
	return Dim{terms: ts}
}

// Sub returns d-o.
func (d Dim) Sub(o Dim) Dim { return d.Add(o.Neg()) }

// Mul returns d*o (an atom when the product does not stay a small
// polynomial with int64 coefficients: a wrapped coefficient would make
// different dims equal).
func (d Dim) Mul(o Dim) Dim {
	if len(d.terms)*len(o.terms) > maxTerms*maxTerms {
		return opaque("*", d, o)
	}
	var ts []term
	for _, a := range d.terms {
		for _, b := range o.terms {
			c := a.coef * b.coef
			if a.coef != 0 && (c/a.coef != b.coef || a.coef == -1 && b.coef == math.MinInt64) {
				return opaque("*", d, o)
			}
			ts = append(ts, term{coef: c, syms: append(append([]string(nil), a.syms...), b.syms...)})
		}
	}
	if n, ok := normalize(ts); ok {
		return n
	}
	return opaque("*", d, o)
}

// Div returns d/o with Go's truncating division: exact when o is a constant
// dividing every coefficient, folded when both are constants, else an atom.
func (d Dim) Div(o Dim) Dim {
	if b, ok := o.Const(); ok && b != 0 {
		if a, ok := d.Const(); ok {
			return ConstDim(a / b)
		}
		exact := true
		for _, t := range d.terms {
			if t.coef%b != 0 {
				exact = false
			}
		}
		if exact {
			ts := make([]term, len(d.terms))
			for i, t := range d.terms {
				ts[i] = term{coef: t.coef / b, syms: t.syms}
			}
			return Dim{terms: ts}
		}
	}
	if d.Equal(o) && len(d.terms) > 0 {
		return ConstDim(1)
	}
	return atomDim(d.operand() + "/" + o.operand())
}

// Mod returns d%o (folded when constant or when o divides every coefficient).
func (d Dim) Mod(o Dim) Dim {
	if b, ok := o.Const(); ok && b != 0 {
		if a, ok := d.Const(); ok {
			return ConstDim(a % b)
		}
		exact := true
		for _, t := range d.terms {
			if t.coef%b != 0 {
				exact = false
			}
		}
		if exact {
			return Dim{}
		}
	}
	return atomDim(d.operand() + "%" + o.operand())
}

// opaque combines two dims with an operator the polynomial form cannot
// represent (shifts, bit operations).
func opaque(op string, a, b Dim) Dim {
	return atomDim(a.operand() + op + b.operand())
}

// operand prints d for use inside a larger expression.
func (d Dim) operand() string {
	s := d.String()
	if simpleOperand.MatchString(s) {
		return s
	}
	return "(" + s + ")"
}

var simpleOperand = regexp.MustCompile(`^(-?[0-9]+|[A-Za-z_][A-Za-z0-9_]*)$`)

// String prints the canonical form: 2*BLOCK+16, BLOCK*BLOCK, N/2.
func (d Dim) String() string {
	if len(d.terms) == 0 {
		return "0"
	}
	if len(d.terms) == 1 && d.terms[0].coef == 1 && len(d.terms[0].syms) == 1 {
		s := d.terms[0].syms[0]
		if strings.HasPrefix(s, "(") && strings.HasSuffix(s, ")") {
			return s[1 : len(s)-1]
		}
		return s
	}
	var b strings.Builder
	for i, t := range d.terms {
		c := t.coef
		if i > 0 {
			if c < 0 {
				b.WriteString("-")
				c = -c
			} else {
				b.WriteString("+")
			}
		} else if c < 0 && len(t.syms) > 0 {
			b.WriteString("-")
			c = -c
		}
		if len(t.syms) == 0 {
			fmt.Fprint(&b, c)
			continue
		}
		if c != 1 {
			fmt.Fprintf(&b, "%d*", c)
		}
		b.WriteString(t.key())
	}
	return b.String()
}

// Shape is a tile or buffer shape, outermost dimension first.
type Shape []Dim

// String prints [16,BLOCK].
func (s Shape) String() string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Equal reports whether two shapes have the same rank and equal dims.
func (s Shape) Equal(o Shape) bool {
	if len(s) != len(o) {
		return false
	}
	for i := range s {
		if !s[i].Equal(o[i]) {
			return false
		}
	}
	return true
}

// NumElements is the product of the dims (a polynomial).
func (s Shape) NumElements() Dim {
	n := ConstDim(1)
	for _, d := range s {
		n = n.Mul(d)
	}
	return n
}

// Concrete returns the dims as integers when none is symbolic.
func (s Shape) Concrete() ([]int64, bool) {
	out := make([]int64, len(s))
	for i, d := range s {
		v, ok := d.Const()
		if !ok {
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

func isOne(d Dim) bool { v, ok := d.Const(); return ok && v == 1 }

// Broadcast combines two shapes NumPy-style: aligned on the right, a dim of 1
// stretches. ok is false when some pair of dims differs and neither is 1.
func Broadcast(a, b Shape) (Shape, bool) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := 0; i < n; i++ {
		var da, db Dim
		ha, hb := i < len(a), i < len(b)
		if ha {
			da = a[len(a)-1-i]
		}
		if hb {
			db = b[len(b)-1-i]
		}
		switch {
		case !ha:
			out[n-1-i] = db
		case !hb:
			out[n-1-i] = da
		case da.Equal(db):
			out[n-1-i] = da
		case isOne(da):
			out[n-1-i] = db
		case isOne(db):
			out[n-1-i] = da
		default:
			return nil, false
		}
	}
	return out, true
}
