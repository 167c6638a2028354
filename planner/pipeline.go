package planner

import (
	"context"
	"fmt"
	"runtime"

	"memplan/ir"
)

// Lower turns a decoded file into a Problem: Analyze for a graph,
// FromTable for a buffer list.
func Lower(src *ir.Source, opts Options) (*Problem, error) {
	p, err := lower(src, opts)
	if err != nil {
		return nil, err
	}
	if err := p.target(opts.GPU); err != nil {
		return nil, err
	}
	return p, nil
}

func lower(src *ir.Source, opts Options) (*Problem, error) {
	if opts.Alignment == 0 {
		opts.Alignment = DefaultAlignmentOf(src)
	}
	switch {
	case src.Graph != nil:
		return Analyze(src.Graph, opts)
	case src.Buffers != nil:
		if len(opts.Symbols) > 0 {
			return nil, &ir.Error{File: src.Buffers.Name, Msg: "a buffer list has no symbols to bind"}
		}
		p, err := FromTable(src.Buffers, opts.Alignment)
		if err != nil {
			return nil, err
		}
		p.Options.NoReuse = opts.NoReuse
		p.Options.GPU = opts.GPU
		return p, nil
	}
	return nil, fmt.Errorf("empty source")
}

// PlanSource lowers a decoded file, places it with the named strategy and
// returns the plan record, proven valid by PlanProblem.
func PlanSource(ctx context.Context, src *ir.Source, opts Options, strategy string, popts PlaceOptions) (*Plan, error) {
	p, err := Lower(src, opts)
	if err != nil {
		return nil, err
	}
	plan, _, err := PlanProblem(ctx, p, strategy, popts)
	return plan, err
}

// PlanProblem places a problem with the named strategy, builds its plan
// record and proves it with VerifyAgainst before returning it: no plan
// leaves the planner unverified. A plan that fails its proof is a bug in
// memplan, reported as an *UnverifiedPlanError, never returned.
func PlanProblem(ctx context.Context, p *Problem, strategy string, popts PlaceOptions) (*Plan, Placement, error) {
	plan, pl, prove, err := PlanProblemUnproven(ctx, p, strategy, popts)
	if err == nil {
		err = prove()
	}
	if err != nil {
		return nil, pl, err
	}
	return plan, pl, nil
}

// PlanProblemUnproven is PlanProblem with its proof handed back instead
// of run: prove runs VerifyAgainst and fails with an
// *UnverifiedPlanError. The plan must not be printed, shown or written
// before prove accepts it. The browser's planner worker posts the plan
// first and proves it while the viewer decodes it, showing it only once
// proven.
func PlanProblemUnproven(ctx context.Context, p *Problem, strategy string, popts PlaceOptions) (*Plan, Placement, func() error, error) {
	pl, err := Place(ctx, p, strategy, popts)
	if err != nil {
		return nil, pl, nil, err
	}
	plan := NewPlan(p, pl.Strategy, pl)
	prove := func() error {
		if err := VerifyAgainst(p, plan); err != nil {
			return &UnverifiedPlanError{Strategy: pl.Strategy, Err: err}
		}
		return nil
	}
	return plan, pl, prove, nil
}

// UnverifiedPlanError reports a plan that a strategy produced but Verify
// rejected: a bug in memplan, not in the input. Err names the tensors.
type UnverifiedPlanError struct {
	Strategy string
	Err      error
}

func (e *UnverifiedPlanError) Error() string {
	return fmt.Sprintf("memplan bug: strategy %s produced a plan that fails verification; please report it with the input file: %v", e.Strategy, e.Err)
}

func (e *UnverifiedPlanError) Unwrap() error { return e.Err }

// startWork starts work on a goroutine where there is a second thread (not
// in wasm, whose callers recover a panic of this one) and returns a
// function that waits for its result (call it once); with one thread the
// work runs when that function is called.
func startWork[T any](work func() T) func() T {
	if runtime.GOMAXPROCS(0) == 1 {
		return work
	}
	ch := make(chan T, 1)
	go func() { ch <- work() }()
	return func() T { return <-ch }
}
