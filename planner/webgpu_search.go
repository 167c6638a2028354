package planner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"memplan/ir"
)

// The largest size that fits: the largest value of one symbol (sequence
// length, batch, image side) for which a plan fits a WebGPU device, found
// by planning again and again. Each plan is a real one, proven by
// PlanProblem, so the answer is checked at the value and the next.

// Trial is one value the search planned at, and the verdict.
type Trial struct {
	Value int64 `json:"value"`
	Fits  bool  `json:"fits"`
	Arena int64 `json:"arena"` // 0 when no plan was made (a tensor too large to bind)
	Fit   *Fit  `json:"fit"`
	// Follow are the values the symbols that follow the searched one
	// (SymbolFit.Follows) took at Value.
	Follow map[string]int64 `json:"follow,omitempty"`
}

// SymbolFit is the answer of LargestFit.
type SymbolFit struct {
	Symbol string `json:"symbol"`
	// Follows are the definitions of the symbols whose values follow
	// Symbol's, as written ("total=past+1"): each trial resolves them at
	// its value (FitSearch.Defs).
	Follows []string `json:"follows,omitempty"`
	// Value is the largest value found that fits; 0 when even 1 does not.
	Value int64 `json:"value"`
	// At and Next are the trials at Value and Value+1: what fits and
	// what stops the next value. At is nil when Value is 0; Next is nil
	// when every value up to the ceiling fits.
	At   *Trial `json:"at"`
	Next *Trial `json:"next"`
	// Ceiling is the largest value the search tries.
	Ceiling int64   `json:"ceiling"`
	Trials  []Trial `json:"trials"`
	// When even 1 does not fit (WhatIf): Weights are the bytes the plan's
	// weights (params) take in the arena at 1, WeightsOver whether they
	// alone are over the device, and Changes what each change that could
	// help gives.
	Weights     int64       `json:"weights,omitempty"`
	WeightsOver bool        `json:"weights_over,omitempty"`
	Changes     []FitChange `json:"changes,omitempty"`
	// Text and Lines are the answer in words (Describe): one line, and
	// the trials and verdicts as "memplan fit" prints them.
	Text  string   `json:"text,omitempty"`
	Lines []string `json:"lines,omitempty"`
}

// FitChange is what one change of the options gives when even 1 does not
// fit: the largest value that fits with it, searched as LargestFit
// searches, within what is left of the plans.
type FitChange struct {
	// Change says what changes: "params skipped", "tensor binding",
	// "profile ios".
	Change string `json:"change"`
	// Value is the largest value found that fits with it; 0 when even 1
	// does not. AtLeast: the plans ran out first, so Value fits and
	// larger values were not all tried.
	Value   int64 `json:"value"`
	AtLeast bool  `json:"at_least,omitempty"`
	Plans   int   `json:"plans"`
}

// FitSearch says how LargestFit plans.
type FitSearch struct {
	Symbol  string
	Symbols map[string]int64 // the other symbols' values, as the user set them (without Defs)
	// Defs, when set, are the symbols as the user bound them, expressions
	// of others included; Symbols is then not read. Each trial resolves
	// them with Symbol at its value (ir.SymbolDefs.Resolve), so that a
	// symbol bound to an expression of Symbol follows it:
	// total_sequence_length=past_sequence_length+1 while
	// past_sequence_length is searched. Symbol itself must not be bound
	// to an expression of others (a value is fine: the search replaces it).
	Defs ir.SymbolDefs
	// Lower reads the source with these symbol values and lowers it for
	// the device (Options.GPU set): the caller's loader, so an ONNX
	// model's shapes are inferred again at each value.
	Lower    func(symbols map[string]int64) (*Problem, error)
	Strategy string
	Place    PlaceOptions
	// LowerWith, when set, is Lower with the options changed by change
	// (nil: none), for WhatIf.
	LowerWith func(symbols map[string]int64, change func(*Options)) (*Problem, error)
	// MaxPlans bounds the plans made; zero means DefaultMaxPlans.
	MaxPlans int
	// Ceiling is the largest value tried; zero means DefaultCeiling.
	Ceiling int64
}

const (
	// DefaultMaxPlans is enough for the doubling and the halving up to
	// DefaultCeiling, with room.
	DefaultMaxPlans = 100
	// DefaultCeiling: no sequence, batch or image side is larger.
	DefaultCeiling = 1 << 32
)

// LargestFit finds the largest value of s.Symbol for which the plan fits
// its device: it doubles from 1 until a value does not fit, then halves
// the interval between the last value that fits and the first that does
// not, so it ends with a value that fits next to one that does not,
// both planned. Arenas are not strictly monotone in a symbol (placement
// is a heuristic), so a larger value may fit again; the answer is the
// boundary the search meets first. An error after the first plan (the
// plans ran out) comes with what fit so far: Value and At, Next nil.
func LargestFit(ctx context.Context, s FitSearch) (*SymbolFit, error) {
	if s.MaxPlans <= 0 {
		s.MaxPlans = DefaultMaxPlans
	}
	if s.Ceiling <= 0 {
		s.Ceiling = DefaultCeiling
	}
	r := &SymbolFit{Symbol: s.Symbol, Ceiling: s.Ceiling}
	if def, ok := s.Defs.Lookup(s.Symbol); ok && s.Defs.Follows(s.Symbol) {
		return nil, &ir.SymbolError{Symbol: s.Symbol, Msg: "the search sets " + s.Symbol + ", but it is bound to " + def.String() +
			": search a symbol it uses, or give it no expression"}
	}
	for _, name := range s.Defs.Followers(s.Symbol) {
		def, _ := s.Defs.Lookup(name)
		r.Follows = append(r.Follows, def.String())
	}
	try := func(v int64) (*Trial, error) {
		if len(r.Trials) >= s.MaxPlans {
			return nil, fmt.Errorf("fit %s: no answer within %d plans", s.Symbol, s.MaxPlans)
		}
		t, err := s.at(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("%s=%d: %w", s.Symbol, v, err)
		}
		r.Trials = append(r.Trials, *t)
		return t, nil
	}
	t, err := try(1)
	if err != nil {
		return nil, err
	}
	if !t.Fits {
		r.Next = t
		return r, nil
	}
	lo, hi := t, (*Trial)(nil)
	for err == nil && (hi == nil && lo.Value < s.Ceiling || hi != nil && hi.Value-lo.Value > 1) {
		v := min(2*lo.Value, s.Ceiling) // doubling until a value does not fit
		if hi != nil {
			v = lo.Value + (hi.Value-lo.Value)/2 // then halving
		}
		if t, err = try(v); err == nil && t.Fits {
			lo = t
		} else if err == nil {
			hi = t
		}
	}
	r.Value, r.At = lo.Value, lo
	if err == nil {
		r.Next = hi
	}
	return r, err
}

// symbolsAt is every symbol's value with the searched one at v: the
// definitions resolved at v, else a copy of the other symbols' values
// with v added. (A loop rather than maps.Clone, whose runtime support
// costs the planner worker's wasm more.)
func (s *FitSearch) symbolsAt(v int64) (map[string]int64, error) {
	if len(s.Defs) > 0 {
		return s.Defs.Resolve(map[string]int64{s.Symbol: v})
	}
	syms := make(map[string]int64, len(s.Symbols)+1)
	for k, v := range s.Symbols {
		syms[k] = v
	}
	syms[s.Symbol] = v
	return syms, nil
}

// at plans at one value and judges the plan against its device.
func (s *FitSearch) at(ctx context.Context, v int64) (*Trial, error) {
	syms, err := s.symbolsAt(v)
	if err != nil {
		if v > 1 { // past some value the definitions fail (overflow): nothing past it fits
			return &Trial{Value: v, Fit: &Fit{Text: "the symbols do not resolve with " + s.Symbol + "=" + strconv.FormatInt(v, 10) + ": " + err.Error()}}, nil
		}
		return nil, err
	}
	var follow map[string]int64
	for _, name := range s.Defs.Followers(s.Symbol) {
		if follow == nil {
			follow = map[string]int64{}
		}
		follow[name] = syms[name]
	}
	t, err := s.judge(ctx, v, syms)
	if t != nil {
		t.Follow = follow
	}
	return t, err
}

// judge plans with the symbols of the trial at v and judges the plan
// against its device.
func (s *FitSearch) judge(ctx context.Context, v int64, syms map[string]int64) (*Trial, error) {
	p, err := s.Lower(syms)
	if err == nil && p.GPU == nil {
		err = errors.New("the problem is not planned for a WebGPU device")
	}
	var plan *Plan
	if err == nil {
		plan, _, err = PlanProblem(ctx, p, s.Strategy, s.Place)
	}
	var tooLarge *LimitError
	switch {
	case errors.As(err, &tooLarge):
		f := FitOfLimits(tooLarge)
		return &Trial{Value: v, Fit: f}, nil
	case errors.Is(err, ir.ErrOverflow):
		// Sizes past what memplan counts are past any device too.
		return &Trial{Value: v, Fit: &Fit{Text: "sizes overflow: " + err.Error()}}, nil
	case errors.As(err, new(*ir.Error)) && v > 1:
		// The model itself takes no such value (a position table of 512
		// rows takes no longer sequence): past it, nothing fits.
		return &Trial{Value: v, Fit: &Fit{Text: fmt.Sprintf("the source does not plan with %s=%d: %v", s.Symbol, v, err)}}, nil
	case err != nil:
		return nil, err
	}
	f := plan.FitGPU()
	return &Trial{Value: v, Fits: f.Fits, Arena: plan.ArenaSize, Fit: f}, nil
}

// Explain names the symbols behind the violations that stop Next, by
// lowering once more per symbol (Fit.Drivers).
func (r *SymbolFit) Explain(s FitSearch) error {
	if r.Next == nil || r.Next.Fit == nil || len(r.Next.Fit.Violations) == 0 {
		return nil // nothing to explain, or the source itself refused the value
	}
	syms, err := s.symbolsAt(r.Next.Value)
	if err != nil {
		return err
	}
	p, err := s.Lower(syms)
	if err != nil {
		return err
	}
	return ExplainFit(r.Next.Fit, p.Symbols, s.Defs, s.Lower)
}

// Describe puts the answer into words for device g, filling Text and
// Lines: the command line prints Lines as comments, the page shows Text
// above them, so both say the same. (Concatenation rather than fmt keeps
// the planner worker's wasm small.)
func (r *SymbolFit) Describe(g *GPU) {
	name := r.Symbol
	at := func(v int64) string { return name + "=" + strconv.FormatInt(v, 10) }
	device := "WebGPU profile " + g.Limits.Profile + " (" + g.Binding + " binding)"
	lines := []string{"the largest " + name + " that fits " + device + ", by planning at each value:"}
	if len(r.Follows) > 0 {
		lines[0] = "the largest " + name + " that fits " + device + ", by planning at each value, with " +
			strings.Join(r.Follows, ", ") + " following it:"
	}
	for _, t := range r.Trials {
		verdict := "does not fit"
		if t.Fits {
			verdict = "fits"
		}
		if t.Arena > 0 {
			verdict += ", arena " + FormatBytes(t.Arena)
		}
		// The followers' values at this one, in the order they are defined.
		follow := ""
		for _, f := range r.Follows {
			k, _, _ := strings.Cut(f, "=")
			if v, ok := t.Follow[k]; ok {
				follow += ", " + k + "=" + strconv.FormatInt(v, 10)
			}
		}
		if follow != "" {
			follow = " (" + follow[2:] + ")"
		}
		lines = append(lines, "  "+at(t.Value)+follow+": "+verdict)
	}
	// What stops a value, in one line: its first violation.
	stop, report := "", []string(nil)
	if r.Next != nil && r.Next.Fit != nil {
		f := r.Next.Fit
		stop, report = ": "+f.Text, []string{f.Text}
		if len(f.Violations) > 0 && len(f.Lines) > 0 {
			stop = ": " + f.Lines[0]
			if n := len(f.Violations); n > 1 {
				stop += " (and " + strconv.Itoa(n-1) + " more)"
			}
		}
		for _, l := range f.Lines {
			report = append(report, "  "+l)
		}
	}
	checked := "checked: " + at(r.Value) + " was planned, proven and fits"
	switch {
	case r.At == nil:
		r.Text = at(0) + ": even " + at(1) + " does not fit " + device + stop
		lines = append(append(lines, "even "+at(1)+" needs more than the device has:"), report...)
	case r.Next == nil:
		every := "every " + name + " up to " + strconv.FormatInt(r.Ceiling, 10) + " fits"
		r.Text = at(r.Value) + ": " + every + " " + device
		lines = append(lines, checked, every+": it does not limit this plan")
	default:
		r.Text = at(r.Value) + ": the largest " + name + " that fits " + device + "; at " + at(r.Next.Value) + stop
		lines = append(append(lines, checked, at(r.Next.Value)+" was planned and does not fit:"), report...)
	}
	r.Lines = lines
}

// WhatIf, when even 1 does not fit (At nil) and s.LowerWith is set, says
// whether the weights alone are over the device, and what each change
// that could help gives: params skipped, tensor binding, the smallest
// named profile that holds the plan at 1. Each is searched as LargestFit
// searches, together within the plans the search left of s.MaxPlans; a
// change whose plans ran out has AtLeast. It adds what it finds to Text
// and Lines, so it comes after Describe. (A method the caller calls, as
// Explain is: a program that does not call it links none of it.)
func (r *SymbolFit) WhatIf(ctx context.Context, s FitSearch) error {
	if r.At != nil || r.Next == nil || r.Next.Fit == nil || r.Next.Fit.Limits == nil || s.LowerWith == nil {
		return nil
	}
	f, name := r.Next.Fit, s.Symbol
	l := *f.Limits
	syms, err := s.symbolsAt(1)
	if err != nil {
		return err
	}
	p, err := s.Lower(syms)
	if err != nil {
		return err
	}
	binding := min(l.MaxStorageBufferBindingSize, l.MaxBufferSize)
	for i := range p.Buffers {
		if b := &p.Buffers[i]; p.Tensors[b.Tensor].Kind == KindParam {
			r.Weights += b.Span()
			// Tensor binding: a weight that no binding or buffer holds.
			r.WeightsOver = r.WeightsOver || f.Binding == BindTensor && (b.Size > l.MaxStorageBufferBindingSize || b.Span() > p.Cut)
		}
	}
	if f.Binding == BindArena {
		r.WeightsOver = alignUp(r.Weights, 4) > binding
	}
	// The changes that could help, each a search of its own.
	changes := [...]string{"params skipped", "tensor binding", "profile " + f.RunsOn}
	use := [...]bool{r.Weights > 0, f.Binding == BindArena, f.RunsOn != "" && f.RunsOn != l.Profile}
	count := 0
	for _, u := range use {
		if u {
			count++
		}
	}
	left := max(s.MaxPlans, 0) - len(r.Trials)
	if s.MaxPlans <= 0 {
		left = DefaultMaxPlans - len(r.Trials)
	}
	for k, c := range changes {
		if !use[k] {
			continue
		}
		alt := s
		alt.MaxPlans, count = left/count, count-1 // what the others leave
		if alt.MaxPlans < 1 {
			break
		}
		alt.Lower = func(syms map[string]int64) (*Problem, error) {
			return s.LowerWith(syms, func(o *Options) {
				switch k {
				case 0:
					o.SkipParams = true
				case 1:
					o.GPU = &GPU{Binding: BindTensor, Limits: l}
				default:
					pl, _ := ProfileLimits(f.RunsOn)
					o.GPU = &GPU{Binding: f.Binding, Limits: pl}
				}
			})
		}
		a, err := LargestFit(ctx, alt)
		if a == nil {
			return err
		}
		left -= len(a.Trials)
		r.Changes = append(r.Changes, FitChange{Change: c, Value: a.Value, AtLeast: err != nil, Plans: len(a.Trials)})
	}
	// In words, after Describe's.
	at := func(v int64) string { return name + "=" + strconv.FormatInt(v, 10) }
	if r.WeightsOver {
		// The arena grows with the symbol (its drivers, above) on top of
		// the weights, which are over the device at any value: no value
		// helps while they are in the arena.
		weights := "a weight alone is over a binding of the device: no " + name + " fits"
		if f.Binding == BindArena {
			weights = "the weights alone take " + FormatBytes(r.Weights) + " of the arena, over the device's " + FormatBytes(binding) +
				" binding: no " + name + " fits while they are in it"
		}
		r.Text += "; " + weights
		r.Lines = append(r.Lines, weights)
	}
	if len(r.Changes) > 0 {
		r.Lines = append(r.Lines, "what would change it, each searched the same way:")
		sep := "; with "
		for _, c := range r.Changes {
			got, short := at(c.Value)+" fits", at(c.Value)
			switch {
			case c.Value == 0:
				got = "even " + at(1) + " does not fit"
			case c.AtLeast:
				got, short = got+", and larger values were not all tried (the plans ran out)", short+" or more"
			}
			r.Lines = append(r.Lines, "  "+c.Change+": "+got)
			r.Text += sep + c.Change + " " + short
			sep = ", "
		}
	}
	return nil
}
