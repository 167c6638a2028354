package viz

import (
	"strings"
	"testing"
)

func TestGlyphsWellFormed(t *testing.T) {
	for r, g := range glyphs {
		for i, row := range g {
			if len(row) != 5 || strings.Trim(row, ".#") != "" {
				t.Errorf("glyph %q row %d is %q, want five of . or #", r, i, row)
			}
		}
	}
}

// Every label the viewer writes must use only glyphs the font has.
func TestLabelsUseKnownGlyphs(t *testing.T) {
	texts := []string{"arena", "lower bound", "budget", "exceeded by", "live", "no plan loaded"}
	for _, n := range []int64{0, 64, 1023, 1536, 3 << 20, 5 << 30, 1 << 41, -2048} {
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
	qs := appendText(nil, 10, 20, "-", TextColor)
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
	bt := ByteTicks(0, 4<<20, 100.0/(1<<20), 48) // 100 px a MiB: ticks every 512 KiB
	if len(bt) != 9 || bt[1].Label != "512 KiB" || bt[8].Label != "4 MiB" {
		t.Errorf("byte ticks %v", bt)
	}
}
