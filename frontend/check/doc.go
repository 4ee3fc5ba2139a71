// Package check is the .tle type checker: name resolution, scalar and tile
// types with symbolic shapes, dtype promotion, broadcasting, compile-time
// constants and -D specialisation, builtin signatures, func helper
// instantiation, statement rules (loop-carried state, warp_specialize roles,
// pipe slots) and the per-kernel shared-memory budget.
//
// # API
//
//	type Config struct {
//	    Defines   map[string]string // raw -D NAME=VALUE bindings of const params
//	    SmemLimit int               // bytes per CTA; 0 means DefaultSmemLimit (232448)
//	    Kernel    string            // check this kernel alone (a compile's re-check with its bindings)
//	}
//	func Check(f *ast.File, conf Config) (*Info, diag.List)
//	func ParseDefine(s string) (name, value string, err error) // "NAME=VALUE"
//
// Check never stops at the first error and never panics: every error found is
// returned, sorted by position (an internal failure becomes an "internal
// error" diagnostic). Info is filled even when there are errors; erroneous
// expressions have type Invalid, which every later check accepts silently so
// that one mistake gives one error.
//
// # The builtin table
//
// Builtins() lists one row per builtin function and method (Builtin): its
// parameters (positional, keyword, optional, variadic; defaults; which must
// be compile-time: Param.Const), its type rule, and docs. The lowering
// binds calls from the same rows through the same Binder (FuncParams gives
// a helper's parameters), reads defaults with Param.DefaultValue and finds
// methods with LookupMethod. Adding a builtin is adding a row, its rule
// and its lowering.
//
// # Info, for the lowering
//
// The AST is never mutated; Info is the side table (go/types style):
//
//   - Info.Types[e] is every expression's TypeAndValue: its Type and, when it
//     is compile-time, its Value (Known: a go/constant value; or Sym: a Dim
//     polynomial in unbound const params). An untyped constant that took a
//     type from its use is recorded with that type (other: -1e30 on an f32
//     load is f32). Not recorded: a call's callee expression (see Calls and
//     Uses), a selector's name, the index markers None and ':', keyword
//     names, and names on the left of := / = (see Defs and Uses).
//   - Info.Uses[id] / Info.Defs[id] is the *Object an identifier denotes or
//     declares (VarObj, ParamObj, ConstObj, FuncObj, KernelObj, BuiltinObj,
//     DTypeObj). Each declaration has one Object: key lowering maps on it.
//   - Info.Calls[call] is the resolved callee: a *Builtin with its Args in
//     the builtin's parameter order, defaults filled in (Arg.Default, with
//     Arg.Value the default), variadic values expanded in place, pipe fields
//     after capacity; methods (x.to(T), pp.acquire(i), buf.slot(i),
//     bars.slot(i)) put the receiver first. A func helper call has Instance.
//   - Info.Instances[fd] lists a helper's instances. Helpers are generic over
//     tile shape: a parameter declared with scalar type T accepts a scalar or
//     a tile of element T (a *T parameter, a pointer or tile of pointers into
//     any address space), and
//     results follow. Each call site's argument types instantiate the helper
//     once (cached by types and const values); the instance's body has its
//     own Tables. A helper never called is checked once with its declared
//     types.
//   - Info.Kernels lists the kernels with their parameter Objects (bound
//     const params carry a known Value) and their SmemBudget.
//   - Info.Consts holds the top-level constants.
//
// Types print like the language: [16,128]bf16, *f32, desc[bf16,64,64],
// [BLOCK]*f32; the types the language cannot spell print as descriptions:
// *shared f32 (from local_ptr), memdesc[3,64,128]bf16, remote memdesc[...],
// pipe(capacity: 4, w: [16,128]bf16), writer slot(w: ...), barrier,
// barrier[3], mesh(cluster_x: 2), type f32 (a dtype used as a value).
//
// # Language decisions made here
//
//   - Operators are Go's: integer / truncates, also for constants.
//   - Promotion follows Triton: untyped constants adopt the other operand's
//     type (an untyped float with an integer gives f32); integer with float
//     gives the float; the wider type wins; bf16 with f16 gives f32; the two
//     fp8 formats together give f16; equal-width signed with unsigned gives
//     unsigned. Arithmetic is not defined on i1; & | ^ take integers and i1
//     masks; && || take scalar i1 only. Pointer arithmetic is pointer plus or
//     minus integer offsets (scalars or tiles), giving a tile of pointers.
//   - A variable's type is fixed when it is declared; = must keep it (an
//     untyped constant converts). Inside a loop this is the loop-carried rule.
//   - Dimensions are Dims: normalized polynomials over unbound const params
//     (2*BLOCK == BLOCK*2); a non-polynomial operation (BLOCK/3) is an opaque
//     atom. Shapes broadcast NumPy-style; two different symbolic dims do not
//     broadcast (a generic kernel is checked for all bindings).
//   - A tile has at most MaxTileElements = 2^20 elements (Triton's
//     TRITON_MAX_TENSOR_NUMEL). tileFits (limits.go) enforces it where every
//     tile shape is recorded: c.expr for values (arange, zeros/full,
//     broadcasts, reshape, loads, dot, helper results...) and c.typeExpr for
//     written tile types. It applies when the shape is known (after -D), or
//     when the known dims alone exceed it; the error is at the expression that
//     makes the tile, once per shape per kernel. Shared-memory buffers and
//     pipe fields are not tiles: the shared-memory budget bounds them.
//   - A kernel has at most MaxInlinedNodes = 2^18 syntax nodes once every
//     helper call is inlined (inlineBudget, limits.go: each call records its
//     Instance in the caller's body, and an instance's inlined size is its
//     own nodes plus its callees'); the error is at the kernel's heaviest
//     call. Without it, helpers that call helpers twice grow the code
//     exponentially past what the compiler can hold.
//   - arange sizes must be powers of two when known (Triton's rule); dot needs
//     every dim >= 16; wgmma needs M % 64 == 0, N % 8 == 0 and N <= 256,
//     K % 16 == 0, all only when known.
//   - Kernel const params may appear in other params' types in any order
//     (a desc[bf16, BM, BK] before BM const i32). So may a helper's
//     (helpers.go): a call binds the const params first, given or inferred
//     by unifying the arguments' types with the declared ones, then resolves
//     the other param types with them. Helpers take views (memdesc[..]T,
//     memdesc T), pipes, slots, barriers, meshes and descs, and a
//     T const dtype param names a dtype in the body.
//   - load(buf) / store(buf, v) on a shared-memory view move the whole
//     buffer to/from registers; local_ptr gives per-element pointers.
//   - barrier(count: c, slots: n) makes an array of n mbarriers, indexed with
//     bars.slot(i) (for per-stage barriers of a pipelined loop).
//   - The shared-memory budget counts every alloc, pipe field (capacity
//     slots), mbarrier (8 bytes; a pipe has 2 per slot) and those of helpers
//     inlined into the kernel, once per call site; any symbolic size skips it.
//   - warp_specialize: roles are padded to warpgroups of 4 warps, and the
//     padded total must not exceed 32 warps.
//
// # Tests
//
// testdata/ok/*.tle must check clean, without and with their "// -D NAME=V"
// bindings. testdata/errors/*.tle carry `// ERROR "text"` on offending lines
// (several quoted texts allowed); each text must be a substring of an error
// reported on that line, and no other line may have errors. An unknown -D
// name is reported at the start of the file (line 1). "// SMEMLIMIT n" sets
// Config.SmemLimit. TestEveryMessageTested scans this package's source for
// message formats and fails if some format is produced by no errors file.
package check
