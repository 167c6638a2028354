package planner

// stateSet is the exact search's table of failed states: a set of
// 128-bit keys, open addressed with linear probing. It grows by doubling
// up to a cap and is lossy from there: an insert that finds its probe
// window full overwrites its home slot. Forgetting a failed state only
// costs searching it again, and a fixed memory beats a Go map here, which
// spent a quarter of the search's time growing and rehashing its tables.
type stateSet struct {
	slots [][2]uint64 // {0, 0} marks an empty slot
	used  int
	limit int // the most slots it grows to, a power of two
}

// stateProbe is how many slots a key may sit past its home slot.
const stateProbe = 8

func newStateSet(initial, limit int) stateSet {
	return stateSet{slots: make([][2]uint64, initial), limit: limit}
}

// stateKey keeps a real key from reading as an empty slot.
func stateKey(k [2]uint64) [2]uint64 {
	if k == [2]uint64{} {
		k[1] = 1
	}
	return k
}

func (t *stateSet) has(k [2]uint64) bool {
	_, found, _ := t.probe(stateKey(k))
	return found
}

// probe looks for k in its window of slots: the slot holding it, or
// else the first empty one; ok is false when the window has neither.
func (t *stateSet) probe(k [2]uint64) (slot uint64, found, ok bool) {
	mask := uint64(len(t.slots) - 1)
	for i, h := 0, k[0]; i < stateProbe; i, h = i+1, h+1 {
		switch t.slots[h&mask] {
		case k:
			return h & mask, true, true
		case [2]uint64{}:
			return h & mask, false, true
		}
	}
	return 0, false, false
}

func (t *stateSet) add(k [2]uint64) {
	k = stateKey(k)
	if 2*t.used >= len(t.slots) && len(t.slots) < t.limit {
		t.grow()
	}
	for !t.put(k) {
		if len(t.slots) >= t.limit {
			t.slots[k[0]&uint64(len(t.slots)-1)] = k // forget what sat at home
			return
		}
		t.grow()
	}
}

// put stores k in its probe window and reports whether there was room.
func (t *stateSet) put(k [2]uint64) bool {
	slot, found, ok := t.probe(k)
	if ok && !found {
		t.slots[slot] = k
		t.used++
	}
	return ok
}

func (t *stateSet) grow() {
	old := t.slots
	t.slots, t.used = make([][2]uint64, 2*len(old)), 0
	for _, k := range old {
		if k != [2]uint64{} && !t.put(k) {
			t.slots[k[0]&uint64(len(t.slots)-1)] = k // rare: a window full after doubling
		}
	}
}

func (t *stateSet) clear() {
	clear(t.slots)
	t.used = 0
}
