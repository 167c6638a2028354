package planner

// Fit is the verdict on whether a plan's arena fits a budget. It is
// decided here once (Judge); the command line's report and exit status,
// the planner worker's answer, the viewer's summary and the page's text
// all show this, never a rule of their own.
type Fit struct {
	Budget int64  `json:"budget"` // bytes: the line a picture draws; 0 for none
	Limit  string `json:"limit"`  // what the budget is, e.g. "budget"
	Fits   bool   `json:"fits"`
	Over   int64  `json:"over,omitempty"` // bytes over, when it does not fit
	Text   string `json:"text"`           // the verdict in one line
	// For a WebGPU device (Plan.FitGPU): the binding model and limits,
	// every violation, the limits that would make the plan run, the
	// smallest named profile that has them, and the report's lines
	// after Text.
	Binding    string          `json:"binding,omitempty"`
	Limits     *Limits         `json:"limits,omitempty"`
	Violations []Violation     `json:"violations,omitempty"`
	Required   *RequiredLimits `json:"required_limits,omitempty"`
	RunsOn     string          `json:"runs_on,omitempty"`
	Lines      []string        `json:"lines,omitempty"`
}

// Judge is memplan's one fit verdict on a plan, given the budget the user
// set in bytes (0 or less: none, as the page's options, the command
// line's absent --budget and PlaceOptions.Budget all say it):
//
//   - a plan made for a WebGPU device is judged against it (FitGPU), and
//     with a budget it must fit both: Text gives both verdicts, Budget
//     the tighter line;
//   - with a budget and no device, the arena must fit the budget;
//   - with neither, an f32-uniform plan is held to WebGPU's default
//     storage-binding limit, the reason that mode exists; any other plan
//     to nothing (nil).
//
// When no plan could be made because tensor binding cannot bind some
// tensor, the verdict is FitOfLimits's. ExplainFit then names the
// symbols behind a device's violations, where the caller can lower the
// source again.
func Judge(p *Plan, budget int64) *Fit {
	dev := p.FitGPU()
	switch {
	case budget > 0 && dev != nil:
		return bothFit(dev, budgetFit(p, budget, "budget"))
	case budget > 0:
		return budgetFit(p, budget, "budget")
	case dev != nil:
		return dev
	case p.Options.F32Uniform:
		return budgetFit(p, WebGPUBindingLimit, "WebGPU's 128 MiB storage-binding limit")
	}
	return nil
}

// FitOf is Judge with a negative budget for none.
//
// Deprecated: use Judge, whose budget 0 is none, as everywhere else.
func (p *Plan) FitOf(budget int64) *Fit { return Judge(p, max(budget, 0)) }

// budgetFit judges the arena against a byte budget.
func budgetFit(p *Plan, budget int64, limit string) *Fit {
	f := &Fit{Budget: budget, Limit: limit, Fits: p.ArenaSize <= budget}
	// Concatenation rather than fmt: this is in both wasm programs.
	if f.Fits {
		f.Text = "fits " + f.limitText() + " (" + FormatBytes(p.ArenaSize) + " of " + FormatBytes(f.Budget) + ")"
	} else {
		f.Over = p.ArenaSize - f.Budget
		f.Text = "exceeds " + f.limitText() + " by " + FormatBytes(f.Over)
	}
	return f
}

// bothFit is the verdict on a plan for a device under a budget: it fits
// when it fits both. The device's report (dev, its own) stays whole; the
// line drawn is the tighter of the budget and, under arena binding, the
// binding.
func bothFit(dev, b *Fit) *Fit {
	dev.Fits = dev.Fits && b.Fits
	dev.Text += "; " + b.Text
	if dev.Budget == 0 || b.Budget < dev.Budget {
		dev.Budget, dev.Limit, dev.Over = b.Budget, b.Limit, b.Over
	}
	return dev
}

func (f *Fit) limitText() string {
	if f.Limit == "budget" {
		return "the budget of " + FormatBytes(f.Budget)
	}
	return f.Limit
}
