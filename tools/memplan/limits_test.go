package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"memplan/ir"
)

// endless is a stream that never ends (a pipe from /dev/zero), counting
// what is read from it.
type endless struct{ read int64 }

func (e *endless) Read(p []byte) (int, error) {
	clear(p)
	e.read += int64(len(p))
	return len(p), nil
}

// A stream is read no further than one byte past what the memory limit
// allows, then refused; a file of known size is refused unread.
func TestReadLimitedStopsAtTheLimit(t *testing.T) {
	const limit = 64 << 20 // allows 8 MiB of input
	s := &endless{}
	_, err := readLimited("/dev/stdin", s, -1, limit)
	var mem *ir.MemoryError
	if !errors.As(err, &mem) || !strings.Contains(err.Error(), "/dev/stdin: reading more than 8 MiB needs more than 64 MiB, over the memory limit of 64 MiB") {
		t.Fatalf("error %v, want a memory error for the stream", err)
	}
	if s.read > 8<<20+64<<10 { // the limit, and one read's buffer past it
		t.Fatalf("read %d bytes of the stream, want no more than the 8 MiB allowed and a little", s.read)
	}
	s = &endless{}
	if _, err := readLimited("big.json", s, 2<<30, limit); !errors.As(err, &mem) || s.read != 0 {
		t.Fatalf("a 2 GiB file: error %v after reading %d bytes, want a memory error before reading", err, s.read)
	}
	data, err := readLimited("small.json", io.LimitReader(&endless{}, 100), 100, limit)
	if err != nil || len(data) != 100 {
		t.Fatalf("a small file: %d bytes, %v", len(data), err)
	}
}

// Every command that reads a file refuses one that is too large for
// --max-memory before reading it: a sparse 2 GiB file costs nothing to
// make, and reading it would take seconds and gigabytes.
func TestEveryCommandChecksSizeBeforeReading(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	record := filepath.Join(dir, "mlp.plan.json")
	if code, _, errs := runCLI(t, "plan", "--json", "-o", record, "../../examples/mlp.json"); code != exitOK {
		t.Fatalf("plan: exit %d: %s", code, errs)
	}
	const want = "big.json: reading 2 GiB needs about 16 GiB, over the memory limit of 64 MiB (raise it with --max-memory)"
	tests := [][]string{
		{"plan", big},
		{"plan", "--forward", big, "../../examples/train-backward.json"},
		{"verify", "../../examples/mlp.json", big},
		{"verify", big, record},
		{"diff", big, "../../examples/mlp.json"},
		{"diff", record, big},
		{"explain", big, "x"},
		{"fit", "--symbol", "batch", "--webgpu", "default", big},
		{"estimate", "--budget", "1GiB", big},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errs := runCLI(t, append(args, "--max-memory", "64MiB")...)
			if code != exitBadInput || !strings.Contains(errs, want) || out != "" {
				t.Errorf("exit %d, want %d\nstdout: %.200s\nstderr: %.300s\nwant stderr containing %q", code, exitBadInput, out, errs, want)
			}
		})
	}
}
