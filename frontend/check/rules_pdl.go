package check

// noArgs checks a builtin statement that takes nothing and gives no value
// (grid_dependency_wait, launch_dependents): the binder has already
// rejected any argument, so nothing is left to check.
func (c *checker) noArgs(*callCtx) Type { return NoValue }
