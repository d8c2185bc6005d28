package app_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"counsel/app"
	"counsel/app/apptest"
	"counsel/domain/contract"
)

// TestDownloadsHoldOneChunk: ten parallel downloads of a 20 MiB document
// hold a few chunks each, never the document: the heap of the whole
// process (client and server) grows by far less than one document while
// they run, where buffering would take ten. The server's resident memory
// under the same load, measured on the binary, is in docs/performance.md.
// Not parallel: the heap is the process's, and parallel tests wait while
// this one runs.
func TestDownloadsHoldOneChunk(t *testing.T) {
	is := is.New(t)
	s := apptest.New(t)
	admin := s.Admin(t)
	id := contractID(contractCreate(t, s, admin, map[string]any{"contractName": "downloads"}))
	content := io.MultiReader(strings.NewReader("%PDF-"), &zeros{n: contract.MaxDocumentSize - 5})
	body, ct := contractMultipart("file", "big.pdf", content)
	req, err := http.NewRequest("POST", fmt.Sprintf("%s/api/contracts/%d/documents", s.URL, id), body)
	is.NoErr(err)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Authorization", "Bearer "+admin)
	r := s.Send(t, req)
	is.Equal(r.Status, 201)
	var doc struct {
		ID     int64
		SHA256 string
	}
	r.JSON(t, &doc)
	// The service's own handler and server, without the test server's
	// check of every exchange against the OpenAPI document (which reads
	// whole bodies).
	plain := httptest.NewUnstartedServer(nil)
	plain.Config = app.NewHTTPServer(s.App.Handler())
	plain.Start()
	defer plain.Close()
	url := fmt.Sprintf("%s/api/contracts/%d/documents/%d/content", plain.URL, id, doc.ID)
	download := func() (string, error) {
		req, err := http.NewRequest("GET", url, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		h := sha256.New()
		if _, err := io.Copy(h, res.Body); err != nil {
			return "", err
		}
		return fmt.Sprintf("%x", h.Sum(nil)), nil
	}
	sum, err := download() // warm up connections and pools
	is.NoErr(err)
	is.Equal(sum, doc.SHA256)

	// Garbage collected early, so the heap shows what is held.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(heap)
		return heap[0].Value.Uint64()
	}
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var wg sync.WaitGroup
	sums := make([]string, 10)
	errs := make([]error, 10)
	for i := range sums {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i], errs[i] = download()
		}()
	}
	wg.Wait()
	runtime.ReadMemStats(&after)
	close(stop)
	<-sampled
	for i := range sums {
		is.NoErr(errs[i])
		is.Equal(sums[i], doc.SHA256) // every download whole
	}
	growth := peak.Load() - min(peak.Load(), base)
	t.Logf("10 parallel downloads of 20 MiB: heap grew by at most %d KiB; %d KiB allocated per download",
		growth>>10, (after.TotalAlloc-before.TotalAlloc)/10>>10)
	is.True(growth < contract.MaxDocumentSize) // less than one document held, for ten downloads
}
