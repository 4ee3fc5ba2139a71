package nvptx

import (
	"fmt"
	"strconv"
	"strings"
)

// SourceLoc is a .tle line and column (1-based); a zero Line is none.
type SourceLoc struct{ Line, Col int }

// WithDebugLocs returns llvmIR (as EmitLLVM printed it) with a debug
// location on each line of kernel's body that locs (indexed by 0-based line
// of llvmIR) gives one, the subprogram and compile unit they need, and
// emission kind DebugDirectivesOnly, so that llc writes .loc directives
// into the PTX and nothing else of debug information. It is for the pass
// viewer only: an ordinary build never carries debug locations, so its
// LLVM IR and PTX stay what they were.
func WithDebugLocs(llvmIR, kernel, file string, locs []SourceLoc) (string, error) {
	lines := strings.Split(llvmIR, "\n")
	const base = 1 << 20 // metadata ids clear of the module's own
	cu, flags, fileID, sp, sig := base, base+1, base+2, base+3, base+4
	next := base + 5
	ids := map[SourceLoc]int{}
	var defs []string
	in, found := false, false
	spLine := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "define ") && strings.Contains(l, "@"+kernel+"(") && strings.HasSuffix(l, " {"):
			lines[i] = strings.TrimSuffix(l, " {") + fmt.Sprintf(" !dbg !%d {", sp)
			in, found = true, true
			continue
		case in && l == "}":
			in = false
			continue
		}
		if !in || i >= len(locs) || locs[i].Line == 0 || !strings.HasPrefix(l, "\t") {
			continue
		}
		id, ok := ids[locs[i]]
		if !ok {
			id = next
			next++
			ids[locs[i]] = id
			defs = append(defs, fmt.Sprintf("!%d = !DILocation(line: %d, column: %d, scope: !%d)", id, locs[i].Line, locs[i].Col, sp))
			if spLine == 0 || locs[i].Line < spLine {
				spLine = locs[i].Line
			}
		}
		lines[i] = l + ", !dbg !" + strconv.Itoa(id)
	}
	if !found {
		return "", fmt.Errorf("no kernel %q in the LLVM IR", kernel)
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(strings.Join(lines, "\n"), "\n"))
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "!llvm.dbg.cu = !{!%d}\n!llvm.module.flags = !{!%d}\n", cu, flags)
	fmt.Fprintf(&b, "!%d = distinct !DICompileUnit(language: DW_LANG_C, file: !%d, producer: \"tle-go pass viewer\", isOptimized: true, runtimeVersion: 0, emissionKind: DebugDirectivesOnly)\n", cu, fileID)
	fmt.Fprintf(&b, "!%d = !{i32 2, !\"Debug Info Version\", i32 3}\n", flags)
	fmt.Fprintf(&b, "!%d = !DIFile(filename: %s, directory: \"\")\n", fileID, strconv.Quote(file))
	fmt.Fprintf(&b, "!%d = distinct !DISubprogram(name: %s, scope: !%d, file: !%d, line: %d, type: !%d, scopeLine: %d, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !%d)\n", sp, strconv.Quote(kernel), fileID, fileID, spLine, sig, spLine, cu)
	fmt.Fprintf(&b, "!%d = !DISubroutineType(types: !{})\n", sig)
	for _, d := range defs {
		b.WriteString(d + "\n")
	}
	return b.String(), nil
}

// StripDebugLocs removes the .file and .loc directives WithDebugLocs made
// llc write (and any debug sections) from ptx, and returns the rest with
// the .tle line each remaining line was under (0: none yet, or line 0).
func StripDebugLocs(ptx string) (string, []int) {
	var out []string
	var src []int
	cur := 0
	skip := 0 // inside a .section .debug_* { ... }
	for _, l := range strings.Split(ptx, "\n") {
		t := strings.TrimSpace(l)
		if skip > 0 {
			skip += strings.Count(t, "{") - strings.Count(t, "}")
			continue
		}
		switch {
		case strings.HasPrefix(t, ".section") && strings.Contains(t, ".debug_"):
			skip = strings.Count(t, "{") - strings.Count(t, "}")
			continue
		case strings.HasPrefix(t, ".file"), debugLabel(t):
			continue
		case strings.HasPrefix(t, ".loc"):
			f := strings.Fields(t)
			cur = 0
			if len(f) >= 3 {
				cur, _ = strconv.Atoi(f[2])
			}
			continue
		}
		if t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "$") || strings.HasPrefix(t, ".") || t == "{" || t == "}" || strings.HasSuffix(t, ":") {
			out, src = append(out, l), append(src, 0)
			continue
		}
		out, src = append(out, l), append(src, cur)
	}
	return strings.Join(out, "\n"), src
}

// debugLabel reports the labels llc adds for debug information only
// ($L__func_begin0:, $L__tmp3:, $L__func_end0:).
func debugLabel(t string) bool {
	for _, p := range []string{"$L__func_begin", "$L__func_end", "$L__tmp"} {
		if rest, ok := strings.CutPrefix(t, p); ok && strings.HasSuffix(rest, ":") {
			_, err := strconv.Atoi(strings.TrimSuffix(rest, ":"))
			return err == nil
		}
	}
	return false
}
