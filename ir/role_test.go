package ir

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoleCopy(t *testing.T) {
	one := &Op{Kind: OpRole, Attrs: Attrs{"name": "load", "warps": int64(1)}}
	k, n := RoleCopy(one)
	require.Equal(t, []int{0, 1}, []int{k, n})
	require.Equal(t, `"load"`, RoleLabel(one))
	c := &Op{Kind: OpRole, Attrs: Attrs{"name": "consumer", "warps": int64(4), "copy": int64(1), "copies": int64(2)}}
	k, n = RoleCopy(c)
	require.Equal(t, []int{1, 2}, []int{k, n})
	require.Equal(t, `"consumer" copy 1`, RoleLabel(c))
}
