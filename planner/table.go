package planner

import (
	"fmt"

	"memplan/ir"
)

// FromTable turns a buffer list into a Problem. Half-open lifetimes
// [lower, upper) become inclusive steps [lower, upper-1]. Rows with an
// offset keep it (MiniMalloc's meaning of the column on input). Each row is
// also a tensor of kind activation named by its id.
func FromTable(t *ir.BufferTable, alignment int64) (*Problem, error) {
	if !isPow2(alignment) {
		return nil, fmt.Errorf("alignment %d is not a power of two", alignment)
	}
	p := &Problem{
		Name:      t.Name,
		Alignment: alignment,
		Buffers:   make([]Buffer, len(t.Rows)),
		Tensors:   make([]TensorInfo, len(t.Rows)),
		Options:   Options{Alignment: alignment},
	}
	for i, r := range t.Rows {
		if r.Upper <= r.Lower || r.Lower < 0 || r.Size < 0 {
			return nil, &ir.Error{File: t.Name, Line: r.Line, Msg: fmt.Sprintf("buffer %q: bad row (lower %d, upper %d, size %d)", r.ID, r.Lower, r.Upper, r.Size)}
		}
		if int64(int(r.Upper)) != r.Upper {
			return nil, &ir.Error{File: t.Name, Line: r.Line, Msg: fmt.Sprintf("buffer %q: time %d out of range", r.ID, r.Upper)}
		}
		align := alignment
		if r.Alignment > 0 {
			align = r.Alignment
		}
		b := Buffer{Name: r.ID, Size: r.Size, Birth: int(r.Lower), Death: int(r.Upper) - 1, Align: align, Tensor: i}
		if r.HasOffset {
			if r.Offset%align != 0 {
				return nil, &ir.Error{File: t.Name, Line: r.Line, Msg: fmt.Sprintf("buffer %q: offset %d is not a multiple of alignment %d", r.ID, r.Offset, align)}
			}
			b.Fixed, b.Offset = true, r.Offset
		}
		p.Buffers[i] = b
		p.Tensors[i] = TensorInfo{Name: r.ID, Op: "buffer", Kind: KindActivation, Size: r.Size,
			Birth: b.Birth, Death: b.Death, Buffer: i, Root: -1}
		p.Steps = max(p.Steps, int(r.Upper))
	}
	return p, nil
}
