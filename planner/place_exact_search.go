package planner

import (
	"math"
	"slices"
	"time"
)

// search is the branch and bound over one group of buffers.
//
// Time is cut into sections; each has a floor: every byte below it is
// decided, taken or left empty for good. A node takes the lowest floor f
// (section s) and splits on who covers byte f of s: each unplaced buffer
// live in s that can sit at f (all its sections have floor f), or nobody,
// which raises s's floor to the lowest offset a buffer live in s could
// still take. The branches are disjoint, so each placement is met once,
// and only placements where every buffer rests on 0 or on a neighbour are
// kept (any other can be pushed down without growing the arena).
//
// Candidates are tried in the order of the current run's priorities
// (setOrder); runs restart after a node budget, keeping the failed states.
type search struct {
	ex       *exact
	p        *Problem
	ids      []int   // problem index of each buffer of the group
	prio     []int32 // this run's candidate order, lower first
	tie      byte    // this run's rule among sections at the lowest floor
	size     []int64
	align    []int64
	first    []int32 // first local section
	last     []int32 // one past the last
	nbr      [][]int32
	live     [][]int32 // per section: the buffers live in it, unplaced first
	unplaced []int32   // per section: how many of live are unplaced
	sections int

	placed []bool
	floor  []int64
	rem    []int64 // per section: bytes of the unplaced buffers
	off    []int64
	trail  []undo
	cands  [][]int32 // scratch, per depth
	restv  []int64   // per buffer: its rest, the lowest offset it can take
	over   int       // how many unplaced buffers' rests leave no room under the target
	span   []int32   // per section x: unplaced buffers live in both x and x+1
	hint   []int32   // per section: the buffer minRest found last, checked first
	total  []int64   // per buffer: the bytes of its busiest section
	fixed  []bool    // per buffer: it must sit at its problem offset, restv
	// Per section: the offset of the lowest unplaced fixed buffer live
	// there (math.MaxInt64 for none), and the fixed buffers live there.
	// Kept as fixed buffers are placed and taken out, where minRest
	// scanned every buffer of a section for it on every call: in the
	// improver's rectangles, whose context is fixed, that was a quarter
	// of a plan's time.
	under     []int64
	fixedLive [][]fixedAt
	// anyFixed: some buffer is fixed
	anyFixed bool
	// descent: the run is one of descend's, which rotate
	// exactDescentConfigs
	descent bool

	target    int64
	found     bool
	bestOff   []int64
	stopAt    time.Time // zero for none
	stopNodes int64     // the node count that ends this search, 0 for none
	aborted   bool
	restart   bool  // aborted only because this run's budget is spent
	restartAt int64 // node count that ends this run

	stack   []searchFrame // the calls of dfs waiting on deeper ones
	pending []part        // groups left for after the current one
	groups  [][]part      // scratch, per depth
	splits  int64         // split nodes so far, their ids
	unwind  int64         // nonzero: a group failed; back to this split

	// failed holds states already searched without success. A state is
	// the placed set and the floors; stacks of buffers reached in another
	// order meet here again.
	failed     stateSet
	memoTarget int64     // the target the failed states were found under
	setKey     [2]uint64 // XOR of the placed buffers' keys
	floorKey   [2]uint64 // sum of the floors' keys
	bufKeys    [][2]uint64
}

// exactConfigs are the candidate orders and tie rules the restarts cycle
// through. Rank keys: W lifetime, S size, A area, each larger first. Tie
// rules pick among the sections at the lowest floor: F the fullest, L the
// leftmost, R the rightmost, E the emptiest. Which one finds a packing
// fast varies by instance, and the cost of a bad one is heavy-tailed, so
// short runs of each beat a long run of any.
var exactConfigs = []struct {
	rank string
	tie  byte
}{{"WAS", 'F'}, {"SWA", 'F'}, {"WAS", 'R'}, {"SWA", 'L'}, {"WAS", 'E'}, {"SWA", 'R'}, {"WAS", 'L'}}

// exactDescentConfigs are the orders of descend's short searches:
// MiniMalloc's preorders, where T ranks buffers by the bytes of their
// busiest section. On MiniMalloc's D they find a packing under 2^20 in
// 15,000 nodes where exactConfigs take 480,000; at the bound they do
// worse on E, so the decision there keeps exactConfigs.
var exactDescentConfigs = []struct {
	rank string
	tie  byte
}{{"WAT", 'F'}, {"TAW", 'F'}, {"TWA", 'F'}}

// exactRestartUnit is the node budget of the shortest run; run k gets
// luby(k) units.
const exactRestartUnit = 1000

// luby is the Luby sequence 1 1 2 1 1 2 4 1 1 2 ..., k >= 1.
func luby(k int) int {
	for size := 1; ; size = 2*size + 1 {
		if k == size {
			return (size + 1) / 2
		}
		if k < size {
			return luby(k - (size-1)/2)
		}
	}
}

// setOrder ranks the buffers for one run: by the config's keys, with a
// seeded shuffle among near-equals after the first round of configs.
func (s *search) setOrder(run int) {
	configs := exactConfigs
	if s.descent {
		configs = exactDescentConfigs
	}
	cfg := configs[run%len(configs)]
	s.tie = cfg.tie
	n := len(s.ids)
	bs := s.p.Buffers
	area := func(k int32) float64 { return float64(s.size[k]) * float64(lifetime(&bs[s.ids[k]])) }
	keys := map[byte]func(a, b int32) int{
		'W': func(a, b int32) int { return cmpInt64(lifetime(&bs[s.ids[b]]), lifetime(&bs[s.ids[a]])) },
		'S': func(a, b int32) int { return cmpInt64(s.size[b], s.size[a]) },
		'T': func(a, b int32) int { return cmpInt64(s.total[b], s.total[a]) },
		'A': func(a, b int32) int {
			if x, y := area(a), area(b); x != y {
				if x > y {
					return -1
				}
				return 1
			}
			return 0
		},
	}
	ord := make([]int32, n)
	for k := range ord {
		ord[k] = int32(k)
	}
	slices.SortStableFunc(ord, func(a, b int32) int {
		for k := range len(cfg.rank) {
			if c := keys[cfg.rank[k]](a, b); c != 0 {
				return c
			}
		}
		return 0
	})
	seed := uint64(run)
	for k, y := range ord {
		s.prio[y] = int32(k)
		if run >= len(configs) {
			s.prio[y] += int32(splitmix(&seed) % uint64(max(n/8, 1)))
		}
	}
}

// failedCap bounds the memory of the failed-state table: 2^21 keys,
// 32 MiB. It starts at failedInitial.
const (
	failedCap     = 1 << 21
	failedInitial = 1 << 10
)

// undo restores one section's floor (sec >= 0) or the rest of buffer
// -sec-1.
type undo struct {
	sec int32
	old int64
}

// splitmix is SplitMix64: cheap, well-mixed keys for hashing states.
func splitmix(x *uint64) uint64 {
	*x += 0x9e3779b97f4a7c15
	z := *x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func floorHash(sec int32, v int64) [2]uint64 {
	x := uint64(sec)<<40 ^ uint64(v)
	a := splitmix(&x)
	return [2]uint64{a, splitmix(&x)}
}

func newSearch(pr *prepared, group []int, ex *exact) *search {
	p := pr.p
	bs := p.Buffers
	ids := slices.Clone(group)
	n := len(ids)
	s := &search{ex: ex, p: p, ids: ids, prio: make([]int32, len(ids)), size: make([]int64, n), align: make([]int64, n),
		first: make([]int32, n), last: make([]int32, n), nbr: make([][]int32, n),
		placed: make([]bool, n), off: make([]int64, n), cands: make([][]int32, n+1)}
	var pts []int
	for _, i := range ids {
		pts = append(pts, bs[i].Birth, bs[i].Death+1)
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	s.sections = len(pts) - 1
	s.rem = make([]int64, s.sections)
	s.floor = make([]int64, s.sections)
	s.span = make([]int32, s.sections)
	s.hint = make([]int32, s.sections)
	s.groups = make([][]part, n+1)
	s.restv = make([]int64, n)
	s.fixed = make([]bool, n)
	s.live = make([][]int32, s.sections)
	s.unplaced = make([]int32, s.sections)
	for k, i := range ids {
		b := &bs[i]
		s.size[k], s.align[k] = b.Span(), b.Align
		if b.Fixed {
			s.fixed[k], s.restv[k], s.anyFixed = true, b.Offset, true
		}
		f, _ := slices.BinarySearch(pts, b.Birth)
		l, _ := slices.BinarySearch(pts, b.Death+1)
		s.first[k], s.last[k] = int32(f), int32(l)
		for x := f; x < l; x++ {
			s.rem[x] += b.Span()
			s.live[x] = append(s.live[x], int32(k))
			s.unplaced[x]++
			if x+1 < l {
				s.span[x]++
			}
		}
	}
	s.under = make([]int64, s.sections)
	for x, live := range s.live {
		if len(live) > 0 {
			s.hint[x] = live[0] // a buffer live there; empty sections are never asked
		}
		s.under[x] = math.MaxInt64
	}
	if s.anyFixed {
		s.fixedLive = make([][]fixedAt, s.sections)
		for x, live := range s.live {
			for _, y := range live {
				if s.fixed[y] {
					s.fixedLive[x] = append(s.fixedLive[x], fixedAt{s.restv[y], y})
					s.under[x] = min(s.under[x], s.restv[y])
				}
			}
			slices.SortFunc(s.fixedLive[x], func(a, b fixedAt) int { return cmpInt64(a.rest, b.rest) })
		}
	}
	s.total = make([]int64, n)
	for k := range n {
		for x := s.first[k]; x < s.last[k]; x++ {
			s.total[k] = max(s.total[k], s.rem[x])
		}
	}
	for a := range n {
		for b := range n {
			if a != b && s.first[a] < s.last[b] && s.first[b] < s.last[a] {
				s.nbr[a] = append(s.nbr[a], int32(b))
			}
		}
	}
	s.failed = newStateSet(failedInitial, failedCap)
	s.bufKeys = make([][2]uint64, n)
	seed := uint64(0x2545f4914f6cdd1d)
	for k := range s.bufKeys {
		s.bufKeys[k] = [2]uint64{splitmix(&seed), splitmix(&seed)}
	}
	for x := range s.sections {
		h := floorHash(int32(x), 0)
		s.floorKey[0] += h[0]
		s.floorKey[1] += h[1]
	}
	return s
}

// run searches for offsets with every buffer's end at most target. It
// reports whether a solution was found and whether the search finished
// (so none exists if not found) rather than running out of time or nodes.
// It stops at stopAt or after stopNodes nodes in all, if not zero.
func (s *search) run(target int64, stopAt time.Time, stopNodes int64) (found, complete bool) {
	s.target, s.stopAt, s.stopNodes = target, stopAt, stopNodes
	s.found, s.bestOff = false, nil
	s.ex.target = target
	if target > s.memoTarget {
		s.failed.clear() // what failed under a lower target may fit now
	}
	s.memoTarget = target
	for x := range s.sections {
		if s.rem[x] > target {
			return false, true
		}
	}
	s.over = 0
	for y := range s.restv {
		if s.restv[y]+s.size[y] > target {
			s.over++
		}
	}
	for run := 0; ; run++ {
		s.setOrder(run)
		s.restartAt = s.ex.nodes + int64(exactRestartUnit*luby(run+1))
		s.aborted, s.restart, s.unwind = false, false, 0
		s.pending = s.pending[:0]
		s.dfs(0, 0, int32(s.sections))
		if !s.restart || s.found {
			return s.found, !s.aborted
		}
	}
}

// apply writes the best solution into the problem's offsets.
func (s *search) apply(offsets []int64) {
	for k, i := range s.ids {
		offsets[i] = s.bestOff[k]
	}
}

func (s *search) timeUp() bool {
	s.ex.opts.yield()
	switch {
	case s.ex.ctx.Err() != nil || !s.stopAt.IsZero() && time.Now().After(s.stopAt):
		s.aborted, s.ex.cut = true, "time limit reached"
	case s.ex.out() || s.stopNodes > 0 && s.ex.nodes >= s.stopNodes:
		s.aborted, s.ex.cut = true, "node limit reached"
	case s.ex.nodes >= s.restartAt:
		s.aborted, s.restart = true, true
	}
	s.ex.report()
	return s.aborted
}

// fixedAt is a fixed buffer live in a section, with the rest it began
// the search with (its offset), by which a section's are sorted.
type fixedAt struct {
	rest int64
	y    int32
}

// raiseRest lifts buffer y's rest to at least floor v, recording the old
// one. Floors only rise as the search descends, and a rest is the highest
// floor under its buffer (aligned), so a floor raised to v lifts the rest
// of every buffer live there to v: updating those few beats recomputing
// every rest at every node.
//
// A fixed buffer's rest is its offset for good: a floor raised past it
// means the buffer can no longer sit there, and its rest becomes
// unreachable so that bounded fails.
func (s *search) raiseRest(y int32, v int64) {
	r := legalOffset(v, s.size[y], s.align[y], s.p.Cut)
	if s.fixed[y] && r > s.restv[y] {
		r = math.MaxInt64 / 2
	}
	if r > s.restv[y] {
		s.trail = append(s.trail, undo{-y - 1, s.restv[y]})
		if s.restv[y]+s.size[y] <= s.target && r+s.size[y] > s.target {
			s.over++
		}
		s.restv[y] = r
	}
}

// setFloor raises a section's floor, recording the old one. The rests
// of the buffers live there are the caller's to raise.
func (s *search) setFloor(x int32, v int64) {
	old := s.floor[x]
	s.trail = append(s.trail, undo{x, old})
	s.floor[x] = v
	h0, h1 := floorHash(x, old), floorHash(x, v)
	s.floorKey[0] += h1[0] - h0[0]
	s.floorKey[1] += h1[1] - h0[1]
}

func (s *search) undoTo(mark int) {
	for k := len(s.trail) - 1; k >= mark; k-- {
		u := s.trail[k]
		if u.sec < 0 {
			y := -u.sec - 1
			if s.restv[y]+s.size[y] > s.target && u.old+s.size[y] <= s.target {
				s.over--
			}
			s.restv[y] = u.old
			continue
		}
		h0, h1 := floorHash(u.sec, s.floor[u.sec]), floorHash(u.sec, u.old)
		s.floorKey[0] += h1[0] - h0[0]
		s.floorKey[1] += h1[1] - h0[1]
		s.floor[u.sec] = u.old
	}
	s.trail = s.trail[:mark]
}

// dfs searches below the current state for a placement of the unplaced
// buffers of sections [a, b), then of the pending groups; depth buffers
// are placed. It returns true to stop the whole search (found, or out of
// time).
//
// The search is as deep as the buffers placed plus the floors raised on
// the way, thousands of levels on a large group: it runs as a loop over an
// explicit stack of frames (s.stack) rather than as recursive calls,
// whose depth would be the host's call stack. Compiled to wasm, Go's calls
// are the browser's own, and a browser worker's stack (about 700 kB in
// Chromium) ran out on a 1,500-buffer model where the command line did
// not. Each frame is what one of the calls below would do once its inner
// search returns; the order of every step, and so the nodes counted, is
// the recursive search's.
//
//	dfs:    count the node; no unplaced buffer left: next; a failed
//	        state: false; else branch, and record the state failed if it
//	        finds nothing
//	next:   a pending group's search, or a solution
//	branch: bounded, else split, else each candidate placed at the
//	        lowest floor in turn, else nobody there (the floor raised)
func (s *search) dfs(depth int, a, b int32) bool {
	base := len(s.stack)
	stop := s.enter(depth, a, b)
	for len(s.stack) > base {
		fr := &s.stack[len(s.stack)-1]
		ret := stop == searchStop
		switch fr.kind {
		case frameFailed:
			if !ret {
				// Failed, or unwinding because a later group failed:
				// either way no placement of what is left exists from
				// here.
				s.failed.add(fr.key)
			}
			s.stack = s.stack[:len(s.stack)-1]
		case frameNext:
			g := fr.group
			s.stack = s.stack[:len(s.stack)-1]
			if !ret && s.unwind == 0 {
				// The group failed whatever the groups before it did:
				// they share no section, so their choices cannot help.
				// Back to the node that split them.
				s.unwind = g.owner
			}
			s.pending = append(s.pending, g)
		case frameSplit:
			s.pending = s.pending[:fr.mark]
			if s.unwind == fr.split {
				s.unwind = 0
			}
			s.stack = s.stack[:len(s.stack)-1]
		case framePlaced:
			s.unplace(fr.y, fr.mark)
			s.stack = s.stack[:len(s.stack)-1]
		case frameSkipped:
			s.undoTo(fr.mark)
			s.stack = s.stack[:len(s.stack)-1]
		case frameBranch:
			if ret {
				s.stack = s.stack[:len(s.stack)-1]
				break
			}
			if s.unwind != 0 {
				s.stack = s.stack[:len(s.stack)-1]
				break
			}
			fr.next++
			if step, call, d, g := s.candidates(); call {
				stop = s.enter(d, g.a, g.b)
			} else {
				stop = step
			}
		}
	}
	return stop == searchStop
}

// searchStep is how a call of the search ended: false, or true (stop).
type searchStep uint8

const (
	searchFail searchStep = iota
	searchStop
)

// frameKind says what a frame does when the call below it returns.
type frameKind uint8

const (
	frameFailed  frameKind = iota // dfs: record key failed unless the search stops
	frameNext                     // next: the pending group g is done
	frameSplit                    // split: drop the pending groups above mark
	frameBranch                   // branch: try the next candidate, then nobody
	framePlaced                   // place: take buffer y back out
	frameSkipped                  // branch's nobody: lower the raised floor again
)

// searchFrame is a call of the search waiting on a deeper one.
type searchFrame struct {
	kind  frameKind
	depth int
	a, b  int32
	key   [2]uint64 // frameFailed: the state searched
	group part      // frameNext
	mark  int       // frameSplit: pending's length; framePlaced, frameSkipped: trail's
	split int64     // frameSplit: the split's id
	y     int32     // framePlaced
	// frameBranch: the section and floor it branches on, the lowest
	// offset the candidates could take if nobody sits at the floor, and
	// the next candidate, in s.cands[depth].
	sec    int32
	f      int64
	skipTo int64
	next   int
}

func (s *search) push(fr searchFrame) { s.stack = append(s.stack, fr) }

// enter runs dfs(depth, a, b) down to where it ends without a deeper
// call, pushing the frames of the calls it passes through, and returns
// how that innermost call ended: dfs's loop hands it to those frames.
func (s *search) enter(depth int, a, b int32) searchStep {
	for {
		s.ex.nodes++
		if s.ex.nodes&1023 == 0 && s.timeUp() {
			return searchStop
		}
		if !slices.ContainsFunc(s.rem[a:b], func(r int64) bool { return r > 0 }) {
			// next: the next pending group, or a solution.
			if len(s.pending) == 0 {
				s.found = true
				s.bestOff = slices.Clone(s.off)
				return searchStop
			}
			g := s.pending[len(s.pending)-1]
			s.pending = s.pending[:len(s.pending)-1]
			s.push(searchFrame{kind: frameNext, group: g})
			a, b = g.a, g.b
			continue
		}
		key := [2]uint64{s.setKey[0] ^ s.floorKey[0], s.setKey[1] ^ s.floorKey[1]}
		if s.failed.has(key) {
			return searchFail
		}
		s.push(searchFrame{kind: frameFailed, key: key})
		step, call, d, g := s.branch(depth, a, b)
		if !call {
			return step
		}
		depth, a, b = d, g.a, g.b
	}
}

// part is a run of sections whose unplaced buffers share no step with
// the rest, searched on its own once the current one is placed.
type part struct {
	a, b  int32
	owner int64 // the node that split it off
}

// split cuts sections [a, b) into groups that no unplaced buffer spans
// across. With more than one, it leaves all but the tightest pending,
// pushes the frame that drops them again, and reports true with the
// tightest, to be searched first.
func (s *search) split(depth int, a, b int32) (split bool, first part) {
	// The unplaced buffers live in [a, b) lie inside it: the part was
	// cut where none crossed, and placing only removes buffers.
	gs := s.groups[depth][:0]
	start := int32(-1)
	for x := a; x < b; x++ {
		if s.rem[x] > 0 && start < 0 {
			start = x
		}
		if (x+1 == b || s.span[x] == 0) && start >= 0 {
			gs = append(gs, part{a: start, b: x + 1})
			start = -1
		}
	}
	s.groups[depth] = gs
	if len(gs) < 2 {
		return false, part{}
	}
	s.splits++
	id := s.splits
	// Tightest first: a failure there ends the node soonest.
	slack := func(g part) int64 {
		sl := int64(math.MaxInt64)
		for x := g.a; x < g.b; x++ {
			if s.rem[x] > 0 {
				sl = min(sl, s.target-s.minRest(x, math.MinInt64)-s.rem[x])
			}
		}
		return sl
	}
	slices.SortStableFunc(gs, func(g, h part) int { return cmpInt64(slack(g), slack(h)) })
	mark := len(s.pending)
	for k := len(gs) - 1; k >= 1; k-- {
		gs[k].owner = id
		s.pending = append(s.pending, gs[k])
	}
	s.push(searchFrame{kind: frameSplit, mark: mark, split: id})
	return true, gs[0]
}

// bounded reports whether the unplaced buffers can still fit under the
// target: each above its rest, and those of each section stacked above
// the lowest rest among them (bytes of a section below every rest there
// are lost).
func (s *search) bounded(a, b int32) bool {
	if s.over > 0 {
		return false // rests only rise
	}
	// A section fits if some buffer live there can still start low
	// enough; the first such buffer ends the scan, which is usually
	// soon, where the lowest rest of every section would read them all.
	for x := a; x < b; x++ {
		r := s.rem[x]
		if r == 0 {
			continue
		}
		if s.minRest(x, s.target-r) > s.target-r {
			return false
		}
	}
	return true
}

// minRest returns the lowest offset at which the unplaced buffers live
// in section x can start, or any such offset at or below enough. A
// buffer that cannot fit under the lowest fixed buffer there must go
// above it: the bytes under a fixed buffer that nothing fits in are lost.
func (s *search) minRest(x int32, enough int64) int64 {
	under := s.under[x]
	if under <= enough {
		// The fixed buffer starts low enough. In an improver's rectangle
		// nearly every section has one, and the scan below, which would
		// read every buffer live there, was a seventh of a run.
		return under
	}
	// The buffer that was low enough last time usually still is: rests
	// rise slowly, and the bound moves only as the section fills. (A
	// fixed buffer is never low enough: its rest is at least under.)
	if h := s.hint[x]; !s.placed[h] && s.restv[h] <= enough && s.restv[h]+s.size[h] <= under {
		return s.restv[h]
	}
	live := s.live[x][:s.unplaced[x]]
	low := under
	for _, y := range live {
		if r := s.restv[y]; r < low && r+s.size[y] <= under {
			low = r
			if low <= enough {
				s.hint[x] = y
				break
			}
		}
	}
	return low
}

func (s *search) better(x, y int32) bool {
	switch s.tie {
	case 'F':
		return s.rem[x] > s.rem[y]
	case 'R':
		return true
	case 'E':
		return s.rem[x] < s.rem[y]
	}
	return false
}

// branch splits on who covers the lowest free byte. It returns its
// result, or call with the frames that take a deeper search's result
// pushed and the search to enter: depth and the sections [g.a, g.b).
func (s *search) branch(depth int, a, b int32) (step searchStep, call bool, deeper int, g part) {
	if !s.bounded(a, b) {
		return searchFail, false, 0, part{}
	}
	if split, first := s.split(depth, a, b); split {
		return 0, true, depth, first
	}
	// The lowest floor; among equals, the fullest section, where a wrong
	// choice shows soonest.
	sec, f := int32(-1), int64(math.MaxInt64)
	for x := a; x < b; x++ {
		if s.rem[x] > 0 && (s.floor[x] < f || s.floor[x] == f && s.better(x, sec)) {
			sec, f = x, s.floor[x]
		}
	}
	// Who can sit at f, and how high the others must go. A fixed buffer
	// at f is the only one that can: it covers byte f whatever else.
	cs := s.cands[depth][:0]
	skipTo := int64(math.MaxInt64)
	for _, y := range s.live[sec][:s.unplaced[sec]] {
		if s.fixed[y] && s.restv[y] == f {
			s.cands[depth] = append(cs[:0], y)
			if !s.place(y, f) {
				return searchFail, false, 0, part{}
			}
			return 0, true, depth + 1, part{a: a, b: b}
		}
	}
	for _, y := range s.live[sec][:s.unplaced[sec]] {
		r := s.restv[y]
		if r == f {
			cs = append(cs, y)
		}
		// If nobody takes f, y sits above it: at its rest if that is
		// higher, else on a neighbour placed later, all of which go at
		// or above f.
		lb := r
		if r <= f {
			if at := legalOffset(f, s.size[y], s.align[y], s.p.Cut); at != f {
				lb = at
			} else {
				lb = math.MaxInt64
				for _, z := range s.nbr[y] {
					if !s.placed[z] {
						lb = min(lb, legalOffset(s.restv[z]+s.size[z], s.size[y], s.align[y], s.p.Cut))
					}
				}
			}
		}
		skipTo = min(skipTo, lb)
	}
	slices.SortFunc(cs, func(a, b int32) int { return int(s.prio[a]-s.prio[b])*int(len(s.ids)) + int(a-b) })
	s.cands[depth] = cs
	s.push(searchFrame{kind: frameBranch, depth: depth, a: a, b: b, sec: sec, f: f, skipTo: skipTo})
	return s.candidates()
}

// candidates goes on with the branch frame on top of the stack: it
// places its next candidate at the floor and enters the search above it
// or, once none is left, raises the floor for nobody there.
func (s *search) candidates() (step searchStep, call bool, deeper int, g part) {
	fr := &s.stack[len(s.stack)-1]
	cs := s.cands[fr.depth]
	for ; fr.next < len(cs); fr.next++ {
		if s.place(cs[fr.next], fr.f) {
			return 0, true, fr.depth + 1, part{a: fr.a, b: fr.b}
		}
		if s.unwind != 0 {
			s.stack = s.stack[:len(s.stack)-1]
			return searchFail, false, 0, part{}
		}
	}
	// Nobody covers byte f of this section.
	b := *fr
	s.stack = s.stack[:len(s.stack)-1]
	if b.skipTo == math.MaxInt64 || b.skipTo+s.rem[b.sec] > s.target {
		return searchFail, false, 0, part{}
	}
	mark := len(s.trail)
	s.setFloor(b.sec, b.skipTo)
	for _, y := range s.live[b.sec][:s.unplaced[b.sec]] {
		s.raiseRest(y, b.skipTo)
	}
	s.push(searchFrame{kind: frameSkipped, mark: mark})
	return 0, true, b.depth, part{a: b.a, b: b.b}
}

// place puts buffer y at offset f, unless the sections it spans could no
// longer hold their other buffers, and pushes the frame that takes it
// out again; it reports whether it did.
func (s *search) place(y int32, f int64) bool {
	top := f + s.size[y]
	for x := s.first[y]; x < s.last[y]; x++ {
		if top+s.rem[x]-s.size[y] > s.target {
			return false // the section's other buffers no longer fit
		}
	}
	mark := len(s.trail)
	s.placed[y] = true
	s.off[y] = f
	s.setKey[0] ^= s.bufKeys[y][0]
	s.setKey[1] ^= s.bufKeys[y][1]
	for x := s.first[y]; x < s.last[y]; x++ {
		s.rem[x] -= s.size[y]
		if x+1 < s.last[y] {
			s.span[x]--
		}
		s.setFloor(x, top)
		// Move y behind the unplaced buffers of x. Undoing in reverse
		// order finds it just behind them again: the moves made since
		// stayed in front of it.
		u := s.live[x][:s.unplaced[x]]
		k := slices.Index(u, y)
		u[k], u[len(u)-1] = u[len(u)-1], u[k]
		s.unplaced[x]--
		if s.fixed[y] && s.under[x] == s.restv[y] {
			// Lowest first: a rest only rises from where it began, so
			// the scan ends at the first that began at or above the
			// lowest found.
			s.under[x] = math.MaxInt64
			for _, f := range s.fixedLive[x] {
				if f.rest >= s.under[x] {
					break
				}
				if !s.placed[f.y] {
					s.under[x] = min(s.under[x], s.restv[f.y])
				}
			}
		}
	}
	for _, z := range s.nbr[y] {
		if !s.placed[z] {
			s.raiseRest(z, top)
		}
	}
	s.push(searchFrame{kind: framePlaced, y: y, mark: mark})
	return true
}

// unplace takes buffer y out again, back to the state place found.
func (s *search) unplace(y int32, mark int) {
	s.undoTo(mark)
	for x := s.first[y]; x < s.last[y]; x++ {
		s.rem[x] += s.size[y]
		s.unplaced[x]++
		if x+1 < s.last[y] {
			s.span[x]++
		}
		if s.fixed[y] {
			s.under[x] = min(s.under[x], s.restv[y])
		}
	}
	s.setKey[0] ^= s.bufKeys[y][0]
	s.setKey[1] ^= s.bufKeys[y][1]
	s.placed[y] = false
}
