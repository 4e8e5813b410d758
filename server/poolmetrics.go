package server

import (
	"database/sql"

	"github.com/prometheus/client_golang/prometheus"
)

// poolStats is an audit store that can tell its connection pool's state:
// *audit.Store can.
type poolStats interface{ Stats() sql.DBStats }

// poolCollector exports the audit store's connection pool, read at each
// scrape from whatever store the server has then; nothing without one.
type poolCollector struct {
	s                                 *Server
	open, inUse, idle, max, waitedFor *prometheus.Desc
	waits, closedIdle, closedLife     *prometheus.Desc
}

func newPoolCollector(s *Server) *poolCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("promptsmith_audit_db_"+name, help, nil, nil)
	}
	return &poolCollector{s: s,
		open:       d("connections_open", "Connections to the audit database open now, in use or idle."),
		inUse:      d("connections_in_use", "Connections to the audit database in use now."),
		idle:       d("connections_idle", "Idle connections to the audit database."),
		max:        d("connections_max", "The most connections the pool opens (0: no bound)."),
		waits:      d("waits_total", "Times a write or read waited for a free connection."),
		waitedFor:  d("wait_seconds_total", "Time spent waiting for a free connection."),
		closedIdle: d("closed_idle_total", "Connections closed for being idle too long or too many."),
		closedLife: d("closed_lifetime_total", "Connections closed for reaching their lifetime."),
	}
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.open, c.inUse, c.idle, c.max, c.waits, c.waitedFor, c.closedIdle, c.closedLife} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	p, ok := c.s.Audit.(poolStats)
	if !ok {
		return
	}
	st := p.Stats()
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	n := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	g(c.open, float64(st.OpenConnections))
	g(c.inUse, float64(st.InUse))
	g(c.idle, float64(st.Idle))
	g(c.max, float64(st.MaxOpenConnections))
	n(c.waits, float64(st.WaitCount))
	n(c.waitedFor, st.WaitDuration.Seconds())
	n(c.closedIdle, float64(st.MaxIdleClosed+st.MaxIdleTimeClosed))
	n(c.closedLife, float64(st.MaxLifetimeClosed))
}
