package planner_test

import (
	"context"
	"strings"
	"testing"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
)

// Every example's plan, written as a buffer CSV and read back by ir's
// decoder, gives each placed tensor its life, its bytes and its offset.
func TestBufferCSVRoundTrip(t *testing.T) {
	for _, name := range []string{"transformer.json", "r1-views.json", "mlp.json", "train-forward.json"} {
		t.Run(name, func(t *testing.T) {
			data, err := examples.FS.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			in, err := planner.Load(name, data, ir.DecodeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{NodeLimit: 10000})
			if err != nil {
				t.Fatal(err)
			}
			b, err := p.AppendBufferCSV(nil)
			if err != nil {
				t.Fatal(err)
			}
			table, err := ir.DecodeBufferCSV("plan.csv", b)
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			rows := map[string]ir.BufferRow{}
			for _, r := range table.Rows {
				rows[r.ID] = r
			}
			placed := 0
			for _, tn := range p.Tensors {
				r, ok := rows[tn.Name]
				if !tn.Placed() {
					if ok {
						t.Errorf("%s owns no bytes but is a row", tn.Name)
					}
					continue
				}
				placed++
				if !ok || !r.HasOffset || r.Offset != tn.Offset || r.Lower != int64(tn.Birth) || r.Upper != int64(tn.Death)+1 || r.Size != tn.Size+tn.Guard {
					t.Errorf("%s: row %+v, want offset %d, life [%d, %d), size %d+%d", tn.Name, r, tn.Offset, tn.Birth, tn.Death+1, tn.Size, tn.Guard)
				}
			}
			if placed == 0 || len(table.Rows) != placed {
				t.Errorf("%d rows for %d placed tensors", len(table.Rows), placed)
			}
		})
	}
}

func TestBufferCSVRefusesNamesItCannotCarry(t *testing.T) {
	for _, name := range []string{"a,b", `say "x"`, "two\nlines", " padded", ""} {
		p := &planner.Plan{Tensors: []planner.PlanTensor{{Name: name, Size: 4, Offset: 0, Death: 1}}}
		if _, err := p.AppendBufferCSV(nil); err == nil || !strings.Contains(err.Error(), "cannot be a buffer id") {
			t.Errorf("%q: err = %v", name, err)
		}
	}
}
