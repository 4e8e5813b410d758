package main

import (
	"context"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// A replica of render serve restarted while its PostgreSQL is down would
// exit at once and be restarted again and again until the database came
// back. Instead it starts with a pendingAudit: /readyz answers 503 and
// every render answers 503 with Retry-After, as when the database goes
// down under a running server, and the store opens on the first call
// after the database answers. A store that cannot be opened for another
// reason (a wrong password, a database that does not exist, a file that
// is not an audit store) still stops the server at start: waiting would
// not mend it.

// unreachable reports whether err, from opening the audit store, says
// that the database did not answer (refused, timed out, no such host
// yet): something that mends by itself.
func unreachable(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH)
}

// pendingAudit is the audit store of a server started while its database
// did not answer: it opens the store on the first call at least retry
// after the last attempt, and until then answers each call unavailable.
// One call opens; the calls meanwhile do not wait for it.
type pendingAudit struct {
	open  func() (*audit.Store, error)
	retry time.Duration
	// opened is called once, with the store, when it opens.
	opened func()

	mu      sync.Mutex
	store   *audit.Store
	tried   time.Time
	lastErr error
}

// get is the store once it is open, or the error that says why not yet.
func (p *pendingAudit) get() (*audit.Store, error) {
	if !p.mu.TryLock() { // another call is opening it
		return nil, p.unavailable(nil)
	}
	defer p.mu.Unlock()
	if p.store != nil {
		return p.store, nil
	}
	if !p.tried.IsZero() && time.Since(p.tried) < p.retry {
		return nil, p.unavailable(p.lastErr)
	}
	p.tried = time.Now()
	s, err := p.open()
	if err != nil {
		p.lastErr = err
		return nil, p.unavailable(err)
	}
	p.store = s
	if p.opened != nil {
		p.opened()
	}
	return s, nil
}

// unavailable is the error of a call made before the store opened.
func (p *pendingAudit) unavailable(err error) error {
	return &engine.Error{Kind: engine.KindUnavailable, Reason: "the audit store has not answered since the server started",
		Hints: []string{"the server opens it as soon as it answers; GET /readyz says when"}, Err: err}
}

// Close closes the store, if it opened.
func (p *pendingAudit) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.store == nil {
		return nil
	}
	return p.store.Close()
}

func (p *pendingAudit) Ping(ctx context.Context) error {
	s, err := p.get()
	if err != nil {
		return err
	}
	return s.Ping(ctx)
}

func (p *pendingAudit) Record(ctx context.Context, v *engine.Variant, res *engine.Result) (string, error) {
	s, err := p.get()
	if err != nil {
		return "", err
	}
	return s.Record(ctx, v, res)
}

func (p *pendingAudit) RecordFrom(ctx context.Context, v *engine.Variant, res *engine.Result, o audit.Origin) (string, error) {
	s, err := p.get()
	if err != nil {
		return "", err
	}
	return s.RecordFrom(ctx, v, res, o)
}

func (p *pendingAudit) Resolve(ctx context.Context, key string) (string, error) {
	s, err := p.get()
	if err != nil {
		return "", err
	}
	return s.Resolve(ctx, key)
}

func (p *pendingAudit) Get(ctx context.Context, hash string) (audit.Entry, error) {
	s, err := p.get()
	if err != nil {
		return audit.Entry{}, err
	}
	return s.Get(ctx, hash)
}

func (p *pendingAudit) Chain(ctx context.Context, hash string) ([]audit.Entry, error) {
	s, err := p.get()
	if err != nil {
		return nil, err
	}
	return s.Chain(ctx, hash)
}
