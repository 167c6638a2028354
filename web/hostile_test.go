//go:build !js

package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"memplan/tools/site"
	"memplan/tools/site/browser"
)

// secretCSV is a file only memplan's own origin may read: a buffer list
// whose buffer names a page must never see through the viewer.
const secretCSV = "id,lower,upper,size\nSECRET_ROW_ONE,0,2,64\nSECRET_ROW_TWO,1,3,64\n"

// hostileParent frames the viewer (at src) and keeps every message it
// sends; hostile.send posts it anything.
const hostileParent = `<!doctype html><body>
<iframe id="v" src="%s" style="width:800px;height:500px;border:0"></iframe>
<script>
window.__got = [];
window.addEventListener("message", (e) => {
  if (e.source === document.getElementById("v").contentWindow) window.__got.push(e.data);
});
window.hostile = {
  send(m) { document.getElementById("v").contentWindow.postMessage(m, "*"); },
  count(type) { return window.__got.filter((m) => m && m.type === type).length; },
  text() { return JSON.stringify(window.__got, (k, v) => v instanceof Uint8Array ? new TextDecoder().decode(v) : v); },
};
</script></body>`

// The viewer embedded by a page of another site: that page cannot make
// it read a file of the viewer's origin that the page could not read
// itself (by a location message or by the viewer's own address), cannot
// get a record of one, and each malformed message costs one error event
// and changes nothing. memplan's app, framed by another site, does not
// run.
func TestBrowserHostileParent(t *testing.T) {
	root := moduleRoot(t)
	// memplan's site, with a private file (no CORS) and a public one.
	mux := http.NewServeMux()
	mux.Handle("/", site.Handler(filepath.Join(root, "web"), build.wasm))
	mux.HandleFunc("/private/secret.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Write([]byte(secretCSV))
	})
	mux.HandleFunc("/public/open.csv", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Write([]byte("id,lower,upper,size\nopen_a,0,2,64\nopen_b,1,3,64\n"))
	})
	memplan := httptest.NewServer(mux)
	defer memplan.Close()
	// The same pages from a host that sends no headers: the app's own
	// check is all that stops it there.
	bare := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(root, "web"))))
	defer bare.Close()
	// The attacker: another site (localhost, not 127.0.0.1).
	evil := http.NewServeMux()
	frames := func(path, src string) {
		evil.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, hostileParent, src)
		})
	}
	frames("/viewer.html", memplan.URL+"/viewer.html?blank")
	frames("/by-address.html", memplan.URL+"/viewer.html?url=/private/secret.csv")
	frames("/app.html", bare.URL+"/index.html")
	ln, err := net.Listen("tcp", "localhost:0")
	if err != nil {
		t.Fatal(err)
	}
	evilSrv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: evil}}
	evilSrv.Start()
	defer evilSrv.Close()
	evilURL := "http://localhost:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	if strings.HasPrefix(memplan.URL, evilURL) {
		t.Fatal("the attacker's page is at memplan's origin")
	}

	ctx, cancel := browser.New(context.Background(), t.TempDir())
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()
	p := &page{t: t, ctx: ctx}
	p.run("open the attacker's page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(evilURL+"/viewer.html"))
	// The viewer learns its host's origin from a first message, and
	// answers it. A record request is a barrier: it is answered once, in
	// order, after whatever was sent before it.
	p.wait("the viewer to start", `(hostile.send({type: "ping"}), hostile.count("pong") > 0 || hostile.count("ready") > 0)`)
	barrier := func() {
		n := eval[int](p, `hostile.count("record")`)
		eval[bool](p, `(hostile.send({type: "record"}), true)`)
		p.wait("the viewer's answer", fmt.Sprintf(`hostile.count("record") > %d`, n))
	}
	ping := barrier
	ping()
	noSecret := func(what string) {
		if text := eval[string](p, `hostile.text()`); strings.Contains(text, "SECRET") {
			p.fail("%s: the attacker read the private file through the viewer: %s", what, text)
		}
	}

	// 1. The confused deputy: a location message naming a private file of
	// the viewer's origin, relative and absolute.
	for _, url := range []string{"/private/secret.csv", memplan.URL + "/private/secret.csv"} {
		errs := eval[int](p, `hostile.count("error")`)
		eval[bool](p, fmt.Sprintf(`(hostile.send({type: "location", search: "?url=" + encodeURIComponent(%q), hash: ""}), true)`, url))
		p.wait("the refusal", fmt.Sprintf(`hostile.count("error") > %d`, errs))
		msg := eval[string](p, `window.__got.filter((m) => m.type === "error").pop().message`)
		if !strings.Contains(msg, "does not allow that origin") {
			p.fail("the viewer's error for %s: %q", url, msg)
		}
		noSecret("location " + url)
	}
	barrier()
	if rec := eval[string](p, `JSON.stringify(window.__got.filter((m) => m.type === "record").pop())`); !strings.Contains(rec, `"record":null`) {
		p.fail("the record the attacker got: %s", rec)
	}
	// A file the page could read itself, it may have planned.
	eval[bool](p, `(hostile.send({type: "location", search: "?url=/public/open.csv", hash: ""}), true)`)
	p.wait("the open file's plan", `window.__got.some((m) => m.type === "summary" && m.file === "open.csv")`)
	noSecret("after the open file")

	// 2. Malformed messages: one error each, nothing changed, and the
	// viewer goes on answering.
	bad := []string{
		`{type: "world", steps: NaN, bytes: NaN}`,
		`{type: "world", steps: 4, bytes: Infinity}`,
		`{type: "camera", x0: 5, y0: 0, x1: 1, y1: 9}`,
		`{type: "cursor", step: 1.5}`,
		`{type: "select", name: 7}`,
		`{type: "load", name: "x.csv", data: 12}`,
		`{type: "options", options: {f32_uniform: "yes"}}`,
		`{type: "reformat-disk"}`,
		`{name: "no type"}`,
		`(() => { const o = {type: "select"}; o.name = o; return o; })()`,
		`(() => { let o = {type: "options", options: {}}; let x = o.options; for (let i = 0; i < 100; i++) { x.symbols = {}; x = x.symbols; } return o; })()`,
		`"just a string"`,
	}
	for _, m := range bad {
		before := eval[int](p, `hostile.count("error")`)
		summaries := eval[int](p, `hostile.count("summary")`)
		eval[bool](p, `(hostile.send(`+m+`), true)`)
		ping()
		ping() // a frame or two for any error a bad value would keep making
		if got := eval[int](p, `hostile.count("error")`) - before; got != 1 {
			p.fail("message %s: %d error events, want 1 (%s)", m, got, eval[string](p, `hostile.text().slice(-600)`))
		}
		if eval[int](p, `hostile.count("summary")`) != summaries {
			p.fail("message %s re-planned", m)
		}
	}
	if !eval[bool](p, `window.__got.some((m) => m.type === "error" && m.kind === "message" && m.message === 'message "world": steps: want a finite number, got NaN')`) {
		p.fail("the NaN's error does not name the field")
	}

	// 3. The viewer's own address, chosen by the attacker: the same rule.
	p.run("open the page that sets the viewer's address", chromedp.Navigate(evilURL+"/by-address.html"))
	p.wait("the viewer to start", `(hostile.send({type: "ping"}), hostile.count("pong") > 0 || hostile.count("ready") > 0)`)
	p.wait("the refusal", `hostile.count("error") > 0`)
	noSecret("the viewer's address")

	// 4. memplan's app framed by another site does not run, where the
	// host sends no frame-ancestors header.
	p.run("frame the app", chromedp.Navigate(evilURL+"/app.html"))
	var framed bool
	deadline := time.Now().Add(time.Minute)
	for !framed && time.Now().Before(deadline) {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range targets {
			// The app's frame (a file server shows index.html as /).
			if tg.Type != "iframe" || !strings.HasPrefix(tg.URL, bare.URL+"/") {
				continue
			}
			fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(tg.TargetID))
			v, err := chromedp.Run(fctx, chromedp.Evaluate[string](`JSON.stringify({framed: !!window.memplanFramed,
				viewer: !!document.getElementById("viewer"), text: document.body ? document.body.textContent : ""})`))
			cancel()
			var st struct {
				Framed, Viewer bool
				Text           string
			}
			if err == nil && json.Unmarshal([]byte(v), &st) == nil && st.Framed {
				if st.Viewer || !strings.Contains(st.Text, "does not run inside another site's page") {
					p.fail("the framed app still shows itself: %+v", st)
				}
				framed = true
			}
		}
		if !framed {
			time.Sleep(100 * time.Millisecond) // polling another target's state
		}
	}
	if !framed {
		p.fail("the framed app did not refuse to run")
	}
	// And memplan's own server forbids the framing outright.
	if h := site.HeadersFor("/index.html")["Content-Security-Policy"]; h != "frame-ancestors 'self'" {
		p.fail("the app's frame-ancestors header is %q", h)
	}
}
