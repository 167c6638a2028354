package planner

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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
	// Text and Lines are the answer in words (Describe): one line, and
	// the trials and verdicts as "memplan fit" prints them.
	Text  string   `json:"text,omitempty"`
	Lines []string `json:"lines,omitempty"`
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
	r := &SymbolFit{Symbol: s.Symbol, Ceiling: s.Ceiling}
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
	for hi == nil && lo.Value < s.Ceiling {
		t, err := try(min(2*lo.Value, s.Ceiling))
		if err != nil {
			return nil, err
		}
		if t.Fits {
			lo = t
		} else {
			hi = t
		}
	}
	for hi != nil && hi.Value-lo.Value > 1 {
		t, err := try(lo.Value + (hi.Value-lo.Value)/2)
		if err != nil {
			return nil, err
		}
		if t.Fits {
			lo = t
		} else {
			hi = t
		}
	}
	r.Value, r.At, r.Next = lo.Value, lo, hi
	return r, nil
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

// at plans at one value and judges the plan against its device.
func (s *FitSearch) at(ctx context.Context, v int64) (*Trial, error) {
	syms := s.symbolsWith()
	syms[s.Symbol] = v
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
