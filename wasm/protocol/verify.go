package protocol

import (
	"context"
	"errors"
	"fmt"

	"memplan/ir"
	"memplan/planner"
)

// VerifyRecord judges a plan record as `memplan verify` does (the
// command line calls it): the record (a file named recordName) must
// read, pass planner.Verify, and be a plan of the source file
// (sourceName) lowered with the options the record itself states. o
// gives only what reading the source takes (its If branch) and, as the
// command line's flags do, its forward graph and how to plan that
// (strategy, limits): the forward plan is made with the record's
// options, and its weight slots are where the record's params must sit.
// memoryLimit bounds every file, as the worker's limit does.
//
// A record that fails is invalid: its reasons come back as a list, each
// saying where, and err is nil. A record that fails on its own is still
// compared with its source when the source lowers: a stale fingerprint
// then comes with the field that differs. err is what is wrong with the
// source or the limits (a file that does not decode, one too large to
// read): no verdict, as the command line's bad input. The plan is the
// record as read, when it reads.
func VerifyRecord(ctx context.Context, sourceName string, source []byte, recordName string, record []byte, o Options, memoryLimit int64) (plan *planner.Plan, invalid []error, err error) {
	wrong := func(errs ...error) (*planner.Plan, []error, error) {
		return plan, []error{fmt.Errorf("%s: %w", recordName, errors.Join(errs...))}, nil
	}
	if !planner.IsPlanRecord(record) {
		return wrong(errors.New(`not a plan record: want a JSON object with "format": "` + planner.PlanFormat + `"`))
	}
	if err := planner.CheckRecordSize(recordName, int64(len(record)), memoryLimit); err != nil {
		return nil, nil, err
	}
	if plan, err = planner.DecodePlan(recordName, record); err != nil {
		return nil, []error{err}, nil // it names the file and the place
	}
	alone := planner.Verify(plan)
	// The options the record states, and its device: the check is of
	// what the plan claims to be, by the rules the options are read by.
	stated := Options{Options: plan.Options}
	if err := stated.Validate(); err != nil {
		return wrong(alone, fmt.Errorf("options: %w", err))
	}
	opts := plan.Options
	opts.GPU = nil
	if plan.Limits != nil {
		opts.GPU = &planner.GPU{Binding: plan.Binding, Limits: *plan.Limits}
	}
	if o.Forward != nil {
		fo := o
		fo.Options = opts
		if err := PlanForward(ctx, &fo, planner.PlaceOptions{}); err != nil {
			return nil, nil, err
		}
		opts.SharedWeights = fo.SharedWeights
	}
	in, err := planner.Load(sourceName, source, ir.DecodeOptions{Symbols: opts.Symbols, MaxMemory: memoryLimit, IfBranch: o.IfBranch})
	if err != nil {
		return nil, nil, err
	}
	if in.Source == nil {
		return nil, nil, fmt.Errorf("%s is a plan record, not a graph or buffer list to plan (verify checks a record against its source)", sourceName)
	}
	p, err := planner.Lower(in.Source, opts)
	if err != nil {
		// The source decodes; the record's options do not lower it.
		return wrong(alone, fmt.Errorf("its options do not lower %s: %w", sourceName, err))
	}
	if err := planner.VerifyAgainst(p, plan); err != nil {
		return wrong(err)
	}
	if alone != nil { // VerifyAgainst runs Verify: not reached while it does
		return wrong(alone)
	}
	return plan, nil, nil
}
