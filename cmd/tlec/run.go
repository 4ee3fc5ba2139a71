package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/tlego/tle/internal/fileio"
	"github.com/tlego/tle/internal/hostmem"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/runtime/cuda"
	"github.com/tlego/tle/runtime/interp"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

type runFlags struct {
	launchFlags
	saves     multiFlag
	ptx       string
	devices   int
	symmetric multiFlag
}

func init() {
	register(&command{
		name:    "run",
		usage:   "FILE [--kernel NAME] --grid X[,Y[,Z]] [-D NAME=VALUE]... [--arg NAME=VALUE]... [--save NAME=PATH]... [--device auto|cpu|cuda] [--timeout DURATION] [--devices N [--symmetric NAME]...]",
		summary: "compile a kernel and run it on the interpreter or a GPU",
		help: `Run compiles one kernel of FILE (--kernel; it may be left out when FILE has
one kernel), specialised with -D, and launches it once over --grid CTAs (a
multiple of the cluster size when the kernel declares a device_mesh). It
says on standard error what it ran, where and how long it took; on a
terminal an interpreter launch that runs past a second shows how many
programs are done. Missing --arg values are all named at once.

Every runtime parameter needs --arg NAME=VALUE:
  pointer or desc parameter   a .npy file (one of the parameter's element
                              type, <f4 for f32, <i4 for i32, is read
                              straight into the buffer; others are
                              converted, floats rounding to nearest even),
                              or zeros:N / zeros:AxB (a shape in elements),
                              or rand:AxB: random values, never zero,
                              seeded (the same shape, the same data);
                              a pointer may be None (Triton's None: the
                              kernel is specialised with -D NAME=None)
  *i64 or *u64 pointer table  table:DTYPE:V0,V1,...: a buffer of DTYPE for
                              each V (as above), the kernel getting the
                              table of their addresses (Triton's grouped
                              GEMM); --save NAME[k]=PATH writes entry k
  scalar parameter            a number, range-checked against the
                              parameter's dtype (an integer parameter
                              takes integer text only: 1000, 0x3e8)
The grid is within CUDA's limits on every device: x < 2^31, y and z < 2^16.
Each pointer argument gets its own buffer, even when two read the same file.
--save NAME=PATH writes a buffer after the launch as .npy (floats widened to
f32, integers as they are).

--devices N runs a kernel of a mesh across devices (device_mesh(device: N))
on N simulated devices of the interpreter: every --arg is given to each
device as its own buffer (rand: differs per device), --symmetric NAME makes
a pointer parameter a symmetric allocation (one part per device), and
--save NAME=out.npy writes each device's buffer to out.dev0.npy,
out.dev1.npy, ... (docs/distributed.md).

--device cpu is the interpreter, which also reports out-of-bounds accesses,
pipe misuse, shared-memory races between roles and deadlocks at their .tle
position; cuda is the GPU; auto (the
default) takes the GPU when one is present, else the interpreter, and says
which on standard error. --timeout (default 5m) stops the interpreter's
programs after that long and names those still running; a GPU launch is
checked against it before it starts.

The compile flags are tlec build's: -D, --num-warps, --num-stages,
--min-ctas, --loop-addresses, --dot-wgmma, --verify-each, --dump-after,
--dump-dir, and, on a GPU, --arch and --toolchain. --ptx FILE runs PTX from
tlec build instead of compiling it here (GPU only); the kernel is still
compiled to LLVM IR for its launch parameters (warps, shared memory), so
give run the flags the PTX was built with.`,
		flags: func(fs *flag.FlagSet) any {
			r := &runFlags{}
			r.launchFlags.register(fs, "run", tle.DefaultTimeout, "stop the launch after this long (Go duration: 2s, 1m30s); the interpreter stops its programs, a GPU launch is checked before it starts")
			fs.Var(&r.saves, "save", "write a buffer after the launch: `NAME=PATH` (repeatable)")
			fs.StringVar(&r.ptx, "ptx", "", "run this PTX (from tlec build) instead of compiling on this machine (GPU only)")
			fs.IntVar(&r.devices, "devices", 0, "run on this many simulated devices of the interpreter (a kernel of device_mesh(device: n))")
			fs.Var(&r.symmetric, "symmetric", "with --devices: a pointer parameter that is a symmetric allocation, one part per device: `NAME` (repeatable)")
			return r
		},
		run: runRun,
	})
}

func runRun(e *env, cfg any, files []string) int {
	r := cfg.(*runFlags)
	fail := func(format string, args ...any) int {
		fmt.Fprintf(e.stderr, "tlec run: "+format+"\n", args...)
		return 2
	}
	if len(files) != 1 {
		return fail("name exactly one .tle file (got %d)", len(files))
	}
	grid, err := parseGrid(r.grid)
	if err != nil {
		return fail("--grid: %v", err)
	}
	if r.timeout <= 0 {
		return fail("--timeout %v: want a positive duration, e.g. 2s", r.timeout)
	}
	k, opts, gopts, code := r.compile.load(e, "run", files[0], r.kernel)
	if k == nil {
		return code
	}
	if r.devices != 0 || len(r.symmetric) > 0 {
		return runDevices(e, r, k, opts, grid)
	}
	if r.ptx != "" {
		if r.device == "cpu" {
			return fail("--ptx runs on the GPU; it cannot go with --device cpu")
		}
		r.device = "cuda"
		data, err := fileio.ReadFile(r.ptx, maxPTXBytes)
		if err != nil {
			return fail("--ptx: %v", err)
		}
		gopts.PTX = string(data)
	}
	dev, err := pickDevice(e, "run", r.device, gopts)
	if err != nil {
		return fail("%v", err)
	}
	for _, a := range r.args {
		// a large zeros: takes seconds to allocate: say so before it starts
		if name, spec, ok := strings.Cut(a, "=zeros:"); ok {
			if shape, err := parseZeros(spec); err == nil && numElems(shape) >= 1<<25 {
				size := max(paramElem(k, opts.Defines, name).Bytes(), 1)
				fmt.Fprintf(e.stderr, "tlec run: %s: allocating %d elements (%.1f GiB on the host)\n", name, numElems(shape), float64(numElems(shape))*float64(size)/(1<<30))
			}
		}
	}
	args, tensors, err := buildArgs(k, opts.Defines, r.args)
	if err != nil {
		return fail("%v", err)
	}
	saves, err := parseSaves(k, opts.Defines, r.saves, tensors)
	if err != nil {
		return fail("%v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.timeout)
	defer cancel()
	bar := newLaunchProgress(e.stderr)
	ctx = tle.WithProgress(ctx, bar.update)
	start := time.Now()
	err = k.RunContext(ctx, dev, grid, opts, args)
	bar.finish()
	if err != nil {
		printError(e.stderr, "run", err)
		return 1
	}
	took := time.Since(start)
	if took >= time.Millisecond {
		took = took.Round(time.Millisecond)
	} else {
		took = took.Round(time.Microsecond)
	}
	fmt.Fprintf(e.stderr, "tlec run: %s, grid %dx%dx%d, on %s: %s\n", k.Name(), grid[0], grid[1], grid[2], dev.Name(), took)
	for _, s := range saves {
		h := tensors[s.name]
		if err := h.save(s.path, s.elem); err != nil {
			fmt.Fprintf(e.stderr, "tlec run: --save %s: %v\n", s.name, err)
			return 1
		}
		fmt.Fprintf(e.stdout, "%s: %v %s saved to %s (%s)\n", s.name, h.shape, s.elem, s.path, h.summary())
	}
	return 0
}

func parseGrid(s string) ([3]int, error) {
	g := [3]int{1, 1, 1}
	if s == "" {
		return g, errors.New("required, e.g. --grid 64 or --grid 32,32")
	}
	parts := strings.Split(s, ",")
	if len(parts) > 3 {
		return g, fmt.Errorf("%q has more than three dimensions", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return g, fmt.Errorf("%q: each dimension must be a positive integer", s)
		}
		g[i] = n
	}
	return g, nil
}

func pickDevice(e *env, cmd, name string, gopts tle.GPUOptions) (tle.Device, error) {
	switch name {
	case "cpu":
		return tle.CPU(), nil
	case "cuda":
		g, err := tle.OpenGPU()
		if err != nil {
			return nil, err
		}
		return g.With(gopts), nil
	case "auto":
		g, err := tle.OpenGPU()
		if err != nil {
			fmt.Fprintf(e.stderr, "tlec %s: %s: the interpreter runs the kernel\n", cmd, noGPU(err))
			return tle.CPU(), nil
		}
		fmt.Fprintf(e.stderr, "tlec %s: device %s\n", cmd, g.Name())
		return g.With(gopts), nil
	}
	return nil, fmt.Errorf("--device %q: want auto, cpu or cuda", name)
}

// buildArgs reads every --arg into a kernel argument.
func buildArgs(k *tle.Kernel, defines map[string]string, raw []string) (map[string]any, map[string]*hostArg, error) {
	return buildArgsSeeded(k, defines, raw, "")
}

// buildArgsSeeded is buildArgs with rand:'s seeds extended by seed (one
// per device of tlec run --devices, whose random inputs then differ).
func buildArgsSeeded(k *tle.Kernel, defines map[string]string, raw []string, seed string) (map[string]any, map[string]*hostArg, error) {
	params := map[string]tle.Param{}
	for _, p := range k.Params() {
		params[p.Name] = p
	}
	args := map[string]any{}
	tensors := map[string]*hostArg{}
	for _, a := range raw {
		name, value, ok := strings.Cut(a, "=")
		if !ok || name == "" || value == "" {
			return nil, nil, fmt.Errorf("--arg %s: want NAME=VALUE", a)
		}
		p, ok := params[name]
		if !ok || p.Const {
			what := "no parameter"
			if ok {
				what = "a compile-time parameter (bind it with -D)"
			}
			return nil, nil, fmt.Errorf("--arg %s: kernel %s has %s named %s", a, k.Name(), what, name)
		}
		if _, dup := args[name]; dup {
			return nil, nil, fmt.Errorf("--arg %s: %s is given twice", a, name)
		}
		if elem := paramElem(k, defines, name); elem != ir.Invalid && value == "None" && strings.HasPrefix(p.Type, "*") {
			args[name] = nil // an optional tensor left out: Run binds -D NAME=None
			continue
		}
		if spec, ok := strings.CutPrefix(value, "table:"); ok && strings.HasPrefix(p.Type, "*") {
			pt, entries, err := readTable(name, spec, paramElem(k, defines, name), a+seed)
			if err != nil {
				return nil, nil, fmt.Errorf("--arg %s: %v", a, err)
			}
			args[name] = pt
			for k, h := range entries {
				tensors[fmt.Sprintf("%s[%d]", name, k)] = h
			}
			continue
		}
		if elem := paramElem(k, defines, name); elem != ir.Invalid {
			h, err := readArgSeed(value, elem, a+seed) // rand: seeded by NAME=VALUE: x and y of one shape differ
			if err != nil {
				return nil, nil, fmt.Errorf("--arg %s: %v", a, err)
			}
			args[name], tensors[name] = h.arg(), h
			continue
		}
		v, err := parseScalar(value)
		if err != nil {
			return nil, nil, fmt.Errorf("--arg %s: %s is a %s scalar; %v", a, name, p.Type, err)
		}
		args[name] = v // its range against the parameter's dtype is checked by Kernel.Run
	}
	var missing []string
	for _, p := range k.Params() {
		if _, ok := args[p.Name]; !ok && !p.Const {
			missing = append(missing, fmt.Sprintf("--arg %s=VALUE (%s %s)", p.Name, p.Name, p.Type))
		}
	}
	switch len(missing) {
	case 0:
		return args, tensors, nil
	case 1:
		return nil, nil, fmt.Errorf("missing %s", missing[0])
	}
	return nil, nil, fmt.Errorf("missing %d arguments: %s", len(missing), strings.Join(missing, ", "))
}

// readTable reads table:DTYPE:V0,V1,... for pointer parameter name of
// element dtype elem (i64 or u64): a PointerTable of DTYPE buffers, each
// Vk read as --arg reads a buffer (a .npy file, zeros:SHAPE, rand:SHAPE,
// seeded by seed and k), the kernel getting the table of their addresses.
func readTable(name, spec string, elem ir.DType, seed string) (*tle.PointerTable, []*hostArg, error) {
	if elem != ir.I64 && elem != ir.U64 {
		return nil, nil, fmt.Errorf("a table: is an *i64 or *u64 argument (the addresses), not *%s", elem)
	}
	dts, list, ok := strings.Cut(spec, ":")
	dt, okD := ir.ParseDType(dts)
	if !ok || !okD || dt == ir.I1 || list == "" {
		return nil, nil, fmt.Errorf("want table:DTYPE:V0,V1,... (DTYPE an element dtype such as f16; each V a .npy file, zeros:SHAPE or rand:SHAPE)")
	}
	pt := &tle.PointerTable{DType: dt.String()}
	var entries []*hostArg
	for k, v := range strings.Split(list, ",") {
		h, err := readArgSeed(v, dt, fmt.Sprintf("%s#%d", seed, k))
		if err != nil {
			return nil, nil, fmt.Errorf("table entry %s[%d] (%s): %v", name, k, v, err)
		}
		pt.Entries = append(pt.Entries, h.arg())
		entries = append(entries, h)
	}
	return pt, entries, nil
}

// parseScalar reads a scalar argument's text as the Go number it spells:
// int64 for an integer (decimal, 0x.., 0o.., 0b..; a leading zero is
// decimal, as --grid reads it, never octal), uint64 for an integer above
// int64's range, float64 for anything else strconv reads as a float. Which
// of these the parameter takes, and in what range, is the API's rule.
func parseScalar(text string) (any, error) {
	base := 0
	if digits := strings.TrimLeft(text, "+-"); len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9' {
		base = 10
	}
	if i, err := strconv.ParseInt(text, base, 64); err == nil {
		return i, nil
	}
	if u, err := strconv.ParseUint(text, base, 64); err == nil {
		return u, nil
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil {
		return f, nil
	} else if errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%q is out of the range of a float64", text)
	}
	return nil, fmt.Errorf("%q is not a number", text)
}

// maxZerosElems bounds zeros:SHAPE: 2^28 elements are 1 GiB of f32 and
// at most 2 GiB of host memory (larger inputs come from .npy files, whose
// size bounds them); maxZerosRank is numpy's limit, so that --save can
// write what zeros: made.
const (
	maxZerosElems = 1 << 28
	maxZerosRank  = 64
)

// parseZeros reads the SHAPE of zeros:SHAPE: positive integers joined by x.
func parseZeros(spec string) ([]int, error) { return parseShape("zeros", spec) }

// parseShape reads the SHAPE of KIND:SHAPE (zeros, rand): positive
// integers joined by x.
func parseShape(kind, spec string) ([]int, error) {
	bad := fmt.Errorf("%s:%s: the shape is positive integers joined by x, e.g. %s:64x128", kind, spec, kind)
	var shape []int
	n := 1
	for _, d := range strings.Split(spec, "x") {
		if d == "" || strings.TrimLeft(d, "0123456789") != "" {
			return nil, bad
		}
		v, err := strconv.Atoi(d)
		if err != nil || v < 1 {
			return nil, bad
		}
		if v > maxZerosElems/n {
			return nil, fmt.Errorf("%s:%s: more than %d (2^28) elements", kind, spec, maxZerosElems)
		}
		n *= v
		shape = append(shape, v)
	}
	if len(shape) > maxZerosRank {
		return nil, fmt.Errorf("%s:%s: %d dimensions, more than %d", kind, spec, len(shape), maxZerosRank)
	}
	return shape, nil
}

// hostArg is the data of a pointer or desc argument: an array in the
// parameter's dtype (data, a []float32, []uint16 of bf16 bits, ...: the
// interpreter's buffer itself), or, for a .npy file of another element
// type, a Tensor that Run converts to the dtype.
type hostArg struct {
	shape  []int
	elem   ir.DType
	data   any
	tensor *tle.Tensor
}

// readArg makes the data of --arg NAME=VALUE for a parameter of element
// dtype elem: zeros:SHAPE is an array of zeros in the dtype, rand:SHAPE one
// of random values (randomBuffer); a .npy file
// whose element type is the dtype's (<f4 for f32, <i4 for i32, |b1 for
// i1, ...) is read straight into an array, any other is converted as a
// Tensor (floats rounding to nearest even; integers must be exact).
func readArg(value string, elem ir.DType) (*hostArg, error) { return readArgSeed(value, elem, value) }

// readArgSeed is readArg with rand:'s generator seeded by seed.
func readArgSeed(value string, elem ir.DType, seed string) (*hostArg, error) {
	if spec, ok := strings.CutPrefix(value, "zeros:"); ok {
		shape, err := parseZeros(spec)
		if err != nil {
			return nil, err
		}
		return &hostArg{shape: shape, elem: elem, data: interp.NewBuffer(elem, numElems(shape)).Slice()}, nil
	}
	if spec, ok := strings.CutPrefix(value, "rand:"); ok {
		shape, err := parseShape("rand", spec)
		if err != nil {
			return nil, err
		}
		return &hostArg{shape: shape, elem: elem, data: randomBuffer(elem, numElems(shape), seed).Slice()}, nil
	}
	raw, err := npy.ReadRawFile(value)
	if err != nil {
		return nil, err
	}
	shape := raw.Shape
	if len(shape) == 0 {
		shape = []int{1}
	}
	if raw.Kind() == elem && hostmem.LittleEndian {
		if data := viewAs(elem, raw.Data); data != nil {
			return &hostArg{shape: shape, elem: elem, data: data}, nil
		}
	}
	return &hostArg{shape: shape, elem: elem, tensor: &tle.Tensor{Shape: shape, Data: raw.Array().Float64s()}}, nil
}

// viewAs views b (8-byte aligned little-endian elements of dtype d) as
// the slice type d's buffers hold (interp.SliceType); nil for bf16 and fp8,
// which no .npy type holds.
func viewAs(d ir.DType, b []byte) any {
	switch d {
	case ir.F64:
		return hostmem.View[float64](b)
	case ir.F32:
		return hostmem.View[float32](b)
	case ir.F16, ir.U16:
		return hostmem.View[uint16](b)
	case ir.I1:
		return hostmem.View[bool](b)
	case ir.I8:
		return hostmem.View[int8](b)
	case ir.U8:
		return hostmem.View[uint8](b)
	case ir.I16:
		return hostmem.View[int16](b)
	case ir.I32:
		return hostmem.View[int32](b)
	case ir.U32:
		return hostmem.View[uint32](b)
	case ir.I64:
		return hostmem.View[int64](b)
	case ir.U64:
		return hostmem.View[uint64](b)
	}
	return nil
}

// arg is what Run takes: the Tensor, or the array as a *tle.Array of its
// shape.
func (h *hostArg) arg() any {
	if h.tensor != nil {
		return h.tensor
	}
	switch x := h.data.(type) {
	case []float64:
		return &tle.Array[float64]{Shape: h.shape, Data: x}
	case []float32:
		return &tle.Array[float32]{Shape: h.shape, Data: x}
	case []uint16:
		return &tle.Array[uint16]{Shape: h.shape, Data: x}
	case []uint8:
		return &tle.Array[uint8]{Shape: h.shape, Data: x}
	case []int8:
		return &tle.Array[int8]{Shape: h.shape, Data: x}
	case []int16:
		return &tle.Array[int16]{Shape: h.shape, Data: x}
	case []int32:
		return &tle.Array[int32]{Shape: h.shape, Data: x}
	case []int64:
		return &tle.Array[int64]{Shape: h.shape, Data: x}
	case []uint32:
		return &tle.Array[uint32]{Shape: h.shape, Data: x}
	case []uint64:
		return &tle.Array[uint64]{Shape: h.shape, Data: x}
	case []bool:
		return &tle.Array[bool]{Shape: h.shape, Data: x}
	}
	return h.data
}

// paramElem is the element dtype of kernel k's pointer or descriptor
// parameter name, with its dtype parameters bound by defines; ir.Invalid
// for a scalar or no such parameter.
func paramElem(k *tle.Kernel, defines map[string]string, name string) ir.DType {
	for _, p := range k.ParamsWith(defines) {
		if p.Name != name {
			continue
		}
		if strings.HasPrefix(p.Type, "*") {
			if t, err := ir.ParseType(strings.ReplaceAll(p.Type, " ", "")); err == nil {
				return ir.ElemDType(t)
			}
		} else if strings.HasPrefix(p.Type, "desc[") {
			d, _ := ir.ParseDType(strings.TrimSpace(strings.Split(strings.TrimPrefix(p.Type, "desc["), ",")[0]))
			return d
		}
	}
	return ir.Invalid
}

type save struct {
	name, path string
	elem       ir.DType
}

// parseSaves checks every --save before the run: NAME is a pointer or
// descriptor parameter, given once, and PATH a file that can be written (not
// a directory, in a directory that exists, not named by another --save).
func parseSaves(k *tle.Kernel, defines map[string]string, raw []string, tables map[string]*hostArg) ([]save, error) {
	var out []save
	seen := map[string]string{}
	for _, s := range raw {
		name, path, ok := strings.Cut(s, "=")
		if !ok || name == "" || path == "" {
			return nil, fmt.Errorf("--save %s: want NAME=PATH", s)
		}
		elem := paramElem(k, defines, name)
		if h := tables[name]; h != nil {
			elem = h.elem // a table entry, NAME[k]
		}
		if elem == ir.Invalid {
			return nil, fmt.Errorf("--save %s: %s is not a pointer or descriptor parameter of %s, nor an entry NAME[k] of a table: argument (only buffers can be saved)", s, name, k.Name())
		}
		if prev, dup := seen[name]; dup {
			return nil, fmt.Errorf("--save %s: %s is saved twice (also to %s)", s, name, prev)
		}
		for n, p := range seen {
			if filepath.Clean(p) == filepath.Clean(path) {
				return nil, fmt.Errorf("--save %s: %s is also where %s is saved", s, path, n)
			}
		}
		seen[name] = path
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return nil, fmt.Errorf("--save %s: %s is a directory; name the .npy file to write", s, path)
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("--save %s: the directory %s does not exist", s, filepath.Dir(path))
		}
		if probe, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".probe*"); err != nil {
			return nil, fmt.Errorf("--save %s: cannot write in %s: %v", s, filepath.Dir(path), err)
		} else {
			probe.Close()
			os.Remove(probe.Name())
		}
		out = append(out, save{name: name, path: path, elem: elem})
	}
	return out, nil
}

// save writes the argument's buffer as .npy as saveTensor does: an f32
// or integer array's bytes as they are (integers in their width), another
// float dtype's values as f32.
func (h *hostArg) save(path string, elem ir.DType) error {
	if h.tensor != nil {
		return saveTensor(path, h.tensor, elem)
	}
	b, err := interp.FromSlice(elem, h.data)
	if err != nil {
		return err
	}
	switch {
	case elem == ir.F32 || !elem.IsFloat():
		descr := "<f4"
		if !elem.IsFloat() {
			descr = npyIntDescr(elem)
		}
		if hostmem.LittleEndian {
			return npy.WriteRawFile(path, descr, h.shape, hostmem.SliceBytes(h.data))
		}
		return npy.WriteRawFile(path, descr, h.shape, b.Bytes())
	}
	f := make([]float32, b.Len())
	h.chunks(b, func(off int, xs []float64) {
		for i, x := range xs {
			f[off+i] = float32(x)
		}
	})
	return npy.WriteFile(path, npy.Float32(h.shape, f))
}

// chunks calls fn with the buffer's elements as float64, a chunk at a time.
func (h *hostArg) chunks(b *interp.Buffer, fn func(off int, xs []float64)) {
	buf := make([]float64, min(b.Len(), 1<<14))
	for off := 0; off < b.Len(); {
		n := b.CopyToFloat64(buf, off)
		fn(off, buf[:n])
		off += n
	}
}

// summary is summary of the argument's values.
func (h *hostArg) summary() string {
	if h.tensor != nil {
		return summary(h.tensor.Data)
	}
	b, err := interp.FromSlice(h.elem, h.data)
	if err != nil || b.Len() == 0 {
		return "empty"
	}
	var s stats
	h.chunks(b, func(_ int, xs []float64) { s.add(xs) })
	return s.String()
}

// saveTensor writes t as .npy: float types as f32, integers as i64.
// npy.WriteFile goes through a temporary file, so a failed write leaves
// neither a half-written file nor the temporary behind.
func saveTensor(path string, t *tle.Tensor, elem ir.DType) error {
	var a *npy.Array
	if elem.IsFloat() {
		f := make([]float32, len(t.Data))
		for i, x := range t.Data {
			f[i] = float32(x)
		}
		a = npy.Float32(t.Shape, f)
	} else {
		v := make([]int64, len(t.Data))
		for i, x := range t.Data {
			v[i] = int64(x)
		}
		a = npy.Int(npyIntDescr(elem), t.Shape, v)
	}
	return npy.WriteFile(path, a)
}

func npyIntDescr(d ir.DType) string {
	switch d {
	case ir.I1:
		return "|b1"
	case ir.I8:
		return "|i1"
	case ir.U8:
		return "|u1"
	case ir.I16:
		return "<i2"
	case ir.U16:
		return "<u2"
	case ir.I32:
		return "<i4"
	case ir.U32:
		return "<u4"
	case ir.U64:
		return "<u8"
	}
	return "<i8"
}

// summary describes values in one line: minimum, maximum, mean and sum.
func summary(xs []float64) string {
	if len(xs) == 0 {
		return "empty"
	}
	var s stats
	s.add(xs)
	return s.String()
}

// stats accumulates summary's figures over chunks of values, in order.
type stats struct {
	n           int
	lo, hi, sum float64
}

func (s *stats) add(xs []float64) {
	for _, x := range xs {
		if s.n == 0 {
			s.lo, s.hi = x, x
		}
		s.lo, s.hi, s.sum = min(s.lo, x), max(s.hi, x), s.sum+x
		s.n++
	}
}

func (s *stats) String() string {
	return fmt.Sprintf("min %.6g, max %.6g, mean %.6g, sum %.6g", s.lo, s.hi, s.sum/float64(s.n), s.sum)
}

// noGPU says briefly why there is no GPU: the driver's loader message is
// long, and --device auto without a GPU is the ordinary case on a laptop
// (--device cuda prints the whole error).
func noGPU(err error) string {
	switch {
	case errors.Is(err, cuda.ErrNoDriver):
		return "no GPU (no CUDA driver)"
	case errors.Is(err, cuda.ErrNoDevice):
		return "no GPU (the CUDA driver sees none)"
	}
	return "no GPU (" + err.Error() + ")"
}

// numElems is the element count of shape (parseZeros bounds it).
func numElems(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// pickKernel is the kernel --kernel names, or the file's one kernel when
// --kernel is left out.
func pickKernel(prog *tle.Program, name string) (*tle.Kernel, error) {
	if name == "" {
		ks := prog.Kernels()
		switch len(ks) {
		case 0:
			return nil, fmt.Errorf("%s has no kernel", prog.Name())
		case 1:
			name = ks[0]
		default:
			return nil, fmt.Errorf("--kernel is required: %s has %d kernels (%s)", prog.Name(), len(ks), strings.Join(ks, ", "))
		}
	}
	return prog.Kernel(name)
}

// randomBuffer is rand:SHAPE's data: n random values of dtype d, never
// zero, from a generator seeded by seed (buildArgs: the parameter's name
// and the shape, so that the same command gives the same data, and two
// arguments of one shape differ): floats uniform in [-1, -1/64] or
// [1/64, 1], integers uniform in 1..64 (within every integer dtype, so an
// index or a length stays small), i1 true or false.
func randomBuffer(d ir.DType, n int, seed string) *interp.Buffer {
	h := fnv.New64a()
	h.Write([]byte(seed))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x7e1e))
	if d == ir.I1 {
		bs := make([]bool, n)
		for i := range bs {
			bs[i] = r.IntN(2) == 1
		}
		b, _ := interp.FromSlice(d, bs)
		return b
	}
	if d.IsInt() {
		vs := make([]int64, n)
		for i := range vs {
			vs[i] = 1 + r.Int64N(64)
		}
		return interp.FromInt64(d, vs)
	}
	xs := make([]float64, n)
	for i := range xs {
		x := 1.0/64 + r.Float64()*(1-1.0/64)
		if r.IntN(2) == 0 {
			x = -x
		}
		xs[i] = x
	}
	return interp.FromFloat64(d, xs)
}
