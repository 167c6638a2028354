// Package drawtest holds the pixel tests of viz's ebiten drawing. They need
// a display (run them under xvfb-run -a), so they live apart from viz's
// host tests, which must run anywhere.
package drawtest
