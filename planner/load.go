package planner

import (
	"fmt"

	"memplan/ir"
)

// Input is one file memplan reads, decoded: a source to plan (a graph or
// a buffer list) or a plan record to show. The command line and the page
// both read files through Load, so a file means the same thing in both.
type Input struct {
	// Format is "plan-record" or the name of ir's decoder: "graph-json",
	// "buffer-csv", "onnx".
	Format string
	Source *ir.Source // nil for a plan record
	Plan   *Plan      // a plan record that Verify accepted; nil otherwise
}

// PlanRecordFormat is Input.Format for a plan record.
const PlanRecordFormat = "plan-record"

// Load decodes a file in any format memplan reads. A plan record is
// proven with Verify before it is returned: it is shown as it is, so an
// invalid one is an error to read, not a picture to puzzle over.
func Load(name string, data []byte, opts ir.DecodeOptions) (*Input, error) {
	if IsPlanRecord(data) {
		if err := CheckRecordSize(name, int64(len(data)), opts.MaxMemory); err != nil {
			return nil, err
		}
		p, err := DecodePlan(name, data)
		if err != nil {
			return nil, err
		}
		if err := Verify(p); err != nil {
			return nil, &ir.Error{File: name, Msg: "the plan record is not valid: " + err.Error()}
		}
		return &Input{Format: PlanRecordFormat, Plan: p}, nil
	}
	format, err := ir.DetectFormat(name, data)
	if err != nil {
		return nil, err
	}
	src, err := ir.Decode(name, data, opts)
	if err != nil {
		return nil, err
	}
	return &Input{Format: format, Source: src}, nil
}

// planRecordExpansion bounds the memory a plan record takes decoded, as
// a multiple of its size: its JSON is mostly the tensors' own fields.
const planRecordExpansion = 8

// CheckRecordSize refuses a plan record of size bytes that decoding would
// take more than maxMemory to hold (none when maxMemory is 0), with an
// *ir.MemoryError.
func CheckRecordSize(name string, size, maxMemory int64) error {
	if maxMemory > 0 && size > maxMemory/planRecordExpansion {
		return &ir.MemoryError{File: name, What: fmt.Sprintf("reading a %s plan record", FormatBytes(size)),
			Need: size * planRecordExpansion, Limit: maxMemory}
	}
	return nil
}

// IsPlanRecord reports whether data is a plan record: a JSON object whose
// top-level "format" field is the plan format. The field is read, not
// searched for: a graph named "memplan.plan/v1" is a graph.
func IsPlanRecord(data []byte) bool {
	format, ok := ir.TopLevelString(data, "format")
	return ok && format == PlanFormat
}

// DefaultAlignment is the offset alignment a format plans with unless
// the user sets one: 64 bytes for graphs, which real runtimes align to
// cache lines or vector widths, and 1 for buffer lists, whose published
// solutions (MiniMalloc's, idealloc's) pack at byte granularity.
func DefaultAlignment(format string) int64 {
	if format == "buffer-csv" {
		return 1
	}
	return DefaultGraphAlignment
}
