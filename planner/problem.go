package planner

import (
	"fmt"
	"math/bits"
)

// Problem is the input of every placement strategy: buffers that need
// disjoint bytes while their live ranges overlap.
type Problem struct {
	Name    string
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
	Phases  []string
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
}

// IO is the manifest of a graph's boundary tensors.
type IO struct {
	Inputs    []string `json:"inputs"`
	Params    []string `json:"params"`
	Constants []string `json:"constants"`
	Outputs   []string `json:"outputs"`
}

// alignUp rounds v up to a multiple of a, a power of two.
func alignUp(v, a int64) int64 {
	if a <= 1 {
		return v
	}
	return (v + a - 1) &^ (a - 1)
}

// isPow2 reports whether a is a positive power of two.
func isPow2(a int64) bool { return a > 0 && bits.OnesCount64(uint64(a)) == 1 }

// Check reports the first inconsistency in a Problem: an interval with
// Death < Birth, a negative size, a bad alignment, a misaligned fixed
// offset. Strategies may assume a checked Problem.
func (p *Problem) Check() error {
	if !isPow2(p.Alignment) {
		return fmt.Errorf("alignment %d is not a power of two", p.Alignment)
	}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		switch {
		case b.Size < 0 || b.Guard < 0:
			return fmt.Errorf("buffer %q: negative size or guard", b.Name)
		case b.Birth < 0 || b.Death < b.Birth:
			return fmt.Errorf("buffer %q: live range [%d, %d] is empty or negative", b.Name, b.Birth, b.Death)
		case !isPow2(b.Align):
			return fmt.Errorf("buffer %q: alignment %d is not a power of two", b.Name, b.Align)
		case b.Fixed && (b.Offset < 0 || b.Offset%b.Align != 0):
			return fmt.Errorf("buffer %q: fixed offset %d is negative or not aligned to %d", b.Name, b.Offset, b.Align)
		case b.Size+b.Guard < 0:
			return fmt.Errorf("buffer %q: size plus guard overflows", b.Name)
		}
	}
	return nil
}
