//go:build !linux

package main

import "runtime/debug"

// releaseStartupMemory hands back the heap only starting needed.
func releaseStartupMemory() { debug.FreeOSMemory() }
