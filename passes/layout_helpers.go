package passes

import (
	"math/bits"
)

// Small helpers of the layout passes.

func layIsPow2(x int) bool { return x > 0 && x&(x-1) == 0 }

func layLog2(x int) int { return bits.Len(uint(x)) - 1 }
