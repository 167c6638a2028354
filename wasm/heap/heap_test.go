package heap

import (
	"runtime"
	"testing"
)

// TestReserveLeavesTheRoomFree: after Reserve the heap spans the bytes
// asked for, and they are free again, not held.
func TestReserveLeavesTheRoomFree(t *testing.T) {
	const n = 64 << 20
	Reserve(n)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	if m.HeapSys < n {
		t.Errorf("the heap spans %d bytes after reserving %d", m.HeapSys, n)
	}
	if m.HeapAlloc > n/4 {
		t.Errorf("%d bytes of the heap are still allocated after reserving %d: the reservation is held", m.HeapAlloc, n)
	}
}
