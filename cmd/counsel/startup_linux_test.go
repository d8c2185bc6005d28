package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// rssMapped reads how much of the process's file-backed memory is
// resident: RssFile, plus RssShmem for a program run from tmpfs (the
// tests' build folder may be /dev/shm).
func rssMapped(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.Lines(string(b)) {
		for _, key := range []string{"RssFile:", "RssShmem:"} {
			if v, ok := strings.CutPrefix(line, key); ok {
				k, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				if err != nil {
					t.Fatal(err)
				}
				n += k
			}
		}
	}
	return n
}

// TestReleaseStartupMemory: the code and read-only data pages starting
// touched go back, and the test (running on those pages) carries on.
// Other tests run meanwhile and fault pages back in, so a drop in any of
// a few tries shows the release works.
func TestReleaseStartupMemory(t *testing.T) {
	is := is.New(t)
	dropped := false
	for i := 0; i < 5 && !dropped; i++ {
		before := rssMapped(t)
		releaseStartupMemory()
		dropped = rssMapped(t) < before
	}
	is.True(dropped) // pages only starting touched were released
}
