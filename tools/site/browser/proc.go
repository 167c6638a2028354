//go:build !js

package browser

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ProcStat is the fields of /proc/PID/stat after the command name: the
// name is in parentheses and may hold spaces and parentheses itself, so
// the fields start after its last ')'. Field 0 is the state, 1 the
// parent's pid, 11 and 12 the user and system time in clock ticks.
func ProcStat(path string) (comm string, fields []string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, false
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", nil, false
	}
	return s[open+1 : end], strings.Fields(s[end+1:]), true
}

// ProcessTree is root and every process descended from it, from /proc
// (Linux): a browser's own processes, to measure them together.
func ProcessTree(root int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, f, ok := ProcStat(filepath.Join("/proc", e.Name(), "stat")); ok && len(f) > 1 {
			parent[pid], _ = strconv.Atoi(f[1])
		}
	}
	var tree []int
	for pid := range parent {
		for p := pid; p > 1; p = parent[p] {
			if p == root {
				tree = append(tree, pid)
				break
			}
		}
	}
	return tree
}
