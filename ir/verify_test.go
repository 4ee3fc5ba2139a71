package ir

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// kernel wraps ops into a kernel with parameters %p: *f32, %n: i32, %f: f32.
func kernel(body string) string {
	return "module \"v.tle\"\nkernel @k(%p: *f32, %n: i32, %f: f32) {\n" + body + "\n  return() loc(99)\n}\n"
}

func TestVerifyTextCases(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"binary operand types", kernel(`  %0 = add(%n, %f) : i32 loc(5)`), "v.tle@5: func @k: op add: operand 1 has type f32, want i32"},
		{"binary operand count", kernel(`  %0 = add(%n) : i32 loc(5)`), "op add: has 1 operands, want 2"},
		{"binary result type", kernel(`  %0 = add(%n, %n) : f32 loc(5)`), "op add: result has type f32, want i32"},
		{"bitwise on floats", kernel(`  %0 = xor(%f, %f) : f32 loc(5)`), "needs integer operands"},
		{"math on ints", kernel(`  %0 = exp(%n) : i32 loc(5)`), "needs a float operand"},
		{"fma on ints", kernel(`  %0 = fma(%n, %n, %n) : i32 loc(5)`), "op fma: needs f16, bf16, f32 or f64 operands, has i32"},
		{"fma on fp8", kernel(`  %0 = cast(%f) : f8e4m3 loc(4)
  %1 = fma(%0, %0, %0) : f8e4m3 loc(5)`), "op fma: needs f16, bf16, f32 or f64 operands, has f8e4m3"},
		{"fma operand types", kernel(`  %0 = fma(%f, %f, %n) : f32 loc(5)`), "op fma: operand 2 has type i32, want f32"},
		{"fma operand count", kernel(`  %0 = fma(%f, %f) : f32 loc(5)`), "op fma: has 2 operands, want 3"},
		{"cmp gives i1", kernel(`  %0 = cmp(%n, %n) {pred = "lt"} : i32 loc(5)`), "op cmp: result has type i32, want i1"},
		{"cmp predicate", kernel(`  %0 = cmp(%n, %n) {pred = "less"} : i1 loc(5)`), `pred = "less" is not one of`},
		{"select condition", kernel(`  %0 = select(%n, %f, %f) : f32 loc(5)`), "op select: condition has type i32, want i1"},
		{"addptr offset", kernel(`  %0 = addptr(%p, %f) : *f32 loc(5)`), "op addptr: offset has type f32, want integers"},
		{"addptr base", kernel(`  %0 = addptr(%n, %n) : i32 loc(5)`), "want a pointer or a tile of pointers"},
		{"join shapes", kernel(`  %0 = splat(%f) : [4]f32 loc(1)
  %1 = splat(%f) : [8]f32 loc(2)
  %2 = join(%0, %1) : [4,2]f32 loc(5)`), "op join: operand 1 has type [8]f32, want [4]f32"},
		{"join result", kernel(`  %0 = splat(%f) : [4]f32 loc(1)
  %1 = join(%0, %0) : [2,4]f32 loc(5)`), "op join: result has type [2,4]f32, want [4,2]f32"},
		{"join scalars", kernel(`  %0 = join(%f, %f) : [2]f32 loc(5)`), "op join: operand 0 has type f32, want a tile"},
		{"split last dim", kernel(`  %0 = splat(%f) : [4,4]f32 loc(1)
  %1, %2 = split(%0) : [4]f32, [4]f32 loc(5)`), "op split: operand has type [4,4]f32, want a tile of rank 2 or more whose last dimension is 2"},
		{"split result", kernel(`  %0 = splat(%f) : [4,2]f32 loc(1)
  %1, %2 = split(%0) : [4]f32, [4]i32 loc(5)`), "op split: result 1 has type [4]i32, want [4]f32"},
		{"flip axis", kernel(`  %0 = splat(%f) : [4,2]f32 loc(1)
  %1 = flip(%0) {axis = 2} : [4,2]f32 loc(5)`), "op flip: axis 2 out of range for [4,2]f32"},
		{"flip power of two", kernel(`  %0 = splat(%f) : [6]f32 loc(1)
  %1 = flip(%0) {axis = 0} : [6]f32 loc(5)`), "op flip: dimension 0 of [6]f32 is 6, not a power of two"},
		{"extract_slice bounds", kernel(`  %0 = splat(%f) : [8,4]f32 loc(1)
  %1 = extract_slice(%0) {starts = [6, 0]} : [4,4]f32 loc(5)`), "op extract_slice: dimension 0: 4 elements from 6 do not fit [8,4]f32"},
		{"extract_slice rank", kernel(`  %0 = splat(%f) : [8,4]f32 loc(1)
  %1 = extract_slice(%0) {starts = [0]} : [4]f32 loc(5)`), "op extract_slice: operand [8,4]f32 and result [4]f32 are not tiles of one rank"},
		{"extract_slice starts", kernel(`  %0 = splat(%f) : [8,4]f32 loc(1)
  %1 = extract_slice(%0) {starts = [0]} : [4,4]f32 loc(5)`), "op extract_slice: starts [0] for a tile of rank 2"},
		{"cast rounding value", kernel(`  %0 = cast(%f) {rounding = "rtn"} : f16 loc(5)`), `op cast: rounding rtn: want "rtz"`},
		{"cast rounding upcast", kernel(`  %0 = cast(%f) {rounding = "rtz"} : f64 loc(5)`), `op cast: rounding "rtz" from f32 to f64: want a float downcast`},
		{"cast rounding fp8", kernel(`  %0 = cast(%f) {rounding = "rtz"} : f8e4m3 loc(5)`), `op cast: rounding "rtz" from f32 to f8e4m3`},
		{"axis_hint no fact", kernel(`  %0 = axis_hint(%n) : i32 loc(5)`), "op axis_hint: no divisibility, contiguity or constancy"},
		{"axis_hint float", kernel(`  %0 = axis_hint(%f) {divisibility = [16]} : f32 loc(5)`), "op axis_hint: operand f32, want integers or global pointers"},
		{"axis_hint rank", kernel(`  %0 = axis_hint(%n) {divisibility = [16, 16]} : i32 loc(5)`), "op axis_hint: divisibility [16 16]: want 1 values, one per axis"},
		{"axis_hint pow2", kernel(`  %0 = axis_hint(%n) {contiguity = [3]} : i32 loc(5)`), "op axis_hint: contiguity [3]: want positive values"},
		{"assume tile", kernel(`  %0 = splat(%n) : [4]i32 loc(4)
  %1 = cmp(%0, %0) {pred = "eq"} : [4]i1 loc(4)
  assume(%1) loc(5)`), "op assume: condition has type [4]i1, want a scalar i1"},
		{"ptrtoint result", kernel(`  %0 = ptrtoint(%p) : i32 loc(5)`), "op ptrtoint: i32, want i64 or u64"},
		{"ptrtoint operand", kernel(`  %0 = ptrtoint(%n) : i64 loc(5)`), "op ptrtoint: i32, want a global pointer or a tile of them"},
		{"inttoptr operand", kernel(`  %0 = inttoptr(%n) : *f32 loc(5)`), "op inttoptr: i32, want i64 or u64"},
		{"bitcast widths", kernel(`  %0 = bitcast(%f) : i16 loc(5)`), "op bitcast: from f32 (32 bits) to i16 (16 bits): the widths differ"},
		{"bitcast i1", kernel(`  %0 = cmp(%n, %n) {pred = "lt"} : i1 loc(4)
  %1 = bitcast(%0) : u8 loc(5)`), "op bitcast: cannot reinterpret the bits of i1"},
		{"bitcast pointer", kernel(`  %0 = bitcast(%p) : i64 loc(5)`), "op bitcast: cannot reinterpret the bits of *f32"},
		{"load mask shape", kernel(`  %0 = splat(%p) : [4]*f32 loc(1)
  %1 = constant() {value = true} : [8]i1 loc(2)
  %2 = load(%0, %1) : [4]f32 loc(5)`), "op load: mask has type [8]i1, want [4]i1"},
		{"load result", kernel(`  %0 = load(%p) : f16 loc(5)`), "op load: result has type f16, want f32"},
		{"store value", kernel(`  store(%p, %n) loc(5)`), "op store: value has type i32, want f32"},
		{"dot shapes", kernel(`  %0 = constant() {value = 0.0} : [16,32]f16 loc(1)
  %1 = constant() {value = 0.0} : [16,16]f16 loc(2)
  %2 = constant() {value = 0.0} : [16,16]f32 loc(3)
  %3 = dot(%0, %1, %2) : [16,16]f32 loc(5)`), "shapes [16,32] x [16,16] + [16,16] do not make [M,K] x [K,N] + [M,N]"},
		{"reduce or of floats", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = reduce(%0) {axis = 1, kind = "or"} : [16]f32 loc(5)`), "op reduce: kind or reduces integers, not [16,32]f32"},
		{"gather rank", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [32]i32 loc(2)
  %2 = gather(%0, %1) {axis = 1} : [32]f32 loc(5)`), "op gather: index [32]i32 and source [16,32]f32 differ in rank"},
		{"gather shape", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [8,4]i32 loc(2)
  %2 = gather(%0, %1) {axis = 1} : [8,4]f32 loc(5)`), "op gather: index [8,4]i32 and source [16,32]f32 differ in dimension 0 (only axis 1 may)"},
		{"gather index dtype", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = gather(%0, %0) {axis = 1} : [16,32]f32 loc(5)`), "op gather: index must be integers, not [16,32]f32"},
		{"gather result", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [16,4]i32 loc(2)
  %2 = gather(%0, %1) {axis = 1} : [16,32]f32 loc(5)`), "op gather: result has type [16,32]f32, want [16,4]f32"},
		{"butterfly mask", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = butterfly(%0) {axis = 1, mask = 32} : [16,32]f32 loc(5)`), "op butterfly: mask 32 along axis 1 of size 32"},
		{"butterfly size", kernel(`  %0 = constant() {value = 0.0} : [16,24]f32 loc(1)
  %1 = butterfly(%0) {axis = 1, mask = 4} : [16,24]f32 loc(5)`), "the size must be a power of two"},
		{"butterfly result", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = butterfly(%0) {axis = 0, mask = 4} : [16,32]i32 loc(5)`), "op butterfly: result has type [16,32]i32, want [16,32]f32"},
		{"reduce axis", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = reduce(%0) {axis = 2, kind = "sum"} : [16]f32 loc(5)`), "op reduce: axis 2 out of range"},
		{"reduce result", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = reduce(%0) {axis = 1, kind = "sum"} : [32]f32 loc(5)`), "result has type [32]f32, want [16]f32"},
		{"reduce of two operands, kind sum", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %2, %3 = reduce(%0, %1) {axis = 1, kind = "sum"} : [16]f32, [16]f32 loc(5)`), "op reduce: kind sum takes one operand, not 2"},
		{"reduce operand shapes", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [32,16]i32 loc(1)
  %2, %3 = reduce(%0, %1) {axis = 1, kind = "combine"} : [16]f32, [32]i32 loc(5) {
  ^(%4: f32, %5: i32, %6: f32, %7: i32):
    yield(%6, %7) loc(5)
  }`), "op reduce: operand 1 has type [32,16]i32: the shape of operand 0 ([16,32]f32) is wanted"},
		{"reduce second result", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [16,32]i32 loc(1)
  %2, %3 = reduce(%0, %1) {axis = 1, kind = "combine"} : [16]f32, [16]f32 loc(5) {
  ^(%4: f32, %5: i32, %6: f32, %7: i32):
    yield(%6, %7) loc(5)
  }`), "op reduce: result 1 has type [16]f32, want [16]i32"},
		{"combine region order", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [16,32]i32 loc(1)
  %2, %3 = scan(%0, %1) {axis = 1, kind = "combine"} : [16,32]f32, [16,32]i32 loc(5) {
  ^(%4: f32, %5: f32, %6: i32, %7: i32):
    yield(%4, %6) loc(5)
  }`), "op scan: combine region must take two sets of scalars (f32, i32), (f32, i32)"},
		{"combine region yield", kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [16,32]i32 loc(1)
  %2, %3 = scan(%0, %1) {axis = 1, kind = "combine"} : [16,32]f32, [16,32]i32 loc(5) {
  ^(%4: f32, %5: i32, %6: f32, %7: i32):
    yield(%4) loc(5)
  }`), "yields 1 values, but the combine needs 2"},
		{"constant float for int", kernel(`  %0 = constant() {value = 1.5} : i32 loc(5)`), "float value for a i32 constant"},
		{"constant without value", kernel(`  %0 = constant() : i32 loc(5)`), "needs a value attribute"},
		{"splat of a tile", kernel(`  %0 = constant() {value = 1} : [4]i32 loc(1)
  %1 = splat(%0) : [4]i32 loc(5)`), "operand is a tile [4]i32, want a scalar"},
		{"trans perm", kernel(`  %0 = constant() {value = 1} : [4,8]i32 loc(1)
  %1 = trans(%0) {perm = [0, 0]} : [8,4]i32 loc(5)`), "is not a permutation"},
		{"broadcast", kernel(`  %0 = constant() {value = 1} : [4,2]i32 loc(1)
  %1 = broadcast(%0) : [4,8]i32 loc(5)`), "cannot broadcast [4,2] to [4,8]"},
		{"for yield types", kernel(`  %0 = for(%n, %n, %n, %f) : f32 loc(5) {
  ^(%1: i32, %2: f32):
    yield(%1) loc(6)
  }`), "@6: func @k: op yield: yield operand 0 has type i32, but the for's results needs f32"},
		{"for region args", kernel(`  %0 = for(%n, %n, %n, %f) : f32 loc(5) {
  ^(%1: i32):
    yield(%f) loc(6)
  }`), "body has 1 arguments, want 1 + 1 loop-carried"},
		{"for bounds", kernel(`  for(%f, %f, %f) loc(5) {
  ^(%1: f32):
    yield() loc(6)
  }`), "lower bound has type f32, want an integer scalar"},
		{"if without else", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  %1 = if(%0) : f32 loc(5) {
    yield(%f) loc(6)
  }`), "has 1 regions, want then and else"},
		{"if yield count", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  %1 = if(%0) : f32 loc(5) {
    yield(%f) loc(6)
  } {
    yield() loc(7)
  }`), "@7: func @k: op yield: yields 0 values, but the if's results needs 1"},
		{"if condition", kernel(`  if(%n) loc(5) {
    yield() loc(6)
  }`), "condition has type i32, want i1"},
		{"region without terminator", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  if(%0) loc(5) {
    %1 = add(%n, %n) : i32 loc(6)
  }`), "@6: func @k: op add: region of if does not end in yield"},
		{"empty region", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  if(%0) loc(5) {
  }`), "@5: func @k: op if: region is empty"},
		{"terminator in the middle", "kernel @k() {\n  return() loc(3)\n  %0 = constant() {value = 1} : i32 loc(4)\n  return() loc(5)\n}", "@3: func @k: op return: terminator in the middle of a block (2 ops follow)"},
		{"body without return", "kernel @k() {\n  %0 = constant() {value = 1} : i32 loc(4)\n}", "@4: func @k: op constant: function body does not end in return"},
		{"return in a region", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  if(%0) loc(5) {
    return() loc(6)
  }`), "@6: func @k: op return: return inside a region of if"},
		{"yield in the body", "kernel @k() {\n  yield() loc(3)\n}", "yield in a function body"},
		{"use outside its region", kernel(`  %0 = constant() {value = true} : i1 loc(1)
  if(%0) loc(5) {
    %1 = add(%n, %n) : i32 loc(6)
    yield() loc(7)
  }
  %2 = add(%1, %n) : i32 loc(8)`), "@8: func @k: op add: operand 0 is used outside the region that defines it (defined by add at v.tle@6)"},
		{"use outside its role", kernel(`  warp_specialize() loc(5) {
    role() {name = "producer", warps = 1} loc(6) {
      %0 = add(%n, %n) : i32 loc(7)
      yield() loc(8)
    }
    yield() loc(9)
  }
  %1 = add(%0, %n) : i32 loc(10)`), `@10: func @k: op add: operand 0 is used outside role "producer", where it is defined`},
		{"use across roles", kernel(`  warp_specialize() loc(5) {
    role() {name = "a", warps = 1} loc(6) {
      %0 = add(%n, %n) : i32 loc(7)
      yield() loc(8)
    }
    role() {name = "b", warps = 1} loc(6) {
      %1 = add(%0, %n) : i32 loc(11)
      yield() loc(8)
    }
    yield() loc(9)
  }`), `@11: func @k: op add: operand 0 is used outside role "a", where it is defined`},
		{"use across copies", kernel(`  warp_specialize() loc(5) {
    role() {copies = 2, copy = 0, name = "c", warps = 4} loc(6) {
      %0 = add(%n, %n) : i32 loc(7)
      yield() loc(8)
    }
    role() {copies = 2, copy = 1, name = "c", warps = 4} loc(6) {
      %1 = add(%0, %n) : i32 loc(11)
      yield() loc(8)
    }
    yield() loc(9)
  }`), `@11: func @k: op add: operand 0 is used outside role "c" copy 0, where it is defined`},
		{"role copy without copies", kernel(`  warp_specialize() loc(5) {
    role() {copy = 1, name = "c", warps = 4} loc(6) {
      yield() loc(8)
    }
    yield() loc(9)
  }`), "op role: copy and copies come together"},
		{"role copy out of range", kernel(`  warp_specialize() loc(5) {
    role() {copies = 2, copy = 2, name = "c", warps = 4} loc(6) {
      yield() loc(8)
    }
    yield() loc(9)
  }`), "op role: copy = 2 of copies = 2, want 0 <= copy < copies"},
		{"role copy not an int", kernel(`  warp_specialize() loc(5) {
    role() {copies = 2, copy = true, name = "c", warps = 4} loc(6) {
      yield() loc(8)
    }
    yield() loc(9)
  }`), "op role: needs an int64 attribute copy"},
		{"role outside warp_specialize", kernel(`  role() {name = "a", warps = 1} loc(6) {
    yield() loc(8)
  }`), "role outside a warp_specialize region"},
		{"non-role in warp_specialize", kernel(`  warp_specialize() loc(5) {
    %0 = add(%n, %n) : i32 loc(7)
    yield() loc(9)
  }`), "@7: func @k: op add: only role ops may appear in a warp_specialize region"},
		{"unknown op", kernel(`  %0 = frobnicate(%n) : i32 loc(5)`), `unknown op kind "frobnicate"`},
		{"call missing callee", kernel(`  %0 = call(%n) {callee = "nope"} : i32 loc(5)`), "calls @nope, which is not in the module"},
		{"call argument type", kernel(`  %0 = call(%n) {callee = "h"} : f32 loc(5)`) + "func @h(%a: f32) -> (f32) {\n  return(%a)\n}\n", "op call: argument 0 has type i32, want f32"},
		{"return types", "func @h(%a: f32) -> (i32) {\n  return(%a) loc(3)\n}", "op return: returned value 0 has type f32, want i32"},
		{"kernel results", "kernel @k() -> (i32) {\n  return()\n}", "func @k: a kernel returns no results"},
		{"memdesc_trans order", kernel(`  %0 = alloc() : !smem<[64,32]f16> loc(1)
  %1 = memdesc_trans(%0) {perm = [1, 0]} : !smem<[32,64]f16> loc(5)`), "is not the view of !smem<[64,32]f16> permuted by [1 0] (want shape [32,64], order [0 1])"},
		{"memdesc_reshape innermost", kernel(`  %0 = alloc() : !smem<[2,64,128]f8e4m3> loc(1)
  %1 = memdesc_reshape(%0) : !smem<[2,128,64]f8e4m3> loc(5)`), "@5: func @k: op memdesc_reshape: cannot reshape shared-memory view [2,64,128] to [2,128,64]: only the leading dimensions may merge or split, the innermost (128) must stay"},
		{"memdesc_reshape count", kernel(`  %0 = alloc() : !smem<[2,64,128]f8e4m3> loc(1)
  %1 = memdesc_reshape(%0) : !smem<[64,128]f8e4m3> loc(5)`), "element counts differ"},
		{"memdesc_reshape transposed", kernel(`  %0 = alloc() : !smem<[64,128]f8e4m3> loc(1)
  %1 = memdesc_trans(%0) {perm = [1, 0]} : !smem<[128,64]f8e4m3, order=[0,1]> loc(2)
  %2 = memdesc_reshape(%1) : !smem<[2,64,64]f8e4m3> loc(5)`), "cannot reshape a shared-memory view that is not row-major (order [0 1])"},
		{"memdesc_reshape elem", kernel(`  %0 = alloc() : !smem<[2,64,128]f8e4m3> loc(1)
  %1 = memdesc_reshape(%0) : !smem<[128,128]f8e5m2> loc(5)`), "is not a row-major view of"},
		{"memdesc order rank", kernel(`  %0 = alloc() : !smem<[64,32]f16, order=[0]> loc(5)`), "memdesc order [0] is not a permutation of its 2 dims"},
		{"slot field name", kernel(`  %0 = pipe_alloc() : !pipe<2, a: [4]f32> loc(1)
  %1 = pipe_acquire(%0, %n) : !slot<write, !pipe<2, a: [4]f32>> loc(2)
  %2 = slot_field(%1) {name = "b"} : !smem<[4]f32> loc(5)`), `the pipe has no field "b"`},
		{"pipe_wait gives a reader", kernel(`  %0 = pipe_alloc() : !pipe<2, a: [4]f32> loc(1)
  %1 = pipe_wait(%0, %n) : !slot<write, !pipe<2, a: [4]f32>> loc(5)`), "result has type !slot<write"},
		{"copy offsets", kernel(`  %0 = make_desc(%p, %n, %n) {block = [64]} : !desc<f32,[64]> loc(1)
  %1 = alloc() : !smem<[64]f32> loc(2)
  copy(%0, %1) loc(5)`), "has 0 offsets for a rank-1 descriptor"},
		{"program_id axis", kernel(`  %0 = program_id() {axis = 3} : i32 loc(5)`), "axis 3 out of range 0..2"},
		{"duplicate function", "kernel @k() {\n  return()\n}\nkernel @k() {\n  return()\n}", "func @k: function defined twice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse(c.name+".tir", []byte(c.src))
			require.NoError(t, err)
			err = Verify(m)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

// TestVerifyCombineN: reduce and scan of kind combine over two operands of
// different dtypes, the region taking (a0, a1, b0, b1), verify and print
// back as they were parsed.
func TestVerifyCombineN(t *testing.T) {
	src := kernel(`  %0 = constant() {value = 0.0} : [16,32]f32 loc(1)
  %1 = constant() {value = 0} : [16,32]i32 loc(1)
  %2, %3 = reduce(%0, %1) {axis = 1, kind = "combine"} : [16]f32, [16]i32 loc(5) {
  ^(%4: f32, %5: i32, %6: f32, %7: i32):
    yield(%6, %7) loc(5)
  }
  %8, %9 = scan(%0, %1) {axis = 0, kind = "combine", reverse = true} : [16,32]f32, [16,32]i32 loc(6) {
  ^(%10: f32, %11: i32, %12: f32, %13: i32):
    yield(%10, %13) loc(6)
  }`)
	m, err := Parse("v.tir", []byte(src))
	require.NoError(t, err)
	require.NoError(t, Verify(m))
	require.Contains(t, Print(m), "reduce(%0, %1) {axis = 1, kind = \"combine\"} : [16]f32, [16]i32")
}

// Invariants that the text form cannot express are broken through Go.
func TestVerifyGoCases(t *testing.T) {
	good := kernel(`  %0 = add(%n, %n) : i32 loc(5)
  %1 = mul(%0, %n) : i32 loc(6)
  %2 = constant() {value = true} : i1 loc(7)
  if(%2) loc(8) {
    %3 = sub(%1, %n) : i32 loc(9)
    yield() loc(10)
  }`)
	cases := []struct {
		name   string
		break_ func(f *Func)
		want   string
	}{
		{"use before definition", func(f *Func) {
			f.Body.Ops[0], f.Body.Ops[1] = f.Body.Ops[1], f.Body.Ops[0]
		}, "@6: func @k: op mul: operand 0 is used before its definition (defined by add at v.tle@5)"},
		{"value defined twice", func(f *Func) {
			f.Body.Ops[1].Results[0] = f.Body.Ops[0].Results[0]
		}, "op mul: result 0 is defined twice"},
		{"duplicate ID", func(f *Func) {
			f.Body.Ops[1].Results[0].ID = f.Body.Ops[0].Results[0].ID
		}, "op mul: result 0 has ID"},
		{"op parent", func(f *Func) {
			f.Body.Ops[3].Regions[0].Ops[0].Parent = f.Body
		}, "@9: func @k: op sub: Parent does not point at the block holding the op"},
		{"region parent", func(f *Func) {
			f.Body.Ops[3].Regions[0].Parent = nil
		}, "op if: region's Parent does not point at the op"},
		{"result back pointer", func(f *Func) {
			f.Body.Ops[0].Results[0].Def = f.Body.Ops[1]
		}, "op add: result 0 has inconsistent Def/Index fields"},
		{"block argument back pointer", func(f *Func) {
			f.Body.Args[1].Index = 0
		}, "block argument 1 has inconsistent Block/Index/Def fields"},
		{"nil operand", func(f *Func) {
			f.Body.Ops[1].Operands[1] = nil
		}, "op mul: operand 1 is nil"},
		{"foreign value", func(f *Func) {
			f.Body.Ops[1].Operands[1] = &Value{ID: 1000, Type: I32}
		}, "op mul: operand 1 (value 1000) is not defined in this function"},
		{"attribute Go type", func(f *Func) {
			f.Body.Ops[0].Attrs["axis"] = 3
		}, "op add: attribute axis has Go type int, not one of"},
		{"param types", func(f *Func) {
			f.Params[1].Type = I64
		}, "parameter n has type i64 but body argument 1 has type i32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("v.tir", []byte(good))
			require.NoError(t, err)
			require.NoError(t, Verify(m))
			c.break_(m.Funcs[0])
			err = Verify(m)
			require.Error(t, err)
			require.Contains(t, err.Error(), c.want)
		})
	}
}

func TestVerifyErrorsListEveryProblem(t *testing.T) {
	m, err := Parse("v.tir", []byte(kernel("  %0 = add(%n, %f) : i32 loc(5)\n  %1 = cmp(%n, %n) {pred = \"lt\"} : i32 loc(6)")))
	require.NoError(t, err)
	err = Verify(m)
	var errs VerifyErrors
	require.ErrorAs(t, err, &errs)
	require.Len(t, errs, 2)
	require.True(t, strings.HasPrefix(err.Error(), "invalid IR:\n"))
}
