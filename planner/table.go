package planner

import (
	"cmp"
	"fmt"

	"memplan/ir"
)

// FromTable turns a buffer list into a Problem. Half-open lifetimes
// [lower, upper) become inclusive steps [lower, upper-1]. Rows with an
// offset keep it (MiniMalloc's meaning of the column on input). Each row is
// also a tensor of kind activation named by its id.
func FromTable(t *ir.BufferTable, alignment int64) (*Problem, error) {
	if !isPow2(alignment) || alignment >= ir.ByteLimit {
		return nil, fmt.Errorf("alignment %d is not a power of two below 2^62", alignment)
	}
	p := &Problem{
		Name:      t.Name,
		File:      cmp.Or(t.File, t.Name),
		Alignment: alignment,
		Buffers:   make([]Buffer, len(t.Rows)),
		Tensors:   make([]TensorInfo, len(t.Rows)),
		Options:   Options{Alignment: alignment},
	}
	for i, r := range t.Rows {
		rowErr := func(format string, args ...any) error {
			return &ir.Error{File: p.File, Line: r.Line, Msg: fmt.Sprintf("buffer %s: %s", ir.Quote(r.ID), fmt.Sprintf(format, args...))}
		}
		if r.Upper <= r.Lower || r.Lower < 0 || r.Size < 0 {
			return nil, rowErr("bad row (lower %d, upper %d, size %d)", r.Lower, r.Upper, r.Size)
		}
		if r.Upper > maxSteps {
			return nil, rowErr("time %d is past the last step memplan plans (%d)", r.Upper, int64(maxSteps))
		}
		if err := ir.CheckSize(r.Size); err != nil {
			return nil, rowErr("size: %v", err)
		}
		align := alignment
		if r.Alignment > 0 {
			align = r.Alignment
		}
		b := Buffer{Name: r.ID, Size: r.Size, Birth: int(r.Lower), Death: int(r.Upper) - 1, Align: align, Tensor: i}
		if r.HasOffset {
			if err := ir.CheckSize(r.Offset); err != nil {
				return nil, rowErr("offset: %v", err)
			}
			if r.Offset%align != 0 {
				return nil, rowErr("offset %d is not a multiple of alignment %d", r.Offset, align)
			}
			b.Fixed, b.Offset = true, r.Offset
		}
		p.Buffers[i] = b
		p.Tensors[i] = TensorInfo{Name: r.ID, Op: "buffer", Kind: KindActivation, Size: r.Size,
			Birth: b.Birth, Death: b.Death, Buffer: i, Root: -1, Line: r.Line}
		p.Steps = max(p.Steps, int(r.Upper))
	}
	return p, nil
}
