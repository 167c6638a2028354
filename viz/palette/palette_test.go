package palette

import "testing"

func TestContrastKnownValues(t *testing.T) {
	for _, c := range []struct {
		a, b RGB
		want float64
	}{
		{RGB{0, 0, 0}, RGB{255, 255, 255}, 21},
		{RGB{255, 255, 255}, RGB{255, 255, 255}, 1},
		{RGB{118, 118, 118}, RGB{255, 255, 255}, 4.54}, // the classic AA grey
	} {
		if got := Contrast(c.a, c.b); got < c.want-0.01 || got > c.want+0.01 {
			t.Errorf("Contrast(%s, %s) = %.3f, want %.2f", c.a.Hex(), c.b.Hex(), got, c.want)
		}
	}
}
