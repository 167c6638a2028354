package planner

import (
	"context"
	"fmt"

	"memplan/ir"
)

// Lower turns a decoded file into a Problem: Analyze for a graph,
// FromTable for a buffer list.
func Lower(src *ir.Source, opts Options) (*Problem, error) {
	switch {
	case src.Graph != nil:
		return Analyze(src.Graph, opts)
	case src.Buffers != nil:
		align := opts.Alignment
		if align == 0 {
			align = 1
		}
		p, err := FromTable(src.Buffers, align)
		if err != nil {
			return nil, err
		}
		p.Options.NoReuse = opts.NoReuse
		return p, nil
	}
	return nil, fmt.Errorf("empty source")
}

// PlanSource lowers a decoded file, places it with the named strategy and
// returns the plan record.
func PlanSource(ctx context.Context, src *ir.Source, opts Options, strategy string, popts PlaceOptions) (*Plan, error) {
	p, err := Lower(src, opts)
	if err != nil {
		return nil, err
	}
	pl, err := Place(ctx, p, strategy, popts)
	if err != nil {
		return nil, err
	}
	return NewPlan(p, pl.Strategy, pl), nil
}
