package planner

// ProfileOf is the largest named WebGPU profile a device with limits l
// provides: its binding and buffer sizes within l's, its offset alignment
// a multiple of l's. Profiles with the same limits answer with the first
// of them (the table is smallest first), so a device with the spec's
// limits is "default". ok is false when l falls short of every profile.
func ProfileOf(l Limits) (p Profile, ok bool) {
	same := func(a, b Limits) bool {
		return a.MaxStorageBufferBindingSize == b.MaxStorageBufferBindingSize && a.MaxBufferSize == b.MaxBufferSize &&
			a.MinStorageBufferOffsetAlignment == b.MinStorageBufferOffsetAlignment
	}
	for _, q := range profiles {
		if q.MaxStorageBufferBindingSize <= l.MaxStorageBufferBindingSize && q.MaxBufferSize <= l.MaxBufferSize &&
			l.MinStorageBufferOffsetAlignment > 0 && q.MinStorageBufferOffsetAlignment%l.MinStorageBufferOffsetAlignment == 0 &&
			!(ok && same(p.Limits, q.Limits)) {
			p, ok = q, true
		}
	}
	return p, ok
}
