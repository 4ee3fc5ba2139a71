package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newProgressBar(&b)
	p.update(1, 4, "warm up H=96 T=8192")
	require.Contains(t, b.String(), "warm up H=96 T=8192")
	require.Contains(t, b.String(), "1/4")
	p.update(4, 4, "done")
	p.done()
	require.Contains(t, b.String(), "\n")
}
