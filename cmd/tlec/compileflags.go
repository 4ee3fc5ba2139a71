package main

import (
	"strings"

	"github.com/tlego/tle/tle"
)

// dumpAfterHelp is the help text of the --dump-after flag, from the pass
// table (tle.PassNames).
func dumpAfterHelp() string {
	names, gpu := tle.PassNames()
	var tile, dev []string
	for i, n := range names {
		if gpu[i] {
			dev = append(dev, n)
		} else {
			tile = append(tile, n)
		}
	}
	return "dump the IR after `PASS` (or all) as <kernel>_<seq>__<pass>.tir; passes: " + strings.Join(tile, ", ") +
		"; on the GPU only: " + strings.Join(dev, ", ")
}
