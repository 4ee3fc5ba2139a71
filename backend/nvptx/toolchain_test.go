package nvptx

import (
	"errors"
	"strings"
	"testing"
)

func TestToNVVMDialect(t *testing.T) {
	in := "define void @k(%T* byval(%T) align 64 %p) mustprogress noundef {\n  ret void\n}\n!0 = !{i32 1}\n!7 = !{i32 2}\n"
	out := ToNVVMDialect(in)
	for _, want := range []string{"byval align 64", "!nvvmir.version = !{!8}", "!8 = !{i32 2, i32 0}"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, bad := range []string{"byval(", "mustprogress", "noundef"} {
		if strings.Contains(out, bad) {
			t.Errorf("%q left in:\n%s", bad, out)
		}
	}
}

func TestLLCFailureNamesCommand(t *testing.T) {
	tc := llcOrSkip(t)
	_, err := tc.PTX("this is not LLVM IR", "sm_90a")
	if err == nil || !strings.Contains(err.Error(), "-mcpu=sm_90a") || !strings.Contains(err.Error(), ".ll") {
		t.Fatalf("error does not name the command and the kept .ll: %v", err)
	}
}

type fakeNVVM struct{ got string }

func (f *fakeNVVM) Compile(ir string, opts []string) (string, string, error) {
	f.got = ir + strings.Join(opts, " ")
	return "", "bad things", errors.New("NVVM_ERROR_COMPILATION")
}

func TestSelect(t *testing.T) {
	if _, _, err := Select("gcc"); err == nil {
		t.Error("unknown toolchain accepted")
	}
	f := &fakeNVVM{}
	RegisterNVVM(func() (NVVMCompiler, error) { return f, nil })
	defer RegisterNVVM(nil)
	tc, why, err := Select("nvvm")
	if err != nil || tc.Name() != "nvvm" || why == "" {
		t.Fatalf("nvvm: %v %v %q", tc, err, why)
	}
	_, err = tc.PTX("target triple = \"nvptx64-nvidia-cuda\"\n", "sm_90a")
	if err == nil || !strings.Contains(err.Error(), "bad things") || !strings.Contains(f.got, "-arch=compute_90a") {
		t.Errorf("nvvm failure: %v (given %q)", err, f.got)
	}
	tc, why, err = Select("auto")
	if err != nil || why == "" {
		t.Fatalf("auto: %v", err)
	}
	t.Logf("auto: %s (%s)", tc.Name(), why)
}
