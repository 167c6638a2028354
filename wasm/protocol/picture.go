package protocol

import "memplan/planner"

// PlanFacts are a plan's headline numbers as the summary event gives
// them (same names: arena_size, lower_bound, fit), made by the worker
// that planned it. The <memplan-plan> element's picture event carries
// them, so a docs page can say what a model needs before anyone makes
// the widget live.
type PlanFacts struct {
	Name       string `json:"name"`
	Strategy   string `json:"strategy"`
	ArenaSize  int64  `json:"arena_size"`
	LowerBound int64  `json:"lower_bound"`
	// Proven: no smaller arena exists (the summary's proven).
	Proven  bool `json:"proven"`
	Tensors int  `json:"tensors"`
	// Fit is the one verdict (planner.Judge, as the summary's fit), or
	// nil when the plan is held to nothing.
	Fit *planner.Fit `json:"fit"`
	// Text is the facts in one sentence, in Go's words, for a page to
	// show as it is.
	Text string `json:"text"`
}

// FactsOf are plan p's facts under verdict fit (nil: none), for file.
func FactsOf(file string, p *planner.Plan, fit *planner.Fit) *PlanFacts {
	f := &PlanFacts{Name: p.Name, Strategy: p.Strategy, ArenaSize: p.ArenaSize, LowerBound: p.LowerBound,
		Proven: p.Optimal || p.OptimalBySearch, Tensors: len(p.Tensors), Fit: fit}
	arena, lb := planner.ExactBytes(p.ArenaSize), planner.ExactBytes(p.LowerBound)
	switch {
	case p.ArenaSize == p.LowerBound:
		f.Text = file + " needs an arena of " + arena + ", its lower bound: no plan needs less."
	case f.Proven:
		f.Text = file + " needs an arena of " + arena + ", the smallest any plan can have (the lower bound is " + lb + ")."
	default:
		f.Text = file + " needs an arena of " + arena + " as planned here; the lower bound is " + lb + "."
	}
	if fit != nil && fit.Text != "" {
		f.Text += " It " + fit.Text + "."
	}
	return f
}

// Picture is the event a <memplan-plan> element fires when it shows its
// picture (web/embed.js): the file, the picture's size in CSS pixels and
// theme, and the facts of the plan it draws (nil when the element has no
// plan yet, e.g. a file that failed).
type Picture struct {
	File    string     `json:"file"`
	Width   int        `json:"width"`
	Height  int        `json:"height"`
	Theme   string     `json:"theme"`
	Summary *PlanFacts `json:"summary"`
}

func (Picture) Type() string { return "picture" }
