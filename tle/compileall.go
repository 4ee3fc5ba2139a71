package tle

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
)

// A Spec is one specialisation for CompileAll: a kernel and the options
// to compile it with.
type Spec struct {
	Kernel  *Kernel
	Options CompileOptions
}

// CompileAll compiles specialisations as Compile does, each to the Binary
// Compile gives it, but runs the toolchain once for all of them that are
// not cached when it can take several modules at once: llc compiles them
// merged into one module (nvptx.LLC.PTXAll) and pays its start, most of a
// small kernel's compile, once. A sweep of small kernels (a test matrix,
// an autotuning space) compiles several times faster.
//
// The PTX of a batch differs from Compile's only in comments and blank
// lines. Its Binaries are kept in the process's cache, not on disk, so
// that the disk cache holds only what Compile made. The error of the
// first specialisation that fails is returned, naming it.
func CompileAll(specs []Spec, g GPUOptions) ([]*Binary, error) {
	out := make([]*Binary, len(specs))
	type pending struct {
		i int
		m *ir.Module
		b *Binary
		g GPUOptions
	}
	var todo []pending
	for i, s := range specs {
		if s.Kernel == nil {
			return nil, fmt.Errorf("tle: CompileAll: spec %d: %w", i, errNilKernel("Compile"))
		}
		opts, gg, err := forGPU(s.Options, g)
		if err != nil {
			return nil, specError(i, s, err)
		}
		if opts.DumpAfter != "" || gg.PTX != "" || os.Getenv("TLE_HTML") == s.Kernel.Name() {
			// what Compile does beyond a plain compile, it does alone
			if out[i], err = s.Kernel.Compile(s.Options, g); err != nil {
				return nil, specError(i, s, err)
			}
			continue
		}
		key := s.Kernel.cacheKey(opts, gg)
		jit.mu.Lock()
		b, ok := jit.mem[key]
		jit.mu.Unlock()
		if !ok {
			b, _ = readCacheEntry(filepath.Join(CacheDir(), key+".json"), key)
		}
		if b != nil {
			out[i] = b
			continue
		}
		m, err := s.Kernel.IR(opts)
		if err != nil {
			return nil, specError(i, s, err)
		}
		if b, err = emitModule(m, s.Kernel.Name(), opts, gg); err != nil {
			return nil, specError(i, s, err)
		}
		b.Key = key
		todo = append(todo, pending{i, m, b, gg})
	}
	// one toolchain run per (toolchain, arch): forGPU gave every spec g's
	for len(todo) > 0 {
		gg := todo[0].g
		var batch, rest []pending
		for _, p := range todo {
			if p.g.Toolchain == gg.Toolchain && p.g.Arch == gg.Arch {
				batch = append(batch, p)
			} else {
				rest = append(rest, p)
			}
		}
		todo = rest
		tc, why, err := nvptx.Select(gg.Toolchain)
		if err != nil {
			return nil, err
		}
		irs := make([]string, len(batch))
		for k, p := range batch {
			irs[k] = p.b.LLVMIR
		}
		ptxs, err := ptxAll(tc, irs, gg.Arch)
		if err != nil {
			var me *nvptx.ModuleError
			if errors.As(err, &me) {
				p := batch[me.Index]
				return nil, specError(p.i, specs[p.i], ir.Diagnose(p.m.File, me.Err))
			}
			return nil, err
		}
		for k, p := range batch {
			p.b.PTX, p.b.Toolchain = ptxs[k], why
			out[p.i] = p.b
			jit.mu.Lock()
			jit.mem[p.b.Key] = p.b
			jit.mu.Unlock()
		}
	}
	return out, nil
}

// ptxAll runs tc over the modules: at once where it can (a Batcher), else
// one by one.
func ptxAll(tc nvptx.Toolchain, irs []string, arch string) ([]string, error) {
	if b, ok := tc.(nvptx.Batcher); ok {
		return b.PTXAll(irs, arch)
	}
	out := make([]string, len(irs))
	for i, m := range irs {
		p, err := tc.PTX(m, arch)
		if err != nil {
			return nil, &nvptx.ModuleError{Index: i, Of: len(irs), Err: err}
		}
		out[i] = p
	}
	return out, nil
}

// specError names the specialisation an error comes from.
func specError(i int, s Spec, err error) error {
	return fmt.Errorf("tle: CompileAll: spec %d (%s %s): %w", i, s.Kernel.Name(), bindingKey(s.Options), err)
}
