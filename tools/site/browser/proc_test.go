//go:build !js

package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestProcStat(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, stat, comm, ppid string
		ok                     bool
	}{
		{"plain", "42 (chromium) S 7 42 42 0", "chromium", "7", true},
		{"spaces and parentheses", "43 (a) (b c)) R 9 1 1 0", "a) (b c)", "9", true},
		{"no name", "44 S 9 1", "", "", false},
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, []byte(c.stat), 0o644); err != nil {
			t.Fatal(err)
		}
		comm, f, ok := ProcStat(path)
		if ok != c.ok || comm != c.comm || (ok && f[1] != c.ppid) {
			t.Errorf("%s: ProcStat = %q, %q, %v; want %q, parent %s, %v", c.name, comm, f, ok, c.comm, c.ppid, c.ok)
		}
	}
}

// A child of this test is in its tree; the test's parent is not.
func TestProcessTree(t *testing.T) {
	child := exec.Command("cat") // waits on its stdin until we close it
	in, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); child.Wait() }()
	tree := ProcessTree(os.Getpid())
	if !slices.Contains(tree, os.Getpid()) || !slices.Contains(tree, child.Process.Pid) {
		t.Errorf("the tree of %d is %v: want it and its child %d", os.Getpid(), tree, child.Process.Pid)
	}
	if slices.Contains(tree, os.Getppid()) {
		t.Errorf("the tree of %d holds its parent %d", os.Getpid(), os.Getppid())
	}
}
