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

// DefaultAlignmentOf is the offset alignment src plans with unless the
// user sets one: 64 bytes for a graph (graph JSON, ONNX), which real
// runtimes align to cache lines or vector widths, and 1 for a buffer
// list, whose published solutions (MiniMalloc's, idealloc's) pack at byte
// granularity. It follows what the file decoded to, not its format's
// name: Lower applies it, and the page shows it.
func DefaultAlignmentOf(src *ir.Source) int64 {
	return defaultAlignment(src != nil && src.Graph == nil && src.Buffers != nil)
}

func defaultAlignment(bufferList bool) int64 {
	if bufferList {
		return 1
	}
	return DefaultGraphAlignment
}

// DefaultAlignment is the alignment the input plans with unless the user
// sets one (DefaultAlignmentOf); 0 for a plan record, which is shown as
// it was planned.
func (in *Input) DefaultAlignment() int64 {
	if in.Source == nil {
		return 0
	}
	return DefaultAlignmentOf(in.Source)
}

// InputAlignment is the alignment one kind of input plans with when none
// is set, for a page to show beside its alignment field.
type InputAlignment struct {
	Format    string `json:"format"` // one of ir's decoders of the kind
	Name      string `json:"name"`   // the kind, as the page names it
	Alignment int64  `json:"alignment"`
}

// AlignmentDefaults lists DefaultAlignmentOf's answer for each kind of
// input: graphs (graph JSON and ONNX) and buffer lists (CSV).
func AlignmentDefaults() []InputAlignment {
	return []InputAlignment{
		{Format: "graph-json", Name: "graphs", Alignment: defaultAlignment(false)},
		{Format: "buffer-csv", Name: "CSV", Alignment: defaultAlignment(true)},
	}
}

// DefaultAlignment is the alignment an input of the named format gets.
//
// Deprecated: use Input.DefaultAlignment or DefaultAlignmentOf, which
// follow the decoded input rather than a format's name.
func DefaultAlignment(format string) int64 { return defaultAlignment(format == "buffer-csv") }
