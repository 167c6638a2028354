package planner

import (
	"memplan/ir"
)

// verifyGPU checks a plan's WebGPU fields. Under tensor binding: the
// buffers lie end to end from 0, cover the arena, each a multiple of 4
// bytes and at most maxBufferSize, starting at a multiple of
// minStorageBufferOffsetAlignment; every tensor with bytes lies, guard
// included, inside the buffer it names, at the buffer_offset it gives, a
// multiple of that alignment, and is no larger than one binding; a view
// names its root's buffer at the root's buffer_offset plus its own
// view_offset. Under arena binding there are no buffers or slots. Whether
// the arena fits one binding is the fit report's question, not validity.
func verifyGPU(plan *Plan, byName map[string]int, v *violations) {
	switch plan.Binding {
	case "":
		if plan.Limits != nil || plan.Buffers != nil {
			v.add("limits or buffers given without a binding")
		}
		for i := range plan.Tensors {
			if plan.Tensors[i].BufferSlot != nil {
				v.add("tensor %s names a GPU buffer, but the plan has no binding", ir.Quote(plan.Tensors[i].Name))
				return
			}
		}
		return
	case BindArena, BindTensor:
	default:
		v.add("binding is %s, want arena or tensor", ir.Quote(plan.Binding))
		return
	}
	if plan.Limits == nil {
		v.add("binding %s without limits", plan.Binding)
		return
	}
	l := *plan.Limits
	if err := l.Check(); err != nil {
		v.add("%v", err)
		return
	}
	if plan.Binding == BindArena {
		if plan.Buffers != nil {
			v.add("arena binding, but the plan lists GPU buffers")
		}
		for i := range plan.Tensors {
			if plan.Tensors[i].BufferSlot != nil {
				v.add("arena binding, but tensor %s names a GPU buffer", ir.Quote(plan.Tensors[i].Name))
				return
			}
		}
		return
	}
	align := l.MinStorageBufferOffsetAlignment
	if plan.Alignment%align != 0 {
		v.add("alignment %d is not a multiple of minStorageBufferOffsetAlignment %d", plan.Alignment, align)
	}
	var end int64 // where the next buffer must start
	for k, b := range plan.Buffers {
		switch {
		case b.Offset != end:
			v.add("buffers[%d] starts at %d, not where the one before ends (%d)", k, b.Offset, end)
			return
		case b.Size <= 0 || b.Size > l.MaxBufferSize || b.Size%4 != 0:
			v.add("buffers[%d] is %d bytes, want a positive multiple of 4 up to maxBufferSize %d", k, b.Size, l.MaxBufferSize)
			return
		case b.Offset%align != 0:
			v.add("buffers[%d] starts at %d, not a multiple of minStorageBufferOffsetAlignment %d", k, b.Offset, align)
			return
		}
		var err error
		if end, err = ir.AddSize(b.Offset, b.Size); err != nil {
			v.add("buffers[%d]: offset %d + size %d: %v", k, b.Offset, b.Size, err)
			return
		}
	}
	if end < plan.ArenaSize {
		v.add("the GPU buffers cover %d bytes, short of the arena's %d", end, plan.ArenaSize)
	}
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		name := ir.Quote(t.Name)
		s := t.BufferSlot
		var want bool // whether it must have a slot
		switch {
		case t.Skipped:
		case t.IsView():
			ri, ok := byName[t.Root]
			if !ok {
				continue // verifyView reports it
			}
			r := plan.Tensors[ri].BufferSlot
			want = r != nil
			if r != nil && s != nil && (s.Buffer != r.Buffer || s.BufferOffset != r.BufferOffset+t.ViewOffset) {
				v.add("view %s: buffer %d at %d, but its root %s is in buffer %d at %d, + view offset %d",
					name, s.Buffer, s.BufferOffset, ir.Quote(t.Root), r.Buffer, r.BufferOffset, t.ViewOffset)
			}
		default:
			want = t.Size+t.Guard > 0
			if t.Size > l.MaxStorageBufferBindingSize {
				v.add("tensor %s: %d bytes, over maxStorageBufferBindingSize %d", name, t.Size, l.MaxStorageBufferBindingSize)
			}
			if s == nil || !want {
				break
			}
			if s.Buffer < 0 || s.Buffer >= len(plan.Buffers) {
				v.add("tensor %s: buffer %d, but the plan has %d buffers", name, s.Buffer, len(plan.Buffers))
				continue
			}
			b := plan.Buffers[s.Buffer]
			// Offsets were range-checked by verifyTensor; these sums
			// are checked again as they may come from anywhere.
			tEnd, err1 := ir.AddSize(t.Offset, t.Size+t.Guard)
			bEnd, err2 := ir.AddSize(b.Offset, b.Size)
			switch {
			case err1 != nil || err2 != nil || t.Size < 0 || t.Guard < 0:
				v.add("tensor %s: its bytes or its buffer's are out of range", name)
			case t.Offset < b.Offset || tEnd > bEnd:
				v.add("tensor %s: bytes [%d, %d) straddle or leave its GPU buffer %d [%d, %d)", name, t.Offset, tEnd, s.Buffer, b.Offset, bEnd)
			case s.BufferOffset != t.Offset-b.Offset:
				v.add("tensor %s: buffer_offset %d, but offset %d - buffer %d's start %d is %d", name, s.BufferOffset, t.Offset, s.Buffer, b.Offset, t.Offset-b.Offset)
			case s.BufferOffset%align != 0:
				v.add("tensor %s: buffer_offset %d is not a multiple of minStorageBufferOffsetAlignment %d", name, s.BufferOffset, align)
			}
		}
		switch {
		case want && s == nil:
			v.add("tensor %s: tensor binding, but it names no GPU buffer", name)
		case !want && s != nil:
			v.add("tensor %s: names GPU buffer %d, but has no bytes to bind", name, s.Buffer)
		}
	}
}
