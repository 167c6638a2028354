package planner

import "testing"

func TestProfileOf(t *testing.T) {
	const MiB, GiB = 1 << 20, 1 << 30
	for _, c := range []struct {
		name                   string
		binding, buffer, align int64
		want                   string // "" for none
	}{
		{"the spec's defaults", 128 * MiB, 256 * MiB, 256, "default"},
		{"SwiftShader in Chromium", 1 * GiB, 1 * GiB, 256, "desktop"},
		{"iOS Safari", 256 * MiB, 256 * MiB, 256, "ios"},
		{"256 MiB bindings, 1 GiB buffers", 256 * MiB, 1 * GiB, 256, "ios"},
		{"Intel", 512 * MiB, 2 * GiB, 256, "intel"},
		{"a large discrete GPU", 2 * GiB, 4 * GiB, 32, "desktop"},
		{"a finer alignment than any profile asks", 128 * MiB, 256 * MiB, 64, "default"},
		{"bindings under the spec's", 64 * MiB, 256 * MiB, 256, ""},
		{"a coarser alignment than the spec's", 1 * GiB, 1 * GiB, 512, ""},
		{"no alignment", 1 * GiB, 1 * GiB, 0, ""},
	} {
		p, ok := ProfileOf(Limits{MaxStorageBufferBindingSize: c.binding, MaxBufferSize: c.buffer, MinStorageBufferOffsetAlignment: c.align})
		if got := p.Profile; ok != (c.want != "") || got != c.want {
			t.Errorf("%s: ProfileOf = %q, %v; want %q", c.name, got, ok, c.want)
		}
	}
}
