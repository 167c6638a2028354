package protocol

import (
	"context"
	"errors"
	"fmt"

	"memplan/ir"
	"memplan/planner"
)

// VerifyRecord judges a plan record as `memplan verify` does: the record
// (a file named recordName) must read, pass planner.Verify, and be a plan
// of the source file (sourceName) lowered with the options the record
// itself states. o gives only what reading the source takes (its If
// branch) and, as the command line's flags do, its forward graph and how
// to plan that (strategy, limits): the forward plan is made with the
// record's options, and its weight slots are where the record's params
// must sit. memoryLimit bounds every file, as the worker's limit does.
//
// A record that fails is invalid: its reasons come back as a list, each
// saying where, and err is nil. err is what is wrong with the source or
// the limits (a file that does not decode, one too large to read): no
// verdict, as the command line's bad input.
func VerifyRecord(sourceName string, source []byte, recordName string, record []byte, o Options, memoryLimit int64) (invalid []error, err error) {
	wrong := func(err error) ([]error, error) {
		return []error{fmt.Errorf("%s: %w", recordName, err)}, nil
	}
	if !planner.IsPlanRecord(record) {
		return wrong(errors.New(`not a plan record: want a JSON object with "format": "` + planner.PlanFormat + `"`))
	}
	if err := planner.CheckRecordSize(recordName, int64(len(record)), memoryLimit); err != nil {
		return nil, err
	}
	plan, err := planner.DecodePlan(recordName, record)
	if err != nil {
		return []error{err}, nil // it names the file and the place
	}
	if err := planner.Verify(plan); err != nil {
		return wrong(err)
	}
	// The options the record states, and its device: the check is of
	// what the plan claims to be.
	opts := plan.Options
	opts.GPU = nil
	if plan.Limits != nil {
		opts.GPU = &planner.GPU{Binding: plan.Binding, Limits: *plan.Limits}
	}
	if o.Forward != nil {
		fo := o
		fo.Options = opts
		if err := PlanForward(context.Background(), &fo, planner.PlaceOptions{}); err != nil {
			return nil, err
		}
		opts.SharedWeights = fo.SharedWeights
	}
	in, err := planner.Load(sourceName, source, ir.DecodeOptions{Symbols: opts.Symbols, MaxMemory: memoryLimit, IfBranch: o.IfBranch})
	if err != nil {
		return nil, err
	}
	if in.Source == nil {
		return nil, fmt.Errorf("%s is a plan record, not a graph or buffer list to plan (verify checks a record against its source)", sourceName)
	}
	p, err := planner.Lower(in.Source, opts)
	if err != nil {
		// The source decodes; the record's options do not lower it.
		return wrong(fmt.Errorf("its options do not lower %s: %w", sourceName, err))
	}
	if err := planner.VerifyAgainst(p, plan); err != nil {
		return wrong(err)
	}
	return nil, nil
}
