package viz

import (
	"strings"
	"testing"
)

func TestGlyphsWellFormed(t *testing.T) {
	check := func(r rune, rows []string) {
		for i, row := range rows {
			if len(row) != 5 || strings.Trim(row, ".#") != "" {
				t.Errorf("glyph %q row %d is %q, want five of . or #", r, i, row)
			}
		}
	}
	for r, g := range glyphs {
		check(r, g[:])
	}
	for r, g := range descenders {
		check(r, g[:])
		if _, ok := glyphs[r]; !ok {
			t.Errorf("descender %q has no base glyph", r)
		}
	}
	// Nine rows fit the cell below the blank rows on top.
	if fontTop+9 > CharH {
		t.Errorf("descenders overflow the %d-pixel cell", CharH)
	}
}

// Every label the viewer writes must use only glyphs the font has.
func TestLabelsUseKnownGlyphs(t *testing.T) {
	texts := []string{"arena", "lower bound", "budget", "exceeded by", "live", "no plan loaded"}
	for _, n := range []int64{0, 64, 1023, 1536, 3 << 20, 5 << 30, 1 << 41, -2048, 128<<20 + 1, 12587008} {
		texts = append(texts, FormatBytes(n))
	}
	for _, s := range texts {
		for _, r := range s {
			if _, ok := glyphs[r]; !ok {
				t.Errorf("%q: no glyph for %q", s, r)
			}
		}
	}
}

func TestAppendTextMergesRuns(t *testing.T) {
	qs := appendText(nil, 10, 20, "-", Dark.Text, 1)
	if len(qs) != 1 || qs[0].X1-qs[0].X0 != 5 || qs[0].Y0 != 20+fontTop+3 {
		t.Errorf("minus sign drew %+v, want one 5-pixel run on row 3", qs)
	}
	if w := TextWidth("1 KiB"); w != 5*CharW {
		t.Errorf("TextWidth = %v", w)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 64: "64 B", 1024: "1 KiB", 1536: "1.5 KiB", 128 << 20: "128 MiB", 3 << 30: "3 GiB", -2048: "-2 KiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTicks(t *testing.T) {
	st := StepTicks(0, 100, 10, 64) // 10 px a step, labels 64 px apart: every 10 steps
	if len(st) != 11 || st[1].V != 10 || st[10].Label != "100" {
		t.Errorf("step ticks %v", st)
	}
	for _, c := range []struct {
		lo, hi, k float64
		n         int
		unit      string
		second    string
		last      string
	}{
		{0, 4 << 20, 100.0 / (1 << 20), 9, "MiB", "0.5", "4"},    // ticks every 512 KiB
		{0, 4 << 20, 400.0 / (1 << 20), 33, "MiB", "0.125", "4"}, // 128 KiB: still MiB, three decimals
		{0, 4 << 20, 1600.0 / (1 << 20), 129, "KiB", "32", "4096"},
		{0, 1000, 1, 16, "B", "64", "960"},
		{5 << 30, 6 << 30, 200.0 / (1 << 30), 5, "GiB", "5.25", "6"},
		{5 << 30, 6 << 30, 400.0 / (1 << 30), 9, "GiB", "5.125", "6"},
	} {
		bt, unit := ByteTicks(c.lo, c.hi, c.k, 48)
		if len(bt) != c.n || unit != c.unit || bt[1].Label != c.second || bt[len(bt)-1].Label != c.last {
			t.Errorf("ByteTicks(%v, %v, %v): %d ticks in %s, second %q, last %q; want %d in %s, %q, %q",
				c.lo, c.hi, c.k, len(bt), unit, bt[1].Label, bt[len(bt)-1].Label, c.n, c.unit, c.second, c.last)
		}
	}
}

// The 2× font is the 1× one enlarged: same lit area, give or take the
// corners Scale2x rounds.
func TestScale2x(t *testing.T) {
	for r, g := range fonts[0] {
		lit1, lit2 := 0, 0
		for _, row := range g {
			for _, b := range row {
				if b {
					lit1++
				}
			}
		}
		for _, row := range fonts[1][r] {
			for _, b := range row {
				if b {
					lit2++
				}
			}
		}
		if d := lit2 - 4*lit1; d < -2*lit1 || d > 2*lit1 {
			t.Errorf("%q: %d pixels lit at 2x, %d at 1x", r, lit2, lit1)
		}
	}
	// An isolated pixel stays a 2x2 block; a lone diagonal gets filled in.
	if got := scale2x(bitmap{{true}}); !got[0][0] || !got[1][1] || !got[0][1] || !got[1][0] {
		t.Errorf("one pixel: %v", got)
	}
	d := scale2x(bitmap{{true, false}, {false, true}})
	if !d[1][2] || !d[2][1] {
		t.Errorf("diagonal not joined: %v", d)
	}
}
