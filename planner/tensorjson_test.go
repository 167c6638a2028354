package planner

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAppendTensorsJSONMatchesEncodingJSON on tensors with every field
// set or left out, and names full of what JSON must escape; and
// AppendStringsJSON on their names.
func TestAppendTensorsJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	pieces := []string{"a", "é", "\"", "\\", "<", ">", "&", "\n", "\t", "\x01", "\x7f", "\xff", "\u2028", "\u2029", "😀", "\xe2\x82"}
	name := func() string {
		s := ""
		for range rng.IntN(6) {
			s += pieces[rng.IntN(len(pieces))]
		}
		return s
	}
	var ts []PlanTensor
	for i := range 2000 {
		tt := PlanTensor{Name: name(), Op: name(), Kind: Kind(name()), DType: name(),
			Size: rng.Int64N(1 << 40), Offset: rng.Int64N(1<<40) - 1, Guard: rng.Int64N(300), Birth: rng.IntN(100), Death: rng.IntN(100),
			ViewOffset: rng.Int64N(1000), Skipped: rng.IntN(3) == 0}
		if i%3 != 0 {
			tt.Shape = []int64{rng.Int64N(100), -1, 0}[:rng.IntN(4)]
		}
		if rng.IntN(2) == 0 {
			tt.Node, tt.Phase, tt.Reuses, tt.Root = name(), name(), name(), name()
		}
		if rng.IntN(3) == 0 {
			tt.BufferSlot = &BufferSlot{Buffer: rng.IntN(5), BufferOffset: rng.Int64N(1 << 30)}
		}
		ts = append(ts, tt)
	}
	names := make([]string, len(ts))
	for i := range ts {
		names[i] = ts[i].Name
	}
	for _, cut := range [][]string{nil, {}, names[:1], names} {
		want, err := json.Marshal(cut)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendStringsJSON(nil, cut); string(got) != string(want) {
			t.Fatalf("names: got %.300s\nwant %.300s", got, want)
		}
	}
	for _, cut := range [][]PlanTensor{nil, {}, ts[:1], ts} {
		want, err := json.Marshal(cut)
		if err != nil {
			t.Fatal(err)
		}
		if cut == nil {
			want = []byte("[]") // the viewer never sends null
		}
		if got := AppendTensorsJSON(nil, cut); string(got) != string(want) {
			t.Fatalf("got  %.300s\nwant %.300s", got, want)
		}
	}
}
