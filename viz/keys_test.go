package viz

import (
	"strings"
	"testing"

	"memplan/viz/internal/sample"
)

// TestKeyBindingsAreData: each key belongs to one binding, each binding
// has a label and help for the page, and Key acts on every key listed.
func TestKeyBindingsAreData(t *testing.T) {
	owner := map[string]string{} // key in its mode -> action
	for _, b := range KeyBindings {
		if b.Label == "" || b.Help == "" || b.Action == "" || len(b.Keys) == 0 {
			t.Errorf("binding %+v lacks a label, help, action or key", b)
		}
		for _, k := range b.Keys {
			if prev, dup := owner[b.Mode+" "+k]; dup {
				t.Errorf("key %q is bound to %s and %s", k, prev, b.Action)
			}
			owner[b.Mode+" "+k] = b.Action
			if got := actionOf(k, b.Mode); got != b.Action {
				t.Errorf("key %q does %q, its binding says %q", k, got, b.Action)
			}
		}
	}
	v := NewView(800, 600)
	v.SetLayout(NewLayout(sample.Plan(), 0), false)
	for mk, action := range owner {
		mode, k, _ := strings.Cut(mk, " ")
		if mode != "" {
			continue // TestHandKeys
		}
		if !v.Key(k, false) {
			t.Errorf("Key(%q) did nothing", k)
		}
		if got := actionOf(k, "place"); got != action && owner["place "+k] == "" {
			t.Errorf("placing, key %q does %q, want %q: no place binding of its own", k, got, action)
		}
	}
	if v.Key("q", false) {
		t.Error(`Key("q") claims to act`)
	}
}
