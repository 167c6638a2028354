package planner

import (
	"fmt"

	"memplan/ir"
)

// verifyGPU checks a plan's WebGPU fields. Under tensor binding: the
// buffers lie end to end from 0, cover the arena, each a multiple of 4
// bytes and at most maxBufferSize, starting at a multiple of
// minStorageBufferOffsetAlignment; every tensor with bytes lies, guard
// included, inside the buffer it names, at the buffer_offset it gives, a
// multiple of that alignment, and is no larger than one binding; a view
// names its root's buffer at the root's buffer_offset plus its own
// view_offset. Otherwise there are no buffers or slots. Whether the arena
// fits one binding is the fit report's question, not validity. (Written
// with one message per rule and few formatted calls: it is in both wasm
// programs.)
func verifyGPU(plan *Plan, byName map[string]int, v *violations) {
	l := plan.Limits
	switch {
	case plan.Binding == "" && l == nil:
	case plan.Binding != BindArena && plan.Binding != BindTensor:
		v.add("binding is %s, want arena or tensor", ir.Quote(plan.Binding))
		return
	case l == nil:
		v.add("binding %s without limits", plan.Binding)
		return
	default:
		if err := l.Check(); err != nil {
			v.add("%v", err)
			return
		}
	}
	tensor := plan.Binding == BindTensor
	if !tensor && plan.Buffers != nil {
		v.add("GPU buffers, but no tensor binding")
		return
	}
	var align, end int64
	if tensor {
		align = l.MinStorageBufferOffsetAlignment
		if plan.Alignment%align != 0 {
			v.add("alignment %d is not a multiple of minStorageBufferOffsetAlignment %d", plan.Alignment, align)
		}
	}
	for k, b := range plan.Buffers {
		next, err := ir.AddSize(b.Offset, b.Size)
		if err != nil || b.Offset != end || b.Size <= 0 || b.Size > l.MaxBufferSize || b.Size%4 != 0 || b.Offset%align != 0 {
			v.add("buffers[%d] (offset %d, size %d): want it at %d, the end of the one before, a multiple of %d, and a positive multiple of 4 up to maxBufferSize %d",
				k, b.Offset, b.Size, end, align, l.MaxBufferSize)
			return
		}
		end = next
	}
	if end < plan.ArenaSize && tensor {
		v.add("the GPU buffers cover %d bytes, short of the arena's %d", end, plan.ArenaSize)
	}
	if tensor && v.count == 0 {
		verifyCuts(plan, v)
	}
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if why := slotProblem(plan, byName, t, tensor, align); why != "" {
			b, off := -1, int64(0)
			if t.BufferSlot != nil {
				b, off = t.Buffer, t.BufferOffset
			}
			v.add("tensor %s (offset %d, size %d, guard %d; GPU buffer %d at %d): %s", ir.Quote(t.Name), t.Offset, t.Size, t.Guard, b, off, why)
		}
	}
}

// slotProblem says what is wrong with a tensor's GPU buffer and offset,
// or "".
func slotProblem(plan *Plan, byName map[string]int, t *PlanTensor, tensor bool, align int64) string {
	s := t.BufferSlot
	var want bool // whether it must have a slot
	switch {
	case !tensor || t.Skipped:
	case t.IsView():
		ri, ok := byName[t.Root]
		if !ok {
			return "" // verifyView reports it
		}
		r := plan.Tensors[ri].BufferSlot
		want = r != nil
		if r != nil && s != nil && (s.Buffer != r.Buffer || s.BufferOffset != r.BufferOffset+t.ViewOffset) {
			return "a view is in its root's buffer at the root's buffer_offset + its view_offset"
		}
	default:
		want = t.Size+t.Guard > 0
		if t.Size > plan.Limits.MaxStorageBufferBindingSize {
			return "larger than maxStorageBufferBindingSize"
		}
		if s == nil || !want {
			break
		}
		if s.Buffer < 0 || s.Buffer >= len(plan.Buffers) {
			return "names a GPU buffer the plan does not have"
		}
		b := plan.Buffers[s.Buffer]
		// Offsets are range-checked by verifyTensor, buffers above:
		// these sums stay below 2^63.
		switch {
		case t.Offset < b.Offset || t.Offset+t.Size+t.Guard > b.Offset+b.Size:
			return "its bytes, guard included, straddle or leave the GPU buffer it names"
		case s.BufferOffset != t.Offset-b.Offset:
			return "buffer_offset is not its offset less its buffer's"
		case s.BufferOffset%align != 0:
			return fmt.Sprint("buffer_offset is not a multiple of minStorageBufferOffsetAlignment ", align)
		}
	}
	switch {
	case want && s == nil:
		return "names no GPU buffer under tensor binding"
	case !want && s != nil:
		return "names a GPU buffer it cannot have: no bytes to bind, or no tensor binding"
	}
	return ""
}

// verifyCuts checks that the GPU buffers are the ones the limits make of
// the arena: cut at multiples of maxBufferSize rounded down to the
// largest alignment, the last one's size rounded up to 4 bytes.
func verifyCuts(plan *Plan, v *violations) {
	maxAlign := plan.Alignment
	for i := range plan.Tensors {
		maxAlign = max(maxAlign, plan.Tensors[i].Alignment)
	}
	cut := plan.Limits.MaxBufferSize &^ (maxAlign - 1)
	if cut <= 0 {
		v.add("maxBufferSize %d is below the alignment %d", plan.Limits.MaxBufferSize, maxAlign)
		return
	}
	// Counted first: a hostile arena and limits could ask for 2^60 buffers.
	if n := (plan.ArenaSize + cut - 1) / cut; n != int64(len(plan.Buffers)) {
		v.add("buffers: %d GPU buffers, but the arena of %d bytes cut every %d bytes makes %d", len(plan.Buffers), plan.ArenaSize, cut, n)
		return
	}
	for k, b := range plan.Buffers {
		off := int64(k) * cut
		if want := (GPUBuffer{Offset: off, Size: alignUp(min(cut, plan.ArenaSize-off), 4)}); b != want {
			v.add("buffers[%d] is at %d, %d bytes, but the cuts every %d bytes make it %d, %d bytes", k, b.Offset, b.Size, cut, want.Offset, want.Size)
			return
		}
	}
}
