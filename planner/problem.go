package planner

import (
	"fmt"
	"math/bits"

	"memplan/ir"
)

// Problem is the input of every placement strategy: buffers that need
// disjoint bytes while their live ranges overlap.
type Problem struct {
	Name string
	// File is the source file's name, for errors that point into it.
	File    string
	Buffers []Buffer
	// Tensors describes every tensor of the source, in schedule order:
	// those that own a buffer, the views that borrow one, and those that
	// were skipped. For a buffer list there is one tensor per buffer.
	Tensors []TensorInfo
	// Steps is the number of schedule steps; buffers may live to step
	// Steps (one past the last node), as graph outputs do.
	Steps     int
	Alignment int64 // default offset alignment, a power of two >= 1
	Options   Options
	Schedule  []string // node names, in order
	// Phases holds each scheduled node's phase ("" for none), or is nil
	// when no node has one.
	Phases []string
	// Reads holds, for each step, the tensors (indexes into Tensors) its
	// op reads, as the graph names them: a view is listed as itself. Nil
	// for a buffer list, which has no ops.
	Reads   [][]int
	IO      IO
	Symbols map[string]int64 // symbol values used
	Notes   []string
}

// Buffer is one block of arena bytes to place.
type Buffer struct {
	Name  string
	Size  int64 // bytes the tensor needs
	Guard int64 // bytes after it that nothing else may use while it is live
	// Birth and Death are the first and last steps it is live, inclusive.
	Birth, Death int
	Align        int64 // offset alignment for this buffer, a power of two
	// Fixed buffers keep Offset: shared training weights, or CSV rows that
	// came with an offset.
	Fixed  bool
	Offset int64
	Tensor int // index into Problem.Tensors
}

// End is the buffer's extent including its guard.
func (b *Buffer) End(offset int64) int64 { return offset + b.Size + b.Guard }

// Span is the number of arena bytes the buffer occupies: size plus guard.
func (b *Buffer) Span() int64 { return b.Size + b.Guard }

// Overlaps reports whether two buffers are live at a common step.
func (b *Buffer) Overlaps(o *Buffer) bool { return b.Birth <= o.Death && o.Birth <= b.Death }

// Kind says what role a tensor plays.
type Kind string

const (
	KindInput      Kind = "input"
	KindParam      Kind = "param"
	KindConstant   Kind = "constant"
	KindActivation Kind = "activation"
	KindOutput     Kind = "output"
	KindView       Kind = "view"
)

// TensorInfo is what the plan record says of one tensor besides its offset.
type TensorInfo struct {
	Name         string
	Op           string
	Node         string // producing node, when it differs from Name
	Phase        string // the producing node's phase, if any
	Kind         Kind
	Shape        []int64
	DType        string
	Size         int64
	Guard        int64
	Birth, Death int
	Buffer       int // index into Problem.Buffers; -1 for views and skipped tensors
	// Views: the root tensor (index into Tensors) and the byte offset in it.
	Root       int
	ViewOffset int64
	Skipped    bool // skipped by option: no arena bytes
	// Where the tensor comes from, for errors: the producing node's path
	// (`nodes[3]`, `graph.node[12]`) or the 1-based line of a CSV row.
	Path string
	Line int
}

// IO is the manifest of a graph's boundary tensors.
type IO struct {
	Inputs    []string `json:"inputs"`
	Params    []string `json:"params"`
	Constants []string `json:"constants"`
	Outputs   []string `json:"outputs"`
}

// alignUp rounds v up to a multiple of a, a power of two. Callers pass
// values a checked Problem bounds below ir.ByteLimit, so it cannot wrap.
func alignUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

// isPow2 reports whether a is a positive power of two.
func isPow2(a int64) bool { return a > 0 && bits.OnesCount64(uint64(a)) == 1 }

// errorAt is an error located at tensor t's source: file, node path or
// CSV line, and node.
func (p *Problem) errorAt(t int, format string, args ...any) error {
	e := &ir.Error{File: p.File, Msg: fmt.Sprintf(format, args...)}
	if t >= 0 && t < len(p.Tensors) {
		ti := &p.Tensors[t]
		e.Path, e.Line = ti.Path, ti.Line
		if e.Line == 0 { // graph tensors are named by their node
			e.Node = ti.Name
			if ti.Node != "" {
				e.Node = ti.Node
			}
		}
	}
	return e
}

// bufferErr is errorAt for the tensor that owns buffer i, quoting the
// buffer's name in the message.
func (p *Problem) bufferErr(i int, format string, args ...any) error {
	b := &p.Buffers[i]
	return p.errorAt(b.Tensor, "buffer %s: %s", ir.Quote(b.Name), fmt.Sprintf(format, args...))
}

// Check reports the first inconsistency in a Problem, located at the
// buffer's source: a live range with Death < Birth, a size, guard or
// alignment out of range, a misaligned fixed offset, fixed buffers that
// overlap, or buffers whose bytes together reach ir.ByteLimit. Every
// strategy may assume a checked Problem: its offsets, ends and arena stay
// below ir.ByteLimit, so no sum of them wraps.
func (p *Problem) Check() error {
	if !isPow2(p.Alignment) || p.Alignment >= ir.ByteLimit {
		return p.errorAt(-1, "alignment %d is not a power of two below 2^62", p.Alignment)
	}
	var total, fixedEnd int64 // all buffers one after another; the highest fixed end
	var fixed []int
	for i := range p.Buffers {
		b := &p.Buffers[i]
		switch {
		case b.Size < 0 || b.Guard < 0:
			return p.bufferErr(i, "negative size %d or guard %d", b.Size, b.Guard)
		case b.Birth < 0 || b.Death < b.Birth:
			return p.bufferErr(i, "live range [%d, %d] is empty or negative", b.Birth, b.Death)
		case !isPow2(b.Align) || b.Align >= ir.ByteLimit:
			return p.bufferErr(i, "alignment %d is not a power of two below 2^62", b.Align)
		}
		span, err := ir.AddSize(b.Size, b.Guard)
		if err != nil {
			return p.bufferErr(i, "size %d plus guard %d: %v", b.Size, b.Guard, err)
		}
		if b.Fixed {
			if b.Offset < 0 || b.Offset%b.Align != 0 {
				return p.bufferErr(i, "fixed offset %d is negative or not a multiple of its alignment %d", b.Offset, b.Align)
			}
			end, err := ir.AddSize(b.Offset, span)
			if err != nil {
				return p.bufferErr(i, "fixed offset %d + size %d + guard %d: %v", b.Offset, b.Size, b.Guard, err)
			}
			fixedEnd = max(fixedEnd, end)
			if span > 0 {
				fixed = append(fixed, i)
			}
		}
		if span == 0 {
			continue
		}
		if total, err = ir.AlignUp(total, b.Align); err == nil {
			total, err = ir.AddSize(total, span)
		}
		if err == nil {
			_, err = ir.AddSize(total, fixedEnd)
		}
		if err != nil {
			return p.bufferErr(i, "the buffers up to this one need more bytes together than memplan allows: %v", err)
		}
	}
	return p.checkFixed(fixed)
}

// checkFixed reports fixed buffers that share bytes while both are live:
// no strategy can honour both offsets.
func (p *Problem) checkFixed(fixed []int) error {
	bs := p.Buffers
	var clash error
	sweepOverlaps(fixed,
		func(i int) (int, int) { return bs[i].Birth, bs[i].Death },
		func(i int) (int64, int64) { return bs[i].Offset, bs[i].End(bs[i].Offset) },
		func(a, b int) {
			if clash != nil {
				return
			}
			if p.Tensors[bs[b].Tensor].Line < p.Tensors[bs[a].Tensor].Line {
				a, b = b, a // name the earlier row first
			}
			where := ""
			if la, lb := p.Tensors[bs[a].Tensor].Line, p.Tensors[bs[b].Tensor].Line; la > 0 && lb > 0 {
				where = fmt.Sprintf(" (lines %d and %d)", la, lb)
			}
			clash = p.bufferErr(b, "fixed at [%d, %d), it overlaps fixed buffer %s at [%d, %d)%s while both are live (steps %d..%d)",
				bs[b].Offset, bs[b].End(bs[b].Offset), ir.Quote(bs[a].Name), bs[a].Offset, bs[a].End(bs[a].Offset), where,
				max(bs[a].Birth, bs[b].Birth), min(bs[a].Death, bs[b].Death))
		})
	return clash
}
