package planner

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"memplan/ir"
)

// Diff compares two plans: two strategies on one graph, a graph and its
// f32-uniform version, two bindings of a symbol, or two files. Tensors are
// matched by name. The command line prints it (WriteTable) and the page
// shows the same record.
type Diff struct {
	A DiffSide `json:"a"`
	B DiffSide `json:"b"`
	// Deltas are B minus A.
	ArenaDelta         int64   `json:"arena_delta"`
	LowerBoundDelta    int64   `json:"lower_bound_delta"`
	FragmentationDelta float64 `json:"fragmentation_delta"`
	// Totals are the rows of the comparison's summary as text, the same
	// the command line prints: arena, lower bound, fragmentation, tensors.
	Totals []DiffTotal `json:"totals"`
	// Matched counts the tensors both plans name.
	Matched int `json:"matched"`
	// Changed lists the matched tensors whose offset, live range or size
	// differ, in A's order.
	Changed []TensorChange `json:"changed"`
	// OnlyA and OnlyB name the tensors only one plan has.
	OnlyA []string `json:"only_a"`
	OnlyB []string `json:"only_b"`
}

// DiffSide is one plan's totals, as the comparison shows them.
type DiffSide struct {
	Name          string  `json:"name"`
	Strategy      string  `json:"strategy"`
	Label         string  `json:"label"` // what distinguishes this side: file, strategy, options
	ArenaSize     int64   `json:"arena_size"`
	LowerBound    int64   `json:"lower_bound"`
	Fragmentation float64 `json:"fragmentation"`
	Optimal       bool    `json:"optimal"`
	Steps         int     `json:"steps"`
	Tensors       int     `json:"tensors"`
}

// DiffTotal is one row of the summary: what, A, B and B - A, as text.
type DiffTotal struct {
	What  string `json:"what"`
	A     string `json:"a"`
	B     string `json:"b"`
	Delta string `json:"delta"`
}

// TensorChange is a tensor that sits or lives differently in B than in A.
// An offset of -1 means the tensor owns no arena bytes on that side.
type TensorChange struct {
	Name    string `json:"name"`
	OffsetA int64  `json:"offset_a"`
	OffsetB int64  `json:"offset_b"`
	SizeA   int64  `json:"size_a"`
	SizeB   int64  `json:"size_b"`
	BirthA  int    `json:"birth_a"`
	DeathA  int    `json:"death_a"`
	BirthB  int    `json:"birth_b"`
	DeathB  int    `json:"death_b"`
	// What names the changes: "offset", "lifetime", "size", comma-joined.
	What string `json:"what"`
}

// DiffPlans compares plan a with plan b. The labels say what
// distinguishes the two sides; empty ones default to each plan's name and
// strategy.
func DiffPlans(a, b *Plan, labelA, labelB string) *Diff {
	d := &Diff{
		A:                  sideOf(a, labelA),
		B:                  sideOf(b, labelB),
		ArenaDelta:         b.ArenaSize - a.ArenaSize,
		LowerBoundDelta:    b.LowerBound - a.LowerBound,
		FragmentationDelta: roundMillionths(b.Fragmentation - a.Fragmentation),
		Changed:            []TensorChange{},
		OnlyA:              []string{},
		OnlyB:              []string{},
	}
	d.Totals = []DiffTotal{
		{"arena", FormatBytes(a.ArenaSize), FormatBytes(b.ArenaSize), signedBytes(d.ArenaDelta)},
		{"lower bound", FormatBytes(a.LowerBound), FormatBytes(b.LowerBound), signedBytes(d.LowerBoundDelta)},
		{"fragmentation", fmt.Sprintf("%.4f", a.Fragmentation), fmt.Sprintf("%.4f", b.Fragmentation), fmt.Sprintf("%+.4f", d.FragmentationDelta)},
		{"tensors", fmt.Sprint(len(a.Tensors)), fmt.Sprint(len(b.Tensors)), fmt.Sprintf("%+d", len(b.Tensors)-len(a.Tensors))},
	}
	inB := make(map[string]int, len(b.Tensors))
	for i := range b.Tensors {
		inB[b.Tensors[i].Name] = i
	}
	seen := make(map[string]bool, len(a.Tensors))
	for i := range a.Tensors {
		ta := &a.Tensors[i]
		seen[ta.Name] = true
		j, ok := inB[ta.Name]
		if !ok {
			d.OnlyA = append(d.OnlyA, ta.Name)
			continue
		}
		d.Matched++
		tb := &b.Tensors[j]
		var what []string
		if ta.Offset != tb.Offset {
			what = append(what, "offset")
		}
		if ta.Birth != tb.Birth || ta.Death != tb.Death {
			what = append(what, "lifetime")
		}
		if ta.Size != tb.Size {
			what = append(what, "size")
		}
		if what != nil {
			d.Changed = append(d.Changed, TensorChange{
				Name: ta.Name, OffsetA: ta.Offset, OffsetB: tb.Offset, SizeA: ta.Size, SizeB: tb.Size,
				BirthA: ta.Birth, DeathA: ta.Death, BirthB: tb.Birth, DeathB: tb.Death,
				What: strings.Join(what, ","),
			})
		}
	}
	for i := range b.Tensors {
		if !seen[b.Tensors[i].Name] {
			d.OnlyB = append(d.OnlyB, b.Tensors[i].Name)
		}
	}
	return d
}

// DiffLabel names one side of a comparison: the file, and the strategy,
// layout and symbol values its plan was made with (a plan record's are
// the record's own).
func DiffLabel(file string, p *Plan, record bool) string {
	var b strings.Builder
	b.WriteString(file)
	if record {
		b.WriteString(" (plan record)")
	}
	b.WriteString(", strategy " + p.Strategy)
	if p.Options.F32Uniform {
		b.WriteString(", f32-uniform")
	}
	syms := make([]string, 0, len(p.Symbols))
	for k, v := range p.Symbols {
		syms = append(syms, fmt.Sprintf("%s=%d", k, v))
	}
	slices.Sort(syms)
	if len(syms) > 0 {
		b.WriteString(", " + strings.Join(syms, ","))
	}
	return b.String()
}

func sideOf(p *Plan, label string) DiffSide {
	if label == "" {
		label = p.Name + " · " + p.Strategy
	}
	return DiffSide{Name: p.Name, Strategy: p.Strategy, Label: label, ArenaSize: p.ArenaSize, LowerBound: p.LowerBound,
		Fragmentation: p.Fragmentation, Optimal: p.Optimal || p.OptimalBySearch, Steps: p.Steps, Tensors: len(p.Tensors)}
}

func roundMillionths(v float64) float64 {
	if v < 0 {
		return -roundMillionths(-v)
	}
	return float64(int64(v*1e6+0.5)) / 1e6
}

// WriteTable writes the comparison as text: the two sides, the totals
// with their deltas, then one row per changed tensor.
func (d *Diff) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// Names and labels as ir.Display shows them: a tab or a line break in
	// one would shift the table's columns or forge a row.
	fmt.Fprintf(tw, "# A: %s\n# B: %s\n", ir.Display(d.A.Label), ir.Display(d.B.Label))
	fmt.Fprintf(tw, "\tA\tB\tB - A\n")
	for _, r := range d.Totals {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.What, r.A, r.B, r.Delta)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "# %d of %d matched tensors changed", len(d.Changed), d.Matched)
	if n := len(d.OnlyA) + len(d.OnlyB); n > 0 {
		fmt.Fprintf(w, "; %d only in A, %d only in B", len(d.OnlyA), len(d.OnlyB))
	}
	fmt.Fprintln(w)
	if len(d.Changed) > 0 {
		fmt.Fprintf(tw, "tensor\toffset A\toffset B\tsteps A\tsteps B\tsize A\tsize B\tchanged\n")
		for _, c := range d.Changed {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d-%d\t%d-%d\t%d\t%d\t%s\n", ir.Display(c.Name), offsetText(c.OffsetA), offsetText(c.OffsetB),
				c.BirthA, c.DeathA, c.BirthB, c.DeathB, c.SizeA, c.SizeB, c.What)
		}
	}
	for _, side := range []struct {
		label string
		names []string
	}{{"A", d.OnlyA}, {"B", d.OnlyB}} {
		if len(side.names) > 0 {
			shown := make([]string, len(side.names))
			for k, n := range side.names {
				shown[k] = ir.Display(n)
			}
			fmt.Fprintf(tw, "only in %s:\t%s\n", side.label, strings.Join(shown, " "))
		}
	}
	return tw.Flush()
}

func offsetText(off int64) string {
	if off < 0 {
		return "-"
	}
	return fmt.Sprint(off)
}

func signedBytes(b int64) string {
	switch {
	case b > 0:
		return "+" + FormatBytes(b)
	case b < 0:
		return "-" + FormatBytes(-b)
	}
	return "0"
}
