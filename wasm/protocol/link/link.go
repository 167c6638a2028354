// Package link reads and writes the state a memplan link restores (the
// file, the planning options, the camera, the selection, the replay
// step) as the fragment of the page's address. The viewer encodes it and
// posts it to the page in a "state" event; the page hands the address
// back on load and on back/forward, never reading it itself. It is apart
// from package protocol because it inflates a carried graph with
// compress/flate, whose tables the planner worker (which imports
// protocol) should not pay for.
package link

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"

	"memplan/wasm/protocol"
)

// State is what a memplan link restores: the file (fetched from URL, a
// built-in Example, or the file itself carried in the link), the planning
// options, the camera, the selected tensor and the replay step. It travels
// in the fragment of the page's URL (EncodeHash, DecodeHash), written by
// the page from the viewer's "state" events and handed back on load and
// on back/forward; the page never reads it itself.
//
// The fragment is a query string ("strategy=exact&align=64&view=…"). Keys:
//
//	url       the file's address, fetched by the page (relative to it)
//	ex        a built-in example by name
//	g, name   the file itself, deflate-compressed (raw, RFC 1951), base64url,
//	          and its name (whose extension says its format)
//	strategy, align, guard, budget, f32, noreuse, skip, sym, ifbranch,
//	webgpu, binding, limits, nodelimit: the planning options, each its
//	          row's Param in protocol.OptionTable, written and read as the
//	          command line's flags are
//	view      the camera: the world rectangle shown, x0,y0,x1,y1 (steps, bytes)
//	sel       the selected tensor's name
//	step      the replay: how many buffers are placed (absent: all)
//	place     placing by hand: the tensors not at the planner's offsets,
//	          name@offset joined by ";" (each name escaped as a value
//	          is), or "none" when every one is at the planner's
//
// Keys it does not know are ignored, so a link from a newer memplan still
// opens. Values it knows but cannot
// read are a *Error naming the key: a link never half-applies.
type State struct {
	URL     string
	Example string
	Name    string // the carried file's name
	Graph   []byte // the carried file, uncompressed
	// Packed is Graph compressed (raw deflate, RFC 1951: what the
	// browser's CompressionStream("deflate-raw") writes), as the link
	// carries it.
	Packed  []byte
	Options protocol.Options
	// View is the world rectangle the camera shows; nil: the whole plan.
	View     *View
	Selected string
	// Step is the replay's count of placed buffers; -1: the whole plan.
	Step int
	// Placing: the link shows a placement by hand, the planner's plan
	// with Moves applied.
	Placing bool
	Moves   []Move
}

// Move is a tensor placed by hand at an offset.
type Move struct {
	Name   string
	Offset int64
}

// View is a world rectangle: steps across, bytes up.
type View struct{ X0, Y0, X1, Y1 float64 }

// Limits on what a link may hold, so a hostile one costs little.
const (
	// MaxHash is the longest fragment read (a graph of MaxPackedGraph
	// bytes, base64-encoded, with room to spare).
	MaxHash = 256 << 10
	// MaxPackedGraph is the most compressed bytes a link carries: a
	// larger file travels by its URL, or not at all.
	MaxPackedGraph = 64 << 10
	// MaxGraph is the most bytes a carried graph may inflate to.
	MaxGraph = 16 << 20
	// Largest numbers a link may set, far above any real plan and far
	// below overflow.
	maxStep  = 1 << 30
	maxCoord = 1e18
	maxText  = 4096
)

// Error is a link parameter that could not be read.
type Error struct {
	Param string // the key, e.g. "align"; "" for the link as a whole
	Msg   string
}

// LinkParam names the parameter at fault, for protocol.ErrorOf.
func (e *Error) LinkParam() string { return e.Param }

func (e *Error) Error() string {
	if e.Param == "" {
		return "the link: " + e.Msg
	}
	return fmt.Sprintf("the link's %s parameter: %s", e.Param, e.Msg)
}

// unpackGraph inflates a carried graph, refusing more than MaxGraph bytes.
func unpackGraph(packed []byte) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(packed))
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, MaxGraph+1))
	if err != nil {
		return nil, fmt.Errorf("not deflate-compressed data: %v", err)
	}
	if len(b) > MaxGraph {
		return nil, fmt.Errorf("the graph inflates to over %d MiB", MaxGraph>>20)
	}
	return b, nil
}

// EncodeHash writes s as a fragment (without the "#"). Options at their
// defaults, a fitted view and a whole replay are left out.
func EncodeHash(s State) string {
	var b strings.Builder
	put := func(k, v string) {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(escape(v))
	}
	o := s.Options
	table := protocol.OptionTable()
	for i := range table {
		opt := &table[i]
		if opt.Param == "" {
			continue
		}
		if v, ok := opt.Format(&o); ok {
			if opt.Switch {
				v = "1"
			}
			put(opt.Param, v)
		}
	}
	if v := s.View; v != nil {
		put("view", strings.Join([]string{coord(v.X0), coord(v.Y0), coord(v.X1), coord(v.Y1)}, ","))
	}
	if s.Selected != "" {
		put("sel", s.Selected)
	}
	if s.Step >= 0 {
		put("step", strconv.Itoa(s.Step))
	}
	if s.Placing {
		moves := make([]string, len(s.Moves))
		for k, m := range s.Moves {
			moves[k] = escape(m.Name) + "@" + strconv.FormatInt(m.Offset, 10)
		}
		if len(moves) == 0 {
			moves = []string{"none"}
		}
		put("place", strings.Join(moves, ";"))
	}
	switch {
	case s.URL != "":
		put("url", s.URL)
	case s.Example != "":
		put("ex", s.Example)
	case s.Packed != nil:
		put("name", s.Name)
		put("g", base64.RawURLEncoding.EncodeToString(s.Packed))
	}
	return b.String()
}

// coord writes a coordinate exactly: the view comes back to the bit.
func coord(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// escape percent-encodes what would end or confuse a value: everything
// but letters, digits and -._~,/: (which keep a link readable). The
// parsing is hand-written, not net/url's, which would weigh ~15 kB on the
// viewer's first screen.
func escape(s string) string {
	const hexDigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~,/:", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		}
	}
	return b.String()
}

// unescape undoes escape, reading '+' as a space as forms write it.
func unescape(s string) (string, error) {
	if !strings.ContainsAny(s, "%+") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			b.WriteByte(' ')
		case '%':
			if i+2 >= len(s) {
				return "", fmt.Errorf("%q ends in a cut-off escape", s)
			}
			hi, lo := unhex(s[i+1]), unhex(s[i+2])
			if hi < 0 || lo < 0 {
				return "", fmt.Errorf("%q has a bad escape %q", s, s[i:i+3])
			}
			b.WriteByte(byte(hi<<4 | lo))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// param is one key=value of a query string.
type param struct{ key, value string }

// parseQuery reads "a=1&b=2" in order. A key given twice is an error: a
// link means one thing.
func parseQuery(q string) ([]param, error) {
	var out []param
	seen := map[string]bool{}
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := unescape(k)
		if err != nil {
			return nil, &Error{"", err.Error()}
		}
		if v, err = unescape(v); err != nil {
			return nil, &Error{key, err.Error()}
		}
		if seen[key] {
			return nil, &Error{key, "given more than once"}
		}
		seen[key] = true
		out = append(out, param{key, v})
	}
	return out, nil
}

// DecodeLocation reads the state of a page's address: its fragment (hash,
// without "#") and, for the file's URL when the fragment names no file,
// its query's url parameter (search, with or without "?"), as in
// index.html?url=models/mlp.json.
func DecodeLocation(search, hash string) (State, error) {
	s, err := DecodeHash(hash)
	if err != nil {
		return s, err
	}
	if s.URL == "" && s.Example == "" && s.Graph == nil {
		q, err := parseQuery(strings.TrimPrefix(search, "?"))
		if err != nil {
			return s, err
		}
		for _, p := range q {
			if p.key == "url" && p.value != "" {
				if s.URL, err = checkURL(p.value); err != nil {
					return s, &Error{"url", err.Error()}
				}
			}
		}
	}
	return s, nil
}

// DecodeHash reads a fragment written by EncodeHash (or by hand). Every
// value is checked before any is used, an option's by its row of the
// options' table: an error names the parameter. Limits are read over
// their profile when the file is planned (protocol.ResolveGPU).
func DecodeHash(hash string) (State, error) {
	s := State{Options: protocol.DefaultOptions(), Step: -1}
	hash = strings.TrimPrefix(hash, "#")
	if len(hash) > MaxHash {
		return s, &Error{"", fmt.Sprintf("it is %d characters long, over the %d a link may have", len(hash), MaxHash)}
	}
	if hash == "" {
		return s, nil
	}
	q, err := parseQuery(hash)
	if err != nil {
		return s, err
	}
	table := protocol.OptionTable()
	for _, p := range q {
		if err := s.set(table, p.key, p.value); err != nil {
			return s, &Error{p.key, err.Error()}
		}
	}
	files := 0
	for _, on := range []bool{s.URL != "", s.Example != "", s.Packed != nil} {
		if on {
			files++
		}
	}
	if files > 1 {
		return s, &Error{"", "it names more than one file (url, ex, g)"}
	}
	if s.Packed != nil {
		if s.Name == "" {
			s.Name = "graph.json"
		}
		if s.Graph, err = unpackGraph(s.Packed); err != nil {
			return s, &Error{"g", err.Error()}
		}
	} else if s.Name != "" {
		return s, &Error{"name", "names a carried file, but the link carries none (g)"}
	}
	return s, nil
}

// set reads one parameter into s: an option by the options' table, or
// one of the link's own.
func (s *State) set(table []protocol.Option, k, v string) error {
	if len(v) > maxText && k != "g" && k != "place" { // those two are bounded by MaxHash
		return fmt.Errorf("%d characters long, over %d", len(v), maxText)
	}
	for i := range table {
		if opt := &table[i]; opt.Param == k {
			return opt.Parse(&s.Options, v)
		}
	}
	var err error
	switch k {
	case "view":
		s.View, err = view(v)
	case "sel":
		s.Selected = v
	case "step":
		var n int64
		n, err = integer(v, 0, maxStep)
		s.Step = int(n)
	case "place":
		s.Placing, s.Moves, err = true, nil, nil
		if v != "none" {
			s.Moves, err = moves(v)
		}
	case "url":
		s.URL, err = checkURL(v)
	case "ex":
		if v == "" || path.Base(v) != v || strings.HasPrefix(v, ".") {
			return fmt.Errorf("%q is not an example's file name", v)
		}
		s.Example = v
	case "name":
		if v == "" || path.Base(v) != v {
			return fmt.Errorf("%q is not a file name", v)
		}
		s.Name = v
	case "g":
		if len(v) > MaxHash {
			return errors.New("too long")
		}
		if s.Packed, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(v, "=")); err != nil {
			return fmt.Errorf("not base64url: %v", err)
		}
		if len(s.Packed) > MaxPackedGraph {
			return fmt.Errorf("%d compressed bytes, over the %d a link may carry", len(s.Packed), MaxPackedGraph)
		}
	}
	return err
}

// moves reads name@offset;name@offset: each name as escape wrote it, each
// offset a whole number of bytes; a name at most once.
func moves(v string) ([]Move, error) {
	var out []Move
	seen := map[string]bool{}
	for _, part := range strings.Split(v, ";") {
		at := strings.LastIndexByte(part, '@')
		if at < 0 {
			return nil, fmt.Errorf("%q is not name@offset", part)
		}
		name, err := unescape(part[:at])
		if err != nil {
			return nil, err
		}
		if name == "" || seen[name] {
			return nil, fmt.Errorf("%q: a tensor's name, once", part)
		}
		seen[name] = true
		off, err := integer(part[at+1:], 0, 1<<62-1)
		if err != nil {
			return nil, fmt.Errorf("%s's offset: %v", name, err)
		}
		out = append(out, Move{name, off})
	}
	return out, nil
}

// integer reads a whole number in [lo, hi].
func integer(v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a whole number", v)
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("%d is outside %d to %d", n, lo, hi)
	}
	return n, nil
}

// view reads x0,y0,x1,y1: finite, in order, and not absurdly far.
func view(v string) (*View, error) {
	parts := strings.Split(v, ",")
	if len(parts) != 4 {
		return nil, fmt.Errorf("%q is not four numbers x0,y0,x1,y1", v)
	}
	var c [4]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > maxCoord {
			return nil, fmt.Errorf("%q is not a finite number", p)
		}
		c[i] = f
	}
	if !(c[0] < c[2] && c[1] < c[3]) {
		return nil, fmt.Errorf("%q is not a rectangle with x0 < x1 and y0 < y1", v)
	}
	return &View{c[0], c[1], c[2], c[3]}, nil
}

// checkURL takes a relative address or an http(s) one.
func checkURL(v string) (string, error) {
	if v == "" || strings.ContainsAny(v, "\t\r\n\x00") {
		return "", fmt.Errorf("%q is not an address", v)
	}
	// A scheme is what comes before the first ':' that precedes any '/',
	// '?' or '#'.
	if i := strings.IndexAny(v, ":/?#"); i >= 0 && v[i] == ':' {
		if scheme := strings.ToLower(v[:i]); scheme != "http" && scheme != "https" {
			return "", fmt.Errorf("%q: only http, https and relative addresses are fetched", v)
		}
	}
	return v, nil
}
