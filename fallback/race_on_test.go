//go:build race

package fallback

// slowdown scales timing bounds: the race detector makes scanning about
// ten times slower.
const slowdown = 10
