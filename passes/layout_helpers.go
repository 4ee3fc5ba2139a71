package passes

import (
	"math/bits"
	"strconv"
	"strings"
)

// Small helpers of the layout passes; package gpu has its own copies.

func layIntsString(v []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(x))
	}
	b.WriteByte(']')
	return b.String()
}

func layIsPow2(x int) bool { return x > 0 && x&(x-1) == 0 }

func layLog2(x int) int { return bits.Len(uint(x)) - 1 }

func layMinInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func layMaxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
