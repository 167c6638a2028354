//go:build !js

package web

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The app's layout, keyboard and colour scheme, in a real browser at the
// sizes a newcomer is likely to use: a laptop, a small window, a phone.

// openAt opens the app at a viewport of w×h CSS pixels and waits for the
// default example.
func openAt(t *testing.T, w, h int64) *session {
	t.Helper()
	s := open(t, "/index.html")
	s.resize(w, h)
	s.wait("the default example", viewerShows("transformer.json"))
	s.settle()
	return s
}

func (p *page) resize(w, h int64) {
	p.t.Helper()
	p.run(fmt.Sprintf("resize to %d×%d", w, h), chromedp.EmulateViewport(w, h))
	p.wait("the new size", fmt.Sprintf(`window.innerWidth === %d && window.innerHeight === %d`, w, h))
}

// scheme emulates prefers-color-scheme: "light" or "dark".
func (p *page) scheme(name string) {
	p.t.Helper()
	p.run("prefers-color-scheme: "+name, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: name}}})
		return err
	}))
	p.wait("the scheme "+name, fmt.Sprintf(`matchMedia("(prefers-color-scheme: %s)").matches`, name))
}

// waitViewerScheme waits until the viewer page inside the iframe has
// the background of the scheme ("light" or "dark"): it has taken the
// theme, and its canvas has been told.
func (p *page) waitViewerScheme(scheme string) {
	p.t.Helper()
	p.wait("the viewer in the "+scheme+" scheme", fmt.Sprintf(`(() => { const w = %s;
		const m = w.getComputedStyle(w.document.body).backgroundColor.match(/[\d.]+/g).map(Number);
		return ((0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255 > 0.8) === %v; })()`, frame, scheme == "light"))
}

// inView is JS that says whether the element sel is wholly inside the
// viewport, has a size, and is not clipped away by a scrolled panel or
// covered (what is at its centre is it).
func inView(sel string) string {
	return fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return false;
		const r = e.getBoundingClientRect();
		if (!(r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 &&
			r.bottom <= window.innerHeight && r.right <= window.innerWidth)) return false;
		for (const [x, y] of [[r.left + 2, r.top + 2], [r.left + r.width / 2, r.top + r.height / 2], [r.left + 2, r.bottom - 2]]) {
			const at = document.elementFromPoint(x, y);
			if (!at || !(e.contains(at) || at.contains(e))) return false;
		}
		return true; })()`, sel)
}

// largest is the largest tensor of the plan on screen that is drawn as a
// plain rectangle (no view outlines it, it is no view).
func (p *page) largest() string {
	p.t.Helper()
	return eval[string](p, `(() => { const ts = window.memplanApp.tensors;
		const viewed = new Set(ts.filter(t => t.root).map(t => t.root));
		let best = "", area = 0;
		for (const t of ts) {
			if (t.offset < 0 || t.root || viewed.has(t.name)) continue;
			const r = `+frame+`.memplan.rectOf(t.name);
			if (r && r.w * r.h > area) { area = r.w * r.h; best = t.name; }
		}
		return best; })()`)
}

// Clicking a tensor on the canvas shows it in the Selection panel, and the
// panel is on screen without scrolling at the sizes a desktop has.
func TestLayoutSelectionInView(t *testing.T) {
	for _, c := range []struct{ w, h int64 }{{1280, 800}, {800, 600}} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			s := openAt(t, c.w, c.h)
			p := s.page
			name := p.largest()
			x, y, _ := p.point(name)
			p.click(x, y)
			p.wait("the selection of "+name, fmt.Sprintf(`%s.memplan.state().selected === %q &&
				(document.querySelector("#details-list dd") || {}).textContent === %q`, frame, name, name))
			// The heading, what the tensor is, and how many shared its bytes.
			p.wait("the partners", `!document.getElementById("partners-title").hidden`)
			if !eval[bool](p, inView("#details h2")) || !eval[bool](p, inView("#details-list")) || !eval[bool](p, inView("#partners-title")) {
				r := eval[map[string]float64](p, `(() => { const r = document.querySelector("#details h2").getBoundingClientRect();
					return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; })()`)
				p.fail("the Selection panel showing %s is not on screen at %d×%d: its heading is at %v", name, c.w, c.h, r)
			}
			if got := eval[float64](p, `window.scrollY`); got != 0 {
				p.fail("the page scrolled to %v", got)
			}
		})
	}
}

// At every size the page fits its width, the plot gets a useful share of
// the screen, and nothing in the header is cut off.
func TestLayoutSizes(t *testing.T) {
	for _, c := range []struct {
		w, h int64
		// The plot's least size, as fractions of the viewport. A phone
		// stacks everything: the plot takes the whole width and about half
		// the height (at 390×844, 390×380 or more); the panels follow below.
		minW, minH float64
		oneRow     bool // the header is one row, whatever the file's name
	}{
		{1280, 800, 0.6, 0.6, true},
		{800, 600, 0.6, 0.55, true},
		{390, 844, 0.9, 0.45, false},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			s := openAt(t, c.w, c.h)
			p := s.page
			const long = "a_model_with_a_rather_long_name.static.json"
			p.drop(long, dropped)
			p.wait("the dropped file", viewerShows(long))
			p.settle()
			if h := eval[float64](p, `document.querySelector("header").getBoundingClientRect().height`); c.oneRow && h > 50 {
				p.fail("the header is %.0f px tall: it wrapped", h)
			}
			type box struct{ W, H, VW, VH, ScrollW float64 }
			b := eval[box](p, `(() => { const r = document.getElementById("viewer").getBoundingClientRect();
				return {W: r.width, H: r.height, VW: window.innerWidth, VH: window.innerHeight,
					ScrollW: document.documentElement.scrollWidth}; })()`)
			if b.W < c.minW*b.VW || b.H < c.minH*b.VH {
				p.fail("the plot is %.0f×%.0f in a %.0f×%.0f viewport, want at least %.0f×%.0f",
					b.W, b.H, b.VW, b.VH, c.minW*b.VW, c.minH*b.VH)
			}
			if b.ScrollW > b.VW {
				p.fail("the page is %.0f px wide in a %.0f px viewport", b.ScrollW, b.VW)
			}
			// The canvas fills the iframe: ebiten sized it.
			if cw := eval[float64](p, frame+`.innerWidth`); math.Abs(cw-b.W) > 1 {
				p.fail("the viewer page is %.0f px wide in a %.0f px iframe", cw, b.W)
			}
			// Every header control is wholly visible.
			if cut := eval[[]string](p, `Array.from(document.querySelectorAll("header button, header input:not([hidden]), header select"))
				.filter(e => { const r = e.getBoundingClientRect(); return r.left < 0 || r.right > window.innerWidth || r.width === 0; })
				.map(e => e.id || e.tagName)`); len(cut) > 0 {
				p.fail("header controls cut off: %v", cut)
			}
		})
	}
}

// focusName describes the focused element: the number TestLayoutKeyboard
// tagged it with ("#7 button#open"), then its id, name or column; for the
// viewer's iframe, also the element focused inside it.
const focusName = `(() => {
	const name = (e) => e === document.body || !e ? "body" :
		e.dataset.tabTest ? "#" + e.dataset.tabTest + " " + e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") +
			(e.classList.contains("skip") ? ".skip" : "") +
			(e.name ? "[" + e.name + "]" : "") + (e.dataset.name ? "[" + e.dataset.name + "]" : "") +
			(e.closest("th") ? "[" + e.closest("th").dataset.key + "]" : "") :
		e.tagName.toLowerCase() + "(untagged)";
	const a = document.activeElement;
	if (a && a.id === "viewer") {
		const inner = a.contentDocument.activeElement;
		return name(a) + " > " + (inner ? inner.tagName.toLowerCase() : "nothing");
	}
	return name(a);
})()`

// ringed says whether the focused element shows a focus ring: an outline
// or a box shadow. For the viewer, the canvas inside it counts too.
const ringed = `(() => {
	const ring = (e) => { const s = getComputedStyle(e);
		return (s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 1) || s.boxShadow !== "none"; };
	const a = document.activeElement;
	if (a && a.id === "viewer") {
		const inner = a.contentDocument.activeElement;
		return ring(a) || (!!inner && inner !== a.contentDocument.body && ring(inner));
	}
	return !!a && a !== document.body && ring(a);
})()`

// Keyboard only: Tab visits every control, into the canvas and out again,
// each with a visible ring; table rows select with Enter, headers sort
// with Enter and Space, and the canvas takes its keys once tabbed into.
func TestLayoutKeyboard(t *testing.T) {
	s := openAt(t, 1280, 800)
	p := s.page
	p.wait("the replay panel", `!document.getElementById("replay").hidden`)
	// Every element the page lets Tab stop on, tagged so focusName knows it.
	controls := eval[[]string](p, `(() => {
		const els = Array.from(document.querySelectorAll("*")).filter(e => e.tabIndex >= 0 && !e.disabled &&
			e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden");
		els.forEach((e, i) => { e.dataset.tabTest = String(i); });
		document.activeElement && document.activeElement.blur();
		return els.map((e, i) => "#" + i + " " + e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")); })()`)
	for _, want := range []string{"iframe#viewer", "button#replay-play", "input#replay-step", "select#examples"} {
		found := false
		for _, c := range controls {
			found = found || strings.HasSuffix(c, want)
		}
		if !found {
			p.fail("%s is not among the focusable controls: %v", want, controls)
		}
	}
	// Table headers and a row are among them.
	for _, sel := range []string{"#table th[data-key=size][data-tab-test], #table th[data-key=size] [data-tab-test]",
		"#table tbody tr[data-tab-test]"} {
		if !eval[bool](p, fmt.Sprintf(`!!document.querySelector(%q)`, sel)) {
			p.fail("nothing focusable by keyboard matches %s", sel)
		}
	}

	// Tab from the top of the page round to where it started.
	var seen []string
	visited := map[string]bool{}
	intoCanvas, outOfCanvas := -1, -1
	for i := 0; i < 2*len(controls)+10 && (len(visited) < len(controls) || outOfCanvas < 0); i++ {
		p.run("Tab", chromedp.KeyEvent(kb.Tab))
		f := eval[string](p, focusName)
		seen = append(seen, f)
		if f == "body" {
			continue // past the last control, on the browser's side
		}
		if !eval[bool](p, ringed) {
			p.fail("%s has the focus but no visible focus ring (after %v)", f, seen)
		}
		if strings.Contains(f, "iframe#viewer") {
			if !strings.HasSuffix(f, " > canvas") {
				p.fail("Tab into the viewer focused %q, want its canvas", f)
			}
			if intoCanvas < 0 {
				intoCanvas = i
			}
		} else if intoCanvas >= 0 && outOfCanvas < 0 {
			outOfCanvas = i
		}
		if strings.HasPrefix(f, "#") {
			visited[strings.SplitN(f, " ", 2)[0]] = true
		}
	}
	t.Logf("the Tab order: %s", strings.Join(seen, ", "))
	var missing []string
	for _, c := range controls {
		if !visited[strings.SplitN(c, " ", 2)[0]] {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		p.fail("Tab never reached %v; the focus went %v", missing, seen)
	}
	if intoCanvas < 0 || outOfCanvas != intoCanvas+1 {
		p.fail("Tab entered the canvas at press %d and left it at %d, want the next press: %v", intoCanvas, outOfCanvas, seen)
	}

	// Back into the canvas with Shift+Tab, and its keys work there.
	after := seen[outOfCanvas]
	eval[bool](p, fmt.Sprintf(`(document.querySelector('[data-tab-test="%s"]').focus(), true)`, strings.TrimPrefix(strings.SplitN(after, " ", 2)[0], "#")))
	p.run("Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if f := eval[string](p, focusName); !strings.HasSuffix(f, "iframe#viewer > canvas") {
		p.fail("Shift+Tab from %s went to %s, want the canvas", after, f)
	}
	p.shot("keyboard-canvas")
	before := p.visibleSteps()
	p.run("w", chromedp.KeyEvent("w"))
	p.wait("the zoom", fmt.Sprintf(`(() => { const v = %s.memplan.state().visible; return v.x1 - v.x0 < %v * 0.95; })()`, frame, before))
	p.run("Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if f := eval[string](p, focusName); strings.Contains(f, "iframe#viewer") || f == "body" {
		p.fail("Shift+Tab did not leave the canvas: %s", f)
	}

	// A table row: arrows move between rows, Enter selects.
	eval[bool](p, `(document.querySelector("#table tbody tr[tabindex='0']").focus(), true)`)
	p.run("ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
	p.run("ArrowDown", chromedp.KeyEvent(kb.ArrowDown))
	row := eval[string](p, `document.activeElement.closest("tr") ? document.activeElement.closest("tr").dataset.name || "" : ""`)
	if third := eval[string](p, `document.querySelectorAll("#table tbody tr")[2].dataset.name`); row != third {
		p.fail("two presses of ArrowDown from the first row focused %q, want the third row %q", row, third)
	}
	if !eval[bool](p, ringed) {
		p.fail("the focused row %s shows no focus ring", row)
	}
	p.shot("keyboard-row")
	p.run("Enter", chromedp.KeyEvent(kb.Enter))
	p.wait("the selection of "+row, fmt.Sprintf(`%s.memplan.state().selected === %q &&
		(document.querySelector("#details-list dd") || {}).textContent === %q`, frame, row, row))

	// A header: Enter sorts by it, Space reverses.
	eval[bool](p, `(document.querySelector("#table th[data-key=size] button").focus(), true)`)
	p.run("Enter", chromedp.KeyEvent(kb.Enter))
	p.wait("the sort by size", `document.querySelector("#table th[data-key=size]").getAttribute("aria-sort") === "ascending"`)
	p.run("Space", chromedp.KeyEvent(" "))
	p.wait("the reversed sort", `document.querySelector("#table th[data-key=size]").getAttribute("aria-sort") === "descending"`)
	p.shot("keyboard-header")

	// The first Tab from the top of the page reached the skip link; Enter
	// on it goes to the table.
	if !strings.Contains(seen[0], "a.skip") {
		p.fail("the first Tab focused %s, want the skip link", seen[0])
	}
	eval[bool](p, `(document.querySelector(".skip").focus(), true)`)
	if !eval[bool](p, inView(".skip:focus")) {
		p.fail("the focused skip link is not on screen")
	}
	p.shot("keyboard-skip")
	p.run("Enter", chromedp.KeyEvent(kb.Enter))
	p.run("Tab", chromedp.KeyEvent(kb.Tab))
	if !eval[bool](p, `!!document.activeElement.closest("#table")`) {
		p.fail("after the skip link, Tab focused %s, want the table", eval[string](p, focusName))
	}
}

// patch is the most common colour in a 9×9 patch of the page around (x,
// y): the background there, whatever thin line crosses it.
func (p *page) patch(x, y float64) (string, float64) {
	p.t.Helper()
	img := p.capture()
	count := map[string]int{}
	best, lum := "", 0.0
	for dy := -4; dy <= 4; dy++ {
		for dx := -4; dx <= 4; dx++ {
			c := hex(img, int(x)+dx, int(y)+dy)
			count[c]++
			if count[c] > count[best] {
				best, lum = c, luminance(img, int(x)+dx, int(y)+dy)
			}
		}
	}
	return best, lum
}

func luminance(img image.Image, x, y int) float64 {
	r, g, b, _ := img.At(x, y).RGBA()
	return (0.2126*float64(r) + 0.7152*float64(g) + 0.0722*float64(b)) / 65535
}

// cssLuminance is the relative lightness (0 to 1) of a CSS rgb() colour.
func cssLuminance(p *page, expr string) float64 {
	p.t.Helper()
	return eval[float64](p, `(() => { const m = (`+expr+`).match(/[\d.]+/g).map(Number);
		return (0.2126 * m[0] + 0.7152 * m[1] + 0.0722 * m[2]) / 255; })()`)
}

// emptyPoint is a page point in the plot, well clear of every tensor.
func (p *page) emptyPoint() (float64, float64) {
	p.t.Helper()
	type pt struct{ X, Y float64 }
	r := eval[*pt](p, `(() => {
		const f = document.getElementById("viewer").getBoundingClientRect(), m = `+frame+`.memplan;
		const rects = window.memplanApp.tensors.map(t => m.rectOf(t.name)).filter(Boolean);
		for (let fy = 0.3; fy <= 0.65; fy += 0.05) for (let fx = 0.35; fx <= 0.9; fx += 0.05) {
			const x = f.width * fx, y = f.height * fy;
			if (rects.some(r => x > r.x - 10 && x < r.x + r.w + 10 && y > r.y - 10 && y < r.y + r.h + 10)) continue;
			return {X: f.left + x, Y: f.top + y};
		}
		return null; })()`)
	if r == nil {
		p.fail("no empty place in the plot")
	}
	return r.X, r.Y
}

// The page and the canvas follow prefers-color-scheme, also when it
// changes while the page is open; tensors keep the colours rectOf reports.
func TestLayoutColorScheme(t *testing.T) {
	s := openAt(t, 1280, 800)
	p := s.page
	for _, c := range []struct {
		scheme string
		light  bool
		reload bool // load the page in this scheme, rather than switch to it
	}{
		{"light", true, false},
		{"dark", false, false},
		{"light", true, false},
		{"dark", false, true},
	} {
		name := c.scheme
		if c.reload {
			name += " on load"
		}
		t.Run(name, func(t *testing.T) {
			p := &page{t: t, ctx: p.ctx}
			p.scheme(c.scheme)
			if c.reload {
				p.run("reload", chromedp.Reload())
				p.wait("the default example", viewerShows("transformer.json"))
			}
			p.waitViewerScheme(c.scheme)
			p.settle()
			bg := cssLuminance(p, `getComputedStyle(document.body).backgroundColor`)
			text := cssLuminance(p, `getComputedStyle(document.body).color`)
			if c.light != (bg > 0.8) || c.light == (text > 0.5) {
				p.fail("in the %s scheme the page's background has lightness %.2f and its text %.2f", c.scheme, bg, text)
			}
			x, y := p.emptyPoint()
			col, lum := p.patch(x, y)
			if c.light != (lum > 0.8) || (!c.light && lum > 0.2) {
				p.fail("in the %s scheme the empty plot at (%.0f, %.0f) is %s (lightness %.2f)", c.scheme, x, y, col, lum)
			}
			// Tensors are drawn in the colours the viewer reports for this theme.
			name := p.largest()
			tx, ty, want := p.point(name)
			if got := p.pixel(tx, ty); got != want {
				p.fail("in the %s scheme %s is drawn %s, rectOf says %s", c.scheme, name, got, want)
			}
		})
	}
}

// shot saves a screenshot as name.png in the directory MEMPLAN_SHOTS
// names, if it names one: pictures for people to look at.
func (p *page) shot(name string) {
	p.t.Helper()
	dir := os.Getenv("MEMPLAN_SHOTS")
	if dir == "" {
		return
	}
	b, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.fail("screenshot: %v", err)
	}
	os.MkdirAll(dir, 0o755)
	f := filepath.Join(dir, name+".png")
	if err := os.WriteFile(f, b, 0o644); err != nil {
		p.t.Fatal(err)
	}
	p.t.Logf("saved %s", f)
}

// TestLayoutScreenshots saves the app at each size, in both schemes, with
// the default example and with a real ONNX model dropped on it, to the
// directory MEMPLAN_SHOTS names; without it the test is skipped. The
// pictures are for people to look at: the other tests check the layout.
func TestLayoutScreenshots(t *testing.T) {
	if os.Getenv("MEMPLAN_SHOTS") == "" {
		t.Skip("set MEMPLAN_SHOTS to a directory to save the screenshots")
	}
	const model = "light_shufflenet.static.onnx"
	for _, c := range []struct{ w, h int64 }{{1280, 800}, {800, 600}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			s := openAt(t, c.w, c.h)
			p := s.page
			data := s.testdata("ir/onnx/testdata/" + model)
			shot := func(name string) { p.shot(fmt.Sprintf("%dx%d-%s", c.w, c.h, name)) }
			// The example is planned again when chosen, even when on screen
			// already: the shot waits for that plan's summary, not for the
			// page saying it is planning.
			eval[bool](p, `(() => { window.__summaries = 0; window.addEventListener("message", (e) => {
				if (e.data && e.data.type === "summary") window.__summaries++; }); return true; })()`)
			for _, scheme := range []string{"dark", "light"} {
				p.scheme(scheme)
				p.waitViewerScheme(scheme)
				eval[bool](p, `(() => { window.__before = window.__summaries; const s = document.getElementById("examples"); s.value = "transformer.json";
					s.dispatchEvent(new Event("change")); return true; })()`)
				p.wait("the example", `window.__summaries > window.__before && `+viewerShows("transformer.json"))
				p.settle()
				eval[bool](p, `(window.scrollTo(0, 0), true)`)
				name := p.largest()
				x, y, _ := p.point(name)
				p.click(x, y)
				p.wait("the selection", frame+`.memplan.state().selected !== null`)
				p.settle()
				shot("transformer-" + scheme)
				if eval[bool](p, `document.documentElement.scrollHeight > window.innerHeight`) {
					eval[bool](p, `(window.scrollTo(0, window.innerHeight - 40), true)`)
					shot("transformer-" + scheme + "-scrolled")
					eval[bool](p, `(window.scrollTo(0, 0), true)`)
				}
				p.dropBytes(model, data)
				p.wait("the model", viewerShows(model))
				p.settle()
				shot("shufflenet-" + scheme)
			}
		})
	}
}
