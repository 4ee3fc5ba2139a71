package cuda

import "testing"

// LoadFunction loads ptx into c until the end of t and returns its kernel
// name; the fake's tests and, from package cuda_test, the GPU tests use it.
func LoadFunction(t testing.TB, c *Context, ptx []byte, name string) *Function {
	t.Helper()
	m, err := c.LoadPTX(ptx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Unload() })
	f, err := m.Function(name)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
