// Package protocol is the contract between memplan's page, its viewer and
// its planner worker: every request and event they exchange, as Go types
// with JSON names, and the version they share. The wasm programs only
// move these values to and from JavaScript; the rules behind them
// (defaults, fit verdicts, colours, keys) come from the planner and viz
// packages, so the page never restates them. It builds on any platform,
// so its tests run without a browser.
package protocol

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"memplan/ir"
	"memplan/planner"
)

// Version is the protocol's version, sent in every ready event. It grows
// when a message changes incompatibly.
const Version = 4

// FileTypes are the file name extensions the planner worker decodes by
// name (ir.DetectFormat also knows some formats by their first bytes):
// the page offers them in its file picker. A test holds the list to the
// decoders the worker links.
var FileTypes = []string{".json", ".onnx", ".csv"}

// Options are the planning options a page sends: planner.Options, the
// strategy, an explicit budget and the choices the decoders take.
type Options struct {
	planner.Options
	Strategy string `json:"strategy"`
	// Budget in bytes; 0 means the mode's default (WebGPU's limit in
	// f32-uniform mode, none otherwise).
	Budget int64 `json:"budget"`
	// IfBranch picks the branch of ONNX If nodes whose branches disagree.
	IfBranch string `json:"if_branch,omitempty"`
	// SymbolsText is the page's symbols field as typed ("batch=8, seq=256",
	// "total=past+seq, past=4095, seq=1"): Go reads it, with the command
	// line's grammar, and exactly, and resolves it into Symbols before
	// planning (Resolve).
	SymbolsText string `json:"symbols_text,omitempty"`
	// WebGPU names the device profile to plan for (planner.Profiles; ""
	// for none) and Binding the binding model ("arena" or "tensor").
	// Binding applies only with a profile (planner.ResolveGPU): the
	// page's binding choice stays put while no device is chosen.
	WebGPU  string `json:"webgpu,omitempty"`
	Binding string `json:"binding,omitempty"`
	// Limits are custom limits over the profile's, as the command line's
	// --limits writes them ("binding=1GiB,buffer=1GiB,offset-align=256");
	// like Binding, they apply only with a profile.
	Limits string `json:"limits,omitempty"`
	// NodeLimit is the command line's --node-limit: exact, improve and
	// auto's improvement slice stop after this many search nodes and no
	// clock stops them, so the same file and options give the same plan
	// on any machine, however loaded. 0: the clock's defaults.
	NodeLimit int64 `json:"node_limit,omitempty"`
	// TimeLimit, AutoSlice and MaxMemory are the command line's
	// --time-limit, --auto-slice and --max-memory, which the JavaScript
	// package takes as options (timeLimit, autoSlice, maxMemory); the
	// page has none of them. TimeLimit 0 is the planner's default;
	// AutoSlice 0 the default and negative none (planner.PlaceOptions);
	// MaxMemory 0 is the worker's limit (MemoryLimit).
	TimeLimit time.Duration `json:"-"`
	AutoSlice time.Duration `json:"-"`
	MaxMemory int64         `json:"-"`
	// Forward is the forward graph of a training pair, the command
	// line's --forward: the package's forward and forwardName options.
	// The file planned is a backward graph whose params take the forward
	// plan's weight slots (PlanForward).
	Forward *Forward `json:"-"`
}

// Forward is a forward graph's file: its name (whose extension picks the
// format) and bytes.
type Forward struct {
	Name string
	Data []byte
}

// MemoryLimit is the most memory that reading and planning one of o's
// files may need: MaxMemory, or the planner worker's limit
// (planner.BrowserMemoryLimit), which MaxMemory may not exceed.
func (o *Options) MemoryLimit() int64 {
	if o.MaxMemory > 0 {
		return o.MaxMemory
	}
	return planner.BrowserMemoryLimit
}

// PlaceOptions are the placement options o gives, as the command line's
// flags give them (node and time limits, auto's slice), with popts's
// other fields.
func (o *Options) PlaceOptions(popts planner.PlaceOptions) planner.PlaceOptions {
	popts.NodeLimit, popts.TimeLimit, popts.AutoSlice = o.NodeLimit, o.TimeLimit, o.AutoSlice
	return popts
}

// PlanForward plans o's forward graph, if any, as the command line's
// --forward does: with o's options but every param in the arena, and
// o's strategy; o.SharedWeights becomes where its weights sit, which
// the backward graph's params then take. Errors are a *ForwardError.
func PlanForward(ctx context.Context, o *Options, popts planner.PlaceOptions) error {
	if o.Forward == nil {
		return nil
	}
	name := o.Forward.Name
	in, err := planner.Load(name, o.Forward.Data, ir.DecodeOptions{Symbols: o.Symbols, MaxMemory: o.MemoryLimit(), IfBranch: o.IfBranch})
	if err == nil && in.Source == nil {
		err = fmt.Errorf("%s is a plan record, not a forward graph to plan", name)
	}
	var plan *planner.Plan
	if err == nil {
		fopts := o.Options
		fopts.SkipParams, fopts.SharedWeights = false, nil
		plan, err = planner.PlanSource(ctx, in.Source, fopts, o.Strategy, o.PlaceOptions(popts))
	}
	if err != nil {
		return &ForwardError{err}
	}
	w := planner.WeightLayoutOf(plan)
	w.File = name
	o.SharedWeights = w
	return nil
}

// ForwardError is what went wrong with a forward graph: its Error names
// the option as the page and the package call it ("forward: ..."); the
// command line names its flag instead.
type ForwardError struct{ Err error }

func (e *ForwardError) Error() string { return "forward: " + e.Err.Error() }
func (e *ForwardError) Unwrap() error { return e.Err }

// SetDefaults makes o the default options: a page's options object names
// only what it sets.
func (o *Options) SetDefaults() { *o = DefaultOptions() }

// ResolveGPU reads the WebGPU choices into o.GPU by planner.ResolveGPU's
// rule, the command line's: a profile names the device, and binding and
// limits apply only with one. It is a function, not a method, so that
// only the planner worker links it.
func ResolveGPU(o *Options) error {
	gpu, err := planner.ResolveGPU(o.WebGPU, o.Limits, o.Binding)
	if err != nil && o.Limits != "" && strings.HasPrefix(err.Error(), "limits:") {
		// The page's field, named, as the symbols field's errors are.
		err = fmt.Errorf("WebGPU limits field: %w", err)
	}
	o.GPU = gpu
	return err
}

// FitSearch is how the page's "largest that fits" searches (a "fit"
// request): the options' strategy and symbols, at most
// planner.DefaultMaxPlans plans, and each plan without auto's improving
// slice, so that the work is bounded by the plan count and the answer is
// the same on any machine. lower reads the file again at other symbol
// values.
// The symbols bound to expressions follow the symbol searched (o's
// symbols text, planner.FitSearch.Defs).
func FitSearch(o Options, symbol string, lower func(map[string]int64) (*planner.Problem, error)) planner.FitSearch {
	return planner.FitSearch{Symbol: symbol, Symbols: o.Symbols, Defs: o.SymbolDefs(), Lower: lower, Strategy: o.Strategy,
		Place: planner.PlaceOptions{AutoSlice: -1}, MaxPlans: planner.DefaultMaxPlans}
}

// FitSearchWith is FitSearch from a lowering that can also change the
// options (nil: none), so that when even 1 does not fit the answer's
// WhatIf can say what params skipped, tensor binding or a larger profile
// would give (planner.FitSearch.LowerWith), within the same plans.
func FitSearchWith(o Options, symbol string, lower func(map[string]int64, func(*planner.Options)) (*planner.Problem, error)) planner.FitSearch {
	s := FitSearch(o, symbol, func(syms map[string]int64) (*planner.Problem, error) { return lower(syms, nil) })
	s.LowerWith = lower
	return s
}

// Resolve reads SymbolsText into Symbols (ResolveSymbols) for a plan; an
// error names the page's field.
func (o *Options) Resolve() error { return o.ResolveFor("") }

// ResolveFor is Resolve for a fit search of symbol (FitSearch; "" for a
// plan), which needs no value of its own.
func (o *Options) ResolveFor(symbol string) error {
	if err := o.ResolveSymbols(symbol); err != nil {
		return fmt.Errorf("Symbols field: %w", err)
	}
	return nil
}

// Error is an error as events carry it: the whole message, and where.
type Error struct {
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Path    string `json:"path,omitempty"`
	Node    string `json:"node,omitempty"`
	// Need names what the user can supply to get past the error
	// (ir.Error.Need: "symbols", "if-branch"), so a host can point at it;
	// Hint says how, in the page's words, and Symbols are the symbols
	// that need values (with Need "symbols"). Message is the planner's
	// own, the command line's words without its flags.
	Need    string   `json:"need,omitempty"`
	Hint    string   `json:"hint,omitempty"`
	Symbols []string `json:"symbols,omitempty"`
	// Param is the link parameter that could not be read (link.Error).
	Param string `json:"param,omitempty"`
	// Kind says what the page can do about it: "input" (fix the file or
	// the options), "link" (the address's state does not read: fix the
	// link or drop its fragment), "memory" (the input is over the page's memory limit),
	// "bug" (a plan failed its proof: report it), "stopped" (the planner
	// is gone: reload).
	Kind string `json:"kind"`
}

// pageHint says, in the page's words, how to supply what an error needs
// (ir.Error.Need); the command line says it with its flags.
func pageHint(ie *ir.Error) string {
	switch ie.Need {
	case ir.NeedSymbols:
		if len(ie.Symbols) == 0 {
			return "Give the graph's symbols values under Symbols (name=value, e.g. batch=1)."
		}
		return fmt.Sprintf("Give %s %s under Symbols (name=value, e.g. %s=1).", andList(ie.Symbols),
			map[bool]string{true: "a value", false: "values"}[len(ie.Symbols) == 1], ie.Symbols[0])
	case ir.NeedIfBranch:
		return "Pick one with the If branch option (then or else)."
	}
	return ""
}

// andList joins names as prose: "a", "a and b", "a, b and c".
func andList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// ErrorOf describes err for the page, with its location when it has one.
func ErrorOf(err error) *Error {
	e := &Error{Message: err.Error(), Kind: "input"}
	var ie *ir.Error
	var se *ir.SymbolError
	switch {
	case errors.As(err, &ie):
		e.File, e.Line, e.Column, e.Path, e.Node, e.Need = ie.File, ie.Line, ie.Column, ie.Path, ie.Node, ie.Need
		e.Hint, e.Symbols = pageHint(ie), ie.Symbols
	case errors.As(err, &se) && se.Unknown != "":
		// A symbol an expression uses needs a value, as a file's unbound
		// symbol does: the same hint, and the same offer to search it.
		e.Need, e.Symbols = ir.NeedSymbols, []string{se.Unknown}
		e.Hint = pageHint(&ir.Error{Need: e.Need, Symbols: e.Symbols})
	}
	var mem *ir.MemoryError
	var bug *planner.UnverifiedPlanError
	var link interface{ LinkParam() string } // link.Error
	switch {
	case errors.As(err, &link):
		e.Kind, e.Param = "link", link.LinkParam()
	case errors.As(err, &mem):
		e.Kind, e.File = "memory", mem.File
	case errors.As(err, &bug):
		e.Kind = "bug"
	}
	return e
}

// FitChoices are the symbols the page's "largest that fits" offers to
// search in the file new options re-plan, in the page's words. Go says
// which (the symbols of its plan; when it did not plan for want of
// symbol values, those: a search gives the symbol searched a value at
// each trial), so the page lists them as they are.
type FitChoices struct {
	File    string      `json:"file"`
	Symbols []FitSymbol `json:"symbols"`
	// Note says why there is nothing to search, when Symbols is empty.
	Note string `json:"note,omitempty"`
}

// FitSymbol is one symbol to search, and how the page's menu lists it.
type FitSymbol struct {
	Name  string `json:"name"`
	Label string `json:"label"` // "batch (now 4)", "past (no value yet)"
}

// PlanFitChoices are the choices for a plan of file made with o, whose
// symbols had the values used: each of them with its value, sorted,
// except those bound to expressions of others, which follow the one
// searched (FitSearch) rather than being searched.
func PlanFitChoices(file string, used map[string]int64, o Options) *FitChoices {
	c := &FitChoices{File: file, Symbols: []FitSymbol{}}
	defs := o.SymbolDefs()
	names := make([]string, 0, len(used))
	for name := range used {
		if !defs.Follows(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		label := name + " (now " + decimal(used[name])
		if f := defs.Followers(name); len(f) > 0 {
			label += "; " + andList(f) + map[bool]string{true: " follows", false: " follow"}[len(f) == 1]
		}
		c.Symbols = append(c.Symbols, FitSymbol{Name: name, Label: label + ")"})
	}
	if len(c.Symbols) == 0 {
		c.Note = "This plan has no symbols to vary."
	}
	return c
}

// ErrorFitChoices are the choices for file when it failed to plan with
// e: the symbols it needs values for (e.Symbols, with Need "symbols"),
// which a search needs no value of; nothing for any other error.
func ErrorFitChoices(file string, e *Error) *FitChoices {
	c := &FitChoices{File: file, Symbols: []FitSymbol{}}
	if e.Need != ir.NeedSymbols || len(e.Symbols) == 0 {
		c.Note = file + " did not plan: there is nothing to search until it does."
		return c
	}
	for _, name := range e.Symbols {
		c.Symbols = append(c.Symbols, FitSymbol{Name: name, Label: name + " (no value yet)"})
	}
	return c
}

// PlanRequest asks the worker to plan a file. The file's bytes travel
// beside it. The command line runs auto's portfolio on every core; a
// browser gives each worker one thread, so the viewer sends the same
// request to several workers, each with its own Shard of Shards
// (planner.PlaceOptions), and keeps the answer with the smallest arena,
// ties to the lower Member; unless it is optimal, it then sends {type:
// "polish", id} to the worker whose shard won, which improves its answer
// as auto improves a whole portfolio's best (planner.PlaceOptions.From)
// and answers "planned" again: the plan the command line makes.
type PlanRequest struct {
	ID      int     `json:"id"`
	Name    string  `json:"name"`
	Options Options `json:"options"`
	Shard   int     `json:"shard"`
	Shards  int     `json:"shards"`
	// Hold: a shard > 0 of a split portfolio loads and lowers its file,
	// then waits for a "release" message with its id before placing
	// (planner.FirstMemberAlone); shard 0's "release" event says when.
	Hold bool `json:"hold,omitempty"`
	// Symbol, in a "fit" request, is the symbol whose largest value that
	// fits the options' WebGPU device the worker finds (FitSearch).
	Symbol string `json:"symbol,omitempty"`
	// Pool, in the request a page's pool sends its first worker, is the
	// number of workers: that worker's Portfolio splits the request over
	// them and routes each its shard.
	Pool int `json:"pool,omitempty"`
}

// WorkerEvent is what the planner worker posts back: "ready" once it can
// plan, "progress" while a long search runs, "release" when shard 0 of a
// split auto portfolio lets the other shards start
// (planner.FirstMemberAlone), then "planned" or "error"
// for each plan request and "explained" or "error" for each explain
// request (a superseded request ends with an error of kind
// "cancelled" that the viewer ignores). Each "planned" is followed by a
// "proof" event with the same Answer: empty once Verify accepts the
// plan, else with Error (kind "bug"); and an accepted plan's proof by a
// "tensors" event, which carries the plan's tensors as the host's table
// has them (planner.AppendTableJSON) beside it as "data". The worker
// proves the plan after posting it, while the viewer decodes and lays it
// out, and writes the tensors' JSON after the proof, while the viewer
// shows the plan: for 62,000 tensors the proof and the JSON took 0.2–0.4
// s and 0.1 s of the worker. The viewer shows no plan before its proof.
type WorkerEvent struct {
	Type    string `json:"type"`
	ID      int    `json:"id,omitempty"`
	Version int    `json:"version,omitempty"` // ready
	Message string `json:"message,omitempty"` // progress
	// Planned: the input's format and the alignment it gets when the page
	// chooses none. The plan itself travels beside the event as "plan",
	// a transferred Uint8Array in planner's binary form (AppendBinary):
	// decoding 62,000 tensors from JSON took the viewer longer than
	// planning them.
	Format           string `json:"format,omitempty"`
	DefaultAlignment int64  `json:"default_alignment,omitempty"`
	Error            *Error `json:"error,omitempty"`
	// Planned: the arena, whether it is proven smallest, and the auto
	// portfolio member that won (-1 for other strategies and records),
	// which the viewer compares across shards.
	Arena   int64 `json:"arena,omitempty"`
	Optimal bool  `json:"optimal,omitempty"`
	Member  int   `json:"member"`
	// Answer numbers a worker's "planned" events, and names the one a
	// "proof" or "tensors" event belongs to.
	Answer int `json:"answer,omitempty"`
	// Millis is where a planned request's time went, in the worker:
	// "load", "plan" (lowering, placing and making the record), "encode";
	// the proof comes after the plan is posted.
	Millis map[string]float64 `json:"millis,omitempty"`
	// Fit is the WebGPU fit report of a plan made for a device, with the
	// symbols behind each violation (which takes the decoder, so it is
	// judged here rather than in the viewer).
	Fit *planner.Fit `json:"fit,omitempty"`
	// Summary (planned) is the plan's facts under that verdict: what a
	// <memplan-plan> element's picture event tells its page.
	Summary *PlanFacts `json:"summary,omitempty"`
	// Exported (the answer to an ExportRequest): the file's name and
	// media type; its bytes travel beside the event as "data".
	Name string `json:"name,omitempty"`
	Mime string `json:"mime,omitempty"`
	// Explained: why the tensor asked lives when and sits where it does.
	Explanation *planner.Explanation `json:"explanation,omitempty"`
	// Diffed: the comparison of the two plans (planner.DiffPlans; its
	// totals are the text "memplan diff" prints) and each side's verified
	// plan record as JSON text, for a viewer to show as it is.
	Diff  *planner.Diff `json:"diff,omitempty"`
	Plans []string      `json:"plans,omitempty"`
	// Fitted (the answer to a "fit" request): the largest value of the
	// symbol that fits, the verdicts at it and the next, every trial,
	// and the answer in words (planner.SymbolFit.Describe).
	Largest *planner.SymbolFit `json:"largest,omitempty"`
	// Route ("route", from the pool's first worker) is a message the pool
	// carries to another worker, and Outcome ("outcome") how a request it
	// coordinates ended (Portfolio).
	Route   *Route   `json:"route,omitempty"`
	Outcome *Outcome `json:"outcome,omitempty"`
	// Limit (the answer to a "check" request, "checked") is the largest
	// file the page may read (planner.MaxInputBytes): a file is read no
	// further than this; Error, when set, refuses the one asked about.
	Limit int64 `json:"limit,omitempty"`
	// Errors ("verified", the answer to "verify") are why the record is
	// not a valid plan of its source, each saying where; none: it is.
	Errors []*Error `json:"errors,omitempty"`
	// Heard, on a shard's answer from a worker other than the first, is
	// what the pool forwards to the first worker's Portfolio.
	Heard *Heard `json:"heard,omitempty"`
}

// ExportRequest asks a worker to write the plan on screen as a file: What
// is "svg" (the picture, viz/svgplot), "plan" (the memplan.plan/v1 record)
// or "csv" (the placed buffers, planner.AppendBufferCSV). The plan travels
// beside it as "plan", in planner's binary form. Name is the file name without its extension; Theme and
// Budget are the picture's colours and budget line, as the viewer shows
// them, and Width and Height its size in CSS pixels (0: svgplot's).
// The worker answers with an "exported" WorkerEvent or an "error".
type ExportRequest struct {
	ID     int    `json:"id"`
	What   string `json:"what"`
	Name   string `json:"name"`
	Theme  string `json:"theme"`
	Budget int64  `json:"budget"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// WorkerRequest is any message to a planner worker, read by its Type:
// "plan" (PlanRequest, with the file as Data; with Pool, the request a
// page's pool sends its first worker, which coordinates it), "fit" (the
// largest value of Symbol that fits), "explain" (Tensor of the plan the
// worker made for request Key, or of Plan handed along), "export"
// (ExportRequest's fields, with Plan), "diff" (A and B), "warm",
// "release", "polish", "cancel" (of ID; none: whatever is in flight),
// "heard" (worker From's Event, for the Portfolio of request ID),
// "verify" (is Plan, the record named Record, a plan of Data; answered
// "verified", with the reasons it is not as Errors) and
// "check" (may the page read file Name, of Size bytes (0: unknown), or
// one that went Over the limit while it was read; answered "checked",
// with the limit).
type WorkerRequest struct {
	Type string `json:"type"`
	PlanRequest
	Data   Blob   `json:"data"`
	Key    int    `json:"key"`
	Tensor string `json:"tensor"`
	Plan   Blob   `json:"plan"`
	What   string `json:"what"`
	Theme  string `json:"theme"`
	Budget int64  `json:"budget"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Size   int64  `json:"size"`
	Over   bool   `json:"over"`
	// Attributes, in a "plan" request, are a <memplan-plan> element's
	// attributes as written, which the worker reads into the options
	// (OptionsFromAttributes) in place of Options: the element plans
	// without a viewer, and parses nothing itself.
	Attributes map[string]string `json:"attributes"`
	A          *DiffRequest      `json:"a"`
	B          *DiffRequest      `json:"b"`
	From       int               `json:"from"`
	Event      *Heard            `json:"event"`
	// Record, in a "verify" request, names the plan record that travels
	// as Plan, judged as a plan of the file in Data (VerifyRecord).
	Record string `json:"record"`
	// Forward and ForwardName, in a "plan" or "verify" request from the
	// JavaScript package, are the forward graph of a training pair (its
	// forward option): the worker sets them as the options' Forward.
	Forward     Blob   `json:"forward"`
	ForwardName string `json:"forward_name"`
	// HasID says the message named an id (a cancel without one stops
	// whatever is in flight).
	HasID bool `json:"-"`
}

// DiffRequest is one side of a "diff" request: a file (Data) and the
// options to plan it with. (The worker holds no examples: a page sends
// an example's bytes as any file's.)
type DiffRequest struct {
	Name    string  `json:"name"`
	Data    Blob    `json:"data"`
	Options Options `json:"options"`
	// Forward and ForwardName: the side's forward graph, as a request's.
	Forward     Blob   `json:"forward"`
	ForwardName string `json:"forward_name"`
}

// SetDefaults gives a side the default options before it names its own.
func (d *DiffRequest) SetDefaults() { d.Options.SetDefaults() }

// DecodeWorkerRequest reads a worker message from its tree.
func DecodeWorkerRequest(tree any) (WorkerRequest, error) {
	var r WorkerRequest
	m, ok := tree.(map[string]any)
	if !ok {
		return r, &FieldError{Field: "message", Msg: "want an object, got " + describe(tree)}
	}
	r.PlanRequest.Options.SetDefaults()
	if err := Decode(m, &r); err != nil {
		return r, err
	}
	_, r.HasID = m["id"].(float64)
	// The JavaScript package's options object ("script", in place of
	// options), read by the table (OptionsFromScript), on the request
	// and on each side of a diff.
	var err error
	if s, ok := m["script"]; ok {
		r.PlanRequest.Options, err = scriptOptions(s, "script")
	}
	for k, side := range [...]*DiffRequest{r.A, r.B} {
		key := string(rune('a' + k))
		if sm, ok := m[key].(map[string]any); ok && side != nil && err == nil {
			if s, ok := sm["script"]; ok {
				side.Options, err = scriptOptions(s, key+".script")
			}
		}
	}
	return r, err
}

func scriptOptions(tree any, path string) (Options, error) {
	o, err := OptionsFromScript(tree)
	var fe *FieldError
	if asField(err, &fe) {
		fe.Field = path + "." + fe.Field
	}
	return o, err
}

// DiffSide is one side of a "diff" request to the worker: a file (its
// bytes travel beside the request as "data") and the options to plan it
// with; a plan record is taken as it is.
type DiffSide struct {
	Name    string  `json:"name"`
	Options Options `json:"options"`
}
