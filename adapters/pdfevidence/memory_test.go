package pdfevidence_test

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"counsel/domain/contract"
	"counsel/ports"
	"counsel/ports/porttest"
)

// peakRSS is the process's peak resident set (VmHWM), in bytes, or 0
// where /proc is missing.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestEvidenceMemoryOfAnAcceptedBomb makes evidence of documents whose
// page content decodes to just under the 256 MiB an upload accepts (not
// stamped: listed in the certificate) and to just under what is stamped
// (96 MiB). The process's peak resident set stays under 512 MB. Run it
// alone (go test -run TestEvidenceMemoryOfAnAcceptedBomb) for the figure
// to be this test's.
func TestEvidenceMemoryOfAnAcceptedBomb(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("decodes hundreds of MiB; the race detector's memory is not the server's")
	}
	e := newEvidence(t, "Counsel")
	for _, tc := range []struct {
		name    string
		decoded int
		stamped bool
	}{
		{"just under the upload limit", 254 << 20, false},
		{"just under the stamping limit", 94 << 20, true},
	} {
		bomb := porttest.BombPDF(tc.decoded)
		if err := contract.CheckPDFStreams(bytes.NewReader(bomb), int64(len(bomb)), contract.MaxPDFDecodedSize); err != nil {
			t.Fatalf("the fixture must be accepted: %v", err)
		}
		runtime.GC()
		before := peakRSS()
		ev := sampleEvidence(1)
		var c, a bytes.Buffer
		if err := e.Produce(context.Background(), ev, []ports.EvidencePDF{{Index: 0, Body: bytes.NewReader(bomb)}}, &c, &a); err != nil {
			t.Fatal(err)
		}
		after := peakRSS()
		t.Logf("%s (%d MiB decoded): peak RSS %d MiB before, %d MiB after making the evidence (%d KiB combined)",
			tc.name, tc.decoded>>20, before>>20, after>>20, c.Len()>>10)
		if after > 512<<20 {
			t.Fatalf("peak RSS %d MiB: over 512 MB", after>>20)
		}
		if stamped := c.Len() > len(bomb); stamped != tc.stamped {
			t.Fatalf("stamped %v, want %v", stamped, tc.stamped)
		}
		v, err := verify(t, e, c.Bytes())
		if err != nil || !v.Valid {
			t.Fatalf("verify: %v %+v", err, v)
		}
	}
}
