package nvptx

import (
	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/value"
)

// eliminateDeadCode deletes instructions whose results nothing with a side
// effect needs, including dead cycles of phis (loop-carried registers the
// body never reads, such as the pointers of the elements inside a vector
// access). llc does not run the middle-end optimiser, so this keeps the IR
// and the PTX small.
func eliminateDeadCode(md *module, fn *llvm.Func) {
	live := map[value.Value]bool{}
	var work []value.Value
	mark := func(v value.Value) {
		if _, ok := v.(llvm.Instruction); !ok {
			return
		}
		if !live[v] {
			live[v] = true
			work = append(work, v)
		}
	}
	root := func(u value.User) {
		for _, o := range u.Operands() {
			mark(*o)
		}
	}
	for _, b := range fn.Blocks {
		for _, inst := range b.Insts {
			if hasSideEffect(md, inst) {
				if v, ok := inst.(value.Value); ok {
					live[v] = true
				}
				if u, ok := inst.(value.User); ok {
					root(u)
				}
			}
		}
		if u, ok := b.Term.(value.User); ok {
			root(u)
		}
	}
	for len(work) > 0 {
		v := work[len(work)-1]
		work = work[:len(work)-1]
		if u, ok := v.(value.User); ok {
			root(u)
		}
	}
	for _, b := range fn.Blocks {
		kept := b.Insts[:0]
		for _, inst := range b.Insts {
			v, isVal := inst.(value.Value)
			if hasSideEffect(md, inst) || (isVal && live[v]) {
				kept = append(kept, inst)
			}
		}
		b.Insts = kept
	}
}

func hasSideEffect(md *module, inst llvm.Instruction) bool {
	switch i := inst.(type) {
	case *llvm.InstStore, *llvm.InstAtomicRMW, *llvm.InstCmpXchg, *llvm.InstFence:
		return true
	case *llvm.InstLoad:
		return i.Volatile
	case *llvm.InstCall:
		return !md.pure[i.Callee]
	}
	return false
}
