package site

import (
	"fmt"
	"path"
	"strings"
)

// The headers memplan's files need from whatever serves them, stated
// once: tools/serve sends them, and make site writes them for static
// hosts (_headers, which Netlify and Cloudflare Pages read, and
// .htaccess for Apache).
//
//   - Every file may be read from another origin (Access-Control-Allow-
//     Origin: *): a docs page on another site loads embed.js as a module
//     script, and its widgets the viewer's runtime and wasm, with CORS.
//   - The app, compare and the lessons may be framed only by their own
//     site (frame-ancestors): a page of another site that framed one could
//     drive it. The viewer, made to be embedded, may be framed anywhere
//     and checks the origin of every message itself.
//   - Types are declared (nosniff), and .wasm is application/wasm, which
//     streaming compilation insists on.

// appPages are the pages that run only at the top of a tab or inside a
// page of their own site.
var appPages = []string{"/index.html", "/compare.html", "/learn.html"}

// HeadersFor is the headers a file at path p of the site gets.
func HeadersFor(p string) map[string]string {
	h := map[string]string{
		"Access-Control-Allow-Origin": "*",
		"X-Content-Type-Options":      "nosniff",
	}
	if p == "/" || containsPath(appPages, p) {
		h["Content-Security-Policy"] = "frame-ancestors 'self'"
		h["X-Frame-Options"] = "SAMEORIGIN"
	}
	if path.Ext(p) == ".wasm" {
		h["Content-Type"] = "application/wasm"
	}
	return h
}

func containsPath(ps []string, p string) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

// netlifyHeaders is the _headers file: a path pattern, then its headers
// indented.
func netlifyHeaders() string {
	var b strings.Builder
	b.WriteString("# The headers memplan's files need (tools/site/headers.go).\n")
	rule := func(pattern string, h map[string]string, keys ...string) {
		b.WriteString(pattern + "\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "  %s: %s\n", k, h[k])
		}
	}
	all := HeadersFor("/any")
	rule("/*", all, "Access-Control-Allow-Origin", "X-Content-Type-Options")
	for _, p := range append([]string{"/"}, appPages...) {
		rule(p, HeadersFor(p), "Content-Security-Policy", "X-Frame-Options")
	}
	rule("/*.wasm", HeadersFor("/x.wasm"), "Content-Type")
	return b.String()
}

// htaccess is the same for Apache's .htaccess (mod_headers, mod_mime).
func htaccess() string {
	var b strings.Builder
	b.WriteString("# The headers memplan's files need (tools/site/headers.go).\n")
	all := HeadersFor("/any")
	for _, k := range []string{"Access-Control-Allow-Origin", "X-Content-Type-Options"} {
		fmt.Fprintf(&b, "Header always set %s %q\n", k, all[k])
	}
	app := HeadersFor("/index.html")
	var names []string
	for _, p := range appPages {
		names = append(names, strings.TrimPrefix(p, "/"))
	}
	fmt.Fprintf(&b, "<FilesMatch \"^(%s)?$\">\n", strings.ReplaceAll(strings.Join(names, "|"), ".", `\.`))
	for _, k := range []string{"Content-Security-Policy", "X-Frame-Options"} {
		fmt.Fprintf(&b, "  Header always set %s %q\n", k, app[k])
	}
	b.WriteString("</FilesMatch>\nAddType application/wasm .wasm\n")
	return b.String()
}
