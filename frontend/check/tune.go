package check

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/tlego/tle/frontend/ast"
)

// This file checks tune blocks (ast.TuneDecl) and gives each kernel's
// tuning space as a TuneSpace: its key with the bucketing rules, its grid,
// its configurations (the named ones, then the product of the space's
// lists, each completed from the default) and the default. Its values are
// integer constants; where and grid are integer expressions, evaluated by
// EvalTune.

// TuneLaunchOptions are the names a configuration may bind beside the
// kernel's const parameters: the warps of a kernel without
// warp_specialize (CompileOptions.NumWarps), the CTAs per SM asked of
// ptxas (MinCTAsPerSM) and the compiler's pipeline depth (NumStages), with
// the values each may take and the value a where sees when a
// configuration leaves it unbound (the compiler's default).
var TuneLaunchOptions = map[string]struct{ Min, Max, Default int64 }{
	"warps":       {1, 32, 4},
	"ctas_per_sm": {1, 32, 0},
	"stages":      {1, 8, 3},
}

// MaxTuneConfigs bounds a tuning space (named configurations plus the
// space's product).
const MaxTuneConfigs = 4096

// TuneKey is one runtime argument of the key and its bucketing rule.
type TuneKey struct {
	Name string
	// Rule is "exact", "pow2" (the next power of two at or above the
	// value) or "mult" (the next multiple of Mult).
	Rule string
	Mult int64
}

// Bucket is v in its bucket.
func (k TuneKey) Bucket(v int64) int64 {
	switch k.Rule {
	case "pow2":
		if v <= 1 {
			return 1
		}
		return int64(1) << bits.Len64(uint64(v-1))
	case "mult":
		return (v + k.Mult - 1) / k.Mult * k.Mult
	}
	return v
}

// TuneConfig is one configuration: its bindings of const parameters and
// launch options.
type TuneConfig struct {
	// Name is the config's name, or its bindings for a point of the space.
	Name string
	Vals map[string]int64
	// Excluded says which where constraint the configuration fails ("" if
	// none): it is listed, never built.
	Excluded string
}

// ID is the configuration's identity: its bindings, sorted. Two configs of
// equal bindings are one; a renamed config keeps its identity.
func (c TuneConfig) ID() string {
	names := make([]string, 0, len(c.Vals))
	for n := range c.Vals {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%d", n, c.Vals[n])
	}
	return b.String()
}

// TuneSpace is a kernel's checked tune block.
type TuneSpace struct {
	Kernel  string
	Keys    []TuneKey
	Grid    []ast.Expr // nil: the caller gives the grid
	Where   []ast.Expr
	Default TuneConfig
	Configs []TuneConfig // the default first, then the named configs, then the space; no two with one ID
}

// EvalTune evaluates an integer expression of a tune block (a where
// condition, a grid dimension) over env: names, integer literals,
// arithmetic, comparisons and && || ! (true is 1), cdiv, min and max.
func EvalTune(e ast.Expr, env map[string]int64) (int64, error) {
	switch e := e.(type) {
	case *ast.Ident:
		v, ok := env[e.Name]
		if !ok {
			return 0, fmt.Errorf("%s is not bound", e.Name)
		}
		return v, nil
	case *ast.BasicLit:
		if e.Kind != ast.Int {
			return 0, fmt.Errorf("%s is not an integer", e.Value)
		}
		return strconv.ParseInt(strings.ReplaceAll(e.Value, "_", ""), 0, 64)
	case *ast.ParenExpr:
		return EvalTune(e.X, env)
	case *ast.UnaryExpr:
		x, err := EvalTune(e.X, env)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case "-":
			return -x, nil
		case "+":
			return x, nil
		case "!":
			return b2i(x == 0), nil
		}
	case *ast.BinaryExpr:
		x, err := EvalTune(e.X, env)
		if err != nil {
			return 0, err
		}
		y, err := EvalTune(e.Y, env)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case "+":
			return x + y, nil
		case "-":
			return x - y, nil
		case "*":
			return x * y, nil
		case "/", "%":
			if y == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			if e.Op == "/" {
				return x / y, nil
			}
			return x % y, nil
		case "<<":
			return x << uint64(y&63), nil
		case ">>":
			return x >> uint64(y&63), nil
		case "&":
			return x & y, nil
		case "|":
			return x | y, nil
		case "==":
			return b2i(x == y), nil
		case "!=":
			return b2i(x != y), nil
		case "<":
			return b2i(x < y), nil
		case "<=":
			return b2i(x <= y), nil
		case ">":
			return b2i(x > y), nil
		case ">=":
			return b2i(x >= y), nil
		case "&&":
			return b2i(x != 0 && y != 0), nil
		case "||":
			return b2i(x != 0 || y != 0), nil
		}
	case *ast.CallExpr:
		fn, _ := e.Fun.(*ast.Ident)
		if fn != nil && len(e.Args) == 2 && (fn.Name == "cdiv" || fn.Name == "min" || fn.Name == "max") {
			x, err := EvalTune(e.Args[0].Value, env)
			if err != nil {
				return 0, err
			}
			y, err := EvalTune(e.Args[1].Value, env)
			if err != nil {
				return 0, err
			}
			switch fn.Name {
			case "cdiv":
				if y == 0 {
					return 0, fmt.Errorf("division by zero")
				}
				return (x + y - 1) / y, nil
			case "min":
				return min(x, y), nil
			default:
				return max(x, y), nil
			}
		}
	}
	return 0, fmt.Errorf("not an expression a tune block takes (integers, names, arithmetic, comparisons, cdiv, min, max)")
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// tuneNames checks that every name e uses is among ok, at the name.
func (c *checker) tuneNames(e ast.Expr, ok func(string) bool, what string) bool {
	good := true
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if fn, isID := n.Fun.(*ast.Ident); !isID || (fn.Name != "cdiv" && fn.Name != "min" && fn.Name != "max") || len(n.Args) != 2 {
				c.errorf(n, "a tune block calls only cdiv, min and max, with two arguments")
				good = false
				return false
			}
			for _, a := range n.Args {
				if a.Name != nil {
					c.errorf(a.Name, "cdiv, min and max take no keyword arguments here")
					good = false
				}
				c.tuneNames(a.Value, ok, what)
			}
			return false
		case *ast.Ident:
			if !ok(n.Name) {
				c.errorf(n, "%s is not %s", n.Name, what)
				good = false
			}
		case *ast.BasicLit:
			if n.Kind != ast.Int {
				c.errorf(n, "a tune block's values are integers, not %s", n.Value)
				good = false
			}
		case *ast.ListExpr, *ast.IndexExpr, *ast.SliceExpr, *ast.SelectorExpr:
			c.errorf(n, "not an expression a tune block takes (integers, names, arithmetic, comparisons, cdiv, min, max)")
			good = false
			return false
		}
		return true
	})
	return good
}

// tunes checks every tune block and records the spaces in Info.Tunes.
func (c *checker) tunes() {
	c.info.Tunes = map[string]*TuneSpace{}
	seen := map[string]*ast.TuneDecl{}
	for _, d := range c.file.Decls {
		t, ok := d.(*ast.TuneDecl)
		if !ok {
			continue
		}
		var k *ast.KernelDecl
		for _, d := range c.file.Decls {
			if kd, ok := d.(*ast.KernelDecl); ok && kd.Name.Name == t.Name.Name {
				k = kd
			}
		}
		if k == nil {
			c.errorf(t.Name, "tune %s: no kernel %s in this file", t.Name.Name, t.Name.Name)
			continue
		}
		if prev := seen[k.Name.Name]; prev != nil {
			c.errorf(t.Name, "kernel %s has a second tune block (the first is at line %d)", k.Name.Name, c.line(prev.Pos()))
			continue
		}
		seen[k.Name.Name] = t
		if s := c.tune(t, k); s != nil {
			c.info.Tunes[k.Name.Name] = s
		}
	}
}

func intTypeName(t ast.TypeExpr) bool {
	nt, ok := t.(*ast.NamedType)
	if !ok {
		return false
	}
	switch nt.Name.Name {
	case "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64":
		return true
	}
	return false
}

func (c *checker) tune(t *ast.TuneDecl, k *ast.KernelDecl) *TuneSpace {
	nerr := len(c.errs)
	constParams, runtimeInts := map[string]bool{}, map[string]bool{}
	for _, p := range k.Params {
		switch {
		case p.Const && intTypeName(p.Type):
			constParams[p.Name.Name] = true
		case !p.Const && intTypeName(p.Type):
			runtimeInts[p.Name.Name] = true
		}
	}
	tc := &tuneCheck{c: c, k: k, constParams: constParams, runtimeInts: runtimeInts}
	bindable := tc.bindable
	s := &TuneSpace{Kernel: k.Name.Name}
	once := map[string]*ast.TuneItem{}
	configs := map[string]*ast.TuneItem{}
	named := map[string]map[string]int64{}
	var order []string
	var defItem, spaceItem *ast.TuneItem
	var defVals map[string]int64

	bindings := tc.bindings
	single := func(m map[string][]int64) map[string]int64 {
		out := map[string]int64{}
		for n, vs := range m {
			if len(vs) == 1 {
				out[n] = vs[0]
			}
		}
		return out
	}

	for _, it := range t.Items {
		switch it.Kind {
		case "key", "grid", "space", "default":
			if prev := once[it.Kind]; prev != nil {
				c.errorf(it, "a second %s (the first is at line %d)", it.Kind, c.line(prev.Pos()))
				continue
			}
			once[it.Kind] = it
		}
		switch it.Kind {
		case "key":
			s.Keys = append(s.Keys, tc.keys(it)...)
		case "grid":
			if len(it.Args) < 1 || len(it.Args) > 3 {
				c.errorf(it, "grid has %d dimensions: want 1 to 3", len(it.Args))
				continue
			}
			for _, a := range it.Args {
				if a.Name != nil {
					c.errorf(a.Name, "grid's dimensions are positional")
					continue
				}
				c.tuneNames(a.Value, func(n string) bool { return runtimeInts[n] || bindable(n) }, "an integer parameter of "+k.Name.Name)
				s.Grid = append(s.Grid, a.Value)
			}
		case "where":
			if c.tuneNames(it.Cond, bindable, "a const parameter of "+k.Name.Name+" nor a launch option") {
				s.Where = append(s.Where, it.Cond)
			}
		case "config":
			if prev := configs[it.Name.Name]; prev != nil {
				c.errorf(it.Name, "config %s is declared twice (the first is at line %d)", it.Name.Name, c.line(prev.Pos()))
				continue
			}
			configs[it.Name.Name] = it
			vals, _ := bindings(it, false)
			named[it.Name.Name] = single(vals)
			order = append(order, it.Name.Name)
		case "space":
			spaceItem = it
		case "default":
			defItem = it
		}
	}
	if defItem == nil {
		c.errorf(t.Name, "tune %s has no default (the configuration used untuned and on the interpreter): add default NAME or default(PARAM: value, ...)", k.Name.Name)
	} else if defItem.Name != nil {
		if named[defItem.Name.Name] == nil {
			c.errorf(defItem.Name, "default names no config: %s", defItem.Name.Name)
		} else {
			defVals = named[defItem.Name.Name]
			s.Default = TuneConfig{Name: defItem.Name.Name}
		}
	} else {
		vals, _ := bindings(defItem, false)
		defVals = single(vals)
		s.Default = TuneConfig{Name: "default"}
	}
	complete := func(name string, vals map[string]int64) TuneConfig {
		cfg := TuneConfig{Name: name, Vals: map[string]int64{}}
		for n, v := range defVals {
			cfg.Vals[n] = v
		}
		for n, v := range vals {
			cfg.Vals[n] = v
		}
		env := map[string]int64{}
		for n, o := range TuneLaunchOptions {
			env[n] = o.Default
		}
		for n, v := range cfg.Vals {
			env[n] = v
		}
		for _, w := range s.Where {
			v, err := EvalTune(w, env)
			if err != nil {
				cfg.Excluded = fmt.Sprintf("where %s: %v", c.exprText(w), err)
				break
			}
			if v == 0 {
				cfg.Excluded = "where " + c.exprText(w) + " is false"
				break
			}
		}
		return cfg
	}
	s.Default = complete(s.Default.Name, nil)
	ids := map[string]bool{}
	add := func(cfg TuneConfig) {
		if id := cfg.ID(); !ids[id] {
			ids[id] = true
			s.Configs = append(s.Configs, cfg)
		}
	}
	add(s.Default)
	for _, n := range order {
		add(complete(n, named[n]))
	}
	if spaceItem != nil {
		vals, names := bindings(spaceItem, true)
		total := 1
		for _, n := range names {
			total *= max(1, len(vals[n]))
			if total > MaxTuneConfigs {
				c.errorf(spaceItem, "the space has more than %d configurations", MaxTuneConfigs)
				return nil
			}
		}
		var walk func(i int, cur map[string]int64)
		walk = func(i int, cur map[string]int64) {
			if i == len(names) {
				var parts []string
				for _, n := range names {
					parts = append(parts, fmt.Sprintf("%s=%d", n, cur[n]))
				}
				add(complete(strings.Join(parts, ","), cur))
				return
			}
			for _, v := range vals[names[i]] {
				next := map[string]int64{}
				for n, x := range cur {
					next[n] = x
				}
				next[names[i]] = v
				walk(i+1, next)
			}
		}
		walk(0, map[string]int64{})
	}
	if defItem != nil && s.Default.Excluded != "" {
		c.errorf(defItem, "the default fails its own constraint: %s", s.Default.Excluded)
	}
	if len(c.errs) > nerr {
		return nil
	}
	return s
}

// tuneCheck is the state of checking one tune block against its kernel.
type tuneCheck struct {
	c           *checker
	k           *ast.KernelDecl
	constParams map[string]bool // the kernel's integer const parameters
	runtimeInts map[string]bool // its integer runtime parameters
}

// bindable reports what a configuration may bind: an integer const
// parameter or a launch option.
func (tc *tuneCheck) bindable(n string) bool {
	_, lo := TuneLaunchOptions[n]
	return tc.constParams[n] || lo
}

// bindings checks a tune item's NAME: value arguments; list allows
// [v, ...] values (space).
func (tc *tuneCheck) bindings(it *ast.TuneItem, list bool) (map[string][]int64, []string) {
	c, k, bindable := tc.c, tc.k, tc.bindable
	vals := map[string][]int64{}
	var names []string
	for _, a := range it.Args {
		if a.Name == nil {
			c.errorf(a.Value, "%s binds by name: PARAM: value", it.Kind)
			continue
		}
		n := a.Name.Name
		if !bindable(n) {
			c.errorf(a.Name, "%s is not an integer const parameter of %s nor a launch option (warps, ctas_per_sm, stages)", n, k.Name.Name)
			continue
		}
		if _, dup := vals[n]; dup {
			c.errorf(a.Name, "%s is bound twice", n)
			continue
		}
		elems := []ast.Expr{a.Value}
		if l, isList := a.Value.(*ast.ListExpr); isList && l.Elem == nil {
			if !list {
				c.errorf(a.Value, "a list of values belongs in space, not in %s", it.Kind)
				continue
			}
			if len(l.Elems) == 0 {
				c.errorf(a.Value, "%s has no values", n)
				continue
			}
			elems = l.Elems
		}
		var vs []int64
		for _, e := range elems {
			if !c.tuneNames(e, func(string) bool { return false }, "a value here: bind constants") {
				continue
			}
			v, err := EvalTune(e, nil)
			if err != nil {
				c.errorf(e, "%v", err)
				continue
			}
			if r, lo := TuneLaunchOptions[n]; lo && (v < r.Min || v > r.Max || (n == "warps" && v&(v-1) != 0)) {
				want := fmt.Sprintf("%d to %d", r.Min, r.Max)
				if n == "warps" {
					want = "a power of two from 1 to 32"
				}
				c.errorf(e, "%s %d: want %s", n, v, want)
				continue
			}
			vs = append(vs, v)
		}
		vals[n] = vs
		names = append(names, n)
	}
	return vals, names
}

// keys checks a key item: integer runtime parameters, each with its
// bucketing rule (pow2, exact or a multiple).
func (tc *tuneCheck) keys(it *ast.TuneItem) []TuneKey {
	c, k, runtimeInts := tc.c, tc.k, tc.runtimeInts
	var keys []TuneKey
	if len(it.Args) == 0 {
		c.errorf(it, "key names no argument")
	}
	keyed := map[string]bool{}
	for _, a := range it.Args {
		name, ruleX := a.Name, ast.Expr(nil)
		if name == nil {
			id, ok := a.Value.(*ast.Ident)
			if !ok {
				c.errorf(a.Value, "key takes runtime arguments: NAME or NAME: pow2 | exact | MULTIPLE")
				continue
			}
			name = id
		} else {
			ruleX = a.Value
		}
		if !runtimeInts[name.Name] {
			c.errorf(name, "%s is not an integer runtime parameter of %s: only those key a tuning", name.Name, k.Name.Name)
			continue
		}
		if keyed[name.Name] {
			c.errorf(name, "%s is keyed twice", name.Name)
			continue
		}
		keyed[name.Name] = true
		key := TuneKey{Name: name.Name, Rule: "exact"}
		switch r := ruleX.(type) {
		case nil:
		case *ast.Ident:
			if r.Name != "pow2" && r.Name != "exact" {
				c.errorf(r, "unknown bucketing rule %s (want pow2, exact or a multiple)", r.Name)
				continue
			}
			key.Rule = r.Name
		case *ast.BasicLit:
			m, err := EvalTune(r, nil)
			if err != nil || m <= 0 {
				c.errorf(r, "a bucket multiple is a positive integer, not %s", r.Value)
				continue
			}
			key.Rule, key.Mult = "mult", m
		default:
			c.errorf(ruleX, "unknown bucketing rule (want pow2, exact or a multiple)")
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// exprText is e's source text.
func (c *checker) exprText(e ast.Expr) string {
	return string(c.df.Src[e.Pos():e.End()])
}
