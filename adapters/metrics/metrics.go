// Package metrics is Counsel's Prometheus adapter
// (github.com/prometheus/client_golang): it implements the observers of
// ports (HTTP requests, sign-ins) and holds the gauges the composition root
// sets (background jobs, backups, outboxes, database connections), and
// serves them all in the Prometheus text format.
//
// Every label has a bounded set of values: routes are route templates and
// unknown paths share one label, methods outside the standard ones share
// "OTHER", jobs and outbox kinds are names the code registers. A
// Registry's methods are safe on a nil *Registry, where they do nothing:
// that is metrics turned off.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"counsel/domain/account"
	"counsel/ports"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Job names of counsel_job_last_success_timestamp_seconds{job}.
// Background work that later joins the service registers its own name with
// Registry.Job and reports with Registry.JobSucceeded.
const (
	JobSweep        = "sweep"         // contracts past their end date expired
	JobSigningSweep = "signing_sweep" // signing submissions past their deadline expired
	JobEvidence     = "evidence"      // signed evidence produced
	JobHousekeeping = "housekeeping"  // ended sessions and old rates pruned
	JobBackup       = "backup"
	JobReminders    = "reminders"
	JobOutbox       = "outbox"
	JobKeyDates     = "key_dates" // owners' key-date digests queued
)

// Outbox kinds of counsel_outbox_pending{kind}; both are exported (0)
// until an outbox registers its count with Registry.Outbox.
const (
	OutboxMail    = "mail"
	OutboxWebhook = "webhook"
)

// Connections are a database's connections at one moment.
type Connections struct {
	InUse, Idle int
}

// Options configure a Registry.
type Options struct {
	Version string
	// Connections reads the database pool's state at each scrape; nil
	// exports nothing for counsel_db_connections.
	Connections func() Connections
}

// Registry holds every Counsel series.
type Registry struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	signIns   *prometheus.CounterVec
	refreshes *prometheus.CounterVec
	lockouts  prometheus.Counter
	jobs      *prometheus.GaugeVec
	backup    prometheus.Gauge

	// series caches the children of requests and durations by label
	// values, so a request costs one map read instead of hashing its
	// labels twice.
	series sync.Map // seriesKey -> *requestSeries

	mu       sync.Mutex
	outboxes map[string]func(context.Context) (int, error)
}

var (
	_ ports.RequestObserver = (*Registry)(nil)
	_ ports.AccountObserver = (*Registry)(nil)
)

type seriesKey struct {
	route, method string
	status        int
}

type requestSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// New returns a Registry with every series registered: the Go runtime and
// process collectors, counsel_build_info, the request, sign-in and
// refresh counters, the jobs sweep, signing_sweep, evidence and
// housekeeping (0 until their first success), the backup timestamp (0
// until a backup succeeds) and the mail and webhook outboxes (0).
func New(opts Options) *Registry {
	r := &Registry{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "counsel_http_requests_total",
			Help: "HTTP requests answered, by route template, method and status code.",
		}, []string{"route", "method", "code"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "counsel_http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by route template and method.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route", "method"}),
		signIns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "counsel_sign_ins_total",
			Help: "Sign-in attempts, by method and outcome (success, failure, error).",
		}, []string{"method", "outcome"}),
		refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "counsel_token_refreshes_total",
			Help: "Token refreshes, by outcome (success, failure, reused, error).",
		}, []string{"outcome"}),
		lockouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "counsel_lockouts_total",
			Help: "Accounts locked after too many failed sign-ins.",
		}),
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "counsel_job_last_success_timestamp_seconds",
			Help: "Unix time of the last successful run of each background job on this instance; 0: none yet.",
		}, []string{"job"}),
		backup: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "counsel_backup_last_success_timestamp_seconds",
			Help: "Unix time of the last backup this instance wrote and verified; 0: none yet.",
		}),
		outboxes: map[string]func(context.Context) (int, error){},
	}
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "counsel_build_info",
		Help: "Always 1, labelled with the running build's version.",
	}, []string{"version"})
	build.WithLabelValues(opts.Version).Set(1)
	r.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		build, r.requests, r.durations, r.signIns, r.refreshes, r.lockouts, r.jobs, r.backup,
		&pull{r: r, connections: opts.Connections},
	)
	for _, o := range []string{ports.OutcomeSuccess, ports.OutcomeFailure, ports.OutcomeReused, ports.OutcomeError} {
		r.refreshes.WithLabelValues(o)
	}
	for _, m := range []string{account.MethodPassword, account.MethodIdP, account.MethodPasskey} {
		for _, o := range []string{ports.OutcomeSuccess, ports.OutcomeFailure, ports.OutcomeError} {
			r.signIns.WithLabelValues(m, o)
		}
	}
	for _, j := range []string{JobSweep, JobSigningSweep, JobEvidence, JobHousekeeping} {
		r.Job(j)
	}
	return r
}

// Handler serves every series in the Prometheus text format.
func (r *Registry) Handler() http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{})
}

// Gatherer is the registry, for tests that read the series.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// method keeps the method label bounded.
func method(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "OTHER"
}

// ObserveRequest implements ports.RequestObserver.
func (r *Registry) ObserveRequest(route, m string, status int, d time.Duration) {
	if r == nil {
		return
	}
	if status == 0 { // nothing written: net/http answered 200
		status = http.StatusOK
	}
	k := seriesKey{route, method(m), status}
	s, ok := r.series.Load(k)
	if !ok {
		s, _ = r.series.LoadOrStore(k, &requestSeries{
			count:    r.requests.WithLabelValues(k.route, k.method, strconv.Itoa(status)),
			duration: r.durations.WithLabelValues(k.route, k.method),
		})
	}
	rs := s.(*requestSeries)
	rs.count.Inc()
	rs.duration.Observe(d.Seconds())
}

// SignIn implements ports.AccountObserver.
func (r *Registry) SignIn(method, outcome string) {
	if r != nil {
		r.signIns.WithLabelValues(method, outcome).Inc()
	}
}

// Refresh implements ports.AccountObserver.
func (r *Registry) Refresh(outcome string) {
	if r != nil {
		r.refreshes.WithLabelValues(outcome).Inc()
	}
}

// Lockout implements ports.AccountObserver.
func (r *Registry) Lockout() {
	if r != nil {
		r.lockouts.Inc()
	}
}

// Job exports counsel_job_last_success_timestamp_seconds{job=name} (0
// until JobSucceeded): a background job calls it when it starts, so a job
// that never succeeds shows as 0 rather than as no series.
func (r *Registry) Job(name string) {
	if r != nil {
		r.jobs.WithLabelValues(name)
	}
}

// JobSucceeded records that job name finished a run without error at at.
func (r *Registry) JobSucceeded(name string, at time.Time) {
	if r != nil {
		r.jobs.WithLabelValues(name).Set(float64(at.UnixNano()) / 1e9)
	}
}

// BackupSucceeded records a backup written and verified at at (the
// backup job also reports JobSucceeded(JobBackup, ...)). A service that
// finds an earlier backup at start may report that backup's time.
func (r *Registry) BackupSucceeded(at time.Time) {
	if r != nil {
		r.backup.Set(float64(at.UnixNano()) / 1e9)
	}
}

// Outbox makes counsel_outbox_pending{kind} read pending at each scrape
// (with a deadline of a few seconds) instead of exporting 0. A kind
// registered again replaces the earlier count; a count that fails is left
// out of that scrape.
func (r *Registry) Outbox(kind string, pending func(context.Context) (int, error)) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outboxes[kind] = pending
}

// pull collects what is read at scrape time: the database's connections
// and the outboxes' pending counts.
type pull struct {
	r           *Registry
	connections func() Connections
}

var (
	connectionsDesc = prometheus.NewDesc("counsel_db_connections",
		"Database connections by state (in_use, idle).", []string{"state"}, nil)
	outboxDesc = prometheus.NewDesc("counsel_outbox_pending",
		"Messages waiting in each outbox (mail, webhook); 0 while the service has no such outbox.", []string{"kind"}, nil)
)

func (p *pull) Describe(ch chan<- *prometheus.Desc) {
	ch <- connectionsDesc
	ch <- outboxDesc
}

func (p *pull) Collect(ch chan<- prometheus.Metric) {
	if p.connections != nil {
		c := p.connections()
		ch <- prometheus.MustNewConstMetric(connectionsDesc, prometheus.GaugeValue, float64(c.InUse), "in_use")
		ch <- prometheus.MustNewConstMetric(connectionsDesc, prometheus.GaugeValue, float64(c.Idle), "idle")
	}
	p.r.mu.Lock()
	counts := map[string]func(context.Context) (int, error){OutboxMail: nil, OutboxWebhook: nil}
	for k, f := range p.r.outboxes {
		counts[k] = f
	}
	p.r.mu.Unlock()
	for kind, f := range counts {
		n := 0
		if f != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			var err error
			n, err = f(ctx)
			cancel()
			if err != nil {
				continue
			}
		}
		ch <- prometheus.MustNewConstMetric(outboxDesc, prometheus.GaugeValue, float64(n), kind)
	}
}
