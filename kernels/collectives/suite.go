package collectives

import (
	"flag"
	"fmt"

	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/tle"
)

func init() {
	for _, name := range []string{"allreduce", "allgather", "reducescatter"} {
		registry.RegisterSuite(suite(name))
	}
}

var suiteDocs = map[string]string{
	"allreduce":     "all-reduce (one-shot and two-shot .tle kernels) beside NCCL's ncclAllReduce on a mesh of GPUs",
	"allgather":     "all-gather (.tle) beside NCCL's ncclAllGather on a mesh of GPUs",
	"reducescatter": "reduce-scatter (.tle) beside NCCL's ncclReduceScatter on a mesh of GPUs",
}

func suite(name string) *registry.Suite {
	factor := "2(n-1)/n"
	size := "each rank's buffer"
	if name != "allreduce" {
		factor, size = "(n-1)/n", "the whole gathered buffer"
		if name == "reducescatter" {
			size = "the whole buffer each rank reduces"
		}
	}
	return &registry.Suite{
		Name: name,
		Mesh: true,
		Doc:  suiteDocs[name],
		Help: fmt.Sprintf(`The %s suite runs the collective of kernels/collectives on --devices N
GPUs of this host (one process; NCCL found as docs/distributed.md says),
over sizes from --min to --max bytes (powers of two; default 4KiB to
1GiB, as nccl-tests runs them), in --dtype bf16 or f32, and NCCL's own
collective through the same binding, in the same session. The size is
%s, as nccl-tests counts it (rounded down to a
multiple of the devices). A row's rate is the bus bandwidth as
nccl-tests defines it: algbw = size / time, busbw = algbw * %s; its
facts hold algbw and, for the .tle kernels, the largest difference from
NCCL's output relative to its largest value. Times are the host's wall
clock around a launch on every GPU until all finish (nccl-tests measures
the same way); --block sets the elements per program (a power of two,
32 to 8192). --dry-run lists the cases without a GPU or NCCL.`, name, size, factor),
		Flags: func(fs *flag.FlagSet) func() (registry.Bench, error) {
			devices := fs.Int("devices", 8, "GPUs of the mesh (`N`)")
			dtype := fs.String("dtype", "bf16", "the element dtype: bf16 or f32")
			lo := fs.String("min", "4KiB", "the smallest size (bytes; K, M, G suffixes)")
			hi := fs.String("max", "1GiB", "the largest size")
			block := fs.Int("block", DefaultBlock, "elements per program, a power of two from 32 to 8192")
			return func() (registry.Bench, error) {
				a, err := ParseBytes(*lo)
				if err != nil {
					return nil, registry.ArgErr("--min", "%v", err)
				}
				b, err := ParseBytes(*hi)
				if err != nil {
					return nil, registry.ArgErr("--max", "%v", err)
				}
				if a > b {
					return nil, registry.ArgErr("--min", "%s is above --max %s", *lo, *hi)
				}
				o := BenchOptions{Devices: *devices, DType: *dtype, Sizes: Sizes(a, b), Block: *block}
				if _, err := Cases(name, o); err != nil {
					return nil, err
				}
				return registry.BenchOf[Result]{Row: Result.Row, Bench: func(g *tle.GPU, ro registry.RunOptions) ([]Result, error) {
					o.RunOptions = ro
					return Bench(g, name, o)
				}}, nil
			}
		},
	}
}
