package nvptx

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	llvm "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
	"github.com/tlego/tle/gpu"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// Options control code generation.
type Options struct {
	// NumWarps is used for functions without a num_warps attribute (default 4).
	NumWarps int
	// MinCTAsPerSM, when > 0, is emitted as the minctasm annotation.
	MinCTAsPerSM int
	// PreciseDiv makes f32 division IEEE (div.rn.f32) instead of Triton's
	// div.full.f32.
	PreciseDiv bool
	// Arch is the target (one of Targets; empty: sm_90a). Ops the target
	// lacks are user errors at their position (hopperOps).
	Arch string
	// RecordOps fills Result.OpLines: which tile IR op made each line of
	// the LLVM IR (the pass viewer's page). The LLVM IR is the same with
	// or without it.
	RecordOps bool
}

// Kernel describes a generated kernel for the launcher.
type Kernel struct {
	Name       string
	NumWarps   int         // block size is NumWarps*32 threads (x only)
	SmemBytes  int         // dynamic shared memory per CTA
	Params     []string    // parameters in order, as "name:type"
	ParamBytes []int       // each parameter's size in the kernel's argument buffer
	Descs      []DescParam // the CUtensorMap each desc parameter needs (tma.go)
	// ScratchBytes is the global scratch each program needs (the maps its
	// make_descs write, TensormapBytes each). When it is not 0 the kernel
	// takes one more parameter after Params (HiddenScratch): a global
	// pointer to ScratchBytes times the number of programs of the launch.
	ScratchBytes int
	// MeshDevices is the size of the device axis of the kernel's mesh
	// (device_mesh(device: WORLD); 0 without one). Such a kernel runs on
	// WORLD devices and takes the device-mesh ABI's hidden parameters
	// (devicemesh.go: rank, heap_bases, sync).
	MeshDevices int
	// Hidden lists the parameters the kernel takes after Params, which the
	// launcher passes, in order: rank, heap_bases, sync for a device mesh,
	// then scratch for make_desc.
	Hidden []HiddenParam
}

// Result is the LLVM IR of a module and what a launcher needs to know.
type Result struct {
	LLVMIR  string
	Kernels []Kernel
	// OpLines, with Options.RecordOps, holds for each line of LLVMIR
	// (0-based) the op whose emission made its instruction, else nil
	// (module-level text, block labels, code of no one op: the kernel's
	// prologue, dead-code elimination's leftovers). Empty when the module
	// was printed by llir's fallback printer.
	OpLines []*ir.Op
}

// EmitLLVM lowers a module whose tiles have layouts (passes.AssignLayouts and
// passes.AllocateShared have run) to LLVM IR text for NVPTX.
func EmitLLVM(m *ir.Module, opts Options) (*Result, error) {
	if err := checkTMA(m); err != nil {
		return nil, err
	}
	md := newModule()
	if opts.RecordOps {
		md.rec = map[any]*ir.Op{}
	}
	res := &Result{}
	for _, f := range m.Funcs {
		if !f.Kernel {
			continue // helpers are inlined before the backend runs
		}
		k, err := emitFunc(md, f, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		res.Kernels = append(res.Kernels, k)
	}
	res.LLVMIR, res.OpLines = printModuleRecorded(md)
	return res, nil
}

// AttrLoopAddresses (bool, on a kernel) computes each thread's element
// addresses and coordinates inside the body of every outermost loop
// outside a warp role (from a thread index read there, which LLVM cannot
// hoist) instead of once in the kernel's entry: a long persistent loop
// then keeps none of them live across its iterations, at the cost of
// recomputing them in each (tle.CompileOptions.LoopAddresses).
const AttrLoopAddresses = "loop_addresses"

// AttrMinCTAsPerSM (int64, on a kernel) asks ptxas to fit that many CTAs on
// an SM (the minctasm annotation, which caps registers per thread).
const AttrMinCTAsPerSM = "min_ctas_per_sm"

// DefaultStages is the software pipeline depth Prepare uses.
const DefaultStages = passes.DefaultStages

// Prepare runs the GPU rows of the pass table (dot-wgmma, layouts,
// pipeline, async-loads, smem-alloc: see passes.Table and its constraints)
// through the pass driver, for numWarps warps in a kernel without a
// num_warps attribute, on a module that went through the
// target-independent rows or was built for the backend by hand: for
// callers without the tle driver (tests, tools).
func Prepare(m *ir.Module, numWarps int) error {
	return passes.Run(m, passes.Options{From: passes.PhaseGPU, GPU: &passes.GPUOptions{NumWarps: numWarps, Stages: DefaultStages}})
}

type memRef struct {
	off  value.Value // i32 byte offset into global_smem (cluster: the shared::cluster address)
	desc *ir.MemDesc
	// cluster: off is an i32 address in the cluster's shared window (a
	// remote view, from mapa); its pointers are i32 too.
	cluster bool
	// span is the bytes of the alloc the view lies in ({0, 0}: not known,
	// as for a pipe's slots or a remote view), for refRange
	span rng
}

// tval is the lowered form of an IR value: a scalar, the registers a thread
// holds of a tile (in its linear layout's register order), or a shared
// buffer reference.
type tval struct {
	s     value.Value
	regs  []value.Value
	ll    *gpu.LinearLayout
	pairs map[int]value.Value // 16-bit tiles: i32 packing registers r (even) and r+1
	lazy  map[int]func()      // registers produced on first use (see ldmatrix)
	cut   bool                // registers cut from ldmatrix words (matrixLoad): quad packs them with prmt
	span  rng                 // shared pointers from local_ptr: the bytes of the alloc they point into ({0, 0}: anywhere)
	mem   *memRef
	pipe  *pipeRef // pipe_alloc
	slot  *slotRef // pipe_acquire / pipe_wait
	bar   *barRef  // barrier_alloc / barrier_index
}

type genError struct{ err error }

type gen struct {
	md *module
	// memPre and memPost are the PTX qualifiers of the load or store being
	// lowered (memQuals): before its state space (.volatile) and after it
	// (.cg, .L1::evict_last); "" outside such an op.
	memPre, memPost string
	f               *ir.Func
	fn              *llvm.Func
	entry, cur      *llvm.Block
	fnEntry         *llvm.Block // the function's entry (entry is a role's inside a role)
	role            *roleCtx    // the warp role being emitted, nil outside warp_specialize
	vals            map[*ir.Value]*tval
	nw              int
	axes            *gpu.AxisAnalysis

	tid, lane, warp value.Value

	// make_desc (tma.go): the plans of the kernel's descriptors, the index
	// of each make_desc, the hidden scratch parameter
	descPlan  map[*ir.Value]*tmaPlan
	descIndex map[*ir.Op]int
	scratch   *llvm.Param
	// mesh is the device mesh's hidden parameters (devicemesh.go), nil
	// without one
	mesh      *meshState
	bases     map[*gpu.LinearLayout][]value.Value
	regCoords map[*gpu.LinearLayout][][]int
	regIndex  map[*gpu.LinearLayout]map[int]int

	sync smemState
	// barrierInLoop: a CTA (or role) barrier has been emitted since the
	// top of the innermost loop body being generated
	barrierInLoop  bool
	curOp          *ir.Op
	loopAddresses  bool // AttrLoopAddresses
	loopDepth      int  // loops being generated (outside roles' own count)
	nblocks        int
	preciseDiv     bool
	arch           string // Options.Arch
	smemBase32     value.Value
	users          map[*ir.Value][]*ir.Op
	asyncReadRoots map[*ir.Op]map[*ir.Value]bool // per warp role: buffers async-proxy readers of other roles read (roleArriveNeedsProxyFence)
	wgmmaFences    map[*ir.Op]bool               // per wgmma: whether it fences generic writes before it (wgmmaNeedsProxyFence)
}

// newBlock makes a named basic block: libNVVM's LLVM 7 parser does not take
// the numeric labels LLVM prints for unnamed blocks.
func (g *gen) newBlock() *llvm.Block {
	g.nblocks++
	return g.fn.NewBlock(fmt.Sprintf("bb%d", g.nblocks))
}

func (g *gen) failf(format string, args ...any) {
	panic(genError{ir.ErrorAt(g.curOp, format, args...)})
}

func paramBytes(t ir.Type) int {
	switch t := t.(type) {
	case *ir.Pointer:
		return 8
	case *ir.Desc:
		return DescParamBytes
	case ir.DType:
		return t.Bytes()
	}
	return 0
}

func emitFunc(md *module, f *ir.Func, opts Options) (k Kernel, err error) {
	nw := int(f.Attrs.Int(gpu.AttrNumWarps, int64(opts.NumWarps)))
	if nw <= 0 {
		nw = 4
	}
	g := &gen{md: md, f: f, vals: map[*ir.Value]*tval{}, nw: nw,
		bases: map[*gpu.LinearLayout][]value.Value{}, regCoords: map[*gpu.LinearLayout][][]int{},
		regIndex: map[*gpu.LinearLayout]map[int]int{}, preciseDiv: opts.PreciseDiv, arch: opts.Arch}
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(genError); ok {
				err = e.err
				return
			}
			// A bug, not a user error: report it at the op being emitted
			// rather than crashing the caller.
			err = ir.ErrorAt(g.curOp, "internal compiler error in the nvptx backend: %v", r)
		}
	}()
	if err := checkTileRegs(f); err != nil {
		return k, err
	}
	g.axes = gpu.AnalyzeAxes(f)
	g.users = map[*ir.Value][]*ir.Op{}
	f.Walk(func(op *ir.Op) {
		for _, v := range op.Operands {
			g.users[v] = append(g.users[v], op)
		}
	})
	var params []*llvm.Param
	k = Kernel{Name: f.Name, NumWarps: nw, SmemBytes: int(f.Attrs.Int(gpu.AttrSmemBytes, 0))}
	if g.descPlan, err = descPlans(f, nil); err != nil {
		return k, err
	}
	k.Descs = descParams(f, g.descPlan)
	g.descIndex = makeDescs(f)
	seen := map[string]bool{}
	for i, p := range f.Params {
		var t types.Type
		switch pt := p.Type.(type) {
		case *ir.Pointer:
			t = ptrTo(memType(pt.Elem), asGlobal)
		case ir.DType:
			t = storageType(pt)
			if pt == ir.I1 {
				t = types.I8
			}
		case *ir.Desc:
			t = descParamType()
		default:
			return k, fmt.Errorf("parameter %s: type %s is not supported by the nvptx backend", p.Name, p.Type)
		}
		name := sanitize(p.Name, i)
		if seen[name] {
			name = fmt.Sprintf("%s_%d", name, i)
		}
		seen[name] = true
		lp := llvm.NewParam(name, t)
		descParamAttrs(lp, p.Type)
		params = append(params, lp)
		k.Params = append(k.Params, p.Name+":"+p.Type.String())
		k.ParamBytes = append(k.ParamBytes, paramBytes(p.Type))
	}
	world, err := deviceMeshOf(f)
	if err != nil {
		return k, err
	}
	if world > 0 {
		k.MeshDevices = world
		params = append(params, g.meshParams(world)...)
		k.Hidden = append(k.Hidden, HiddenRank, HiddenHeapBases, HiddenSync)
	}
	if len(g.descIndex) > 0 {
		k.ScratchBytes = TensormapBytes * len(g.descIndex)
		g.scratch = llvm.NewParam(scratchParamName, ptrTo(types.I8, asGlobal))
		params = append(params, g.scratch)
		k.Hidden = append(k.Hidden, HiddenScratch)
	}
	g.fn = md.m.NewFunc(f.Name, types.Void, params...)
	g.entry = g.fn.NewBlock("entry")
	g.fnEntry = g.entry
	g.cur = g.entry
	for i, arg := range f.Body.Args {
		var v value.Value = params[i]
		if f.Params[i].Type == ir.I1 {
			v = g.cur.NewICmp(enum.IPredNE, v, intConst(types.I8, 0))
		}
		g.vals[arg] = &tval{s: v}
	}
	g.loopAddresses = f.Attrs.Bool(AttrLoopAddresses)
	tidF := md.intrinsic("llvm.nvvm.read.ptx.sreg.tid.x", true, types.I32)
	g.tid = g.cur.NewCall(tidF)
	g.lane = g.cur.NewAnd(g.tid, i32c(31))
	g.warp = g.cur.NewLShr(g.tid, i32c(5))
	g.prefetchDescs(f, params)
	body := g.fn.NewBlock("body")
	g.cur = body
	g.sync = smemState{}
	g.block(f.Body)
	if g.cur.Term == nil {
		g.cur.NewRet(nil)
	}
	g.entry.NewBr(body)
	eliminateDeadCode(md, g.fn)
	minCTAs := int(f.Attrs.Int(AttrMinCTAsPerSM, int64(opts.MinCTAsPerSM)))
	if minCTAs <= 0 && usesSetmaxnreg(f) {
		minCTAs = 1 // setmaxnreg needs a register cap at entry
	}
	annotate(md, g.fn, nw, minCTAs)
	annotateGridConstant(md, g.fn, k.Descs)
	return k, nil
}

func sanitize(name string, i int) string {
	var b strings.Builder
	for _, c := range name {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	if b.Len() == 0 {
		return fmt.Sprintf("arg%d", i)
	}
	if s := b.String(); !reservedLocal.MatchString(s) {
		return s
	}
	return "p_" + b.String()
}

// reservedLocal matches the names the function's own values take: the
// printer's %v<n> results, the blocks (entry, body, bb<n>) and the hidden
// parameters (tle_*). A kernel parameter spelled so (a `v5 *f32`) would be
// defined twice, which llc and libNVVM reject; sanitize prefixes it.
var reservedLocal = regexp.MustCompile(`^(v[0-9]+|bb[0-9]+|entry|body|tle_.*)$`)

// annotate marks fn as a kernel with its block size in !nvvm.annotations.
func annotate(md *module, fn *llvm.Func, numWarps, minCTAs int) {
	nd, ok := md.m.NamedMetadataDefs["nvvm.annotations"]
	if !ok {
		nd = &metadata.NamedDef{Name: "nvvm.annotations"}
		md.m.NamedMetadataDefs["nvvm.annotations"] = nd
	}
	add := func(key string, v int64) {
		t := &metadata.Tuple{MetadataID: -1, Fields: []metadata.Field{fn, &metadata.String{Value: key}, i32c(v)}}
		t.MetadataID = metadata.MetadataID(len(md.m.MetadataDefs))
		md.m.MetadataDefs = append(md.m.MetadataDefs, t)
		nd.Nodes = append(nd.Nodes, t)
	}
	add("kernel", 1)
	add("maxntidx", int64(numWarps*32))
	if minCTAs > 0 {
		add("minctasm", int64(minCTAs))
	}
}

// ---- blocks of ops

func (g *gen) block(b *ir.Block) {
	for _, op := range b.Ops {
		g.curOp = op
		if g.md.rec == nil {
			g.op(op)
			continue
		}
		before := make(map[*llvm.Block]blockMark, len(g.fn.Blocks))
		for _, blk := range g.fn.Blocks {
			before[blk] = blockMark{len(blk.Insts), blk.Term != nil}
		}
		g.op(op)
		g.attribute(before, op)
	}
}

// blockMark is how far a block was filled before an op was emitted.
type blockMark struct {
	insts int
	term  bool
}

// attribute records op as the maker of the instructions and terminators
// of g.fn that were appended while it was emitted (the backend only
// appends) and that no op has claimed yet. An op with regions runs after
// the ops inside them claimed theirs, so it gets its own: a loop's phis
// and branches, a role's prologue.
func (g *gen) attribute(before map[*llvm.Block]blockMark, op *ir.Op) {
	for _, blk := range g.fn.Blocks {
		b := before[blk] // zero for a new block
		for _, inst := range blk.Insts[min(b.insts, len(blk.Insts)):] {
			if g.md.rec[inst] == nil {
				g.md.rec[inst] = op
			}
		}
		if blk.Term != nil && !b.term && g.md.rec[blk.Term] == nil {
			g.md.rec[blk.Term] = op
		}
	}
}

func (g *gen) val(v *ir.Value) *tval {
	t, ok := g.vals[v]
	if !ok {
		g.failf("value %%%d used before it is defined", v.ID)
	}
	return t
}

func (g *gen) scalar(v *ir.Value) value.Value {
	t := g.val(v)
	if t.s == nil {
		g.failf("value %%%d is not a scalar", v.ID)
	}
	return t.s
}

func (g *gen) set(v *ir.Value, t *tval) { g.vals[v] = t }

// layoutOf returns the linear layout of a tile value's type.
func (g *gen) layoutOf(t ir.Type) *gpu.LinearLayout {
	tt, ok := t.(*ir.Tile)
	if !ok {
		return nil
	}
	if tt.Layout == nil {
		g.failf("tile %s has no layout (run the layout passes first)", tt)
	}
	ll, err := gpu.Linear(tt.Layout, tt.Shape)
	if err != nil {
		g.failf("%v", err)
	}
	return ll
}

func (g *gen) newTile(t ir.Type) *tval {
	ll := g.layoutOf(t)
	return &tval{ll: ll, regs: make([]value.Value, ll.NumRegs())}
}

// lowerings are the ops that one method of gen each lowers (set in init:
// they lower nested blocks through g.op, which reads the table).
var lowerings map[ir.Kind]func(*gen, *ir.Op)

func init() {
	lowerings = map[ir.Kind]func(*gen, *ir.Op){
		ir.OpConstant:           (*gen).constant,
		ir.OpArange:             (*gen).arange,
		ir.OpBroadcast:          (*gen).broadcastLike,
		ir.OpExpandDims:         (*gen).broadcastLike,
		ir.OpReshape:            (*gen).reshapeLike,
		ir.OpTrans:              (*gen).reshapeLike,
		ir.OpGather:             (*gen).gather,
		ir.OpButterfly:          (*gen).butterfly,
		ir.OpJoin:               (*gen).join,
		ir.OpSplit:              (*gen).split,
		ir.OpFlip:               (*gen).flip,
		ir.OpExtractSlice:       (*gen).extractSlice,
		gpu.OpConvertLayout:     (*gen).convertLayout,
		ir.OpLoad:               (*gen).load,
		ir.OpStore:              (*gen).store,
		ir.OpAtomicRMW:          (*gen).atomic,
		ir.OpAtomicCAS:          (*gen).atomic,
		ir.OpReduce:             (*gen).reduce,
		ir.OpScan:               (*gen).scan,
		ir.OpDot:                (*gen).dot,
		ir.OpFor:                (*gen).forOp,
		ir.OpIf:                 (*gen).ifOp,
		ir.OpAlloc:              (*gen).alloc,
		ir.OpLocalLoad:          (*gen).localLoad,
		ir.OpLocalStore:         (*gen).localStore,
		ir.OpLocalPtr:           (*gen).localPtr,
		ir.OpMemIndex:           (*gen).memIndex,
		ir.OpMemTrans:           (*gen).memTrans,
		ir.OpMemReshape:         (*gen).memReshape,
		gpu.OpAsyncCopy:         (*gen).asyncCopy,
		ir.OpPrint:              (*gen).print,
		ir.OpAssert:             (*gen).assert,
		ir.OpAssume:             func(*gen, *ir.Op) {}, // a fact for the axis analysis (gpu.AnalyzeAxes), no code
		ir.OpAsm:                (*gen).asmOp,
		ir.OpWarpSpecialize:     (*gen).warpSpecialize,
		ir.OpPipeAlloc:          (*gen).pipeAlloc,
		ir.OpPipeAcquire:        (*gen).pipeAcquireWait,
		ir.OpPipeWait:           (*gen).pipeAcquireWait,
		ir.OpPipeCommit:         (*gen).pipeCommit,
		ir.OpPipeClose:          (*gen).pipeCommit,
		ir.OpPipeRelease:        (*gen).pipeRelease,
		ir.OpSlotField:          (*gen).slotField,
		ir.OpSlotClosed:         (*gen).slotClosed,
		ir.OpBarrierAlloc:       (*gen).barrierAlloc,
		ir.OpBarrierIndex:       (*gen).barrierIndex,
		ir.OpBarrierArrive:      (*gen).barrierArrive,
		ir.OpBarrierExpect:      (*gen).barrierArrive,
		ir.OpBarrierWait:        (*gen).barrierWait,
		ir.OpBarrierPhase:       (*gen).barrierPhase,
		ir.OpShardID:            (*gen).shardID,
		ir.OpRemote:             (*gen).remote,
		ir.OpDistributedBarrier: (*gen).distributedBarrier,
		ir.OpRemotePtr:          (*gen).remotePtr,
		ir.OpSignal:             (*gen).signal,
		ir.OpSignalWait:         (*gen).signalWait,
		ir.OpWgmma:              (*gen).wgmma,
		ir.OpWgmmaWait:          (*gen).wgmmaWait,
		ir.OpCopy:               (*gen).tmaCopy,
		ir.OpMakeDesc:           (*gen).makeDesc,

		// programmatic dependent launch (pdl.go)
		ir.OpGridDepWait:      (*gen).gridDepWait,
		ir.OpDebugBarrier:     (*gen).debugBarrier,
		ir.OpLaunchDependents: (*gen).launchDependents,

		// warp votes (votes.go)
		ir.OpBallot:      (*gen).ballot,
		ir.OpPrefixCount: (*gen).prefixCount,
	}
}

// hopperOps are the ops whose instructions a target before Hopper lacks,
// with the instruction an error names; sm90a marks those sm_90 lacks too
// (wgmma is sm_90a's).
var hopperOps = map[ir.Kind]struct {
	instr string
	sm90a bool
}{
	ir.OpCopy:               {"cp.async.bulk.tensor, a TMA copy", false},
	ir.OpMakeDesc:           {"tensormap.replace, a TMA descriptor", false},
	ir.OpBarrierExpect:      {"mbarrier.expect_tx", false},
	ir.OpShardID:            {"%cluster_ctaid, a cluster", false},
	ir.OpRemote:             {"mapa, distributed shared memory", false},
	ir.OpDistributedBarrier: {"barrier.cluster", false},
	ir.OpWgmma:              {"wgmma.mma_async", true},
	ir.OpWgmmaWait:          {"wgmma.wait_group", true},
	ir.OpGridDepWait:        {"griddepcontrol.wait", false},
	ir.OpLaunchDependents:   {"griddepcontrol.launch_dependents", false},
}

// needHopper reports, at op, an op the target lacks (hopperOps): a user
// error naming the instruction and the target rather than PTX that ptxas
// or the driver refuses later.
func (g *gen) needHopper(op *ir.Op) {
	need, ok := hopperOps[op.Kind]
	switch {
	case !ok:
	case op.Kind == ir.OpShardID && op.Attrs.Int("axis", 0) == 3:
		// shard_id(mesh, "device") is the hidden rank parameter
	case op.Kind == ir.OpDistributedBarrier && !deviceBarrierCluster(op):
		// a device barrier without barrier.cluster
	case need.sm90a && g.arch != "" && g.arch != "sm_90a":
		g.failf("needs sm_90a (%s); the target is %s", need.instr, g.arch)
	case !archAtLeast90(g.arch):
		if of := op.Attrs.String("of"); of != "" {
			// an op the lowering made for a call (desc.load, desc.store)
			g.failf("%s needs sm_90 or newer (%s); the target is %s", of, need.instr, g.arch)
		}
		g.failf("needs sm_90 or newer (%s); the target is %s", need.instr, g.arch)
	}
}

// op lowers one op: through its method in lowerings, or here.
func (g *gen) op(op *ir.Op) {
	g.needHopper(op)
	if lower, ok := lowerings[op.Kind]; ok {
		lower(g, op)
		return
	}
	switch op.Kind {
	case ir.OpProgramID, ir.OpNumPrograms:
		axis := op.Attrs.Int("axis", 0)
		name := "ctaid"
		if op.Kind == ir.OpNumPrograms {
			name = "nctaid"
		}
		fn := g.md.intrinsic(fmt.Sprintf("llvm.nvvm.read.ptx.sreg.%s.%c", name, "xyz"[axis]), true, types.I32)
		g.set(op.Results[0], &tval{s: g.cur.NewCall(fn)})
	case ir.OpSplat:
		s := g.scalar(op.Operands[0])
		t := g.newTile(op.Results[0].Type)
		for i := range t.regs {
			t.regs[i] = s
		}
		g.set(op.Results[0], t)
	case ir.OpYield, ir.OpReturn:
		// handled by the enclosing op / function
		if op.Kind == ir.OpReturn {
			g.cur.NewRet(nil)
			if op != g.f.Body.Terminator() {
				g.cur = g.newBlock() // unreachable code after an early return
			}
		}
	case gpu.OpAsyncCommit:
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, "cp.async.commit_group;", "~{memory}", true))
	case gpu.OpAsyncWait:
		g.cur.NewCall(g.md.inlineAsm(types.Void, nil, fmt.Sprintf("cp.async.wait_group %d;", op.Attrs.Int("pending", 0)), "~{memory}", true))
		g.sync.writes = append(g.sync.writes, fullRange)
	case ir.OpDeviceMesh:
		g.set(op.Results[0], &tval{})
	default:
		if op.Kind.IsElementwise() {
			g.elementwise(op)
			return
		}
		g.failf("op %s is not supported by the nvptx backend yet", op.Kind)
	}
}

// ---- constants, arange

func (g *gen) constant(op *ir.Op) {
	res := op.Results[0]
	d := ir.ElemDType(res.Type)
	c := constOf(d, op.Attrs["value"])
	if _, ok := res.Type.(*ir.Tile); !ok {
		g.set(res, &tval{s: c})
		return
	}
	t := g.newTile(res.Type)
	for i := range t.regs {
		t.regs[i] = c
	}
	g.set(res, t)
}

func (g *gen) arange(op *ir.Op) {
	res := op.Results[0]
	t := g.newTile(res.Type)
	start := op.Attrs.Int("start", 0)
	base := g.threadBase(t.ll)[0]
	et := storageType(ir.ElemDType(res.Type))
	for r := range t.regs {
		v := g.add(base, i32c(int64(g.coordsOf(t.ll)[r][0])+start))
		if et != types.I32 {
			v = g.cast(v, ir.I32, ir.ElemDType(res.Type))
		}
		t.regs[r] = v
	}
	g.set(res, t)
}

// ---- thread coordinates

// atEntry runs fn with the entry block as the insertion point (for values
// that depend only on the thread id and dominate everything).
func (g *gen) atEntry(fn func()) {
	cur := g.cur
	g.cur = g.entry
	fn()
	g.cur = cur
}

// threadBase returns, per dimension, the coordinate the thread's lane and
// warp contribute to every element it holds in ll.
func (g *gen) threadBase(ll *gpu.LinearLayout) []value.Value {
	if b, ok := g.bases[ll]; ok {
		return b
	}
	out := make([]value.Value, len(ll.Shape))
	g.atEntry(func() {
		for d := range ll.Shape {
			var acc value.Value = i32c(0)
			for _, src := range []struct {
				x     value.Value
				bases [][]int
			}{{g.lane, ll.Lane}, {g.warp, ll.Warp}} {
				// group runs of consecutive id bits mapping to consecutive
				// coordinate bits
				j := 0
				for j < len(src.bases) {
					v := src.bases[j][d]
					if v == 0 {
						j++
						continue
					}
					p := log2(v)
					n := 1
					for j+n < len(src.bases) && src.bases[j+n][d] == 1<<(p+n) {
						n++
					}
					term := g.and(g.lshr(src.x, i32c(int64(j))), i32c(int64(1<<n-1)))
					acc = g.or(acc, g.shl(term, i32c(int64(p))))
					j += n
				}
			}
			out[d] = acc
		}
	})
	g.bases[ll] = out
	return out
}

func log2(x int) int {
	n := 0
	for x > 1 {
		x >>= 1
		n++
	}
	return n
}

func (g *gen) coordsOf(ll *gpu.LinearLayout) [][]int {
	if c, ok := g.regCoords[ll]; ok {
		return c
	}
	c := make([][]int, ll.NumRegs())
	for r := range c {
		c[r] = ll.RegCoords(r)
	}
	g.regCoords[ll] = c
	return c
}

// regAt returns the register of ll holding the element at register
// coordinates c (the thread-independent part), or -1.
func (g *gen) regAt(ll *gpu.LinearLayout, c []int) int {
	idx, ok := g.regIndex[ll]
	if !ok {
		idx = map[int]int{}
		for r, rc := range g.coordsOf(ll) {
			idx[linearIn(rc, ll.Shape)] = r
		}
		g.regIndex[ll] = idx
	}
	for d, x := range c {
		if x < 0 || x >= ll.Shape[d] {
			return -1
		}
	}
	if r, ok := idx[linearIn(c, ll.Shape)]; ok {
		return r
	}
	return -1
}

func linearIn(c, shape []int) int {
	i := 0
	for d := range shape {
		i = i*shape[d] + c[d]
	}
	return i
}

// canonical returns an i1 that is true in the threads that own (rather than
// replicate) their elements of ll, or nil when no thread replicates.
func (g *gen) canonical(ll *gpu.LinearLayout) value.Value {
	lm, wm := ll.ZeroLaneMask(), ll.ZeroWarpMask()
	// warps beyond the layout's (a CTA of warp roles whose warp count is
	// not a power of two) hold copies
	extra := g.role == nil && gpu.OutsideWarps(g.nw) < g.nw
	if lm == 0 && wm == 0 && !extra {
		return nil
	}
	var c value.Value
	g.atEntry(func() {
		var bits value.Value = i32c(0)
		if lm != 0 {
			bits = g.and(g.lane, i32c(int64(lm)))
		}
		if wm != 0 {
			bits = g.or(bits, g.and(g.warp, i32c(int64(wm))))
		}
		if extra {
			bits = g.or(bits, g.and(g.warp, i32c(int64(^(gpu.OutsideWarps(g.nw)-1)))))
		}
		c = g.cur.NewICmp(enum.IPredEQ, bits, i32c(0))
	})
	return c
}

// ---- folding builders: integer operations are folded at compile time when
// both operands are constants, when one leaves the other as it is (x + 0,
// x * 1) and when one makes the result zero (x * 0, x & 0).

// intFold is what folding knows of an integer operation.
type intFold struct {
	eval     func(x, y int64) (int64, bool) // the result for constants (false: not folded)
	hasUnit  bool                           // a op unit == a
	unit     int64
	commutes bool // unit op b == b as well
	zeroes   bool // a op 0 == 0 op b == 0
}

func exact(f func(x, y int64) int64) func(x, y int64) (int64, bool) {
	return func(x, y int64) (int64, bool) { return f(x, y), true }
}

var (
	foldAdd  = intFold{eval: exact(func(x, y int64) int64 { return x + y }), hasUnit: true, commutes: true}
	foldSub  = intFold{eval: exact(func(x, y int64) int64 { return x - y }), hasUnit: true}
	foldMul  = intFold{eval: exact(func(x, y int64) int64 { return x * y }), hasUnit: true, unit: 1, commutes: true, zeroes: true}
	foldAnd  = intFold{eval: exact(func(x, y int64) int64 { return x & y }), zeroes: true}
	foldOr   = intFold{eval: exact(func(x, y int64) int64 { return x | y }), hasUnit: true, commutes: true}
	foldXor  = intFold{eval: exact(func(x, y int64) int64 { return x ^ y }), hasUnit: true, commutes: true}
	foldShl  = intFold{eval: exact(func(x, y int64) int64 { return x << uint(y) }), hasUnit: true}
	foldLShr = intFold{eval: func(x, y int64) (int64, bool) { return x >> uint(y), x >= 0 }, hasUnit: true}
)

// fold returns the value of a op b when folding knows it.
func (f intFold) fold(a, b value.Value) (value.Value, bool) {
	x, okx := constInt(a)
	y, oky := constInt(b)
	if okx && oky {
		if v, ok := f.eval(x, y); ok {
			return intConst(a.Type(), v), true
		}
	}
	switch {
	case f.hasUnit && oky && y == f.unit:
		return a, true
	case f.hasUnit && f.commutes && okx && x == f.unit:
		return b, true
	case f.zeroes && (oky && y == 0 || okx && x == 0):
		return intConst(a.Type(), 0), true
	}
	return nil, false
}

// foldOrEmit is f's folded a op b, else the instruction emit builds.
func foldOrEmit[I value.Value](f intFold, a, b value.Value, emit func(x, y value.Value) I) value.Value {
	if v, ok := f.fold(a, b); ok {
		return v
	}
	return emit(a, b)
}

func (g *gen) add(a, b value.Value) value.Value  { return foldOrEmit(foldAdd, a, b, g.cur.NewAdd) }
func (g *gen) sub(a, b value.Value) value.Value  { return foldOrEmit(foldSub, a, b, g.cur.NewSub) }
func (g *gen) mul(a, b value.Value) value.Value  { return foldOrEmit(foldMul, a, b, g.cur.NewMul) }
func (g *gen) and(a, b value.Value) value.Value  { return foldOrEmit(foldAnd, a, b, g.cur.NewAnd) }
func (g *gen) or(a, b value.Value) value.Value   { return foldOrEmit(foldOr, a, b, g.cur.NewOr) }
func (g *gen) xor(a, b value.Value) value.Value  { return foldOrEmit(foldXor, a, b, g.cur.NewXor) }
func (g *gen) shl(a, b value.Value) value.Value  { return foldOrEmit(foldShl, a, b, g.cur.NewShl) }
func (g *gen) lshr(a, b value.Value) value.Value { return foldOrEmit(foldLShr, a, b, g.cur.NewLShr) }

// and1 is a logical and of i1 values, either of which may be nil (true).
func (g *gen) and1(a, b value.Value) value.Value {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if c, ok := a.(*constant.Int); ok {
		if c.X.Sign() != 0 {
			return b
		}
		return a
	}
	if c, ok := b.(*constant.Int); ok {
		if c.X.Sign() != 0 {
			return a
		}
		return b
	}
	return g.cur.NewAnd(a, b)
}

// ---- barriers and shared memory

// barrier synchronises the threads running the current code: the CTA
// (bar.sync 0), or inside a warp role the role's threads (a named barrier).
func (g *gen) barrier() {
	if g.role != nil {
		g.namedBarrier(g.role.barID, g.role.threads)
	} else {
		g.cur.NewCall(g.md.intrinsic("llvm.nvvm.barrier0", false, types.Void))
	}
	g.sync = smemState{}
	g.barrierInLoop = true
}

// debugBarrier lowers debug_barrier(): bar.sync 0 for the whole CTA (the
// checker rejects it inside a warp role, where the other roles would never
// arrive).
func (g *gen) debugBarrier(op *ir.Op) {
	if g.role != nil {
		g.failf("debug_barrier inside a warp role: a CTA-wide barrier there deadlocks")
	}
	g.barrier()
}

// rng is a byte range of shared memory [lo, hi).
type rng struct{ lo, hi int }

var fullRange = rng{0, 1 << 30}

func (a rng) overlaps(b rng) bool { return a.lo < b.hi && b.lo < a.hi }

// smemState is the shared-memory traffic of this CTA since the last
// barrier: the byte ranges read and written (any thread may still be
// reading or writing them).
type smemState struct{ reads, writes, atomics []rng }

func anyOverlap(rs []rng, r rng) bool {
	for _, x := range rs {
		if x.overlaps(r) {
			return true
		}
	}
	return false
}

// union is the traffic of either state. A range already listed is not
// listed again: both arms of an if start from the same state, and
// repeating it would double the lists at every if (2^k ranges after k ifs
// in a row, as a combine helper with an if gives at each of its steps).
func (s smemState) union(o smemState) smemState {
	merge := func(a, b []rng) []rng {
		r := append([]rng{}, a...)
		for _, x := range b {
			if !slices.Contains(r, x) {
				r = append(r, x)
			}
		}
		return r
	}
	return smemState{reads: merge(s.reads, o.reads), writes: merge(s.writes, o.writes), atomics: merge(s.atomics, o.atomics)}
}

// unknownState is assumed where control flow joins (loop heads).
func unknownState() smemState {
	return smemState{reads: []rng{fullRange}, writes: []rng{fullRange}, atomics: []rng{fullRange}}
}

// beforeSharedWrite / beforeSharedRead insert the barriers that order this
// CTA's shared-memory traffic: a write waits for earlier reads of its bytes
// by other threads, a read for earlier writes of its bytes.
func (g *gen) beforeSharedWrite() { g.beforeSharedWriteR(fullRange) }
func (g *gen) beforeSharedRead()  { g.beforeSharedReadR(fullRange) }

func (g *gen) beforeSharedWriteR(r rng) {
	if anyOverlap(g.sync.reads, r) || anyOverlap(g.sync.atomics, r) {
		g.barrier()
	}
	g.sync.writes = append(g.sync.writes, r)
}

func (g *gen) beforeSharedReadR(r rng) {
	if anyOverlap(g.sync.writes, r) || anyOverlap(g.sync.atomics, r) {
		g.barrier()
	}
	g.sync.reads = append(g.sync.reads, r)
}

// readingShared records a read of r that happens here, for a read whose
// barrier check ran earlier (a lazy ldmatrix, emitted at its use): a
// barrier since then (the using store's, before its first stmatrix)
// cleared the record, and a later write of r must still wait for it.
func (g *gen) readingShared(r rng) {
	if !slices.Contains(g.sync.reads, r) {
		g.beforeSharedReadR(r)
	}
}

// beforeSharedAtomicR orders an atomic on the bytes r after earlier plain
// reads and writes of them (atomics among themselves need no barrier);
// later plain accesses wait for it.
func (g *gen) beforeSharedAtomicR(r rng) {
	if anyOverlap(g.sync.reads, r) || anyOverlap(g.sync.writes, r) {
		g.barrier()
	}
	g.sync.atomics = append(g.sync.atomics, r)
}

// scratchRange is the current op's scratch bytes.
func (g *gen) scratchRange(size int) rng {
	off := g.smemOffset()
	return rng{off, off + size}
}

// viewBytes is the bytes of a view of md's shape starting at byte off.
func viewBytes(off int, md *ir.MemDesc) rng {
	return rng{off, off + ir.NumElements(md.Shape)*md.Elem.Bytes()}
}

// refRange is the bytes of a buffer view: from its constant offset, else
// the alloc's it lies in (a slot at a computed index), else all of shared
// memory.
func refRange(ref *memRef) rng {
	if off, ok := constInt(ref.off); ok {
		return viewBytes(int(off), ref.desc)
	}
	if ref.span.hi > 0 {
		return ref.span
	}
	return fullRange
}

// smemPtr returns a pointer of element type et to byte offset off (i32) of
// the dynamic shared memory.
func (g *gen) smemPtr(off value.Value, et types.Type) value.Value {
	base := g.md.sharedBase()
	var p value.Value
	if c, ok := constInt(off); ok && c == 0 {
		p = g.cur.NewGetElementPtr(base.ContentType, base, i64c(0), i64c(0))
	} else {
		p = g.cur.NewGetElementPtr(base.ContentType, base, i64c(0), g.cur.NewZExt(off, types.I64))
	}
	p.(*llvm.InstGetElementPtr).InBounds = true
	if et == types.I8 {
		return p
	}
	return g.cur.NewBitCast(p, ptrTo(et, asShared))
}

// ---- control flow

func (g *gen) forOp(op *ir.Op) {
	body := op.Regions[0]
	lb, ub, step := g.scalar(op.Operands[0]), g.scalar(op.Operands[1]), g.scalar(op.Operands[2])
	ivType := ir.ElemDType(op.Operands[0].Type)
	inits := op.Operands[3:]
	pre := g.cur
	header := g.newBlock()
	loop := g.newBlock()
	exit := g.newBlock()
	type carried struct {
		phis []*llvm.InstPhi
	}
	cs := make([]carried, len(inits))
	// 8-bit tiles travel as packed words (carried), packed in the
	// preheader: g.cur is still pre here
	incoming := make([][]value.Value, len(inits))
	for i, init := range inits {
		t := g.val(init)
		if t.mem != nil {
			g.failf("a loop-carried shared buffer is not supported")
		}
		incoming[i] = g.carried(t, init.Type)
	}
	g.cur.NewBr(header)
	g.cur = header
	ivPhi := header.NewPhi(llvm.NewIncoming(lb, pre))
	for i := range inits {
		for _, v := range incoming[i] {
			cs[i].phis = append(cs[i].phis, header.NewPhi(llvm.NewIncoming(v, pre)))
		}
	}
	args := make([]*tval, len(inits))
	for i := range inits {
		arg := body.Args[1+i]
		vs := make([]value.Value, len(cs[i].phis))
		for r, p := range cs[i].phis {
			vs[r] = p
		}
		args[i] = g.uncarried(vs, g.val(inits[i]), arg.Type)
		a := *args[i] // the body may rewrite its own registers (a wgmma wait)
		a.regs = slices.Clone(a.regs)
		g.set(arg, &a)
	}
	pred := enum.IPredSLT
	if ivType.IsUnsigned() {
		pred = enum.IPredULT
	}
	var cond value.Value = header.NewICmp(pred, ivPhi, ub)
	if w, ok := op.Attrs["while"].(int64); ok {
		// a while loop, or one holding a break: it runs while its flag is
		// true
		flag := cs[w].phis[0]
		var live value.Value = flag
		if !flag.Type().Equal(types.I1) {
			live = header.NewICmp(enum.IPredNE, flag, constant.NewInt(flag.Type().(*types.IntType), 0))
		}
		cond = header.NewAnd(cond, live)
	}
	header.NewCondBr(cond, loop, exit)
	g.set(body.Args[0], &tval{s: ivPhi})

	// shared-memory state at the top of the body is the join of the state
	// before the loop and after an iteration: assume traffic is pending
	g.sync = unknownState()
	g.barrierInLoop = false
	g.cur = loop
	g.loopDepth++
	if g.loopAddresses && g.loopDepth == 1 && g.role == nil {
		// the body's own entry for the per-thread values (atEntry), from
		// a thread index read in each iteration (AttrLoopAddresses)
		tid := loop.NewCall(g.md.inlineAsm(types.I32, nil, "mov.u32 $0, %tid.x;", "=r", true))
		g.ownEntry(loop, tid, loop.NewAnd(tid, i32c(31)), loop.NewLShr(tid, i32c(5)), body)
	} else {
		g.block(body)
	}
	g.loopDepth--
	y := body.Terminator()
	next := g.add(ivPhi, step)
	latch := g.cur
	for i := range inits {
		vs := g.carried(g.val(y.Operands[i]), y.Operands[i].Type)
		for r, p := range cs[i].phis {
			p.Incs = append(p.Incs, llvm.NewIncoming(vs[r], latch))
		}
	}
	ivPhi.Incs = append(ivPhi.Incs, llvm.NewIncoming(next, latch))
	g.cur.NewBr(header)
	g.cur = exit
	g.sync = unknownState()
	g.barrierInLoop = false
	for i, res := range op.Results {
		// the header's values (phis, and the registers cut from them)
		// dominate the exit
		t := args[i]
		if t.ll != nil {
			t.ll = g.layoutOf(res.Type)
		}
		g.set(res, t)
	}
}

// carried is what a loop or a branch carries of t, a value of type typ,
// through its phis: a scalar; a tile's registers; an 8-bit tile's
// registers packed four to an i32 (quad: one prmt.b32 at most for
// registers cut from words, as a packed cast or ldmatrix gives them),
// which takes a quarter of the phis and of the registers that hold them
// (PTX has no 8-bit registers: each byte of a tile would take one) and
// hands on the words to the users that pack them again (wgmma's register
// a, shuffles).
func (g *gen) carried(t *tval, typ ir.Type) []value.Value {
	if t.s != nil {
		return []value.Value{t.s}
	}
	if !wordCarried(typ, t) {
		return t.regs
	}
	out := make([]value.Value, len(t.regs)/4)
	for w := range out {
		out[w] = g.quad(t, 4*w)
	}
	return out
}

// uncarried is the value of type typ that the phis vs carry (carried),
// like (the incoming value's form): registers cut from the words (trunc,
// lshr) in g.cur, for an 8-bit tile.
func (g *gen) uncarried(vs []value.Value, like *tval, typ ir.Type) *tval {
	if like.s != nil {
		return &tval{s: vs[0]}
	}
	nt := &tval{ll: g.layoutOf(typ), regs: make([]value.Value, len(like.regs))}
	if nt.ll.NumRegs() != len(like.regs) {
		g.failf("loop-carried tile changes layout")
	}
	if !wordCarried(typ, like) {
		copy(nt.regs, vs)
		return nt
	}
	for r := range nt.regs {
		w := vs[r/4]
		if k := r % 4; k > 0 {
			w = g.cur.NewLShr(w, i32c(int64(8*k)))
		}
		nt.regs[r] = g.cur.NewTrunc(w, types.I8)
	}
	nt.cut = true
	return nt
}

// ready emits register r of t if it is still lazy (see ldmatrix), so that
// t.regs[r] holds it.
func (t *tval) ready(r int) {
	if th, ok := t.lazy[r]; ok {
		th()
	}
}

// wordCarried reports whether a tile t of type typ goes through phis as
// packed words (carried).
func wordCarried(typ ir.Type, t *tval) bool {
	if _, ok := ir.Elem(typ).(ir.DType); !ok {
		return false // pointers (ElemDType is their pointee's type)
	}
	return t.s == nil && ir.ElemDType(typ).Bits() == 8 && len(t.regs)%4 == 0 && len(t.regs) > 0
}

func (g *gen) ifOp(op *ir.Op) {
	cond := g.scalar(op.Operands[0])
	thenB := g.newBlock()
	elseB := g.newBlock()
	merge := g.newBlock()
	g.cur.NewCondBr(cond, thenB, elseB)
	before, barrierBefore := g.sync, g.barrierInLoop
	type arm struct {
		vals    []*tval
		words   [][]value.Value // carried
		block   *llvm.Block
		st      smemState
		barrier bool
	}
	var arms [2]arm
	for i, b := range []*llvm.Block{thenB, elseB} {
		g.cur = b
		g.sync, g.barrierInLoop = before, barrierBefore
		if i < len(op.Regions) {
			g.block(op.Regions[i])
			if y := op.Regions[i].Terminator(); y != nil && y.Kind == ir.OpYield {
				for _, v := range y.Operands {
					t := g.val(v)
					arms[i].vals = append(arms[i].vals, t)
					arms[i].words = append(arms[i].words, g.carried(t, v.Type))
				}
			}
		}
		arms[i].block, arms[i].st, arms[i].barrier = g.cur, g.sync, g.barrierInLoop
		g.cur.NewBr(merge)
	}
	g.cur = merge
	g.sync = arms[0].st.union(arms[1].st)
	// a barrier since the loop's top only if there was one on both paths
	g.barrierInLoop = barrierBefore || (arms[0].barrier && arms[1].barrier)
	phis := make([][]value.Value, len(op.Results))
	for i := range op.Results {
		a, b := arms[0].words[i], arms[1].words[i]
		for r := range a {
			phis[i] = append(phis[i], merge.NewPhi(llvm.NewIncoming(a[r], arms[0].block), llvm.NewIncoming(b[r], arms[1].block)))
		}
	}
	for i, res := range op.Results {
		g.set(res, g.uncarried(phis[i], arms[0].vals[i], res.Type))
	}
}

// ---- print / assert / asm

func (g *gen) print(op *ir.Op) {
	// printf of scalars only: tiles would print one line per element per
	// thread; print their first register as a debugging aid.
	prefix := op.Attrs.String("prefix")
	var args []value.Value
	var f strings.Builder
	f.WriteString("pid (%d, %d, %d) tid %d: ")
	f.WriteString(strings.ReplaceAll(prefix, "%", "%%"))
	ctaid := func(c byte) value.Value {
		return g.cur.NewCall(g.md.intrinsic("llvm.nvvm.read.ptx.sreg.ctaid."+string(c), true, types.I32))
	}
	args = append(args, ctaid('x'), ctaid('y'), ctaid('z'), g.tid)
	for _, v := range op.Operands {
		t := g.val(v)
		x := t.s
		if x == nil && len(t.regs) > 0 {
			x = t.regs[0]
		}
		if x == nil {
			continue
		}
		d := ir.ElemDType(v.Type)
		switch {
		case d.IsFloat():
			f.WriteString(" %f")
			x = g.toCompute(x, d)
			if d != ir.F64 {
				x = g.cur.NewFPExt(x, types.Double)
			}
		case d.Bits() == 64:
			f.WriteString(" %lld")
		case d.IsInt():
			f.WriteString(" %d")
			x = g.cast(x, d, ir.I32)
		default:
			f.WriteString(" %p")
		}
		args = append(args, x)
	}
	f.WriteString("\n")
	g.printf(f.String(), args)
}

func (g *gen) printf(format string, args []value.Value) {
	vp := g.md.intrinsic("vprintf", false, types.I32, ptrTo(types.I8, asGeneric), ptrTo(types.I8, asGeneric))
	str := g.md.cstring(format)
	fmtPtr := g.cur.NewGetElementPtr(str.ContentType, str, i64c(0), i64c(0))
	fmtGen := g.cur.NewAddrSpaceCast(fmtPtr, ptrTo(types.I8, asGeneric))
	var argPtr value.Value = constant.NewNull(ptrTo(types.I8, asGeneric))
	if len(args) > 0 {
		var fields []types.Type
		for _, a := range args {
			fields = append(fields, a.Type())
		}
		st := types.NewStruct(fields...)
		var buf value.Value
		g.atEntry(func() { buf = g.cur.NewAlloca(st) })
		for i, a := range args {
			p := g.cur.NewGetElementPtr(st, buf, i32c(0), i32c(int64(i)))
			g.cur.NewStore(a, p)
		}
		argPtr = g.cur.NewBitCast(buf, ptrTo(types.I8, asGeneric))
	}
	g.cur.NewCall(vp, fmtGen, argPtr)
}

func (md *module) cstring(s string) *llvm.Global {
	if g, ok := md.fmtStrings[s]; ok {
		return g
	}
	c := constant.NewCharArrayFromString(s + "\x00")
	g := md.m.NewGlobalDef(fmt.Sprintf("fmt%d", len(md.fmtStrings)), c)
	g.AddrSpace = asGlobal
	g.Immutable = true
	g.Linkage = enum.LinkageInternal
	g.Typ = nil
	md.fmtStrings[s] = g
	return g
}

func (g *gen) assert(op *ir.Op) {
	t := g.val(op.Operands[0])
	conds := []value.Value{t.s}
	if t.s == nil {
		conds = t.regs
	}
	var ok value.Value
	for _, c := range conds {
		if c.Type() != types.I1 {
			c = g.cur.NewICmp(enum.IPredNE, c, intConst(c.Type(), 0))
		}
		ok = g.and1(ok, c)
	}
	fail := g.newBlock()
	cont := g.newBlock()
	g.cur.NewCondBr(ok, cont, fail)
	g.cur = fail
	g.printf("assertion failed: "+strings.ReplaceAll(op.Attrs.String("msg"), "%", "%%")+"\n", nil)
	g.cur.NewCall(g.md.intrinsic("llvm.trap", false, types.Void))
	g.cur.NewUnreachable()
	g.cur = cont
}

func (g *gen) asmOp(op *ir.Op) {
	var args []value.Value
	var ptys []types.Type
	for _, v := range append(append([]*ir.Value(nil), op.Operands...), op.Results...) {
		if len(ir.ShapeOf(v.Type)) > 0 {
			g.failf("asm takes and returns scalars on the GPU, not %s", ir.StripLayout(v.Type))
		}
	}
	for _, v := range op.Operands {
		x := g.scalar(v)
		args = append(args, x)
		ptys = append(ptys, x.Type())
	}
	ret := types.Type(types.Void)
	if len(op.Results) == 1 {
		ret = elemType(op.Results[0].Type)
	}
	cons := op.Attrs.String("constraints")
	if cons == "" {
		cons = asmConstraints(ret, ptys)
	}
	a := g.md.inlineAsm(ret, ptys, op.Attrs.String("template"), cons, true)
	call := g.cur.NewCall(a, args...)
	if len(op.Results) == 1 {
		g.set(op.Results[0], &tval{s: call})
	}
}

// asmConstraints derives the LLVM inline-asm constraint string of an asm op
// from its result and operand types, with NVPTX's register classes: f for
// f32, d for f64, h for 16-bit, r for 32-bit and l for 64-bit integers and
// pointers; $0 is the result when there is one.
func asmConstraints(ret types.Type, args []types.Type) string {
	letter := func(t types.Type) string {
		switch t := t.(type) {
		case *types.FloatType:
			switch t.Kind {
			case types.FloatKindDouble:
				return "d"
			case types.FloatKindHalf:
				return "h"
			}
			return "f"
		case *types.IntType:
			switch {
			case t.BitSize <= 16:
				return "h"
			case t.BitSize <= 32:
				return "r"
			}
			return "l"
		case *types.PointerType:
			return "l"
		}
		return "r"
	}
	var parts []string
	if ret != types.Void {
		parts = append(parts, "="+letter(ret))
	}
	for _, a := range args {
		parts = append(parts, letter(a))
	}
	return strings.Join(parts, ",")
}

// sortedKeys is a helper for deterministic iteration.
func sortedKeys(m map[int]value.Value) []int {
	var k []int
	for x := range m {
		k = append(k, x)
	}
	sort.Ints(k)
	return k
}
