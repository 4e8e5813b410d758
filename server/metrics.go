package server

import (
	"errors"

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

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		renders: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_renders_total",
			Help: "Renders and checks by label, variant and outcome (ok, input_error, check_failure, internal_error, unavailable, rejected, timeout, cancelled); variant is empty for a name the library does not have, label without --repo.",
		}, []string{"label", "variant", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "promptsmith_render_duration_seconds",
			Help:    "Time the engine took to render, by label and variant (waiting for a slot and the audit write not included).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"label", "variant"}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "promptsmith_render_queue_seconds",
			Help:    "Time each render that ran waited for a slot (--max-renders) in the queue (--max-queue): 0 for one that found a slot free.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_rendered_bytes_total",
			Help: "Bytes of prompt text rendered, by label and variant (check failures included).",
		}, []string{"label", "variant"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "promptsmith_renders_in_flight",
			Help: "Renders running now, at most --max-renders.",
		}),
		queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "promptsmith_renders_queued",
			Help: "Renders waiting for a slot now, at most --max-queue.",
		}),
		bodyBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "promptsmith_request_body_bytes",
			Help: "Bytes of request bodies held now (reserved before they are read), at most --max-renders × --max-body.",
		}),
		bodiesWaiting: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "promptsmith_request_bodies_waiting",
			Help: "Requests waiting for room to hold their body before it is read, at most --max-queue.",
		}),
		auditWrites: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "promptsmith_audit_writes_total",
			Help: "Rendered prompts handed to the audit store.",
		}),
		auditFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "promptsmith_audit_failures_total",
			Help: "Audit writes that failed or passed the request's deadline (each answered 503).",
		}),
		auditDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "promptsmith_audit_write_duration_seconds",
			Help:    "Time an audit write took, failed ones included (at most the request's deadline or the store's statement timeout).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		reloads: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "promptsmith_library_reloads_total",
			Help: "Libraries swapped in while serving (--watch).",
		}),
		reloadFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "promptsmith_library_reload_failures_total",
			Help: "Reloads that failed; the previous library is still served.",
		}),
		library: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "promptsmith_library_info",
			Help: "The library each label serves (hash and short hash; label empty without --repo) and the program's version; always 1. A label that serves nothing has none.",
		}, []string{"label", "library", "library_short", "version"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_http_requests_total",
			Help: "HTTP requests by route (the pattern matched, empty for none) and status code.",
		}, []string{"route", "code"}),
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "promptsmith_http_request_duration_seconds",
			Help:    "Time from a request's headers to its answer written, by route (the pattern matched, empty for none) and status code.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"route", "code"}),
		labelFailing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "promptsmith_label_failing",
			Help: "1 while a label's ref names a commit it cannot serve (it serves its last good version), 0 while it serves its ref (render serve --repo).",
		}, []string{"label"}),
		labelFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_label_failures_total",
			Help: "Commits (or refs naming none) a label could not serve, each counted once.",
		}, []string{"label"}),
		labelSwitches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_label_switches_total",
			Help: "Times a label began serving a new commit, the first load included.",
		}, []string{"label"}),
		labelParsed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_label_variants_parsed_total",
			Help: "Variants a label's loads parsed from their files; a variant equal in a library served already is not parsed again.",
		}, []string{"label"}),
		cachePrefixChanges: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "promptsmith_cache_prefix_changes_total",
			Help: "Renders whose prompt up to its last cache breakpoint differs from the previous render of the same label, variant and ?cache_key (a render without one is not counted): a provider's cached prefix missed. The last prefix of the 4096 keys seen most recently is kept.",
		}, []string{"label", "variant"}),
	}
	m.registry.MustRegister(m.renders, m.duration, m.wait, m.bytes, m.inFlight, m.queued, m.bodyBytes, m.bodiesWaiting,
		m.auditWrites, m.auditFailures, m.auditDuration, m.reloads, m.reloadFailures, m.library, m.requests, m.requestDuration,
		m.labelFailing, m.labelFailures, m.labelSwitches, m.labelParsed, m.cachePrefixChanges,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
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
