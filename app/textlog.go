package app

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"
)

// textHandler writes slog's text format, byte for byte as slog.TextHandler
// does, for the records the server writes most (one per request): a
// message and attributes that are ASCII strings, integers, booleans and
// durations. Any other record, and every handler derived with WithAttrs or
// WithGroup, is written by slog.TextHandler itself. TestTextHandlerMatchesSlog
// holds the two to the same output.
type textHandler struct {
	slow  slog.Handler
	w     io.Writer // one Write per line, as slog's handler does
	level slog.Leveler
}

func newTextHandler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	if opts.AddSource || opts.ReplaceAttr != nil {
		return slog.NewTextHandler(w, opts)
	}
	level := opts.Level
	if level == nil {
		level = slog.LevelInfo
	}
	// Both paths write through one lock, so lines of either never
	// interleave on a writer that is not safe for concurrent use.
	lw := &lockedWriter{w: w}
	return &textHandler{slow: slog.NewTextHandler(lw, opts), w: lw, level: level}
}

// lockedWriter serializes the writes of both paths of a textHandler and
// of the handlers derived from it.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

var lineBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	bp := lineBufs.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= 4<<10 {
			lineBufs.Put(bp)
		}
	}()
	line, ok := appendTextRecord((*bp)[:0], r)
	*bp = line
	if !ok {
		return h.slow.Handle(ctx, r)
	}
	_, err := h.w.Write(line)
	return err
}

func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.slow.WithAttrs(as) }
func (h *textHandler) WithGroup(name string) slog.Handler    { return h.slow.WithGroup(name) }

// appendTextRecord appends r as one line of slog's text format; false
// when r holds something it leaves to slog.
func appendTextRecord(b []byte, r slog.Record) ([]byte, bool) {
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = appendRFC3339Millis(b, r.Time.Round(0))
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	var ok bool
	if b, ok = appendTextString(b, r.Level.String()); !ok {
		return b, false
	}
	b = append(b, " msg="...)
	if b, ok = appendTextString(b, r.Message); !ok {
		return b, false
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "" {
			ok = false // slog drops or groups these
			return false
		}
		b = append(b, ' ')
		if b, ok = appendTextString(b, a.Key); !ok {
			return false
		}
		b = append(b, '=')
		switch v := a.Value; v.Kind() {
		case slog.KindString:
			b, ok = appendTextString(b, v.String())
		case slog.KindInt64:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindBool:
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = append(b, v.Duration().String()...)
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return b, false
	}
	return append(b, '\n'), true
}

// appendTextString appends s as slog's text handler does: bare, or quoted
// when it is empty or holds a space, '=', '"' or a control character below
// the space (DEL is printed as it is, as slog does).
// Anything beyond ASCII is left to slog (false).
func appendTextString(b []byte, s string) ([]byte, bool) {
	quote := s == ""
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 0x80:
			return b, false
		case c <= ' ' || c == '=' || c == '"':
			quote = true
		}
	}
	if quote {
		return strconv.AppendQuote(b, s), true
	}
	return append(b, s...), true
}

// appendRFC3339Millis is slog's time format: RFC 3339 with exactly three
// digits of milliseconds, truncated.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...) // drop the fourth digit
}
