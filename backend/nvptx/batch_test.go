package nvptx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// batchModule is a module as EmitLLVM prints them, named name: shared
// memory, a declaration with attributes, inline assembly whose text has a
// "}" at the start of a line and a "#", a loop (branch labels) and the
// kernel annotations.
func batchModule(name string, n int) string {
	return strings.NewReplacer("NAME", name, "N", strings.Repeat("1", n)).Replace(`target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

define void @NAME(float addrspace(1)* %x, i32 %n) {
entry:
	%v0 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
	br label %bb1

bb1:
	%v1 = phi i32 [ 0, %entry ], [ %v5, %bb1 ]
	%v2 = getelementptr inbounds float, float addrspace(1)* %x, i32 %v1
	%v3 = load float, float addrspace(1)* %v2, align 4
	%v4 = fadd float %v3, N.0
	store float %v4, float addrspace(1)* %v2, align 4
	call void @llvm.nvvm.barrier0()
	%v6 = call i32 asm sideeffect "{\0A\09.reg .pred %p; // #1 !0\0A\09setp.ne.b32 %p, $1, 0;\0A\09@!%p mov.b32 $0, 1;\0A}", "=r,r"(i32 %v0)
	%v5 = add i32 %v1, %v6
	%v7 = icmp slt i32 %v5, %n
	br i1 %v7, label %bb1, label %bb2

bb2:
	ret void
}

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()

declare void @llvm.nvvm.barrier0() #0

attributes #0 = { convergent }

!nvvm.annotations = !{!0, !1}
!0 = !{void (float addrspace(1)*, i32)* @NAME, !"kernel", i32 1}
!1 = !{void (float addrspace(1)*, i32)* @NAME, !"maxntidx", i32 128}
`)
}

// countingLLC is an llc that counts its runs in a file.
func countingLLC(t *testing.T) (*LLC, func() int) {
	t.Helper()
	real := llcOrSkip(t).(*LLC)
	dir := t.TempDir()
	count := filepath.Join(dir, "runs")
	script := filepath.Join(dir, "llc")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho run >> "+count+"\nexec "+real.Path+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return &LLC{Path: script}, func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
}

// PTXAll runs llc once for modules that all need PTX 8.0, and gives each
// the PTX that PTX gives it, but for comments, with its own names and
// label numbers: two modules define the same kernel name, and one name is
// another's prefix.
func TestPTXAllOneRun(t *testing.T) {
	l, runs := countingLLC(t)
	mods := []string{batchModule("k", 1), batchModule("k", 2), batchModule("k_1", 3), batchModule("other", 4)}
	all, err := l.PTXAll(mods, "sm_90a")
	if err != nil {
		t.Fatal(err)
	}
	if n := runs(); n != 1 {
		t.Fatalf("%d llc runs for one batch, want 1", n)
	}
	for i, m := range mods {
		one, err := l.PTX(m, "sm_90a")
		if err != nil {
			t.Fatal(err)
		}
		if a, b := WithoutComments(one), WithoutComments(all[i]); a != b {
			t.Errorf("module %d: alone\n%s\nin the batch\n%s", i, a, b)
		}
		if strings.Contains(all[i], batchMark) {
			t.Errorf("module %d keeps the batch's names:\n%s", i, all[i])
		}
	}
}

// A module llc rejects is named by its index, as it is alone.
func TestPTXAllNamesTheRejectedModule(t *testing.T) {
	l := llcOrSkip(t).(*LLC)
	_, err := l.PTXAll([]string{batchModule("a", 1), "this is not LLVM IR", batchModule("b", 2)}, "sm_90a")
	var me *ModuleError
	if !errors.As(err, &me) || me.Index != 1 || !strings.Contains(err.Error(), "module 2 of 3") || !strings.Contains(err.Error(), "expected top-level entity") {
		t.Fatalf("error %v", err)
	}
}

// mergeModules refuses what it cannot rename or join.
func TestMergeModulesRefuses(t *testing.T) {
	ok := batchModule("a", 1)
	for name, bad := range map[string]string{
		"a quoted name":       strings.Replace(batchModule("b", 1), "@b(", `@"b c"(`, 1),
		"a name with a mark":  batchModule("b"+batchMark+"0_", 1),
		"another declaration": strings.Replace(batchModule("b", 1), "declare void @llvm.nvvm.barrier0() #0", "declare i32 @llvm.nvvm.barrier0()", 1),
		"debug information":   batchModule("b", 1) + "!llvm.dbg.cu = !{!0}\n",
		"another triple":      strings.Replace(batchModule("b", 1), "nvptx64-nvidia-cuda", "nvptx-nvidia-cuda", 1),
	} {
		if _, _, err := mergeModules([]string{ok, bad}); err == nil {
			t.Errorf("%s: merged", name)
		}
	}
	if _, _, err := mergeModules([]string{ok, batchModule("b", 1)}); err != nil {
		t.Errorf("two plain modules: %v", err)
	}
}
