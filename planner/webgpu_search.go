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
}

// SymbolFit is the answer of LargestFit.
type SymbolFit struct {
	Symbol string `json:"symbol"`
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
	// When even 1 does not fit: Weights are the bytes the plan's weights
	// (params) take in the arena at 1, WeightsOver whether they alone
	// are over the device, and Changes what each change that could help
	// gives (FitSearch.LowerWith).
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
	Symbols map[string]int64 // the other symbols' values, as the user set them
	// Lower reads the source with these symbol values and lowers it for
	// the device (Options.GPU set): the caller's loader, so an ONNX
	// model's shapes are inferred again at each value.
	Lower    func(symbols map[string]int64) (*Problem, error)
	Strategy string
	Place    PlaceOptions
	// LowerWith, when set, is Lower with the options changed by change
	// (nil: none). When even 1 does not fit, LargestFit asks it what
	// each change that could help gives: params skipped, tensor binding,
	// the smallest named profile that holds the plan at 1; within
	// MaxPlans, all the searches together.
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
// boundary the search meets first.
func LargestFit(ctx context.Context, s FitSearch) (*SymbolFit, error) {
	if s.MaxPlans <= 0 {
		s.MaxPlans = DefaultMaxPlans
	}
	if s.Ceiling <= 0 {
		s.Ceiling = DefaultCeiling
	}
	r, first, err := s.search(ctx)
	switch {
	case err != nil:
		return nil, err
	case r.Next == nil && r.Value < s.Ceiling:
		return nil, fmt.Errorf("fit %s: no answer within %d plans", s.Symbol, s.MaxPlans)
	case r.At == nil && first != nil && s.LowerWith != nil:
		// Even 1 does not fit: say whether the weights alone are over
		// the device, and what would change it.
		if err := s.whatIf(ctx, r, first); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// search is LargestFit's search. Out of plans, it answers what it has:
// Value fits, and Next is nil below the ceiling. first is the problem at
// 1, when it was lowered.
func (s *FitSearch) search(ctx context.Context) (r *SymbolFit, first *Problem, err error) {
	r = &SymbolFit{Symbol: s.Symbol, Ceiling: s.Ceiling}
	try := func(v int64) (*Trial, error) {
		if len(r.Trials) >= s.MaxPlans {
			return nil, nil
		}
		t, p, err := s.at(ctx, v)
		if err != nil {
			return nil, fmt.Errorf("%s=%d: %w", s.Symbol, v, err)
		}
		if v == 1 {
			first = p
		}
		r.Trials = append(r.Trials, *t)
		return t, nil
	}
	t, err := try(1)
	if t == nil {
		return r, first, err
	}
	if !t.Fits {
		r.Next = t
		return r, first, nil
	}
	lo, hi := t, (*Trial)(nil)
	for hi == nil && lo.Value < s.Ceiling {
		t, err := try(min(2*lo.Value, s.Ceiling))
		if t == nil {
			r.Value, r.At = lo.Value, lo
			return r, first, err
		}
		if t.Fits {
			lo = t
		} else {
			hi = t
		}
	}
	for hi != nil && hi.Value-lo.Value > 1 {
		t, err := try(lo.Value + (hi.Value-lo.Value)/2)
		if t == nil {
			r.Value, r.At = lo.Value, lo
			return r, first, err
		}
		if t.Fits {
			lo = t
		} else {
			hi = t
		}
	}
	r.Value, r.At, r.Next = lo.Value, lo, hi
	return r, first, nil
}

// whatIf fills r's Weights and Changes when even 1 does not fit: the
// bytes of the weights the arena holds at 1 (p, lowered at 1), whether
// they alone are over the device, and the search again with each change
// that could help, sharing the plans left.
func (s *FitSearch) whatIf(ctx context.Context, r *SymbolFit, p *Problem) error {
	g := p.GPU
	if g == nil {
		return nil
	}
	for i := range p.Buffers {
		if b := &p.Buffers[i]; p.Tensors[b.Tensor].Kind == KindParam {
			r.Weights += b.Span()
		}
	}
	switch {
	case g.Binding == BindArena:
		r.WeightsOver = alignUp(r.Weights, 4) > min(g.Limits.MaxStorageBufferBindingSize, g.Limits.MaxBufferSize)
	case r.Next.Fit != nil:
		// Tensor binding: over when a weight is a tensor no binding holds.
		for _, v := range r.Next.Fit.Violations {
			for i := range p.Tensors {
				if t := &p.Tensors[i]; t.Name == v.Tensor && t.Kind == KindParam {
					r.WeightsOver = true
				}
			}
		}
	}
	type change struct {
		name string
		do   func(*Options)
	}
	var changes []change
	if r.Weights > 0 {
		changes = append(changes, change{"params skipped", func(o *Options) { o.SkipParams = true }})
	}
	if g.Binding == BindArena {
		changes = append(changes, change{"tensor binding", func(o *Options) { o.GPU = &GPU{Binding: BindTensor, Limits: g.Limits} }})
	}
	if f := r.Next.Fit; f != nil && f.RunsOn != "" && f.RunsOn != g.Limits.Profile {
		if l, err := ProfileLimits(f.RunsOn); err == nil {
			changes = append(changes, change{"profile " + f.RunsOn, func(o *Options) { o.GPU = &GPU{Binding: g.Binding, Limits: l} }})
		}
	}
	left := s.MaxPlans - len(r.Trials)
	for k, c := range changes {
		alt := *s
		alt.LowerWith = nil
		alt.Lower = func(syms map[string]int64) (*Problem, error) { return s.LowerWith(syms, c.do) }
		alt.MaxPlans = left / (len(changes) - k) // what the others leave
		if alt.MaxPlans < 1 {
			break
		}
		a, _, err := alt.search(ctx)
		if err != nil {
			return err
		}
		left -= len(a.Trials)
		r.Changes = append(r.Changes, FitChange{Change: c.name, Value: a.Value, AtLeast: a.At != nil && a.Next == nil && a.Value < s.Ceiling, Plans: len(a.Trials)})
	}
	return nil
}

// symbolsWith is a copy of the other symbols' values, for one trial to
// add its own to. (A loop rather than maps.Clone, whose runtime support
// costs the planner worker's wasm more.)
func (s *FitSearch) symbolsWith() map[string]int64 {
	syms := make(map[string]int64, len(s.Symbols)+1)
	for k, v := range s.Symbols {
		syms[k] = v
	}
	return syms
}

// at plans at one value and judges the plan against its device; p is
// the problem it lowered (nil when the source refused the value).
func (s *FitSearch) at(ctx context.Context, v int64) (t *Trial, p *Problem, err error) {
	syms := s.symbolsWith()
	syms[s.Symbol] = v
	p, err = s.Lower(syms)
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
		return &Trial{Value: v, Fit: f}, p, nil
	case errors.Is(err, ir.ErrOverflow):
		// Sizes past what memplan counts are past any device too.
		return &Trial{Value: v, Fit: &Fit{Text: "sizes overflow: " + err.Error()}}, nil, nil
	case errors.As(err, new(*ir.Error)) && v > 1:
		// The model itself takes no such value (a position table of 512
		// rows takes no longer sequence): past it, nothing fits.
		return &Trial{Value: v, Fit: &Fit{Text: fmt.Sprintf("the source does not plan with %s=%d: %v", s.Symbol, v, err)}}, nil, nil
	case err != nil:
		return nil, nil, err
	}
	f := plan.FitGPU()
	return &Trial{Value: v, Fits: f.Fits, Arena: plan.ArenaSize, Fit: f}, p, nil
}

// Explain names the symbols behind the violations that stop Next, by
// lowering once more per symbol (Fit.Drivers).
func (r *SymbolFit) Explain(s FitSearch) error {
	if r.Next == nil || r.Next.Fit == nil || len(r.Next.Fit.Violations) == 0 {
		return nil // nothing to explain, or the source itself refused the value
	}
	syms := s.symbolsWith()
	syms[s.Symbol] = r.Next.Value
	p, err := s.Lower(syms)
	if err != nil {
		return err
	}
	return ExplainFit(r.Next.Fit, p.Symbols, s.Lower)
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
	for _, t := range r.Trials {
		verdict := "does not fit"
		if t.Fits {
			verdict = "fits"
		}
		if t.Arena > 0 {
			verdict += ", arena " + FormatBytes(t.Arena)
		}
		lines = append(lines, "  "+at(t.Value)+": "+verdict)
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
		why := stop
		if r.WeightsOver && g.Binding == BindArena {
			why = ": the weights alone are " + FormatBytes(r.Weights) + ", over its " +
				FormatBytes(min(g.Limits.MaxStorageBufferBindingSize, g.Limits.MaxBufferSize)) + " binding, whatever " + name + " is"
		} else if r.WeightsOver {
			why += " (a weight: whatever " + name + " is)"
		}
		r.Text = at(0) + ": even " + at(1) + " does not fit " + device + why
		lines = append(append(lines, "even "+at(1)+" needs more than the device has:"), report...)
		if len(r.Changes) > 0 {
			// What would change it, each searched as this was.
			var short []string
			lines = append(lines, "what would change it, each searched the same way:")
			for _, c := range r.Changes {
				got := at(c.Value) + " fits"
				switch {
				case c.Value == 0:
					got = "even " + at(1) + " does not fit"
				case c.AtLeast:
					got += ", and larger values were not all tried (the plans ran out)"
				}
				lines = append(lines, "  "+c.Change+": "+got)
				if c.AtLeast {
					short = append(short, c.Change+" "+at(c.Value)+" or more")
				} else {
					short = append(short, c.Change+" "+at(c.Value))
				}
			}
			r.Text += "; with " + strings.Join(short, ", ")
		}
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
