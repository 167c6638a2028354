//go:build !js

// Package browser starts headless Chromium for memplan's browser tests and
// the frame benchmark, with the flags this kind of machine needs (see the
// toolchain notes): no sandbox as root, WebGL through SwiftShader, a fresh
// profile, nothing fetched in the background.
package browser

import (
	"context"
	"os"

	"github.com/chromedp/chromedp"
)

// Path is the Chromium binary the tests use.
const Path = "/usr/bin/chromium"

// Available reports whether Chromium is installed.
func Available() bool {
	_, err := os.Stat(Path)
	return err == nil
}

// New starts Chromium with a fresh profile in userDataDir and returns a
// tab's context; cancel closes the browser.
func New(parent context.Context, userDataDir string) (context.Context, context.CancelFunc) {
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		// WebGPU (gpurun.js) on SwiftShader's Vulkan: without this flag
		// Chromium on Linux offers no adapter.
		chromedp.Flag("enable-unsafe-webgpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		// Frames must keep coming in a page nobody looks at.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.UserDataDir(userDataDir),
		// With disable-dev-shm-usage Chromium keeps its shared memory in
		// files under TMPDIR and leaves them behind when it is closed:
		// a thousand a day of test runs. They go in the profile instead,
		// which its owner removes.
		chromedp.Env("TMPDIR=" + userDataDir),
		chromedp.WindowSize(1280, 800),
	}
	if os.Getenv("MEMPLAN_CHROMIUM_GPU") == "1" {
		// For comparing: let the GPU process (SwiftShader) composite.
		opts = append(opts, chromedp.Flag("disable-gpu", false))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(parent, opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	return ctx, func() { cancelCtx(); cancelAlloc() }
}
