package kernels

import (
	"github.com/tlego/tle/kernels/registry"

	// Every package that registers an op or a bench suite.
	_ "github.com/tlego/tle/kernels/attention/decode"
	_ "github.com/tlego/tle/kernels/attention/prefill"
	_ "github.com/tlego/tle/kernels/collectives"
	_ "github.com/tlego/tle/kernels/kda"
	_ "github.com/tlego/tle/kernels/tutorials"
)

// Ops lists the registered ops, sorted by name.
func Ops() []registry.Op { return registry.List() }

// Lookup finds a registered op by name.
func Lookup(name string) (registry.Op, bool) { return registry.Lookup(name) }

// Suites lists the registered bench suites, sorted by name.
func Suites() []*registry.Suite { return registry.Suites() }
