package planner

import (
	"context"
	"testing"
)

// sharedData is where the published instances live in a checkout of the
// project; benchmarks that need them skip when it is absent.
const sharedData = "../../shared/data"

func benchStrategy(b *testing.B, p *Problem, name string) {
	b.Helper()
	b.ReportAllocs()
	var arena int64
	for b.Loop() {
		pl, err := Place(context.Background(), p, name, PlaceOptions{})
		if err != nil {
			b.Fatal(err)
		}
		arena = pl.Arena
	}
	if lb := LowerBound(p); lb > 0 {
		b.ReportMetric(float64(arena)/float64(lb), "arena/LB")
	}
}

func BenchmarkBestFitY1(b *testing.B) {
	benchStrategy(b, loadCSV(b, sharedData+"/idealloc/Y_1.csv"), "best-fit")
}

func BenchmarkBestFitTemporalY1(b *testing.B) {
	benchStrategy(b, loadCSV(b, sharedData+"/idealloc/Y_1.csv"), "best-fit-temporal")
}

func BenchmarkFirstUseY1(b *testing.B) {
	benchStrategy(b, loadCSV(b, sharedData+"/idealloc/Y_1.csv"), "first-use")
}

func BenchmarkBreadthY1(b *testing.B) {
	benchStrategy(b, loadCSV(b, sharedData+"/idealloc/Y_1.csv"), "breadth")
}

func BenchmarkAutoY1(b *testing.B) {
	benchStrategy(b, loadCSV(b, sharedData+"/idealloc/Y_1.csv"), "auto")
}

func TestGenerateIsDeterministicAndValid(t *testing.T) {
	for _, n := range []int{1, 100, 1000, 5000} {
		a, b := Generate(n, 7), Generate(n, 7)
		if len(a.Buffers) != n {
			t.Fatalf("Generate(%d) made %d buffers", n, len(a.Buffers))
		}
		if err := a.Check(); err != nil {
			t.Fatalf("Generate(%d): %v", n, err)
		}
		for i := range a.Buffers {
			if a.Buffers[i] != b.Buffers[i] {
				t.Fatalf("Generate(%d) differs at buffer %d: %+v vs %+v", n, i, a.Buffers[i], b.Buffers[i])
			}
		}
		if c := Generate(n, 8); n >= 100 && LowerBound(c) == LowerBound(a) {
			t.Errorf("Generate(%d): seeds 7 and 8 give the same lower bound", n)
		}
	}
}
