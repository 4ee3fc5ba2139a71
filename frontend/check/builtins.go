package check

import (
	"fmt"
	"go/constant"
	"strings"
)

// Param is one parameter of a builtin.
type Param struct {
	Name     string
	Keyword  bool   // keyword-only: written name: value
	Optional bool   // may be left out
	Default  string // the default as documentation ("false", "0", "smem"); "" when absent means "none"
	Variadic bool   // takes any number of positional values
	// Const: the argument must be compile-time (a constant, a dtype or
	// type, a shape). The builtin's rule enforces it with its own message;
	// the lowering reads such arguments as constants.
	Const bool
	// Func: the argument names a func helper (reduce's and
	// associative_scan's combine), the one place a helper is not called.
	Func bool
	// Also: another keyword for the parameter (Triton's name: combine_fn)
	Also string
	// NoneOK: the argument may be written None, which means no value
	// (dot_scaled's lhs_scale and rhs_scale, as Triton's None scale); the
	// rule sees the type NoneType
	NoneOK  bool
	defVal  *Value
	defType Type
}

// DefaultValue is the value an omitted argument takes; nil when there is none.
func (p *Param) DefaultValue() constant.Value {
	if p.defVal == nil {
		return nil
	}
	return p.defVal.Known
}

// Builtin describes one builtin function or method: one row of the table
// builtinList, the single source of truth for its signature. The checker
// binds arguments from Params (a Binder) and checks them with the row's
// rule; the lowering binds them from the same Params, takes omitted ones'
// defaults from it and keeps only the IR building per builtin (keyed by
// CallName, or by Alias); the docs are generated from Signature/Doc
// (BuiltinDocs); tests check every builtin of the language sketch is
// present and has a lowering. Adding a builtin is adding a row, its rule
// and its lowering.
type Builtin struct {
	Name string // as written: load, acquire
	// Recv is the receiver kind for methods ("pipe", "memdesc", "barriers",
	// "value"); "" for functions. A method's first Param is its receiver.
	Recv   string
	Params []*Param
	// Fields: the builtin takes any further name: value keywords (pipe fields).
	Fields bool
	Doc    string // one line
	// Alias names the builtin a method is the same as (x.to(T) is cast).
	Alias string
	check func(c *checker, cc *callCtx) Type
}

// CallName is how the builtin is written in a call: load, pp.acquire.
func (b *Builtin) CallName() string {
	if b.Recv == "" {
		return b.Name
	}
	return recvVar[b.Recv] + "." + b.Name
}

var recvVar = map[string]string{"pipe": "pp", "memdesc": "buf", "barriers": "bars", "desc": "desc", "value": "x"}

// Signature renders the builtin's parameters: load(ptr, mask:, other:, async: false).
func (b *Builtin) Signature() string {
	var parts []string
	for i, p := range b.Params {
		if b.Recv != "" && i == 0 {
			continue
		}
		s := p.Name
		switch {
		case p.Variadic:
			s += "..."
		case p.Keyword:
			s += ":"
			if p.Default != "" {
				s += " " + p.Default
			}
		case p.Optional:
			s = "[" + s + "]"
		}
		parts = append(parts, s)
	}
	if b.Fields {
		parts = append(parts, "field: [D0, ...]T...")
	}
	return b.CallName() + "(" + strings.Join(parts, ", ") + ")"
}

// Builtins returns the builtin table (functions and methods).
func Builtins() []*Builtin { return builtinList }

// LookupBuiltin finds a builtin function by name.
func LookupBuiltin(name string) *Builtin { return lookup("", name) }

// LookupMethod finds the method name of receiver kind recv ("pipe",
// "memdesc", "barriers", "value"); nil when there is none.
func LookupMethod(recv, name string) *Builtin {
	if recv == "" {
		return nil
	}
	return lookup(recv, name)
}

func lookup(recv, name string) *Builtin {
	for _, b := range builtinList {
		if b.Recv == recv && b.Name == name {
			return b
		}
	}
	return nil
}

// BuiltinDocs renders the table as a Markdown list, one builtin a line.
func BuiltinDocs() string {
	var b strings.Builder
	for _, x := range builtinList {
		doc := x.Doc
		if x.Alias != "" {
			doc += " (same as " + x.Alias + ")"
		}
		fmt.Fprintf(&b, "- `%s`: %s\n", x.Signature(), doc)
	}
	return b.String()
}

// methodFor finds the method name on a value of type t.
func methodFor(t Type, name string) (*Builtin, bool) {
	kind := ""
	switch t := t.(type) {
	case *Pipe:
		kind = "pipe"
	case *MemDesc:
		kind = "memdesc"
	case *Desc:
		kind = "desc"
	case *Barrier:
		if t.Slots != nil {
			kind = "barriers"
		}
	case DType, *Tile:
		if _, ok := ElemOf(t).(DType); ok {
			kind = "value"
		}
		if _, ok := ElemOf(t).(*Pointer); ok && name == "to" {
			kind = "value" // p.to(i64): a pointer's address
		}
	case *Pointer:
		if name == "to" {
			kind = "value"
		}
	}
	b := LookupMethod(kind, name)
	return b, b != nil
}

// MeshAxes are the axes of a device_mesh: its keyword parameters and the
// axis names shard_id takes.
var MeshAxes = []string{"cluster_x", "cluster_y", "cluster_z"}

// parameter constructors; kwBool and kwInt parameters are compile-time
func pos(name string) *Param      { return &Param{Name: name} }
func opt(name string) *Param      { return &Param{Name: name, Optional: true} }
func variadic(name string) *Param { return &Param{Name: name, Variadic: true} }
func kw(name string) *Param       { return &Param{Name: name, Keyword: true} }
func kwOpt(name string) *Param    { return &Param{Name: name, Keyword: true, Optional: true} }
func kwBool(name string, def bool) *Param {
	return &Param{Name: name, Keyword: true, Optional: true, Const: true, Default: fmt.Sprint(def), defVal: &Value{Known: constant.MakeBool(def)}, defType: I1}
}
func kwInt(name string, def int64) *Param {
	return &Param{Name: name, Keyword: true, Optional: true, Const: true, Default: fmt.Sprint(def), defVal: knownInt(def), defType: UntypedInt}
}

// random is a row of the random-number builtins: (seed, offset,
// n_rounds: 10).
func random(name, doc string) *Builtin {
	return fn(name, doc, (*checker).randomOp, pos("seed"), pos("offset"), kwInt("n_rounds", 10))
}

// noneOK lets a parameter's argument be None (Param.NoneOK).
func noneOK(p *Param) *Param { p.NoneOK = true; return p }

const castDoc = "convert x to dtype elementwise; bitcast: true reinterprets the bits instead (dtypes of one width); fp_downcast_rounding: \"rtne\" (the default) or \"rtz\" for a float downcast"

// cst marks a parameter compile-time (Param.Const).
func cst(p *Param) *Param { p.Const = true; return p }

// kwStr is a keyword-only compile-time string with a default.
func kwStr(name, def string) *Param {
	return &Param{Name: name, Keyword: true, Optional: true, Const: true, Default: fmt.Sprintf("%q", def), defVal: &Value{Known: constant.MakeString(def)}, defType: String}
}

func fn(name, doc string, check func(*checker, *callCtx) Type, params ...*Param) *Builtin {
	return &Builtin{Name: name, Doc: doc, Params: params, check: check}
}

func method(recv, name, doc string, check func(*checker, *callCtx) Type, params ...*Param) *Builtin {
	return &Builtin{Name: name, Recv: recv, Doc: doc, Params: append([]*Param{pos(recvVar[recv])}, params...), check: check}
}

var builtinList []*Builtin

func init() {
	unary := func(name, doc string) *Builtin { return fn(name, doc, (*checker).mathUnary, pos("x")) }
	// every atomic takes Triton's sem: and scope: (defaults acq_rel, gpu)
	atomicOf := func(name, doc string, check func(*checker, *callCtx) Type, params ...*Param) *Builtin {
		return fn(name, doc, check, append(params, kwOpt("mask"), kwStr("sem", "acq_rel"), kwStr("scope", "gpu"))...)
	}
	atomic := func(name, doc string) *Builtin {
		return atomicOf(name, doc, (*checker).atomicRMW, pos("ptr"), pos("value"))
	}
	reduce := func(name, doc string, extra ...*Param) *Builtin {
		return fn(name, doc, (*checker).reduce, append([]*Param{pos("x"), cst(kwOpt("axis"))}, append(extra, kwBool("keep_dims", false))...)...)
	}
	alloc := fn("alloc", "a shared-memory buffer of shape and dtype (scope: smem is the only scope); init: fills it", (*checker).alloc,
		cst(pos("shape")), cst(pos("dtype")), &Param{Name: "scope", Keyword: true, Optional: true, Const: true, Default: "smem", defVal: &Value{Known: constant.MakeString("smem")}, defType: ScopeType}, kwOpt("init"))
	pipe := fn("pipe", "a ring of capacity shared-memory slots, one buffer per named field, with full/empty mbarriers", (*checker).pipe, cst(kw("capacity")))
	pipe.Fields = true
	var mesh []*Param
	for _, ax := range MeshAxes {
		mesh = append(mesh, kwInt(ax, 1))
	}
	builtinList = []*Builtin{
		// core (Triton parity)
		fn("program_id", "this program's (CTA's) index along grid axis 0, 1 or 2", (*checker).gridAxis, cst(pos("axis"))),
		fn("num_programs", "the number of programs along grid axis 0, 1 or 2", (*checker).gridAxis, cst(pos("axis"))),
		fn("arange", "the i32 tile [start, start+1, ..., end-1]; bounds are compile-time, the size a power of two", (*checker).arange, cst(pos("start")), cst(pos("end"))),
		fn("zeros", "a tile of shape filled with 0 of dtype", (*checker).zeros, cst(pos("shape")), cst(pos("dtype"))),
		fn("full", "a tile of shape filled with value, of dtype", (*checker).full, cst(pos("shape")), pos("value"), cst(pos("dtype"))),
		fn("zeros_like", "a tile of zeros of x's shape, of x's dtype or dtype:", (*checker).zerosLike, pos("x"), cst(kwOpt("dtype"))),
		fn("full_like", "a tile of x's shape filled with value, of x's dtype or dtype:", (*checker).fullLike, pos("x"), pos("value"), cst(kwOpt("dtype"))),
		fn("load", "load through a pointer (tile), a block pointer or a whole shared-memory buffer; masked-off lanes read other; async: uses cp.async; boundary_check: (dims of a block pointer) reads padding_option: \"zero\" or \"nan\" out of bounds; through global pointers cache_modifier: \".ca\", \".cg\" or \".cv\", eviction_policy: \"evict_first\" or \"evict_last\", volatile: true (ld.volatile)", (*checker).load,
			pos("ptr"), kwOpt("mask"), kwOpt("other"), kwBool("async", false), cst(kwOpt("boundary_check")), cst(kwOpt("padding_option")),
			kwStr("cache_modifier", ""), kwStr("eviction_policy", ""), kwBool("volatile", false)),
		fn("store", "store value (broadcast, converted to the pointee type) through a pointer (tile), a block pointer or into a shared-memory buffer; boundary_check: (dims of a block pointer) skips out-of-bounds elements; through global pointers cache_modifier: \".wb\", \".cg\", \".cs\" or \".wt\", eviction_policy: \"evict_first\" or \"evict_last\"", (*checker).store,
			pos("ptr"), pos("value"), kwOpt("mask"), cst(kwOpt("boundary_check")),
			kwStr("cache_modifier", ""), kwStr("eviction_policy", "")),
		atomic("atomic_add", "atomically add value at ptr; returns the old values"),
		atomic("atomic_max", "atomically take the maximum at ptr; returns the old values"),
		atomic("atomic_min", "atomically take the minimum at ptr; returns the old values"),
		atomic("atomic_xchg", "atomically exchange the value at ptr; returns the old values"),
		atomicOf("atomic_and", "atomically and value into ptr (32- or 64-bit integers); returns the old values", (*checker).atomicBitwise, pos("ptr"), pos("value")),
		atomicOf("atomic_or", "atomically or value into ptr (32- or 64-bit integers); returns the old values", (*checker).atomicBitwise, pos("ptr"), pos("value")),
		atomicOf("atomic_xor", "atomically xor value into ptr (32- or 64-bit integers); returns the old values", (*checker).atomicBitwise, pos("ptr"), pos("value")),
		atomicOf("atomic_cas", "atomically store value at ptr where it equals cmp; returns the old values", (*checker).atomicCAS,
			pos("ptr"), pos("cmp"), pos("value")),
		fn("dot", "matrix product a[M,K] x b[K,N] (+ acc[M,N]), or batched [B,M,K] x [B,K,N], on tensor cores, accumulating in f32 (i32 for i8); input_precision of f32 operands: tf32, tf32x3 or ieee", (*checker).dot,
			pos("a"), pos("b"), opt("acc"),
			&Param{Name: "input_precision", Keyword: true, Optional: true, Const: true, Default: `"tf32"`, defVal: &Value{Known: constant.MakeString("tf32")}, defType: String},
			cst(kwOpt("allow_tf32")), cst(kwOpt("out_dtype")), cst(kwOpt("max_num_imprecise_acc"))),
		fn("dot_scaled", "Triton's microscaled product lhs[M,K] x rhs[K,N] (+ acc) in f32: each operand in format \"e2m1\" (u8, two values a byte along K, or along M/N with lhs_k_pack/rhs_k_pack: false), \"e4m3\", \"e5m2\", \"bf16\" or \"fp16\", times its e8m0 scales (u8 [M, K/32] and [N, K/32]: 2^(e-127) per 32 elements of K, 0xFF NaN; None for none), upcast to bf16 (f16 with an fp16 operand) and scaled there, then dot",
			(*checker).dotScaled, pos("lhs"), noneOK(pos("lhs_scale")), cst(pos("lhs_format")), pos("rhs"), noneOK(pos("rhs_scale")), cst(pos("rhs_format")), opt("acc"),
			kwBool("fast_math", false), kwBool("lhs_k_pack", true), kwBool("rhs_k_pack", true), cst(kwOpt("out_dtype"))),
		fn("where", "elementwise select: x where cond, else y (broadcast)", (*checker).where, pos("cond"), pos("x"), pos("y")),
		fn("cast", castDoc, (*checker).cast, pos("x"), cst(pos("dtype")), kwBool("bitcast", false), cst(kwOpt("fp_downcast_rounding"))),
		reduce("sum", "sum over axis (all axes when omitted); small integers accumulate in i32; dtype: converts x to dtype first and sums in it (Triton's dtype=); keep_dims: the reduced axes stay, of size 1",
			cst(kwOpt("dtype"))),
		reduce("max", "maximum over axis (all axes when omitted; NaNs ignored); return_indices: also the i32 index of the maximum, as argmax; for two tiles use maximum",
			kwBool("return_indices", false), kwBool("return_indices_tie_break_left", true)),
		reduce("min", "minimum over axis (all axes when omitted; NaNs ignored); return_indices: also the i32 index of the minimum, as argmin; for two tiles use minimum",
			kwBool("return_indices", false), kwBool("return_indices_tie_break_left", true)),
		reduce("argmax", "the i32 index of the maximum along axis (of the row-major flattened tile when omitted); ties: the lowest index (the highest with tie_break_left: false); NaNs are ignored (an all-NaN slice gives its first index, or its last)",
			kwBool("tie_break_left", true)),
		reduce("argmin", "the i32 index of the minimum along axis, as argmax", kwBool("tie_break_left", true)),
		reduce("reduce_or", "bitwise or over axis (all axes when omitted) of an integer tile (i1 included)"),
		reduce("xor_sum", "bitwise xor over axis (all axes when omitted) of an integer tile (i1 included)"),
		fn("reduce", "reduces x along axis (all axes when omitted) with combine, a func helper (a T, b T) T over x's dtype T that must be associative and free of side effects; the order of combination is unspecified; keep_dims as sum; x may be a list of same-shape tiles [x, idx], the combine then taking (a0, a1, b0, b1) and returning one value per tile",
			(*checker).reduceCombine, pos("x"), cst(opt("axis")), &Param{Name: "combine", Func: true, Also: "combine_fn"}, kwBool("keep_dims", false)),
		fn("associative_scan", "inclusive scan of x along axis with combine, a func helper (a T, b T) T over x's dtype T that must be associative and free of side effects: element i is x[0] combined with each element up to x[i] in order (from the end when reverse); x may be a list of same-shape tiles as reduce's",
			(*checker).scanCombine, pos("x"), cst(pos("axis")), &Param{Name: "combine", Func: true, Also: "combine_fn"}, kwBool("reverse", false)),
		fn("sort", "x sorted along dim (the last when omitted; its size a power of two) by a bitonic network, ascending (descending: true, descending); NaNs order above every number",
			(*checker).sortOp, pos("x"), cst(opt("dim")), kwBool("descending", false)),
		fn("topk", "the k largest elements of x along dim (the last when omitted), largest first: x's shape with dim of size k (k a power of two); NaNs count as largest",
			(*checker).topk, pos("x"), cst(pos("k")), cst(opt("dim"))),
		fn("bitonic_merge", "x, bitonic along dim (the last when omitted; its size a power of two), merged into ascending order (descending: true, descending)",
			(*checker).sortOp, pos("x"), cst(opt("dim")), kwBool("descending", false)),
		fn("gather", "out[..., i, ...] = src[..., index[..., i, ...], ...] along axis: src's dtype in index's shape (an integer tile of src's rank, its other dimensions src's); an index out of range is an error on the interpreter",
			(*checker).gather, pos("src"), pos("index"), cst(pos("axis"))),
		fn("histogram", "the i32 counts of the values 0 .. num_bins-1 (a power of two) in a 1-D integer tile x, where mask: holds; values outside [0, num_bins) are not counted",
			(*checker).histogram, pos("x"), cst(pos("num_bins")), kwOpt("mask")),
		fn("cumsum", "inclusive prefix sum along axis (from the end when reverse); dtype: converts x to dtype first and sums in it (Triton's dtype=)", (*checker).cumsum, pos("x"), kwInt("axis", 0), kwBool("reverse", false), cst(kwOpt("dtype"))),
		fn("cumprod", "inclusive prefix product along axis (from the end when reverse); small integers widen like cumsum", (*checker).cumsum, pos("x"), kwInt("axis", 0), kwBool("reverse", false)),
		unary("exp", "e**x (lowered to ex2.approx.ftz of x*log2(e))"),
		unary("exp2", "2**x"),
		unary("log", "natural logarithm"),
		unary("log2", "base-2 logarithm"),
		unary("sqrt", "square root"),
		unary("rsqrt", "1/sqrt(x)"),
		unary("sigmoid", "1/(1+exp(-x))"),
		unary("tanh", "hyperbolic tangent"),
		unary("erf", "the error function 2/sqrt(pi) * integral of exp(-t*t) from 0 to x"),
		unary("sin", "sine of x (radians)"),
		unary("cos", "cosine of x (radians)"),
		unary("tan", "tangent of x (radians)"),
		unary("asin", "arcsine of x, in [-pi/2, pi/2] (NaN outside [-1, 1])"),
		unary("acos", "arccosine of x, in [0, pi] (NaN outside [-1, 1])"),
		unary("atan", "arctangent of x, in [-pi/2, pi/2]"),
		unary("sinh", "hyperbolic sine"),
		unary("cosh", "hyperbolic cosine"),
		unary("log1p", "log(1 + x), accurate near 0"),
		unary("expm1", "exp(x) - 1, accurate near 0"),
		fn("atan2", "the angle of the point (x, y) in [-pi, pi], atan(y/x) in the right quadrant, C99 special cases (broadcast, promoted; floats)", (*checker).atan2, pos("y"), pos("x")),
		fn("pow", "x raised to the power y, C99 pow (broadcast, promoted; floats)", (*checker).pow, pos("x"), pos("y")),
		unary("floor", "the largest integral value not above x (exact: cvt.rmi)"),
		unary("ceil", "the smallest integral value not below x (exact: cvt.rpi)"),
		unary("trunc", "x rounded toward zero to an integral value (exact: cvt.rzi)"),
		unary("round", "x rounded to the nearest integral value, ties away from zero (exact; C's roundf)"),
		unary("sqrt_rn", "square root rounded to nearest (IEEE; the same as sqrt)"),
		fn("div_rn", "x / y rounded to nearest (IEEE div.rn), where / is div.full.f32 (broadcast, promoted; floats)", (*checker).divRN, pos("x"), pos("y")),
		fn("clamp", "minimum(maximum(x, min), max) (broadcast, promoted; floats)", (*checker).clampOp, pos("x"), pos("min"), pos("max")),
		fn("umulhi", "the high 32 (64) bits of the unsigned 64-bit (128-bit) product of x and y (32- or 64-bit integers)", (*checker).umulhi, pos("x"), pos("y")),
		random("randint", "a tile of random u32 (u64 for a 64-bit offset) of offset's shape, a pure function of seed and offset: Philox4x32-10 (4x64) with key seed and counter (offset, 0, 0, 0), as Triton's"),
		random("randint4x", "the four words of randint's Philox draw (randint is the first), as Triton's"),
		random("rand", "a tile of random f32 uniform in [0, 1) of offset's shape: randint's word as i32, negatives folded (-x-1), times 4.6566127342e-10, as Triton's"),
		random("rand4x", "rand of each of randint4x's four words"),
		random("randn", "a tile of random f32 of the standard normal distribution: Box-Muller on the rands of randint4x's first two words, as Triton's"),
		fn("philox", "the four words of Philox4x32-10 (4x64 for 64-bit counters) of counters (c0, c1, c2, c3) with key seed (its low and high words; (seed, 0) for 4x64), as Triton's", (*checker).philox,
			pos("seed"), pos("c0"), pos("c1"), pos("c2"), pos("c3"), kwInt("n_rounds", 10)),
		fn("uint_to_uniform_float", "a random word (32- or 64-bit integer) to f32 uniform in [0, 1), as rand does, Triton's", (*checker).uintToUniform, pos("x")),
		fn("pair_uniform_to_normal", "two f32 uniforms to two standard normals (Box-Muller), as randn does, Triton's", (*checker).pairUniformToNormal, pos("u1"), pos("u2")),
		random("randn4x", "the four normals of Box-Muller on rand4x's two pairs, as Triton's"),
		fn("isnan", "whether x is a NaN, an i1 of x's shape", (*checker).floatClass, pos("x")),
		fn("isinf", "whether x is +inf or -inf, an i1 of x's shape", (*checker).floatClass, pos("x")),
		fn("softmax", "exp(x - max(x)) / sum(exp(x - max(x))) along dim (0 when omitted); ieee_rounding: divides with div_rn", (*checker).softmax,
			pos("x"), cst(kwOpt("dim")), cst(kwBool("keep_dims", false)), cst(kwBool("ieee_rounding", false))),
		fn("abs", "absolute value", (*checker).abs, pos("x")),
		fn("minimum", "elementwise minimum (broadcast, promoted)", (*checker).minmax, pos("x"), pos("y")),
		fn("maximum", "elementwise maximum (broadcast, promoted)", (*checker).minmax, pos("x"), pos("y")),
		fn("fma", "fused multiply-add: a*b + c computed exactly and rounded once (broadcast, promoted; f16, bf16, f32 or f64)", (*checker).fma, pos("a"), pos("b"), pos("c")),
		fn("cdiv", "ceiling division (a + b - 1) / b of integers; folded at compile time", (*checker).cdiv, pos("a"), pos("b")),
		fn("reshape", "the same elements in a new shape (element counts must match); of a shared-memory view, a view with its leading dimensions merged or split", (*checker).reshape, pos("x"), cst(pos("shape"))),
		fn("broadcast_to", "broadcast x to shape (NumPy rules)", (*checker).broadcastTo, pos("x"), cst(pos("shape"))),
		fn("trans", "transpose (reverse the dims) of a tile or shared-memory buffer, like x.T", (*checker).trans, pos("x")),
		fn("join", "a tile of a's and b's (broadcast) shape with a new last dimension of 2: a at index 0, b at 1 (one element type)", (*checker).join, pos("a"), pos("b")),
		fn("split", "the two tiles a[..., 0] and a[..., 1] of a tile whose last dimension is 2 (x, y := split(a))", (*checker).split, pos("a")),
		fn("interleave", "join(a, b) with its last two dimensions merged: a's and b's elements alternate along the last dimension", (*checker).interleave, pos("a"), pos("b")),
		fn("cat", "input then other (tiles of one shape and type) along the first dimension; the order is kept, so can_reorder: changes nothing", (*checker).cat, pos("input"), pos("other"), kwBool("can_reorder", false)),
		fn("flip", "x reversed along dim (the last when omitted; a power-of-two size)", (*checker).flip, pos("x"), cst(opt("dim"))),
		fn("expand_dims", "x with size-1 dimensions inserted at axis (an integer or a list, positions in the result), as x[:, None]", (*checker).expandDims, pos("x"), cst(pos("axis"))),
		fn("broadcast", "input and other broadcast to their common shape (a, b := broadcast(x, y)), each keeping its dtype", (*checker).broadcastPair, pos("input"), pos("other")),
		fn("permute", "permute the dims of a tile or shared-memory buffer (a view, no copy, for buffers)", (*checker).permute, pos("x"), cst(variadic("dims"))),
		fn("print", "device print of strings, scalars and tiles", (*checker).print, variadic("args")),
		fn("static_range", "a for loop's compile-time range, unrolled: for i := range static_range(start, end, step)", (*checker).staticRangeCall, cst(pos("start")), cst(opt("end")), cst(opt("step"))),
		fn("static_assert", "compile-time assertion: an error at the call when cond (a compile-time i1) is false, with msg", (*checker).staticAssert, cst(pos("cond")), cst(opt("msg"))),
		fn("static_print", "print compile-time values (constants, dtypes, shapes, strings) when the kernel is compiled", (*checker).staticPrint, cst(variadic("args"))),
		fn("multiple_of", "a compiler hint: x unchanged, promising that the first element of each contiguous run along each axis is a multiple of values (one per axis; bytes for pointers); checked on the interpreter", (*checker).axisHint, pos("x"), cst(pos("values"))),
		fn("max_contiguous", "a compiler hint: x unchanged, promising runs of values consecutive integers (pointers: elements) along each axis, aligned to the run length; checked on the interpreter", (*checker).axisHint, pos("x"), cst(pos("values"))),
		fn("max_constancy", "a compiler hint: x unchanged, promising runs of values equal elements along each axis, aligned to the run length; checked on the interpreter", (*checker).axisHint, pos("x"), cst(pos("values"))),
		fn("assume", "a compiler hint: cond (a scalar i1) holds; x % n == 0 tells the compiler x is a multiple of n; checked on the interpreter", (*checker).assume, pos("cond")),
		fn("assert", "device assertion that cond holds (everywhere for a tile), with an optional message", (*checker).assert, pos("cond"), cst(opt("msg"))),
		fn("make_desc", "a TMA tensor descriptor over ptr, with runtime shape and strides and a compile-time block", (*checker).makeDesc,
			pos("ptr"), kw("shape"), kw("strides"), cst(kw("block"))),
		fn("make_block_ptr", "a block pointer (Triton's): the block_shape window at offsets of the tensor at base with runtime shape and strides; order is a layout hint (a permutation of the dims)", (*checker).makeBlockPtr,
			pos("base"), pos("shape"), pos("strides"), pos("offsets"), cst(pos("block_shape")), cst(pos("order"))),
		fn("advance", "the block pointer base moved by offsets (runtime integers, one per dim)", (*checker).advance, pos("base"), pos("offsets")),
		// TLE extensions
		alloc,
		fn("local_ptr", "a tile of shared-memory pointers into buf, one index (tile) per dim, broadcast together", (*checker).localPtr, pos("buf"), variadic("indices")),
		fn("copy", "bulk copy; from a desc (TMA load, completes on barrier:) or to a desc (TMA store), or between equal-shaped buffers/pointer tiles", (*checker).copyOp,
			pos("src"), pos("dst"), variadic("offsets"), kwOpt("barrier")),
		fn("barrier", "an mbarrier completing a phase after count arrivals; slots: n makes an array of n (bars.slot(i))", (*checker).barrier, kwInt("count", 1), cst(kwOpt("slots"))),
		fn("arrive", "one arrival on the mbarrier", (*checker).barrierOp, pos("bar")),
		fn("wait", "wait until the mbarrier completes the phase (0 or 1) given", (*checker).barrierOp, pos("bar"), pos("phase")),
		fn("expect", "one arrival that also expects bytes of copy traffic (mbarrier.arrive.expect_tx)", (*checker).barrierOp, pos("bar"), pos("bytes")),
		pipe,
		method("pipe", "acquire", "writer side: block until slot i % capacity is free; returns the writer slot", (*checker).pipeSlot, pos("i")),
		method("pipe", "commit", "writer side: publish slot i to readers", (*checker).pipeIndex, pos("i")),
		method("pipe", "close", "writer side: publish slot i as the closing one (readers see s.closed)", (*checker).pipeIndex, pos("i")),
		method("pipe", "wait", "reader side: block until slot i is committed; returns the reader slot", (*checker).pipeSlot, pos("i")),
		method("pipe", "release", "reader side: hand slot i back to writers", (*checker).pipeIndex, pos("i")),
		method("memdesc", "slot", "view of one leading index of a shared-memory buffer (no copy)", (*checker).memSlot, pos("i")),
		method("barriers", "slot", "one mbarrier of a barrier array", (*checker).barrierSlot, pos("i")),
		method("desc", "load", "the block at offsets (a list of integers, one per dimension, outermost first) of the descriptor's tensor, as a tile: a TMA copy into a shared buffer, waited on, then loaded; out-of-bounds elements read as zero", (*checker).descLoad, pos("offsets")),
		method("desc", "store", "store value (a tile of the block's shape and dtype) at offsets (a list of integers, one per dimension) of the descriptor's tensor: a TMA store from a shared buffer; out-of-bounds elements are not written", (*checker).descStore, pos("offsets"), pos("value")),
		{Name: "to", Recv: "value", Alias: "cast", Doc: castDoc, Params: []*Param{pos("x"), cst(pos("dtype")), kwBool("bitcast", false), cst(kwOpt("fp_downcast_rounding"))}, check: (*checker).cast},
		fn("wgmma", "asynchronous warpgroup MMA a[M,K] x b[K,N] + acc (a in registers or shared memory, b in shared memory); trans_a/trans_b: operand stored [K,M]/[N,K]", (*checker).wgmma,
			pos("a"), pos("b"), pos("acc"), kwBool("trans_a", false), kwBool("trans_b", false)),
		fn("wgmma_wait", "wait until at most n wgmma groups are pending", (*checker).wgmmaWait, cst(pos("n"))),
		fn("device_mesh", "the CTA cluster as a mesh (cluster sizes are compile-time; at most 16 CTAs); device: n adds a device axis of n devices (a launch on n GPUs, or n simulated devices)", (*checker).deviceMesh, append(mesh, cst(kwOpt("device")))...),
		fn("shard_id", "this CTA's coordinate along a mesh axis (\"cluster_x\", \"cluster_y\" or \"cluster_z\"), or its device's rank (\"device\")", (*checker).shardID, pos("mesh"), cst(pos("axis"))),
		fn("remote", "the same buffer in CTA rank of the cluster (distributed shared memory); of a global pointer into a symmetric buffer, the pointer on device rank", (*checker).remote, pos("buf"), pos("rank"), pos("mesh")),
		fn("distributed_barrier", "barrier across the mesh's CTAs (on every device of a device mesh, or of axis: \"device\" or \"cluster\" alone; group: k splits the devices into groups of k), making remote writes visible", (*checker).distributedBarrier, pos("mesh"), cst(kwOpt("axis")), cst(kwOpt("group"))),
		fn("signal", "set or add value to the integer flag *ptr on device rank (release at system scope)", (*checker).signal, pos("ptr"), pos("rank"), pos("mesh"), pos("value"), kwStr("op", "set")),
		fn("signal_wait", "wait until the local integer flag *ptr compares true to value (cmp: \"ge\" by default; acquire at system scope)", (*checker).signalWait, pos("ptr"), pos("value"), kwStr("cmp", "ge")),
		fn("role_index", "the index of the running copy of the enclosing role (copies: n), a compile-time i32 in [0, n); 0 in a role without copies:", (*checker).roleIndex),
		fn("asm", "inline PTX (GPU only); out: gives the result type", (*checker).asm, cst(pos("template")), variadic("args"), cst(kwOpt("out"))),
		// programmatic dependent launch (sm_90+; rules_pdl.go)
		fn("debug_barrier", "a CTA-wide barrier (bar.sync 0, __syncthreads): every thread of the program waits for the others; not inside a warp role", (*checker).debugBarrier),
		fn("grid_dependency_wait", "wait until the prerequisite grids (a PDL launch's previous kernel) completed and their memory is visible (griddepcontrol.wait)", (*checker).noArgs),
		fn("launch_dependents", "let the dependent grid (a PDL launch) be scheduled before this grid finishes (griddepcontrol.launch_dependents)", (*checker).noArgs),
		// warp votes and prefix counts, for stream compaction (rules_votes.go)
		fn("ballot", "the [N/32]u32 bit words of a 1-D i1 tile of N (a multiple of 32): bit b of word w is mask[32*w+b] (vote.sync.ballot)", (*checker).ballot, pos("mask")),
		fn("popc", "the number of set bits of each element of an integer tile or scalar, in its dtype (popc)", (*checker).popc, pos("x")),
		fn("prefix_count", "the exclusive count of a 1-D i1 tile: element i is the number of true elements before i, as i32 (ballot and popc with %lanemask_lt)", (*checker).prefixCount, pos("mask")),
	}
}
