package planner

import "fmt"

// Fit is the verdict on whether a plan's arena fits a budget. It is
// decided here once; the command line's report, the viewer's summary
// and the page's text all show this, never a rule of their own.
type Fit struct {
	Budget int64  `json:"budget"` // bytes
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

// FitOf judges the plan against a budget in bytes. A negative budget
// means none was given: a plan made for a WebGPU device is then judged
// against it (FitGPU), an f32-uniform plan is held to WebGPU's default
// storage-binding limit, the reason that mode exists, and any other plan
// to nothing (nil).
func (p *Plan) FitOf(budget int64) *Fit {
	f := &Fit{Budget: budget, Limit: "budget"}
	switch {
	case budget >= 0:
	case p.Binding != "":
		return p.FitGPU()
	case p.Options.F32Uniform:
		f.Budget, f.Limit = WebGPUBindingLimit, "WebGPU's 128 MiB storage-binding limit"
	default:
		return nil
	}
	f.Fits = p.ArenaSize <= f.Budget
	if f.Fits {
		f.Text = fmt.Sprintf("fits %s (%s of %s)", f.limitText(), FormatBytes(p.ArenaSize), FormatBytes(f.Budget))
	} else {
		f.Over = p.ArenaSize - f.Budget
		f.Text = fmt.Sprintf("exceeds %s by %s", f.limitText(), FormatBytes(f.Over))
	}
	return f
}

func (f *Fit) limitText() string {
	if f.Limit == "budget" {
		return "the budget of " + FormatBytes(f.Budget)
	}
	return f.Limit
}
