// Command memplan plans the memory arena of a compute graph, checks plans,
// and estimates whether a model fits a memory budget.
//
//	memplan plan [flags] FILE          print the report (or --json the plan record)
//	memplan verify [flags] FILE PLAN   check a plan record against its source
//	memplan explain [flags] FILE NAME  why tensor NAME lives when and sits where it does
//	memplan diff [flags] A [B]         compare two plans (records or inputs to plan)
//	memplan estimate [flags] FILE      activation + weights + inputs vs a budget
//	memplan fit --symbol NAME --webgpu PROFILE [flags] FILE
//	                                   the largest NAME that fits a WebGPU device
//	memplan moe [flags]                mixture-of-experts offload estimate
//	memplan strategies                 list the placement strategies
//
// FILE is graph JSON (memplan.graph/v1), a buffer CSV (id,lower,upper,size)
// or an ONNX model. Exit status: 0 ok, 1 bad input or usage, 3 over
// budget (--budget, the --webgpu device, or WebGPU's binding limit in
// f32-uniform mode), 4 an invalid plan record (verify), 5 a memplan bug
// (a plan that failed its own proof). Go itself exits with 2 when the program crashes, so no
// verdict uses 2.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"memplan/ir"
	_ "memplan/ir/onnx" // ONNX models wherever graphs are accepted
	"memplan/planner"
	"memplan/viz/svgplot"
	"memplan/wasm/protocol"
)

const (
	exitOK         = 0
	exitBadInput   = 1
	exitOverBudget = 3
	exitBadPlan    = 4
	exitBug        = 5
)

// version is set at link time (-ldflags "-X main.version=..."); a plain
// build reports the module build information instead.
var version = ""

const usage = `memplan plans the memory arena of ML compute graphs.

Usage:
  memplan plan [flags] FILE          plan FILE and print the report (--json: the plan record)
  memplan verify [flags] FILE PLAN   check that the plan record PLAN is valid for FILE
  memplan explain [flags] FILE NAME  plan FILE and say why tensor NAME lives when it does
                                     and sits where it does (--json: the record)
  memplan diff [flags] A [B]         compare two plans: arena, bound, tensors that moved
  memplan estimate [flags] FILE      estimate activation + weights + inputs; --budget checks it
  memplan fit --symbol NAME --webgpu PROFILE [flags] FILE
                                     the largest NAME for which the plan fits the device
  memplan moe [flags]                mixture-of-experts offload: experts resident per layer
  memplan strategies                 list the placement strategies
  memplan version                    print memplan's version (also --version)

FILE is graph JSON (memplan.graph/v1), a buffer CSV (id,lower,upper,size, as
MiniMalloc publishes) or an ONNX model (.onnx). Flags may come before or after
FILE. "memplan COMMAND -h" lists a command's flags.

Exit status: 0 ok; 1 bad input or usage; 3 over budget (the message says
by how much), over the --webgpu device, or in f32-uniform mode over
WebGPU's 128 MiB binding; 4 the plan record is invalid (verify); 5 a bug
in memplan: a plan failed its own proof (please report it). 2 is only
Go's own crash status.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: testable, returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitBadInput
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "plan":
		err = cmdPlan(ctx, rest, stdout, stderr)
	case "verify":
		err = cmdVerify(ctx, rest, stdout, stderr)
	case "diff":
		err = cmdDiff(ctx, rest, stdout, stderr)
	case "estimate":
		err = cmdEstimate(ctx, rest, stdout, stderr)
	case "fit":
		err = cmdFit(ctx, rest, stdout, stderr)
	case "explain":
		err = cmdExplain(ctx, rest, stdout, stderr)
	case "moe":
		err = cmdMoE(rest, stdout, stderr)
	case "strategies":
		width := 0
		for _, s := range planner.Strategies() {
			width = max(width, len(s.Name))
		}
		for _, s := range planner.Strategies() {
			fmt.Fprintf(stdout, "%-*s  %s\n", width, s.Name, s.Doc)
		}
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, "memplan", buildVersion())
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
	default:
		err = usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
	return report(err, stderr)
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

type badPlanError struct{ err error }

func (e badPlanError) Error() string { return e.err.Error() }

func report(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	// Messages quote names, but not every part of every message is
	// memplan's own words (a file name, a system error): each line is
	// escaped, so that none reaches the terminal's controls.
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(stderr, "memplan:", ir.Escape(line))
	}
	var ie *ir.Error
	var se *ir.SymbolError
	switch {
	case errors.As(err, &ie) && ie.Need == ir.NeedSymbols:
		fmt.Fprintln(stderr, "memplan: bind them with --set name=value")
	case errors.As(err, &ie) && ie.Need == ir.NeedIfBranch:
		fmt.Fprintln(stderr, "memplan: pick one with --if-branch then|else")
	case errors.As(err, &se) && se.Unknown != "":
		fmt.Fprintf(stderr, "memplan: give it a value with --set %s=value\n", se.Unknown)
	}
	var budget *planner.BudgetError
	var bad badPlanError
	var bug *planner.UnverifiedPlanError
	switch {
	case errors.As(err, &budget), errors.As(err, new(notFitError)):
		return exitOverBudget
	case errors.As(err, &bad):
		return exitBadPlan
	case errors.As(err, &bug):
		return exitBug
	case errors.As(err, new(usageError)):
		fmt.Fprintln(stderr, `run "memplan -h" or "memplan COMMAND -h" for usage`)
	}
	return exitBadInput
}

// planFlags are the flags shared by the commands that plan: the planning
// options, registered from protocol's table (the flags a link's
// parameters and <memplan-plan>'s attributes spell the same options as),
// and the command line's own.
type planFlags struct {
	opts      protocol.Options // what the table's flags set
	forward   string
	timeLimit time.Duration
	autoSlice sliceFlag
	maxMemory string
	gpu       *planner.GPU // set by verify from the record, over opts' device
	// search is the symbol fit searches: --set's expressions resolve
	// without a value of it (protocol.Options.ResolveSymbols).
	search string
	// setFlags names the flags the symbols came from, for their errors
	// ("" is --set).
	setFlags string
}

func (f *planFlags) register(fs *flag.FlagSet) {
	f.opts = protocol.DefaultOptions()
	table := protocol.OptionTable()
	for i := range table {
		// --budget is plan's alone: estimate and moe take a budget of
		// another kind, and the others judge nothing.
		if opt := &table[i]; opt.Flag != "" && opt.Flag != "budget" {
			f.registerOption(fs, opt)
		}
	}
	fs.StringVar(&f.forward, "forward", "", "plan FILE as a backward graph whose params share this forward graph's weight slots")
	fs.DurationVar(&f.timeLimit, "time-limit", 0, "time limit for searching strategies such as exact (default 10s unless --node-limit is given)")
	fs.Var(&f.autoSlice, "auto-slice", "cap auto's improving of its portfolio's answer at this `duration` (0 turns it off); by default its node budget alone bounds it (100 nodes a buffer, at most 500,000, and 1.5e11/buffers above 300,000 buffers), so the same input gives the same plan on any machine; an answer still over 1 % above the bound gets 40 nodes a buffer more, and before those other seeds (where its busiest steps lie far apart, peaks first; above 2,000 buffers, best fit in breadth lasting and dying orders) get slices of their own, the smallest going on; above 2,000 buffers, its start from before its slice goes again beside it, twice, with two other seeds, all three stopping once one has stayed within 1 % of the bound for 5 nodes a buffer")
	fs.StringVar(&f.maxMemory, "max-memory", "", "refuse inputs whose planning would need more `memory` than this (default 8GiB)")
}

// registerOption adds the flag of one of the table's options.
func (f *planFlags) registerOption(fs *flag.FlagSet, opt *protocol.Option) {
	usage := opt.Usage()
	if d := opt.DefaultWords(); d != "" {
		usage += " (default " + d + ")"
	}
	fs.Var(optionFlag{opt, &f.opts}, opt.Flag, usage)
}

// optionFlag is one of the table's options as a flag: its text is read
// and written by the table.
type optionFlag struct {
	opt *protocol.Option
	o   *protocol.Options
}

func (v optionFlag) String() string {
	if v.opt == nil { // the flag package's zero value, for its help
		return ""
	}
	// "" at the default, which the help then leaves to the table's words.
	if s, ok := v.opt.Format(v.o); ok {
		return s
	}
	return ""
}

func (v optionFlag) Set(s string) error { return v.opt.ParseRepeated(v.o, s) }

func (v optionFlag) IsBoolFlag() bool { return v.opt != nil && v.opt.Switch }

// options are the planner's options the flags give, checked by the
// table's rules (protocol.Options.Validate, as the page's are).
func (f *planFlags) options() (planner.Options, error) {
	if err := f.opts.Validate(); err != nil {
		return f.opts.Options, usageError{flagError(err)}
	}
	// --set's definitions, every flag read, evaluated once into the
	// values everything after binds (the record keeps those).
	if err := f.opts.ResolveSymbols(f.search); err != nil {
		flags := f.setFlags
		if flags == "" {
			flags = "--set"
		}
		return f.opts.Options, fmt.Errorf("%s: %w", flags, err)
	}
	o := f.opts.Options
	// Zero has a meaning for these (none, or the default); a negative
	// value has none, and is an error rather than a guess.
	switch {
	case f.timeLimit < 0:
		return o, usageError{fmt.Sprintf("--time-limit %v is negative", f.timeLimit)}
	case f.autoSlice.d < 0:
		return o, usageError{fmt.Sprintf("--auto-slice %v is negative (0 for none)", f.autoSlice.d)}
	}
	if f.gpu != nil {
		o.GPU = f.gpu
		return o, nil
	}
	// Binding and limits apply only with a profile (planner.ResolveGPU);
	// typed without one they would be dropped, so they are an error.
	if f.opts.WebGPU == "" && (f.opts.Binding != "" || f.opts.Limits != "") {
		return o, usageError{"--binding and --limits apply to a WebGPU device: name its profile with --webgpu (default: any device)"}
	}
	gpu, err := planner.ResolveGPU(f.opts.WebGPU, f.opts.Limits, f.opts.Binding)
	if err != nil {
		return o, usageError{err.Error()}
	}
	o.GPU = gpu
	return o, nil
}

// flagError names the flag of an option Validate refused.
func flagError(err error) string {
	fe, ok := err.(*protocol.FieldError)
	if !ok {
		return err.Error()
	}
	field, _, _ := strings.Cut(fe.Field, ".")
	if opt := protocol.OptionByJSON(field); opt != nil && opt.Flag != "" {
		return "--" + opt.Flag + ": " + fe.Msg
	}
	return fe.Error()
}

func (f *planFlags) placeOptions(stderr io.Writer) planner.PlaceOptions {
	start := time.Now()
	progress := func(msg string) {
		if time.Since(start) >= progressAfter {
			fmt.Fprintln(stderr, msg)
		}
	}
	return planner.PlaceOptions{TimeLimit: f.timeLimit, NodeLimit: f.opts.NodeLimit, AutoSlice: f.slice(), Progress: progress}
}

// progressAfter is how long a command runs before the planner's progress
// reaches stderr: a plan done sooner says nothing there that its detail
// line does not. (Exact limits its own reports to one a second.)
var progressAfter = time.Second

// slice is --auto-slice as PlaceOptions.AutoSlice takes it.
func (f *planFlags) slice() time.Duration {
	slice := f.autoSlice.d // unset: zero, PlaceOptions' node budget alone
	if f.autoSlice.set && slice <= 0 {
		slice = -1 // PlaceOptions: negative is none
	}
	return slice
}

// protocolOptions are the flags as protocol's Options, which the page's
// worker takes: the table's options, and the limits kept apart here.
func (f *planFlags) protocolOptions(memoryLimit int64) protocol.Options {
	o := f.opts
	o.TimeLimit, o.AutoSlice, o.MaxMemory = f.timeLimit, f.slice(), memoryLimit
	return o
}

// buildVersion is the version stamped at link time, else the module's
// version and VCS revision from the build information.
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown version)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v += " " + s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v
}

// parse parses flags that may appear before and after the positional
// arguments, as in "memplan plan model.onnx --json".
func parse(fs *flag.FlagSet, args []string, stderr io.Writer, positional int) ([]string, error) {
	// -h lists the flags; a wrong flag gets one line saying what is wrong
	// and a pointer to -h, not the whole list.
	fs.SetOutput(io.Discard)
	help := false
	fs.Usage = func() {
		if help {
			fs.SetOutput(stderr)
			fmt.Fprintf(stderr, "Usage of memplan %s:\n", fs.Name())
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}
	var pos []string
	for {
		help = slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" })
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{fmt.Sprintf("%s: %v", fs.Name(), err)}
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if positional >= 0 && len(pos) != positional { // -1: the command checks
		return nil, usageError{fmt.Sprintf("%s wants %d file argument(s), got %d", fs.Name(), positional, len(pos))}
	}
	return pos, nil
}

// load decodes a file in any format memplan reads, within the memory
// limit; Go's garbage collector is told the same limit.
func load(f *planFlags, name string, symbols map[string]int64) (*ir.Source, error) {
	in, err := loadInput(f, name, symbols)
	switch {
	case err != nil:
		return nil, err
	case in.Source == nil:
		return nil, usageError{fmt.Sprintf("%s is a plan record, not a graph or buffer list to plan (memplan verify checks a record against its source)", name)}
	}
	return in.Source, nil
}

// loadInput reads and decodes a file, a plan record included, within the
// memory limit: the file's size is checked before it is read.
func loadInput(f *planFlags, name string, symbols map[string]int64) (*planner.Input, error) {
	limit, err := f.memoryLimit()
	if err != nil {
		return nil, err
	}
	debug.SetMemoryLimit(limit)
	data, err := readInput(name, limit)
	if err == nil {
		var in *planner.Input
		if in, err = planner.Load(name, data, ir.DecodeOptions{Symbols: symbols, MaxMemory: limit, IfBranch: f.opts.IfBranch}); err == nil {
			return in, nil
		}
	}
	return nil, inputError(err)
}

// inputError says what went wrong reading input in the command line's
// words: the --forward flag where protocol names the page's option, and
// how to raise the memory limit where that was the trouble.
func inputError(err error) error {
	if fe := (*protocol.ForwardError)(nil); errors.As(err, &fe) {
		err = fmt.Errorf("--forward: %w", fe.Err)
	}
	if mem := (*ir.MemoryError)(nil); errors.As(err, &mem) {
		return fmt.Errorf("%w (raise it with --max-memory)", err)
	}
	return err
}

// readInput reads a file within what a memory limit allows any input
// (planner.MaxInputBytes), refusing a larger one before reading it: by
// its size when it is a regular file, else (a pipe, a device, standard
// input) by reading no more than one byte past the allowance.
func readInput(name string, memoryLimit int64) ([]byte, error) {
	file, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, err
	}
	size := int64(-1)
	if info.Mode().IsRegular() {
		size = info.Size()
	}
	return readLimited(name, file, size, memoryLimit)
}

// readLimited reads r, the contents of name, whose size is known (>= 0)
// or not (-1), refusing more than planner.MaxInputBytes(memoryLimit).
func readLimited(name string, r io.Reader, size, memoryLimit int64) ([]byte, error) {
	most := planner.MaxInputBytes(memoryLimit)
	if err := planner.CheckInput(name, size, memoryLimit); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if size > 0 {
		b.Grow(int(size) + 1) // one more, to see the end without growing
	}
	n, err := b.ReadFrom(io.LimitReader(r, most+1))
	if err != nil {
		return nil, err
	}
	if n > most { // a stream, or a file that grew
		return nil, planner.StreamTooLarge(name, memoryLimit)
	}
	return b.Bytes(), nil
}

func (f *planFlags) memoryLimit() (int64, error) {
	if f.maxMemory == "" {
		return planner.DefaultMemoryLimit, nil
	}
	limit, err := planner.ParseSize(f.maxMemory)
	if err != nil || limit == 0 {
		return 0, usageError{fmt.Sprintf("--max-memory %q: want a positive size such as 8GiB", f.maxMemory)}
	}
	return limit, nil
}

// lower decodes FILE and lowers it to a Problem, with the forward graph's
// weight layout when --forward is given.
func lower(ctx context.Context, f *planFlags, file string, stderr io.Writer) (*planner.Problem, error) {
	opts, err := f.options()
	if err != nil {
		return nil, err
	}
	return lowerWith(ctx, f, opts, file, stderr)
}

// lowerWith is lower with the options given.
func lowerWith(ctx context.Context, f *planFlags, opts planner.Options, file string, stderr io.Writer) (*planner.Problem, error) {
	var err error
	if opts.SharedWeights, err = forwardWeights(ctx, f, opts, stderr); err != nil {
		return nil, err
	}
	src, err := load(f, file, opts.Symbols)
	if err != nil {
		return nil, err
	}
	return planner.Lower(src, opts)
}

// forwardWeights plans the --forward graph, if any, as the page's worker
// does (protocol.PlanForward), and returns where its weights sit.
func forwardWeights(ctx context.Context, f *planFlags, opts planner.Options, stderr io.Writer) (*planner.WeightLayout, error) {
	if f.forward == "" {
		return nil, nil
	}
	limit, err := f.memoryLimit()
	if err != nil {
		return nil, err
	}
	debug.SetMemoryLimit(limit)
	data, err := readInput(f.forward, limit)
	if err == nil {
		o := f.protocolOptions(limit)
		o.Options = opts
		o.Forward = &protocol.Forward{Name: f.forward, Data: data}
		if err = protocol.PlanForward(ctx, &o, f.placeOptions(stderr)); err == nil {
			return o.SharedWeights, nil
		}
	} else {
		err = &protocol.ForwardError{Err: err}
	}
	return nil, inputError(err)
}

func cmdPlan(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	asJSON := fs.Bool("json", false, "print the plan record (memplan.plan/v1) instead of the report")
	f.registerOption(fs, protocol.OptionByJSON("budget"))
	out := fs.String("o", "", "write to this file instead of standard output")
	svgOut := fs.String("svg", "", "also write the plan's picture to this `file`, as SVG")
	csvOut := fs.String("csv", "", "also write the placed buffers with their offsets to this `file`, as a buffer CSV (id,lower,upper,size,offset)")
	pos, err := parse(fs, args, stderr, 1)
	if err != nil {
		return err
	}
	budget := f.opts.Budget // 0: none
	p, err := lower(ctx, &f, pos[0], stderr)
	if err != nil {
		return err
	}
	opts := f.placeOptions(stderr)
	opts.Budget = budget
	plan, pl, prove, err := planner.PlanProblemUnproven(ctx, p, f.opts.Strategy, opts)
	var tooLarge *planner.LimitError
	if errors.As(err, &tooLarge) {
		// No plan binds these tensors: the report says why and what would.
		fit := planner.FitOfLimits(tooLarge)
		if err := planner.ExplainFit(fit, p.Symbols, f.opts.SymbolDefs(), relower(ctx, &f, pos[0], stderr)); err != nil {
			return err
		}
		writeFit(stdout, fit)
		return notFitError{fit}
	}
	if err != nil {
		return err
	}
	// The proof runs beside the rendering of the table or the record, the
	// costliest steps after placing on large problems, which otherwise
	// leave the second core idle; nothing is written before it accepts
	// the plan, and its failure goes before any other.
	proved := make(chan error, 1)
	go func() { proved <- prove() }()
	var body bytes.Buffer
	if *asJSON {
		enc := json.NewEncoder(&body)
		enc.SetIndent("", "  ")
		err = enc.Encode(plan)
	} else {
		err = plan.WriteReport(&body)
	}
	if err := <-proved; err != nil {
		return err
	}
	if err != nil {
		return err
	}
	if err := writeExports(plan, budget, *svgOut, *csvOut); err != nil {
		return err
	}
	w := stdout
	if *out != "" {
		file, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer file.Close()
		w = file
	}
	// The verdict is the planner's (Judge): over --budget, over the
	// --webgpu device, or in f32-uniform mode with neither over WebGPU's
	// binding limit, exit status 3.
	fit := planner.Judge(plan, budget)
	if err := planner.ExplainFit(fit, p.Symbols, f.opts.SymbolDefs(), relower(ctx, &f, pos[0], stderr)); err != nil {
		return err
	}
	if *asJSON {
		_, err = w.Write(body.Bytes())
	} else {
		err = writeSummary(w, plan, pl, fit, body.Bytes())
	}
	if err != nil {
		return err
	}
	if fit == nil || fit.Fits {
		return nil
	}
	if err := plan.ArenaFitsIn(budget); budget > 0 && err != nil {
		return err // the arena, the budget and the bound, in its words
	}
	if *asJSON { // the report went to the record; say why here
		writeFit(stderr, fit)
	}
	return notFitError{fit}
}

// notFitError is a plan that does not fit its WebGPU device, or in
// f32-uniform mode WebGPU's storage-binding limit: exit status 3, like a
// budget it exceeds.
type notFitError struct{ fit *planner.Fit }

func (e notFitError) Error() string { return e.fit.Text }

// writeFit writes a WebGPU fit report as comment lines.
func writeFit(w io.Writer, fit *planner.Fit) {
	fmt.Fprintf(w, "# %s\n", ir.Escape(fit.Text))
	for _, l := range fit.Lines {
		fmt.Fprintf(w, "#   %s\n", ir.Escape(l))
	}
}

// relower lowers FILE again with other symbol values, for the fit
// report's question of which symbols drive a size.
func relower(ctx context.Context, f *planFlags, file string, stderr io.Writer) func(map[string]int64) (*planner.Problem, error) {
	with := relowerWith(ctx, f, file, stderr)
	return func(syms map[string]int64) (*planner.Problem, error) { return with(syms, nil) }
}

// relowerWith is relower with the options changed by change (nil: none),
// for fit's question of what would make a plan fit that does not at 1.
func relowerWith(ctx context.Context, f *planFlags, file string, stderr io.Writer) func(map[string]int64, func(*planner.Options)) (*planner.Problem, error) {
	return func(syms map[string]int64, change func(*planner.Options)) (*planner.Problem, error) {
		g := *f
		// These values, as they are: resolved already (FitSearch.Defs).
		g.opts.Symbols, g.opts.SymbolsText, g.search = syms, "", ""
		opts, err := g.options()
		if err != nil {
			return nil, err
		}
		if change != nil {
			change(&opts)
		}
		return lowerWith(ctx, &g, opts, file, stderr)
	}
}

// writeExports writes the plan's picture and its buffer CSV to the files
// named, if any: both or neither. Each is made in memory first, so that
// one the plan cannot give (a name a CSV id cannot carry) leaves no file;
// a file that cannot be written removes the one written before it.
func writeExports(plan *planner.Plan, budget int64, svgFile, csvFile string) error {
	type export struct {
		file string
		data []byte
	}
	var out []export
	if svgFile != "" {
		// The budget line is the verdict's: the tighter of the budget and
		// the device's binding, else f32-uniform's WebGPU limit, else none.
		fit := planner.Judge(plan, budget)
		var line int64
		if fit != nil {
			line = fit.Budget
		}
		var b bytes.Buffer
		if err := svgplot.Write(&b, plan, svgplot.Options{Budget: line}); err != nil {
			return err
		}
		out = append(out, export{svgFile, b.Bytes()})
	}
	if csvFile != "" {
		b, err := plan.AppendBufferCSV(nil)
		if err != nil {
			return err
		}
		out = append(out, export{csvFile, b})
	}
	for k, e := range out {
		if err := os.WriteFile(e.file, e.data, 0o644); err != nil {
			for _, done := range out[:k] {
				os.Remove(done.file)
			}
			return err
		}
	}
	return nil
}

// cmdExplain plans FILE with the plan flags and explains one tensor of
// the verified plan: its producer, last reader and the buffers it had to
// avoid.
func cmdExplain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	asJSON := fs.Bool("json", false, "print the explanation record instead of the text")
	pos, err := parse(fs, args, stderr, 2)
	if err != nil {
		return err
	}
	p, err := lower(ctx, &f, pos[0], stderr)
	if err != nil {
		return err
	}
	plan, _, err := planner.PlanProblem(ctx, p, f.opts.Strategy, f.placeOptions(stderr))
	if err != nil {
		return err
	}
	e, err := planner.Explain(plan, pos[1])
	if err != nil {
		return usageError{err.Error()}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(e)
	}
	_, err = io.WriteString(stdout, e.Text)
	return err
}

// writeSummary writes a few human lines, then the report (the plan's
// WriteReport, rendered before: table).
func writeSummary(w io.Writer, plan *planner.Plan, pl planner.Placement, fit *planner.Fit, table []byte) error {
	optimal := ""
	switch {
	case plan.Optimal:
		optimal = " (optimal: the arena is the aligned lower bound)"
	case plan.OptimalBySearch:
		optimal = " (optimal by exact's search)"
	}
	// Names as ir.Display shows them, free text escaped: a name cannot
	// forge a line of the report or reach the terminal's controls.
	fmt.Fprintf(w, "# %s: %d tensors, %d steps, strategy %s%s\n", ir.Display(plan.Name), len(plan.Tensors), plan.Steps, ir.Display(plan.Strategy), optimal)
	fmt.Fprintf(w, "# arena %s, lower bound %s, fragmentation %.4f, saved %s of %s\n",
		planner.FormatBytes(plan.ArenaSize), planner.FormatBytes(plan.LowerBound), plan.Fragmentation,
		planner.FormatBytes(plan.Saved), planner.FormatBytes(plan.TotalUnshared))
	if alb := plan.AlignedLowerBound; alb > plan.LowerBound {
		// Padding that alignment forces is no placement's fault: say how
		// much of the gap it explains.
		fmt.Fprintf(w, "# counting %d-byte alignment the bound is %s; the arena is %.2f%% above it\n",
			plan.Alignment, planner.FormatBytes(alb), 100*float64(plan.ArenaSize-alb)/float64(alb))
	}
	if fit != nil {
		writeFit(w, fit)
	}
	for _, r := range plan.PhaseRuns() {
		fmt.Fprintf(w, "# phase %s: steps %d-%d, peak %s live\n", ir.Display(r.Phase), r.First, r.Last, planner.FormatBytes(r.Peak))
	}
	if pl.Detail != "" {
		fmt.Fprintf(w, "# %s\n", ir.Escape(pl.Detail))
	}
	for _, n := range plan.Notes {
		fmt.Fprintf(w, "# note: %s\n", ir.Escape(n))
	}
	_, err := w.Write(table)
	return err
}

func cmdVerify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	pos, err := parse(fs, args, stderr, 2)
	if err != nil {
		return err
	}
	limit, err := f.memoryLimit()
	if err != nil {
		return err
	}
	// The record states the options it is judged by; the flags only plan
	// the forward graph, but a bad one is still an error, not ignored.
	if _, err := f.options(); err != nil {
		return err
	}
	debug.SetMemoryLimit(limit)
	// The page's worker judges with the same function: only reading the
	// files and the words around the verdict are the command line's.
	read := func(name string) ([]byte, error) { return readInput(name, limit) }
	record, err := read(pos[1])
	var source []byte
	if err == nil {
		source, err = read(pos[0])
	}
	o := f.protocolOptions(limit)
	if err == nil && f.forward != "" {
		var data []byte
		if data, err = read(f.forward); err != nil {
			err = &protocol.ForwardError{Err: err}
		}
		o.Forward = &protocol.Forward{Name: f.forward, Data: data}
	}
	var plan *planner.Plan
	var invalid []error
	if err == nil {
		plan, invalid, err = protocol.VerifyRecord(ctx, pos[0], source, pos[1], record, o, limit)
	}
	switch {
	case err != nil:
		return inputError(err)
	case invalid != nil:
		// Everything wrong with the record, from a field given twice to
		// an overlap, is the verdict "invalid" (exit 4); what is wrong
		// with the source or the command is bad input.
		return badPlanError{errors.Join(invalid...)}
	}
	fmt.Fprintf(stdout, "ok: %s is a valid plan for %s (%d tensors, arena %d bytes, %.4f × lower bound)\n",
		ir.Display(pos[1]), ir.Display(pos[0]), len(plan.Tensors), plan.ArenaSize, plan.Fragmentation)
	return nil
}

func cmdEstimate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("estimate", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	budgetFlag := fs.String("budget", "", "memory budget (bytes, 512MiB, 16GiB); default: --soft of physical memory")
	soft := fs.Float64("soft", 0.80, "share of physical memory used as the default budget")
	asJSON := fs.Bool("json", false, "print the estimate as JSON")
	pos, err := parse(fs, args, stderr, 1)
	if err != nil {
		return err
	}
	budget, err := budgetOrSoft(*budgetFlag, *soft)
	if err != nil {
		return err
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	src, err := load(&f, pos[0], opts.Symbols)
	if err != nil {
		return err
	}
	if src.Graph == nil {
		return usageError{"estimate needs a graph (JSON or ONNX), not a buffer list"}
	}
	e, _, err := planner.EstimateGraph(ctx, src.Graph, opts, f.opts.Strategy, f.placeOptions(stderr))
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			planner.Estimate
			Budget int64 `json:"budget"`
		}{e, budget}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "activation %s\nweights    %s\ninputs     %s\npeak       %s\nbudget     %s\n",
			planner.FormatBytes(e.Activation), planner.FormatBytes(e.Weights), planner.FormatBytes(e.Inputs),
			planner.FormatBytes(e.Peak), planner.FormatBytes(budget))
	}
	return e.FitsIn(budget)
}

func cmdMoE(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("moe", flag.ContinueOnError)
	var m planner.MoE
	expert := fs.String("expert-bytes", "", "bytes of one expert's weights (e.g. 64MiB)")
	base := fs.String("base", "0", "bytes of everything else: activations, dense weights, inputs")
	budgetFlag := fs.String("budget", "", "memory budget; default: --soft of physical memory")
	soft := fs.Float64("soft", 0.80, "share of physical memory used as the default budget")
	fs.IntVar(&m.Layers, "layers", 0, "number of MoE layers")
	fs.IntVar(&m.ExpertsPerLayer, "experts", 0, "experts per layer")
	fs.IntVar(&m.MaxResident, "max-resident", 0, "cap on resident experts per layer (0: no cap)")
	fs.Float64Var(&m.Reserve, "reserve", 0.1, "fraction of the budget kept free")
	if _, err := parse(fs, args, stderr, 0); err != nil {
		return err
	}
	var err error
	if m.ExpertBytes, err = planner.ParseSize(*expert); err != nil {
		return usageError{"--expert-bytes: " + err.Error()}
	}
	if m.BaseBytes, err = planner.ParseSize(*base); err != nil {
		return usageError{"--base: " + err.Error()}
	}
	if m.Budget, err = budgetOrSoft(*budgetFlag, *soft); err != nil {
		return err
	}
	r, err := planner.PlanMoE(m)
	var budget *planner.BudgetError
	if err != nil && !errors.As(err, &budget) {
		return usageError{err.Error()}
	}
	fmt.Fprintf(stdout, "resident experts per layer %d of %d (%d offloaded)\npeak   %s\nusable %s (budget %s less %.0f%% reserve)\n",
		r.ResidentPerLayer, m.ExpertsPerLayer, r.Offloaded, planner.FormatBytes(r.Peak), planner.FormatBytes(r.Usable),
		planner.FormatBytes(m.Budget), m.Reserve*100)
	return err
}

func budgetOrSoft(flagValue string, soft float64) (int64, error) {
	if flagValue != "" {
		b, err := planner.ParseSize(flagValue)
		if err != nil {
			return 0, usageError{"--budget: " + err.Error()}
		}
		return b, nil
	}
	phys, err := physicalMemory()
	if err != nil {
		return 0, usageError{"no --budget given and physical memory unknown: " + err.Error()}
	}
	return planner.SoftBudget(phys, soft), nil
}

// physicalMemory reads MemTotal from /proc/meminfo.
func physicalMemory() (int64, error) {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no MemTotal in /proc/meminfo")
}

func cmdFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	symbol := fs.String("symbol", "", "the symbol to make as large as fits (sequence length, batch, ...)")
	maxPlans := fs.Int("max-plans", planner.DefaultMaxPlans, "give up after this many plans")
	pos, err := parse(fs, args, stderr, 1)
	if err != nil {
		return err
	}
	if *symbol == "" {
		return usageError{"fit needs --symbol NAME"}
	}
	f.search = *symbol // it needs no value under --set: the search gives it each
	if *maxPlans < 1 {
		return usageError{fmt.Sprintf("--max-plans %d: want at least one plan", *maxPlans)}
	}
	opts, err := f.options()
	if err != nil {
		return err
	}
	if opts.GPU == nil {
		return usageError{"fit needs a device: --webgpu PROFILE"}
	}
	// Symbols bound to expressions of the one searched follow it: each
	// trial resolves --set's definitions at its value.
	search := planner.FitSearch{Symbol: *symbol, Symbols: opts.Symbols, Defs: f.opts.SymbolDefs(), Lower: relower(ctx, &f, pos[0], stderr),
		LowerWith: relowerWith(ctx, &f, pos[0], stderr), Strategy: f.opts.Strategy, Place: f.placeOptions(stderr), MaxPlans: *maxPlans}
	r, err := planner.LargestFit(ctx, search)
	if err != nil {
		return err
	}
	if err := r.Explain(search); err != nil {
		return err
	}
	r.Describe(opts.GPU)
	if err := r.WhatIf(ctx, search); err != nil { // when even 1 does not fit
		return err
	}
	for _, l := range r.Lines {
		fmt.Fprintf(stdout, "# %s\n", ir.Escape(l))
	}
	fmt.Fprintf(stdout, "%s=%d\n", ir.Display(r.Symbol), r.Value)
	if r.At == nil { // the answer in one line: why, and what would change it
		return notFitError{&planner.Fit{Text: r.Text}}
	}
	return nil
}

// cmdDiff compares two plans. Each side is a plan record, used as it is,
// or an input planned with the plan flags; the -b flags change side B
// only, so one file compares with itself under another strategy, in
// f32-uniform mode or with other symbol values.
func cmdDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var f planFlags
	f.register(fs)
	strategyB := fs.String("strategy-b", "", "plan side B with this strategy (default: --strategy)")
	f32B := fs.Bool("f32-uniform-b", false, "plan side B with every tensor stored as f32")
	var symbolsB []string
	fs.Func("set-b", "bind symbols for side B only, over --set: `sym=value`[,sym=value] (repeatable; a value may be an expression, as --set's)", func(v string) error {
		_, err := ir.ParseSymbolDefs(v) // read as it comes; resolved with --set's once all are read
		symbolsB = append(symbolsB, v)
		return err
	})
	asJSON := fs.Bool("json", false, "print the comparison record as JSON instead of the table")
	pos, err := parse(fs, args, stderr, -1)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usageError{fmt.Sprintf("diff wants A and B, or one file A to compare with itself under the -b flags; got %d file arguments", len(pos))}
	}
	fileB := pos[0]
	if len(pos) == 2 {
		fileB = pos[1]
	}
	fb := f
	if *strategyB != "" {
		fb.opts.Strategy = *strategyB
		if err := fb.opts.Validate(); err != nil {
			return usageError{"--strategy-b: " + err.(*protocol.FieldError).Msg}
		}
	}
	fb.opts.F32Uniform = f.opts.F32Uniform || *f32B
	// B's definitions over --set's, as --set given again would be.
	if len(symbolsB) > 0 {
		fb.setFlags = "--set and --set-b"
	}
	for _, text := range symbolsB {
		if err := protocol.OptionByJSON("symbols_text").ParseRepeated(&fb.opts, text); err != nil {
			return fmt.Errorf("--set-b: %w", err)
		}
	}
	pa, labelA, err := planSide(ctx, &f, pos[0], stderr)
	if err != nil {
		return err
	}
	pb, labelB, err := planSide(ctx, &fb, fileB, stderr)
	if err != nil {
		return err
	}
	d := planner.DiffPlans(pa, pb, labelA, labelB)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	return d.WriteTable(stdout)
}

// planSide reads one side of a diff: a plan record as it is (Load has
// verified it), else the input planned with f. The label names the file
// and what it was planned with.
func planSide(ctx context.Context, f *planFlags, file string, stderr io.Writer) (*planner.Plan, string, error) {
	opts, err := f.options()
	if err != nil {
		return nil, "", err
	}
	if opts.SharedWeights, err = forwardWeights(ctx, f, opts, stderr); err != nil {
		return nil, "", err
	}
	in, err := loadInput(f, file, opts.Symbols)
	if err != nil {
		return nil, "", err
	}
	if in.Plan != nil {
		return in.Plan, planner.DiffLabel(file, in.Plan, true), nil
	}
	p, err := planner.Lower(in.Source, opts)
	if err != nil {
		return nil, "", err
	}
	plan, _, err := planner.PlanProblem(ctx, p, f.opts.Strategy, f.placeOptions(stderr))
	if err != nil {
		return nil, "", err
	}
	return plan, planner.DiffLabel(file, plan, false), nil
}

// sliceFlag is --auto-slice: unset, auto's slice is its node budget
// alone; set, a time cap on it, and 0 none.
type sliceFlag struct {
	d   time.Duration
	set bool
}

func (s *sliceFlag) String() string {
	if s == nil || !s.set {
		return ""
	}
	return s.d.String()
}

func (s *sliceFlag) Set(text string) error {
	d, err := time.ParseDuration(text)
	if err != nil {
		return errors.New("want a duration such as 500ms or 2s")
	}
	s.d, s.set = d, true
	return nil
}
