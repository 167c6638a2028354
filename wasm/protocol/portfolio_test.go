package protocol

import (
	"reflect"
	"testing"
)

// answer is a shard's "planned" event.
func answer(arena int64, member int, optimal bool) Heard {
	return Heard{Type: "planned", Arena: arena, Member: member, Optimal: optimal}
}

// kinds is routes as "type→worker" strings, to compare.
func kinds(rs []Route) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Message.Type+"→"+string(rune('0'+r.To)))
	}
	return out
}

// TestPortfolio: who runs what, which answer wins, when the others stop
// and who polishes, as the command line's portfolio decides on one
// machine.
func TestPortfolio(t *testing.T) {
	auto := PlanRequest{ID: 7, Name: "m.csv", Options: Options{Strategy: "auto"}}
	type heard struct {
		from int
		ev   Heard
		// what the portfolio must answer
		routes  []string
		outcome *Outcome
	}
	tests := []struct {
		name   string
		req    PlanRequest
		pool   int
		start  []string
		events []heard
	}{
		{"another strategy plans on the first worker alone", PlanRequest{ID: 7, Options: Options{Strategy: "best-fit"}}, 4,
			[]string{"plan→0"}, []heard{{0, answer(100, -1, false), nil, &Outcome{From: 0}}}},
		{"one worker: no shards, no polish", auto, 1,
			[]string{"plan→0"}, []heard{{0, answer(100, 2, false), nil, &Outcome{From: 0}}}},
		{"the smallest arena wins and is polished", auto, 3, []string{"plan→0", "plan→1", "plan→2"}, []heard{
			{0, Heard{Type: "release"}, []string{"release→1", "release→2"}, nil},
			{1, answer(90, 1, false), nil, nil},
			{0, answer(100, 0, false), nil, nil},
			{2, answer(95, 2, false), []string{"polish→1"}, nil},
			{0, answer(80, 0, false), nil, nil}, // not the winner: ignored while it polishes
			{1, answer(85, 1, false), nil, &Outcome{From: 1}},
		}},
		{"a tie goes to the lower member", auto, 2, []string{"plan→0", "plan→1"}, []heard{
			{1, answer(90, 1, false), []string{"release→1"}, nil},
			{0, answer(90, 0, false), []string{"polish→0"}, nil},
			{0, Heard{Type: "error", Error: &Error{Message: "x", Kind: "cancelled"}}, nil, &Outcome{From: 0}},
		}},
		{"member 0 at the bound stops the rest", auto, 3, []string{"plan→0", "plan→1", "plan→2"}, []heard{
			{0, answer(64, 0, true), []string{"cancel→1", "cancel→2"}, &Outcome{From: 0}},
			{1, answer(64, 1, true), nil, nil},
		}},
		{"an optimal answer needs no polish", auto, 2, []string{"plan→0", "plan→1"}, []heard{
			{0, answer(70, 0, false), []string{"release→1"}, nil},
			{1, answer(64, 3, true), nil, &Outcome{From: 1}},
		}},
		{"the first error is the answer", auto, 2, []string{"plan→0", "plan→1"}, []heard{
			{0, Heard{Type: "error", Error: &Error{Message: "bad file", Kind: "input"}}, []string{"cancel→1"},
				&Outcome{From: 0, Error: &Error{Message: "bad file", Kind: "input"}}},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, routes := StartPortfolio(tc.req, tc.pool)
			if got := kinds(routes); !reflect.DeepEqual(got, tc.start) {
				t.Fatalf("start: %v, want %v", got, tc.start)
			}
			for k, r := range routes {
				m := r.Message
				if tc.pool > 1 && len(routes) > 1 && (m.Shard != k || m.Shards != len(routes) || m.Hold != (k > 0) || m.ID != 7) {
					t.Errorf("route %d: %+v", k, m)
				}
			}
			for i, h := range tc.events {
				routes, out := p.Heard(h.from, h.ev)
				if got := kinds(routes); !reflect.DeepEqual(got, h.routes) {
					t.Fatalf("event %d: routes %v, want %v", i, got, h.routes)
				}
				if out != nil {
					out.Millis = nil
				}
				if !reflect.DeepEqual(out, h.outcome) {
					t.Fatalf("event %d: outcome %+v, want %+v", i, out, h.outcome)
				}
			}
		})
	}
}
