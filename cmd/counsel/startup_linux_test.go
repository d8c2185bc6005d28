package main

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/matryer/is"
)

// rssFile reads how much of the process's file-backed memory is resident.
func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseStartupMemory: the code and read-only data pages starting
// touched go back, and the test (running on those pages) carries on.
func TestReleaseStartupMemory(t *testing.T) {
	is := is.New(t)
	before := rssFile(t)
	releaseStartupMemory()
	after := rssFile(t)
	is.True(after < before) // pages only starting touched were released
}
