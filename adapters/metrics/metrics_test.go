package metrics_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"counsel/adapters/metrics"

	"github.com/matryer/is"
)

func TestNilRegistryIsOff(t *testing.T) {
	var r *metrics.Registry // metrics off: every hook does nothing
	r.ObserveRequest("/api/me", "GET", 200, time.Millisecond)
	r.SignIn("password", "success")
	r.Refresh("success")
	r.Lockout()
	r.Job("backup")
	r.JobSucceeded("backup", time.Now())
	r.BackupSucceeded(time.Now())
	r.Outbox(metrics.OutboxMail, func(context.Context) (int, error) { return 1, nil })
}

// TestHooks: what later work registers shows in the text.
func TestHooks(t *testing.T) {
	is := is.New(t)
	r := metrics.New(metrics.Options{Version: "v1", Connections: func() metrics.Connections { return metrics.Connections{InUse: 2, Idle: 3} }})
	r.Outbox(metrics.OutboxWebhook, func(context.Context) (int, error) { return 7, nil })
	r.Job(metrics.JobBackup)
	r.JobSucceeded(metrics.JobReminders, time.Unix(1700000000, 0))
	r.BackupSucceeded(time.Unix(1700000500, 0))
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	text := string(b)
	for _, want := range []string{
		`counsel_outbox_pending{kind="webhook"} 7`,
		`counsel_outbox_pending{kind="mail"} 0`,
		`counsel_job_last_success_timestamp_seconds{job="backup"} 0`,
		`counsel_job_last_success_timestamp_seconds{job="reminders"} 1.7e+09`,
		`counsel_backup_last_success_timestamp_seconds 1.7000005e+09`,
		`counsel_db_connections{state="in_use"} 2`,
		`counsel_db_connections{state="idle"} 3`,
		`counsel_build_info{version="v1"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no %s in:\n%s", want, text)
		}
	}
	is.True(!t.Failed())
}

// BenchmarkObserveRequest is what metrics add to each request.
func BenchmarkObserveRequest(b *testing.B) {
	r := metrics.New(metrics.Options{Version: "bench"})
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r.ObserveRequest("/api/me", "GET", 200, 150*time.Microsecond)
		}
	})
}
