package nvptx_test

// PTX of the TLE extensions (warp roles, pipes, mbarriers, clusters),
// compiled from .tle through the whole pipeline with llc-19: whole
// instruction patterns, and a structural check of the mbarrier protocol.

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle"
)

// kernelOf parses src as the file name and returns its kernel.
func kernelOf(t *testing.T, name, src, kernel string) *tle.Kernel {
	t.Helper()
	prog, err := tle.Load(fstest.MapFS{name: {Data: []byte(src)}}, name)
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel(kernel)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func compileTLE(t *testing.T, prog *tle.Program, kernel string, defines map[string]string) *tle.Binary {
	t.Helper()
	if _, err := nvptx.FindLLC(); err != nil {
		t.Skipf("llc-19 not installed: %v", err)
	}
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	k, err := prog.Kernel(kernel)
	if err != nil {
		t.Fatal(err)
	}
	b, err := k.Compile(tle.CompileOptions{Defines: defines}, tle.GPUOptions{Toolchain: "llc"})
	if err != nil {
		t.Fatalf("%s: %v", kernel, err)
	}
	return b
}

func tutorial(t *testing.T, file, kernel string, defines map[string]string) *tle.Binary {
	t.Helper()
	prog, err := tle.LoadFile("../../kernels/tutorials/" + file)
	if err != nil {
		t.Fatal(err)
	}
	return compileTLE(t, prog, kernel, defines)
}

// wantPTX requires each pattern (a regexp over one instruction, whitespace
// flexible) to match at least min times.
func wantPTX(t *testing.T, ptx string, min int, patterns ...string) {
	t.Helper()
	for _, p := range patterns {
		re := regexp.MustCompile(strings.ReplaceAll(p, " ", `\s+`))
		if n := len(re.FindAllStringIndex(ptx, -1)); n < min {
			t.Errorf("PTX has %d matches of %q, want at least %d", n, p, min)
		}
	}
}

func countPTX(ptx, pattern string) int {
	return len(regexp.MustCompile(strings.ReplaceAll(pattern, " ", `\s+`)).FindAllStringIndex(ptx, -1))
}

var (
	reNamedBar = regexp.MustCompile(`bar\.sync\s+(\d+),\s*(\d+);`)
	reBar0     = regexp.MustCompile(`bar\.sync\s+0;`)
)

// checkSyncStructure is a ptxas-free sanity check of the synchronisation
// code: mbarriers are initialised (by mbarrier.init, then
// fence.mbarrier_init, then a CTA barrier) before any wait or arrival;
// named barriers use ids 1..15, a thread count that is a multiple of 32,
// and one count per id.
func checkSyncStructure(t *testing.T, ptx string) {
	t.Helper()
	firstUse := -1
	for _, p := range []string{"mbarrier.try_wait", "mbarrier.arrive", "mbarrier.test_wait"} {
		if i := strings.Index(ptx, p); i >= 0 && (firstUse < 0 || i < firstUse) {
			firstUse = i
		}
	}
	if firstUse >= 0 {
		lastInit := strings.LastIndex(ptx[:firstUse], "mbarrier.init.shared::cta.b64")
		if lastInit < 0 {
			t.Fatalf("an mbarrier is waited on or arrived at before any mbarrier.init")
		}
		fence := strings.Index(ptx[lastInit:firstUse], "fence.mbarrier_init.release.cluster;")
		if fence < 0 {
			t.Errorf("no fence.mbarrier_init between the initialisation and the first use")
		} else if !reBar0.MatchString(ptx[lastInit+fence : firstUse]) {
			t.Errorf("no CTA barrier (bar.sync 0) between fence.mbarrier_init and the first use")
		}
		if strings.Count(ptx, "mbarrier.try_wait") > 0 && strings.Count(ptx, "mbarrier.arrive") == 0 {
			t.Errorf("mbarriers are waited on but nothing arrives")
		}
	}
	counts := map[int]int{}
	for _, m := range reNamedBar.FindAllStringSubmatch(ptx, -1) {
		id, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[2])
		if id < 1 || id > 15 {
			t.Errorf("named barrier id %d outside 1..15", id)
		}
		if n <= 0 || n%32 != 0 {
			t.Errorf("bar.sync %d, %d: the thread count must be a positive multiple of 32", id, n)
		}
		if c, ok := counts[id]; ok && c != n {
			t.Errorf("named barrier %d used with thread counts %d and %d", id, c, n)
		}
		counts[id] = n
	}
	if strings.Count(ptx, "{") != strings.Count(ptx, "}") {
		t.Errorf("unbalanced braces in the PTX")
	}
}

func TestPTXPipeScale(t *testing.T) {
	b := tutorial(t, "pipe_scale.tle", "pipe_scale", map[string]string{"ROWS": "8", "ROW": "256", "CAP": "2"})
	ptx := b.PTX
	if b.NumWarps != 8 {
		t.Errorf("NumWarps = %d, want 8 (load role padded to 4 warps + compute role 4)", b.NumWarps)
	}
	wantPTX(t, ptx, 1,
		`\.maxntid 256, 1, 1`,
		`fence\.mbarrier_init\.release\.cluster;`,
		`bar\.sync 1, 32;`,  // the load role (1 warp)
		`bar\.sync 2, 128;`, // the compute role (4 warps)
	)
	// 2 slots: full[0..1] and empty[0..1], count 1 each
	if n := countPTX(ptx, `@%p mbarrier\.init\.shared::cta\.b64 \[%r\d+(\+\d+)?\], 1;`); n != 4 {
		t.Errorf("%d mbarrier.init, want 4", n)
	}
	// acquire (empty) and wait (full): a try_wait.parity loop each
	wantPTX(t, ptx, 2,
		`mbarrier\.try_wait\.parity\.shared::cta\.b64 %p, \[%r\d+\], %r\d+;`,
		`@%p mbarrier\.arrive\.shared::cta\.b64 %st, \[%r\d+\];`,
	)
	checkSyncStructure(t, ptx)
}

func TestPTXClusterExchange(t *testing.T) {
	b := tutorial(t, "cluster_exchange.tle", "cluster_exchange", map[string]string{"BLOCK": "128"})
	ptx := b.PTX
	if b.Cluster != [3]int{2, 1, 1} {
		t.Errorf("Cluster = %v, want [2 1 1]", b.Cluster)
	}
	wantPTX(t, ptx, 1,
		`mov\.u32 %r\d+, %cluster_ctaid\.x;`,
		`mapa\.shared::cluster\.u32 %r\d+, %r\d+, %r\d+;`,
		`ld\.shared::cluster\.f32 %f\d+, \[%r\d+\];`,
		`st\.shared\.f32`,
	)
	if n := countPTX(ptx, `barrier\.cluster\.arrive\.release\.aligned;\s+barrier\.cluster\.wait\.acquire\.aligned;`); n != 2 {
		t.Errorf("%d distributed barriers (arrive.release + wait.acquire), want 2", n)
	}
	if strings.Contains(ptx, "mbarrier") {
		t.Errorf("cluster_exchange needs no mbarrier")
	}
	checkSyncStructure(t, ptx)
}

const streamSrc = `
kernel stream(x *f32, out *f32, n i32) {
    pp := pipe(capacity: 3, v: [32]f32)
    done := barrier(count: 1, slots: 2)
    cols := arange(0, 32)
    warp_specialize {
        role producer(warps: 1, regs: 40) {
            for i := range n {
                s := pp.acquire(i)
                store(s.v, load(x + i*32 + cols))
                pp.commit(i)
            }
            last := pp.acquire(n)
            pp.close(n)
            arrive(done.slot(1))
        }
        role consumer(warps: 4, regs: 232) {
            for i := 0; i <= n; i += 1 {
                s := pp.wait(i)
                if !s.closed {
                    store(out + i*32 + cols, load(s.v) * 2.0)
                }
                pp.release(i)
            }
            wait(done.slot(1), 0)
        }
    }
}
`

func TestPTXStreamCloseBarriers(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"stream.tle": {Data: []byte(streamSrc)}}, "stream.tle")
	if err != nil {
		t.Fatal(err)
	}
	b := compileTLE(t, prog, "stream", nil)
	ptx := b.PTX
	if b.NumWarps != 8 {
		t.Errorf("NumWarps = %d, want 8", b.NumWarps)
	}
	// 3 slots x 2 pipe barriers (count 1) and a 2-barrier array (count 1)
	if n := countPTX(ptx, `@%p mbarrier\.init\.shared::cta\.b64 \[%r\d+(\+\d+)?\], 1;`); n != 8 {
		t.Errorf("%d mbarrier.init, want 8", n)
	}
	wantPTX(t, ptx, 1,
		`setmaxnreg\.dec\.sync\.aligned\.u32 40;`,
		`setmaxnreg\.dec\.sync\.aligned\.u32 232;`,
		`\.minnctapersm 1`,
		// close writes the slot's closed flag before the arrival
		`@%p st\.shared\.u32 \[%r\d+\], %flag;\s+@%p mbarrier\.arrive\.shared::cta\.b64 %st, \[%r\d+\];`,
		`ld\.shared\.u32`, // s.closed
	)
	// 3 closed flags zeroed at initialisation
	if n := countPTX(ptx, `@%p st\.shared\.u32 \[%r\d+\+\d+\], %z;`); n != 3 {
		t.Errorf("%d closed flags zeroed, want 3", n)
	}
	checkSyncStructure(t, ptx)
}

// TestPTXRegATransposed: wgmma(load(v.T), ...) with an 8-bit v contiguous
// along M (smem_transpose_fp8.tle's pvt_e4m3_reg, V^T P^T) reads V^T into
// wgmma's register a with ldmatrix.x4.trans from the swizzled V buffer and
// one prmt.b32 (0x6420 / 0x7531) per packed register: between the TMA
// wait and the products no element-wise ld.shared, no stmatrix, no
// convert through shared memory, no barrier; the products take a as four
// registers.
func TestPTXRegATransposed(t *testing.T) {
	for _, n := range []string{"8", "16", "32"} {
		b := tutorial(t, "smem_transpose_fp8.tle", "pvt_e4m3_reg", map[string]string{"N": n})
		ptx := b.PTX
		first := strings.Index(ptx, "wgmma.fence")
		if first < 0 {
			t.Fatalf("N=%s: no wgmma", n)
		}
		// from the TMA wait to the products (the mbarrier set-up before
		// has its own bar.sync)
		wait := strings.LastIndex(ptx[:first], "mbarrier.try_wait")
		if wait < 0 {
			t.Fatalf("N=%s: no TMA wait before the products", n)
		}
		pre := ptx[wait:first]
		for _, c := range []struct {
			pattern string
			want    int
		}{
			{`ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16 \{%r\d+, %r\d+, %r\d+, %r\d+\}, \[%r\d+\];`, 4},
			{`prmt\.b32 %r\d+, %r\d+, %r\d+, 0x6420;`, 8},
			{`prmt\.b32 %r\d+, %r\d+, %r\d+, 0x7531;`, 8},
			{`ld\.shared\.`, 0},
			{`st\.shared\.`, 0},
			{`stmatrix`, 0},
			{`bar\.sync`, 0},
		} {
			if got := countPTX(pre, c.pattern); got != c.want {
				t.Errorf("N=%s: %d of %q before the products, want %d", n, got, c.pattern, c.want)
			}
		}
		w := `wgmma\.mma_async\.sync\.aligned\.m64n` + n + `k32\.f32\.e4m3\.e4m3 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+, %wgp, 1, 1;`
		if got := countPTX(ptx, w); got != 4 {
			t.Errorf("N=%s: %d register-a products, want 4 (2 row blocks x 2 k steps)", n, got)
		}
		// V's buffer is swizzled: TMA lands it with the hardware's 128B pattern
		for _, d := range b.Descs {
			if d.Box[len(d.Box)-1] == 128 && d.Swizzle == 0 {
				t.Errorf("N=%s: V's TMA map is not swizzled", n)
			}
		}
	}
}

const rolesFenceSrc = `
kernel roles_fence(x *bf16, y *bf16, idx *i32, out *f32, n i32) {
    r := arange(0, 64)
    sa := alloc([64, 64], bf16, init: load(x + r[:, None]*64 + r[None, :]))
    sb := alloc([2, 64, 64], bf16)
    tab := alloc([64], i32)
    full := barrier(count: 1, slots: 2)
    empty := barrier(count: 1, slots: 2)
    seen := barrier(count: 1)
    warp_specialize {
        role writer(warps: 4, regs: 40) {
            rr := arange(0, 64)
            store(tab, load(idx + rr))
            arrive(seen)
            for i := range n {
                s := i % 2
                if i >= 2 {
                    wait(empty.slot(s), (i/2 + 1) % 2)
                }
                store(sb.slot(s), load(y + i*4096 + rr[:, None]*64 + rr[None, :]))
                arrive(full.slot(s))
            }
        }
        role mma(warps: 4, regs: 232) {
            wait(seen, 0)
            acc := zeros([64, 64], f32)
            for i := range n {
                s := i % 2
                wait(full.slot(s), (i/2) % 2)
                acc = wgmma(sa, sb.slot(s), acc)
                wgmma_wait(0)
                arrive(empty.slot(s))
            }
            rr := arange(0, 64)
            store(out + rr[:, None]*64 + rr[None, :], acc + load(local_ptr(tab, rr)).to(f32)[None, :])
        }
    }
}
`

// TestPTXRoleProxyFences: generic stores that one warp role makes into a
// buffer another role's wgmma reads are fenced for the async proxy by the
// writing threads (fence.proxy.async, then the role's barrier, then the
// arrival), since a fence in the reader cannot order another thread's
// writes; the alloc with init before warp_specialize is fenced once at its
// entry; the reading role's wgmma in the loop then needs no fence, and the
// arrival after the store into tab (read by plain loads only) none either.
func TestPTXRoleProxyFences(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(rolesFenceSrc)}}, "f.tle")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "roles_fence", nil).PTX
	if n := countPTX(ptx, `fence\.proxy\.async\.shared::cta;`); n != 2 {
		t.Errorf("%d fence.proxy.async, want 2 (warp_specialize's entry, the writer's arrival on full)", n)
	}
	writer := strings.Index(ptx, "setmaxnreg.dec.sync.aligned.u32 40;")
	mma := strings.Index(ptx, "setmaxnreg.dec.sync.aligned.u32 232;")
	if writer < 0 || mma < writer {
		t.Fatalf("no writer and mma roles (setmaxnreg 40, then 232)")
	}
	// the entry: every thread fences, then the CTA synchronises
	entry := strings.Index(ptx, "fence.proxy.async.shared::cta;")
	if entry < 0 || entry > writer || !regexp.MustCompile(`^fence\.proxy\.async\.shared::cta;\s+// end inline asm\s+bar\.sync\s+0;`).MatchString(ptx[entry:]) {
		t.Errorf("warp_specialize's entry: no fence.proxy.async then bar.sync 0")
	}
	// the writer (named barrier 1, 128 threads): fence, its barrier, then
	// the arrival; its first arrival (after the store into tab) has none
	w := ptx[writer:mma]
	f := strings.Index(w, "fence.proxy.async.shared::cta;")
	if f < 0 {
		t.Fatalf("the writer role does not fence")
	}
	if first := strings.Index(w, "mbarrier.arrive"); first < 0 || first > f {
		t.Errorf("the arrival on seen (tab is read by plain loads only) comes after a fence, or none before the one on full")
	}
	bar := strings.Index(w[f:], "bar.sync 1, 128;")
	arr := strings.Index(w[f:], "mbarrier.arrive.shared::cta.b64")
	if bar < 0 || arr < bar || strings.Contains(w[f:f+bar], "st.shared") {
		t.Errorf("the writer's fence is not followed by its barrier and then the arrival")
	}
	// the mma role's wgmma follows no fence
	if strings.Contains(ptx[mma:], "fence.proxy.async") {
		t.Errorf("the reading role fences")
	}
	checkSyncStructure(t, ptx)
}

// TestPTXProxyFenceOnlyForOperandBytes: a generic store into a buffer
// whose bytes are apart from a wgmma's operands (a staging buffer beside
// TMA-loaded operands) needs no fence.proxy.async before that wgmma or the
// TMA loads; a store into an operand (MINE 1: sb) does, in the loop, before
// the product, and before the next trip's TMA load into sb.
func TestPTXProxyFenceOnlyForOperandBytes(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(fenceBytesSrc)}}, "f.tle")
	if err != nil {
		t.Fatal(err)
	}
	for mine, want := range map[string]int{"0": 0, "1": 2} {
		ptx := compileTLE(t, prog, "fence_bytes", map[string]string{"MINE": mine}).PTX
		mma := strings.Index(ptx, "wgmma.mma_async")
		if mma < 0 {
			t.Fatalf("MINE %s: no wgmma", mine)
		}
		if n := countPTX(ptx[:mma], `fence\.proxy\.async\.shared::cta;`); n != want {
			t.Errorf("MINE %s: %d fence.proxy.async before the wgmma, want %d", mine, n, want)
		}
		checkSyncStructure(t, ptx)
	}
}

const fenceBytesSrc = `
kernel fence_bytes(x *f32, y *bf16, a desc[bf16, 64, 64], b desc[bf16, 64, 64], c *f32, n i32, MINE const i32) {
    sa := alloc([64, 64], bf16)
    sb := alloc([64, 64], bf16)
    own := alloc([64], f32)
    bar := barrier(count: 1)
    rm := arange(0, 64)
    acc := zeros([64, 64], f32)
    for k := range n {
        expect(bar, 2*64*64*2)
        copy(a, sa, 0, 0, barrier: bar)
        copy(b, sb, 0, 0, barrier: bar)
        wait(bar, k%2)
        store(own, load(x + k*64 + rm))
        if MINE == 1 {
            store(sb, load(y + rm[:, None]*64 + rm[None, :]))
        }
        acc = wgmma(sa, sb, acc, trans_b: true)
        wgmma_wait(0)
        acc = acc * load(own)[None, :]
    }
    store(c + rm[:, None]*64 + rm[None, :], acc)
}
`

// TestPTXTMALoadFenceAfterBarrier: a generic store into a buffer, then a
// barrier (here the one a read of the buffer by other threads needs), then
// a TMA load into the same bytes: the barrier orders the threads, not the
// proxies, so the copy is still preceded by fence.proxy.async (found by
// review: only writes since the last barrier were fenced).
func TestPTXTMALoadFenceAfterBarrier(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(tmaAfterBarrierSrc)}}, "f.tle")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "tma_after_barrier", nil).PTX
	cp := strings.Index(ptx, "cp.async.bulk.tensor")
	st := strings.Index(ptx, "st.shared")
	if cp < 0 || st < 0 || st > cp {
		t.Fatalf("no st.shared before the TMA load")
	}
	if !strings.Contains(ptx[st:cp], "fence.proxy.async.shared::cta;") {
		t.Errorf("no fence.proxy.async between the generic store and the TMA load into its bytes")
	}
	checkSyncStructure(t, ptx)
}

const tmaAfterBarrierSrc = `
kernel tma_after_barrier(x *f32, a desc[f32, 64, 64], out *f32) {
    sa := alloc([64, 64], f32)
    bar := barrier(count: 1)
    rm := arange(0, 64)
    store(sa, load(x + rm[:, None]*64 + rm[None, :]))
    y := load(sa.T)
    expect(bar, 64*64*4)
    copy(a, sa, 0, 0, barrier: bar)
    wait(bar, 0)
    store(out + rm[:, None]*64 + rm[None, :], y + load(sa))
}
`

// TestPTXPrefetchDescs: a kernel prefetches each desc parameter a copy
// uses, once, before its first TMA (prefetch.tensormap on the map's
// generic address), and none it does not use.
func TestPTXPrefetchDescs(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(prefetchDescsSrc)}}, "f.tle")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "prefetch_descs", nil).PTX
	if n := strings.Count(ptx, "prefetch.tensormap ["); n != 2 {
		t.Errorf("%d prefetch.tensormap, want 2 (a and b; c is not copied)", n)
	}
	pf, cp := strings.LastIndex(ptx, "prefetch.tensormap"), strings.Index(ptx, "cp.async.bulk.tensor")
	if cp < 0 || pf > cp {
		t.Errorf("the prefetches do not all come before the first TMA (prefetch at %d, copy at %d)", pf, cp)
	}
}

const prefetchDescsSrc = `
kernel prefetch_descs(a desc[f32, 64, 64], b desc[f32, 64, 64], c desc[f32, 64, 64], out *f32) {
    sa := alloc([64, 64], f32)
    sb := alloc([64, 64], f32)
    bar := barrier(count: 1)
    rm := arange(0, 64)
    expect(bar, 2*64*64*4)
    copy(a, sa, 0, 0, barrier: bar)
    copy(b, sb, 0, 0, barrier: bar)
    wait(bar, 0)
    store(out + rm[:, None]*64 + rm[None, :], load(sa) + load(sb))
}
`

// TestPTXProxyFenceAcrossWarpSpecialize: a generic store made in a role of
// an earlier warp_specialize (ws2), or of the same one on an earlier trip
// round a loop (wsloop2), reaches a later role's wgmma through barrier 0,
// not through an arrival of a sibling role: the CTA fences at the entry
// of the reading warp_specialize (found by review: c9ddd88 dropped it).
func TestPTXProxyFenceAcrossWarpSpecialize(t *testing.T) {
	for name, src := range map[string]string{"ws2": ws2Src, "wsloop2": wsLoopSrc} {
		prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(src)}}, "f.tle")
		if err != nil {
			t.Fatal(err)
		}
		ptx := compileTLE(t, prog, name, nil).PTX
		mma := strings.Index(ptx, "wgmma.mma_async")
		if mma < 0 {
			t.Fatalf("%s: no wgmma", name)
		}
		if !strings.Contains(ptx[:mma], "fence.proxy.async.shared::cta;") {
			t.Errorf("%s: no fence.proxy.async before the wgmma reads what another warp_specialize's role stored", name)
		}
	}
}

const ws2Src = `
kernel ws2(x *bf16, b desc[bf16, 64, 64], c *f32) {
    sa := alloc([64, 64], bf16)
    sb := alloc([64, 64], bf16)
    bar := barrier(count: 1)
    expect(bar, 64*64*2)
    copy(b, sb, 0, 0, barrier: bar)
    wait(bar, 0)
    warp_specialize {
        role writer(warps: 4) {
            rr := arange(0, 64)
            store(sa, load(x + rr[:, None]*64 + rr[None, :]))
        }
        role idle(warps: 4) {
        }
    }
    warp_specialize {
        role mma(warps: 4) {
            rm := arange(0, 64)
            acc := wgmma(sa, sb, zeros([64, 64], f32), trans_b: true)
            wgmma_wait(0)
            store(c + rm[:, None]*64 + rm[None, :], acc)
        }
        role other(warps: 4) {
        }
    }
}
`

const wsLoopSrc = `
kernel wsloop2(x *bf16, b desc[bf16, 64, 64], c *f32, n i32) {
    sa := alloc([64, 64], bf16)
    sb := alloc([64, 64], bf16)
    bar := barrier(count: 1)
    expect(bar, 64*64*2)
    copy(b, sb, 0, 0, barrier: bar)
    wait(bar, 0)
    for k := range n {
        warp_specialize {
            role mma(warps: 4) {
                rm := arange(0, 64)
                if k > 0 {
                    acc := wgmma(sa, sb, zeros([64, 64], f32), trans_b: true)
                    wgmma_wait(0)
                    store(c + k*4096 + rm[:, None]*64 + rm[None, :], acc)
                }
            }
            role writer(warps: 4) {
                rr := arange(0, 64)
                if k == 0 {
                    store(sa, load(x + rr[:, None]*64 + rr[None, :]))
                }
            }
        }
    }
}
`

// TestPTXPipeCommitProxyFence: a role that stores into a pipe field which
// another role writes out by TMA (copy(s.c, desc, ...)) fences the async
// proxy before its commit's arrival, as a barrier arrival does (found by
// review: only the TMA-store role fenced, which cannot order another
// thread's writes).
func TestPTXPipeCommitProxyFence(t *testing.T) {
	prog, err := tle.Load(fstest.MapFS{"f.tle": {Data: []byte(pipeTMASrc)}}, "f.tle")
	if err != nil {
		t.Fatal(err)
	}
	ptx := compileTLE(t, prog, "pipetma", nil).PTX
	store := strings.Index(ptx, "cp.async.bulk.tensor")
	if store < 0 {
		t.Fatal("no TMA store")
	}
	// the writer role comes first: its commit (the first arrival) is
	// fenced; the TMA-store role's own fence comes after it
	arrive := strings.Index(ptx, "mbarrier.arrive.shared::cta.b64")
	fence := strings.Index(ptx, "fence.proxy.async.shared::cta;")
	if arrive < 0 || fence < 0 || fence > arrive || arrive > store {
		t.Errorf("the writer's commit is not preceded by fence.proxy.async (fence at %d, arrival at %d)", fence, arrive)
	}
}

const pipeTMASrc = `
kernel pipetma(x *f32, out desc[f32, 64, 64], n i32) {
    pp := pipe(capacity: 2, c: [64, 64]f32)
    warp_specialize {
        role w(warps: 4) {
            rr := arange(0, 64)
            for k := range n {
                s := pp.acquire(k)
                store(s.c, load(x + k*4096 + rr[:, None]*64 + rr[None, :]))
                pp.commit(k)
            }
        }
        role st(warps: 1) {
            for k := range n {
                s := pp.wait(k)
                copy(s.c, out, k*64, 0)
                pp.release(k)
            }
        }
    }
}
`

// A warp_specialize whose regs: add up to more than the SM's 65536
// registers (a producer warpgroup at 40 and two consumer copies at 256:
// 128 * (40 + 256 + 256)) is refused with the sum, not built into a kernel
// whose setmaxnreg.inc would wait forever; at 232 it builds.
func TestRoleRegistersOverBudget(t *testing.T) {
	src := `kernel r(x *f32, C const i32) {
    warp_specialize {
        role p(warps: 1, regs: 40) {
            store(x + arange(0, 32), 1.0)
        }
        role c(warps: 4, regs: C, copies: 2) {
            store(x + 32 + arange(0, 128) + 128*role_index(), 2.0)
        }
    }
}
`
	if _, err := nvptx.FindLLC(); err != nil {
		t.Skipf("llc-19 not installed: %v", err)
	}
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	prog, err := tle.Load(fstest.MapFS{"r.tle": {Data: []byte(src)}}, "r.tle")
	if err != nil {
		t.Fatal(err)
	}
	k, err := prog.Kernel("r")
	if err != nil {
		t.Fatal(err)
	}
	_, err = k.Compile(tle.CompileOptions{Defines: map[string]string{"C": "256"}}, tle.GPUOptions{Toolchain: "llc"})
	if err == nil || !strings.Contains(err.Error(), "need 70656 registers per CTA") {
		t.Fatalf("over budget: %v", err)
	}
	b := compileTLE(t, prog, "r", map[string]string{"C": "232"})
	wantPTX(t, b.PTX, 2, `setmaxnreg\.inc\.sync\.aligned\.u32 232;`)
}
