package nvptx_test

import (
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/tle"
)

// Kernels of a device mesh (the device-mesh ABI, devicemesh.go).
const meshSrc = `kernel pull(x *f32, out *f32, WORLD const i32) {
    mesh := device_mesh(device: WORLD)
    offs := arange(0, 512)
    acc := zeros([512], f32)
    for r := range WORLD {
        acc += load(remote(x + offs, r, mesh))
    }
    store(out + offs, acc)
}

kernel peer(x *f32, out *f32) {
    mesh := device_mesh(device: 4)
    store(out + arange(0, 128), load(remote(x + arange(0, 128), 2, mesh)))
}

kernel rank(out *i32) {
    mesh := device_mesh(device: 4)
    store(out, shard_id(mesh, "device"))
}

kernel plain(x *f32, out *f32) {
    store(out + arange(0, 128), load(x + arange(0, 128)))
}

kernel set(flags *F, F const dtype) {
    mesh := device_mesh(device: 4)
    signal(flags, 1, mesh, 7, op: "set")
}

kernel add(flags *F, F const dtype) {
    mesh := device_mesh(device: 4)
    signal(flags, 3, mesh, 1, op: "add")
}

kernel wait(flags *F, out *f32, F const dtype) {
    mesh := device_mesh(device: 4)
    signal_wait(flags, 4, cmp: "ge")
    store(out, 1.0)
}

kernel barrier(out *f32, WORLD const i32, GROUP const i32) {
    mesh := device_mesh(device: WORLD)
    distributed_barrier(mesh, axis: "device", group: GROUP)
    store(out, 1.0)
}

kernel clustered(out *f32) {
    mesh := device_mesh(device: 2, cluster_x: 2)
    distributed_barrier(mesh)
    store(out, 1.0)
}

kernel clusteronly(out *f32) {
    mesh := device_mesh(device: 2, cluster_x: 2)
    distributed_barrier(mesh, axis: "cluster")
    store(out, 1.0)
}

kernel inrole(out *f32) {
    mesh := device_mesh(device: 2)
    warp_specialize {
        role a(warps: 1) {
            distributed_barrier(mesh, axis: "device")
        }
        role b(warps: 1) {
            store(out, 1.0)
        }
    }
}

kernel roles(flags *i32, out *f32) {
    mesh := device_mesh(device: 2)
    warp_specialize {
        role a(warps: 1) {
            signal(flags, 1, mesh, 1, op: "add")
        }
        role b(warps: 4) {
            signal_wait(flags, 1)
            store(out, 1.0)
        }
    }
}

kernel twomeshes(out *f32) {
    a := device_mesh(device: 2)
    b := device_mesh(device: 4)
    store(out, shard_id(a, "device").to(f32) + shard_id(b, "device").to(f32))
}
`

// ws is the regexp p with each space matching any run of white space
// (llc separates an instruction's operands with a tab).
func ws(p string) *regexp.Regexp { return regexp.MustCompile(strings.ReplaceAll(p, " ", `\s+`)) }

func meshProgram(t *testing.T) *tle.Program {
	t.Helper()
	prog, err := tle.Load(fstest.MapFS{"mesh.tle": {Data: []byte(meshSrc)}}, "mesh.tle")
	if err != nil {
		t.Fatal(err)
	}
	return prog
}

// entryParams is the .param lines of the PTX's entry.
func entryParams(ptx string) []string {
	i := strings.Index(ptx, ".entry")
	j := strings.Index(ptx[i:], ")")
	return regexp.MustCompile(`\.param \.(\w+)`).FindAllString(ptx[i:i+j], -1)
}

// The hidden parameters come after the user's (rank u32, heap_bases u64,
// sync u64), and the binary says so; a kernel without a device mesh has
// none. shard_id(mesh, "device") is the rank parameter itself.
func TestMeshHiddenParams(t *testing.T) {
	prog := meshProgram(t)
	b := compileTLE(t, prog, "rank", nil)
	if b.MeshDevices != 4 || strings.Join(b.Hidden, ",") != "rank,heap_bases,sync" {
		t.Errorf("MeshDevices %d, Hidden %v; want 4, [rank heap_bases sync]", b.MeshDevices, b.Hidden)
	}
	if got := strings.Join(entryParams(b.PTX), ","); got != ".param .u64,.param .u32,.param .u64,.param .u64" {
		t.Errorf("entry parameters %s; want out, then rank, heap_bases, sync", got)
	}
	// the rank parameter (the second) is what is stored
	wantPTX(t, b.PTX, 1, `ld.param.u32 %r(\d+), \[rank_param_1\];`)
	if countPTX(b.PTX, `%cluster_ctaid`) != 0 {
		t.Errorf("shard_id(mesh, \"device\") read a cluster register:\n%s", b.PTX)
	}
	p := compileTLE(t, prog, "plain", nil)
	if p.MeshDevices != 0 || len(p.Hidden) != 0 || len(entryParams(p.PTX)) != 2 {
		t.Errorf("a kernel without a mesh: MeshDevices %d, Hidden %v, %d parameters; want none hidden", p.MeshDevices, p.Hidden, len(entryParams(p.PTX)))
	}
}

func TestDeviceSyncBytes(t *testing.T) {
	for h, want := range map[nvptx.HiddenParam]int{nvptx.HiddenRank: 4, nvptx.HiddenHeapBases: 8, nvptx.HiddenSync: 8, nvptx.HiddenScratch: 8} {
		if h.Bytes() != want {
			t.Errorf("%s.Bytes() = %d, want %d", h, h.Bytes(), want)
		}
	}
	for _, c := range []struct{ world, programs, want int }{{4, 1, 32}, {8, 3, 192}, {2, 0, 0}, {0, 5, 0}, {-1, 2, 0}} {
		if got := nvptx.DeviceSyncBytes(c.world, c.programs); got != c.want {
			t.Errorf("DeviceSyncBytes(%d, %d) = %d, want %d", c.world, c.programs, got, c.want)
		}
		if got := tle.DeviceSyncBytes(c.world, c.programs); got != c.want {
			t.Errorf("tle.DeviceSyncBytes(%d, %d) = %d, want %d", c.world, c.programs, got, c.want)
		}
	}
}

var (
	reHeapLoad = regexp.MustCompile(`ld\.global\.u64\s+%rd\d+, \[%rd\d+(\+\d+)?\];`)
	reLoopHead = regexp.MustCompile(`(?m)^\$L__BB\d+_\d+:.*\n\s+// =>This Inner Loop Header`)
)

// remote of a global pointer is a heap offset: the table of bases is
// loaded once, in the entry block (WORLD + 1 loads, before the loop over
// ranks: none inside it), each peer's distance is base[r] - base[me]
// (sub.s64), a computed rank selects among them (selp.b64 in the loop),
// and the pointer moves by it (add.s64); the loads through it are
// ordinary, vectorised ld.global (the distance keeps 16-byte alignment).
func TestRemoteHeapOffset(t *testing.T) {
	prog := meshProgram(t)
	b := compileTLE(t, prog, "pull", map[string]string{"WORLD": "4"})
	ptx := b.PTX
	loop := reLoopHead.FindStringIndex(ptx)
	if loop == nil {
		t.Fatalf("no loop over the ranks:\n%s", ptx)
	}
	loads := reHeapLoad.FindAllStringIndex(ptx, -1)
	if len(loads) != 5 {
		t.Errorf("%d 8-byte loads of heap_bases, want 5 (every rank's base and this rank's):\n%s", len(loads), ptx)
	}
	for _, l := range loads {
		if l[0] > loop[0] {
			t.Errorf("a heap_bases load at byte %d, inside the loop over ranks (from byte %d): not hoisted", l[0], loop[0])
		}
	}
	if n := countPTX(ptx[:loop[0]], `sub.s64 %rd\d+, %rd\d+, %rd\d+;`); n < 4 {
		t.Errorf("%d sub.s64 before the loop, want the 4 peers' distances", n)
	}
	if n := countPTX(ptx[loop[0]:], `selp.b64`); n != 3 {
		t.Errorf("%d selp.b64 in the loop, want 3 (rank r picks one of 4 distances)", n)
	}
	wantPTX(t, ptx[loop[0]:], 1, `ld.global.v4.f32`)
	if countPTX(ptx, `call`) != 0 {
		t.Errorf("a call in a remote access's code:\n%s", ptx)
	}

	// a constant rank: its distance, no selection; one table load fewer
	// would be dead code, so only the two bases it needs are loaded
	c := compileTLE(t, prog, "peer", nil)
	if n := len(reHeapLoad.FindAllString(c.PTX, -1)); n != 2 {
		t.Errorf("remote(..., 2, mesh): %d heap_bases loads, want 2 (heap_bases[2] and this rank's)", n)
	}
	wantPTX(t, c.PTX, 1, `ld.global.u64 %rd\d+, \[%rd\d+\+16\];`)
	if countPTX(c.PTX, `selp.b64`) != 0 {
		t.Errorf("remote of a constant rank selects among ranks:\n%s", c.PTX)
	}

	// beyond 16 devices the peer's base is loaded where it is used
	big := compileTLE(t, prog, "pull", map[string]string{"WORLD": "32"})
	loop = reLoopHead.FindStringIndex(big.PTX)
	if n := len(reHeapLoad.FindAllString(big.PTX[loop[0]:], -1)); n != 1 {
		t.Errorf("WORLD 32: %d heap_bases loads in the loop, want 1", n)
	}
}

// signal: a CTA barrier (every thread's writes before it), then one thread
// fences the alias and stores (set) or adds (add) with release semantics
// at system scope on the peer's flag, 32- or 64-bit.
func TestSignalPTX(t *testing.T) {
	prog := meshProgram(t)
	for _, c := range []struct {
		kernel, dtype, want string
	}{
		{"set", "i32", `@%p st\.release\.sys\.global\.b32 \[%rd\d+\], %r\d+;`},
		{"set", "u64", `@%p st\.release\.sys\.global\.b64 \[%rd\d+\], %rd\d+;`},
		{"add", "i32", `@%p atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], %r\d+;`},
		{"add", "i64", `@%p atom\.add\.release\.sys\.global\.u64 %old, \[%rd\d+\], %rd\d+;`},
	} {
		ptx := compileTLE(t, prog, c.kernel, map[string]string{"F": c.dtype}).PTX
		rel := ws(c.want).FindStringIndex(ptx)
		if rel == nil {
			t.Errorf("%s %s: no %s in\n%s", c.kernel, c.dtype, c.want, ptx)
			continue
		}
		bar := reBar0.FindStringIndex(ptx)
		fence := ws(`@%p fence\.proxy\.alias;`).FindStringIndex(ptx)
		if bar == nil || fence == nil || !(bar[0] < fence[0] && fence[0] < rel[0]) {
			t.Errorf("%s %s: want bar.sync 0, then fence.proxy.alias, then the release; got bar %v, fence %v, release %v", c.kernel, c.dtype, bar, fence, rel)
		}
		// the elected thread: the predicate is tid == 0
		wantPTX(t, ptx, 1, `setp.eq.s32 %p\d+, %r\d+, 0;`)
	}
}

// signal_wait: thread 0 spins on ld.acquire.sys of the local flag with
// the comparison (signed or unsigned by the flag's dtype) in a loop, fences
// the alias, and the CTA meets at a barrier before the code after it.
func TestSignalWaitPTX(t *testing.T) {
	prog := meshProgram(t)
	for _, c := range []struct{ dtype, load, cmp string }{
		{"i32", `ld\.acquire\.sys\.global\.b32 (%r\d+), \[%rd\d+\];`, `setp\.lt\.s32 (%p\d+), %r\d+, 4;`},
		{"u32", `ld\.acquire\.sys\.global\.b32 (%r\d+), \[%rd\d+\];`, `setp\.lt\.u32 (%p\d+), %r\d+, 4;`},
		{"i64", `ld\.acquire\.sys\.global\.b64 (%rd\d+), \[%rd\d+\];`, `setp\.lt\.s64 (%p\d+), %rd\d+, 4;`},
	} {
		ptx := compileTLE(t, prog, "wait", map[string]string{"F": c.dtype}).PTX
		spin := ws(`(?s)(\$L__BB\d+_\d+):[^\n]*\n[^$]*?` + c.load + `.*?` + c.cmp + ` @(%p\d+) bra (\$L__BB\d+_\d+);`).FindStringSubmatch(ptx)
		if spin == nil || spin[1] != spin[5] || spin[3] != spin[4] {
			t.Errorf("%s: no ld.acquire.sys loop (load, compare, branch back):\n%s", c.dtype, ptx)
			continue
		}
		after := ptx[strings.Index(ptx, spin[0])+len(spin[0]):]
		fence := strings.Index(after, "fence.proxy.alias;")
		bar := reBar0.FindStringIndex(after)
		st := strings.Index(after, "st.global")
		if fence < 0 || bar == nil || st < 0 || !(fence < bar[0] && bar[0] < st) {
			t.Errorf("%s: after the spin want fence.proxy.alias, bar.sync 0, then the store; got %d, %v, %d", c.dtype, fence, bar, st)
		}
		if strings.Count(ptx, "ld.acquire.sys") != 1 {
			t.Errorf("%s: %d ld.acquire.sys, want the one of the spin", c.dtype, strings.Count(ptx, "ld.acquire.sys"))
		}
	}
}

// A device barrier: bar.sync, lanes of warp 0 each take a rank of the
// group: ++sent[p][r], atom.add.release.sys on recv[p][me] of rank r
// (after fence.proxy.alias), then the spin on ld.acquire.sys of recv[p][r]
// until recv - sent >= 0 (signed 32-bit), fence.proxy.alias, bar.sync.
// The group's first rank is (rank / GROUP) * GROUP; more than 32 ranks
// loop over the lanes; axis "device" never needs barrier.cluster.
func TestDeviceBarrierPTX(t *testing.T) {
	prog := meshProgram(t)
	for _, c := range []struct {
		world, group string
		lanes        string // the guard of the lanes that take a rank
		loop         bool
	}{
		{"4", "4", `setp\.gt\.u32 %p\d+, %r\d+, 3;`, false},
		{"8", "2", `setp\.gt\.u32 %p\d+, %r\d+, 1;`, false},
		{"64", "64", `setp\.gt\.u32 %p\d+, %r\d+, 31;`, true},
	} {
		ptx := compileTLE(t, prog, "barrier", map[string]string{"WORLD": c.world, "GROUP": c.group}).PTX
		name := "WORLD " + c.world + " group " + c.group
		order := []string{`bar\.sync 0;`, c.lanes, `ld\.global\.u32 (%r\d+), \[%rd\d+\];`, `add\.s32 %r\d+, %r\d+, 1;`, `st\.global\.u32`,
			`fence\.proxy\.alias;`, `atom\.add\.release\.sys\.global\.u32 %old, \[%rd\d+\], 1;`,
			`ld\.acquire\.sys\.global\.b32 %r\d+, \[%rd\d+\];`, `sub\.s32 %r\d+, %r\d+, %r\d+;`, `setp\.lt\.s32 %p\d+, %r\d+, 0;`,
			`fence\.proxy\.alias;`, `bar\.sync 0;`, `st\.global\.f32`}
		at := 0
		for _, p := range order {
			loc := ws(p).FindStringIndex(ptx[at:])
			if loc == nil {
				t.Errorf("%s: no %s after byte %d:\n%s", name, p, at, ptx)
				break
			}
			at += loc[1]
		}
		if strings.Contains(ptx, "barrier.cluster") {
			t.Errorf("%s: axis \"device\" with barrier.cluster", name)
		}
		if c.group != c.world {
			wantPTX(t, ptx, 1, `and\.b32 %r\d+, %r\d+, -2;`) // (rank / 2) * 2
		}
		if got := countPTX(ptx, `add\.s32 %r\d+, %r\d+, 32;`) > 0; got != c.loop {
			t.Errorf("%s: lanes stepping by 32: %v, want %v", name, got, c.loop)
		}
	}
	// a mesh with a cluster, no axis: the device handshake then
	// barrier.cluster; axis "cluster" alone is barrier.cluster
	ptx := compileTLE(t, prog, "clustered", nil).PTX
	atom := strings.Index(ptx, "atom.add.release.sys")
	cl := strings.Index(ptx, "barrier.cluster.arrive.release.aligned;")
	wait := strings.Index(ptx, "barrier.cluster.wait.acquire.aligned;")
	if atom < 0 || cl < atom || wait < cl {
		t.Errorf("clustered: want the handshake then barrier.cluster arrive/wait; got atom %d, arrive %d, wait %d", atom, cl, wait)
	}
	ptx = compileTLE(t, prog, "clusteronly", nil).PTX
	if strings.Contains(ptx, "atom.add") || !strings.Contains(ptx, "barrier.cluster.wait.acquire.aligned;") {
		t.Errorf("axis \"cluster\": want barrier.cluster alone:\n%s", ptx)
	}
}

// The handshake's addresses: program p's block of the sync area is
// 2*WORLD words at sync + p*8*WORLD bytes (p the linear program id from
// %ctaid and %nctaid); recv[p][me] of rank r is this rank's address plus
// the heap distance, WORLD*4 bytes after sent.
func TestDeviceBarrierLayout(t *testing.T) {
	prog := meshProgram(t)
	ptx := compileTLE(t, prog, "barrier", map[string]string{"WORLD": "4", "GROUP": "4"}).PTX
	for _, sreg := range []string{"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y"} {
		if !strings.Contains(ptx, sreg) {
			t.Errorf("the linear program id does not read %s", sreg)
		}
	}
	wantPTX(t, ptx, 1, `shl\.b64 %rd\d+, %rd\d+, 5;`)  // p * 2*WORLD words * 4 bytes = p << 5
	wantPTX(t, ptx, 2, `add\.s64 %rd\d+, %rd\d+, 16;`) // recv = sent + WORLD*4
}

// Inside warp roles a signal and a wait use the role's named barrier and
// the role's first thread, not the CTA's.
func TestSignalInRoles(t *testing.T) {
	ptx := compileTLE(t, meshProgram(t), "roles", nil).PTX
	at := 0
	for _, p := range []string{`bar\.sync 1, 32;`, `@%p atom\.add\.release\.sys\.global\.u32`,
		`ld\.acquire\.sys\.global\.b32`, `fence\.proxy\.alias;`, `bar\.sync 2, 128;`, `st\.global\.f32`} {
		loc := ws(p).FindStringIndex(ptx[at:])
		if loc == nil {
			t.Fatalf("no %s after byte %d:\n%s", p, at, ptx)
		}
		at += loc[1]
	}
}

// What the backend still refuses, at the op: a device barrier inside a
// warp role, two meshes of different sizes in one kernel.
func TestDeviceMeshErrors(t *testing.T) {
	if _, err := nvptx.FindLLC(); err != nil {
		t.Skip(err)
	}
	prog := meshProgram(t)
	for kernel, want := range map[string]string{
		"inrole":    "mesh.tle:63:13: error: distributed_barrier: distributed_barrier inside a warp role",
		"twomeshes": "mesh.tle:86:10: error: device_mesh: a second device mesh, of 4 devices where the first has 2: a kernel runs on one mesh",
	} {
		k, err := prog.Kernel(kernel)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Build(tle.CompileOptions{}, tle.GPUOptions{}, "ll")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", kernel, err, want)
		}
	}
}

// A device mesh without a cluster needs no Hopper instruction: it builds
// for sm_80; a cluster barrier on it does not.
func TestDeviceMeshOnAmpere(t *testing.T) {
	prog := meshProgram(t)
	for _, kernel := range []string{"rank", "set", "wait"} {
		k, err := prog.Kernel(kernel)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := k.Build(tle.CompileOptions{Defines: map[string]string{"F": "i32"}}, tle.GPUOptions{Arch: "sm_80"}, "ll"); err != nil {
			t.Errorf("%s for sm_80: %v", kernel, err)
		}
	}
	k, err := prog.Kernel("barrier")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Build(tle.CompileOptions{Defines: map[string]string{"WORLD": "2", "GROUP": "2"}}, tle.GPUOptions{Arch: "sm_80"}, "ll"); err != nil {
		t.Errorf("device barrier for sm_80: %v", err)
	}
	k, err = prog.Kernel("clustered")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Build(tle.CompileOptions{}, tle.GPUOptions{Arch: "sm_80"}, "ll"); err == nil || !strings.Contains(err.Error(), "needs sm_90") {
		t.Errorf("a cluster barrier for sm_80: %v, want needs sm_90", err)
	}
}
