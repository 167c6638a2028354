package events

import (
	"context"
	"encoding/json"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
)

// TestEventsEncodeAsEncodingJSON: the wasm programs write their events
// with ir.EncodeJSON; for the events the page gets, it writes what
// encoding/json would.
func TestEventsEncodeAsEncodingJSON(t *testing.T) {
	data, err := examples.FS.ReadFile("transformer.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load("transformer.json", data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o := planner.DefaultOptions()
	o.F32Uniform = true
	if o.GPU, err = planner.NewGPU("default", planner.BindTensor); err != nil {
		t.Fatal(err)
	}
	p, err := planner.PlanSource(context.Background(), in.Source, o, "", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := viz.NewLayout(p, 0)
	fit := planner.Judge(p, 1<<20)
	ex, err := planner.Explain(p, p.Tensors[3].Name)
	if err != nil {
		t.Fatal(err)
	}
	info := TensorInfo{Index: 3, Tensor: &p.Tensors[3], Color: "#123456", Rect: &Rect{1, 2, 3, 4}, Rows: [][2]string{{"a", "b"}}, Line: "x"}
	evs := []protocol.Event{
		Ready{Version: protocol.Version, Examples: []string{"a.json"}, Strategies: planner.StrategyNames(), Kinds: viz.KindColors(),
			Keys: viz.KeyBindings, Defaults: protocol.DefaultOptions(), Alignments: planner.AlignmentDefaults(), F32Budget: 1 << 27,
			F32Text: "128 MiB", FileTypes: protocol.FileTypes, Bindings: []string{"arena", "tensor"}, Baseline: "no-reuse", MaxInput: 1 << 27,
			Profiles: []ProfileChoice{{Profile: planner.Profiles()[0], Text: "t"}}},
		Summary{File: "t.json", Summary: PlanSummary{Name: p.Name, Fit: fit, Limits: p.Limits, Buffers: p.Buffers, Options: p.Options,
			Order: json.RawMessage(`["a","b"]`), Rows: [][2]string{{"arena", "1 MiB"}}, Phases: []PhaseSummary{{"prefill", 0, 3, 99}}}},
		Hover{X: 1.5, Y: -2, Tensor: &info, Part: "guard"},
		Selected{Tensor: &info, Partners: []TensorInfo{info}},
		CursorMoved{CursorInfo: l.CursorAt(2), Rows: [][2]string{{"live", "1 B"}}},
		Explained{Tensor: "x", Record: ex, Conflicts: []string{}},
		ErrorEvent{Error: protocol.Error{Message: "m <b>", Kind: "input", Symbols: []string{"batch"}}},
		LargestEvent{File: "f", Symbol: "s", Largest: json.RawMessage(`{"value":3}`)},
		WordsWritten{Grouped: []string{"78,472"}, Bytes: []string{"78,472 bytes"}},
		Tensors{File: "f"},
	}
	for _, ev := range evs {
		got, err := Envelope(ev)
		if err != nil {
			t.Fatal(err)
		}
		body, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"source":"memplan","type":"` + ev.Type() + `"`
		if len(body) > 2 {
			want += ","
		}
		want += string(body[1:])
		if string(got) != want {
			t.Errorf("%s:\n got %s\nwant %s", ev.Type(), got, want)
		}
	}
	// And a worker's events, with a route, an outcome and a fit.
	for _, ev := range []protocol.WorkerEvent{
		{Type: "route", ID: 3, Route: &protocol.Route{To: 1, Message: protocol.WorkerMessage{Type: "plan", PlanRequest: protocol.PlanRequest{ID: 3, Options: protocol.DefaultOptions()}}}},
		{Type: "planned", ID: 3, Arena: 9, Millis: map[string]float64{"plan": 1.25}, Fit: fit, Heard: &protocol.Heard{Type: "planned", Arena: 9}},
		{Type: "outcome", ID: 3, Outcome: &protocol.Outcome{From: 1, Error: &protocol.Error{Message: "x", Kind: "input"}}},
		{Type: "explained", Explanation: ex},
	} {
		got, _ := ir.EncodeJSON(ev, "")
		want, _ := json.Marshal(ev)
		if string(got) != string(want) {
			t.Errorf("worker %s:\n got %s\nwant %s", ev.Type, got, want)
		}
	}
}
