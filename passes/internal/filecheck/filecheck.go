// Package filecheck is a small FileCheck (LLVM's test matcher) for pass tests:
// a .tir file carries `// CHECK:` lines that are matched, in order, against
// the printed output of a pass.
//
// Directives (one per comment line, anywhere in the check text):
//
//	// CHECK: pattern       the next match at or after the previous one
//	// CHECK-NEXT: pattern  a match on the line right after the previous match
//	// CHECK-SAME: pattern  a match later on the same line as the previous match
//	// CHECK-NOT: pattern   no match between the previous match and the next
//	                        positive match (or the end of the output)
//	// CHECK-LABEL: pattern like CHECK (kept for familiarity)
//
// Patterns are literal text, except {{regex}} (a Go regexp), [[NAME:regex]]
// (capture into variable NAME) and [[NAME]] (the text captured before). Runs
// of spaces in a pattern match any run of horizontal whitespace; leading and
// trailing spaces are ignored.
package filecheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Directive is one check line.
type Directive struct {
	Kind    string // CHECK, CHECK-NEXT, CHECK-SAME, CHECK-NOT, CHECK-LABEL
	Pattern string
	Line    int // 1-based line in the check text
}

var directiveRE = regexp.MustCompile(`//\s*(CHECK(?:-NEXT|-SAME|-NOT|-LABEL)?):(.*)$`)

// Parse extracts the directives of a check text.
func Parse(checks string) []Directive {
	var out []Directive
	for i, line := range strings.Split(checks, "\n") {
		if m := directiveRE.FindStringSubmatch(line); m != nil {
			out = append(out, Directive{Kind: m[1], Pattern: strings.TrimSpace(m[2]), Line: i + 1})
		}
	}
	return out
}

// compile turns a pattern into a regexp, substituting bound variables, and
// returns the names of the variables it defines (in group order).
func compile(pat string, vars map[string]string) (*regexp.Regexp, []string, error) {
	var b strings.Builder
	var defs []string
	for len(pat) > 0 {
		switch {
		case strings.HasPrefix(pat, "{{"):
			end := strings.Index(pat, "}}")
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated {{")
			}
			b.WriteString("(?:" + pat[2:end] + ")")
			pat = pat[end+2:]
		case strings.HasPrefix(pat, "[["):
			end := strings.Index(pat, "]]")
			if end < 0 {
				return nil, nil, fmt.Errorf("unterminated [[")
			}
			body := pat[2:end]
			pat = pat[end+2:]
			if name, re, ok := strings.Cut(body, ":"); ok {
				defs = append(defs, name)
				b.WriteString("(" + re + ")")
			} else {
				v, ok := vars[body]
				if !ok {
					return nil, nil, fmt.Errorf("undefined variable [[%s]]", body)
				}
				b.WriteString(regexp.QuoteMeta(v))
			}
		case pat[0] == ' ' || pat[0] == '\t':
			pat = strings.TrimLeft(pat, " \t")
			b.WriteString(`[ \t]+`)
		default:
			n := strings.IndexAny(pat, " \t")
			for _, s := range []string{"{{", "[["} {
				if i := strings.Index(pat, s); i >= 0 && (n < 0 || i < n) {
					n = i
				}
			}
			if n < 0 {
				n = len(pat)
			}
			b.WriteString(regexp.QuoteMeta(pat[:n]))
			pat = pat[n:]
		}
	}
	re, err := regexp.Compile(b.String())
	return re, defs, err
}

// Check matches the directives of checks against output. The error lists the
// failing directive, its line and the output around where matching stood.
func Check(output, checks string) error {
	return CheckDirectives(output, Parse(checks))
}

// CheckDirectives matches parsed directives against output.
func CheckDirectives(output string, dirs []Directive) error {
	if len(dirs) == 0 {
		return fmt.Errorf("filecheck: no CHECK directives")
	}
	vars := map[string]string{}
	cur := 0       // byte offset where the next search starts
	lastLine := -1 // start offset of the line of the previous match
	var nots []Directive
	lineStart := func(off int) int { return strings.LastIndexByte(output[:off], '\n') + 1 }
	lineEnd := func(off int) int {
		if i := strings.IndexByte(output[off:], '\n'); i >= 0 {
			return off + i
		}
		return len(output)
	}
	fail := func(d Directive, at int, format string, args ...any) error {
		return fmt.Errorf("check line %d: %s: %s: %s\nmatching stood here:\n%s", d.Line, d.Kind, d.Pattern,
			fmt.Sprintf(format, args...), excerpt(output, at))
	}
	checkNots := func(from, to int) error {
		for _, n := range nots {
			re, _, err := compile(n.Pattern, vars)
			if err != nil {
				return fail(n, from, "bad pattern: %v", err)
			}
			if loc := re.FindStringIndex(output[from:to]); loc != nil {
				return fail(n, from+loc[0], "excluded pattern found: %q", output[from+loc[0]:from+loc[1]])
			}
		}
		nots = nil
		return nil
	}
	for _, d := range dirs {
		if d.Kind == "CHECK-NOT" {
			nots = append(nots, d)
			continue
		}
		re, defs, err := compile(d.Pattern, vars)
		if err != nil {
			return fail(d, cur, "bad pattern: %v", err)
		}
		from, to := cur, len(output)
		switch d.Kind {
		case "CHECK-NEXT":
			if lastLine < 0 {
				return fail(d, cur, "CHECK-NEXT without a previous match")
			}
			next := lineEnd(lastLine) + 1
			if next > len(output) {
				return fail(d, cur, "no line after the previous match")
			}
			from, to = next, lineEnd(next)
		case "CHECK-SAME":
			if lastLine < 0 {
				return fail(d, cur, "CHECK-SAME without a previous match")
			}
			to = lineEnd(cur)
		}
		m := re.FindStringSubmatchIndex(output[from:to])
		if m == nil {
			return fail(d, from, "no match")
		}
		start, end := from+m[0], from+m[1]
		if err := checkNots(cur, start); err != nil {
			return err
		}
		for i, name := range defs {
			vars[name] = output[from+m[2+2*i] : from+m[3+2*i]]
		}
		cur, lastLine = end, lineStart(start)
	}
	return checkNots(cur, len(output))
}

func excerpt(s string, off int) string {
	start := off
	for i := 0; i < 2 && start > 0; i++ {
		start = strings.LastIndexByte(s[:start-1], '\n') + 1
	}
	end := off
	for i := 0; i < 4 && end < len(s); i++ {
		if j := strings.IndexByte(s[end:], '\n'); j >= 0 {
			end += j + 1
		} else {
			end = len(s)
		}
	}
	return s[start:off] + "<<HERE>>" + s[off:end]
}
