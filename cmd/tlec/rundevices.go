package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tlego/tle/tle"
)

// runDevices is tlec run --devices N: the kernel on N simulated devices of
// the interpreter (tle.Kernel.RunDevices), each with its own arguments,
// the --symmetric ones making symmetric allocations.
func runDevices(e *env, r *runFlags, k *tle.Kernel, opts tle.CompileOptions, grid [3]int) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "tlec run: "+format+"\n", args...)
		return 2
	}
	switch {
	case r.devices < 1:
		return fail("--devices %d: want at least 1 (--symmetric needs --devices)", r.devices)
	case r.device != "auto" && r.device != "cpu", r.ptx != "":
		return fail("--devices runs on the interpreter's simulated devices; it cannot go with --device %s or --ptx", r.device)
	}
	args := make([]map[string]any, r.devices)
	hosts := make([]map[string]*hostArg, r.devices)
	for d := range args {
		var err error
		if args[d], hosts[d], err = buildArgsSeeded(k, opts.Defines, r.args, fmt.Sprintf("@device%d", d)); err != nil {
			return fail("%v", err)
		}
	}
	saves, err := parseSaves(k, opts.Defines, r.saves, nil)
	if err != nil {
		return fail("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	mesh := tle.SimDevices(r.devices)
	if err := k.RunDevices(ctx, mesh, grid, opts, args, r.symmetric...); err != nil {
		printError(e.stderr, "run", err)
		return 1
	}
	fmt.Fprintf(e.stderr, "tlec run: %s, grid %dx%dx%d, on %s\n", k.Name(), grid[0], grid[1], grid[2], mesh.Name())
	for _, s := range saves {
		for d := range hosts {
			h := hosts[d][s.name]
			path := devicePath(s.path, d)
			if err := h.save(path, s.elem); err != nil {
				fmt.Fprintf(e.stderr, "tlec run: --save %s: %v\n", s.name, err)
				return 1
			}
			fmt.Fprintf(e.stdout, "%s of device %d: %v %s saved to %s (%s)\n", s.name, d, h.shape, s.elem, path, h.summary())
		}
	}
	return 0
}

// devicePath is path with .devD before its extension: out.npy, 1 ->
// out.dev1.npy.
func devicePath(path string, d int) string {
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s.dev%d%s", strings.TrimSuffix(path, ext), d, ext)
}
