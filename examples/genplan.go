//go:build ignore

// genplan writes the plan of the default example with default options:
// plans/<name> as a plan record (the docs show it) and plans/<name
// without .json>.bin in planner's binary form, which the viewer embeds
// and opens on. Run by go generate; TestDefaultPlanIsCurrent checks both.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"strings"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
)

func main() {
	data, err := examples.FS.ReadFile(examples.Default)
	if err != nil {
		log.Fatal(err)
	}
	in, err := planner.Load(examples.Default, data, ir.DecodeOptions{})
	if err != nil {
		log.Fatal(err)
	}
	p, err := planner.PlanSource(context.Background(), in.Source, planner.DefaultOptions(), "", planner.PlaceOptions{})
	if err != nil {
		log.Fatal(err)
	}
	rec, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		log.Fatal(err)
	}
	bin, err := p.AppendBinary(nil)
	if err != nil {
		log.Fatal(err)
	}
	base := filepath.Join("plans", strings.TrimSuffix(examples.Default, ".json"))
	if err := os.WriteFile(base+".json", append(rec, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(base+".bin", bin, 0o644); err != nil {
		log.Fatal(err)
	}
}
