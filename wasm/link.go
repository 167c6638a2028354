//go:build js && wasm

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"memplan/examples"
	"memplan/ir"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
	"memplan/wasm/protocol/link"
)

// stateSettle is how many frames the state must hold before the page
// hears of it: a drag or a wheel spin writes the address once, at its end.
const stateSettle = 10

// stateOf is what a link to the view on screen holds; with the carried
// file only when withFile (packing it costs a compression).
func (a *app) stateOf(withFile bool) link.State {
	s := link.State{Options: a.opts, Step: -1}
	v := a.view
	if l := v.Layout; l != nil {
		if v.Selected >= 0 {
			s.Selected = l.Plan.Tensors[v.Selected].Name
		}
		if v.Reveal >= 0 {
			s.Step = v.Reveal
		}
		if vis, w := v.Cam.Visible(), v.Cam.World; !sameRect(vis, w) {
			s.View = &link.View{X0: vis.X0, Y0: vis.Y0, X1: vis.X1, Y1: vis.Y1}
		}
	}
	if a.hand != nil {
		s.Placing, s.Moves = true, a.handMoves()
	}
	if f := a.cur; f != nil {
		s.URL, s.Example = f.url, f.example
		if withFile && f.packed != nil {
			s.Name, s.Packed = f.name, f.packed
		}
	}
	return s
}

// sameRect reports whether the camera shows the whole world, give or take
// the rounding of a fit: such a link needs no view.
func sameRect(a, b viz.Rect) bool {
	eq := func(x, y, span float64) bool { return math.Abs(x-y) <= 1e-9*max(span, 1) }
	w, h := b.X1-b.X0, b.Y1-b.Y0
	return eq(a.X0, b.X0, w) && eq(a.X1, b.X1, w) && eq(a.Y0, b.Y0, h) && eq(a.Y1, b.Y1, h)
}

// startPack compresses a file for links, once, with the browser's
// CompressionStream (viewer.js's memplanPack: native code, where a Go
// compressor would weigh on the first screen), stopping once it is over
// what a link carries. Until it is done no state is posted.
func (f *file) startPack(a *app) {
	if f.packing || f.packDone || f.url != "" || f.example != "" {
		return
	}
	f.packing = true
	go func() {
		res := await(js.Global().Get("memplanPack").Invoke(f.data, link.MaxPackedGraph))
		a.queue(func() {
			f.packing, f.packDone = false, true
			if u := res.Get("packed"); u.Type() == js.TypeObject && u.Get("byteLength").Int() <= link.MaxPackedGraph {
				f.packed = make([]byte, u.Get("byteLength").Int())
				js.CopyBytesToGo(f.packed, u)
			} else {
				f.packErr = fmt.Errorf("the file is over %d KiB compressed, too large to travel in a link", link.MaxPackedGraph>>10)
			}
		})
	}()
}

// watchState runs every frame: once the state has held still for
// stateSettle frames and differs from what the page last heard, it posts
// a "state" event with the fragment to write. A new file or new options
// make a new history entry (push); the camera, the selection and the
// replay step replace the current one.
func (a *app) watchState() {
	if a.cur == nil || a.view.Layout == nil || a.share.opening {
		return
	}
	if a.cur.startPack(a); a.cur.packing {
		return // the link will carry the file: wait for it
	}
	l := &a.share
	key := link.EncodeHash(a.stateOf(false))
	if key != l.seenKey || a.cur != l.seenFile {
		l.seenKey, l.seenFile, l.stable = key, a.cur, 0
		return
	}
	if l.stable++; l.stable != stateSettle || (key == l.postedKey && a.cur == l.postedFile) {
		return
	}
	opts := optionsKey(a.opts)
	push := l.postedFile != nil && (a.cur != l.postedFile || opts != l.postedOpts)
	a.postState(push, nil)
}

// optionsKey is the options as a link spells them, to compare.
func optionsKey(o protocol.Options) string {
	return link.EncodeHash(link.State{Options: o, Step: -1})
}

// postState tells the page the state's fragment; restored, when a link
// was just opened, carries what the page shows in its own controls.
func (a *app) postState(push bool, restored *link.State) {
	s := a.stateOf(true)
	hash := link.EncodeHash(s)
	l := &a.share
	l.postedKey, l.postedFile, l.postedOpts, l.postedHash = link.EncodeHash(a.stateOf(false)), a.cur, optionsKey(a.opts), hash
	l.seenKey, l.seenFile, l.stable = l.postedKey, a.cur, stateSettle
	ev := events.State{Hash: hash, Push: push, File: a.cur.name}
	if f := a.cur; f.packErr != nil {
		ev.Note = f.name + ": " + f.packErr.Error() + "; the link keeps the options and the view, not the file"
	}
	if restored != nil {
		ev.Restored = &events.RestoredState{Options: restored.Options, Step: restored.Step}
	}
	a.post(ev)
}

// openLocation opens the state in a page's address (on load, and on
// back/forward): the file it names, planned with its options, then its
// camera, selection and replay step. A link that does not read is an
// error naming the parameter, and nothing of it is applied. A file at an
// address is fetched as from says (fetch).
func (a *app) openLocation(search, hash string, from sender) {
	hash = strings.TrimPrefix(hash, "#")
	if hash != "" && hash == a.share.postedHash {
		return // the page wrote it from our own event
	}
	a.share.opening = true
	st, err := link.DecodeLocation(search, hash)
	if err != nil {
		a.share.opening = false
		a.postError(err)
		return
	}
	if hash == "" && st.URL == "" {
		a.share.opening = false
		return // a plain address: the view on screen stays
	}
	a.mu.Lock()
	cur := a.cur
	a.mu.Unlock()
	var f *file
	switch {
	case st.URL != "":
		if cur != nil && cur.url == st.URL {
			f = cur
		} else {
			a.fetch(&st, from)
			return
		}
	case st.Example != "":
		if cur != nil && cur.example == st.Example {
			f = cur
		} else {
			b, err := examples.FS.ReadFile(st.Example)
			if err != nil {
				a.share.opening = false
				a.postError(&link.Error{Param: "ex", Msg: fmt.Sprintf("no built-in example %s", ir.Quote(st.Example))})
				return
			}
			f = &file{name: st.Example, data: uint8Array(b), example: st.Example}
		}
	case st.Packed != nil:
		if cur != nil && cur.packed != nil && bytes.Equal(cur.packed, st.Packed) {
			f = cur
		}
		if f == nil {
			f = &file{name: st.Name, data: uint8Array(st.Graph), packed: st.Packed, packDone: true}
		}
	default:
		f = cur // the link names no file: its options apply to the one on screen
	}
	if f == nil {
		a.share.opening = false
		return
	}
	if f == cur && optionsKey(st.Options) == optionsKey(a.opts) && a.view.Layout != nil {
		a.restoreView(&st)
		return
	}
	a.request(f, st.Options, f == cur, &st)
}

// restoreView applies a link's camera, selection and replay step to the
// plan on screen, and tells the page the state it now shows.
func (a *app) restoreView(st *link.State) {
	if a.view.Layout == nil {
		return
	}
	a.restoreHand(st) // first: it lays the placement out
	v := a.view
	l := v.Layout
	if st.View != nil {
		v.Cam.Show(viz.Rect{X0: st.View.X0, Y0: st.View.Y0, X1: st.View.X1, Y1: st.View.Y1})
	} else {
		v.Cam.Fit()
	}
	v.Dirty = true
	a.camSeen = v.Cam.Visible() // the link's camera, not a move to report
	v.Select(l.Index(st.Selected))
	v.SetReveal(st.Step)
	a.postSelect(v.Selected)
	a.share.opening = false
	a.postState(false, st)
}

// fetch gets the file at a link's address through the page
// (viewer.js's memplanFetch), then plans it. It runs on its own
// goroutine: a JavaScript promise must not be awaited inside a callback.
//
// A page at another origin than the viewer's may ask for an address too
// (its frame's src, a location message), but it gets nothing it could
// not read itself: the fetch then sends no credentials, and a response
// that does not allow that page's origin (Access-Control-Allow-Origin)
// is refused, its bytes unread. A file is refused by its size before it
// is read, by Content-Length or by counting as it streams.
func (a *app) fetch(st *link.State, from sender) {
	name := nameOfURL(st.URL)
	a.post(events.Busy{File: name, Message: "fetching " + st.URL})
	most := planner.MaxInputBytes(planner.BrowserMemoryLimit)
	go func() {
		res := await(js.Global().Get("memplanFetch").Invoke(st.URL, map[string]any{"limit": float64(most), "for": from.foreign}))
		a.queue(func() {
			var err error
			switch {
			case res.Get("size").Type() == js.TypeNumber:
				err = planner.CheckInput(name, int64(res.Get("size").Float()), planner.BrowserMemoryLimit)
			case res.Get("over").Truthy():
				err = planner.StreamTooLarge(name, planner.BrowserMemoryLimit)
			case res.Get("error").Type() == js.TypeString:
				err = &ir.Error{File: st.URL, Msg: "could not fetch it: " + res.Get("error").String()}
			}
			if err != nil {
				a.share.opening = false
				a.postError(err)
				return
			}
			a.request(&file{name: name, data: res.Get("data"), url: st.URL}, st.Options, false, st)
		})
	}()
}

// nameOfURL is the file name an address ends in, whose extension says the
// file's format.
func nameOfURL(s string) string {
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	if b := path.Base(s); b != "." && b != "/" && !strings.HasSuffix(s, "/") {
		return b
	}
	return "file"
}

// export makes a picture or a file of the plan on screen and hands it to
// viewer.js (memplanExported), which posts it as an "export" event with a
// Blob. Pictures are drawn here, at the current view: png at the canvas's
// size, png2x drawn again at twice it (not scaled up). The SVG, the plan
// record and the buffer CSV come from a planner worker, which links their
// encoders so the viewer need not.
func (a *app) export(what string) {
	v := a.view
	if v.Layout == nil || a.cur == nil {
		a.postError(errors.New("export: no plan is shown yet"))
		return
	}
	base := strings.TrimSuffix(a.cur.name, path.Ext(a.cur.name))
	exported := js.Global().Get("memplanExported")
	switch what {
	case "png", "png2x":
		k, name := 1.0, base+".png"
		if what == "png2x" {
			k, name = 2, base+"@2x.png"
		}
		w, h, pix := a.render(k)
		u := js.Global().Get("Uint8Array").New(len(pix))
		js.CopyBytesToJS(u, pix)
		exported.Invoke(map[string]any{"what": what, "name": name, "mime": "image/png", "width": w, "height": h, "rgba": u})
	case "svg", "plan", "csv":
		plan := a.planBytes
		if h := a.hand; h != nil {
			// The placement by hand, which the worker proves again: only
			// a plan leaves as a file.
			if !h.Verdict.Valid {
				a.postError(errors.New("export: the placement is not a plan yet. " + h.Verdict.Text))
				return
			}
			b, err := h.Plan.AppendBinary(nil)
			if err != nil {
				a.postError(err)
				return
			}
			plan = uint8Array(b)
		}
		req := map[string]any{"type": "export", "what": what, "name": base, "plan": plan,
			"theme": v.Theme.Name, "budget": float64(v.Layout.Budget)}
		go func() {
			res := await(planners().Call("ask", 0, req))
			if res.Get("type").String() != "exported" {
				msg := "export: the planner gave no answer"
				if e := res.Get("error"); e.Type() == js.TypeObject && e.Get("message").Type() == js.TypeString {
					msg = "export: " + e.Get("message").String()
				}
				a.queue(func() { a.postError(errors.New(msg)) })
				return
			}
			exported.Invoke(map[string]any{"what": what, "name": res.Get("name"), "mime": res.Get("mime"), "data": res.Get("data")})
		}()
	default:
		a.postError(fmt.Errorf("export: unknown kind %s (want png, png2x, svg, plan or csv)", ir.Quote(what)))
	}
}

// render draws the view into an image k times the canvas's size, at k
// times its resolution (labels and lines too, not scaled up), and returns
// its pixels. The canvas, its camera and its size are as they were after.
func (a *app) render(k float64) (w, h int, pix []byte) {
	v := a.view
	cam, scale, ow, oh := v.Cam, v.Scale, v.W, v.H
	v.SetScale(scale * k)
	v.Resize(int(math.Round(float64(ow)*k)), int(math.Round(float64(oh)*k)))
	// The resizing on the way clamped the camera to a passing size: show
	// exactly what the canvas shows.
	v.Cam.Show(cam.Visible())
	img := ebiten.NewImage(v.W, v.H)
	defer img.Deallocate()
	a.game.R.Draw(img, v)
	w, h = v.W, v.H
	pix = make([]byte, 4*w*h)
	img.ReadPixels(pix)
	v.SetScale(scale)
	v.Resize(ow, oh)
	v.Cam = cam
	v.Dirty = true
	return w, h, pix
}
