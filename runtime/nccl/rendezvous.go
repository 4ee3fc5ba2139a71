package nccl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Rendezvous says who this process is in a mesh of processes (one per
// GPU) and how rank 0's unique id reaches the others: through a file
// (IDFile) or a TCP exchange (Addr: rank 0 listens, the others connect).
type Rendezvous struct {
	Rank, World, LocalRank int
	IDFile                 string        // a path every rank sees
	Addr                   string        // host:port of rank 0's listener
	Timeout                time.Duration // for the whole exchange; 0: DefaultTimeout
}

// DefaultTimeout bounds a rendezvous.
const DefaultTimeout = 60 * time.Second

// RendezvousFromEnv reads the variables torchrun sets: RANK, WORLD_SIZE,
// LOCAL_RANK (default RANK), and MASTER_ADDR and MASTER_PORT; the id goes
// through the file $TLE_NCCL_ID_FILE when set, else over TCP to
// MASTER_ADDR (default 127.0.0.1) at port $TLE_NCCL_PORT, or MASTER_PORT+1
// (torchrun's own store holds MASTER_PORT).
func RendezvousFromEnv() (Rendezvous, error) {
	num := func(name string, def int, need bool) (int, error) {
		v, ok := os.LookupEnv(name)
		if !ok || strings.TrimSpace(v) == "" {
			if need {
				return 0, fmt.Errorf("nccl: $%s is not set (a process of a GPU mesh needs RANK and WORLD_SIZE, as torchrun sets them)", name)
			}
			return def, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, fmt.Errorf("nccl: $%s=%q is not a non-negative integer", name, v)
		}
		return n, nil
	}
	var r Rendezvous
	var err error
	if r.Rank, err = num("RANK", 0, true); err != nil {
		return r, err
	}
	if r.World, err = num("WORLD_SIZE", 0, true); err != nil {
		return r, err
	}
	if r.LocalRank, err = num("LOCAL_RANK", r.Rank, false); err != nil {
		return r, err
	}
	if r.World < 1 || r.Rank >= r.World {
		return r, fmt.Errorf("nccl: $RANK=%d is out of range for $WORLD_SIZE=%d", r.Rank, r.World)
	}
	if f := os.Getenv("TLE_NCCL_ID_FILE"); f != "" {
		r.IDFile = f
		return r, nil
	}
	host := os.Getenv("MASTER_ADDR")
	if host == "" {
		host = "127.0.0.1"
	}
	port, err := num("TLE_NCCL_PORT", -1, false)
	if err != nil {
		return r, err
	}
	if port < 0 {
		mp, err := num("MASTER_PORT", -1, false)
		if err != nil {
			return r, err
		}
		if mp < 0 {
			return r, errors.New("nccl: neither $TLE_NCCL_ID_FILE, $TLE_NCCL_PORT nor $MASTER_PORT is set: no way to share the unique id")
		}
		port = mp + 1
	}
	if port < 1 || port > 65535 {
		return r, fmt.Errorf("nccl: the rendezvous port %d is out of range", port)
	}
	r.Addr = net.JoinHostPort(host, strconv.Itoa(port))
	return r, nil
}

// ShareID gives every rank rank 0's unique id: rank 0 calls newID and
// sends the id; the others receive it. It fails after the timeout when a
// rank does not show up, and when the ranks disagree on the world size.
func (r Rendezvous) ShareID(ctx context.Context, newID func() (UniqueID, error)) (UniqueID, error) {
	var id UniqueID
	if r.World < 1 || r.Rank < 0 || r.Rank >= r.World {
		return id, fmt.Errorf("nccl: rank %d of a world of %d", r.Rank, r.World)
	}
	to := r.Timeout
	if to <= 0 {
		to = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, to)
	defer cancel()
	if r.Rank == 0 {
		var err error
		if id, err = newID(); err != nil {
			return id, err
		}
	}
	switch {
	case r.World == 1:
		return id, nil
	case r.IDFile != "":
		return id, r.fileExchange(ctx, &id)
	case r.Addr != "":
		return id, r.tcpExchange(ctx, &id)
	}
	return id, errors.New("nccl: the rendezvous has neither an IDFile nor an Addr")
}

// The exchange's messages: a rank's hello is "TLE-NCCL <rank> <world>\n";
// rank 0 answers with the 128 id bytes, or "ERR <text>\n" padded.
const helloPrefix = "TLE-NCCL "

func (r Rendezvous) tcpExchange(ctx context.Context, id *UniqueID) error {
	deadline, _ := ctx.Deadline()
	if r.Rank == 0 {
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", r.Addr)
		if err != nil {
			return fmt.Errorf("nccl: rank 0 listening on %s for the other ranks: %w", r.Addr, err)
		}
		defer ln.Close()
		stop := context.AfterFunc(ctx, func() { ln.Close() })
		defer stop()
		seen := map[int]bool{}
		for len(seen) < r.World-1 {
			conn, err := ln.Accept()
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("nccl: rank 0 waited %v at %s and heard from %d of the %d other ranks", r.timeout(), r.Addr, len(seen), r.World-1)
				}
				return fmt.Errorf("nccl: rank 0 at %s: %w", r.Addr, err)
			}
			peer, err := serveHello(conn, deadline, r.World, id, seen)
			if err != nil {
				return err
			}
			seen[peer] = true
		}
		return nil
	}
	var d net.Dialer
	var conn net.Conn
	for {
		var err error
		conn, err = d.DialContext(ctx, "tcp", r.Addr)
		if err == nil {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("nccl: rank %d could not reach rank 0 at %s within %v: %w", r.Rank, r.Addr, r.timeout(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	if _, err := fmt.Fprintf(conn, "%s%d %d\n", helloPrefix, r.Rank, r.World); err != nil {
		return fmt.Errorf("nccl: rank %d to rank 0: %w", r.Rank, err)
	}
	if _, err := io.ReadFull(conn, id[:]); err != nil {
		return fmt.Errorf("nccl: rank %d reading the unique id from rank 0 at %s: %w", r.Rank, r.Addr, err)
	}
	if bytes.HasPrefix(id[:], []byte("ERR ")) {
		return fmt.Errorf("nccl: rank 0 refused rank %d: %s", r.Rank, strings.TrimRight(string(id[4:]), "\x00\n"))
	}
	return nil
}

func (r Rendezvous) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return DefaultTimeout
}

// serveHello reads one rank's hello and answers it.
func serveHello(conn net.Conn, deadline time.Time, world int, id *UniqueID, seen map[int]bool) (int, error) {
	defer conn.Close()
	conn.SetDeadline(deadline)
	buf := make([]byte, 64)
	n := 0
	for n < len(buf) && (n == 0 || buf[n-1] != '\n') {
		m, err := conn.Read(buf[n : n+1])
		if err != nil {
			return 0, fmt.Errorf("nccl: rank 0 reading a hello: %w", err)
		}
		n += m
	}
	var rank, w int
	if _, err := fmt.Sscanf(string(buf[:n]), helloPrefix+"%d %d\n", &rank, &w); err != nil {
		return 0, fmt.Errorf("nccl: rank 0 got a hello it does not understand: %q", buf[:n])
	}
	refuse := func(msg string) (int, error) {
		var out UniqueID
		copy(out[:], "ERR "+msg)
		conn.Write(out[:])
		return 0, fmt.Errorf("nccl: rank 0: %s", msg)
	}
	switch {
	case w != world:
		return refuse(fmt.Sprintf("rank %d says the world has %d ranks, rank 0 says %d", rank, w, world))
	case rank < 1 || rank >= world:
		return refuse(fmt.Sprintf("rank %d is out of range for a world of %d", rank, world))
	case seen[rank]:
		return refuse(fmt.Sprintf("rank %d joined twice", rank))
	}
	if _, err := conn.Write(id[:]); err != nil {
		return 0, fmt.Errorf("nccl: rank 0 sending the id to rank %d: %w", rank, err)
	}
	return rank, nil
}

// fileExchange: rank 0 writes "<world>\n" and the id to IDFile (through a
// temporary file and a rename, so no rank reads half of it); each other
// rank reads it and leaves IDFile.ack<rank>; rank 0 removes them all once
// every rank has read it.
func (r Rendezvous) fileExchange(ctx context.Context, id *UniqueID) error {
	poll := func(what string, f func() (bool, error)) error {
		for {
			ok, err := f()
			if ok || err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("nccl: rank %d waited %v for %s", r.Rank, r.timeout(), what)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	head := fmt.Sprintf("tle-nccl-id %d\n", r.World)
	if r.Rank == 0 {
		tmp := fmt.Sprintf("%s.tmp%d", r.IDFile, os.Getpid())
		if err := os.WriteFile(tmp, append([]byte(head), id[:]...), 0o600); err != nil {
			return fmt.Errorf("nccl: rank 0 writing the unique id: %w", err)
		}
		if err := os.Rename(tmp, r.IDFile); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("nccl: rank 0 writing the unique id: %w", err)
		}
		defer os.Remove(r.IDFile)
		for k := 1; k < r.World; k++ {
			ack := fmt.Sprintf("%s.ack%d", r.IDFile, k)
			err := poll(fmt.Sprintf("rank %d to read %s", k, r.IDFile), func() (bool, error) {
				_, err := os.Stat(ack)
				return err == nil, nil
			})
			os.Remove(ack)
			if err != nil {
				return err
			}
		}
		return nil
	}
	err := poll("rank 0's unique id in "+r.IDFile, func() (bool, error) {
		b, err := os.ReadFile(r.IDFile)
		if err != nil || len(b) < len(head) {
			return false, nil
		}
		var w int
		if _, err := fmt.Sscanf(string(b), "tle-nccl-id %d\n", &w); err != nil {
			return false, fmt.Errorf("nccl: %s is not a unique-id file", r.IDFile)
		}
		if w != r.World {
			return false, fmt.Errorf("nccl: %s is for a world of %d ranks, rank %d is in one of %d", r.IDFile, w, r.Rank, r.World)
		}
		i := bytes.IndexByte(b, '\n') + 1
		if len(b)-i != len(id) {
			return false, nil
		}
		copy(id[:], b[i:])
		return true, nil
	})
	if err != nil {
		return err
	}
	return os.WriteFile(fmt.Sprintf("%s.ack%d", r.IDFile, r.Rank), nil, 0o600)
}

// JoinMesh is the process-per-GPU start: the rendezvous from the
// environment (RendezvousFromEnv), the id shared, and this rank's
// communicator on dev (normally the GPU numbered LOCAL_RANK).
func (l *Library) JoinMesh(ctx context.Context, rv Rendezvous, dev Device) (*Comm, error) {
	id, err := rv.ShareID(ctx, l.UniqueID)
	if err != nil {
		return nil, err
	}
	return l.InitRank(id, rv.World, rv.Rank, dev)
}
