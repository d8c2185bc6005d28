//go:build race

package pdfevidence_test

// raceEnabled is true under the race detector, which multiplies memory.
const raceEnabled = true
