package app

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestLogBuffer(t *testing.T) {
	t.Parallel()
	is := is.New(t)
	var out lockedBuffer
	b := newLogBuffer(&out)
	b.Write([]byte("time=x level=INFO msg=request\n"))
	is.Equal(out.String(), "") // an INFO line waits
	b.Write([]byte("time=x level=ERROR msg=panic\n"))
	is.Equal(out.String(), "time=x level=INFO msg=request\ntime=x level=ERROR msg=panic\n") // an ERROR goes out at once, in order
	b.Write([]byte(`{"level":"INFO","msg":"request"}` + "\n"))
	deadline := time.Now().Add(5 * time.Second)
	for out.String() == "time=x level=INFO msg=request\ntime=x level=ERROR msg=panic\n" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	is.True(bytes.HasSuffix([]byte(out.String()), []byte(`{"level":"INFO","msg":"request"}`+"\n"))) // flushed by the timer
	b.Write([]byte("time=x level=INFO msg=last\n"))
	is.NoErr(b.Close())
	is.True(bytes.HasSuffix([]byte(out.String()), []byte("msg=last\n"))) // Close writes the rest
}
