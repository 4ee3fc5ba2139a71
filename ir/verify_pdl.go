package ir

// checkNoValues checks an op that takes and makes nothing
// (grid_dependency_wait, launch_dependents): the table's counts already say
// so; this also rejects regions and attributes, which such an op never has.
func (v *verifier) checkNoValues(op, _ *Op) bool {
	if len(op.Attrs) != 0 {
		v.errf(op, "%s takes no attributes", op.Kind)
	}
	return true
}
