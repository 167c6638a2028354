package protocol

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"memplan/ir"
	"memplan/planner"
)

// readExample reads examples/name and loads it: the bytes the judge
// reads, and the input the planner plans.
func readExample(t *testing.T, name string) ([]byte, *planner.Input) {
	t.Helper()
	data, err := os.ReadFile("../../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	in, err := planner.Load(name, data, ir.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return data, in
}

// TestVerifyRecord judges records as memplan verify does: the planner's
// own record of a file is valid, one with a field changed is not (with
// reasons that say where), and a source that does not read is an error
// rather than a verdict.
func TestVerifyRecord(t *testing.T) {
	src, in := readExample(t, "mlp.json")
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
			_, invalid, err := VerifyRecord(context.Background(), "mlp.json", tt.source, "plan.json", tt.record, DefaultOptions(), limit)
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

// TestVerifyRecordNamesTheFieldBehindAStaleFingerprint: a record edited
// without its fingerprint recomputed fails on its own for the hash, and
// the page's verdict names the field that differs too, as the command
// line's (which calls VerifyRecord) does.
func TestVerifyRecordNamesTheFieldBehindAStaleFingerprint(t *testing.T) {
	src, in := readExample(t, "transformer.json")
	tests := []struct {
		name string
		edit func(p *planner.Plan)
		want string
	}{
		{"an op", func(p *planner.Plan) { p.Tensors[len(p.Tensors)-1].Op = "relu" }, "op is"},
		{"the record's name", func(p *planner.Plan) { p.Name = "other" }, "name is"},
		{"an option no front end reads", func(p *planner.Plan) { p.Options.Alignment = 3 }, "options: alignment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "auto", planner.PlaceOptions{})
			if err != nil {
				t.Fatal(err)
			}
			tt.edit(plan)
			record, err := ir.EncodeJSON(plan, "")
			if err != nil {
				t.Fatal(err)
			}
			_, invalid, err := VerifyRecord(context.Background(), "transformer.json", src, "plan.json", record, DefaultOptions(), 1<<30)
			if err != nil {
				t.Fatal(err)
			}
			msg := fmt.Sprint(invalid)
			if len(invalid) == 0 || !strings.Contains(msg, "fingerprint is") || !strings.Contains(msg, tt.want) {
				t.Errorf("reasons %v, want the stale fingerprint and %q", invalid, tt.want)
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
	bwd, in := readExample(t, "train-backward.json")
	o := DefaultOptions()
	o.NodeLimit = 1 << 20
	o.Forward = &Forward{Name: "train-forward.json", Data: fwd}
	if err := PlanForward(context.Background(), &o, planner.PlaceOptions{}); err != nil {
		t.Fatal(err)
	}
	if o.SharedWeights == nil || len(o.SharedWeights.Slots) != 2 || o.SharedWeights.File != "train-forward.json" {
		t.Fatalf("shared weights %+v, want the forward plan's 2 params", o.SharedWeights)
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
	if _, invalid, err := VerifyRecord(context.Background(), "train-backward.json", bwd, "bwd.json", record, with, 1<<30); err != nil || invalid != nil {
		t.Errorf("with the forward graph: %v %v, want valid", invalid, err)
	}
	if _, invalid, err := VerifyRecord(context.Background(), "train-backward.json", bwd, "bwd.json", record, DefaultOptions(), 1<<30); err != nil || len(invalid) == 0 || !strings.Contains(invalid[0].Error(), "share the forward plan's weight slots") {
		t.Errorf("without the forward graph: %v %v, want invalid, for its notes", invalid, err)
	}
	with.Forward = &Forward{Name: "bad.json", Data: []byte(`{"nodes": 3}`)}
	if _, _, err := VerifyRecord(context.Background(), "train-backward.json", bwd, "bwd.json", record, with, 1<<30); err == nil || !strings.HasPrefix(err.Error(), "forward: bad.json") {
		t.Errorf("a forward graph that does not read: %v, want an error naming forward and bad.json", err)
	}
}

// FuzzVerifyRecord feeds the judge a source and a record. It must never
// panic, an accepted record must come back as a plan that passes
// planner.Verify on its own, and a verdict of invalid never comes with
// an error.
func FuzzVerifyRecord(f *testing.F) {
	const csv = "id,lower,upper,size\na,0,3,16\nb,1,4,8\nc,3,5,16\n"
	in, err := planner.Load("f.csv", []byte(csv), ir.DecodeOptions{})
	if err != nil {
		f.Fatal(err)
	}
	plan, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "auto", planner.PlaceOptions{})
	if err != nil {
		f.Fatal(err)
	}
	good, err := ir.EncodeJSON(plan, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(csv), good)
	f.Add([]byte(csv), bytes.Replace(good, []byte(`"alignment":`), []byte(`"alignment":3,"x":`), 1))
	f.Add([]byte(csv), bytes.Replace(good, []byte(`"name":"a"`), []byte(`"name":"z"`), 1))
	f.Add([]byte(`{"format":"memplan.graph/v1","nodes":[]}`), good)
	f.Fuzz(func(t *testing.T, source, record []byte) {
		plan, invalid, err := VerifyRecord(context.Background(), "f.csv", source, "p.json", record, DefaultOptions(), 1<<26)
		switch {
		case err != nil && invalid != nil:
			t.Fatalf("both an error (%v) and reasons (%v)", err, invalid)
		case err == nil && invalid == nil:
			if plan == nil {
				t.Fatal("accepted with no plan")
			}
			if verr := planner.Verify(plan); verr != nil {
				t.Fatalf("accepted a record Verify rejects: %v", verr)
			}
		}
	})
}
