package planner

import (
	"context"
	"errors"
	"fmt"
	"maps"

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

// at plans at one value and judges the plan against its device.
func (s *FitSearch) at(ctx context.Context, v int64) (*Trial, error) {
	syms := maps.Clone(s.Symbols)
	if syms == nil {
		syms = map[string]int64{}
	}
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
	syms := maps.Clone(s.Symbols)
	if syms == nil {
		syms = map[string]int64{}
	}
	syms[s.Symbol] = r.Next.Value
	p, err := s.Lower(syms)
	if err != nil {
		return err
	}
	return ExplainFit(r.Next.Fit, p.Symbols, s.Lower)
}

// Describe puts the answer into words for device g, filling Text and
// Lines: the command line prints Lines as comments, the page shows Text
// above them, so both say the same.
func (r *SymbolFit) Describe(g *GPU) {
	name := r.Symbol
	device := fmt.Sprintf("WebGPU profile %s (%s binding)", g.Limits.Profile, g.Binding)
	lines := []string{fmt.Sprintf("the largest %s that fits %s, by planning at each value:", name, device)}
	for _, t := range r.Trials {
		verdict := "does not fit"
		if t.Fits {
			verdict = "fits"
		}
		if t.Arena > 0 {
			verdict += ", arena " + FormatBytes(t.Arena)
		}
		lines = append(lines, fmt.Sprintf("  %s=%d: %s", name, t.Value, verdict))
	}
	verdict := func(f *Fit) {
		if f == nil {
			return
		}
		lines = append(lines, f.Text)
		for _, l := range f.Lines {
			lines = append(lines, "  "+l)
		}
	}
	// What stops a value, in one line: its first violation.
	stop := func(t *Trial) string {
		if t == nil || t.Fit == nil {
			return ""
		}
		f := t.Fit
		if len(f.Violations) == 0 || len(f.Lines) == 0 {
			return ": " + f.Text
		}
		why := ": " + f.Lines[0]
		if n := len(f.Violations); n > 1 {
			why += fmt.Sprintf(" (and %d more)", n-1)
		}
		return why
	}
	switch {
	case r.At == nil:
		r.Text = fmt.Sprintf("%s=0: even %s=1 does not fit %s%s", name, name, device, stop(r.Next))
		lines = append(lines, fmt.Sprintf("even %s=1 needs more than the device has:", name))
		if r.Next != nil {
			verdict(r.Next.Fit)
		}
	case r.Next == nil:
		r.Text = fmt.Sprintf("%s=%d: every %s up to %d fits %s", name, r.Value, name, r.Ceiling, device)
		lines = append(lines, fmt.Sprintf("checked: %s=%d was planned, proven and fits", name, r.Value),
			fmt.Sprintf("every %s up to %d fits: it does not limit this plan", name, r.Ceiling))
	default:
		r.Text = fmt.Sprintf("%s=%d: the largest %s that fits %s; at %s=%d%s", name, r.Value, name, device, name, r.Next.Value, stop(r.Next))
		lines = append(lines, fmt.Sprintf("checked: %s=%d was planned, proven and fits", name, r.Value),
			fmt.Sprintf("%s=%d was planned and does not fit:", name, r.Next.Value))
		verdict(r.Next.Fit)
	}
	r.Lines = lines
}
