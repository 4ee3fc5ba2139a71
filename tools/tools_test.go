// Package tools holds the scripts of a GPU session (tools/gpu.sh and its
// helpers); this test runs them without a GPU, so that CI keeps them
// working: their syntax (and shellcheck where it is installed), the help,
// the plans of both halves, and the host half end to end on fake tlec,
// tests, nvidia-smi, ptxas, cuobjdump and compute-sanitizer.
package tools

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// at most this many files in tools/ (issue 30: one entry point, its
// helpers, no museum)
const maxFiles = 8

func TestFewFiles(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) > maxFiles {
		t.Errorf("tools/ has %d files, at most %d: %s", len(names), maxFiles, strings.Join(names, " "))
	}
}

func scripts(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no %s: %v", pattern, err)
	}
	return files
}

func TestShellSyntax(t *testing.T) {
	t.Parallel()
	for _, f := range scripts(t, "*.sh") {
		if out, err := exec.Command("bash", "-n", f).CombinedOutput(); err != nil {
			t.Errorf("bash -n %s: %v\n%s", f, err, out)
		}
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Log("no shellcheck: only bash -n")
		return
	}
	args := append([]string{"-x"}, scripts(t, "*.sh")...)
	if out, err := exec.Command("shellcheck", args...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck: %v\n%s", err, out)
	}
}

func TestPythonCompiles(t *testing.T) {
	py := python(t)
	for _, f := range scripts(t, "*.py") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// compile() checks the syntax without writing __pycache__ here
		cmd := exec.Command(py, "-c", "import sys; compile(sys.stdin.read(), sys.argv[1], 'exec')", f)
		cmd.Stdin = strings.NewReader(string(src))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %v\n%s", f, err, out)
		}
	}
}

func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return py
}

// tree copies tools/ into a fresh directory as its tools/ and returns that
// directory: gpu.sh works from the directory above it, so nothing of the
// checkout (its .gpu, .peers) is read or written.
func tree(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"*.sh", "*.py"} {
		for _, f := range scripts(t, pat) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "tools", f), data, 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// gpuSh runs root/tools/gpu.sh with args and only env (and PATH, HOME).
func gpuSh(t *testing.T, root string, env []string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join(root, "tools", "gpu.sh")}, args...)...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}, env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestHelp(t *testing.T) {
	out, err := gpuSh(t, tree(t), nil, "--help")
	if err != nil {
		t.Fatalf("--help: %v\n%s", err, out)
	}
	for _, want := range []string{"tools/gpu.sh here", "tools/gpu.sh host", "SUITES", "PEERS", "BASE", "PLAN=1", "Examples"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help does not mention %q", want)
		}
	}
	if out, err := gpuSh(t, tree(t), nil, "no_such_step"); err == nil {
		t.Errorf("an unknown step ran: %s", out)
	}
}

// inOrder checks that out has each of want's lines, in that order.
func inOrder(t *testing.T, out string, want []string) {
	t.Helper()
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Errorf("no %q after offset %d in:\n%s", w, at, out)
			return
		}
		at += i + len(w)
	}
}

func TestPlan(t *testing.T) {
	root := tree(t)
	env := []string{"PLAN=1", "W=/w", "PEERS=hpc flashkda sdpa", "TESTS=decode kda:Accuracy",
		"SAN=decode:TestDecodeQuick$", "SUITES=attn_decode --ctas 3; kda_fwd; ks64=attn_prefill --key-step 64",
		"REPS=20", "BASE=main~1 old=c72e118", "ROUNDS=2", "PTXAS=attn_", "NCU=attn_decode", "PTX=1"}
	out, err := gpuSh(t, root, env, "here")
	if err != nil {
		t.Fatalf("here: %v\n%s", err, out)
	}
	inOrder(t, out, []string{
		"plan: clean\n", "plan: build_tlec\n", "plan: build_tests decode kda\n",
		"plan: build_base base main~1\n", "plan: build_base old c72e118\n", "plan: build_ptx\n",
		"plan: copy_peers hpc flashkda sdpa\n",
		"plan: check_suite attn_decode --ctas 3\n", "plan: check_suite kda_fwd\n", "plan: check_suite attn_prefill --key-step 64\n",
		"plan: builds_diff base attn_decode attn_prefill kda_fwd\n", "plan: save_env\n", "plan: carry_size\n",
	})
	out, err = gpuSh(t, root, env, "host")
	if err != nil {
		t.Fatalf("host: %v\n%s", err, out)
	}
	inOrder(t, out, []string{
		"plan: gpu_info\n", "plan: peers_build hpc flashkda\n",
		"plan: gotest decode  1\n", "plan: gotest kda Accuracy 2\n",
		"plan: sanitize decode TestDecodeQuick$ 1\n",
		"plan: peers_wait\n", "plan: hpc_bench\n", "plan: kda_peers\n", "plan: peer_py sdpa_prefill\n",
		"plan: bench new attn_decode 1 attn_decode --ctas 3 --reps 20 --json --peer /w/hpc_attn.json\n",
		"plan: bench base attn_decode 1 ", "plan: bench old attn_decode 1 ",
		"plan: bench new kda_fwd 1 kda_fwd --reps 20 --json --peer /w/kda_peers.json\n",
		"plan: bench new ks64 1 attn_prefill --key-step 64 --reps 20 --json --peer /w/hpc_attn.json --peer /w/sdpa_prefill.json --masks /w/masks\n",
		"plan: bench new attn_decode 2 ",
		"plan: ptxas_report attn_\n",
		"plan: ncu_profile attn_decode attn_decode --ctas 3 --reps 1 --warmup 0\n",
	})
}

// fakes writes the programs the host half calls, as scripts that behave
// like them on a machine without a GPU: tlec bench prints a report (and
// refuses --peer for tutorials) and leaves a kernel in its JIT cache, a
// test binary passes, the CUDA tools print what the reports read.
func fakes(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(root, "bin")
	files := map[string]string{
		".gpu/tlec": `#!/bin/bash
[ "$1" = bench ] || exit 2
suite=$2
case " $* " in *" --peer "*) if [ "$suite" = tutorials ]; then echo "tlec bench: --peer: the tutorials suite reads no peer file" >&2; exit 2; fi;; esac
us=${US:-10}
mkdir -p "$TLE_CACHE_DIR" && printf '{"Binary":{"Kernel":"fake_kernel","PTX":"//SASS /*0000*/ HGMMA.64x128x16.F32 R0, gdesc[UR4], R0 ;\\n//SASS /*0010*/ STL [R1], R2 ;\\n"}}' >"$TLE_CACHE_DIR/k.json"
echo "progress" >&2
cat <<EOF
{"suite": "$suite", "device": "FAKE H200", "rows": [
 {"suite": "$suite", "case": "c1", "config": "x", "kernel": "fake_kernel", "median_us": $us, "min_us": 9, "rate": 2.5, "unit": "TB/s"},
 {"suite": "$suite", "case": "c2", "config": "x", "kernel": "fake_kernel", "median_us": 20, "min_us": 19, "rate": 1.25, "unit": "TB/s",
  "peers": [{"name": "peer", "median_us": 30, "speedup": 1.5}]}]}
EOF
`,
		".gpu/base/tlec":         "#!/bin/bash\nUS=11 exec \"$(dirname \"$0\")/../tlec\" \"$@\"\n",
		".gpu/fake.test":         "#!/bin/bash\necho '=== RUN   TestX'; echo '--- PASS: TestX (0.00s)'; echo PASS\n",
		"kernels/fake/x_test.go": "package fake\n",
		".peers/matmul_peers.py": "import json, sys\njson.dump({}, open(sys.argv[1], 'w'))\n",
		"bin/nvidia-smi":         "#!/bin/bash\necho 'FAKE H200, 580.0, 1980 MHz, 3201 MHz, 30, 100 W'\n",
		"bin/ptxas": `#!/bin/bash
v=0 out= in=
while [ $# -gt 0 ]; do case $1 in -v) v=1;; -o) out=$2; shift;; --version) echo "ptxas fake"; exit;; -*) ;; *) in=$1;; esac; shift; done
cp "$in" "$out"
[ $v = 0 ] || echo "ptxas info    : Used 90 registers, 16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads" >&2
`,
		"bin/cuobjdump":         "#!/bin/bash\ngrep '^//SASS ' \"${@: -1}\" | sed 's#^//SASS #        #'\n",
		"bin/compute-sanitizer": "#!/bin/bash\nwhile [[ $1 == --* ]]; do shift 2; done\n\"$@\"; rc=$?\necho '========= ERROR SUMMARY: 0 errors'\nexit $rc\n",
	}
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

func TestHostOnFakes(t *testing.T) {
	t.Parallel()
	python(t)
	root := tree(t)
	bin := fakes(t, root)
	w, out := filepath.Join(root, "w"), filepath.Join(root, "out")
	env := []string{"W=" + w, "OUT=" + out, "PATH=" + bin + ":" + os.Getenv("PATH"),
		"SUITES=attn_decode --cases c1; tutorials", "PEERS=matmul sdpa", "TESTS=fake:TestX", "SAN=fake:TestX",
		"SAN_TOOLS=memcheck", "ROUNDS=2", "PTXAS=fake", "SASS=fake", "SASS_OPS=HGMMA|STL", "COMPARE=tutorials:attn_decode"}
	// (exec.Cmd takes the last PATH: the fakes' first)
	got, err := gpuSh(t, root, env, "host")
	if err != nil {
		t.Fatalf("host: %v\n%s", err, got)
	}
	inOrder(t, got, []string{
		"== gpu_info", "gpu: FAKE H200",
		"test fake -run TestX: rc=0, 1 passed, 0 failed",
		"memcheck fake -run TestX: rc=0 ERROR SUMMARY: 0 errors",
		"failed (rc=2): peer_py sdpa_prefill", // no .peers/sdpa_prefill.py here
		"== peer_py matmul_peers",
		"attn_decode (new, round 1): rc=0, 2 rows", "attn_decode (base, round 1): rc=0, 2 rows",
		"no " + w + "/sdpa_prefill.json: the suites run without it",
		"tutorials: tlec bench: --peer: the tutorials suite reads no peer file; again without any --peer",
		"tutorials (new, round 1): rc=0, 2 rows", "tutorials (base, round 2): rc=0, 2 rows",
		"== ptxas_report fake", "fake_kernel", "regs   90 spill st/ld 8/4",
		"== sass_report fake", "1 HGMMA",
		"== summary",
		// the tables last
		"== attn_decode on FAKE H200: 2 rows", "speed-up over peer: geometric mean 1.500x",
		"== A/B attn_decode", "base/new 1.100",
		"== tutorials over attn_decode",
	})
	names, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range names {
		files = append(files, e.Name())
	}
	if len(files) > 8 {
		t.Errorf("%d files in OUT, the device returns 8: %v", len(files), files)
	}
	for _, want := range []string{"summary.txt", "logs.tar.gz", "attn_decode.json", "tutorials.json"} {
		if _, err := os.Stat(filepath.Join(out, want)); err != nil {
			t.Errorf("OUT has no %s: %v", want, files)
		}
	}
	var rep struct {
		Suite string
		Rows  []json.RawMessage
	}
	data, _ := os.ReadFile(filepath.Join(out, "attn_decode.json"))
	if err := json.Unmarshal(data, &rep); err != nil || rep.Suite != "attn_decode" || len(rep.Rows) != 2 {
		t.Errorf("attn_decode.json: %v %+v", err, rep)
	}
}

func TestHelpers(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	tags := []string{"H96_fixed", "H96_varlen6"}
	peers := map[string]float64{}
	for _, tag := range tags {
		peers["flashkda_f32state_"+tag+"_ms"] = 1
		peers["flashkda_bf16state_"+tag+"_ms"] = 1
	}
	peers["fla_H96_fixed_ms"] = 2 // H96_varlen6 has no FLA figure: incomplete
	data, _ := json.Marshal(peers)
	path := filepath.Join(dir, "kda_peers.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "gpu.py", "kda-configs", path).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "1" {
		t.Errorf("kda-configs: %v %q, want 1", err, out)
	}
	// nofla on the peer script itself, where ../shared has it
	src := filepath.Join("..", "..", "shared", "peers", "kda_peers.py")
	if _, err := os.Stat(src); err != nil {
		t.Logf("no %s: nofla not checked", src)
		return
	}
	dst := filepath.Join(dir, "nofla.py")
	if out, err := exec.Command(py, "gpu.py", "nofla", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("nofla: %v\n%s", err, out)
	}
	text, _ := os.ReadFile(dst)
	if strings.Contains(string(text), "import chunk_kda") || strings.Contains(string(text), "fla()[0]") {
		t.Errorf("nofla left FLA in:\n%s", text)
	}
	if out, err := exec.Command(py, "-c", "import sys; compile(open(sys.argv[1]).read(), 'nofla', 'exec')", dst).CombinedOutput(); err != nil {
		t.Errorf("nofla's script does not compile: %v\n%s", err, out)
	}
}
