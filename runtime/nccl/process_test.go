package nccl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// One process per rank, as torchrun starts them: the test binary runs
// itself once per rank with RANK, WORLD_SIZE, LOCAL_RANK and the
// rendezvous in the environment, and each child makes its communicator
// with the fake NCCL ($TLE_NCCL) and prints the id it got.
func TestProcessesRendezvous(t *testing.T) {
	lib := fakeLibPath(t)
	for _, how := range []string{"tcp", "file"} {
		t.Run(how, func(t *testing.T) {
			const n = 3
			env := []string{"TLE_NCCL_CHILD=1", "TLE_NCCL=" + lib, "WORLD_SIZE=" + fmt.Sprint(n)}
			if how == "tcp" {
				_, port, _ := strings.Cut(freePort(t), ":")
				env = append(env, "MASTER_ADDR=127.0.0.1", "TLE_NCCL_PORT="+port)
			} else {
				env = append(env, "TLE_NCCL_ID_FILE="+filepath.Join(t.TempDir(), "id"))
			}
			cmds := make([]*exec.Cmd, n)
			outs := make([]*strings.Builder, n)
			for r := range n {
				cmds[r] = exec.Command(os.Args[0], "-test.run=^TestProcessChild$")
				cmds[r].Env = append(os.Environ(), append(env, fmt.Sprintf("RANK=%d", r), fmt.Sprintf("LOCAL_RANK=%d", r))...)
				outs[r] = &strings.Builder{}
				cmds[r].Stdout, cmds[r].Stderr = outs[r], outs[r]
				if err := cmds[r].Start(); err != nil {
					t.Fatal(err)
				}
			}
			ids := map[string]bool{}
			for r := range n {
				if err := cmds[r].Wait(); err != nil {
					t.Fatalf("rank %d: %v\n%s", r, err, outs[r])
				}
				line := ""
				for _, l := range strings.Split(outs[r].String(), "\n") {
					if strings.HasPrefix(l, "child: ") {
						line = l
					}
				}
				want := fmt.Sprintf("child: rank %d of %d, init ncclCommInitRankScalable(nranks=3, rank=%d, nId=1, ", r, n, r)
				if !strings.HasPrefix(line, want) {
					t.Fatalf("rank %d said %q, want %q...\n%s", r, line, want, outs[r])
				}
				ids[line[strings.Index(line, "id="):]] = true
			}
			if len(ids) != 1 {
				t.Errorf("the processes got different ids: %v", ids)
			}
		})
	}
}

// TestProcessChild is a rank of TestProcessesRendezvous (it does nothing
// in a normal test run).
func TestProcessChild(t *testing.T) {
	if os.Getenv("TLE_NCCL_CHILD") != "1" {
		t.Skip("a child of TestProcessesRendezvous")
	}
	l, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := RendezvousFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	rv.Timeout = 20 * time.Second
	c, err := l.JoinMesh(context.Background(), rv, newFakeDevices(rv.LocalRank + 1)[rv.LocalRank])
	if err != nil {
		t.Fatal(err)
	}
	init := ""
	for _, line := range fakeLog(t, l) {
		if strings.HasPrefix(line, "ncclCommInitRankScalable(") {
			init = line
		}
	}
	fmt.Printf("child: rank %d of %d, init %s\n", c.Rank, c.Size, init)
}
