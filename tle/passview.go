package tle

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/tlego/tle/backend/nvptx"
	"github.com/tlego/tle/diag"
	"github.com/tlego/tle/ir"
)

// The pass viewer: one self-contained HTML page (Kernel.PassHTML, tlec
// build --html, TLE_HTML=KERNEL for the JIT) with the kernel's source, its
// tile IR after every pass of the table, its LLVM IR and its PTX, side by
// side as Go's GOSSAFUNC ssa.html shows a function. The compile that makes
// it is an ordinary one that records more: the passes' Observe hook prints
// the module after each pass, the backend records which op made which
// LLVM instruction (nvptx.Options.RecordOps), and the PTX comes from that
// LLVM IR with debug locations added for the page only
// (nvptx.WithDebugLocs), whose .loc directives say which .tle line each PTX
// instruction came from; they are stripped from what the page shows.

//go:embed passview.html
var passViewHTML string

//go:embed passview.css
var passViewCSS string

//go:embed passview.js
var passViewJS string

var passViewTmpl = template.Must(template.New("page").Parse(passViewHTML))

// passView collects the columns of the page as a compile runs.
type passView struct {
	file *diag.File
	ids  map[*ir.Value]int // a value's number on the page: the same in every column
	cols []viewCol

	llvm    string
	llvmOps []*ir.Op
}

// viewCol is one column of the page.
type viewCol struct {
	Name  string
	Kind  string // "src", "tir", "llvm", "ptx"
	Note  string // "no change", an error...
	Fold  bool   // folded when the page opens
	Lines []viewLine

	norm []string // tile IR lines with values as page numbers, for the diff
}

// viewLine is one line of a column.
type viewLine struct {
	Src     int  // the .tle line it came from; 0 none
	Changed bool // not in the column before (tile IR)
	Parts   []viewPart
}

// viewPart is a run of text; V names the value it is (clickable), Loc
// marks a location.
type viewPart struct {
	T   string
	V   string
	Loc bool
}

func (v *passView) observer() func(string, *ir.Module) {
	if v == nil {
		return nil
	}
	return v.observe
}

var (
	tirRef = regexp.MustCompile(`%(?:"(?:[^"\\]|\\.)*"|[A-Za-z0-9_]+)|\bloc\([^()]*\)`)
	llRef  = regexp.MustCompile(`%[A-Za-z0-9_.]+`)
	ptxReg = regexp.MustCompile(`%[a-z]+[0-9]+`)
)

// observe prints m after pass into a new column. A pass seen before
// starts over from its column: the JIT retries the GPU rows with a
// shallower pipeline when shared memory overflows, and the page shows the
// run that was kept.
func (v *passView) observe(pass string, m *ir.Module) {
	for i, c := range v.cols {
		if c.Name == pass {
			v.cols = v.cols[:i]
			break
		}
	}
	col := viewCol{Name: pass, Kind: "tir"}
	for fi, f := range m.Funcs {
		ft := ir.PrintFuncText(m.File, f)
		byName := make(map[string]*ir.Value, len(ft.Refs))
		for val, name := range ft.Refs {
			byName[name] = val
		}
		lines := strings.Split(strings.TrimSuffix(ft.Text, "\n"), "\n")
		if fi > 0 {
			col.Lines = append(col.Lines, viewLine{})
			col.norm = append(col.norm, "")
		}
		for i, text := range lines {
			ln := viewLine{}
			if i < len(ft.LineOps) && ft.LineOps[i] != nil {
				ln.Src = v.line(ft.LineOps[i].Pos)
			} else if i == 0 {
				ln.Src = v.line(f.Pos)
			}
			var norm strings.Builder
			last := 0
			for _, loc := range tirRef.FindAllStringIndex(text, -1) {
				tok := text[loc[0]:loc[1]]
				ln.Parts = append(ln.Parts, viewPart{T: text[last:loc[0]]})
				norm.WriteString(text[last:loc[0]])
				last = loc[1]
				if strings.HasPrefix(tok, "loc(") {
					ln.Parts = append(ln.Parts, viewPart{T: shortLoc(tok), Loc: true})
					norm.WriteString(tok)
					continue
				}
				val := byName[tok]
				if val == nil {
					ln.Parts = append(ln.Parts, viewPart{T: tok})
					norm.WriteString(tok)
					continue
				}
				id, ok := v.ids[val]
				if !ok {
					id = len(v.ids) + 1
					v.ids[val] = id
				}
				ln.Parts = append(ln.Parts, viewPart{T: tok, V: fmt.Sprintf("t%d", id)})
				fmt.Fprintf(&norm, "%%#%d", id)
			}
			ln.Parts = append(ln.Parts, viewPart{T: text[last:]})
			norm.WriteString(text[last:])
			col.Lines = append(col.Lines, ln)
			col.norm = append(col.norm, norm.String())
		}
	}
	v.cols = append(v.cols, col)
}

// shortLoc writes loc(dir/f.tle:3:4) as loc(f.tle:3:4).
func shortLoc(tok string) string {
	inner := strings.TrimSuffix(strings.TrimPrefix(tok, "loc("), ")")
	if i := strings.LastIndexByte(inner, '/'); i >= 0 && !strings.HasPrefix(inner, `"`) {
		inner = inner[i+1:]
	}
	return "loc(" + inner + ")"
}

func (v *passView) line(p diag.Pos) int {
	if v.file == nil || !p.IsValid() || len(v.file.Src) == 0 {
		return 0
	}
	return v.file.Position(p).Line
}

// diff marks the lines of each tile IR column that the column before
// lacks (a longest common subsequence of lines, values compared by their
// page numbers, so that renumbering is no change), and the columns a pass
// left as they were.
func (v *passView) diff() {
	for i := 1; i < len(v.cols); i++ {
		a, b := v.cols[i-1].norm, v.cols[i].norm
		if strings.Join(a, "\n") == strings.Join(b, "\n") {
			v.cols[i].Note, v.cols[i].Fold = "no change", true
			continue
		}
		keep := lcs(a, b)
		added, kept := 0, 0
		for j := range v.cols[i].Lines {
			if keep[j] {
				kept++
			} else if strings.TrimSpace(b[j]) != "" {
				v.cols[i].Lines[j].Changed = true
				added++
			}
		}
		v.cols[i].Note = fmt.Sprintf("+%d −%d lines", added, len(a)-kept)
	}
}

// lcs reports, for each line of b, whether it is in a longest common
// subsequence of a and b; past 16M cells it settles for whether b's line
// is anywhere in a.
func lcs(a, b []string) []bool {
	keep := make([]bool, len(b))
	if len(a)*len(b) > 1<<24 {
		in := map[string]int{}
		for _, s := range a {
			in[s]++
		}
		for j, s := range b {
			if in[s] > 0 {
				in[s]--
				keep[j] = true
			}
		}
		return keep
	}
	w := len(b) + 1
	t := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				t[i*w+j] = t[(i+1)*w+j+1] + 1
			} else {
				t[i*w+j] = max(t[(i+1)*w+j], t[i*w+j+1])
			}
		}
	}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			keep[j] = true
			i++
			j++
		case t[(i+1)*w+j] >= t[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return keep
}

// textCol makes a column of LLVM IR or PTX: src gives each line's .tle
// line, re the value names clicking highlights (prefix keeps them apart
// from the other columns').
func textCol(name, kind, text string, src []int, re *regexp.Regexp, prefix string) viewCol {
	col := viewCol{Name: name, Kind: kind}
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		ln := viewLine{}
		if i < len(src) {
			ln.Src = src[i]
		}
		last := 0
		for _, loc := range re.FindAllStringIndex(l, -1) {
			ln.Parts = append(ln.Parts, viewPart{T: l[last:loc[0]]}, viewPart{T: l[loc[0]:loc[1]], V: prefix + l[loc[0]:loc[1]]})
			last = loc[1]
		}
		ln.Parts = append(ln.Parts, viewPart{T: l[last:]})
		col.Lines = append(col.Lines, ln)
	}
	return col
}

// PassHTML compiles the kernel for the GPU as Kernel.Build does (no JIT
// cache) and returns the pass viewer's page: the source, the tile IR after
// every pass that ran (in the order of the pass table), the LLVM IR and
// the PTX, with what each pass changed marked and the ops of each source
// line and each value linked across the columns. A compile that fails
// still gives the page of what ran, with the error on it, and the error.
// The LLVM IR and PTX of the kernel's ordinary builds are not changed.
func (k *Kernel) PassHTML(opts CompileOptions, g GPUOptions) ([]byte, error) {
	if k == nil {
		return nil, errNilKernel("PassHTML")
	}
	start := time.Now()
	file := k.prog.file.File
	v := &passView{file: file, ids: map[*ir.Value]int{}}
	opts.view = v
	var ptx string
	var ptxSrc []int
	var toolchain string
	err := func() (err error) {
		defer func() { err = ir.Diagnose(file, err) }()
		opts, g, err = forGPU(opts, g)
		if err != nil {
			return err
		}
		opts.view = v
		m, err := k.IR(opts)
		if err != nil {
			return err
		}
		b, err := emitModule(m, k.Name(), opts, g)
		if err != nil {
			return err
		}
		locs := make([]nvptx.SourceLoc, len(v.llvmOps))
		for i, op := range v.llvmOps {
			if op != nil && op.Pos.IsValid() && len(file.Src) > 0 {
				p := file.Position(op.Pos)
				locs[i] = nvptx.SourceLoc{Line: p.Line, Col: p.Col}
			}
		}
		dbg, err := nvptx.WithDebugLocs(b.LLVMIR, k.Name(), filepath.Base(file.Name), locs)
		if err != nil {
			return err
		}
		tc, why, err := nvptx.Select(g.Toolchain)
		if err != nil {
			return err
		}
		toolchain = why
		out, err := tc.PTX(dbg, g.Arch)
		if err != nil {
			return err
		}
		ptx, ptxSrc = nvptx.StripDebugLocs(out)
		return nil
	}()
	page, perr := v.render(k, opts, g, ptx, ptxSrc, toolchain, err, time.Since(start))
	if perr != nil {
		return nil, perr
	}
	return page, err
}

// render writes the page.
func (v *passView) render(k *Kernel, opts CompileOptions, g GPUOptions, ptx string, ptxSrc []int, toolchain string, cerr error, took time.Duration) ([]byte, error) {
	v.diff()
	src := viewCol{Name: "source", Kind: "src"}
	for i, l := range strings.Split(strings.TrimSuffix(string(v.file.Src), "\n"), "\n") {
		src.Lines = append(src.Lines, viewLine{Src: i + 1, Parts: []viewPart{{T: l}}})
	}
	cols := append([]viewCol{src}, v.cols...)
	if v.llvm != "" {
		srcOf := make([]int, len(v.llvmOps))
		for i, op := range v.llvmOps {
			if op != nil {
				srcOf[i] = v.line(op.Pos)
			}
		}
		cols = append(cols, textCol("LLVM IR", "llvm", v.llvm, srcOf, llRef, "L"))
	}
	if ptx != "" {
		c := textCol("PTX", "ptx", ptx, ptxSrc, ptxReg, "P")
		c.Note = toolchain
		cols = append(cols, c)
	}
	var defs []string
	for n, val := range opts.Defines {
		defs = append(defs, n+"="+val)
	}
	sort.Strings(defs)
	data := struct {
		Kernel, File, Target, Defines, Error string
		Took                                 string
		Cols                                 []viewCol
		CSS                                  template.CSS
		JS                                   template.JS
	}{
		Kernel: k.Name(), File: v.file.Name, Target: g.Arch, Defines: strings.Join(defs, " "),
		Took: took.Round(time.Millisecond).String(), Cols: cols,
		CSS: template.CSS(passViewCSS), JS: template.JS(passViewJS),
	}
	if cerr != nil {
		data.Error = cerr.Error()
	}
	var b bytes.Buffer
	if err := passViewTmpl.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writePassHTML is TLE_HTML=KERNEL: the page of this compile, as
// KERNEL.html in opts.DumpDir (else the current directory), whatever the
// JIT cache holds. It says on standard error where it wrote the page, or
// why it could not.
func (k *Kernel) writePassHTML(opts CompileOptions, g GPUOptions) {
	page, err := k.PassHTML(opts, g)
	dir := opts.DumpDir
	if dir == "" {
		dir = "."
	}
	path := filepath.Join(dir, k.Name()+".html")
	if page != nil {
		if werr := os.MkdirAll(dir, 0o755); werr != nil {
			err = werr
		} else if werr := os.WriteFile(path, page, 0o644); werr != nil {
			err = werr
		} else {
			fmt.Fprintf(os.Stderr, "tle: TLE_HTML: wrote %s\n", path)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "tle: TLE_HTML %s: %v\n", k.Name(), err)
	}
}
