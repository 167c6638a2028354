package planner

import (
	"math"
	"slices"
	"time"
)

// search is the branch and bound over one group of buffers. Buffers are
// renumbered by rank (the static priority: larger first, then longer
// lived), which breaks ties between candidates at the same offset.
type search struct {
	ex       *exact
	ids      []int // problem index of each rank
	size     []int64
	align    []int64
	first    []int32 // first local section
	last     []int32 // one past the last
	nbr      [][]int32
	sections int

	placed  []bool
	minOff  []int64 // highest top of the placed buffers live with it
	rem     []int64 // per section: bytes of the unplaced buffers
	off     []int64
	trail   []undo
	minEff  []int64  // scratch: per section, lowest offset left to a buffer
	eff     []int64  // scratch: per buffer, lowest offset left to it
	cands   [][]cand // scratch, per depth
	target  int64
	minimal bool // minimize: keep going after a solution, below it
	found   bool
	bestOff []int64
	stopAt  time.Time
	aborted bool
	// failed holds the states already searched without success: the
	// placed set and what the unplaced buffers can still see of it. Stacks
	// of buffers reached in another order meet here again.
	failed  map[[2]uint64]struct{}
	setKey  [2]uint64 // XOR of the placed buffers' keys
	bufKeys [][2]uint64
}

// failedCap bounds the memory of the failed-state table.
const failedCap = 1 << 21

// splitmix is SplitMix64: cheap, well-mixed keys for hashing states.
func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

type undo struct {
	i   int32
	old int64
}

type cand struct {
	off  int64
	rank int32
}

func newSearch(pr *prepared, group []int, ex *exact) *search {
	p := pr.p
	bs := p.Buffers
	ids := slices.Clone(group)
	area := func(i int) float64 { return float64(bs[i].Span()) * float64(lifetime(&bs[i])) }
	slices.SortStableFunc(ids, func(a, b int) int {
		if c := cmpInt64(lifetime(&bs[b]), lifetime(&bs[a])); c != 0 {
			return c
		}
		if x, y := area(a), area(b); x != y {
			if x > y {
				return -1
			}
			return 1
		}
		return cmpInt64(bs[b].Span(), bs[a].Span())
	})
	n := len(ids)
	s := &search{ex: ex, ids: ids, size: make([]int64, n), align: make([]int64, n),
		first: make([]int32, n), last: make([]int32, n), nbr: make([][]int32, n),
		placed: make([]bool, n), minOff: make([]int64, n), off: make([]int64, n), eff: make([]int64, n), cands: make([][]cand, n+1)}
	var pts []int
	for _, i := range ids {
		pts = append(pts, bs[i].Birth, bs[i].Death+1)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	s.sections = len(pts) - 1
	s.rem = make([]int64, s.sections)
	s.minEff = make([]int64, s.sections)
	for k, i := range ids {
		b := &bs[i]
		s.size[k], s.align[k] = b.Span(), b.Align
		f, _ := slices.BinarySearch(pts, b.Birth)
		l, _ := slices.BinarySearch(pts, b.Death+1)
		s.first[k], s.last[k] = int32(f), int32(l)
		for x := f; x < l; x++ {
			s.rem[x] += b.Span()
		}
	}
	s.failed = make(map[[2]uint64]struct{})
	s.bufKeys = make([][2]uint64, n)
	seed := uint64(0x9e3779b97f4a7c15)
	for k := range s.bufKeys {
		s.bufKeys[k] = [2]uint64{splitmix(&seed), splitmix(&seed)}
	}
	for a := range n {
		for b := range n {
			if a != b && s.first[a] < s.last[b] && s.first[b] < s.last[a] {
				s.nbr[a] = append(s.nbr[a], int32(b))
			}
		}
	}
	return s
}

// run searches for offsets with every buffer's end at most target. With
// minimize it keeps searching below each solution found. It reports
// whether a solution was found and whether the search finished (so none
// better exists) rather than running out of time.
func (s *search) run(target int64, minimize bool, stopAt time.Time) (found, complete bool) {
	s.target, s.minimal, s.stopAt = target, minimize, stopAt
	s.ex.target = target
	s.dfs(0, 0, -1)
	return s.found, !s.aborted
}

// apply writes the best solution into the problem's offsets.
func (s *search) apply(offsets []int64) {
	for k, i := range s.ids {
		offsets[i] = s.bestOff[k]
	}
}

func (s *search) timeUp() bool {
	if s.ex.ctx.Err() != nil || !s.stopAt.IsZero() && time.Now().After(s.stopAt) || s.ex.nodeLimit > 0 && s.ex.nodes >= s.ex.nodeLimit {
		s.aborted = true
	}
	s.ex.report()
	return s.aborted
}

// dfs extends the placement; depth buffers are placed, the last at offset
// last with rank lastRank. It returns true to stop the whole search.
func (s *search) dfs(depth int, last int64, lastRank int32) bool {
	s.ex.nodes++
	if s.ex.nodes&1023 == 0 && s.timeUp() {
		return true
	}
	n := len(s.ids)
	if depth == n {
		var arena int64
		for k := range n {
			arena = max(arena, s.off[k]+s.size[k])
		}
		s.found = true
		s.bestOff = slices.Clone(s.off)
		if !s.minimal {
			return true
		}
		s.target = arena - 1
		s.ex.target = s.target
		return false
	}
	// The state: the placed set, the last offset, each unplaced buffer's
	// resting height (or only that it is stuck below the last offset),
	// and the last rank when a buffer could still tie with it.
	key := s.setKey
	tie := int32(-1)
	for y := range n {
		if s.placed[y] {
			continue
		}
		v := s.minOff[y]
		if v < last {
			v = -1
		} else if alignUp(v, s.align[y]) == last {
			tie = lastRank
		}
		key[0] = (key[0] ^ uint64(v)) * 0x100000001b3
		key[1] = (key[1] + uint64(v)*0x9e3779b97f4a7c15) ^ uint64(y)
	}
	key[0] ^= uint64(last) * 0xff51afd7ed558ccd
	key[1] ^= uint64(last)*0xc4ceb9fe1a85ec53 + uint64(tie)
	if _, seen := s.failed[key]; seen {
		return false
	}
	if s.dfsFrom(depth, last, lastRank) {
		return true
	}
	if len(s.failed) >= failedCap {
		clear(s.failed)
	}
	s.failed[key] = struct{}{}
	return false
}

// dfsFrom branches from a state not known to fail.
func (s *search) dfsFrom(depth int, last int64, lastRank int32) bool {
	n := len(s.ids)
	cs := s.cands[depth][:0]
	eff := s.eff
	for y := range n {
		if s.placed[y] {
			continue
		}
		e := alignUp(max(s.minOff[y], last), s.align[y])
		if e+s.size[y] > s.target {
			return false // it only rises from here
		}
		eff[y] = e
		// A canonical buffer rests on a placed neighbour (or on 0): one
		// lifted above that only to keep the sequence sorted does not, and
		// is left for a later neighbour to carry up.
		if rest := alignUp(s.minOff[y], s.align[y]); rest == e && (e > last || int32(y) > lastRank) {
			cs = append(cs, cand{e, int32(y)})
		}
	}
	// A buffer below the last offset will rest on an unplaced neighbour,
	// so it sits at least as high as the lowest such neighbour's end.
	for y := range n {
		if s.placed[y] || s.minOff[y] >= last {
			continue
		}
		lift := int64(math.MaxInt64)
		for _, z := range s.nbr[y] {
			if !s.placed[z] {
				lift = min(lift, eff[z]+s.size[z])
			}
		}
		if lift == math.MaxInt64 {
			return false // nothing left to rest on
		}
		if e := alignUp(lift, s.align[y]); e > eff[y] {
			if e+s.size[y] > s.target {
				return false
			}
			eff[y] = e
		}
	}
	for x := range s.minEff {
		s.minEff[x] = math.MaxInt64
	}
	for y := range n {
		if !s.placed[y] {
			for x := s.first[y]; x < s.last[y]; x++ {
				s.minEff[x] = min(s.minEff[x], eff[y])
			}
		}
	}
	// The unplaced buffers of a section stack above the lowest offset any
	// of them can still take.
	for x, r := range s.rem {
		if r > 0 && s.minEff[x]+r > s.target {
			return false
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if a.off != b.off {
			return cmpInt64(a.off, b.off)
		}
		return int(a.rank - b.rank)
	})
	s.cands[depth] = cs
	for _, c := range cs {
		y := c.rank
		top := c.off + s.size[y]
		s.placed[y] = true
		s.setKey[0] ^= s.bufKeys[y][0]
		s.setKey[1] ^= s.bufKeys[y][1]
		s.off[y] = c.off
		for x := s.first[y]; x < s.last[y]; x++ {
			s.rem[x] -= s.size[y]
		}
		mark := len(s.trail)
		for _, z := range s.nbr[y] {
			if !s.placed[z] && s.minOff[z] < top {
				s.trail = append(s.trail, undo{z, s.minOff[z]})
				s.minOff[z] = top
			}
		}
		stop := s.dfs(depth+1, c.off, y)
		for k := len(s.trail) - 1; k >= mark; k-- {
			s.minOff[s.trail[k].i] = s.trail[k].old
		}
		s.trail = s.trail[:mark]
		for x := s.first[y]; x < s.last[y]; x++ {
			s.rem[x] += s.size[y]
		}
		s.placed[y] = false
		s.setKey[0] ^= s.bufKeys[y][0]
		s.setKey[1] ^= s.bufKeys[y][1]
		if stop {
			return true
		}
	}
	return false
}
