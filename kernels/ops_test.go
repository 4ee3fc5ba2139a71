package kernels

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/kernels/kda"
	"github.com/tlego/tle/kernels/registry"
)

func TestRegistry(t *testing.T) {
	op, ok := Lookup("kda_fwd")
	require.True(t, ok)
	require.Equal(t, "kda_fwd", op.Name())
	_, ok = Lookup("nope")
	require.False(t, ok)
	var names []string
	for _, op := range Ops() {
		names = append(names, op.Name())
	}
	require.Contains(t, names, "kda_fwd")
	require.Contains(t, names, "attn_decode")
	require.IsNonDecreasing(t, names)
	require.Panics(t, func() { registry.Register(kda.Op{}) }, "a second op of one name")
}
