package site

import (
	"maps"
	"net/http"
	"sync"
)

// The app's download goals, compressed as served: the first screen (the
// page, the viewer and the default example's plan) at most PageBudget;
// everything it ever downloads, the planner worker included, at most
// AppBudget.
const (
	PageBudget = 3_500_000
	AppBudget  = 5_000_000
)

// AfterFirstScreen lists what the app loads only once its first picture
// is up: the planner worker and its wasm.
var AfterFirstScreen = []string{"/worker.js", "/" + WorkerFile}

// Counter wraps a handler and counts the body bytes it sends, by path, as
// they go on the wire (gzipped when the client accepts it), and the
// requests for each path.
type Counter struct {
	Next http.Handler

	mu       sync.Mutex
	sent     map[string]int
	requests map[string]int
}

func (c *Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cw := &countingWriter{ResponseWriter: w}
	c.Next.ServeHTTP(cw, r)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sent == nil {
		c.sent, c.requests = map[string]int{}, map[string]int{}
	}
	c.sent[r.URL.Path] += cw.n
	c.requests[r.URL.Path]++
}

// Requests returns how many requests each path got so far.
func (c *Counter) Requests() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.requests)
}

// Sent returns the bytes sent so far by path, and their total.
func (c *Counter) Sent() (map[string]int, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for _, n := range c.sent {
		total += n
	}
	return maps.Clone(c.sent), total
}

type countingWriter struct {
	http.ResponseWriter
	n int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.ResponseWriter.Write(b)
	c.n += n
	return n, err
}
