package planner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"memplan/ir"
)

// randomProblem builds a small problem with every feature a strategy must
// honour: random live ranges, sizes (some zero), per-buffer alignments,
// guards, and a few fixed buffers stacked so that they never clash.
func randomProblem(rng *rand.Rand, n, steps int) *Problem {
	t := &ir.BufferTable{Name: "random"}
	base := int64(1) << rng.IntN(4)
	var fixedTop int64
	for i := range n {
		lo := rng.IntN(steps)
		r := ir.BufferRow{ID: fmt.Sprint("b", i), Lower: int64(lo), Upper: int64(lo + 1 + rng.IntN(steps-lo))}
		switch rng.IntN(8) {
		case 0:
			r.Size = 0
		case 1:
			r.Size = 1 + rng.Int64N(5000) // a few big ones
		default:
			r.Size = 1 + rng.Int64N(300)
		}
		if rng.IntN(3) == 0 {
			r.Alignment = base << rng.IntN(5)
		}
		if rng.IntN(12) == 0 {
			a := max(r.Alignment, base)
			r.Offset = alignUp(fixedTop+rng.Int64N(200), a)
			r.HasOffset = true
			fixedTop = r.Offset + r.Size + 64 // room for a guard
		}
		t.Rows = append(t.Rows, r)
	}
	p, err := FromTable(t, base)
	if err != nil {
		panic(err)
	}
	for i := range p.Buffers {
		if rng.IntN(5) == 0 {
			g := rng.Int64N(64)
			p.Buffers[i].Guard = g
			p.Tensors[p.Buffers[i].Tensor].Guard = g
		}
	}
	return p
}

// checkOffsets is a problem-level pairwise proof of a placement, kept
// apart from Verify so a bug in one cannot hide a bug in the other.
func checkOffsets(p *Problem, offsets []int64) error {
	if len(offsets) != len(p.Buffers) {
		return fmt.Errorf("%d offsets for %d buffers", len(offsets), len(p.Buffers))
	}
	for i := range p.Buffers {
		a := &p.Buffers[i]
		switch {
		case offsets[i] < 0 || offsets[i]%a.Align != 0:
			return fmt.Errorf("buffer %s: offset %d not aligned to %d", a.Name, offsets[i], a.Align)
		case a.Fixed && offsets[i] != a.Offset:
			return fmt.Errorf("fixed buffer %s moved from %d to %d", a.Name, a.Offset, offsets[i])
		}
		for j := range i {
			b := &p.Buffers[j]
			if a.Span() > 0 && b.Span() > 0 && a.Overlaps(b) && offsets[i] < b.End(offsets[j]) && offsets[j] < a.End(offsets[i]) {
				return fmt.Errorf("buffers %s [%d,%d) and %s [%d,%d) clash", a.Name, offsets[i], a.End(offsets[i]), b.Name, offsets[j], b.End(offsets[j]))
			}
		}
	}
	return nil
}

// loadCSV reads a buffer CSV as the CLI does (alignment 1: the published
// instances have none).
// readCSVTable reads a buffer CSV's rows.
func readCSVTable(tb testing.TB, path string) *ir.BufferTable {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err) // a test's input is part of the test: never skip it
	}
	t, err := ir.DecodeBufferCSV(filepath.Base(path), data)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

func loadCSV(tb testing.TB, path string) *Problem {
	tb.Helper()
	p, err := FromTable(readCSVTable(tb, path), 1)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// heuristics are the strategies that must be valid on any problem and
// fast enough to run thousands of times.
var heuristics = []string{"auto", "best-fit", "best-fit-temporal", "first-use", "breadth"}

func TestHeuristicsValidOnRandomProblems(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	count := 2000
	if testing.Short() {
		count = 300
	}
	for k := range count {
		p := randomProblem(rng, rng.IntN(40), 2+rng.IntN(30))
		lb := LowerBound(p)
		for _, name := range heuristics {
			pl, err := Place(context.Background(), p, name, PlaceOptions{})
			if err != nil {
				t.Fatalf("problem %d, %s: %v", k, name, err)
			}
			if err := checkOffsets(p, pl.Offsets); err != nil {
				t.Fatalf("problem %d, %s: %v", k, name, err)
			}
			if err := Verify(NewPlan(p, name, pl)); err != nil {
				t.Fatalf("problem %d, %s: Verify: %v", k, name, err)
			}
			if pl.Arena < lb {
				t.Fatalf("problem %d, %s: arena %d below the lower bound %d", k, name, pl.Arena, lb)
			}
		}
	}
}

func TestBestGap(t *testing.T) {
	tests := []struct {
		taken       []span
		size, align int64
		want        int64
	}{
		{nil, 10, 1, 0},
		{[]span{{0, 10}}, 5, 1, 10},
		{[]span{{20, 30}}, 5, 1, 0},
		{[]span{{20, 30}}, 25, 1, 30},                    // does not fit below
		{[]span{{10, 20}, {50, 60}, {65, 70}}, 5, 1, 60}, // the 5-byte gap beats 10 and 30
		{[]span{{10, 20}, {50, 60}, {65, 70}}, 6, 1, 0},  // 10 < 30
		{[]span{{1, 20}, {50, 60}}, 10, 16, 32},          // 0 cannot hold it; 20 aligns to 32
		{[]span{{3, 20}}, 4, 8, 24},                      // 0..3 is too small
	}
	for _, tt := range tests {
		if got := bestGap(tt.taken, tt.size, tt.align, 0); got != tt.want {
			t.Errorf("bestGap(%v, %d, %d) = %d, want %d", tt.taken, tt.size, tt.align, got, tt.want)
		}
	}
}

// TestBestGapCuts: with the arena cut every 64 bytes, a gap that holds
// the bytes only across a cut does not count, and the top moves past a
// cut it would straddle.
func TestBestGapCuts(t *testing.T) {
	tests := []struct {
		taken       []span
		size, align int64
		want        int64
	}{
		{nil, 64, 16, 0},
		{[]span{{0, 48}}, 32, 16, 64},                    // 48..80 would straddle 64
		{[]span{{0, 48}}, 16, 16, 48},                    // 48..64 fits below the cut
		{[]span{{0, 40}, {100, 128}}, 30, 8, 64},         // the gap 40..100 holds it from the cut
		{[]span{{0, 40}, {90, 128}}, 40, 8, 128},         // 64..104 meets 90: over the top
		{[]span{{0, 16}, {60, 70}, {80, 200}}, 8, 8, 72}, // no cut in the way: the smaller gap
	}
	for _, tt := range tests {
		if got := bestGap(tt.taken, tt.size, tt.align, 64); got != tt.want {
			t.Errorf("bestGap(%v, %d, %d, cut 64) = %d, want %d", tt.taken, tt.size, tt.align, got, tt.want)
		}
		if got := firstGap(tt.taken, tt.size, tt.align, 64); got/64 != (got+tt.size-1)/64 {
			t.Errorf("firstGap(%v, %d, %d, cut 64) = %d straddles a cut", tt.taken, tt.size, tt.align, got)
		}
	}
}

func TestAddSpanMerges(t *testing.T) {
	var s []span
	for _, x := range []span{{10, 20}, {30, 40}, {0, 5}, {20, 25}, {5, 10}, {26, 29}, {25, 26}} {
		s = addSpan(s, x.lo, x.hi)
	}
	want := []span{{0, 29}, {30, 40}}
	if fmt.Sprint(s) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", s, want)
	}
	s = addSpan(s, 28, 31)
	if fmt.Sprint(s) != fmt.Sprint([]span{{0, 40}}) {
		t.Fatalf("got %v", s)
	}
}

// TestSpanPoolAddReportsChange: add says whether the list changed, and a
// span that only touches one already there (at either end) is not held
// by it: one search finds both the span that may hold it and where it goes.
func TestSpanPoolAddReportsChange(t *testing.T) {
	base := []span{{10, 20}, {30, 40}}
	tests := []struct {
		lo, hi  int64
		changed bool
		want    []span
	}{
		{12, 18, false, base},
		{10, 20, false, base},
		{30, 40, false, base},
		{20, 25, true, []span{{10, 25}, {30, 40}}},
		{5, 10, true, []span{{5, 20}, {30, 40}}},
		{25, 30, true, []span{{10, 20}, {25, 40}}},
		{20, 30, true, []span{{10, 40}}},
		{0, 5, true, []span{{0, 5}, {10, 20}, {30, 40}}},
		{41, 50, true, []span{{10, 20}, {30, 40}, {41, 50}}},
		{15, 35, true, []span{{10, 40}}},
	}
	for _, tt := range tests {
		var pool spanPool
		var l spanList
		for _, s := range base {
			pool.add(&l, s.lo, s.hi)
		}
		if got := pool.add(&l, tt.lo, tt.hi); got != tt.changed {
			t.Errorf("add [%d, %d): changed %v, want %v", tt.lo, tt.hi, got, tt.changed)
		}
		if got := pool.list(l); !slices.Equal(got, tt.want) {
			t.Errorf("add [%d, %d): %v, want %v", tt.lo, tt.hi, got, tt.want)
		}
	}
}

// TestTouching: the first span ending at or after lo, as sort.Search
// finds it, on lists of every length up to 40 and every lo around them.
func TestTouching(t *testing.T) {
	for n := range 41 {
		s := make([]span, n)
		for i := range s {
			s[i] = span{int64(10 * i), int64(10*i + 5)}
		}
		for lo := int64(-1); lo <= int64(10*n+1); lo++ {
			want := sort.Search(n, func(i int) bool { return s[i].hi >= lo })
			if got := touching(s, lo); got != want {
				t.Fatalf("%d spans, lo %d: %d, want %d", n, lo, got, want)
			}
		}
	}
}

// TestUnionSpans: the union of two sorted disjoint span lists, merged
// where spans overlap or touch, appended after what dst holds, against
// adding every span of both to an empty list one by one. The lists are
// random, with gaps of 0 to 3 bytes so that spans often touch.
func TestUnionSpans(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 13))
	list := func() []span {
		var s []span
		at := rng.Int64N(4)
		for range rng.IntN(12) {
			lo := at + 1 + rng.Int64N(4)
			if len(s) == 0 {
				lo = at
			}
			s = append(s, span{lo, lo + 1 + rng.Int64N(6)})
			at = s[len(s)-1].hi
		}
		return s
	}
	for k := range 20000 {
		a, b := list(), list()
		var want []span
		for _, s := range append(slices.Clone(a), b...) {
			want = addSpan(want, s.lo, s.hi)
		}
		prefix := []span{{-9, -8}}
		got := unionSpans(slices.Clone(prefix), a, b)
		if !slices.Equal(got[:1], prefix) || !slices.Equal(got[1:], want) {
			t.Fatalf("case %d: union of %v and %v is %v, want %v after %v", k, a, b, got, want, prefix)
		}
	}
}

// TestSpanPoolMatchesSlices grows many lists in one pool, one of them
// past a chunk, and checks each against the same adds on a plain slice,
// and that the pool's size stays within a bound of the lists' room.
func TestSpanPoolMatchesSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const lists, bigSpans = 40, 3 * chunkRoom
	var pool spanPool
	got := make([]spanList, lists)
	want := make([][]span, lists)
	// List 0 gets bigSpans disjoint spans in random order; the others get
	// random, often overlapping, spans between them.
	for _, k := range rng.Perm(bigSpans) {
		lo := int64(k) * 10
		pool.add(&got[0], lo, lo+5)
		want[0] = addSpan(want[0], lo, lo+5)
		i := 1 + rng.IntN(lists-1)
		lo = rng.Int64N(1 << 20)
		hi := lo + 1 + rng.Int64N(64)
		pool.add(&got[i], lo, hi)
		want[i] = addSpan(want[i], lo, hi)
	}
	rooms := 0
	for i := range got {
		if g := pool.list(got[i]); !slices.Equal(g, want[i]) {
			t.Fatalf("list %d: %d spans, want %d (first difference in %v...)", i, len(g), len(want[i]), g[:min(len(g), 4)])
		}
		rooms += int(got[i].room)
	}
	if len(want[0]) != bigSpans {
		t.Fatalf("big list has %d spans, want %d", len(want[0]), bigSpans)
	}
	total := 0
	for _, c := range pool.chunks {
		total += len(c)
	}
	// Live blocks and the blocks they outgrew (no more, as rooms double)
	// are at most 2·rooms; each chunk's unused tail is smaller than the
	// block that opened the next chunk, so tails add at most as much
	// again; the last chunk may be partly used.
	if limit := 4*rooms + chunkRoom; total > limit {
		t.Fatalf("pool holds %d spans for lists with room %d: over %d", total, rooms, limit)
	}
}

// TestSpanPoolReusesOutgrownBlocks: the block a list moves out of is the
// next block of its size handed out.
func TestSpanPoolReusesOutgrownBlocks(t *testing.T) {
	var pool spanPool
	var grown, next spanList
	for k := range minRoom + 1 { // one more span than the first block holds
		pool.add(&grown, int64(10*k), int64(10*k+5))
	}
	if grown.at == 0 || grown.room != 2*minRoom {
		t.Fatalf("list after %d adds: %+v, want room %d away from 0", minRoom+1, grown, 2*minRoom)
	}
	pool.add(&next, 1, 2)
	if next.at != 0 {
		t.Fatalf("new list starts at %d, want the outgrown block at 0", next.at)
	}
	if got := pool.list(grown); len(got) != minRoom+1 || got[0] != (span{0, 5}) {
		t.Fatalf("grown list changed: %v", got)
	}
}

// TestOccupancyMatchesScan checks the segment tree against a direct scan
// of the inserted buffers.
func TestOccupancyMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		sections := 1 + rng.IntN(40)
		occ := newOccupancy(sections)
		type ins struct {
			l, r   int
			lo, hi int64
		}
		var all []ins
		for range rng.IntN(60) {
			l := rng.IntN(sections)
			r := l + 1 + rng.IntN(sections-l)
			lo := rng.Int64N(1000)
			x := ins{l, r, lo, lo + 1 + rng.Int64N(100)}
			all = append(all, x)
			occ.insert(x.l, x.r, x.lo, x.hi)
			ql := rng.IntN(sections)
			qr := ql + 1 + rng.IntN(sections-ql)
			var want []span
			for _, y := range all {
				if y.l < qr && ql < y.r {
					want = addSpan(want, y.lo, y.hi)
				}
			}
			if got := occ.taken(ql, qr); fmt.Sprint(got) != fmt.Sprint(want) && !(len(got) == 0 && len(want) == 0) {
				t.Fatalf("taken(%d,%d) = %v, want %v", ql, qr, got, want)
			}
		}
	}
}

// TestOccupancyCopyAndReset: a tree copied into, or reset and rebuilt in,
// storage that held another tree answers as a fresh one does, and the
// copy shares nothing with its source. The trees mix lists of a few spans
// with lists past a chunk, so that a copy reuses chunks of either size
// where the other was.
func TestOccupancyCopyAndReset(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	type ins struct {
		l, r   int
		lo, hi int64
	}
	build := func(sections, n int, wide bool) []ins {
		var all []ins
		for k := range n {
			l := rng.IntN(sections)
			r := l + 1 + rng.IntN(sections-l)
			lo := rng.Int64N(1 << 20)
			if wide && k%2 == 0 { // disjoint spans at every section: long lists
				l, r, lo = 0, sections, int64(k)*16
			}
			all = append(all, ins{l, r, lo, lo + 1 + rng.Int64N(8)})
		}
		return all
	}
	fill := func(o *occupancy, all []ins) {
		for _, x := range all {
			o.insert(x.l, x.r, x.lo, x.hi)
		}
	}
	answers := func(o *occupancy, sections int) string {
		var b strings.Builder
		for l := range sections { // each section, and each suffix
			fmt.Fprint(&b, o.taken(l, l+1)) // the next call reuses the slice
			fmt.Fprint(&b, o.taken(l, sections), ";")
		}
		return b.String()
	}
	var dst, reused occupancy
	for round := range 12 {
		sections := 1 + rng.IntN(24)
		wide := round%3 != 0
		base, more := build(sections, 20+rng.IntN(3*chunkRoom), wide), build(sections, 40, false)
		src := newOccupancy(sections)
		fill(src, base)
		before := answers(src, sections)
		dst.copyFrom(src)
		fill(&dst, more)
		reused.reset(sections)
		fill(&reused, base)
		fill(&reused, more)
		fresh := newOccupancy(sections)
		fill(fresh, base)
		fill(fresh, more)
		want := answers(fresh, sections)
		if got := answers(&dst, sections); got != want {
			t.Fatalf("round %d: the copy answers differently from a fresh tree", round)
		}
		if got := answers(&reused, sections); got != want {
			t.Fatalf("round %d: the reset tree answers differently from a fresh tree", round)
		}
		if got := answers(src, sections); got != before {
			t.Fatalf("round %d: inserting into the copy changed its source", round)
		}
	}
}

// TestAutoNoWorseThanReference: auto's first-fit member follows the seed
// planner's rule, so auto is never larger.
func TestAutoNoWorseThanReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	problems := []*Problem{loadCSV(t, "testdata/A.1048576.csv"), loadCSV(t, "testdata/G_1.csv"), Generate(500, 3)}
	for range 300 {
		problems = append(problems, randomProblem(rng, rng.IntN(40), 2+rng.IntN(30)))
	}
	for k, p := range problems {
		auto, err := Place(context.Background(), p, "auto", PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := Place(context.Background(), p, "reference", PlaceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if auto.Arena > ref.Arena {
			t.Fatalf("problem %d: auto %d > reference %d", k, auto.Arena, ref.Arena)
		}
		pr := prepare(p, PlaceOptions{})
		ff, _ := pr.fit(context.Background(), pr.order(orderSize), firstGap)
		if !slices.Equal(ff.offsets, ref.Offsets) || !slices.Equal(ff.order, ref.Order) {
			t.Fatalf("problem %d: first fit by size differs from reference\n%v %v\n%v %v", k, ff.offsets, ff.order, ref.Offsets, ref.Order)
		}
	}
}

// outcomeTB records how a test helper ends the test, in place of ending it.
type outcomeTB struct {
	testing.TB
	failed, skipped bool
}

func (o *outcomeTB) Fatal(...any)          { o.failed = true; runtime.Goexit() }
func (o *outcomeTB) Fatalf(string, ...any) { o.failed = true; runtime.Goexit() }
func (o *outcomeTB) Skip(...any)           { o.skipped = true; runtime.Goexit() }
func (o *outcomeTB) Skipf(string, ...any)  { o.skipped = true; runtime.Goexit() }

// A missing test input fails the test: a skip would pass it unseen.
func TestLoadCSVFailsOnMissingFile(t *testing.T) {
	tb := &outcomeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		loadCSV(tb, "testdata/no-such-file.csv")
	}()
	<-done
	if !tb.failed || tb.skipped {
		t.Errorf("loadCSV of a missing file: failed %v, skipped %v; want failed", tb.failed, tb.skipped)
	}
}

// TestAutoShardsAgreeWithTheWholePortfolio: splitting auto's portfolio
// over shards and keeping the smallest arena, ties to the lower member,
// gives the same placement as running it whole; the winner improved by
// auto with From gives the whole portfolio's plan with its slice too
// (MiniMalloc's C: 1.3635 x the bound without it, 1.2089 with it).
func TestAutoShardsAgreeWithTheWholePortfolio(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	problems := []*Problem{loadCSV(t, "testdata/C.1048576.csv"), loadCSV(t, "testdata/G_1.csv"), loadCSV(t, "testdata/densenet121_activations.csv")}
	for range 20 {
		problems = append(problems, randomProblem(rng, 40, 12))
	}
	for k, p := range problems {
		whole, err := Place(context.Background(), p, "auto", PlaceOptions{AutoSlice: -1}) // shards leave improving to the caller
		if err != nil {
			t.Fatal(err)
		}
		for _, shards := range []int{2, 3} {
			var best, loser Placement
			for shard := range shards {
				pl, err := Place(context.Background(), p, "auto", PlaceOptions{Shard: shard, Shards: shards})
				if err != nil {
					t.Fatal(err)
				}
				if shard == 0 || pl.Arena < best.Arena || pl.Arena == best.Arena && pl.Member < best.Member {
					best, loser = pl, best
				} else {
					loser = pl
				}
			}
			if best.Member != whole.Member || best.Arena != whole.Arena || !slices.Equal(best.Offsets, whole.Offsets) || best.Detail != whole.Detail {
				t.Fatalf("problem %d, %d shards: member %d arena %d (%s), whole portfolio member %d arena %d (%s)",
					k, shards, best.Member, best.Arena, best.Detail, whole.Member, whole.Arena, whole.Detail)
			}
			// A node limit above the slice's budget takes the clock off it:
			// the same answer however loaded the machine.
			const noClock = 1 << 40
			polished, err := Place(context.Background(), p, "auto", PlaceOptions{From: &best, NodeLimit: noClock})
			if err != nil {
				t.Fatal(err)
			}
			slice, err := Place(context.Background(), p, "auto", PlaceOptions{NodeLimit: noClock})
			if err != nil {
				t.Fatal(err)
			}
			if polished.Arena != slice.Arena || !slices.Equal(polished.Offsets, slice.Offsets) || polished.Detail != slice.Detail || polished.Member != slice.Member {
				t.Fatalf("problem %d, %d shards, improved from the winner: arena %d (%s), whole portfolio with its slice %d (%s)",
					k, shards, polished.Arena, polished.Detail, slice.Arena, slice.Detail)
			}
			if k == 0 && polished.Arena >= best.Arena {
				t.Errorf("MiniMalloc's C: the slice left the shards' %d at %d", best.Arena, polished.Arena)
			}
			// From is improved, not replaced by the portfolio's answer.
			other, err := Place(context.Background(), p, "auto", PlaceOptions{From: &loser, NodeLimit: noClock})
			if err != nil {
				t.Fatal(err)
			}
			if other.Member != loser.Member || other.Arena > loser.Arena {
				t.Fatalf("problem %d: improving member %d's arena %d gave member %d's %d", k, loser.Member, loser.Arena, other.Member, other.Arena)
			}
		}
	}
}

// MemberDone hears of every member a shard runs, and says at-bound only
// of members whose arena is the lower bound; FirstMemberAlone holds for
// auto's large problems only.
func TestAutoMemberDone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 2))
	problems := []*Problem{loadCSV(t, "testdata/G_1.csv"), loadCSV(t, "testdata/densenet121_activations.csv")}
	for range 10 {
		problems = append(problems, randomProblem(rng, 30, 10))
	}
	for k, p := range problems {
		for shard := range 2 {
			var mu sync.Mutex // members finish on their own goroutines
			var heard []int
			bound := map[int]bool{}
			pl, err := Place(context.Background(), p, "auto", PlaceOptions{Shard: shard, Shards: 2, AutoSlice: -1,
				MemberDone: func(member int, atBound bool) {
					mu.Lock()
					defer mu.Unlock()
					heard = append(heard, member)
					bound[member] = atBound
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(heard, pl.Member) {
				t.Errorf("problem %d shard %d: the winner, member %d, was not reported (heard %v)", k, shard, pl.Member, heard)
			}
			for _, m := range heard {
				if m%2 != shard {
					t.Errorf("problem %d shard %d: member %d is another shard's", k, shard, m)
				}
			}
			if want := pl.Arena == LowerBound(p); bound[pl.Member] != want {
				t.Errorf("problem %d shard %d: winner at bound reported %v, arena %d, bound %d", k, shard, bound[pl.Member], pl.Arena, LowerBound(p))
			}
		}
		if FirstMemberAlone(p) != (len(p.Buffers) > autoLarge) {
			t.Errorf("problem %d (%d buffers): FirstMemberAlone %v", k, len(p.Buffers), FirstMemberAlone(p))
		}
	}
	if !FirstMemberAlone(Generate(autoLarge+1, 1)) || FirstMemberAlone(Generate(autoLarge, 1)) {
		t.Error("FirstMemberAlone does not switch at autoLarge buffers")
	}
}

// A portfolio member stops once its arena grows above one another member
// has found (it cannot win), and that changes nothing: the portfolio's
// answer is that of every member run to its end, the smallest arena and
// ties to the lower member, on one thread or two. Given the winner's
// arena as the one to beat, exactly the members that lose stop.
func TestAutoStopsMembersThatCannotWin(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(8, 1))
	problems := []*Problem{loadCSV(t, "testdata/D.1048576.csv"), loadCSV(t, "testdata/G_1.csv"), GenerateRandom(3000, 2)}
	for range 20 {
		problems = append(problems, randomProblem(rng, 50, 20))
	}
	stopped := 0
	for k, p := range problems {
		pr := prepare(p, PlaceOptions{})
		members := autoMembers()
		want, wantArena := -1, int64(0)
		var answers []answer
		for i, m := range members {
			a, err := m.run(context.Background(), pr, nil)
			if err != nil {
				t.Fatal(err)
			}
			answers = append(answers, a)
			if arena := ArenaOf(p, a.offsets); want < 0 || arena < wantArena {
				want, wantArena = i, arena
			}
		}
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			a, best, err := pr.portfolio(context.Background(), members, 0, 1, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if best != want || !slices.Equal(a.offsets, answers[want].offsets) {
				t.Fatalf("problem %d, %d threads: member %d won (arena %d), want member %d (arena %d)", k, procs, best, ArenaOf(p, a.offsets), want, wantArena)
			}
		}
		for i, m := range members {
			var limit atomic.Int64
			limit.Store(wantArena)
			_, err := m.run(context.Background(), pr, &limit)
			switch lost := errors.Is(err, errLost); {
			case err != nil && !lost:
				t.Fatal(err)
			case lost != (ArenaOf(p, answers[i].offsets) > wantArena) && (m.name != "first-use" || len(pr.fixed) == 0):
				// (first use does not stop where buffers are fixed: moving
				// its buffers off them at the end may lower its arena)
				t.Fatalf("problem %d, member %s: stopped %v, arena %d, the one to beat %d", k, m.name, lost, ArenaOf(p, answers[i].offsets), wantArena)
			case lost:
				stopped++
			}
		}
	}
	if stopped < 20 {
		t.Errorf("only %d members stopped: the test checks little", stopped)
	}
}

// Where a goroutine of the portfolio has no member left to start while
// another runs, the best answer so far is polished there (polishAhead).
// Member 0 waits until member 1's answer is offered: the plan is the one
// polishing the winner after the portfolio gives, whether the answer
// polished ahead wins or loses.
func TestAutoPolishesAheadTheSamePlan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, p := range []*Problem{GenerateRandom(3000, 2), loadCSV(t, "testdata/D.1048576.csv")} {
		opts := PlaceOptions{NodeLimit: 20_000} // one slice, no far run
		pr := prepare(p, opts)
		if threads := runtime.GOMAXPROCS(0); pr.canPolishAhead(opts) != (threads > 1) {
			t.Fatalf("%s: polish ahead %v with %d threads", p.Name, pr.canPolishAhead(opts), threads)
		} else if threads == 1 {
			continue // wasm: one thread whatever GOMAXPROCS is set to
		}
		// The best and the worst of four orders, by arena.
		var better, worse autoMember
		var low, high int64
		for k, o := range []fitOrder{orderBreadth, orderSpatial, orderTemporal, orderArea} {
			m := bestFitMember(o)
			a, err := m.run(context.Background(), pr, nil)
			if err != nil {
				t.Fatal(err)
			}
			arena := ArenaOf(p, a.offsets)
			if k == 0 || arena < low {
				better, low = m, arena
			}
			if k == 0 || arena > high {
				worse, high = m, arena
			}
		}
		if low == high {
			t.Fatalf("%s: four orders give one arena: pick another problem", p.Name)
		}
		for _, tc := range []struct {
			name   string
			m0, m1 autoMember
			winner int
		}{
			{"ahead wins", worse, better, 1},
			{"ahead loses", better, worse, 0},
		} {
			release := make(chan struct{})
			waiting := tc.m0
			waiting.run = func(ctx context.Context, pr *prepared, limit *atomic.Int64) (answer, error) {
				select {
				case <-release:
				case <-time.After(time.Minute): // only if the test fails
					t.Errorf("%s, %s: member 1's answer was never polished ahead", p.Name, tc.name)
				}
				return tc.m0.run(ctx, pr, limit)
			}
			members := []autoMember{waiting, tc.m1}
			var aheadOf []int
			got, err := pr.portfolioPolished(context.Background(), members, opts, func(member int) {
				aheadOf = append(aheadOf, member)
				close(release)
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(aheadOf, []int{1}) {
				t.Fatalf("%s, %s: polished ahead %v, want member 1's answer once", p.Name, tc.name, aheadOf)
			}
			a, err := members[tc.winner].run(context.Background(), pr, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pr.polish(context.Background(), a, "won by "+members[tc.winner].name, opts, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Offsets, want.Offsets) || got.Detail != want.Detail || got.Member != tc.winner {
				t.Fatalf("%s, %s: arena %d (%s, member %d), polishing the winner after gives %d (%s, member %d)", p.Name, tc.name, got.Arena, got.Detail, got.Member, want.Arena, want.Detail, tc.winner)
			}
		}
	}
}

// Auto runs its whole portfolio up to autoLarge buffers, all but best fit
// by area and first fit up to autoHuge, and four members far apart above:
// a best fit of a million buffers takes seconds.
func TestAutoMembersBySize(t *testing.T) {
	names := func(ms []autoMember) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.name)
		}
		return out
	}
	all := names(autoMembers())
	for _, tt := range []struct {
		n    int
		want []string
	}{
		{autoLarge, all},
		{autoLarge + 1, slices.DeleteFunc(slices.Clone(all), func(s string) bool { return s == "best-fit area" || s == "first-fit size" })},
		{autoHuge + 1, []string{"best-fit breadth oldest", "best-fit breadth lasting", "best-fit breadth dying", "first-use"}},
	} {
		if got := names(prepare(GenerateRandom(tt.n, 1), PlaceOptions{}).members()); !slices.Equal(got, tt.want) {
			t.Errorf("%d buffers: members %q, want %q", tt.n, got, tt.want)
		}
	}
}
