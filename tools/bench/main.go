// Command bench measures the placement strategies and prints one markdown
// table: for every buffer CSV under -data, for generated problems of the
// -sizes given, and for every graph JSON under -examples, the number of
// buffers, the lower bound, and per strategy the arena as a multiple of
// the lower bound and the time taken. Every plan up to -verify-max
// buffers is checked with planner.Verify; a plan that fails is reported,
// not measured.
//
// For instances named NAME.CAPACITY.csv (MiniMalloc's, whose decision
// problem asks for an arena within CAPACITY), two more columns time
// exact until its arena is within the capacity: on its own, and with the
// capacity as its budget (memplan plan --budget), which is MiniMalloc's
// question.
//
// With -budgets, every instance also gets improve at each of the time
// limits given (10s,60s), and with -idealloc, idealloc (a binary built as
// the README says, with its -t and -o flags) at each of them too, on the
// instance's own file: its answer is read back and verified like every
// other, so a wrong placement is reported, not scored.
//
// With -recorded, it also prints answers another solver gave before, as a
// CSV records them (instance,buffers,lower_bound,solver,budget,
// arena_over_lb,seconds; docs/bench/idealloc-recorded.csv holds
// idealloc's on the shared data): one pair of columns per solver and
// budget, beside this run's, for an instance whose path under -data,
// buffers and lower bound match a row. A row whose buffers or bound
// differ is an error: it was recorded on another file.
//
// With -iopddl, it also derives buffer lists from problem files of the
// IOPDDL contest, as the shared IOPDDL traces were derived, one per
// -draws (the largest or smallest usages, or seeded draws), and plans
// them like the others: siblings of the shared traces (iopddl.go).
//
// With -score, it also reads an external solver's output CSVs (the input
// columns plus an offset per row, as MiniMalloc writes): one file, or
// every CSV under a directory. Each is verified and its arena printed in
// the row of the instance whose file name it starts with (D.1048576.csv
// takes D.1048576.out.csv), or in a row of its own.
//
// Usage:
//
//	go run ./tools/bench [flags]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"memplan/ir"
	"memplan/planner"
)

type config struct {
	data, examples, score string
	iopddl, iopddlOut     string
	draws                 []draw
	idealloc, recorded    string
	strategies            []string
	sizes, random         []int
	budgets               []time.Duration
	seed                  uint64
	timeLimit             time.Duration
	referenceMax          int
	exactMax              int
	verifyMax             int
	progress              bool
	capacity              bool
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var cfg config
	fl := flag.NewFlagSet("bench", flag.ContinueOnError)
	fl.SetOutput(stderr)
	fl.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./tools/bench [flags]\n\n"+
			"Prints a markdown table of the arena each strategy finds (as a multiple of the\n"+
			"lower bound: the most bytes live at one step) and the time it takes, for the\n"+
			"buffer CSVs under -data, generated problems of -sizes buffers and the graph\n"+
			"JSON examples under -examples. Every plan is verified.\n\nFlags:\n")
		fl.PrintDefaults()
	}
	fl.StringVar(&cfg.data, "data", "../shared/data", "directory searched recursively for buffer CSVs (id,lower,upper,size); empty to skip")
	fl.StringVar(&cfg.examples, "examples", "examples", "directory of graph JSON examples, lowered with the default options; empty to skip")
	fl.StringVar(&cfg.score, "score", "", "an external solver's output CSV (with an offset column), or a directory of them, to verify and score")
	strategies := fl.String("strategies", "auto,best-fit,best-fit-temporal,breadth,first-use,reference,exact", "comma-separated strategies to run")
	sizes := fl.String("sizes", "1000,10000,100000,1000000", "comma-separated sizes of generated problems; empty for none")
	random := fl.String("random", "", "comma-separated sizes of problems with random lives (1 to 50 steps) and sizes (under 64 KiB), where no order reaches the bound")
	budgets := fl.String("budgets", "", "comma-separated time limits (10s,60s) at which improve, and idealloc with -idealloc, run on every instance")
	fl.StringVar(&cfg.idealloc, "idealloc", "", "an idealloc binary (with -t and -o) to run beside improve at each of -budgets, on the instances read from files")
	fl.StringVar(&cfg.recorded, "recorded", "", "a CSV of answers recorded before (instance,buffers,lower_bound,solver,budget,arena_over_lb,seconds), printed beside the instances they match")
	fl.StringVar(&cfg.iopddl, "iopddl", "", "comma-separated problem files of the IOPDDL contest (asplos-2025-iopddl-L.json.gz): each is derived into a buffer list per -draws, as the shared IOPDDL traces were")
	draws := fl.String("draws", "biggest,smallest,2-9", "with -iopddl, the sizes to derive: biggest, smallest (usages) and seeds or ranges of seeds (2-31) of a uniform draw")
	fl.StringVar(&cfg.iopddlOut, "iopddl-out", "", "with -iopddl, also write each derived buffer list to this directory as NAME.csv (L_seed5.csv)")
	fl.Uint64Var(&cfg.seed, "seed", 1, "seed of the generated problems")
	fl.DurationVar(&cfg.timeLimit, "time-limit", 10*time.Second, "time limit of the exact strategy, per instance")
	fl.IntVar(&cfg.referenceMax, "skip-reference-above", 5000, "skip the reference strategy (O(n^3)) above this many buffers")
	fl.IntVar(&cfg.exactMax, "skip-exact-above", 2000, "skip the exact strategy above this many buffers")
	fl.IntVar(&cfg.verifyMax, "verify-max", 2000000, "verify plans of at most this many buffers; larger ones are marked unverified")
	fl.BoolVar(&cfg.progress, "progress", false, "print exact's progress reports to stderr")
	fl.BoolVar(&cfg.capacity, "capacity", true, "for NAME.CAPACITY.csv instances, time exact to an arena within CAPACITY, alone and with it as budget")
	if err := fl.Parse(args); err != nil {
		return cfg, err
	}
	if fl.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fl.Args())
	}
	known := planner.StrategyNames()
	for _, s := range strings.Split(*strategies, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if !slices.Contains(known, s) {
			return cfg, fmt.Errorf("unknown strategy %q (known: %s)", s, strings.Join(known, ", "))
		}
		cfg.strategies = append(cfg.strategies, s)
	}
	var err error
	if cfg.sizes, err = parseSizes("sizes", *sizes); err != nil {
		return cfg, err
	}
	if cfg.draws, err = parseDraws(*draws); err != nil {
		return cfg, err
	}
	if cfg.random, err = parseSizes("random", *random); err != nil {
		return cfg, err
	}
	for _, s := range strings.Split(*budgets, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return cfg, fmt.Errorf("bad time limit %q in -budgets", s)
		}
		cfg.budgets = append(cfg.budgets, d)
	}
	if cfg.idealloc != "" && len(cfg.budgets) == 0 {
		return cfg, fmt.Errorf("-idealloc needs -budgets: the time limits it runs at")
	}
	return cfg, nil
}

// parseSizes reads a flag's comma-separated problem sizes.
func parseSizes(flag, list string) ([]int, error) {
	var out []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("bad size %q in -%s", s, flag)
		}
		out = append(out, n)
	}
	return out, nil
}

// instance is one row of the table.
type instance struct {
	name     string
	p        *planner.Problem
	capacity int64  // from a NAME.CAPACITY.csv file name; 0 for none
	path     string // the file it was read from; "" for generated ones
}

// capacityOf reads the capacity in a MiniMalloc instance's file name.
func capacityOf(path string) int64 {
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	dot := strings.LastIndexByte(stem, '.')
	if dot < 0 {
		return 0
	}
	c, err := strconv.ParseInt(stem[dot+1:], 10, 64)
	if err != nil || c <= 0 {
		return 0
	}
	return c
}

func run(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	var insts []instance
	if cfg.data != "" {
		found, err := loadCSVs(cfg.data)
		if err != nil {
			return err
		}
		insts = append(insts, found...)
	}
	if cfg.iopddl != "" {
		derived, err := loadContests(cfg.iopddl, cfg.draws, cfg.iopddlOut)
		if err != nil {
			return err
		}
		insts = append(insts, derived...)
	}
	for _, n := range cfg.sizes {
		insts = append(insts, instance{name: fmt.Sprintf("generated %d", n), p: planner.Generate(n, cfg.seed)})
	}
	for _, n := range cfg.random {
		insts = append(insts, instance{name: fmt.Sprintf("random %d", n), p: planner.GenerateRandom(n, cfg.seed)})
	}
	if cfg.examples != "" {
		found, err := loadExamples(cfg.examples, stderr)
		if err != nil {
			return err
		}
		insts = append(insts, found...)
	}
	var scores []scored
	if cfg.score != "" {
		var err error
		if scores, err = scoreAll(cfg.score); err != nil {
			return err
		}
	}
	var rec recordedAnswers
	if cfg.recorded != "" {
		var err error
		if rec, err = readRecorded(cfg.recorded); err != nil {
			return err
		}
	}
	header := []string{"instance", "buffers", "lower bound"}
	for _, s := range cfg.strategies {
		header = append(header, s+" arena/LB", s+" time")
	}
	for _, b := range cfg.budgets {
		label := b.String()
		if b%time.Second == 0 {
			label = fmt.Sprintf("%d s", b/time.Second)
		}
		header = append(header, "improve "+label, "time")
		if cfg.idealloc != "" {
			header = append(header, "idealloc "+label, "time")
		}
	}
	for _, c := range rec.columns {
		header = append(header, c+" (recorded)", "time")
	}
	fitColumns := cfg.capacity && slices.Contains(cfg.strategies, "exact")
	if fitColumns {
		header = append(header, "exact to capacity", "budget: exact to capacity")
	}
	if cfg.score != "" {
		header = append(header, "score arena/LB")
	}
	fmt.Fprintf(stdout, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, in := range insts {
		lb := planner.LowerBound(in.p)
		row := []string{in.name, strconv.Itoa(len(in.p.Buffers)), strconv.FormatInt(lb, 10)}
		fit := ""
		for _, s := range cfg.strategies {
			m := measure(ctx, cfg, in, s, lb, 0, stderr)
			row = append(row, m.ratio, m.took)
			if s == "exact" {
				fit = m.fit
			}
		}
		for _, b := range cfg.budgets {
			c := cfg
			c.timeLimit = b
			m := measure(ctx, c, in, "improve", lb, 0, stderr)
			row = append(row, m.ratio, m.took)
			if cfg.idealloc != "" {
				m := runIdealloc(ctx, cfg.idealloc, in, b, lb, stderr)
				row = append(row, m.ratio, m.took)
			}
		}
		for _, c := range rec.columns {
			a, ok := rec.find(in.name, c)
			switch {
			case !ok:
				row = append(row, "–", "")
			case a.buffers != len(in.p.Buffers) || a.lowerBound != lb:
				return fmt.Errorf("%s: %s's recorded answer for %s is for %d buffers and lower bound %d; the instance has %d and %d",
					cfg.recorded, c, in.name, a.buffers, a.lowerBound, len(in.p.Buffers), lb)
			default:
				row = append(row, a.ratio, a.took)
			}
		}
		if fitColumns {
			budgeted := ""
			if in.capacity > 0 && len(in.p.Buffers) <= cfg.exactMax {
				budgeted = measure(ctx, cfg, in, "exact", lb, in.capacity, stderr).fit
			}
			row = append(row, fit, budgeted)
		}
		if cfg.score != "" {
			cell := ""
			for k, sc := range scores {
				if sc.used || !scoreMatches(sc.name, in.name) {
					continue
				}
				if sc.n != len(in.p.Buffers) || sc.lb != lb {
					return fmt.Errorf("%s: %d buffers, lower bound %d; instance %s has %d and %d", sc.name, sc.n, sc.lb, in.name, len(in.p.Buffers), lb)
				}
				cell, scores[k].used = sc.ratio, true
				break
			}
			row = append(row, cell)
		}
		fmt.Fprintf(stdout, "| %s |\n", strings.Join(row, " | "))
	}
	for _, sc := range scores {
		if sc.used {
			continue
		}
		row := []string{"score: " + sc.name, strconv.Itoa(sc.n), strconv.FormatInt(sc.lb, 10)}
		for range cfg.strategies {
			row = append(row, "", "")
		}
		for range cfg.budgets {
			row = append(row, "", "")
			if cfg.idealloc != "" {
				row = append(row, "", "")
			}
		}
		for range rec.columns {
			row = append(row, "", "")
		}
		if fitColumns {
			row = append(row, "", "")
		}
		row = append(row, sc.ratio)
		fmt.Fprintf(stdout, "| %s |\n", strings.Join(row, " | "))
	}
	return nil
}

// recordedAnswers are the answers of -recorded: their columns ("solver
// budget") in the order the file first names them, and each answer by
// instance (its path under -data when recorded) and column.
type recordedAnswers struct {
	columns []string
	answers map[recordKey]recorded
}

type recordKey struct{ instance, column string }

// find returns column's answer for the instance at path name under
// -data: recorded under that path, or else under the one path that ends
// with it (a file recorded as iopddl/A_biggest.csv, run with -data
// pointing into iopddl/).
func (r recordedAnswers) find(name, column string) (recorded, bool) {
	if a, ok := r.answers[recordKey{name, column}]; ok {
		return a, true
	}
	var found recorded
	n := 0
	for k, a := range r.answers {
		if k.column == column && strings.HasSuffix(k.instance, "/"+name) {
			found, n = a, n+1
		}
	}
	return found, n == 1
}

// recorded is one recorded answer, with what identifies its instance.
type recorded struct {
	buffers    int
	lowerBound int64
	ratio      string // as recorded, four decimals
	took       string
}

// readRecorded reads a -recorded CSV; a row that does not parse, or
// gives an instance and column twice, is an error naming its line.
func readRecorded(path string) (recordedAnswers, error) {
	rec := recordedAnswers{answers: map[recordKey]recorded{}}
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	const header = "instance,buffers,lower_bound,solver,budget,arena_over_lb,seconds"
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != header {
		return rec, fmt.Errorf("%s: want the header %q", path, header)
	}
	for k, line := range lines[1:] {
		bad := func(what string) error { return fmt.Errorf("%s:%d: %s", path, k+2, what) }
		f := strings.Split(strings.TrimSpace(line), ",")
		if len(f) != 7 {
			return rec, bad(fmt.Sprintf("%d fields, want 7", len(f)))
		}
		n, err1 := strconv.Atoi(f[1])
		lb, err2 := strconv.ParseInt(f[2], 10, 64)
		ratio, err3 := strconv.ParseFloat(f[5], 64)
		secs, err4 := strconv.ParseFloat(f[6], 64)
		switch {
		case errors.Join(err1, err2, err3, err4) != nil:
			return rec, bad(fmt.Sprintf("buffers, lower_bound, arena_over_lb and seconds must be numbers: %v", errors.Join(err1, err2, err3, err4)))
		case n < 0 || lb < 0 || ratio < 1 || secs < 0:
			return rec, bad("buffers, lower_bound and seconds must be at least 0, arena_over_lb at least 1")
		case f[0] == "" || f[3] == "" || f[4] == "":
			return rec, bad("instance, solver and budget must be given")
		}
		col := f[3] + " " + f[4]
		key := recordKey{f[0], col}
		if _, dup := rec.answers[key]; dup {
			return rec, bad(fmt.Sprintf("%s's answer for %s given twice", col, f[0]))
		}
		if !slices.Contains(rec.columns, col) {
			rec.columns = append(rec.columns, col)
		}
		rec.answers[key] = recorded{n, lb, fmt.Sprintf("%.4f", ratio), formatDuration(time.Duration(secs * float64(time.Second)))}
	}
	return rec, nil
}

// scored is one external solver's answer, verified.
type scored struct {
	name, ratio string
	n           int
	lb          int64
	used        bool // printed in an instance's row
}

// scoreAll scores one output CSV, or every CSV under a directory.
func scoreAll(path string) ([]scored, error) {
	var paths []string
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (p == path || strings.EqualFold(filepath.Ext(p), ".csv")) {
			paths = append(paths, p)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []scored
	for _, p := range paths {
		name, n, lb, ratio, err := score(p)
		if err != nil {
			return nil, err
		}
		out = append(out, scored{name: name, ratio: ratio, n: n, lb: lb})
	}
	return out, nil
}

// scoreMatches reports whether a score file's name is that of the
// instance (a path under -data), perhaps with more before ".csv".
func scoreMatches(score, instance string) bool {
	stem := strings.TrimSuffix(filepath.Base(instance), filepath.Ext(instance))
	rest, ok := strings.CutPrefix(score, stem)
	return ok && (rest == "" || rest[0] == '.')
}

// measured is one strategy's cells: the arena, the time, and for exact
// on an instance with a capacity, when its arena first got within it.
type measured struct{ ratio, took, fit string }

// measure runs one strategy on one instance, exact with budget if
// positive.
func measure(ctx context.Context, cfg config, in instance, strategy string, lb, budget int64, stderr io.Writer) measured {
	n := len(in.p.Buffers)
	switch {
	case strategy == "reference" && n > cfg.referenceMax,
		strategy == "exact" && n > cfg.exactMax:
		m := measured{ratio: "skipped"}
		if in.capacity > 0 {
			m.fit = "skipped"
		}
		return m
	}
	opts := planner.PlaceOptions{TimeLimit: cfg.timeLimit, Budget: budget}
	if cfg.progress {
		opts.Progress = func(msg string) { fmt.Fprintf(stderr, "%s: %s\n", in.name, msg) }
	}
	start := time.Now()
	var fitAt time.Duration
	if in.capacity > 0 {
		opts.Improved = func(arena, _ int64) {
			if arena <= in.capacity && fitAt == 0 {
				fitAt = max(time.Since(start), 1)
			}
		}
	}
	pl, err := planner.Place(ctx, in.p, strategy, opts)
	took := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "%s, %s: %v\n", in.name, strategy, err)
		return measured{ratio: "error"}
	}
	m := measured{ratio: ratioCell(pl.Arena, lb), took: formatDuration(took)}
	if n <= cfg.verifyMax {
		if err := planner.Verify(planner.NewPlan(in.p, strategy, pl)); err != nil {
			fmt.Fprintf(stderr, "%s, %s: INVALID PLAN: %v\n", in.name, strategy, err)
			return measured{ratio: "INVALID"}
		}
	} else {
		m.ratio += " (unverified)"
	}
	if strategy == "exact" && pl.Optimal {
		m.ratio += " (optimal)"
	}
	switch {
	case fitAt > 0:
		m.fit = formatDuration(fitAt)
	case in.capacity > 0:
		m.fit = "not within " + formatDuration(took)
	}
	return m
}

func ratioCell(arena, lb int64) string {
	if lb == 0 {
		return fmt.Sprintf("%d B", arena)
	}
	return fmt.Sprintf("%.4f", float64(arena)/float64(lb))
}

func formatDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// loadCSVs reads every buffer CSV under dir, in path order.
func loadCSVs(dir string) ([]instance, error) {
	var out []instance
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(path), ".csv") {
			return err
		}
		p, err := readCSV(path, false)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out = append(out, instance{filepath.ToSlash(rel), p, capacityOf(path), path})
		return nil
	})
	return out, err
}

// readCSV lowers a buffer CSV with alignment 1 (the published instances
// have none). With dropOffsets, an offset column is a solver's answer,
// not a fixed position.
func readCSV(path string, dropOffsets bool) (*planner.Problem, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := ir.DecodeBufferCSV(path, data)
	if err != nil {
		return nil, err
	}
	if dropOffsets {
		for i := range t.Rows {
			t.Rows[i].HasOffset = false
		}
	}
	return planner.FromTable(t, 1)
}

// loadExamples lowers every graph JSON under dir with the default options.
func loadExamples(dir string, stderr io.Writer) ([]instance, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []instance
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		src, err := ir.Decode(path, data, ir.DecodeOptions{})
		if err != nil {
			fmt.Fprintf(stderr, "skipping %s: %v\n", path, err)
			continue
		}
		if src.Graph == nil {
			continue
		}
		p, err := planner.Analyze(src.Graph, planner.DefaultOptions())
		if err != nil {
			fmt.Fprintf(stderr, "skipping %s: %v\n", path, err)
			continue
		}
		out = append(out, instance{name: "example " + filepath.Base(path), p: p})
	}
	return out, nil
}

// score verifies an external solver's output and returns its arena
// against the lower bound.
func score(path string) (name string, n int, lb int64, ratio string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", 0, 0, "", err
	}
	t, err := ir.DecodeBufferCSV(path, data)
	if err != nil {
		return "", 0, 0, "", err
	}
	offsets := make([]int64, len(t.Rows))
	for i := range t.Rows {
		r := &t.Rows[i]
		if !r.HasOffset {
			return "", 0, 0, "", fmt.Errorf("%s:%d: buffer %q has no offset", path, r.Line, r.ID)
		}
		offsets[i] = r.Offset
		r.HasOffset = false
	}
	p, err := planner.FromTable(t, 1)
	if err != nil {
		return "", 0, 0, "", err
	}
	pl := planner.Placement{Offsets: offsets, Arena: planner.ArenaOf(p, offsets)}
	if err := planner.Verify(planner.NewPlan(p, "score", pl)); err != nil {
		return "", 0, 0, "", fmt.Errorf("%s: invalid placement: %w", path, err)
	}
	lb = planner.LowerBound(p)
	return filepath.Base(path), len(p.Buffers), lb, ratioCell(pl.Arena, lb), nil
}

// runIdealloc runs idealloc on the instance's file with a time limit,
// reads its placement back and verifies it as score does. idealloc's
// limit stops it starting another round of its search, so it may run
// over by one round, and its set-up, which can take most of a minute on
// the largest instances, counts: the time cell is its wall time.
func runIdealloc(ctx context.Context, bin string, in instance, limit time.Duration, lb int64, stderr io.Writer) measured {
	if in.path == "" {
		return measured{}
	}
	dir, err := os.MkdirTemp("", "bench-idealloc")
	if err != nil {
		fmt.Fprintf(stderr, "%s, idealloc: %v\n", in.name, err)
		return measured{ratio: "error"}
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "placed.csv")
	// Many rounds, so that the time limit is what stops it (its default
	// is one round: the best fit it starts from).
	cmd := exec.CommandContext(ctx, bin, "-i", in.path, "ex-csv", "-l", "1000000", "-t", strconv.FormatFloat(limit.Seconds(), 'f', -1, 64), "-o", out)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	start := time.Now()
	err = cmd.Run()
	took := time.Since(start)
	if err != nil {
		fmt.Fprintf(stderr, "%s, idealloc: %v\n%s", in.name, err, tail(log.String(), 400))
		return measured{ratio: "failed", took: formatDuration(took)}
	}
	arena, err := verifyPlaced(in.p, out)
	if err != nil {
		fmt.Fprintf(stderr, "%s, idealloc: %v\n", in.name, err)
		return measured{ratio: "INVALID", took: formatDuration(took)}
	}
	return measured{ratio: ratioCell(arena, lb), took: formatDuration(took)}
}

// verifyPlaced reads a solver's placement of p (a CSV with an offset per
// row, rows matched to p's buffers by id, each with p's own lives and
// size) and proves it with planner.Verify. It returns the arena.
func verifyPlaced(p *planner.Problem, path string) (int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	t, err := ir.DecodeBufferCSV(path, data)
	if err != nil {
		return 0, err
	}
	byName := make(map[string]int, len(p.Buffers))
	for i := range p.Buffers {
		byName[p.Buffers[i].Name] = i
	}
	offsets := make([]int64, len(p.Buffers))
	seen := make([]bool, len(p.Buffers))
	for k := range t.Rows {
		r := &t.Rows[k]
		i, ok := byName[r.ID]
		switch {
		case !ok || seen[i]:
			return 0, fmt.Errorf("%s:%d: buffer %q is not one of the instance's, or comes twice", path, r.Line, r.ID)
		case !r.HasOffset:
			return 0, fmt.Errorf("%s:%d: buffer %q has no offset", path, r.Line, r.ID)
		}
		b := &p.Buffers[i]
		if r.Lower != int64(b.Birth) || r.Upper != int64(b.Death)+1 || r.Size != b.Size {
			return 0, fmt.Errorf("%s:%d: buffer %q is [%d, %d) of %d bytes; the instance has [%d, %d) of %d", path, r.Line, r.ID, r.Lower, r.Upper, r.Size, b.Birth, b.Death+1, b.Size)
		}
		offsets[i], seen[i] = r.Offset, true
	}
	for i, ok := range seen {
		if !ok && p.Buffers[i].Span() > 0 {
			return 0, fmt.Errorf("%s: buffer %q is not placed", path, p.Buffers[i].Name)
		}
	}
	pl := planner.Placement{Offsets: offsets, Arena: planner.ArenaOf(p, offsets)}
	if err := planner.Verify(planner.NewPlan(p, "placed", pl)); err != nil {
		return 0, fmt.Errorf("%s: invalid placement: %w", path, err)
	}
	return pl.Arena, nil
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
