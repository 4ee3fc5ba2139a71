package tle

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/require"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/ir"
	"github.com/tlego/tle/passes"
)

// The kernels the pass viewer's tests open: a reduction, a pipelined
// wgmma matmul, a TMA matmul with warp roles.
var viewKernels = []struct {
	name    string
	defines map[string]string
	warps   int
}{
	{"softmax", map[string]string{"BLOCK": "128"}, 0},
	{"matmul", map[string]string{"BM": "128", "BN": "128", "BK": "64"}, 8},
	{"matmul_tma", map[string]string{"BM": "128", "BN": "256", "BK": "64", "S": "3", "LAG": "1"}, 0},
}

func llcOrSkip(t *testing.T) {
	t.Helper()
	if _, err := nvptx.FindLLC(); err != nil {
		t.Skipf("no llc-19: %v", err)
	}
}

// Recording which op made each LLVM instruction leaves the LLVM IR as it
// was, and gives most instruction lines an op; the PTX of that LLVM IR with
// the page's debug locations, once they are stripped, is the ordinary PTX.
func TestPassViewRecordsWithoutChangingTheBuild(t *testing.T) {
	llcOrSkip(t)
	for _, c := range viewKernels {
		k := tutorialKernel(t, c.name)
		opts := CompileOptions{Defines: c.defines, NumWarps: c.warps}
		g := GPUOptions{Toolchain: "llc"}
		plain, err := k.Build(opts, g, "ptx")
		require.NoError(t, err, c.name)

		opts, g, err = forGPU(opts, g)
		require.NoError(t, err)
		v := &passView{file: k.prog.file.File, ids: map[*ir.Value]int{}}
		opts.view = v
		m, err := k.IR(opts)
		require.NoError(t, err)
		b, err := emitModule(m, k.Name(), opts, g)
		require.NoError(t, err)
		require.Equal(t, plain.LLVMIR, b.LLVMIR, "%s: recording changed the LLVM IR", c.name)
		lines := strings.Split(b.LLVMIR, "\n")
		require.Len(t, v.llvmOps, len(lines))
		insts, withOp := 0, 0
		for i, l := range lines {
			if strings.HasPrefix(l, "\t") {
				insts++
				if v.llvmOps[i] != nil {
					withOp++
				}
			}
		}
		require.Greater(t, withOp, insts/2, "%s: %d of %d instructions have an op", c.name, withOp, insts)

		locs := make([]nvptx.SourceLoc, len(v.llvmOps))
		for i, op := range v.llvmOps {
			if op != nil && op.Pos.IsValid() {
				p := k.prog.file.File.Position(op.Pos)
				locs[i] = nvptx.SourceLoc{Line: p.Line, Col: p.Col}
			}
		}
		dbg, err := nvptx.WithDebugLocs(b.LLVMIR, k.Name(), c.name+".tle", locs)
		require.NoError(t, err)
		ptx, err := (&nvptx.LLC{Path: mustLLC(t)}).PTX(dbg, g.Arch)
		require.NoError(t, err)
		require.Contains(t, ptx, ".loc")
		stripped, src := nvptx.StripDebugLocs(ptx)
		require.Equal(t, plain.Binary.PTX, stripped, "%s: debug locations changed the PTX", c.name)
		n := 0
		for _, s := range src {
			if s > 0 {
				n++
			}
		}
		require.Greater(t, n, 10, c.name)
	}
}

func mustLLC(t *testing.T) string {
	p, err := nvptx.FindLLC()
	require.NoError(t, err)
	return p
}

var colName = regexp.MustCompile(`<section class="col [^"]*" data-name="([^"]*)"`)

// wantColumns is the page's columns: the source, the input and the tile
// IR after each row of the pass table in its order, the LLVM IR, the PTX.
func wantColumns() []string {
	want := []string{"source", "input"}
	for _, p := range passes.Table {
		want = append(want, p.Name)
	}
	return append(want, "LLVM IR", "PTX")
}

// The page is one self-contained file (nothing fetched: no links, no
// scripts or images by address) with a column per stage in order.
func TestPassHTMLPage(t *testing.T) {
	llcOrSkip(t)
	k := tutorialKernel(t, "softmax")
	page, err := k.PassHTML(CompileOptions{Defines: map[string]string{"BLOCK": "128"}}, GPUOptions{})
	require.NoError(t, err)
	s := string(page)
	for _, bad := range []string{"http://", "https://", "<link", " src=", "@import", "url("} {
		require.NotContains(t, s, bad)
	}
	var got []string
	for _, m := range colName.FindAllStringSubmatch(s, -1) {
		got = append(got, html.UnescapeString(m[1]))
	}
	require.Equal(t, wantColumns(), got)
	require.Contains(t, s, `data-s="4"`)               // lines know their .tle line
	require.Contains(t, s, `loc(softmax.tle:4:12)`)    // locations as lines
	require.Contains(t, s, `class="v" data-v="t1">%x`) // values are clickable
	require.Regexp(t, `class="ln ch"`, s)              // something changed
	require.Contains(t, s, "no change")                // and some pass did not

	// a compile that fails gives the page of what ran, and the error
	_, err = k.PassHTML(CompileOptions{Defines: map[string]string{"BLOCK": "128"}}, GPUOptions{Toolchain: "nosuch"})
	require.Error(t, err)
}

// TLE_HTML=KERNEL writes KERNEL.html into DumpDir on every compile of the
// kernel, a JIT cache hit included.
func TestTLEHTMLOnCacheHit(t *testing.T) {
	llcOrSkip(t)
	t.Setenv("TLE_CACHE_DIR", t.TempDir())
	t.Setenv("TLE_HTML", "softmax")
	dir := t.TempDir()
	k := tutorialKernel(t, "softmax")
	opts := CompileOptions{Defines: map[string]string{"BLOCK": "128"}, DumpDir: dir}
	page := filepath.Join(dir, "softmax.html")
	for i := range 2 {
		_, err := k.Compile(opts, GPUOptions{Toolchain: "llc"})
		require.NoError(t, err)
		b, err := os.ReadFile(page)
		require.NoError(t, err, "compile %d", i)
		require.Contains(t, string(b), `data-name="smem-alloc"`)
		require.NoError(t, os.Remove(page))
	}
	t.Setenv("TLE_HTML", "other")
	_, err := k.Compile(opts, GPUOptions{Toolchain: "llc"})
	require.NoError(t, err)
	require.NoFileExists(t, page)
}

// chromium finds a headless-capable Chromium, or skips.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium: the browser test of the pass viewer needs one (apt-get install chromium)")
	return ""
}

// selftestResult is what the page's #selftest writes.
type selftestResult struct {
	Columns []string
	Kinds   []string
	Folded  []string
	Changed []string
	Value   *struct {
		ID, Text string
		Columns  []string
	}
	Source *struct {
		Line    int
		Text    string
		Columns []string
	}
}

var selftestPre = regexp.MustCompile(`(?s)<pre id="selftest">(.*?)</pre>`)

// selftestRunner is a page that loads each kernel's page with #selftest in
// a frame and, once all have run, gathers what each wrote into its own
// #selftest, by kernel: one browser start for every page (a start is most
// of a small page's CPU). Frames of file: pages reach each other's
// documents under --allow-file-access-from-files.
const selftestRunner = `<!DOCTYPE html>
<html><body>
{{range .}}<iframe data-name="{{.}}" src="{{.}}.html#selftest" width="1600" height="900"></iframe>
{{end}}<pre id="selftest"></pre>
<script>
window.addEventListener('load', function () {
  var out = {};
  Array.prototype.forEach.call(document.querySelectorAll('iframe'), function (f) {
    var pre = f.contentDocument && f.contentDocument.getElementById('selftest');
    out[f.getAttribute('data-name')] = pre && pre.textContent ? JSON.parse(pre.textContent) : null;
  });
  document.getElementById('selftest').textContent = JSON.stringify(out);
});
</script>
</body></html>
`

// The page in a real browser: headless Chromium loads it with #selftest,
// whose script clicks a value and a source line as a user would and writes
// what was highlighted into the page, which --dump-dom returns. The
// columns come in the pass table's order; the value lights up in more
// than one column, and the source line in the tile IR columns, the LLVM
// IR and the PTX. The kernels' pages load in one browser, each in a frame
// (selftestRunner).
func TestPassHTMLInChromium(t *testing.T) {
	browser := chromium(t)
	llcOrSkip(t)
	dir := t.TempDir()
	var names []string
	for _, c := range viewKernels {
		k := tutorialKernel(t, c.name)
		page, err := k.PassHTML(CompileOptions{Defines: c.defines, NumWarps: c.warps}, GPUOptions{})
		require.NoError(t, err, c.name)
		require.NoError(t, os.WriteFile(filepath.Join(dir, c.name+".html"), page, 0o644))
		names = append(names, c.name)
	}
	var runner bytes.Buffer
	require.NoError(t, template.Must(template.New("runner").Parse(selftestRunner)).Execute(&runner, names))
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, runner.Bytes(), 0o644))
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+path)
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", out)
	m := selftestPre.FindSubmatch(out)
	require.NotNil(t, m, "no #selftest result in the DOM chromium dumped")
	var results map[string]*selftestResult
	require.NoError(t, json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &results), "%s", m[1])
	for _, name := range names {
		r := results[name]
		require.NotNil(t, r, "%s: its page wrote no #selftest", name)
		require.Equal(t, wantColumns(), r.Columns, name)
		require.NotEmpty(t, r.Changed, name)
		require.NotNil(t, r.Value, name)
		require.Greater(t, len(r.Value.Columns), 1, "%s: value %s", name, r.Value.Text)
		require.NotNil(t, r.Source, name)
		require.Subset(t, r.Source.Columns, []string{"source", "input", "smem-alloc", "LLVM IR", "PTX"}, "%s: line %d", name, r.Source.Line)
	}
}
