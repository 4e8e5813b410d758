package server

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/internal/labels"
)

// The outcomes of a render, the values of promptsmith_renders_total's
// outcome label.
const (
	outcomeOK            = "ok"             // rendered (and recorded)
	outcomeInputError    = "input_error"    // the caller's input or call was wrong (4xx)
	outcomeCheckFailure  = "check_failure"  // the prompt failed a check of its manifest (422)
	outcomeInternalError = "internal_error" // the library or the server failed (5xx): a bug to report
	outcomeUnavailable   = "unavailable"    // the audit store did not answer, or the label serves nothing (503): an outage, not a bug
	outcomeRejected      = "rejected"       // no render slot nor queue place was free (503)
	outcomeTimeout       = "timeout"        // --render-timeout passed (503)
	outcomeCancelled     = "cancelled"      // the client went away first
)

// outcomeOf is the outcome of a render that failed with err: stopped by
// the server or its client (the causes stoppedError and waitForRoom wrap),
// else the caller's mistake or the server's fault, as its status says.
func outcomeOf(err error) string {
	switch {
	case errors.Is(err, errBusy):
		return outcomeRejected
	case errors.Is(err, errRenderTimeout):
		return outcomeTimeout
	case errors.Is(err, errClientGone):
		return outcomeCancelled
	case errors.Is(err, errAuditDown), errors.Is(err, labels.ErrFailing):
		return outcomeUnavailable
	case status(err) >= 500:
		return outcomeInternalError
	}
	return outcomeInputError
}

// metrics are the server's Prometheus metrics, on a registry of its own.
type metrics struct {
	registry       *prometheus.Registry
	renders        *prometheus.CounterVec
	duration       *prometheus.HistogramVec
	wait           prometheus.Histogram
	bytes          *prometheus.CounterVec
	inFlight       prometheus.Gauge
	queued         prometheus.Gauge
	bodyBytes      prometheus.Gauge
	bodiesWaiting  prometheus.Gauge
	auditWrites    prometheus.Counter
	auditFailures  prometheus.Counter
	auditDuration  prometheus.Histogram
	reloads        prometheus.Counter
	reloadFailures prometheus.Counter
	library        *prometheus.GaugeVec
	requests       *prometheus.CounterVec
	// requestDuration is the time from a request's headers to its answer
	// written, by route and status.
	requestDuration *prometheus.HistogramVec
	// The labels' (render serve --repo): whether each fails now, its
	// failures, its switches to a new commit and the variants its loads
	// parsed (LabelRefreshed).
	labelFailing  *prometheus.GaugeVec
	labelFailures *prometheus.CounterVec
	labelSwitches *prometheus.CounterVec
	labelParsed   *prometheus.CounterVec
	// cachePrefixChanges counts renders whose prefix up to the last cache
	// breakpoint differs from the previous render of the same label,
	// variant and cache key (cacheprefix.go).
	cachePrefixChanges *prometheus.CounterVec
}

// newMetrics makes the server's metrics from their definitions and
// registers them, with Go's and the process's, on a registry of its own.
func newMetrics() *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	for _, d := range m.definitions() {
		m.registry.MustRegister(d.define())
	}
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// metricDef defines one of the server's metrics. into points at the
// metrics field that holds it, whose type says the metric's kind: a
// counter, gauge or histogram, a vector of them by labels.
type metricDef struct {
	into    any
	name    string
	labels  []string
	buckets []float64 // a histogram's
	help    string
}

// definitions are the server's metrics, each with the field it goes in;
// the names, labels and help texts are what docs/http-api.md lists.
func (m *metrics) definitions() []metricDef {
	renderBuckets := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	byVariant := []string{"label", "variant"}
	byLabel := []string{"label"}
	byRoute := []string{"route", "code"}
	return []metricDef{
		{&m.renders, "promptsmith_renders_total", []string{"label", "variant", "outcome"}, nil,
			"Renders and checks by label, variant and outcome (ok, input_error, check_failure, internal_error, unavailable, rejected, timeout, cancelled); variant is empty for a name the library does not have, label without --repo."},
		{&m.duration, "promptsmith_render_duration_seconds", byVariant, renderBuckets,
			"Time the engine took to render, by label and variant (waiting for a slot and the audit write not included)."},
		{&m.wait, "promptsmith_render_queue_seconds", nil, renderBuckets,
			"Time each render that ran waited for a slot (--max-renders) in the queue (--max-queue): 0 for one that found a slot free."},
		{&m.bytes, "promptsmith_rendered_bytes_total", byVariant, nil,
			"Bytes of prompt text rendered, by label and variant (check failures included)."},
		{&m.inFlight, "promptsmith_renders_in_flight", nil, nil,
			"Renders running now, at most --max-renders."},
		{&m.queued, "promptsmith_renders_queued", nil, nil,
			"Renders waiting for a slot now, at most --max-queue."},
		{&m.bodyBytes, "promptsmith_request_body_bytes", nil, nil,
			"Bytes of request bodies held now (reserved before they are read), at most --max-renders × --max-body."},
		{&m.bodiesWaiting, "promptsmith_request_bodies_waiting", nil, nil,
			"Requests waiting for room to hold their body before it is read, at most --max-queue."},
		{&m.auditWrites, "promptsmith_audit_writes_total", nil, nil,
			"Rendered prompts handed to the audit store."},
		{&m.auditFailures, "promptsmith_audit_failures_total", nil, nil,
			"Audit writes that failed or passed the request's deadline (each answered 503)."},
		{&m.auditDuration, "promptsmith_audit_write_duration_seconds", nil, []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
			"Time an audit write took, failed ones included (at most the request's deadline or the store's statement timeout)."},
		{&m.reloads, "promptsmith_library_reloads_total", nil, nil,
			"Libraries swapped in while serving (--watch)."},
		{&m.reloadFailures, "promptsmith_library_reload_failures_total", nil, nil,
			"Reloads that failed; the previous library is still served."},
		{&m.library, "promptsmith_library_info", []string{"label", "library", "library_short", "version"}, nil,
			"The library each label serves (hash and short hash; label empty without --repo) and the program's version; always 1. A label that serves nothing has none."},
		{&m.requests, "promptsmith_http_requests_total", byRoute, nil,
			"HTTP requests by route (the pattern matched, empty for none) and status code."},
		{&m.requestDuration, "promptsmith_http_request_duration_seconds", byRoute, []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
			"Time from a request's headers to its answer written, by route (the pattern matched, empty for none) and status code."},
		{&m.labelFailing, "promptsmith_label_failing", byLabel, nil,
			"1 while a label's ref names a commit it cannot serve (it serves its last good version), 0 while it serves its ref (render serve --repo)."},
		{&m.labelFailures, "promptsmith_label_failures_total", byLabel, nil,
			"Commits (or refs naming none) a label could not serve, each counted once."},
		{&m.labelSwitches, "promptsmith_label_switches_total", byLabel, nil,
			"Times a label began serving a new commit, the first load included."},
		{&m.labelParsed, "promptsmith_label_variants_parsed_total", byLabel, nil,
			"Variants a label's loads parsed from their files; a variant equal in a library served already is not parsed again."},
		{&m.cachePrefixChanges, "promptsmith_cache_prefix_changes_total", byVariant, nil,
			"Renders whose prompt up to its last cache breakpoint differs from the previous render of the same label, variant and ?cache_key (a render without one is not counted): a provider's cached prefix missed. The last prefix of the 4096 keys seen most recently is kept."},
	}
}

// define makes d's metric, of the kind its field's type says, stores it
// in the field and returns it for registering.
func (d metricDef) define() prometheus.Collector {
	opts := prometheus.Opts{Name: d.name, Help: d.help}
	histogram := prometheus.HistogramOpts{Name: d.name, Help: d.help, Buckets: d.buckets}
	switch into := d.into.(type) {
	case *prometheus.Counter:
		return store(into, prometheus.NewCounter(prometheus.CounterOpts(opts)))
	case **prometheus.CounterVec:
		return store(into, prometheus.NewCounterVec(prometheus.CounterOpts(opts), d.labels))
	case *prometheus.Gauge:
		return store(into, prometheus.NewGauge(prometheus.GaugeOpts(opts)))
	case **prometheus.GaugeVec:
		return store(into, prometheus.NewGaugeVec(prometheus.GaugeOpts(opts), d.labels))
	case *prometheus.Histogram:
		return store(into, prometheus.NewHistogram(histogram))
	case **prometheus.HistogramVec:
		return store(into, prometheus.NewHistogramVec(histogram, d.labels))
	}
	panic(fmt.Sprintf("metric %s: its field is %T, not a metric's", d.name, d.into))
}

// store puts c in the field at into and returns it.
func store[C prometheus.Collector](into *C, c C) prometheus.Collector {
	*into = c
	return c
}

// serving sets promptsmith_library_info to the library a label (""
// without labels) serves now; nil for none.
func (m *metrics) serving(label string, lib *engine.Library) {
	m.library.DeletePartialMatch(prometheus.Labels{"label": label})
	if lib == nil {
		return
	}
	p := lib.Provenance()
	m.library.WithLabelValues(label, p.Library, p.Short, p.Version).Set(1)
}

// labelInfo sets promptsmith_label_failing for the label of a refresh,
// and counts the variants it parsed.
func (m *metrics) labelInfo(o labels.Outcome) {
	m.labelParsed.WithLabelValues(o.Label).Add(float64(o.Parsed))
	failing := 0.0
	if o.Err != nil {
		failing = 1
	}
	m.labelFailing.WithLabelValues(o.Label).Set(failing)
}
