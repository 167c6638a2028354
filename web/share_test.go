//go:build !js

package web

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"encoding/json"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"memplan/planner"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/link"
)

// errorShown waits for the page's error banner and returns its title and
// message.
func (p *page) errorShown(what string) (string, string) {
	p.t.Helper()
	p.wait(what, `!document.getElementById("error").hidden`)
	return p.text("#error-title"), p.text("#error-msg")
}

// pointerAway moves the mouse off the plot and waits until nothing is
// hovered, so a picture shows the view and not the pointer.
func (p *page) pointerAway() {
	p.t.Helper()
	p.run("pointer away", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 2, 2))
	p.settle()
	eval[bool](p, frame+`.memplan.send({type: "leave"}) || true`)
	p.wait("no hover", frame+`.memplan.state().hover === null && document.getElementById("tooltip").hidden`)
	p.settle()
}

// ?url= fetches and plans the file; a file that is not there and a link
// that does not read are errors in the page that say which.
func TestBrowserOpenByURL(t *testing.T) {
	s := open(t, "/index.html?url=models/mlp.json")
	p := s.page
	p.wait("mlp.json from its URL", viewerShows("mlp.json"))
	p.shows("mlp.json", p.largest())
	// Go read the address: its fragment names the file, the query is gone.
	p.wait("the address", `location.hash === "#url=models/mlp.json" && location.search === ""`)

	for _, c := range []struct{ path, title, says string }{
		{"/index.html?url=models/missing.json", "Could not plan models/missing.json", "models/missing.json: could not fetch it: HTTP 404"},
		{"/viewer.html#url=http://127.0.0.1:1/x.json", "", "http://127.0.0.1:1/x.json: could not fetch it: network failure"},
		{"/index.html#align=3&ex=mlp.json", "Could not open the link", "the link's align parameter: want a power of two up to 1 GiB, got 3"},
		{"/index.html#g=not*base64", "Could not open the link", "the link's g parameter: not base64url"},
		{"/index.html#strategy=fastest", "Could not open the link", "the link's strategy parameter: unknown strategy"},
	} {
		p.run("open "+c.path, chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+c.path))
		if c.title == "" { // the viewer alone says it in its own error box
			p.wait("the viewer's error", fmt.Sprintf(`document.getElementById("error").classList.contains("open") &&
				document.getElementById("error-msg").textContent.includes(%q)`, c.says))
			continue
		}
		title, msg := p.errorShown(c.path)
		if title != c.title || !strings.Contains(msg, c.says) {
			p.fail("%s: error %q: %q, want %q: %q", c.path, title, msg, c.title, c.says)
		}
		// Nothing of the link applied: the built-in example stays, planned
		// as it was, and the address is left as it came.
		p.wait("the example on screen", viewerShows("transformer.json"))
		if a := eval[float64](p, frame+`.memplan.state().arena_size`); a != eval[float64](p, `window.memplanApp.summary.arena_size`) {
			p.fail("%s: the viewer and the page disagree on the arena", c.path)
		}
	}
}

// A link holds the options, the camera, the selection and the replay
// step: reloading it draws the same picture and the same panels, and Back
// undoes a change of options.
func TestBrowserStateLink(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.wait("the address", `location.hash === "#ex=transformer.json"`)
	defaultArena := eval[float64](p, `window.memplanApp.summary.arena_size`)

	// Options: a history entry of their own.
	p.setField("alignment", "4096")
	p.wait("the re-plan", `window.memplanApp.summary.alignment === 4096`)
	p.wait("the address", `location.hash.includes("align=4096")`)
	// Back: the plan of the default options; Forward: 4096 again.
	eval[bool](p, `(history.back(), true)`)
	p.wait("Back to the default options", fmt.Sprintf(`window.memplanApp.summary.arena_size === %v && location.hash === "#ex=transformer.json" &&
		window.memplanApp.summary.alignment_chosen === 0 && document.querySelector("#options [name=alignment]").value === ""`, defaultArena))
	eval[bool](p, `(history.forward(), true)`)
	p.wait("Forward to 4096", `window.memplanApp.summary.alignment === 4096 && document.querySelector("#options [name=alignment]").value === "4096"`)
	// The camera, the selection and the replay step.
	name := p.largest()
	x, y, _ := p.point(name)
	p.click(x, y)
	p.wait("the selection", fmt.Sprintf(`%s.memplan.state().selected === %q`, frame, name))
	p.run("wheel", chromedp.MouseEvent(input.DispatchMouseEventTypeMouseWheel, x, y, func(e *input.DispatchMouseEventParams) { e.DeltaX, e.DeltaY = 0.001, -240 }))
	eval[bool](p, `(() => { const r = document.getElementById("replay-step"); r.value = String(Math.floor(r.max * 2 / 3));
		r.dispatchEvent(new Event("input", {bubbles: true})); return true; })()`)
	p.pointerAway()
	p.wait("the address", `location.hash.includes("sel=") && location.hash.includes("view=") && location.hash.includes("step=")`)
	link := eval[string](p, `location.href`)
	before := p.capture()
	p.screenshot("state-link-before")
	panels := eval[string](p, `["#summary-list", "#details-list", "#replay-note"].map(s => document.querySelector(s).textContent).join("|")`)
	box := eval[[]float64](p, `(() => { const r = document.getElementById("viewer").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`)

	p.run("reload", chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	p.wait("the link restored", fmt.Sprintf(`(() => { const m = %s.memplan; if (!m) return false; const s = m.state();
		return s.file === "transformer.json" && s.selected === %q && !s.dirty && window.memplanApp.summary &&
			window.memplanApp.summary.alignment === 4096 && document.querySelector("#details-list dd") &&
			location.href === %q; })()`, frame, name, link))
	p.pointerAway()
	if got := eval[string](p, `["#summary-list", "#details-list", "#replay-note"].map(s => document.querySelector(s).textContent).join("|")`); got != panels {
		p.fail("the panels after reload:\n%s\nwant\n%s", got, panels)
	}
	if v := eval[string](p, `document.querySelector("#options [name=alignment]").value`); v != "4096" {
		p.fail("the alignment field shows %q after reload", v)
	}
	after := p.capture()
	diff := 0
	for yy := int(box[1]); yy < int(box[3]); yy++ {
		for xx := int(box[0]); xx < int(box[2]); xx++ {
			if hex(before, xx, yy) != hex(after, xx, yy) {
				diff++
			}
		}
	}
	if diff > 0 {
		p.screenshot("state-link-after")
		p.fail("%d pixels of the plot differ after reloading the link", diff)
	}
	// The device travels in the link too: its profile and binding come
	// back in the form and make the plan.
	p.run("open a WebGPU link", chromedp.Navigate("about:blank"), chromedp.Navigate(s.url+"/index.html#f32=1&webgpu=intel&binding=tensor&ex=transformer.json"))
	p.wait("the WebGPU link restored", `(() => { const f = document.getElementById("options").elements, s = window.memplanApp && window.memplanApp.summary;
		return s && s.binding === "tensor" && s.limits && s.limits.profile === "intel" && s.fit &&
			f.webgpu.value === "intel" && f.binding.value === "tensor" && f.f32_uniform.checked; })()`)

	// Embedded elsewhere, the viewer links to the full app with its state.
	p.run("open the host", chromedp.Navigate(s.url+"/host.html"))
	p.wait("the open-in-memplan link", `(() => { const d = document.getElementById("viewer").contentDocument;
		const a = d && d.getElementById("open-app"); return a && !a.hidden && a.href.endsWith("/index.html#ex=transformer.json"); })()`)
}

// A small graph travels inside the link: Share gives a link that opens
// it with no file on the server, and a link built here opens as well.
func TestBrowserGraphInLink(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.drop("dropped.json", dropped)
	p.wait("the dropped file", viewerShows("dropped.json"))
	p.wait("the address", `location.hash.includes("g=")`)
	p.press("#share")
	p.wait("the link", `document.getElementById("share-link").value.includes("#")`)
	shared := eval[string](p, `document.getElementById("share-link").value`)
	if !strings.Contains(shared, "name=dropped.json") || !strings.Contains(shared, "g=") {
		p.fail("the shared link %q does not carry the file", shared)
	}
	p.run("open the shared link", chromedp.Navigate("about:blank"), chromedp.Navigate(shared))
	p.wait("the dropped file from the link", viewerShows("dropped.json"))
	p.shows("dropped.json", p.largest())

	// A link made by Go's own encoder, as a script or a docs build would.
	var packed bytes.Buffer
	w, _ := flate.NewWriter(&packed, flate.BestCompression)
	w.Write(s.testdata("examples/mlp.json"))
	w.Close()
	hash := link.EncodeHash(link.State{Name: "carried-mlp.json", Packed: packed.Bytes(), Options: protocol.Options{Options: planner.DefaultOptions()}, Step: -1})
	p.run("open a built link", chromedp.Navigate(s.url+"/index.html#"+hash))
	p.wait("the carried file", viewerShows("carried-mlp.json"))
	sent, _ := s.served.Sent()
	for path := range sent {
		if strings.Contains(path, "mlp") {
			p.fail("the carried file was fetched as %s", path)
		}
	}
}

// exported is what the page finds in one export, opened as a user's
// program would open it.
type exported struct {
	What, Name, Mime string
	// PNG: its size, the canvas's, the buffers whose colour was checked
	// and those that differed.
	Width, Height, CW, CH int
	Checked               int
	Bad                   []string
	Data                  string // the image, base64, when a colour was wrong
	// SVG: whether it failed to parse, and its buffers' names.
	ParseError bool
	Rects      []string
	// Plan record.
	Format  string
	Arena   float64
	Tensors int
	// CSV.
	Lines []string
}

// openExport opens export k of the page (memplanApp.exports) in the
// browser: an image is decoded and its pixels read where the viewer draws
// buffers, an SVG parsed, a record read as JSON, a CSV split in lines.
const openExport = `(async (k, names) => {
	const e = window.memplanApp.exports[k], v = ` + frame + `, m = v.memplan;
	const out = {What: e.what, Name: e.name, Mime: e.mime};
	if (e.mime === "image/png") {
		const img = await createImageBitmap(e.blob);
		const c = new OffscreenCanvas(img.width, img.height), g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const canvas = v.document.querySelector("canvas");
		Object.assign(out, {Width: img.width, Height: img.height, CW: canvas.width, CH: canvas.height, Bad: [], Checked: 0});
		const s = img.width / v.innerWidth; // CSS pixels to the image's
		for (const name of names) {
			const r = m.rectOf(name);
			if (!r || r.w < 6 || r.h < 6) continue;
			const d = g.getImageData(Math.floor((r.x + r.w / 3) * s), Math.floor((r.y + r.h * 2 / 3) * s), 1, 1).data;
			const hex = "#" + [d[0], d[1], d[2]].map(x => x.toString(16).padStart(2, "0")).join("");
			if (hex !== r.color) out.Bad.push(name + " is " + hex + ", want " + r.color);
			out.Checked++;
		}
		if (out.Bad.length) out.Data = await new Promise(res => { const f = new FileReader(); f.onload = () => res(f.result.split(",")[1]); f.readAsDataURL(e.blob); });
		return out;
	}
	const text = await e.blob.text();
	if (e.mime === "image/svg+xml") {
		const doc = new DOMParser().parseFromString(text, "image/svg+xml");
		out.ParseError = !!doc.querySelector("parsererror");
		out.Rects = Array.from(doc.querySelectorAll("rect.buffer")).map(r => r.getAttribute("data-name"));
	} else if (e.mime === "application/json") {
		const rec = JSON.parse(text);
		Object.assign(out, {Format: rec.format, Arena: rec.arena_size, Tensors: rec.tensors.length});
	} else {
		out.Lines = text.trim().split("\n");
	}
	return out;
})`

// Each export from the app's menu, reached by keyboard, checked as a user
// would open it: the PNGs decode to the canvas's size (and twice it,
// drawn again rather than scaled) with the plan's colours where its
// buffers are, the SVG parses with one rectangle per buffer, the plan
// record is the plan on screen and the CSV lists its buffers.
func TestBrowserExport(t *testing.T) {
	s := open(t, "/index.html")
	p := s.page
	p.wait("the default example", viewerShows("transformer.json"))
	p.pointerAway()
	names := eval[[]string](p, `window.memplanApp.tensors.filter(t => t.offset >= 0 && !t.root && !t.skipped).map(t => t.name)`)
	if len(names) == 0 {
		p.fail("no placed tensors")
	}
	// Colours are checked on buffers no view outlines.
	plain := eval[[]string](p, `(() => { const ts = window.memplanApp.tensors, viewed = new Set(ts.map(t => t.root));
		return ts.filter(t => t.offset >= 0 && !t.root && !t.skipped && !viewed.has(t.name)).map(t => t.name); })()`)
	arena := eval[float64](p, `window.memplanApp.summary.arena_size`)
	tensors := eval[int](p, `window.memplanApp.tensors.length`)
	for i, what := range []string{"png", "png2x", "svg", "plan", "csv"} {
		p.press("#export")
		p.wait("the menu", `!document.getElementById("export-menu").hidden && document.activeElement.dataset.what === "png"`)
		for range i {
			p.run("ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
		}
		p.wait("the item "+what, fmt.Sprintf(`document.activeElement.dataset.what === %q`, what))
		p.run("Enter", chromedp.KeyEvent(kb.Enter))
		p.wait("the "+what+" export", fmt.Sprintf(`window.memplanApp.exports.length === %d`, i+1))
		check, _ := json.Marshal(plain)
		e, err := chromedp.Run(p.ctx, chromedp.Evaluate[exported](fmt.Sprintf(`%s(%d, %s)`, openExport, i, check),
			chromedp.EvalAwaitPromise))
		if err != nil {
			p.fail("opening the %s export: %v", what, err)
		}
		if e.What != what {
			p.fail("export %d is %q, want %q", i, e.What, what)
		}
		switch what {
		case "png", "png2x":
			k := map[string]int{"png": 1, "png2x": 2}[what]
			if e.Data != "" {
				b, _ := base64.StdEncoding.DecodeString(e.Data)
				f := filepath.Join(artifactsDir(), e.Name)
				os.WriteFile(f, b, 0o644)
				t.Logf("the export is in %s", f)
			}
			if e.Width != k*e.CW || e.Height != k*e.CH || e.Checked < 5 || len(e.Bad) > 0 {
				p.fail("%s: %d×%d for a %d×%d canvas; %d buffers checked, wrong: %v", e.Name, e.Width, e.Height, e.CW, e.CH, e.Checked, e.Bad)
			}
		case "svg":
			if e.ParseError || len(e.Rects) != len(names) {
				p.fail("%s: parse error %v, %d buffer rectangles for %d buffers", e.Name, e.ParseError, len(e.Rects), len(names))
			}
		case "plan":
			if e.Format != planner.PlanFormat || e.Arena != arena || e.Tensors != tensors {
				p.fail("%s: %s, arena %v, %d tensors; want arena %v, %d tensors", e.Name, e.Format, e.Arena, e.Tensors, arena, tensors)
			}
		case "csv":
			if len(e.Lines) != len(names)+1 || e.Lines[0] != "id,lower,upper,size,offset" {
				p.fail("%s: %d lines for %d buffers, header %q", e.Name, len(e.Lines), len(names), e.Lines[0])
			}
		}
		t.Logf("%s: %s %s", what, e.Name, e.Mime)
	}
}
