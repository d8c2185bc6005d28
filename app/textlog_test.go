package app

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"
)

// textLines writes r through slog's text handler and through textHandler.
func textLines(t *testing.T, r slog.Record) (want, got string) {
	t.Helper()
	var a, b bytes.Buffer
	opts := &slog.HandlerOptions{Level: slog.LevelDebug}
	if err := slog.NewTextHandler(&a, opts).Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	if err := newTextHandler(&b, opts).Handle(context.Background(), r.Clone()); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

func TestTextHandlerMatchesSlog(t *testing.T) {
	at := time.Date(2026, 11, 28, 16, 29, 23, 999_900_000, time.FixedZone("AEDT", 11*3600))
	tests := []struct {
		name  string
		time  time.Time
		level slog.Level
		msg   string
		attrs []slog.Attr
	}{
		{"request line", at, slog.LevelInfo, "request", []slog.Attr{slog.String("method", "GET"), slog.String("route", "/api/me"),
			slog.Int("status", 200), slog.Duration("duration", 1234567), slog.Int64("bytes", 539), slog.String("request_id", "a9ba26b141addcdd")}},
		{"no time", time.Time{}, slog.LevelWarn, "w", nil},
		{"utc", at.UTC(), slog.LevelError + 2, "x", nil},
		{"quoted", at, slog.LevelDebug, "two words", []slog.Attr{slog.String("k", ""), slog.String("a=b", `say "hi"`),
			slog.String("tab", "a\tb"), slog.String("back", `a\b`), slog.String("nl", "a\nb"), slog.String("del", "a\x7fb")}},
		{"numbers", at, slog.LevelInfo, "n", []slog.Attr{slog.Int64("neg", -3), slog.Uint64("u", 1<<63), slog.Bool("t", true),
			slog.Duration("µs", 1500)}},
		{"unicode", at, slog.LevelInfo, "héllo", []slog.Attr{slog.String("k", "\u00a0")}},
		{"other kinds", at, slog.LevelInfo, "m", []slog.Attr{slog.Float64("f", 1.5), slog.Time("t", at),
			slog.Any("e", context.Canceled), slog.Group("g", slog.Int("i", 1))}},
		{"empty attr", at, slog.LevelInfo, "m", []slog.Attr{{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			r := slog.NewRecord(tt.time, tt.level, tt.msg, 0)
			r.AddAttrs(tt.attrs...)
			want, got := textLines(t, r)
			is.Equal(got, want)
		})
	}
}

func TestTextHandlerDerived(t *testing.T) {
	is := is.New(t)
	var a, b bytes.Buffer
	slog.New(slog.NewTextHandler(&a, nil)).With("x", 1).WithGroup("g").Info("m", "k", "v")
	slog.New(newTextHandler(&b, nil)).With("x", 1).WithGroup("g").Info("m", "k", "v")
	is.Equal(stripTime(b.String()), stripTime(a.String()))
	is.True(!slog.New(newTextHandler(&b, nil)).Enabled(context.Background(), slog.LevelDebug)) // INFO by default
}

// stripTime drops the time= field, which differs between two calls.
func stripTime(s string) string {
	if i := bytes.IndexByte([]byte(s), ' '); i >= 0 {
		return s[i:]
	}
	return s
}

func FuzzTextHandlerMatchesSlog(f *testing.F) {
	f.Add("request", "route", "/api/contracts/{id}", int64(200), int64(1234567), int64(1_700_000_000_123_456_789))
	f.Add("", "", "", int64(-1), int64(0), int64(0))
	f.Add("a b", "k=v", "\"q\"", int64(0), int64(-5), int64(-62135596800_000_000))
	f.Fuzz(func(t *testing.T, msg, key, val string, n, d, unixNano int64) {
		r := slog.NewRecord(time.Unix(0, unixNano), slog.Level(n%16), msg, 0)
		r.AddAttrs(slog.String(key, val), slog.Int64("n", n), slog.Duration("d", time.Duration(d)))
		want, got := textLines(t, r)
		if got != want {
			t.Fatalf("got  %q\nwant %q", got, want)
		}
	})
}

// TestTextHandlerConcurrent writes lines of both paths at once to a plain
// buffer: under the race detector, the two must share one lock.
func TestTextHandlerConcurrent(t *testing.T) {
	is := is.New(t)
	var buf bytes.Buffer
	log := slog.New(newTextHandler(&buf, nil))
	derived := log.With("x", 1)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				switch i % 3 {
				case 0:
					log.Info("fast", "n", i)
				case 1:
					log.Info("slow", "err", context.Canceled)
				default:
					derived.Info("derived")
				}
			}
		}()
	}
	wg.Wait()
	is.Equal(bytes.Count(buf.Bytes(), []byte("\n")), 400) // every line whole
}
