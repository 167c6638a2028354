// Package heap grows a wasm program's Go heap in one step, ahead of the
// work that needs it.
//
// Measured in Chromium on idealloc's Y_1 dropped the moment the first
// picture shows (BenchmarkBrowserFirstDrop, alternating runs of eight
// drops): growing the planner worker's heap by 128 MB when it starts took
// 55 ms off the time from the drop to the summary, and growing the
// viewer's by 96 MB once the first picture was drawn took 80 ms more off
// it (its decoding and layout); a small graph's first plan took 25 ms
// less. The bytes are never written, so they take no memory until the
// heap uses them: a docs page of seven widgets measured the same PSS with
// the workers' reservation and without.
package heap

import "runtime"

// Reserve grows the heap by n bytes at once and collects them, so that
// the heap has them free for what comes next.
func Reserve(n int) {
	reserved = make([]byte, n)
	reserved = nil
	runtime.GC()
}

// reserved holds the reservation while it is made: a package variable, so
// that the compiler keeps an allocation nothing reads.
var reserved []byte
