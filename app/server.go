package app

import (
	"net/http"
	"time"
)

// NewHTTPServer returns the HTTP server of handler with the timeouts and
// bounds that keep slow or hostile clients from holding connections: a
// client must send its headers within 5 s and its whole request within 2
// minutes (20 MiB uploads on slow links), headers are at most 64 KiB, and
// idle connections close after 2 minutes.
func NewHTTPServer(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       2 * time.Minute,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
