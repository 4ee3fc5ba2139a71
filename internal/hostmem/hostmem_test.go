package hostmem

import (
	"testing"
)

func TestViewsAlias(t *testing.T) {
	f := []float32{1, 2}
	b := Bytes(f)
	if len(b) != 8 {
		t.Fatalf("Bytes: %d bytes", len(b))
	}
	u := Cast[uint32](f)
	u[1] = 0x40400000 // 3.0
	if f[1] != 3 {
		t.Fatalf("Cast does not alias: %v", f)
	}
	v := View[float32](b)
	v[0] = 5
	if f[0] != 5 {
		t.Fatalf("View does not alias: %v", f)
	}
	a := Alloc(12)
	if len(a) != 12 || len(View[uint32](a)) != 3 {
		t.Fatalf("Alloc(12): %d bytes", len(a))
	}
	if Bytes([]float64(nil)) != nil || len(View[int64](Alloc(0))) != 0 {
		t.Fatal("empty views")
	}
}

func TestViewRefusesMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"length":    func() { View[uint32](make([]byte, 6)) },
		"alignment": func() { View[uint32](Alloc(16)[1:13]) },
		"sizes":     func() { Cast[uint16]([]uint32{1}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
