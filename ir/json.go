package ir

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// DecodeGraph decodes a Graph JSON v1 file (see docs/graph-format.md) and
// validates it. Every error is an *Error naming the file, the line:column
// and JSON path of the offending value, and the node when there is one.
//
// The file is first parsed into a small tree that remembers where each
// value starts, rather than with json.Unmarshal, so that type errors,
// unknown fields and validation errors can all point at line:column.
func DecodeGraph(fileName string, data []byte) (*Graph, error) {
	root, perr := parseJSON(data)
	if perr != nil {
		e := &Error{File: fileName, Msg: perr.msg}
		e.Line, e.Column = lineCol(data, perr.off)
		return nil, e
	}
	d := &graphDecoder{file: fileName, data: data}
	g, err := d.graph(root)
	if err != nil {
		return nil, err
	}
	if err := g.Validate(); err != nil {
		if e, ok := err.(*Error); ok {
			e.File = fileName
			if v := root.lookup(e.Path); v != nil {
				e.Line, e.Column = lineCol(data, v.off)
			}
		}
		return nil, err
	}
	return g, nil
}

// Field names accepted by DecodeGraph. The schema test keeps
// docs/graph.schema.json in step with these lists.
var (
	graphFields  = []string{"format", "name", "symbols", "nodes", "outputs", "schedule"}
	nodeFields   = []string{"name", "op", "inputs", "shape", "dtype", "pin", "pin_producers", "outputs", "axis", "start", "len", "to", "custom", "phase"}
	outputFields = []string{"name", "shape", "dtype", "pin", "pin_producers"}
)

// opFields lists the node fields that belong to one op only.
var opFields = map[string]string{
	"axis": OpNarrow, "start": OpNarrow, "len": OpNarrow,
	"to":     OpCast,
	"custom": OpCustom,
}

// opFieldOrder is opFields' keys in a fixed order, for a deterministic
// first error.
var opFieldOrder = []string{"axis", "start", "len", "to", "custom"}

// A jpath is a JSON path such as `nodes[3].shape[1]`, kept in parts so
// that the string is built only for an error.
type jpath struct {
	base string
	key  string // a field of base, or ""
	i    int    // an index into base.key, or -1
}

func pathOf(base string) jpath { return jpath{base, "", -1} }

func (p jpath) String() string {
	s := p.base
	if p.key != "" {
		s = join(s, p.key)
	}
	if p.i >= 0 {
		s = index(s, p.i)
	}
	return s
}

func (p jpath) field(key string) jpath {
	if p.key != "" || p.i >= 0 {
		return jpath{p.String(), key, -1}
	}
	return jpath{p.base, key, -1}
}

func (p jpath) elem(i int) jpath {
	if p.i >= 0 {
		return jpath{p.String(), "", i}
	}
	p.i = i
	return p
}

// fields holds an object's members by their index in a list of known
// names; the lists are short, so a scan beats a map.
type fields struct {
	known []string
	vals  [16]*jvalue
}

func (f *fields) get(key string) *jvalue {
	for i, k := range f.known {
		if k == key {
			return f.vals[i]
		}
	}
	return nil
}

type graphDecoder struct {
	file     string
	data     []byte
	nodeName string // name of the node being decoded, for errors
}

func (d *graphDecoder) errorf(v *jvalue, path jpath, format string, args ...any) *Error {
	e := &Error{File: d.file, Path: path.String(), Node: d.nodeName, Msg: fmt.Sprintf(format, args...)}
	if v != nil {
		e.Line, e.Column = lineCol(d.data, v.off)
	}
	return e
}

// object checks that v is an object whose keys are all in known, and
// fills f with its members.
func (d *graphDecoder) object(v *jvalue, path jpath, known []string, f *fields) error {
	if v.kind != '{' {
		return d.errorf(v, path, "got %s, want an object", v.describe())
	}
	f.known = known
	clear(f.vals[:])
	for _, mem := range v.members {
		i := slices.Index(known, mem.key)
		if i < 0 {
			p := path.field(mem.key)
			if near := nearest(mem.key, known); near != "" {
				return d.errorf(mem.val, p, "unknown field %s; did you mean %s?", Quote(mem.key), Quote(near))
			}
			return d.errorf(mem.val, p, "unknown field %s (known: %s)", Quote(mem.key), strings.Join(known, ", "))
		}
		f.vals[i] = mem.val
	}
	return nil
}

func (d *graphDecoder) str(v *jvalue, path jpath) (string, error) {
	if v.kind != '"' {
		return "", d.errorf(v, path, "got %s, want a string", v.describe())
	}
	return v.text, nil
}

func (d *graphDecoder) int(v *jvalue, path jpath) (int64, error) {
	if v.kind != '0' {
		return 0, d.errorf(v, path, "got %s, want an integer", v.describe())
	}
	n, err := strconv.ParseInt(v.text, 10, 64)
	if err != nil {
		if strings.ContainsAny(v.text, ".eE") {
			return 0, d.errorf(v, path, "got %s, want an integer", v.text)
		}
		return 0, d.errorf(v, path, "integer %s is out of range", v.text)
	}
	return n, nil
}

func (d *graphDecoder) array(v *jvalue, path jpath) ([]*jvalue, error) {
	if v.kind != '[' {
		return nil, d.errorf(v, path, "got %s, want an array", v.describe())
	}
	return v.elems, nil
}

func (d *graphDecoder) strings(v *jvalue, path jpath) ([]string, error) {
	elems, err := d.array(v, path)
	if err != nil || len(elems) == 0 {
		return nil, err
	}
	out := make([]string, len(elems))
	for i, e := range elems {
		if out[i], err = d.str(e, path.elem(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d *graphDecoder) graph(root *jvalue) (*Graph, error) {
	top := pathOf("")
	if root.kind != '{' {
		return nil, d.errorf(root, top, "got %s, want a graph object with \"format\": %s", root.describe(), Quote(Format))
	}
	// The format is checked before unknown fields so that a file of
	// another kind is reported as such, not as a pile of unknown fields.
	format := root.member("format")
	if format == nil {
		return nil, d.errorf(root, top, "missing \"format\": want %s", Quote(Format))
	}
	if format.kind != '"' || format.text != Format {
		return nil, d.errorf(format, top.field("format"), "format is %s, want %s", format.describe(), Quote(Format))
	}
	var f fields
	if err := d.object(root, top, graphFields, &f); err != nil {
		return nil, err
	}
	var err error
	// Symbols is never nil, so callers can bind more without a check.
	g := &Graph{Symbols: map[string]int64{}}
	if v := f.get("name"); v != nil {
		if g.Name, err = d.str(v, top.field("name")); err != nil {
			return nil, err
		}
	}
	if v := f.get("symbols"); v != nil {
		if v.kind != '{' {
			return nil, d.errorf(v, top.field("symbols"), "got %s, want an object of symbol name to integer", v.describe())
		}
		for _, m := range v.members {
			n, err := d.int(m.val, pathOf("symbols").field(m.key))
			if err != nil {
				return nil, err
			}
			g.Symbols[m.key] = n
		}
	}
	nv := f.get("nodes")
	if nv == nil {
		return nil, d.errorf(root, top, "missing \"nodes\"")
	}
	elems, err := d.array(nv, top.field("nodes"))
	if err != nil {
		return nil, err
	}
	g.Nodes = make([]Node, len(elems))
	for i, e := range elems {
		if err := d.node(e, index("nodes", i), &g.Nodes[i]); err != nil {
			return nil, err
		}
	}
	d.nodeName = ""
	if v := f.get("outputs"); v != nil {
		if g.Outputs, err = d.strings(v, top.field("outputs")); err != nil {
			return nil, err
		}
	}
	if v := f.get("schedule"); v != nil {
		if err := d.schedule(v, g); err != nil {
			return nil, err
		}
	}
	setCastAliases(g)
	return g, nil
}

func (d *graphDecoder) node(v *jvalue, base string, n *Node) error {
	d.nodeName = ""
	path := pathOf(base)
	if v.kind != '{' {
		return d.errorf(v, path, "got %s, want a node object", v.describe())
	}
	// Read the name first so that every later error can name the node.
	if name := v.member("name"); name != nil && name.kind == '"' {
		d.nodeName = name.text
	}
	var f fields
	if err := d.object(v, path, nodeFields, &f); err != nil {
		return err
	}
	n.Path = base
	var err error
	if f.get("name") == nil {
		return d.errorf(v, path, "missing \"name\"")
	}
	if n.Name, err = d.str(f.get("name"), path.field("name")); err != nil {
		return err
	}
	if f.get("op") == nil {
		return d.errorf(v, path, "missing \"op\"")
	}
	if n.Op, err = d.str(f.get("op"), path.field("op")); err != nil {
		return err
	}
	for _, key := range opFieldOrder {
		if fv := f.get(key); fv != nil && opFields[key] != n.Op {
			return d.errorf(fv, path.field(key), "field %s applies only to op %s, not %s", Quote(key), Quote(opFields[key]), Quote(n.Op))
		}
	}
	if pv := f.get("phase"); pv != nil {
		if n.Phase, err = d.str(pv, path.field("phase")); err != nil {
			return err
		}
		if n.Phase == "" {
			return d.errorf(pv, path.field("phase"), "phase name is empty: leave \"phase\" out for none")
		}
	}
	if iv := f.get("inputs"); iv != nil {
		if n.Inputs, err = d.strings(iv, path.field("inputs")); err != nil {
			return err
		}
	}

	if ov := f.get("outputs"); ov != nil {
		for _, key := range []string{"shape", "dtype", "pin", "pin_producers"} {
			if fv := f.get(key); fv != nil {
				return d.errorf(fv, path.field(key), "node has \"outputs\", so %s belongs on each output", Quote(key))
			}
		}
		outs, err := d.array(ov, path.field("outputs"))
		if err != nil {
			return err
		}
		if len(outs) == 0 {
			return d.errorf(ov, path.field("outputs"), "node has no outputs")
		}
		n.Outputs = make([]Tensor, len(outs))
		var of fields
		for k, o := range outs {
			op := pathOf(index(base+".outputs", k))
			if err := d.object(o, op, outputFields, &of); err != nil {
				return err
			}
			if of.get("name") == nil {
				return d.errorf(o, op, "missing \"name\"")
			}
			if n.Outputs[k].Name, err = d.str(of.get("name"), op.field("name")); err != nil {
				return err
			}
			if err := d.tensor(o, &of, op, &n.Outputs[k]); err != nil {
				return err
			}
		}
	} else {
		if f.get("shape") == nil && f.get("dtype") == nil {
			return d.errorf(v, path, "node has no outputs: give \"shape\" and \"dtype\", or \"outputs\"")
		}
		n.Outputs = []Tensor{{Name: n.Name}}
		if err := d.tensor(v, &f, path, &n.Outputs[0]); err != nil {
			return err
		}
	}

	switch n.Op {
	case OpNarrow:
		for _, key := range []string{"axis", "start", "len"} {
			if f.get(key) == nil {
				return d.errorf(v, path, "op narrow needs %s", Quote(key))
			}
		}
		if n.Axis, err = d.int(f.get("axis"), path.field("axis")); err != nil {
			return err
		}
		if n.Start, err = d.int(f.get("start"), path.field("start")); err != nil {
			return err
		}
		if n.Len, err = d.int(f.get("len"), path.field("len")); err != nil {
			return err
		}
		if n.Axis == 0 {
			n.Alias = AliasNarrow
		}
	case OpCast:
		if f.get("to") == nil {
			return d.errorf(v, path, "op cast needs \"to\"")
		}
		if n.To, err = d.dtype(f.get("to"), path.field("to")); err != nil {
			return err
		}
		// Whether it aliases depends on the input's dtype, known only
		// once every node is read: see setCastAliases.
	case OpCustom:
		cv := f.get("custom")
		if cv == nil {
			return d.errorf(v, path, "op custom needs \"custom\", the op's own name")
		}
		if n.Custom, err = d.str(cv, path.field("custom")); err != nil {
			return err
		}
		if n.Custom == "" {
			return d.errorf(cv, path.field("custom"), "custom op name is empty")
		}
	case OpReshape:
		n.Alias = AliasWhole
	}
	return nil
}

// tensor reads shape, dtype, pin and pin_producers of one output from
// fields f of object v at path.
func (d *graphDecoder) tensor(v *jvalue, f *fields, path jpath, t *Tensor) error {
	sv, dv := f.get("shape"), f.get("dtype")
	if sv == nil {
		return d.errorf(v, path, "missing \"shape\"")
	}
	if dv == nil {
		return d.errorf(v, path, "missing \"dtype\"")
	}
	sp := path.field("shape")
	dims, err := d.array(sv, sp)
	if err != nil {
		return err
	}
	t.Shape = make([]Dim, len(dims))
	for j, dim := range dims {
		switch dim.kind {
		case '"':
			if dim.text == "" {
				return d.errorf(dim, sp.elem(j), "empty symbol name")
			}
			t.Shape[j] = Sym(dim.text)
		case '0':
			n, err := d.int(dim, sp.elem(j))
			if err != nil {
				return err
			}
			t.Shape[j] = Int(n)
		default:
			return d.errorf(dim, sp.elem(j), "got %s, want an integer or a symbol name", dim.describe())
		}
	}
	if t.DType, err = d.dtype(dv, path.field("dtype")); err != nil {
		return err
	}
	if pv := f.get("pin"); pv != nil {
		pp := path.field("pin")
		switch pv.kind {
		case '"':
			if pv.text != "end" {
				return d.errorf(pv, pp, "pin is %s, want \"end\" or a step number", Quote(pv.text))
			}
			t.Pin.Until = PinEnd
		case '0':
			n, err := d.int(pv, pp)
			if err != nil {
				return err
			}
			if n >= PinEnd {
				return d.errorf(pv, pp, "pin step %d is too large; use \"end\"", n)
			}
			// Negative steps are left for Validate to report, as for
			// graphs built in code. Clamp so that int conversion keeps
			// the sign on any platform.
			t.Pin.Until = int(max(n, math.MinInt32))
		default:
			return d.errorf(pv, pp, "got %s, want \"end\" or a step number", pv.describe())
		}
	}
	if pv := f.get("pin_producers"); pv != nil {
		pp := path.field("pin_producers")
		if pv.kind != 't' && pv.kind != 'f' {
			return d.errorf(pv, pp, "got %s, want true or false", pv.describe())
		}
		t.Pin.Producers = pv.kind == 't'
		if t.Pin.Producers && f.get("pin") == nil {
			return d.errorf(pv, pp, "pin_producers needs \"pin\"")
		}
	}
	return nil
}

func (d *graphDecoder) dtype(v *jvalue, path jpath) (DType, error) {
	s, err := d.str(v, path)
	if err != nil {
		return InvalidDType, err
	}
	dt, ok := ParseDType(s)
	if !ok {
		return InvalidDType, d.errorf(v, path, "unknown dtype %s (known: %s)", Quote(s), strings.Join(DTypeNames(), " "))
	}
	return dt, nil
}

// schedule reorders g.Nodes as the file's schedule says, after checking
// it is a permutation of the nodes.
func (d *graphDecoder) schedule(v *jvalue, g *Graph) error {
	sp := pathOf("schedule")
	elems, err := d.array(v, sp)
	if err != nil {
		return err
	}
	byName := make(map[string]int, len(g.Nodes))
	for i := range g.Nodes {
		if _, dup := byName[g.Nodes[i].Name]; dup {
			// Validate reports duplicate node names with a better path.
			return nil
		}
		byName[g.Nodes[i].Name] = i
	}
	seen := make(map[string]int, len(elems))
	order := make([]Node, 0, len(g.Nodes))
	for k, e := range elems {
		name, err := d.str(e, sp.elem(k))
		if err != nil {
			return err
		}
		i, ok := byName[name]
		if !ok {
			return d.errorf(e, sp.elem(k), "schedule names unknown node %s", Quote(name))
		}
		if prev, dup := seen[name]; dup {
			d.nodeName = name
			return d.errorf(e, sp.elem(k), "schedule lists node %s twice (also at schedule[%d])", Quote(name), prev)
		}
		seen[name] = k
		order = append(order, g.Nodes[i])
	}
	if len(order) < len(g.Nodes) {
		for i := range g.Nodes {
			if _, ok := seen[g.Nodes[i].Name]; !ok {
				d.nodeName = g.Nodes[i].Name
				return d.errorf(v, sp, "schedule omits node %s (%s): it must list every node once", Quote(g.Nodes[i].Name), g.Nodes[i].Path)
			}
		}
	}
	g.Nodes = order
	return nil
}

// setCastAliases marks casts to their input's own dtype as views. Casts
// whose input is unknown are left for Validate to report.
func setCastAliases(g *Graph) {
	var casts bool
	for i := range g.Nodes {
		casts = casts || g.Nodes[i].Op == OpCast
	}
	if !casts {
		return
	}
	dtypes := make(map[string]DType)
	for i := range g.Nodes {
		for _, t := range g.Nodes[i].Outputs {
			dtypes[t.Name] = t.DType
		}
	}
	for i := range g.Nodes {
		n := &g.Nodes[i]
		if n.Op != OpCast || len(n.Inputs) == 0 {
			continue
		}
		if dt, ok := dtypes[n.Inputs[0]]; ok && dt == n.To {
			n.Alias = AliasWhole
		}
	}
}

// nearest returns the name in known closest to s, if it is a likely
// typo: at most two edits (a swap of neighbours counts as one) away.
func nearest(s string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(s, k); d < bestD {
			best, bestD = k, d
		}
	}
	if bestD >= len(s) {
		return "" // too short to guess from
	}
	return best
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of adjacent bytes.
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 64 // not a typo of a field name; avoid big tables
	}
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// join appends a field to a JSON path. Keys that are not plain
// identifiers are quoted so that the path stays unambiguous.
func join(path, key string) string {
	if !plainKey(key) {
		key = "[" + strconv.Quote(key) + "]"
		return path + key
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

func plainKey(key string) bool {
	if key == "" {
		return false
	}
	for i, c := range key {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// lineCol turns a byte offset into a 1-based line and byte column.
func lineCol(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line, start := 1, 0
	for i := 0; i < off; i++ {
		if data[i] == '\n' {
			line++
			start = i + 1
		}
	}
	return line, off - start + 1
}

// A jvalue is a parsed JSON value and the byte offset where it starts.
type jvalue struct {
	kind    byte // '{' object, '[' array, '"' string, '0' number, 't' true, 'f' false, 'n' null
	off     int
	text    string // string contents, or a number's literal text
	members []jmember
	elems   []*jvalue
}

type jmember struct {
	key string
	val *jvalue
}

func (v *jvalue) describe() string {
	switch v.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return strconv.Quote(v.text)
	case '0':
		return "number " + v.text
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
}

// lookup returns the value at a JSON path as built by join and index,
// or the deepest value on the way there, or nil if path is empty.
func (v *jvalue) lookup(path string) *jvalue {
	if path == "" {
		return v
	}
	cur := v
	for path != "" {
		var next *jvalue
		switch {
		case strings.HasPrefix(path, "[\""):
			q, err := strconv.QuotedPrefix(path[1:])
			if err != nil || !strings.HasPrefix(path[1+len(q):], "]") {
				return cur
			}
			key, _ := strconv.Unquote(q)
			next, path = cur.member(key), path[len(q)+2:]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return cur
			}
			i, err := strconv.Atoi(path[1:end])
			if err == nil && cur.kind == '[' && i >= 0 && i < len(cur.elems) {
				next = cur.elems[i]
			}
			path = path[end+1:]
		default:
			path = strings.TrimPrefix(path, ".")
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			next, path = cur.member(path[:end]), path[end:]
		}
		if next == nil {
			return cur
		}
		cur = next
	}
	return cur
}

func (v *jvalue) member(key string) *jvalue {
	for _, m := range v.members {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 200

type parseError struct {
	off int
	msg string
}

// jparser allocates in bulk, since a graph has many small values:
// strings are substrings of one copy of the file, values come from a
// slab, and members and elements collect on shared stacks until their
// object or array ends.
type jparser struct {
	data   []byte
	text   string // data, copied once; "" to copy each string read instead
	pos    int
	depth  int
	slab   []jvalue
	mstack []jmember
	estack []*jvalue
}

// sub is data[a:b] as a string: a piece of text when there is one.
func (p *jparser) sub(a, b int) string {
	if p.text == "" {
		return string(p.data[a:b])
	}
	return p.text[a:b]
}

func (p *jparser) alloc() *jvalue {
	if len(p.slab) == 0 {
		p.slab = make([]jvalue, 256)
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	return v
}

// parseJSON parses one JSON value followed only by white space. It is
// stricter than encoding/json in one way: duplicate object keys are an
// error, since the later one would silently win.
func parseJSON(data []byte) (*jvalue, *parseError) {
	p := &jparser{data: data, text: string(data)}
	if strings.HasPrefix(p.text, "\ufeff") {
		p.pos = 3 // a byte order mark, as some editors write
	}
	p.space()
	if p.pos == len(data) {
		return nil, &parseError{p.pos, "empty file: want a JSON graph object"}
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(data) {
		return nil, p.errorf("unexpected %s after the top-level value", p.describeAt())
	}
	return v, nil
}

func (p *jparser) errorf(format string, args ...any) *parseError {
	return &parseError{p.pos, fmt.Sprintf(format, args...)}
}

func (p *jparser) describeAt() string {
	if p.pos >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.data[p.pos:])
	return strconv.QuoteRune(r)
}

func (p *jparser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\r', '\n':
			p.pos++
		default:
			return
		}
	}
}

func (p *jparser) value() (*jvalue, *parseError) {
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of file: the JSON is truncated")
	}
	v := p.alloc()
	v.off = p.pos
	switch c := p.data[p.pos]; {
	case c == '{':
		return v, p.object(v)
	case c == '[':
		return v, p.array(v)
	case c == '"':
		s, err := p.string()
		v.kind, v.text = '"', s
		return v, err
	case c == '-' || c >= '0' && c <= '9':
		v.kind = '0'
		text, err := p.number()
		v.text = text
		return v, err
	case p.literal("true"):
		v.kind = 't'
	case p.literal("false"):
		v.kind = 'f'
	case p.literal("null"):
		v.kind = 'n'
	default:
		return nil, p.errorf("unexpected %s: want a JSON value", p.describeAt())
	}
	return v, nil
}

func (p *jparser) literal(word string) bool {
	if bytes.HasPrefix(p.data[p.pos:], []byte(word)) {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *jparser) enter() *parseError {
	p.depth++
	if p.depth > maxDepth {
		return p.errorf("nested more than %d levels deep", maxDepth)
	}
	return nil
}

func (p *jparser) object(v *jvalue) *parseError {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	v.kind = '{'
	var seen map[string]bool
	mark := len(p.mstack)
	defer func() { p.mstack = p.mstack[:mark] }()
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return nil
	}
	for {
		members := p.mstack[mark:]
		p.space()
		if p.pos >= len(p.data) {
			return p.errorf("unexpected end of file: the JSON is truncated")
		}
		if p.data[p.pos] != '"' {
			return p.errorf("unexpected %s: want a quoted field name", p.describeAt())
		}
		keyOff := p.pos
		key, err := p.string()
		if err != nil {
			return err
		}
		var dup bool
		if seen, dup = duplicateKey(seen, members, memberKey, key); dup {
			return &parseError{keyOff, fmt.Sprintf("duplicate field %s", Quote(key))}
		}
		p.space()
		if err := p.expect(':', "after a field name"); err != nil {
			return err
		}
		p.space()
		val, err := p.value()
		if err != nil {
			return err
		}
		p.mstack = append(p.mstack, jmember{key, val})
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			v.members = slices.Clone(p.mstack[mark:])
			return nil
		}
		if err := p.expect(',', "or '}' after a field"); err != nil {
			return err
		}
	}
}

// duplicateKey reports whether k is the key (keyOf) of one of an
// object's members read so far, prev, and records it. Objects of up to
// 32 fields (a node, a tensor) are scanned; longer ones (many symbols) get
// a map, returned to be passed again, to stay linear. keyOf is a plain
// function, not a closure: a short object allocates nothing.
func duplicateKey[T any](seen map[string]bool, prev []T, keyOf func(T) string, k string) (map[string]bool, bool) {
	if seen == nil && len(prev) >= 32 {
		seen = make(map[string]bool, 2*len(prev))
		for _, m := range prev {
			seen[keyOf(m)] = true
		}
	}
	if seen == nil {
		for _, m := range prev {
			if keyOf(m) == k {
				return nil, true
			}
		}
		return nil, false
	}
	if seen[k] {
		return seen, true
	}
	seen[k] = true
	return seen, false
}

func memberKey(m jmember) string { return m.key }

func (p *jparser) array(v *jvalue) *parseError {
	if err := p.enter(); err != nil {
		return err
	}
	defer func() { p.depth-- }()
	v.kind = '['
	mark := len(p.estack)
	defer func() { p.estack = p.estack[:mark] }()
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return nil
	}
	for {
		p.space()
		e, err := p.value()
		if err != nil {
			return err
		}
		p.estack = append(p.estack, e)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			v.elems = slices.Clone(p.estack[mark:])
			return nil
		}
		if err := p.expect(',', "or ']' after an array element"); err != nil {
			return err
		}
	}
}

func (p *jparser) expect(c byte, what string) *parseError {
	if p.pos >= len(p.data) {
		return p.errorf("unexpected end of file: the JSON is truncated")
	}
	if p.data[p.pos] != c {
		return p.errorf("unexpected %s: want %q %s", p.describeAt(), c, what)
	}
	p.pos++
	return nil
}

// string reads a quoted string at p.pos.
func (p *jparser) string() (string, *parseError) {
	start := p.pos
	p.pos++
	escaped := false
	for p.pos < len(p.data) {
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.sub(start, p.pos)
			if !escaped {
				if !utf8.ValidString(raw) {
					return "", &parseError{start, "string is not valid UTF-8"}
				}
				return raw[1 : len(raw)-1], nil
			}
			if !utf8.ValidString(raw) {
				return "", &parseError{start, "string is not valid UTF-8"}
			}
			return unescape(raw[1:len(raw)-1], start)
		case c == '\\':
			escaped = true
			p.pos += 2
		case c < 0x20:
			return "", p.errorf("control character %q in string", c)
		default:
			p.pos++
		}
	}
	p.pos = len(p.data)
	return "", p.errorf("unexpected end of file in a string: the JSON is truncated")
}

// number reads a JSON number and returns its literal text.
func (p *jparser) number() (string, *parseError) {
	start := p.pos
	d := p.data
	if p.pos < len(d) && d[p.pos] == '-' {
		p.pos++
	}
	digits := func() int {
		n := 0
		for p.pos < len(d) && d[p.pos] >= '0' && d[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	intStart := p.pos
	if n := digits(); n == 0 {
		return "", p.errorf("unexpected %s in a number", p.describeAt())
	} else if n > 1 && d[intStart] == '0' {
		return "", &parseError{intStart, "number has a leading zero"}
	}
	if p.pos < len(d) && d[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return "", p.errorf("unexpected %s in a number: want a digit after '.'", p.describeAt())
		}
	}
	if p.pos < len(d) && (d[p.pos] == 'e' || d[p.pos] == 'E') {
		p.pos++
		if p.pos < len(d) && (d[p.pos] == '+' || d[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return "", p.errorf("unexpected %s in a number: want a digit in the exponent", p.describeAt())
		}
	}
	return p.sub(start, p.pos), nil
}

// unescape reads the escapes of a string's body (its quotes off),
// which started at offset start: \" \\ \/ \b \f \n \r \t and \uXXXX,
// a surrogate pair as one character. A lone UTF-16 surrogate is an error,
// not U+FFFD as some readers make it: two different names would then look
// alike.
func unescape(body string, start int) (string, *parseError) {
	b := make([]byte, 0, len(body))
	hex4 := func(s string) (rune, bool) {
		if len(s) < 4 {
			return 0, false
		}
		var r rune
		for _, c := range []byte(s[:4]) {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			i++
			continue
		}
		if i+1 >= len(body) {
			return "", &parseError{start, "invalid escape in string"}
		}
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := hex4(body[i+2:])
			if !ok {
				return "", &parseError{start, "invalid escape in string"}
			}
			i += 6
			if utf16.IsSurrogate(r) {
				var r2 rune
				if i+1 < len(body) && body[i] == '\\' && body[i+1] == 'u' {
					r2, ok = hex4(body[i+2:])
				} else {
					ok = false
				}
				if r = utf16.DecodeRune(r, r2); !ok || r == utf8.RuneError {
					return "", &parseError{start, `string has a \u escape of a lone UTF-16 surrogate, which is not a character`}
				}
				i += 6
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", &parseError{start, "invalid escape in string"}
		}
		i += 2
	}
	return string(b), nil
}

func countFold(s, substr string) int {
	return strings.Count(strings.ToLower(s), strings.ToLower(substr))
}
