package planner

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// A field of a plan record, found by walking it: its JSON path and how to
// read and change it.
type recordField struct {
	path string
	get  func() reflect.Value
	set  func(reflect.Value)
}

// recordFields lists every field of plan, every element of its lists
// and every entry of its maps, by JSON path.
func recordFields(plan *Plan) []recordField {
	var out []recordField
	var walk func(path string, v reflect.Value, set func(reflect.Value))
	walk = func(path string, v reflect.Value, set func(reflect.Value)) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(path, v.Elem(), v.Elem().Set)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Type().Field(i)
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "-" {
					continue
				}
				p := path + "." + name
				if f.Anonymous {
					p = path
				}
				walk(strings.TrimPrefix(p, "."), v.Field(i), v.Field(i).Set)
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), v.Index(i), v.Index(i).Set)
			}
			out = append(out, recordField{path + "[]", func() reflect.Value { return v }, set})
		case reflect.Map:
			for _, k := range v.MapKeys() {
				out = append(out, recordField{path + "." + k.String(), func() reflect.Value { return v.MapIndex(k) },
					func(x reflect.Value) { v.SetMapIndex(k, x) }})
			}
			out = append(out, recordField{path + "{}", func() reflect.Value { return v }, set})
		default:
			out = append(out, recordField{path, func() reflect.Value { return v }, set})
		}
	}
	walk("", reflect.ValueOf(plan).Elem(), nil)
	return out
}

// mutate changes a field's value at random to one that differs: a
// number nudged or replaced, a string replaced by another name of the
// plan or edited, a bool flipped, a list shortened or an element
// repeated, a map given or losing an entry. It reports false when it
// found no different value.
func mutate(rng *rand.Rand, f recordField, names []string) bool {
	v := f.get()
	var x reflect.Value
	switch v.Kind() {
	case reflect.Int, reflect.Int64:
		n := v.Int()
		cands := []int64{n + 1, n - 1, n * 2, 0, n + 64, -1, int64(rng.IntN(1 << 20))}
		x = reflect.ValueOf(cands[rng.IntN(len(cands))]).Convert(v.Type())
	case reflect.Float64:
		cands := []float64{v.Float() + 1e-6, 1, 0.5, v.Float() * 2}
		x = reflect.ValueOf(cands[rng.IntN(len(cands))])
	case reflect.String:
		cands := []string{names[rng.IntN(len(names))], v.String() + "x", ""}
		x = reflect.ValueOf(cands[rng.IntN(len(cands))]).Convert(v.Type())
	case reflect.Bool:
		x = reflect.ValueOf(!v.Bool())
	case reflect.Slice:
		if v.Len() == 0 {
			return false
		}
		if rng.IntN(2) == 0 {
			x = v.Slice(0, v.Len()-1)
		} else {
			x = reflect.Append(v, v.Index(rng.IntN(v.Len())))
		}
	case reflect.Map:
		x = reflect.MakeMap(v.Type())
		for _, k := range v.MapKeys() {
			x.SetMapIndex(k, v.MapIndex(k))
		}
		if ks := v.MapKeys(); len(ks) > 0 && rng.IntN(2) == 0 {
			x.SetMapIndex(ks[rng.IntN(len(ks))], reflect.Value{})
		} else {
			x.SetMapIndex(reflect.ValueOf("extra"), reflect.ValueOf(int64(7)))
		}
	default:
		return false
	}
	if reflect.DeepEqual(x.Interface(), v.Interface()) {
		return false
	}
	f.set(x)
	return true
}

var (
	// Labels say how a plan was made; verify checks their form only.
	labelField = regexp.MustCompile(`^(strategy|placement_rule|optimal_by_search|placement_order(\[\d*\])?)$`)
	// An owner's offset is the answer, not derived: moved, the plan may
	// still be valid (then its other fields must say so).
	offsetField = regexp.MustCompile(`^tensors\[(\d+)\]\.offset$`)
	// What the record itself decides, so that Verify rejects a change
	// without the source.
	recordDerived = regexp.MustCompile(`^(arena_size|lower_bound|aligned_lower_bound|total_unshared|saved|fragmentation|optimal|steps|fingerprint|` +
		`tensors\[\d+\]\.(reuses|kind|buffer|buffer_offset)|buffers.*|io\.(inputs|params|constants).*)$`)
	graphDerived = regexp.MustCompile(`^tensors\[\d+\]\.(size|dtype)$`)
)

// TestVerifyRejectsEveryMutation changes the fields of valid records one
// at a time, as someone editing a record would (the fingerprint
// recomputed, as anyone can), and checks the verdicts: with its source,
// verify rejects every change but of a label or an offset, and a moved
// offset only if the plan is then invalid; without its source, it
// rejects every change of a field the record derives itself.
func TestVerifyRejectsEveryMutation(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 6))
	var mutations, rejected int
	for _, s := range sampleRecords(t) {
		data := recordJSON(t, s.plan)
		fresh := func() *Plan {
			p, err := DecodePlan("r.json", data)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		var names []string
		for i := range s.plan.Tensors {
			names = append(names, s.plan.Tensors[i].Name)
		}
		names = append(names, s.plan.Schedule...)
		names = append(names, "activation", "view", "input", "f16", "exact")
		fields := recordFields(fresh())
		// Every field once, then more at random.
		picks := make([]int, 0, len(fields)+300)
		for k := range fields {
			picks = append(picks, k)
		}
		for range 300 {
			picks = append(picks, rng.IntN(len(fields)))
		}
		for _, k := range picks {
			plan := fresh()
			f := recordFields(plan)[k]
			if !mutate(rng, f, names) {
				continue
			}
			if f.path != "fingerprint" {
				plan.Fingerprint = plan.ComputeFingerprint()
			}
			mutations++
			errAgainst := VerifyAgainst(s.p, plan)
			errAlone := Verify(plan)
			where := fmt.Sprintf("%s: %s changed", s.name, f.path)
			switch m := offsetField.FindStringSubmatch(f.path); {
			case labelField.MatchString(f.path):
				continue
			case m != nil && plan.Tensors[atoi(m[1])].Placed():
				if errAgainst == nil && !pairwiseValid(plan) {
					t.Errorf("%s: verify accepts an invalid plan", where)
				}
			case errAgainst == nil:
				t.Errorf("%s to %v: verify against the source accepts it", where, f.get())
			}
			graph := s.plan.source() == sourceGraph
			if errAlone == nil && (recordDerived.MatchString(f.path) || graph && graphDerived.MatchString(f.path)) {
				t.Errorf("%s to %v: Verify accepts it without the source", where, f.get())
			}
			if errAgainst != nil {
				rejected++
			}
		}
	}
	if mutations < 1000 || rejected < mutations/2 {
		t.Fatalf("%d mutations, %d rejected: too few to say much", mutations, rejected)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = 10*n + int(c-'0')
	}
	return n
}

// pairwiseValid checks a plan's owners the slow, obvious way: each
// aligned and inside the arena, no two live at a common step sharing a
// byte, the arena where their bytes end.
func pairwiseValid(plan *Plan) bool {
	var owners []*PlanTensor
	var top int64
	for i := range plan.Tensors {
		t := &plan.Tensors[i]
		if !t.Placed() || t.Size+t.Guard == 0 {
			continue
		}
		if t.Offset < 0 || t.Offset%plan.alignOf(t) != 0 || t.Offset+t.Size+t.Guard > plan.ArenaSize {
			return false
		}
		top = max(top, t.Offset+t.Size+t.Guard)
		owners = append(owners, t)
	}
	for i, a := range owners {
		for _, b := range owners[i+1:] {
			if a.Birth <= b.Death && b.Birth <= a.Death && a.Offset < b.Offset+b.Size+b.Guard && b.Offset < a.Offset+a.Size+a.Guard {
				return false
			}
		}
	}
	return top == plan.ArenaSize
}
