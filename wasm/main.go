//go:build js && wasm

// Command wasm is memplan's viewer for the browser: the ebiten canvas and
// what it shows. The host page sends it commands with postMessage (or
// window.memplan.send), each a protocol type (commands.go); files go to
// the planner workers (wasm/worker, through viewer.js's memplanPlanner),
// whose answers the viewer decodes, lays out and draws once the worker
// has proven them (planjob.go), and it posts back summaries, hovers,
// selections and errors, each a protocol/events type (events.go). It
// links no decoder and no strategy, so the first screen downloads only
// the canvas; it opens on the embedded plan of the default example. The
// message API is documented in docs/embedding.md.
package main

import (
	"runtime/debug"
	"slices"
	"sync"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"memplan/examples"
	"memplan/planner"
	"memplan/viz"
	"memplan/wasm/protocol"
	"memplan/wasm/protocol/events"
	"memplan/wasm/protocol/link"
)

// file is a file the page sent, kept to re-plan it with new options. Its
// bytes stay a JavaScript Uint8Array: the viewer only passes them on to
// the worker, so a large file never fills the viewer's own memory.
type file struct {
	name string
	data js.Value
	// Where it came from, for links: the address it was fetched from, or
	// the built-in example it is; neither, and a link carries the file
	// itself when it is small enough (packed, made on first need).
	url, example      string
	packed            []byte
	packErr           error
	packing, packDone bool
}

// app is the viewer's state. JavaScript callbacks only queue commands;
// Update applies them between frames, so the view is never touched
// mid-draw.
type app struct {
	mu       sync.Mutex
	commands []func()

	view *viz.View
	game *viz.Game

	warm string // how the warm-up ended: "done: …" or "skipped" (state().warm)
	// The viewer's own warm-up (warmViewer): begun, and its time.
	viewerWarmed bool
	warmViewerMs float64

	// Planning runs on its own goroutine; a newer request replaces one
	// still waiting, so typing in an options field plans once.
	planReq chan struct{}
	pending *planJob
	cur     *file // the file on screen
	// target is the file new options re-plan: the one the page sent last,
	// even while it plans or after it failed (options may supply the
	// symbols it lacked), until the page dismisses its error.
	target     *file
	targetOpts protocol.Options // the options target was last asked for
	opts       protocol.Options
	seq        int                // bumps per request; stale results are dropped
	millis     map[string]float64 // where the last plan's time went
	updates    int                // frames run, so tests can wait for a frame, not a time
	// errorsPosted counts the error events posted, for tests: a bad
	// message must cost one.
	errorsPosted int

	// The plan on screen in planner's binary form, as the worker sent it
	// or embedded: exports hand it back to a worker, which has the
	// encoders the viewer does not link.
	planBytes js.Value

	share linkState
	// planID is the request that made the plan on screen: the worker
	// that won it keeps the plan and explains it by this id. record is
	// the embedded plan's JSON, which no worker made, to hand one.
	planID   int
	planFrom int // the worker that made it, which keeps it
	record   js.Value
	explain  int // bumps per explain request; stale answers are dropped

	// camSeen is the camera the host last heard of, or set itself: a
	// "camera" event goes out when the user moves it elsewhere.
	camSeen viz.Rect

	// hand is the placement by hand on screen (hand.go); nil: the
	// planner's plan is.
	hand *viz.Hand
	// table is which table of the plan on screen the host was sent
	// (syncTable).
	table events.TableSync
	// tableTimer sends the table once keys that moved buffers settle
	// (postKeyPlaced); undefined until the first.
	tableTimer js.Func
}

// linkState is what the viewer last told the page about its state (the
// link), and what it is watching settle before it tells again.
type linkState struct {
	seenKey, postedKey   string // EncodeHash of the state without the carried file
	seenFile, postedFile *file
	postedOpts           string
	postedHash           string
	stable               int // frames the seen state has held
	// opening holds the page's state events back until its address has
	// been read (the "location" message) and the link in it opened: an
	// event before would overwrite the address not yet read.
	opening bool
}

type planJob struct {
	f    *file
	opts protocol.Options
	seq  int
	keep bool // keep the camera (a re-plan of the same file)
	// restore is the link being opened: its camera, selection and
	// replay step apply once the plan is drawn.
	restore *link.State
}

func main() {
	// As in the worker: a large plan's decode and layout build their
	// heap in one go, and at Go's default the collector ran over it again
	// and again while it grew (one thread: the page waits for each).
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(planner.BrowserMemoryLimit)
	a := &app{planReq: make(chan struct{}, 1)}
	a.share.opening = true
	a.opts = protocol.Options{Options: planner.DefaultOptions()}
	a.view = viz.NewView(800, 600)
	// Outside memplan's app and lessons (viewer.html?app), which name the
	// plan in panels of their own, the canvas heads the plot with its
	// title, as the picture a widget shows first does.
	search := js.Global().Get("location").Get("search")
	a.view.ShowTitle(!js.Global().Get("URLSearchParams").New(search).Call("has", "app").Bool())
	a.game = viz.NewGame(a.view)
	a.game.BeforeUpdate = func() { a.updates++; a.watchCamera(); a.drain(); a.watchState() }
	a.game.OnHover = a.hovered
	a.game.OnSelect = func(i int) {
		a.postSelect(i)
		if a.hand != nil {
			a.postPlaced() // what Tab walks from now
		}
	}
	a.game.OnCursor = func(int) { a.postCursor() }
	a.game.OnPlace = func(bool) { a.postPlaced() }

	a.installJS()
	go a.planner()

	// A host that brings its own file (embed.js) asks for a blank start,
	// so the built-in example never flashes before its plan.
	if !js.Global().Get("memplanBlank").Truthy() {
		a.openDefault()
		// The warm-up goes to a worker as soon as it is up, beside the
		// first picture: a file dropped the moment that picture shows
		// should find the planner's code warm (warmUp).
		go a.warmUp()
	}

	ebiten.SetWindowTitle("memplan")
	ebiten.SetScreenClearedEveryFrame(false)
	// Inside an iframe the document often lacks focus; the viewer must
	// still draw and react to the pointer.
	ebiten.SetRunnableOnUnfocused(true)
	a.post(ready())
	if err := ebiten.RunGame(a.game); err != nil {
		a.postError(err)
	}
}

// ready is the ready event: Go's tables, for the page to offer and show.
func ready() events.Ready {
	ev := events.Ready{Version: protocol.Version, Examples: exampleNames(), Strategies: planner.StrategyNames(),
		Kinds: viz.KindColors(), Keys: viz.KeyBindings,
		Defaults:  protocol.Options{Options: planner.DefaultOptions(), Strategy: planner.DefaultStrategy},
		F32Budget: planner.WebGPUBindingLimit, F32Text: planner.FormatBytes(planner.WebGPUBindingLimit),
		FileTypes: protocol.FileTypes, Bindings: []string{planner.BindArena, planner.BindTensor}, Baseline: planner.NoReuseStrategy,
		MaxInput: planner.MaxInputBytes(planner.BrowserMemoryLimit),
		// The alignment each input format gets when the page sends none:
		// the planner's choice, for the page to show.
		Alignments: planner.AlignmentDefaults()}
	for _, p := range planner.Profiles() {
		ev.Profiles = append(ev.Profiles, events.ProfileChoice{Profile: p,
			Text: "binding " + planner.FormatBytes(p.MaxStorageBufferBindingSize) + ", buffer " + planner.FormatBytes(p.MaxBufferSize)})
	}
	return ev
}

func exampleNames() []string {
	ents, _ := examples.FS.ReadDir(".")
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// queue runs f in the next Update.
func (a *app) queue(f func()) {
	a.mu.Lock()
	a.commands = append(a.commands, f)
	a.mu.Unlock()
}

func (a *app) drain() {
	a.mu.Lock()
	cmds := a.commands
	a.commands = nil
	a.mu.Unlock()
	for _, f := range cmds {
		f()
	}
}
