package audit

import (
	"context"
	"database/sql"
	"time"

	"github.com/promptsmith/promptsmith/engine"
)

// DefaultStatementTimeout bounds one write or read of the store when
// WithStatementTimeout does not: long enough for a record of megabytes on
// a busy database, short enough that a locked table or a database that
// stopped answering frees the caller (a render server's slot and
// connection) in seconds rather than at the TCP timeout.
const DefaultStatementTimeout = 5 * time.Second

// WithStatementTimeout bounds each write and read of the store to d (0: no
// bound but the caller's context). PostgreSQL also enforces it on its side
// (statement_timeout), so a statement waiting on a lock is ended by the
// database even when the client has gone.
func WithStatementTimeout(d time.Duration) Option {
	return func(o *options) { o.statementTimeout = max(d, 0) }
}

// statementContext is ctx bounded by the store's statement timeout too.
func (s *Store) statementContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if s.statementTimeout <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, s.statementTimeout)
}

// Ping reports whether the database answers, within ctx and the statement
// timeout: a readiness probe's question. Its error is unavailable, naming
// the store.
func (s *Store) Ping(ctx context.Context) error {
	ctx, cancel := s.statementContext(ctx)
	defer cancel()
	if err := s.db.PingContext(ctx); err != nil {
		return &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "the audit store does not answer: " + err.Error(), Err: err}
	}
	var one int
	if err := s.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "the audit store does not answer: " + err.Error(), Err: err}
	}
	return nil
}

// Stats are the connection pool's statistics, for the pool gauges of a
// server's /metrics.
func (s *Store) Stats() sql.DBStats { return s.db.Stats() }
