package planner

import (
	"strconv"
	"strings"
	"testing"
)

func TestProfiles(t *testing.T) {
	want := map[string][3]int64{
		"default": {128 << 20, 256 << 20, 256},
		"intel":   {512 << 20, 512 << 20, 256},
		"desktop": {1 << 30, 1 << 30, 256},
	}
	for _, name := range []string{"default", "fallback", "android", "ios", "intel", "desktop"} {
		l, err := ProfileLimits(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Check(); err != nil {
			t.Errorf("profile %s: %v", name, err)
		}
		if w, ok := want[name]; ok && (l.MaxStorageBufferBindingSize != w[0] || l.MaxBufferSize != w[1] || l.MinStorageBufferOffsetAlignment != w[2]) {
			t.Errorf("profile %s = %+v, want %v", name, l, w)
		}
	}
	// Smallest first: each profile allows at least what the one before does.
	ps := Profiles()
	for i := 1; i < len(ps); i++ {
		a, b := ps[i-1], ps[i]
		if b.MaxStorageBufferBindingSize < a.MaxStorageBufferBindingSize || b.MaxBufferSize < a.MaxBufferSize {
			t.Errorf("profile %s comes after %s but allows less", b.Profile, a.Profile)
		}
	}
	if _, err := ProfileLimits("nvidia"); err == nil || !strings.Contains(err.Error(), "desktop") {
		t.Errorf("unknown profile: %v, want an error listing the known ones", err)
	}
}

func TestParseLimits(t *testing.T) {
	base, _ := ProfileLimits("default")
	tests := []struct {
		text    string
		want    [3]int64 // binding, buffer, align
		wantErr string
	}{
		{"binding=1GiB,buffer=1GiB,offset-align=256", [3]int64{1 << 30, 1 << 30, 256}, ""},
		{"buffer=512MiB", [3]int64{128 << 20, 512 << 20, 256}, ""},
		{"binding=64MiB offset-align=64", [3]int64{64 << 20, 256 << 20, 64}, ""},
		{"binding=1GiB", [3]int64{}, "larger than maxBufferSize"},
		{"binding", [3]int64{}, "not name=size"},
		{"bind=1GiB", [3]int64{}, "unknown limit"},
		{"buffer=lots", [3]int64{}, "bad size"},
		{"offset-align=100", [3]int64{}, "power of two"},
		{"binding=1MiB,binding=2MiB", [3]int64{}, "given twice"},
		{"buffer=0", [3]int64{}, "positive multiple of 4"},
		{"buffer=1022", [3]int64{}, "positive multiple of 4"},
		{"buffer=8EiB", [3]int64{}, "bad size"},
	}
	for _, tt := range tests {
		l, err := ParseLimits(base, tt.text)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseLimits(%q) = %v, want an error with %q", tt.text, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("ParseLimits(%q): %v", tt.text, err)
		case l.MaxStorageBufferBindingSize != tt.want[0] || l.MaxBufferSize != tt.want[1] || l.MinStorageBufferOffsetAlignment != tt.want[2] || l.Profile != "custom":
			t.Errorf("ParseLimits(%q) = %+v, want %v named custom", tt.text, l, tt.want)
		}
	}
}

func TestResolveGPU(t *testing.T) {
	tests := []struct {
		profile, limits, binding string
		want                     string // "binding profile binding-size", or an error's words
	}{
		{"", "", "", "none"},
		{"intel", "", "", "arena intel 536870912"},
		// Binding and limits apply only with a profile: the page's form
		// keeps them while its device is "none".
		{"", "", "tensor", "none"},
		{"", "binding=64MiB", "", "none"},
		{"", "binding=64MiB", "tensor", "none"},
		{"default", "", "tensor", "tensor default 134217728"},
		{"default", "binding=64MiB", "", "arena custom 67108864"},
		{"desktop", "binding=256MiB", "tensor", "tensor custom 268435456"},
		{"gpu", "", "", "unknown WebGPU profile"},
		{"default", "", "buffer", "want arena or tensor"},
		{"default", "binding=lots", "", "limits: binding"},
	}
	for _, tt := range tests {
		g, err := ResolveGPU(tt.profile, tt.limits, tt.binding)
		got := "none"
		switch {
		case err != nil:
			got = err.Error()
		case g != nil:
			got = strings.Join([]string{g.Binding, g.Limits.Profile, itoa(g.Limits.MaxStorageBufferBindingSize)}, " ")
		}
		if !strings.Contains(got, tt.want) {
			t.Errorf("ResolveGPU(%q, %q, %q) = %s, want %s", tt.profile, tt.limits, tt.binding, got, tt.want)
		}
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
