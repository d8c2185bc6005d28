package app

import (
	"context"
	"net/http"

	"counsel/adapters/metrics"
	"counsel/ports"
)

// Metrics (docs/operations.md: Metrics) are on when COUNSEL_METRICS_TOKEN or
// COUNSEL_METRICS_ADDR is set; a.metrics is nil otherwise, and every
// method of a nil *metrics.Registry does nothing, so the hooks below cost
// nothing when metrics are off.
//
// Hooks for background work:
//   - a job of the shape of a.every's jobs is wrapped in
//     a.tracked(name, fn), inside a.exclusive so that only the instance
//     that ran it records it; other shapes call a.metrics.Job(name) once
//     and a.jobSucceeded(name) after each successful run;
//   - a backup written and verified calls a.metrics.BackupSucceeded(at)
//     (besides its job's success);
//   - an outbox registers its count of pending messages once with
//     a.metrics.Outbox(metrics.OutboxMail or OutboxWebhook, count).

// newMetrics returns the registry when metrics are on, nil otherwise.
func (a *App) newMetrics() *metrics.Registry {
	if a.cfg.MetricsToken == "" && a.cfg.MetricsAddr == "" {
		return nil
	}
	return metrics.New(metrics.Options{Version: a.cfg.Version, Connections: a.connections})
}

// connections reads the database pools' state.
func (a *App) connections() metrics.Connections {
	switch {
	case a.db.Postgres() != nil:
		s := a.db.Postgres().Pool().Stat()
		return metrics.Connections{InUse: int(s.AcquiredConns()), Idle: int(s.IdleConns())}
	case a.db.SQLite() != nil:
		inUse, idle := a.db.SQLite().Connections()
		return metrics.Connections{InUse: inUse, Idle: idle}
	}
	return metrics.Connections{}
}

// Metrics returns the metrics registry, nil when metrics are off (its
// methods are safe on nil).
func (a *App) Metrics() *metrics.Registry { return a.metrics }

// MetricsHandler serves GET /metrics without a token, for the listener of
// COUNSEL_METRICS_ADDR; nil when that is not set.
func (a *App) MetricsHandler() http.Handler {
	if a.cfg.MetricsAddr == "" || a.metrics == nil {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metrics.Handler())
	return mux
}

// Ready reports whether the service can serve: nil when the database
// answers.
func (a *App) Ready(ctx context.Context) error { return a.db.Ping(ctx) }

// tracked wraps background job fn so that each run without error sets
// counsel_job_last_success_timestamp_seconds{job=name}; the series
// exists (0) from now on.
func (a *App) tracked(name string, fn func(context.Context) (int, error)) func(context.Context) (int, error) {
	if a.metrics == nil {
		return fn
	}
	a.metrics.Job(name)
	return func(ctx context.Context) (int, error) {
		n, err := fn(ctx)
		if err == nil {
			a.jobSucceeded(name)
		}
		return n, err
	}
}

// jobSucceeded records a successful run of background job name now.
func (a *App) jobSucceeded(name string) { a.metrics.JobSucceeded(name, a.cfg.Clock.Now()) }

// accountObserver is what the sign-in use case reports to: nil when
// metrics are off.
func (a *App) accountObserver() ports.AccountObserver {
	if a.metrics == nil {
		return nil
	}
	return a.metrics
}

// requestObserver is what the HTTP adapter reports every request to: nil
// when metrics are off, so requests pay nothing.
func (a *App) requestObserver() ports.RequestObserver {
	if a.metrics == nil {
		return nil
	}
	return a.metrics
}

// mainMetrics is the /metrics handler of the main listener: only with
// COUNSEL_METRICS_TOKEN.
func (a *App) mainMetrics() http.Handler {
	if a.metrics == nil || a.cfg.MetricsToken == "" {
		return nil
	}
	return a.metrics.Handler()
}
