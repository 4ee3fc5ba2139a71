package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/tlego/tle/kernels"
	"github.com/tlego/tle/kernels/registry"
	"github.com/tlego/tle/runtime/npy"
	"github.com/tlego/tle/tle"
)

type opFlags struct {
	in, out string
	device  string
}

func init() {
	register(&command{
		name:    "op",
		usage:   "list | NAME --in DIR --out DIR [--device auto|cpu|cuda]",
		summary: "run a registered op (such as kda_fwd or attn_decode) on .npy files",
		help: `Op runs a registered op: kernels with their host side, which take tensors
and scalar parameters. "tlec op list" lists the ops with their inputs,
parameters and outputs.

"tlec op NAME --in DIR --out DIR" reads each input of the op from
DIR/INPUT.npy (optional inputs may be absent; float data is converted to
the kernel's dtypes, rounding to nearest even) and the parameters from
DIR/params.json (a JSON object; absent means no parameters). Everything is
validated before anything runs: an error names the argument, and nothing is
written. After the op succeeds it writes each output as DIR/OUTPUT.npy under
--out (created when missing; f32 files), each through a temporary file
renamed into place.

--device cpu runs the op's .tle kernels on the interpreter; cuda on the GPU;
auto (the default) takes the GPU when one is present, else the interpreter,
and says which on standard error.

Example (KDA forward; h0.npy and cu_seqlens.npy are optional):
  DIR holds q.npy k.npy v.npy g.npy beta.npy A_log.npy dt_bias.npy
  and params.json: {"scale": 0.0884, "lower_bound": -5, "state_dtype": "f32"}
  tlec op kda_fwd --in DIR --out OUT     writes OUT/o.npy (and OUT/ht.npy)

Example (paged decode attention, issue 15's files):
  DIR holds q.npy k_cache.npy v_cache.npy block_ids.npy kv_lens.npy
  (fp8 adds q_scale.npy k_scale.npy v_scale.npy) and params.json:
  {"layout": "nhd", "sq": 1, "dtype": "fp8", "quant_type": 1}
  tlec op attn_decode --in DIR --out OUT writes OUT/o.npy and OUT/lse.npy
  (natural log)

Example (paged prefill attention, issue 16's files):
  DIR holds q.npy cu_seqlens_q.npy k_cache.npy v_cache.npy block_ids.npy
  kv_lens.npy and params.json: {"layout": "hnd", "dtype": "bf16"}
  tlec op attn_prefill --in DIR --out OUT writes OUT/o.npy and OUT/lse.npy`,
		flags: func(fs *flag.FlagSet) any {
			o := &opFlags{}
			fs.StringVar(&o.in, "in", "", "the directory of the input .npy files and params.json")
			fs.StringVar(&o.out, "out", "", "the directory the outputs are written to (created when missing)")
			fs.StringVar(&o.device, "device", "auto", "auto, cpu or cuda")
			return o
		},
		run: runOp,
	})
}

// validator is implemented by ops that can check their arguments without
// running: tlec op calls it before it opens a device.
type validator interface {
	Validate(in map[string]*npy.Array, params map[string]any) error
}

func runOp(e *env, cfg any, args []string) int {
	o := cfg.(*opFlags)
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(e.stderr, "tlec op: "+format+"\n", a...)
		return code
	}
	if len(args) == 0 {
		return fail(2, "name an op, or list (ops: %s)", opNames())
	}
	if len(args) > 1 {
		return fail(2, "unexpected arguments after %s: %s", args[0], strings.Join(args[1:], " "))
	}
	if args[0] == "list" {
		if o.in != "" || o.out != "" {
			return fail(2, "list takes no --in or --out")
		}
		printOps(e)
		return 0
	}
	op, ok := kernels.Lookup(args[0])
	if !ok {
		return fail(2, "unknown op %q (ops: %s)", args[0], opNames())
	}
	name := op.Name()
	if o.in == "" {
		return fail(2, "%s: --in DIR is required", name)
	}
	if o.out == "" {
		return fail(2, "%s: --out DIR is required", name)
	}
	if o.device != "auto" && o.device != "cpu" && o.device != "cuda" {
		return fail(2, "%s: --device %q: want auto, cpu or cuda", name, o.device)
	}
	if st, err := os.Stat(o.in); err != nil {
		return fail(1, "%s: --in %s: %v", name, o.in, err)
	} else if !st.IsDir() {
		return fail(1, "%s: --in %s is not a directory", name, o.in)
	}
	if err := registry.CheckOutDir(o.out); err != nil {
		return fail(1, "%s: --out %v", name, err)
	}

	// Read and validate everything before running.
	inputs, params, err := registry.ReadDir(op, o.in)
	if err != nil {
		return fail(1, "%s: %v", name, err)
	}
	if v, ok := op.(validator); ok {
		if err := v.Validate(inputs, params); err != nil {
			return fail(1, "%s: %v", name, err)
		}
	}
	dev, err := opDevice(e, o.device)
	if err != nil {
		return fail(1, "%s: --device %s: %v", name, o.device, err)
	}
	outs, err := op.Run(dev, inputs, params)
	if err != nil {
		return fail(1, "%s: %v", name, err)
	}
	stale, err := registry.WriteOutputs(o.out, op, outs)
	if err != nil {
		return fail(1, "%s: --out %s: %v", name, o.out, err)
	}
	for _, s := range stale {
		fmt.Fprintf(e.stderr, "tlec op: %s: removed %s, an output of an earlier run that this run does not write\n", name, s)
	}
	return 0
}

func opDevice(e *env, name string) (tle.Device, error) {
	switch name {
	case "cpu":
		return tle.CPU(), nil
	case "cuda":
		return tle.CUDA()
	}
	g, err := tle.OpenGPU()
	if err != nil {
		fmt.Fprintf(e.stderr, "tlec op: %s: the interpreter runs the op\n", noGPU(err))
		return tle.CPU(), nil
	}
	fmt.Fprintf(e.stderr, "tlec op: device %s\n", g.Name())
	return g, nil
}

func opNames() string {
	var s []string
	for _, op := range kernels.Ops() {
		s = append(s, op.Name())
	}
	return strings.Join(s, ", ")
}

func printOps(e *env) {
	for i, op := range kernels.Ops() {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s\t%s\n", op.Name(), op.Doc())
		w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		section := func(title string, args []registry.Arg) {
			for _, a := range args {
				opt := ""
				if a.Optional {
					opt = " (optional)"
				}
				fmt.Fprintf(w, "  %s\t%s%s\t%s\n", title, a.Name, opt, a.Doc)
				title = ""
			}
		}
		section("inputs", op.Inputs())
		section("params", op.Params())
		section("outputs", op.Outputs())
		w.Flush()
	}
}
