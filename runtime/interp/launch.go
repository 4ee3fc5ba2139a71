package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/floats"
	"github.com/tlego/tle/ir"
)

// Options configure a launch.
type Options struct {
	// Workers is the number of CTAs (clusters) run in parallel; 0 means
	// GOMAXPROCS. The CTAs of one cluster always run concurrently.
	Workers int
	// File resolves op positions in errors; nil takes the module's File.
	File *diag.File
	// Stdout receives `print` output; nil means os.Stdout.
	Stdout io.Writer
	// Context, when not nil, bounds the launch: once it ends (its deadline
	// passes or it is cancelled) the launch stops. Workers take no more
	// CTAs, every running goroutine of the launch returns at its next op or
	// loop iteration (an op already running, say a large dot, finishes
	// first), blocked ones wake up, and Launch returns an error that says
	// the time ran out or the launch was cancelled, after how long, which
	// programs were still running and which roles were blocked where. The
	// error wraps the context's error (errors.Is(err,
	// context.DeadlineExceeded) or context.Canceled) and its cause. A
	// context that has ended before the launch stops it before anything
	// runs. nil means context.Background().
	Context context.Context
	// Timeout is the watchdog: a launch running longer stops as if its
	// context's deadline had passed (it is that mechanism: the context is
	// given this timeout), and the error names the watchdog. 0 means
	// DefaultTimeout when the context has no deadline, and no watchdog when
	// it has one; negative disables it (then only the context can stop a
	// launch that never ends).
	Timeout time.Duration
	// Progress, when not nil, is told how many of the grid's programs are
	// done: 0 as the launch starts, then after each program (each cluster,
	// with clusters) finishes, from the launch's workers, concurrently.
	Progress func(done, total int)
}

// DefaultTimeout is the watchdog's limit when Options.Timeout is 0 and
// Options.Context has no deadline.
const DefaultTimeout = 5 * time.Minute

// Arg is one kernel argument: a *Buffer for a pointer parameter (a
// *PointerTable for an *i64 or *u64 one: the addresses of buffers); an integer
// (int, int8..int64, uint8..uint64), a float (float32, float64) or a bool
// for a scalar parameter; a *Desc (or Desc) for a `!desc` parameter.
type Arg any

// errStopped is returned by goroutines that stop because another failed.
var errStopped = errors.New("interp: launch stopped")

type launch struct {
	// the ops the race check's shadows name, by index (race.go)
	raceOps   []*ir.Op
	raceOpIdx map[*ir.Op]int32
	raceMu    sync.Mutex
	prog      *program
	file      *diag.File
	kernel    string
	noFile    bool
	grid      [3]int
	nprog     int
	cdims     [3]int
	csize     int
	reg       *registry
	params    []val
	stopped   atomic.Bool
	out       io.Writer
	printMu   sync.Mutex

	errMu sync.Mutex
	errs  []launchErr

	activeMu sync.Mutex
	active   map[*cluster]struct{}

	nclusters int
	progress  func(done, total int) // Options.Progress

	// devices (devices.go): their number, each one's arguments, each
	// symmetric allocation's region ids by rank, its buffers given shadows
	ndev     int
	dparams  [][]val
	symIDs   map[*Symmetric][]int
	owners   map[*Buffer]int
	symNames map[*Buffer]string
	shadowed []*Buffer
	done     atomic.Int64 // clusters finished
}

type launchErr struct {
	err  error
	pos  diag.Pos
	prog int
}

// Launch runs kernel of m on a grid of CTAs (x, y, z) with args, and returns
// the first error by source position, or nil. It returns when every CTA has
// finished or the launch has stopped on an error, on the end of
// opts.Context or on the watchdog (opts.Timeout); when it returns, every
// goroutine it started has returned or is about to.
func Launch(m *ir.Module, kernel string, grid [3]int, args []Arg, opts Options) error {
	return launchOn(m, kernel, grid, [][]Arg{args}, opts)
}

// launchOn runs kernel on len(devArgs) simulated devices, devArgs[d] being
// device d's arguments (Launch: one device; LaunchDevices: several).
func launchOn(m *ir.Module, kernel string, grid [3]int, devArgs [][]Arg, opts Options) error {
	if m == nil {
		return errors.New("interp: nil module")
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if ctx.Err() != nil {
		return &stopError{msg: fmt.Sprintf("interp: launch of %s not started: %v", kernel, context.Cause(ctx)), err: ctx.Err(), cause: context.Cause(ctx)}
	}
	fn := m.Func(kernel)
	if fn == nil {
		return fmt.Errorf("interp: no kernel %q in the module", kernel)
	}
	if !fn.Kernel {
		return fmt.Errorf("interp: %q is a func, not a kernel", kernel)
	}
	file := opts.File
	if file == nil {
		file = m.File
	}
	noFile := file == nil
	if noFile {
		file = diag.NewFile(kernel, nil) // errors name the kernel, without a line
	}
	prog, err := compile(fn, file)
	if err != nil {
		return err
	}
	for k, g := range grid {
		if g < 1 {
			return fmt.Errorf("interp: launching %s: grid %v: dimension %d must be at least 1", kernel, grid, k)
		}
		if g%prog.cluster[k] != 0 {
			return fmt.Errorf("interp: launching %s: grid %v is not a multiple of the cluster %v", kernel, grid, prog.cluster)
		}
	}
	l := &launch{
		prog: prog, file: file, kernel: kernel, grid: grid, cdims: prog.cluster,
		csize: prog.cluster[0] * prog.cluster[1] * prog.cluster[2],
		nprog: grid[0] * grid[1] * grid[2],
		reg:   newRegistry(), active: map[*cluster]struct{}{}, out: opts.Stdout, noFile: noFile,
	}
	if l.out == nil {
		l.out = os.Stdout
	}
	if err := l.bindDevices(devArgs); err != nil {
		return err
	}
	defer l.unshadow()
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nclusters := l.nprog / l.csize
	if l.oneDomain() {
		nclusters = 1 // every CTA of every device in one domain (devices.go)
	}
	l.nclusters = nclusters
	l.progress = opts.Progress
	if l.progress != nil {
		l.progress(0, l.nprog)
	}
	workers = min(workers, nclusters)
	timeout := opts.Timeout
	if _, ok := ctx.Deadline(); timeout == 0 && !ok {
		timeout = DefaultTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, watchdogCause{timeout})
		defer cancel()
	}
	start := time.Now()
	stopWatch := context.AfterFunc(ctx, func() { l.stopOn(ctx, time.Since(start)) })
	defer stopWatch()
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wk := &worker{pool: newPool()}
			for !l.stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= nclusters {
					return
				}
				if l.oneDomain() {
					l.runDevices(wk)
					continue
				}
				l.runCluster(wk, c)
			}
		}()
	}
	wg.Wait()
	return l.firstError()
}

// ---- arguments

func (l *launch) bindArgs(args []Arg, dev int) error {
	params := l.prog.fn.Params
	if len(args) != len(params) {
		names := make([]string, len(params))
		for k, p := range params {
			names[k] = p.Name + " " + p.Type.String()
		}
		return fmt.Errorf("interp: launching %s: %d arguments for %d parameters (%s)", l.kernel, len(args), len(params), strings.Join(names, ", "))
	}
	l.params = make([]val, len(params))
	for k, p := range params {
		v, err := l.bindArg(p, args[k], dev)
		if err != nil {
			return fmt.Errorf("interp: launching %s%s: argument %d (%s %s): %v", l.kernel, l.onDevice(dev), k, p.Name, p.Type, err)
		}
		l.params[k] = v
	}
	return nil
}

func (l *launch) bindArg(p *ir.Param, a Arg, dev int) (val, error) {
	switch t := p.Type.(type) {
	case *ir.Pointer:
		if tab, ok := a.(*PointerTable); ok {
			return l.bindTable(p, t, tab, dev)
		}
		b, ok := a.(*Buffer)
		if !ok || b == nil {
			return val{}, fmt.Errorf("want a *interp.Buffer, got %T", a)
		}
		if b.dtype != t.Elem {
			return val{}, fmt.Errorf("buffer has dtype %v, want %v", b.dtype, t.Elem)
		}
		if err := l.ownBuffer(b, dev); err != nil {
			return val{}, err
		}
		id, _ := l.reg.add(&region{buf: b, lo: 0, hi: b.Len(), name: p.Name, sym: b.sym, dev: dev})
		l.noteSym(b, id, p.Name)
		return val{i: []int64{pack(id, 0)}}, nil
	case ir.DType:
		return scalarArg(t, a)
	case *ir.Desc:
		var d *Desc
		switch x := a.(type) {
		case *Desc:
			d = x
		case Desc:
			d = &x
		default:
			return val{}, fmt.Errorf("want a *interp.Desc, got %T", a)
		}
		if d == nil || d.Buf == nil {
			return val{}, errors.New("descriptor without a buffer")
		}
		if d.Buf.dtype != t.Elem {
			return val{}, fmt.Errorf("descriptor buffer has dtype %v, want %v", d.Buf.dtype, t.Elem)
		}
		rank := len(t.Block)
		if len(d.Shape) != rank || len(d.Strides) != rank {
			return val{}, fmt.Errorf("descriptor of rank %d (shape %v, strides %v) for a block of rank %d", len(d.Shape), d.Shape, d.Strides, rank)
		}
		hi := d.Offset
		for k := range d.Shape {
			if d.Shape[k] < 0 || d.Strides[k] < 0 {
				return val{}, fmt.Errorf("negative shape or stride in %v / %v", d.Shape, d.Strides)
			}
			if d.Shape[k] == 0 {
				hi = -1
				break
			}
			hi += (d.Shape[k] - 1) * d.Strides[k]
		}
		if d.Offset < 0 || hi >= d.Buf.Len() {
			return val{}, fmt.Errorf("descriptor (offset %d, shape %v, strides %v) reaches element %d of a buffer of %d", d.Offset, d.Shape, d.Strides, hi, d.Buf.Len())
		}
		rg := &region{buf: d.Buf, lo: 0, hi: d.Buf.Len(), name: p.Name}
		return val{ref: &descVal{rg: rg, base: d.Offset, shape: append([]int(nil), d.Shape...),
			strides: append([]int(nil), d.Strides...), block: t.Block, dt: t.Elem, name: p.Name}}, nil
	}
	return val{}, fmt.Errorf("parameters of type %v are not supported", p.Type)
}

// PointerTable is the argument of an i64 or u64 pointer parameter that
// holds the addresses of Bufs, in order: a table of pointers the kernel
// loads and converts back to pointers (load(table + g).to(*f16)), as
// Triton's grouped GEMM passes its matrices. The launch hands out each
// buffer (a region named PARAM[k]) and fills a table of their addresses
// (ptrtoint's form: the region id and a byte offset); the kernel may
// write the buffers through them, in place.
type PointerTable struct {
	Bufs []*Buffer
}

func (l *launch) bindTable(p *ir.Param, t *ir.Pointer, tab *PointerTable, dev int) (val, error) {
	if tab == nil {
		return val{}, errors.New("a nil *interp.PointerTable")
	}
	if t.Elem != ir.I64 && t.Elem != ir.U64 {
		return val{}, fmt.Errorf("a pointer table is an *i64 or *u64 parameter, not %v", p.Type)
	}
	addrs := make([]int64, len(tab.Bufs))
	for k, b := range tab.Bufs {
		if b == nil {
			return val{}, fmt.Errorf("pointer table entry %d is a nil buffer", k)
		}
		if err := l.ownBuffer(b, dev); err != nil {
			return val{}, fmt.Errorf("pointer table entry %d: %v", k, err)
		}
		name := fmt.Sprintf("%s[%d]", p.Name, k)
		id, ok := l.reg.add(&region{buf: b, lo: 0, hi: b.Len(), name: name, sym: b.sym, dev: dev})
		if !ok {
			return val{}, errors.New("too many buffers")
		}
		l.noteSym(b, id, name)
		addrs[k] = address(id, 0, b.dtype.Bytes())
	}
	tb := FromInt64(t.Elem, addrs)
	if len(addrs) == 0 {
		tb = NewBuffer(t.Elem, 1) // an empty table still points somewhere
	}
	id, _ := l.reg.add(&region{buf: tb, lo: 0, hi: len(addrs), name: p.Name, dev: dev})
	return val{i: []int64{pack(id, 0)}}, nil
}

func scalarArg(d ir.DType, a Arg) (val, error) {
	v, err := CheckScalar(d, a)
	if err != nil {
		return val{}, err
	}
	if d.IsFloat() {
		return val{f: []float64{v.Float}}, nil
	}
	return val{i: []int64{v.Int}}, nil
}

// ---- scalars

// Scalar is a Go value checked against a scalar parameter's dtype by
// CheckScalar: the value a launch passes.
type Scalar struct {
	// Int is the value of an integer dtype (i1: 0 or 1); a u64 above
	// math.MaxInt64 is held as its two's-complement bits.
	Int int64
	// Float is the value of a float dtype, rounded to it (nearest even;
	// fp8 as ir.DType.Round).
	Float float64
}

// CheckScalar checks the Go value v given for a scalar parameter of dtype
// dt and converts it. It is the one definition of what a scalar argument
// may be, shared by Launch and the tle API (tle.Kernel.Run, GPU.Prepare):
//
//   - An integer dtype (i8..i64, u8..u64) takes a Go integer (int, int8..int64,
//     uint, uint8..uint64) whose value lies in the dtype's range: [-2^(n-1),
//     2^(n-1)-1] for i<n>, [0, 2^n-1] for u<n>. Nothing wraps: a negative
//     value for an unsigned dtype, or a uint64 above math.MaxInt64 for i64, is
//     out of range. A float (even a whole one) or a bool is refused.
//   - i1 takes a bool, or a Go integer equal to 0 or 1; not a float.
//   - A float dtype takes a Go integer or float (float32, float64), never a
//     bool, rounded to the dtype (nearest even). Its magnitude must not
//     exceed the dtype's largest finite value (65504 for f16, about 3.39e38
//     for bf16, 3.40e38 for f32, 448 for f8e4m3, 57344 for f8e5m2); NaN is
//     taken, and so are ±Inf by the dtypes that have them (f16, bf16, f32,
//     f64), not by the fp8 ones, which would saturate.
//
// Other Go types (strings, named numeric types, pointers) are refused. The
// error says what was given and the range allowed, without the
// parameter's name, for the caller to prefix: "4294967396 is out of range
// [-2147483648, 2147483647]".
func CheckScalar(dt ir.DType, v any) (Scalar, error) {
	var (
		s, u     = int64(0), uint64(0)
		isInt    = true
		unsigned = false // u holds the value
		f        float64
		isBool   = false
		b        bool
	)
	switch x := v.(type) {
	case int:
		s = int64(x)
	case int8:
		s = int64(x)
	case int16:
		s = int64(x)
	case int32:
		s = int64(x)
	case int64:
		s = x
	case uint:
		u, unsigned = uint64(x), true
	case uint8:
		u, unsigned = uint64(x), true
	case uint16:
		u, unsigned = uint64(x), true
	case uint32:
		u, unsigned = uint64(x), true
	case uint64:
		u, unsigned = x, true
	case float32:
		f, isInt = float64(x), false
	case float64:
		f, isInt = x, false
	case bool:
		b, isBool, isInt = x, true, false
	default:
		return Scalar{}, fmt.Errorf("want %s, got %s", scalarWant(dt), goValue(v))
	}
	switch {
	case dt == ir.I1:
		switch {
		case isBool:
			if b {
				return Scalar{Int: 1}, nil
			}
			return Scalar{}, nil
		case !isInt:
			return Scalar{}, fmt.Errorf("want %s, got %s", scalarWant(dt), goValue(v))
		case !unsigned && (s == 0 || s == 1):
			return Scalar{Int: s}, nil
		case unsigned && u <= 1:
			return Scalar{Int: int64(u)}, nil
		}
		return Scalar{}, fmt.Errorf("%v is out of range [0, 1] (i1 takes a bool, 0 or 1)", v)
	case dt.IsInt():
		if !isInt {
			return Scalar{}, fmt.Errorf("want %s, got %s", scalarWant(dt), goValue(v))
		}
		lo, hi := intRange(dt)
		var ok bool
		var bits int64
		if unsigned {
			ok, bits = u <= hi, int64(u)
		} else {
			ok, bits = s >= lo && (s < 0 || uint64(s) <= hi), s
		}
		if !ok {
			return Scalar{}, fmt.Errorf("%v is out of range [%d, %d]", v, lo, hi)
		}
		return Scalar{Int: bits}, nil
	case dt.IsFloat():
		switch {
		case isBool:
			return Scalar{}, fmt.Errorf("want %s, got %s", scalarWant(dt), goValue(v))
		case isInt && unsigned:
			f = float64(u)
		case isInt:
			f = float64(s)
		}
		m := maxFinite(dt)
		if math.IsInf(f, 0) && (dt == ir.F8E4M3 || dt == ir.F8E5M2) {
			return Scalar{}, fmt.Errorf("%v is out of range [%g, %g] (%s takes no infinity)", v, -m, m, dt)
		}
		if !math.IsInf(f, 0) && math.Abs(f) > m {
			return Scalar{}, fmt.Errorf("%v is out of range [%g, %g]", v, -m, m)
		}
		return Scalar{Float: roundOne(dt, f)}, nil
	}
	return Scalar{}, fmt.Errorf("parameters of type %v are not supported", dt)
}

// intRange is the value range of integer dtype d (i1 excluded).
func intRange(d ir.DType) (lo int64, hi uint64) {
	n := d.Bits()
	if d.IsSigned() {
		return -1 << (n - 1), 1<<(n-1) - 1
	}
	return 0, math.MaxUint64 >> (64 - n)
}

// maxFinite is the largest finite value of float dtype d.
func maxFinite(d ir.DType) float64 {
	if f, ok := d.FloatFormat(); ok {
		return floats.MaxFinite(f)
	}
	if d == ir.F32 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// scalarWant says what a dtype takes, for errors.
func scalarWant(d ir.DType) string {
	switch {
	case d == ir.I1:
		return "a bool, 0 or 1"
	case d.IsInt():
		lo, hi := intRange(d)
		return fmt.Sprintf("an integer in [%d, %d]", lo, hi)
	}
	m := maxFinite(d)
	return fmt.Sprintf("a number in [%g, %g]", -m, m)
}

// goValue names a Go value and its type, for errors: "float64 2.5".
func goValue(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case string:
		return fmt.Sprintf("string %q", v)
	case float32, float64, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprintf("%T %v", v, v)
	}
	return fmt.Sprintf("a %T", v)
}

// ---- errors

func (l *launch) errAt(op *ir.Op, format string, args ...any) *diag.Diagnostic {
	pos := diag.NoPos
	if op != nil && !l.noFile {
		pos = op.Pos
		if in := l.inlinedAt(op); in != "" {
			// An op of a helper: name the helper and its call sites.
			format, args = "%s (%s)", []any{fmt.Sprintf(format, args...), in}
		}
	}
	return diag.Errorf(l.file, pos, format, args...)
}

// inlinedAt names the helpers op was inlined from and their call sites;
// "" for an op written in the kernel.
func (l *launch) inlinedAt(op *ir.Op) string {
	if l.noFile {
		return ""
	}
	return op.InlinedAt(func(p diag.Pos) string { return l.file.Position(p).String() })
}

// whereInlined is where, followed by the helpers op was inlined from.
func (l *launch) whereInlined(op *ir.Op) string {
	w := l.where(op)
	if in := l.inlinedAt(op); in != "" {
		w += " (" + in + ")"
	}
	return w
}

// fail records err and stops the launch: workers take no more CTAs, running
// goroutines stop at their next op, blocked ones wake up.
// where formats an op position for messages.
func (l *launch) where(op *ir.Op) string {
	if l.noFile || op == nil {
		return l.kernel
	}
	return l.file.Position(op.Pos).String()
}

func (l *launch) fail(err error, prog int) {
	if err == nil || errors.Is(err, errStopped) {
		return
	}
	pos := diag.NoPos
	var d *diag.Diagnostic
	if errors.As(err, &d) {
		pos = d.Pos
	}
	l.errMu.Lock()
	l.errs = append(l.errs, launchErr{err: err, pos: pos, prog: prog})
	l.errMu.Unlock()
	if l.stopped.Swap(true) {
		return
	}
	l.activeMu.Lock()
	for c := range l.active {
		go c.wake()
	}
	l.activeMu.Unlock()
}

func (l *launch) firstError() error {
	l.errMu.Lock()
	defer l.errMu.Unlock()
	if len(l.errs) == 0 {
		return nil
	}
	sort.SliceStable(l.errs, func(a, b int) bool {
		ea, eb := l.errs[a], l.errs[b]
		if (ea.pos < 0) != (eb.pos < 0) {
			return ea.pos >= 0
		}
		if ea.pos != eb.pos {
			return ea.pos < eb.pos
		}
		return ea.prog < eb.prog
	})
	return l.errs[0].err
}

// watchdogCause is the cause of a context ended by Options.Timeout.
type watchdogCause struct{ d time.Duration }

func (w watchdogCause) Error() string {
	return fmt.Sprintf("the watchdog's limit of %v passed (interp.Options.Timeout; a deadline on the context replaces the default)", w.d)
}

// stopError is the error of a launch stopped by its context: it wraps the
// context's error and its cause.
type stopError struct {
	msg        string
	err, cause error
}

func (e *stopError) Error() string { return e.msg }

func (e *stopError) Unwrap() []error {
	if e.cause == nil || e.cause == e.err {
		return []error{e.err}
	}
	return []error{e.err, e.cause}
}

// stopOn stops the launch because ctx ended, elapsed after its start, with
// an error naming the programs still running and the blocked roles.
func (l *launch) stopOn(ctx context.Context, elapsed time.Duration) {
	if l.done.Load() == int64(l.nclusters) {
		return // every CTA finished: nothing to stop
	}
	var running []*cta
	var blocked []string
	l.activeMu.Lock()
	for c := range l.active {
		running = append(running, c.ctas...)
		c.mu.Lock()
		for _, w := range c.waiters {
			blocked = append(blocked, w.describe())
		}
		c.mu.Unlock()
	}
	l.activeMu.Unlock()
	sort.Slice(running, func(a, b int) bool { return running[a].linear < running[b].linear })
	sort.Strings(blocked)
	err, cause := ctx.Err(), context.Cause(ctx)
	var what string
	switch w, ok := cause.(watchdogCause); {
	case ok:
		what = fmt.Sprintf("timed out after %v: %v", elapsed.Round(time.Millisecond), w)
	case errors.Is(err, context.DeadlineExceeded):
		what = fmt.Sprintf("timed out after %v: %v", elapsed.Round(time.Millisecond), cause)
	default:
		what = fmt.Sprintf("was cancelled after %v: %v", elapsed.Round(time.Millisecond), cause)
	}
	msg := fmt.Sprintf("interp: launch of %s %s; %d of %d programs finished", l.kernel, what, int(l.done.Load())*l.csize, l.nprog)
	if len(running) > 0 {
		const most = 16
		ids := make([]string, 0, most)
		for k, c := range running {
			if k == most {
				break
			}
			ids = append(ids, fmt.Sprintf("(%d, %d, %d)", c.pid[0], c.pid[1], c.pid[2]))
		}
		msg += "; still running: program"
		if len(running) > 1 {
			msg += "s"
		}
		msg += " " + strings.Join(ids, ", ")
		if len(running) > most {
			msg += fmt.Sprintf(" and %d more", len(running)-most)
		}
	}
	if len(blocked) > 0 {
		msg += "; blocked: " + strings.Join(blocked, "; ")
	}
	l.fail(&stopError{msg: msg, err: err, cause: cause}, -1)
}

// ---- clusters and CTAs

type worker struct {
	pool   *pool
	frames [][]val
}

func (w *worker) frame(k, n int) []val {
	for len(w.frames) <= k {
		w.frames = append(w.frames, nil)
	}
	if cap(w.frames[k]) < n {
		w.frames[k] = make([]val, n)
	}
	return w.frames[k][:n]
}

func (l *launch) pidOf(linear int) [3]int {
	return [3]int{linear % l.grid[0], linear / l.grid[0] % l.grid[1], linear / (l.grid[0] * l.grid[1])}
}

func (l *launch) runCluster(wk *worker, c int) {
	cl := newCluster(l, l.csize)
	l.clusterCTAs(cl, cl.ctas, c, 0)
	defer l.track(cl)(func(n int) int { return n * l.csize })
	if l.csize == 1 {
		l.runCTA(cl.ctas[0], wk.pool, wk.frame(0, len(l.prog.slots)))
		return
	}
	l.runAll(wk, cl)
}

// clusterCTAs makes dst the CTAs of CTA cluster c of device dev, in
// domain cl: clusters tile the grid, cluster coordinates, then CTA ranks
// within.
func (l *launch) clusterCTAs(cl *cluster, dst []*cta, c, dev int) {
	cg := [3]int{l.grid[0] / l.cdims[0], l.grid[1] / l.cdims[1], l.grid[2] / l.cdims[2]}
	cc := [3]int{c % cg[0], c / cg[0] % cg[1], c / (cg[0] * cg[1])}
	for r := range dst {
		rc := [3]int{r % l.cdims[0], r / l.cdims[0] % l.cdims[1], r / (l.cdims[0] * l.cdims[1])}
		pid := [3]int{cc[0]*l.cdims[0] + rc[0], cc[1]*l.cdims[1] + rc[1], cc[2]*l.cdims[2] + rc[2]}
		dst[r] = &cta{l: l, cl: cl, pid: pid, rank: r, dev: dev, ci: c, peers: dst,
			linear: pid[0] + l.grid[0]*(pid[1]+l.grid[1]*pid[2]), smem: make([]*Buffer, len(l.prog.allocs))}
	}
}

// track registers cl as running (stopOn names its programs) and returns
// what retires it: it counts the domain done and reports progress, done(n)
// programs once n domains finished.
func (l *launch) track(cl *cluster) func(done func(n int) int) {
	l.activeMu.Lock()
	l.active[cl] = struct{}{}
	l.activeMu.Unlock()
	return func(done func(n int) int) {
		l.activeMu.Lock()
		delete(l.active, cl)
		l.activeMu.Unlock()
		n := l.done.Add(1)
		if l.progress != nil {
			l.progress(done(int(n)), l.nprog)
		}
	}
}

// runAll runs every CTA of cl as a goroutine of its own and waits for them.
func (l *launch) runAll(wk *worker, cl *cluster) {
	var wg sync.WaitGroup
	for r, ct := range cl.ctas {
		frame := wk.frame(r, len(l.prog.slots))
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := rolePools.Get().(*pool)
			l.runCTA(ct, p, frame)
			rolePools.Put(p)
		}()
	}
	wg.Wait()
}

type cta struct {
	l       *launch
	cl      *cluster
	pid     [3]int
	rank    int    // in its CTA cluster
	dev     int    // its device (LaunchDevices)
	ci      int    // its CTA cluster's index in the grid
	peers   []*cta // its CTA cluster, by rank (remote of shared memory)
	linear  int
	regs    []val
	smem    []*Buffer // by alloc index; guarded by cl.mu
	mu      sync.Mutex
	regions map[regionKey]int
}

type regionKey struct {
	buf    *Buffer
	lo, hi int
	guard  *guard
}

func (c *cta) where() string {
	if c.l.ndev > 1 {
		return fmt.Sprintf("device %d program (%d, %d, %d)", c.dev, c.pid[0], c.pid[1], c.pid[2])
	}
	return fmt.Sprintf("program (%d, %d, %d)", c.pid[0], c.pid[1], c.pid[2])
}

func (l *launch) runCTA(c *cta, p *pool, frame []val) {
	c.regs = frame
	args := l.params
	if l.dparams != nil {
		args = l.dparams[c.dev]
	}
	for k, s := range l.prog.params {
		frame[s] = args[k]
	}
	t := &thread{c: c, pool: p, roleIdx: -1}
	t.raceClock(nil)
	err := t.runGuarded(l.prog.body)
	l.fail(err, c.linear)
	c.cl.exit(t)
	// release what the CTA registered and recycle its arrays
	if len(c.regions) > 0 {
		ids := make([]int, 0, len(c.regions))
		for _, id := range c.regions {
			ids = append(ids, id)
		}
		l.reg.remove(ids)
	}
	params := l.prog.params
	for s := range frame {
		if !contains(params, s) {
			p.put(frame[s])
		}
		frame[s] = val{}
	}
}
