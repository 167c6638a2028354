package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const example = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"

func TestTable(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "input.12.csv"), []byte(example), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := parseFlags([]string{"-data", dir, "-examples", "", "-sizes", "200", "-strategies", "auto,best-fit,reference,exact", "-time-limit", "1s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if err := run(context.Background(), cfg, &out, &errs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("want header, rule and 2 rows, got:\n%s", out.String())
	}
	if !strings.Contains(lines[0], "exact arena/LB") || !strings.HasPrefix(lines[1], "|---|") {
		t.Errorf("header:\n%s\n%s", lines[0], lines[1])
	}
	// MiniMalloc's README example packs into its lower bound, 12.
	if want := "| input.12.csv | 5 | 12 | 1.0000 |"; !strings.HasPrefix(lines[2], want) {
		t.Errorf("row %q, want prefix %q", lines[2], want)
	}
	if !strings.Contains(lines[2], "1.0000 (optimal)") || !strings.HasPrefix(lines[3], "| generated 200 | 200 |") {
		t.Errorf("rows:\n%s\n%s", lines[2], lines[3])
	}
	// Its name carries a capacity, 12: exact's time to it, alone and
	// as its budget, fill the last two cells; the generated problem has
	// none.
	if !strings.HasSuffix(lines[0], "| exact to capacity | budget: exact to capacity |") {
		t.Errorf("header %q lacks the capacity columns", lines[0])
	}
	cells := strings.Split(strings.Trim(lines[2], "| "), " | ")
	for _, c := range cells[len(cells)-2:] {
		if !strings.HasSuffix(c, "s") || strings.HasPrefix(c, "not") {
			t.Errorf("capacity cell %q of %q: want a time", c, lines[2])
		}
	}
	if !strings.HasSuffix(lines[3], "|  |  |") {
		t.Errorf("generated row %q: want empty capacity cells", lines[3])
	}
	if errs.Len() > 0 {
		t.Errorf("stderr: %s", errs.String())
	}
}

func TestCapacityOf(t *testing.T) {
	for path, want := range map[string]int64{
		"minimalloc/J.1048576.csv": 1 << 20,
		"input.12.csv":             12,
		"idealloc/resnet50.csv":    0,
		"G_1.csv":                  0,
		"x.-5.csv":                 0,
		"x.1e3.csv":                0,
	} {
		if got := capacityOf(path); got != want {
			t.Errorf("capacityOf(%q) = %d, want %d", path, got, want)
		}
	}
}

func TestScore(t *testing.T) {
	dir := t.TempDir()
	good := "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\nb3,0,9,4,4\nb4,9,21,4,4\nb5,0,21,4,0\n"
	bad := "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,8\nb3,0,9,4,4\nb4,9,21,4,4\nb5,0,21,4,0\n"
	for _, tt := range []struct {
		csv, want string
		ok        bool
	}{
		{good, "| score: s.csv | 5 | 12 |", true},
		{bad, "invalid placement", false},
	} {
		path := filepath.Join(dir, "s.csv")
		if err := os.WriteFile(path, []byte(tt.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := config{score: path, timeLimit: time.Second}
		var out bytes.Buffer
		err := run(context.Background(), cfg, &out, &bytes.Buffer{})
		switch {
		case tt.ok && (err != nil || !strings.Contains(out.String(), tt.want) || !strings.Contains(out.String(), "1.0000")):
			t.Errorf("good score: err %v, out:\n%s", err, out.String())
		case !tt.ok && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("bad score: err %v", err)
		}
	}
}

// A directory of scores: a file named after an instance fills its row,
// another gets a row of its own.
func TestScoreDirectory(t *testing.T) {
	data, scores := t.TempDir(), t.TempDir()
	input := "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n"
	answer := "id,lower,upper,size,offset\nb1,0,3,4,8\nb2,3,9,4,8\nb3,0,9,4,4\nb4,9,21,4,4\nb5,0,21,4,0\n"
	for path, text := range map[string]string{
		filepath.Join(data, "input.12.csv"):       input,
		filepath.Join(scores, "input.12.out.csv"): answer,
		filepath.Join(scores, "other.csv"):        answer,
	} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config{data: data, score: scores, strategies: []string{"auto"}, timeLimit: time.Second, verifyMax: 100}
	var out bytes.Buffer
	if err := run(context.Background(), cfg, &out, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| input.12.csv ") || strings.HasPrefix(line, "| score: ") {
			rows = append(rows, line)
		}
	}
	if len(rows) != 2 || !strings.HasSuffix(rows[0], "| 1.0000 |") || !strings.HasPrefix(rows[1], "| score: other.csv | 5 | 12 |") {
		t.Errorf("rows:\n%s\nwant the instance's row scored and one row for other.csv\n%s", strings.Join(rows, "\n"), out.String())
	}
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"-strategies", "nope"}, {"-sizes", "x"}, {"-random", "0"}, {"-budgets", "10"}, {"-idealloc", "idealloc"}, {"extra"}} {
		if _, err := parseFlags(args, &bytes.Buffer{}); err == nil {
			t.Errorf("parseFlags(%q) accepted", args)
		}
	}
}

// With -idealloc, a solver run at each budget fills its cells: its answer
// verified against the instance's own rows, so a placement that overlaps
// or changes a buffer's life is reported, not scored. A stand-in script
// plays idealloc: it writes the answer it was given to its -o path.
func TestIdealloc(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.csv"), []byte("id,lower,upper,size\n1,0,3,4\n2,3,9,4\n3,0,9,4\n4,9,21,4\n5,0,21,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		answer, want string
	}{
		{"id,lower,upper,size,offset\n1,0,3,4,8\n2,3,9,4,8\n3,0,9,4,4\n4,9,21,4,4\n5,0,21,4,0\n", "| 1.0000 |"},
		{"id,lower,upper,size,offset\n1,0,3,4,8\n2,3,9,4,8\n3,0,9,4,4\n4,9,21,4,4\n5,0,21,4,4\n", "| INVALID |"}, // 5 overlaps 3
		{"id,lower,upper,size,offset\n1,0,3,4,8\n2,3,9,4,8\n3,0,9,4,4\n4,9,21,4,4\n5,0,20,4,0\n", "| INVALID |"}, // 5 lives less
		{"id,lower,upper,size,offset\n1,0,3,4,8\n", "| INVALID |"},                                               // 2 to 5 missing
	} {
		answer := filepath.Join(t.TempDir(), "answer.csv")
		if err := os.WriteFile(answer, []byte(tt.answer), 0o644); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(t.TempDir(), "idealloc")
		script := "#!/bin/sh\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then cp " + answer + " \"$2\"; fi; shift; done\n"
		if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		cfg, err := parseFlags([]string{"-data", dir, "-examples", "", "-sizes", "", "-strategies", "auto", "-budgets", "100ms", "-idealloc", bin}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := run(context.Background(), cfg, &out, &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 3 || !strings.Contains(lines[0], "| improve 100ms | time | idealloc 100ms | time |") {
			t.Fatalf("want a header with improve's and idealloc's columns and one row:\n%s", out.String())
		}
		cells := strings.Split(lines[2], " | ")
		if got := "| " + cells[len(cells)-2] + " |"; got != tt.want {
			t.Errorf("idealloc's cell %q, want %q:\n%s", got, tt.want, out.String())
		}
	}
}

// With -recorded, answers recorded before fill a pair of columns per
// solver and budget beside this run's, in the rows of the instances they
// name; an instance with none gets a dash, and a recorded answer whose
// buffers or bound are not the instance's is an error.
func TestRecorded(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"x.csv", "y.csv"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(example), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const head = "instance,buffers,lower_bound,solver,budget,arena_over_lb,seconds\n"
	tests := []struct {
		name, file string
		want       []string // the rows' last four cells, x's then y's
		err        string
	}{
		{"two columns", head + "x.csv,5,12,idealloc,60s,1.05,60.4\nx.csv,5,12,idealloc,10s,1.0833,10\nother.csv,9,9,idealloc,60s,1,1\n",
			[]string{"| 1.0500 | 60.40 s | 1.0833 | 10.00 s |", "| – |  | – |  |"}, ""},
		// Recorded under a directory of the data: -data points into it.
		{"under a directory", head + "set/y.csv,5,12,idealloc,60s,1.05,60.4\nset/y.csv,5,12,idealloc,10s,1.0833,10\n",
			[]string{"| – |  | – |  |", "| 1.0500 | 60.40 s | 1.0833 | 10.00 s |"}, ""},
		{"another file's answer", head + "y.csv,6,12,idealloc,60s,1,1\n", nil, "is for 6 buffers"},
		{"no header", "x.csv,5,12,idealloc,60s,1,1\n", nil, "want the header"},
		{"a field missing", head + "x.csv,5,12,idealloc,60s,1\n", nil, ":2: 6 fields"},
		{"not a number", head + "x.csv,five,12,idealloc,60s,1,1\n", nil, ":2: buffers, lower_bound"},
		{"below the bound", head + "x.csv,5,12,idealloc,60s,0.9,1\n", nil, "arena_over_lb at least 1"},
		{"twice", head + "x.csv,5,12,idealloc,60s,1,1\nx.csv,5,12,idealloc,60s,1,2\n", nil, ":3: idealloc 60s's answer for x.csv given twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := filepath.Join(t.TempDir(), "recorded.csv")
			if err := os.WriteFile(rec, []byte(tc.file), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg, err := parseFlags([]string{"-data", dir, "-examples", "", "-sizes", "", "-strategies", "auto", "-recorded", rec}, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err = run(context.Background(), cfg, &out, &bytes.Buffer{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("run = %v, want an error containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if len(lines) != 4 || !strings.HasSuffix(lines[0], "| idealloc 60s (recorded) | time | idealloc 10s (recorded) | time |") {
				t.Fatalf("want a header with the recorded columns and two rows:\n%s", out.String())
			}
			for k, want := range tc.want {
				if !strings.HasSuffix(lines[2+k], want) {
					t.Errorf("row %q, want it to end %q", lines[2+k], want)
				}
			}
		})
	}
}

// An instance's answer is the one recorded under its path, or under the
// one path that ends with it; two such paths name none.
func TestRecordedFind(t *testing.T) {
	a := recorded{ratio: "1.0000"}
	r := recordedAnswers{answers: map[recordKey]recorded{
		{"iopddl/A.csv", "s 1s"}: a, {"A.csv", "s 2s"}: a,
		{"one/B.csv", "s 1s"}: a, {"two/B.csv", "s 1s"}: a, {"xB.csv", "s 2s"}: a,
	}}
	for _, tc := range []struct {
		name, column string
		want         bool
	}{
		{"A.csv", "s 1s", true}, {"iopddl/A.csv", "s 1s", true}, {"A.csv", "s 2s", true},
		{"B.csv", "s 1s", false}, {"one/B.csv", "s 1s", true}, {"B.csv", "s 2s", false}, {"C.csv", "s 1s", false},
	} {
		if _, ok := r.find(tc.name, tc.column); ok != tc.want {
			t.Errorf("find(%q, %q) = %v, want %v", tc.name, tc.column, ok, tc.want)
		}
	}
}
