package tle

import (
	"strings"
	"testing"
)

// TestDtypeBindingKey: a kernel's dtype parameter is a -D binding, so each
// dtype is its own entry of the JIT and IR caches.
func TestDtypeBindingKey(t *testing.T) {
	f16 := bindingKey(CompileOptions{Defines: map[string]string{"T": "f16", "BLOCK": "64"}})
	bf16 := bindingKey(CompileOptions{Defines: map[string]string{"T": "bf16", "BLOCK": "64"}})
	if f16 == bf16 || !strings.Contains(bf16, "T=bf16;") {
		t.Fatalf("binding keys %q and %q", f16, bf16)
	}
}
