package planner

import "testing"

func TestStateSet(t *testing.T) {
	tests := []struct {
		name           string
		initial, limit int
		keys           int
		wantAllPresent bool // every key added is still there (no forgetting below the cap)
	}{
		{"fits without growing", 64, 64, 20, true},
		{"grows to hold them", 4, 1 << 12, 1000, true},
		{"lossy at the cap", 4, 16, 1000, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := newStateSet(tc.initial, tc.limit)
			seed := uint64(7)
			var added [][2]uint64
			for range tc.keys {
				k := [2]uint64{splitmix(&seed), splitmix(&seed)}
				set.add(k)
				added = append(added, k)
			}
			if len(set.slots) > tc.limit {
				t.Fatalf("%d slots, limit %d", len(set.slots), tc.limit)
			}
			present := 0
			for _, k := range added {
				if set.has(k) {
					present++
				}
			}
			if tc.wantAllPresent && present != len(added) {
				t.Fatalf("%d of %d keys present", present, len(added))
			}
			if present == 0 {
				t.Fatal("nothing remembered")
			}
			// Never a key that was not added: forgetting is allowed,
			// inventing is not.
			for range 10000 {
				if k := [2]uint64{splitmix(&seed), splitmix(&seed)}; set.has(k) {
					t.Fatalf("has %x, never added", k)
				}
			}
			// The zero key is a key like any other.
			set.add([2]uint64{})
			if !set.has([2]uint64{}) {
				t.Fatal("the zero key was not kept")
			}
			set.clear()
			for _, k := range added {
				if set.has(k) {
					t.Fatalf("has %x after clear", k)
				}
			}
		})
	}
}
