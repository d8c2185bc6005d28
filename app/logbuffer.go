package app

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// logBuffer batches the server log's INFO and DEBUG lines (one per request)
// into one write every flushEvery, instead of a write system call per
// request; WARN and ERROR lines go out at once, after what is buffered.
// Close writes what is left. A crash loses at most flushEvery of INFO
// lines.
type logBuffer struct {
	mu   sync.Mutex
	w    io.Writer
	buf  []byte
	stop chan struct{}
	done chan struct{}
	once sync.Once
}

const (
	flushEvery  = 100 * time.Millisecond
	flushAtSize = 64 << 10
)

func newLogBuffer(w io.Writer) *logBuffer {
	b := &logBuffer{w: w, stop: make(chan struct{}), done: make(chan struct{})}
	go b.loop()
	return b
}

func (b *logBuffer) loop() {
	defer close(b.done)
	t := time.NewTicker(flushEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			b.Flush()
		case <-b.stop:
			b.Flush()
			return
		}
	}
}

// quiet reports whether p is an INFO or DEBUG line of slog's text or JSON
// handler.
func quiet(p []byte) bool {
	return bytes.Contains(p, []byte("level=INFO")) || bytes.Contains(p, []byte(`"level":"INFO"`)) ||
		bytes.Contains(p, []byte("level=DEBUG")) || bytes.Contains(p, []byte(`"level":"DEBUG"`))
}

// Write implements io.Writer.
func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) >= flushAtSize || !quiet(p) {
		if err := b.flushLocked(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what is buffered.
func (b *logBuffer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *logBuffer) flushLocked() error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

// Close stops the flushing and writes what is left. It may be called more
// than once: App.Close is idempotent.
func (b *logBuffer) Close() error {
	b.once.Do(func() { close(b.stop) })
	<-b.done
	return nil
}
