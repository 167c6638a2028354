package main

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"memplan/ir"
	"memplan/planner"
)

// Siblings of the shared IOPDDL traces, derived from the contest's
// problem files as the shared ones were (testdata/LICENSE-iopddl.md in
// planner): the traces the shared data stands for, which a planner tuned
// on the shared files alone may miss.

// contestFile is the part of a contest problem file a buffer list needs.
type contestFile struct {
	Problem struct {
		Nodes struct {
			Intervals [][]int64 `json:"intervals"`
			Usages    [][]int64 `json:"usages"`
		} `json:"nodes"`
	} `json:"problem"`
}

// draw says how each node's size is chosen among its candidate usages:
// the largest, the smallest, or one drawn uniformly with a seed (by this
// tool's generator, not idealloc's, whose draws were not seeded).
type draw struct {
	policy string // "biggest", "smallest" or "random"
	seed   uint64
}

func (d draw) String() string {
	if d.policy == "random" {
		return fmt.Sprintf("seed%d", d.seed)
	}
	return d.policy
}

// parseDraws reads a comma list of biggest, smallest, seeds and ranges
// of seeds (2-31).
func parseDraws(list string) ([]draw, error) {
	var out []draw
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		switch {
		case f == "":
		case f == "biggest" || f == "smallest":
			out = append(out, draw{policy: f})
		default:
			lo, hi, isRange := strings.Cut(f, "-")
			a, err := strconv.ParseUint(lo, 10, 64)
			b := a
			if err == nil && isRange {
				b, err = strconv.ParseUint(hi, 10, 64)
			}
			if err != nil || b < a || b-a >= 10_000 {
				return nil, fmt.Errorf("-draws: %q is not biggest, smallest, a seed or a range of at most 10,000 seeds (2-31)", f)
			}
			for s := a; ; s++ {
				out = append(out, draw{policy: "random", seed: s})
				if s == b {
					break
				}
			}
		}
	}
	return out, nil
}

// readContest reads a contest problem file, gzipped or not.
func readContest(path string) (*contestFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	var c contestFile
	if err := json.Unmarshal(data, &c); err != nil {
		// Say where: the line and column, in the JSON gunzipped, of the
		// byte that broke it or the last byte of the value of the wrong
		// type (the offsets the errors give are just past those).
		var syntax *json.SyntaxError
		var typed *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syntax):
			return nil, fmt.Errorf("%s:%s: %v", path, lineCol(data, syntax.Offset-1), err)
		case errors.As(err, &typed):
			return nil, fmt.Errorf("%s:%s: %s is %s, not %s", path, lineCol(data, typed.Offset-1), typed.Field, typed.Value, typed.Type)
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &c, nil
}

// lineCol gives the 1-based line and column of byte off (0-based) of data.
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(data[:off], '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

// deriveTable turns a contest problem into a buffer list: one buffer per
// node, sized by d, its interval [a, b] made half-open [a, b+1) and then
// spaced by the event walk of idealloc's reader: events by time, deaths
// before births; a birth at the walk's g-th generation lives over
// [a+g, b+2+g), and the first death after a birth starts a generation.
func deriveTable(c *contestFile, name string, d draw) (*ir.BufferTable, error) {
	nodes := &c.Problem.Nodes
	iv, us := nodes.Intervals, nodes.Usages
	if len(iv) != len(us) {
		return nil, fmt.Errorf("%s: problem.nodes has %d intervals but %d usages", name, len(iv), len(us))
	}
	rng := rand.New(rand.NewPCG(d.seed, 0x10bdd1))
	t := &ir.BufferTable{Name: name, Rows: make([]ir.BufferRow, len(iv))}
	type event struct {
		at    int64
		birth bool
		node  int
	}
	events := make([]event, 0, 2*len(iv))
	for i := range iv {
		where := func(field string) string { return fmt.Sprintf("%s: problem.nodes.%s[%d]", name, field, i) }
		if len(iv[i]) != 2 || iv[i][0] < 0 || iv[i][1] < iv[i][0] || iv[i][1] > 1<<40 {
			return nil, fmt.Errorf("%s: want [a, b] with 0 <= a <= b <= 2^40, got %v", where("intervals"), iv[i])
		}
		if len(us[i]) == 0 {
			return nil, fmt.Errorf("%s: no candidate usage", where("usages"))
		}
		var size int64
		switch d.policy {
		case "biggest":
			size = slices.Max(us[i])
		case "smallest":
			size = slices.Min(us[i])
		default:
			size = us[i][rng.IntN(len(us[i]))]
		}
		if size < 0 || size >= ir.ByteLimit-1 {
			return nil, fmt.Errorf("%s: usage %d is negative or past 2^62", where("usages"), size)
		}
		t.Rows[i] = ir.BufferRow{ID: strconv.Itoa(i), Size: size + 1} // the node's index, as idealloc's reader names it
		events = append(events, event{iv[i][0], true, i}, event{iv[i][1] + 1, false, i})
	}
	slices.SortFunc(events, func(a, b event) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if a.birth != b.birth {
			if a.birth {
				return 1
			}
			return -1
		}
		return a.node - b.node
	})
	var g int64
	lastBirth := true
	for _, e := range events {
		switch {
		case e.birth:
			r := &t.Rows[e.node]
			r.Lower, r.Upper = iv[e.node][0]+g, iv[e.node][1]+2+g
			lastBirth = true
		case lastBirth:
			g++
			lastBirth = false
		}
	}
	return t, nil
}

// loadContests derives the instances of every contest file in paths
// (a comma list) for every draw, and with dir set writes each as a
// buffer CSV there.
func loadContests(paths string, draws []draw, dir string) ([]instance, error) {
	var out []instance
	for path := range strings.SplitSeq(paths, ",") {
		if path = strings.TrimSpace(path); path == "" {
			continue
		}
		c, err := readContest(path)
		if err != nil {
			return nil, err
		}
		// asplos-2025-iopddl-L.json.gz is problem L.
		letter := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".json")
		letter = letter[strings.LastIndexByte(letter, '-')+1:]
		for _, d := range draws {
			name := fmt.Sprintf("%s_%s", letter, d)
			t, err := deriveTable(c, name, d)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			p, err := planner.FromTable(t, 1)
			if err != nil {
				return nil, err
			}
			if dir != "" {
				if err := writeTable(filepath.Join(dir, name+".csv"), t); err != nil {
					return nil, err
				}
			}
			out = append(out, instance{name: "iopddl " + name, p: p})
		}
	}
	return out, nil
}

// writeTable writes t as a buffer CSV (id,lower,upper,size).
func writeTable(path string, t *ir.BufferTable) error {
	var b bytes.Buffer
	b.WriteString("id,lower,upper,size\n")
	for _, r := range t.Rows {
		fmt.Fprintf(&b, "%s,%d,%d,%d\n", r.ID, r.Lower, r.Upper, r.Size)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
