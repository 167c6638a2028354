package planner

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// ReusedFrom returns, for each buffer, the index of the buffer that last
// held any of its bytes before it was born, or -1. "Last" is the one that
// died latest. It paints address ranges in birth order over the runs of
// compressed addresses (runMap), so it runs in O(n log n) even for 10^6
// buffers: the sort of the addresses is the log.
func ReusedFrom(p *Problem, offsets []int64) []int {
	s := reuseSpans{make([]int64, len(p.Buffers)), make([]int, len(p.Buffers)), make([]int, len(p.Buffers))}
	for i := range p.Buffers {
		b := &p.Buffers[i]
		s.size[i], s.birth[i], s.death[i] = b.Size, b.Birth, b.Death
	}
	return s.reusedFrom(offsets)
}

// reuseSpans are what ReusedFrom needs of each buffer, in plain slices: a
// plan record's tensors give them as well as a problem's buffers.
type reuseSpans struct {
	size         []int64
	birth, death []int
}

func (s reuseSpans) reusedFrom(offsets []int64) []int {
	n := len(s.size)
	out := make([]int, n)
	for i := range out {
		out[i] = -1
	}
	var coords []int64
	order := make([]int, 0, n)
	for i, size := range s.size {
		if size > 0 {
			coords = append(coords, offsets[i], offsets[i]+size)
			order = append(order, i)
		}
	}
	if len(order) < 2 {
		return out
	}
	// Buffer order[k]'s ends are elementary ranges ranks[2k], ranks[2k+1].
	ranks, distinct := denseRanks(coords)
	// What the painting reads of each buffer, gathered once in birth order
	// (ties in index order): it then reads them from start to end, where
	// reading each where it lies missed the cache at every buffer of a
	// large plan.
	births := make([]int, len(order))
	for k, i := range order {
		births[k] = s.birth[i]
	}
	type paintJob struct {
		lo, hi, i int32
		birth     int
		death     int64
	}
	jobs := make([]paintJob, len(order))
	for j, k := range byStep(births) {
		i := order[k]
		jobs[j] = paintJob{ranks[2*k], ranks[2*k+1], int32(i), s.birth[i], int64(s.death[i])}
	}

	t := newRunMap(len(distinct) - 1)
	stride := int64(n) + 1
	// A key is a death and a buffer; deaths past what the key holds (a
	// record's steps run to 2^40) are ranked first, which keeps the order.
	last := slices.MaxFunc(jobs, func(a, b paintJob) int { return cmp.Compare(a.death, b.death) })
	ranked := last.death > (math.MaxInt64-stride)/stride
	if ranked {
		deaths := make([]int64, 0, len(jobs))
		for _, jb := range jobs {
			deaths = append(deaths, jb.death)
		}
		slices.Sort(deaths)
		deaths = slices.Compact(deaths)
		for j := range jobs {
			k, _ := slices.BinarySearch(deaths, jobs[j].death)
			jobs[j].death = int64(k)
		}
	}
	for _, jb := range jobs {
		if key := t.paint(int(jb.lo), int(jb.hi), jb.death*stride+int64(jb.i)); key >= 0 {
			// The key holds the death, unless ranked: reading it
			// from there saves a miss per buffer.
			prev, death := int(key%stride), key/stride
			if ranked {
				death = int64(s.death[prev])
			}
			if death < int64(jb.birth) {
				out[jb.i] = prev
			}
		}
	}
	return out
}

// runMap colours the elementary address ranges [0, n): each holds the
// key of the buffer painted over it last, -1 if none. Neighbouring ranges
// of one colour form a run; a bitset marks where each run starts, and key
// holds a run's colour at its start. paint visits the runs a range meets
// and leaves one run there, so every run it visits but the first and last
// is gone afterwards: a plan's painting visits O(1) runs per buffer,
// amortized, with no recursion (in wasm, each call of the segment tree
// this replaces cost more than its work). The bitset has summaries of 64
// words to a word, up to one word, so finding the next or the last run
// start takes a few word operations however far it is.
type runMap struct {
	key    []int64    // colour of the run that starts at c, where bit c is set
	levels [][]uint64 // levels[0]: run starts, bit c&63 of word c>>6, 0 and n always set; levels[l+1]: the words of levels[l] that are not 0
}

func newRunMap(n int) *runMap {
	m := &runMap{key: make([]int64, n+1)}
	for width := n + 1; ; width = (width + 63) >> 6 {
		words := (width + 63) >> 6
		m.levels = append(m.levels, make([]uint64, words))
		if words == 1 {
			break
		}
	}
	m.set(0, -1)
	m.set(n, -1)
	return m
}

// set starts a run of colour key at c.
func (m *runMap) set(c int, key int64) {
	m.key[c] = key
	for _, level := range m.levels {
		w, was := c>>6, level[c>>6]
		level[w] = was | 1<<uint(c&63)
		if was != 0 { // the levels above know this word already
			return
		}
		c = w
	}
}

// drop ends the run that starts at c: the one before it goes on.
func (m *runMap) drop(c int) {
	for _, level := range m.levels {
		w := c >> 6
		if level[w] &^= 1 << uint(c&63); level[w] != 0 {
			return
		}
		c = w
	}
}

// next returns the first run start after c, for c < n: up the levels to
// the first word with a set bit past c's, then down its lowest bits.
func (m *runMap) next(c int) int {
	c++
	l := 0
	for ; ; l, c = l+1, c>>6+1 {
		if level := m.levels[l]; c>>6 < len(level) {
			if b := level[c>>6] >> uint(c&63); b != 0 {
				c += bits.TrailingZeros64(b)
				break
			}
		}
	}
	for ; l > 0; l-- {
		c = c<<6 + bits.TrailingZeros64(m.levels[l-1][c])
	}
	return c
}

// prev returns the last run start at or before c: up the levels to the
// last word with a set bit up to c's (start 0 is always set), then down
// its highest bits.
func (m *runMap) prev(c int) int {
	l := 0
	for ; ; l, c = l+1, c>>6-1 {
		if b := m.levels[l][c>>6] << uint(63-c&63); b != 0 {
			c -= bits.LeadingZeros64(b)
			break
		}
	}
	for ; l > 0; l-- {
		c = c<<6 + 63 - bits.LeadingZeros64(m.levels[l-1][c])
	}
	return c
}

// paint colours [lo, hi) with key, lo < hi, and returns the largest key
// the range held before.
func (m *runMap) paint(lo, hi int, key int64) int64 {
	best := int64(-1)
	for c := m.prev(lo); c < hi; {
		k, end := m.key[c], m.next(c)
		best = max(best, k)
		if c > lo {
			m.drop(c)
		}
		if end > hi { // the run goes on past the range: it starts again at hi
			m.set(hi, k)
		}
		c = end
	}
	m.set(lo, key)
	return best
}
