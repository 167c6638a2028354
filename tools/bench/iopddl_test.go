package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"memplan/ir"
)

// The shared B_biggest was derived from the contest's file by idealloc's
// reader: deriving it here gives the same buffers, lifetimes included.
func TestDeriveMatchesIdealloc(t *testing.T) {
	c, err := readContest("testdata/asplos-2025-iopddl-B.json.gz")
	if err != nil {
		t.Fatal(err)
	}
	got, err := deriveTable(c, "B_biggest", draw{policy: "biggest"})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../planner/testdata/iopddl_B_biggest.csv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := ir.DecodeBufferCSV("iopddl_B_biggest.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(want.Rows) || len(got.Rows) != 816 {
		t.Fatalf("%d rows, want %d (816)", len(got.Rows), len(want.Rows))
	}
	byID := map[string]ir.BufferRow{}
	for _, r := range got.Rows {
		byID[r.ID] = r
	}
	for _, w := range want.Rows {
		g, ok := byID[w.ID]
		if !ok || g.Lower != w.Lower || g.Upper != w.Upper || g.Size != w.Size {
			t.Fatalf("buffer %s: derived %+v, want lower %d upper %d size %d", w.ID, g, w.Lower, w.Upper, w.Size)
		}
	}
}

// A small problem worked by hand: intervals [0,0], [0,3], [1,1], [5,6].
// Events: births at 0, 0, 1; the death of [0,0] at 1 follows a birth
// (generation 1), so [1,1] is born at 1+1; deaths at 2 and 4 follow it
// (the one at 2 after a birth: generation 2), and [5,6] is born at 5+2.
func TestDeriveEventWalk(t *testing.T) {
	var c contestFile
	c.Problem.Nodes.Intervals = [][]int64{{0, 0}, {0, 3}, {1, 1}, {5, 6}}
	c.Problem.Nodes.Usages = [][]int64{{3}, {1, 9}, {0}, {4, 2}}
	tests := []struct {
		d     draw
		sizes []int64
	}{
		{draw{policy: "biggest"}, []int64{4, 10, 1, 5}},
		{draw{policy: "smallest"}, []int64{4, 2, 1, 3}},
	}
	for _, tc := range tests {
		got, err := deriveTable(&c, "tiny", tc.d)
		if err != nil {
			t.Fatal(err)
		}
		lives := [][2]int64{{0, 2}, {0, 5}, {2, 4}, {7, 10}}
		for i, r := range got.Rows {
			if r.Lower != lives[i][0] || r.Upper != lives[i][1] || r.Size != tc.sizes[i] {
				t.Errorf("%s: node %d is [%d, %d) of %d bytes, want [%d, %d) of %d", tc.d, i, r.Lower, r.Upper, r.Size, lives[i][0], lives[i][1], tc.sizes[i])
			}
		}
	}
	// A draw picks a candidate usage, the same one for the same seed.
	a, _ := deriveTable(&c, "tiny", draw{policy: "random", seed: 7})
	b, _ := deriveTable(&c, "tiny", draw{policy: "random", seed: 7})
	for i, r := range a.Rows {
		if !slices.Contains(c.Problem.Nodes.Usages[i], r.Size-1) || r != b.Rows[i] {
			t.Errorf("seed 7, node %d: size %d is not a usage plus 1, or differs between runs (%d)", i, r.Size, b.Rows[i].Size)
		}
	}
}

func TestDeriveRejects(t *testing.T) {
	tests := []struct {
		name      string
		intervals [][]int64
		usages    [][]int64
		want      string
	}{
		{"lengths", [][]int64{{0, 1}}, nil, "1 intervals but 0 usages"},
		{"reversed", [][]int64{{0, 1}, {3, 2}}, [][]int64{{1}, {1}}, "problem.nodes.intervals[1]: want [a, b]"},
		{"negative", [][]int64{{-1, 2}}, [][]int64{{1}}, "problem.nodes.intervals[0]"},
		{"pair", [][]int64{{1}}, [][]int64{{1}}, "problem.nodes.intervals[0]"},
		{"no usage", [][]int64{{0, 1}}, [][]int64{{}}, "problem.nodes.usages[0]: no candidate usage"},
		{"huge usage", [][]int64{{0, 1}}, [][]int64{{1 << 62}}, "problem.nodes.usages[0]: usage"},
	}
	for _, tc := range tests {
		var c contestFile
		c.Problem.Nodes.Intervals, c.Problem.Nodes.Usages = tc.intervals, tc.usages
		_, err := deriveTable(&c, "bad", draw{policy: "biggest"})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestParseDraws(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		bad  bool
	}{
		{in: "biggest, smallest,3", want: []string{"biggest", "smallest", "seed3"}},
		{in: "2-4", want: []string{"seed2", "seed3", "seed4"}},
		{in: "", want: nil},
		{in: "4-2", bad: true},
		{in: "largest", bad: true},
		{in: "1-20000", bad: true},
	}
	for _, tc := range tests {
		ds, err := parseDraws(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error", tc.in)
			}
			continue
		}
		var got []string
		for _, d := range ds {
			got = append(got, d.String())
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

// -iopddl adds a row per draw, planned and verified like the others, and
// -iopddl-out writes the lists that a plan of the file reproduces.
func TestBenchIOPDDL(t *testing.T) {
	dir := t.TempDir()
	cfg, err := parseFlags([]string{"-data", "", "-examples", "", "-sizes", "", "-strategies", "auto",
		"-iopddl", "testdata/asplos-2025-iopddl-B.json.gz", "-draws", "biggest,5", "-iopddl-out", dir}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(context.Background(), cfg, &out, &errs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[2], "| iopddl B_biggest | 816 | 407419084 | 1.0000 |") || !strings.HasPrefix(lines[3], "| iopddl B_seed5 | 816 |") {
		t.Fatalf("table:\n%s\nstderr: %s", out.String(), errs.String())
	}
	written, err := os.ReadFile(filepath.Join(dir, "B_biggest.csv"))
	if err != nil {
		t.Fatal(err)
	}
	shared, err := os.ReadFile("../../planner/testdata/iopddl_B_biggest.csv")
	if err != nil {
		t.Fatal(err)
	}
	sortedLines := func(b []byte) []string {
		l := strings.Split(strings.TrimSpace(string(b)), "\n")
		slices.Sort(l)
		return l
	}
	if !slices.Equal(sortedLines(written), sortedLines(shared)) {
		t.Error("B_biggest.csv as written differs from the shared derivation")
	}
}

// A contest file that is not one says where, in the JSON's lines.
func TestReadContestLocates(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, text, want string
	}{
		{"syntax.json", "{\"problem\": {\n  \"nodes\": {,}}}", "syntax.json:2:13: invalid character ','"},
		{"type.json", "{\"problem\": {\"nodes\": {\n\"intervals\": [[0, \"x\"]]}}}", "type.json:2:21: problem.nodes.intervals is string, not int64"},
	}
	for _, tc := range tests {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readContest(path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
