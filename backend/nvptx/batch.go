package nvptx

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Batcher is a Toolchain that compiles several modules in one run.
type Batcher interface {
	Toolchain
	PTXAll(llvmIRs []string, arch string) ([]string, error)
}

// ModuleError is PTXAll's error: the module (0-based Index of Of) that
// llc rejected when compiled alone.
type ModuleError struct {
	Index, Of int
	Err       error
}

func (e *ModuleError) Error() string {
	return fmt.Sprintf("module %d of %d: %v", e.Index+1, e.Of, e.Err)
}

func (e *ModuleError) Unwrap() error { return e.Err }

// PTXAll compiles several modules, each as EmitLLVM prints it, in one llc
// run per PTX version: their symbols are renamed apart, the modules merged
// into one, and the PTX cut back into one module per input with its own
// names and numbering. llc's start (about 17 ms of CPU, most of it loading
// libLLVM) is then paid once for the batch rather than once per module,
// and for a small kernel that start is most of the compile.
//
// Each result holds the same directives and instructions as PTX gives for
// that module alone (branch labels and local depots numbered as there):
// only comments and blank lines may differ, so the two are equal under
// WithoutComments. Modules that cannot be merged (a construct EmitLLVM
// does not print, declarations that disagree) compile one by one, and
// when llc rejects the merged module each module is compiled alone, so
// the error names the module's own IR, as PTX's does.
func (l *LLC) PTXAll(llvmIRs []string, arch string) ([]string, error) {
	out := make([]string, len(llvmIRs))
	var v80, v83 []int
	for i, m := range llvmIRs {
		if UsesTensormaps(m) {
			v83 = append(v83, i)
		} else {
			v80 = append(v80, i)
		}
	}
	for _, group := range [][]int{v80, v83} {
		if err := l.ptxGroup(llvmIRs, group, arch, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ptxGroup compiles the modules at idx (all of one PTX version) into out.
func (l *LLC) ptxGroup(irs []string, idx []int, arch string, out []string) error {
	alone := func(idx []int) error {
		for _, i := range idx {
			p, err := l.PTX(irs[i], arch)
			if err != nil {
				return &ModuleError{Index: i, Of: len(irs), Err: err}
			}
			out[i] = p
		}
		return nil
	}
	if len(idx) < 2 {
		return alone(idx)
	}
	group := make([]string, len(idx))
	for k, i := range idx {
		group[k] = irs[i]
	}
	merged, mods, err := mergeModules(group)
	if err != nil {
		return alone(idx)
	}
	ptx, err := l.PTX(merged, arch)
	if err != nil {
		return alone(idx)
	}
	parts, err := splitPTX(ptx, mods)
	if err != nil {
		return fmt.Errorf("cutting the PTX of %d merged modules: %w", len(idx), err)
	}
	for k, i := range idx {
		out[i] = parts[k]
	}
	return nil
}

// batchMark ends every name a module defines in the merged module:
// name__tlbK_ for module K. No input may contain it already.
const batchMark = "__tlb"

// mergedModule is what splitPTX needs to know of one merged module.
type mergedModule struct {
	funcs    int      // functions defined before this module's (llc numbers them module-wide)
	declared []string // functions it declares (their PTX prototypes, if any, are its too)
}

var (
	irGlobalRef = regexp.MustCompile(`@([A-Za-z_.$][A-Za-z0-9_.$]*)`)
	irMetaRef   = regexp.MustCompile(`!([0-9]+)\b`)
	irAttrRef   = regexp.MustCompile(`#([0-9]+)\b`)
	irDefine    = regexp.MustCompile(`^define\b[^@]*@([A-Za-z_.$][A-Za-z0-9_.$]*)\(`)
	irGlobalDef = regexp.MustCompile(`^@([A-Za-z_.$][A-Za-z0-9_.$]*) = `)
	irDeclare   = regexp.MustCompile(`^declare\b[^@]*@([A-Za-z_.$][A-Za-z0-9_.$]*)\(`)
)

// mergeModules merges modules as EmitLLVM prints them into one: each
// module's functions and globals get the suffix batchMark+K+"_", its
// metadata and attribute groups are renumbered past the previous modules',
// declarations are kept once and the nvvm.annotations lists joined. It
// refuses (an error) anything else it would have to understand to merge.
func mergeModules(irs []string) (string, []mergedModule, error) {
	var head, body, decls, meta, ann []string
	declSeen := map[string]string{}
	mods := make([]mergedModule, len(irs))
	metaOff, attrOff, funcs := 0, 0, 0
	for k, text := range irs {
		if strings.Contains(text, batchMark) || strings.Contains(text, `@"`) {
			return "", nil, fmt.Errorf("module %d: names the merge cannot rename", k)
		}
		lines := strings.Split(text, "\n")
		defined := map[string]bool{}
		maxMeta, maxAttr := -1, -1
		for _, ln := range lines {
			if m := irDefine.FindStringSubmatch(ln); m != nil {
				defined[m[1]] = true
			} else if m := irGlobalDef.FindStringSubmatch(ln); m != nil {
				defined[m[1]] = true
			}
			for _, m := range irMetaRef.FindAllStringSubmatch(outsideQuotes(ln), -1) {
				maxMeta = max(maxMeta, atoi(m[1]))
			}
			for _, m := range irAttrRef.FindAllStringSubmatch(outsideQuotes(ln), -1) {
				maxAttr = max(maxAttr, atoi(m[1]))
			}
		}
		suffix := batchMark + strconv.Itoa(k) + "_"
		rename := func(ln string) string {
			return mapOutsideQuotes(ln, func(s string) string {
				s = irGlobalRef.ReplaceAllStringFunc(s, func(ref string) string {
					if defined[ref[1:]] {
						return ref + suffix
					}
					return ref
				})
				s = irMetaRef.ReplaceAllStringFunc(s, func(ref string) string { return "!" + strconv.Itoa(atoi(ref[1:])+metaOff) })
				return irAttrRef.ReplaceAllStringFunc(s, func(ref string) string { return "#" + strconv.Itoa(atoi(ref[1:])+attrOff) })
			})
		}
		mods[k].funcs = funcs
		inFunc := false
		for _, ln := range lines {
			switch {
			case inFunc:
				body = append(body, rename(ln))
				inFunc = ln != "}"
			case ln == "" || strings.HasPrefix(ln, ";") || strings.HasPrefix(ln, "source_filename"):
			case strings.HasPrefix(ln, "target "):
				if k == 0 {
					head = append(head, ln)
				} else if !contains(head, ln) {
					return "", nil, fmt.Errorf("module %d: %s differs", k, ln)
				}
			case strings.HasPrefix(ln, "define "):
				body = append(body, rename(ln))
				funcs++
				inFunc = !strings.HasSuffix(ln, "}")
			case strings.HasPrefix(ln, "declare "):
				m := irDeclare.FindStringSubmatch(ln)
				if m == nil {
					return "", nil, fmt.Errorf("module %d: declaration %q", k, ln)
				}
				sig := strings.TrimSpace(irAttrRef.ReplaceAllString(ln, ""))
				if prev, ok := declSeen[m[1]]; ok {
					if prev != sig {
						return "", nil, fmt.Errorf("module %d: @%s declared differently", k, m[1])
					}
				} else {
					declSeen[m[1]] = sig
					decls = append(decls, rename(ln))
				}
				mods[k].declared = append(mods[k].declared, m[1])
			case strings.HasPrefix(ln, "@"):
				body = append(body, rename(ln))
			case strings.HasPrefix(ln, "attributes #"):
				meta = append(meta, rename(ln))
			case strings.HasPrefix(ln, "!nvvm.annotations = !{") && strings.HasSuffix(ln, "}"):
				r := rename(ln)
				if list := r[len("!nvvm.annotations = !{") : len(r)-1]; list != "" {
					ann = append(ann, list)
				}
			case len(ln) > 1 && ln[0] == '!' && ln[1] >= '0' && ln[1] <= '9':
				meta = append(meta, rename(ln))
			default:
				return "", nil, fmt.Errorf("module %d: top-level line %q", k, ln)
			}
		}
		if inFunc {
			return "", nil, fmt.Errorf("module %d: unterminated function", k)
		}
		metaOff += maxMeta + 1
		attrOff += maxAttr + 1
	}
	var b strings.Builder
	for _, part := range [][]string{head, body, decls, meta} {
		for _, ln := range part {
			b.WriteString(ln)
			b.WriteByte('\n')
		}
	}
	if len(ann) > 0 {
		b.WriteString("!nvvm.annotations = !{" + strings.Join(ann, ", ") + "}\n")
	}
	return b.String(), mods, nil
}

var (
	ptxMark   = regexp.MustCompile(batchMark + `([0-9]+)_`)
	ptxLabel  = regexp.MustCompile(`\$L__BB([0-9]+)_`)
	ptxDepot  = regexp.MustCompile(`__local_depot([0-9]+)`)
	ptxIdents = regexp.MustCompile(`[A-Za-z_$][A-Za-z0-9_$]*`)
)

// splitPTX cuts the PTX of a merged module into one module per input:
// the header, then each top-level directive or function, comments and
// blank lines dropped between them, given to the module whose mark it
// carries, or, unmarked (an external function's prototype), to every
// module that declared that function. The marks come off and the
// module-wide numbers of labels and depots go back to the module's own.
func splitPTX(ptx string, mods []mergedModule) ([]string, error) {
	lines := strings.Split(ptx, "\n")
	h := 0
	for h < len(lines) && !strings.HasPrefix(lines[h], ".address_size") {
		h++
	}
	if h == len(lines) {
		return nil, fmt.Errorf("no .address_size in llc's output")
	}
	header := strings.Join(lines[:h+1], "\n") + "\n"
	parts := make([]strings.Builder, len(mods))
	for k := range parts {
		parts[k].WriteString(header)
	}
	for i := h + 1; i < len(lines); {
		ln := lines[i]
		if t := strings.TrimSpace(ln); t == "" || strings.HasPrefix(t, "//") {
			i++
			continue
		}
		if ln[0] != '.' {
			return nil, fmt.Errorf("line %d: top-level %q", i+1, ln)
		}
		j, depth, opened := i, 0, false
		for ; j < len(lines); j++ {
			s := stripComment(lines[j])
			depth += strings.Count(s, "{") - strings.Count(s, "}")
			opened = opened || strings.Contains(s, "{")
			if depth == 0 && (opened || strings.HasSuffix(s, ";")) {
				break
			}
		}
		if j == len(lines) {
			return nil, fmt.Errorf("line %d: %q does not end", i+1, ln)
		}
		item := strings.Join(lines[i:j+1], "\n")
		i = j + 1
		if m := ptxMark.FindStringSubmatch(item); m != nil {
			k := atoi(m[1])
			if k >= len(mods) {
				return nil, fmt.Errorf("mark %s of no module", m[0])
			}
			parts[k].WriteString("\n" + item + "\n")
			continue
		}
		names := map[string]bool{}
		for _, id := range ptxIdents.FindAllString(item, -1) {
			names[id] = true
		}
		for k, mod := range mods {
			for _, d := range mod.declared {
				if names[d] {
					parts[k].WriteString("\n" + item + "\n")
					break
				}
			}
		}
	}
	out := make([]string, len(mods))
	for k, mod := range mods {
		s := strings.ReplaceAll(parts[k].String(), batchMark+strconv.Itoa(k)+"_", "")
		if m := ptxMark.FindString(s); m != "" {
			return nil, fmt.Errorf("module %d's PTX names another module's %s", k, m)
		}
		for _, re := range []*regexp.Regexp{ptxLabel, ptxDepot} {
			s = re.ReplaceAllStringFunc(s, func(ref string) string {
				n := re.FindStringSubmatch(ref)[1]
				return strings.Replace(ref, n, strconv.Itoa(atoi(n)-mod.funcs), 1)
			})
		}
		out[k] = s
	}
	return out, nil
}

// WithoutComments is PTX without its comments and blank lines: what PTXAll
// promises to keep of a separate compile's PTX.
func WithoutComments(ptx string) string {
	var out []string
	for _, l := range strings.Split(ptx, "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimRight(l, " \t"); strings.TrimSpace(l) != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// stripComment is a PTX line without its // comment.
func stripComment(ln string) string {
	if i := strings.Index(ln, "//"); i >= 0 {
		ln = ln[:i]
	}
	return strings.TrimSpace(ln)
}

// outsideQuotes is ln without its quoted strings.
func outsideQuotes(ln string) string {
	segs := strings.Split(ln, `"`)
	for i := 1; i < len(segs); i += 2 {
		segs[i] = ""
	}
	return strings.Join(segs, " ")
}

// mapOutsideQuotes applies f to the parts of ln outside double quotes and
// copies the quoted ones as they are (LLVM escapes a quote inside a string
// as \22, so every " delimits one).
func mapOutsideQuotes(ln string, f func(string) string) string {
	if !strings.Contains(ln, `"`) {
		return f(ln)
	}
	segs := strings.Split(ln, `"`)
	for i := 0; i < len(segs); i += 2 {
		segs[i] = f(segs[i])
	}
	return strings.Join(segs, `"`)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
