package lower

import "github.com/tlego/tle/ir"

// noValues lowers a builtin statement with no arguments and no value
// (grid_dependency_wait, launch_dependents) to its op, at the call.
func (s *fn) noValues(a *args, kind ir.Kind) *val {
	s.b.Pos = a.call.Pos()
	s.b.Create(kind, nil, nil, nil)
	return &val{}
}
