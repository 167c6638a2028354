package protocol

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// TestVerifyRecord judges records as memplan verify does: the planner's
// own record of a file is valid, one with a field changed is not (with
// reasons that say where), and a source that does not read is an error
// rather than a verdict.
func TestVerifyRecord(t *testing.T) {
	src, err := os.ReadFile("../../examples/mlp.json")
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load("mlp.json", src, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	prob, err := planner.Lower(in.Source, planner.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := planner.PlanProblem(context.Background(), prob, "auto", planner.PlaceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	good, err := ir.EncodeJSON(p, "  ")
	if err != nil {
		t.Fatal(err)
	}
	// The last tensor's offset moved by one alignment.
	i := bytes.LastIndex(good, []byte(`"offset": `))
	j := i + bytes.IndexByte(good[i:], ',')
	moved := append(append(append([]byte(nil), good[:i]...), []byte(`"offset": 999999936`)...), good[j:]...)
	const limit = 1 << 30
	tests := []struct {
		name           string
		source, record []byte
		invalid        string // a substring of the first reason; "" for valid
		err            string // a substring of the error
	}{
		{"valid", src, good, "", ""},
		{"offset moved", src, moved, "plan.json", ""},
		{"not a record", src, src, "not a plan record", ""},
		{"record does not read", src, []byte(`{"format": "memplan.plan/v1", "tensors": 3}`), "plan.json", ""},
		{"other source", bytes.Replace(src, []byte(`"batch": 64`), []byte(`"batch": 32`), 1), good, "plan.json", ""},
		{"source does not read", []byte(`{`), good, "", "mlp.json"},
		{"source is a record", good, good, "", "is a plan record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			invalid, err := VerifyRecord("mlp.json", tt.source, "plan.json", tt.record, DefaultOptions(), limit)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q (invalid %v)", err, tt.err, invalid)
				}
			case err != nil:
				t.Fatal(err)
			case tt.invalid == "" && len(invalid) > 0:
				t.Fatalf("invalid: %v", invalid)
			case tt.invalid != "" && (len(invalid) == 0 || !strings.Contains(invalid[0].Error(), tt.invalid)):
				t.Fatalf("reasons %v, want the first to contain %q", invalid, tt.invalid)
			}
		})
	}
}

// TestForwardRecord: a backward graph planned over its forward graph's
// weights (PlanForward, the command line's --forward) verifies with the
// forward graph and not without it, and a forward graph that does not
// read is an error naming the option and its file.
func TestForwardRecord(t *testing.T) {
	fwd, err := os.ReadFile("../../examples/train-forward.json")
	if err != nil {
		t.Fatal(err)
	}
	bwd, err := os.ReadFile("../../examples/train-backward.json")
	if err != nil {
		t.Fatal(err)
	}
	o := DefaultOptions()
	o.NodeLimit = 1 << 20
	o.Forward = &Forward{Name: "train-forward.json", Data: fwd}
	if err := PlanForward(context.Background(), &o, planner.PlaceOptions{}); err != nil {
		t.Fatal(err)
	}
	if o.SharedWeights == nil || len(o.SharedWeights.Slots) != 2 || o.SharedWeights.File != "train-forward.json" {
		t.Fatalf("shared weights %+v, want the forward plan's 2 params", o.SharedWeights)
	}
	in, err := planner.Load("train-backward.json", bwd, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := planner.PlanSource(context.Background(), in.Source, o.Options, o.Strategy, o.PlaceOptions(planner.PlaceOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range plan.Tensors {
		if slot, ok := o.SharedWeights.Slots[tt.Name]; ok && tt.Offset != slot.Offset {
			t.Errorf("%s at %d, the forward plan's slot at %d", tt.Name, tt.Offset, slot.Offset)
		}
	}
	record, err := ir.EncodeJSON(plan, "")
	if err != nil {
		t.Fatal(err)
	}
	with := DefaultOptions()
	with.Forward = o.Forward
	if invalid, err := VerifyRecord("train-backward.json", bwd, "bwd.json", record, with, 1<<30); err != nil || invalid != nil {
		t.Errorf("with the forward graph: %v %v, want valid", invalid, err)
	}
	if invalid, err := VerifyRecord("train-backward.json", bwd, "bwd.json", record, DefaultOptions(), 1<<30); err != nil || len(invalid) == 0 || !strings.Contains(invalid[0].Error(), "share the forward plan's weight slots") {
		t.Errorf("without the forward graph: %v %v, want invalid, for its notes", invalid, err)
	}
	with.Forward = &Forward{Name: "bad.json", Data: []byte(`{"nodes": 3}`)}
	if _, err := VerifyRecord("train-backward.json", bwd, "bwd.json", record, with, 1<<30); err == nil || !strings.HasPrefix(err.Error(), "forward: bad.json") {
		t.Errorf("a forward graph that does not read: %v, want an error naming forward and bad.json", err)
	}
}
