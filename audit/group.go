package audit

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/promptsmith/promptsmith/engine"
)

// Group commit. Renders that finish together share one transaction: a
// record waits in Record until a writer takes it, and a writer takes, with
// the first record it is handed, every record that is waiting at that
// moment (up to maxBatch), writes them in one transaction and answers each
// when it commits. Under load the cost of a commit (a round trip and, on
// PostgreSQL, a flush of the write-ahead log) is shared by as many
// records as arrived while the previous one was written; with one render
// at a time, a record is written alone, as before. A record is never
// answered before the transaction that holds it has committed.
//
// The queue is unbuffered: a record is either being written or its caller
// is still waiting to hand it over, so closing the store strands nothing.

// maxBatch bounds the records of one transaction: a transaction's
// statements carry every record's rows, and a failed one is retried record
// by record.
const maxBatch = 64

// DefaultWriters is the number of transactions one store writes at once
// when WithWriters does not say: one is filling while another commits.
const DefaultWriters = 2

// WithWriters sets the number of transactions the store writes at once,
// each on a connection of its own (at least 1). The store's PostgreSQL
// connections are its writers plus its readers (WithReaders).
func WithWriters(n int) Option { return func(o *options) { o.writers = max(n, 1) } }

type pending struct {
	ctx  context.Context
	rec  *record
	done chan error // buffered: a writer never waits for a caller who gave up
}

type group struct {
	queue   chan *pending
	closed  chan struct{}
	close   sync.Once
	wg      sync.WaitGroup
	waiting atomic.Int64 // records waiting to be taken, for tests
	// written, when set, is called with the number of records of each
	// transaction before it is written (tests).
	written func(n int)
}

// startWriters starts the store's writers.
func (s *Store) startWriters(n int) {
	s.group = &group{queue: make(chan *pending), closed: make(chan struct{})}
	for range n {
		s.group.wg.Add(1)
		go s.writer()
	}
}

// stopWriters stops taking records and waits for the transactions being
// written.
func (s *Store) stopWriters() {
	if s.group == nil {
		return
	}
	s.group.close.Do(func() { close(s.group.closed) })
	s.group.wg.Wait()
}

// commit hands rec to a writer and waits for its transaction.
func (s *Store) commit(ctx context.Context, rec *record) error {
	p := &pending{ctx: ctx, rec: rec, done: make(chan error, 1)}
	if err := s.handOver(ctx, p); err != nil {
		return err
	}
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return ctx.Err() // the record may still commit; its caller was not told it did
	}
}

// handOver waits until a writer takes p.
func (s *Store) handOver(ctx context.Context, p *pending) error {
	s.group.waiting.Add(1)
	defer s.group.waiting.Add(-1)
	select {
	case s.group.queue <- p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.group.closed:
		return &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "the audit store is closed; nothing was recorded"}
	}
}

func (s *Store) writer() {
	defer s.group.wg.Done()
	for {
		var first *pending
		select {
		case first = <-s.group.queue:
		case <-s.group.closed:
			return
		}
		batch := []*pending{first}
	more:
		for len(batch) < maxBatch {
			select {
			case p := <-s.group.queue:
				batch = append(batch, p)
			default:
				break more
			}
		}
		s.writeBatch(batch)
	}
}

// writeBatch writes the records whose callers still wait in one
// transaction and answers each. When the transaction fails and it held
// more than one record, each is tried alone, so that one record's failure
// is its own.
func (s *Store) writeBatch(batch []*pending) {
	live := batch[:0]
	for _, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.done <- err
			continue
		}
		live = append(live, p)
	}
	if len(live) == 0 {
		return
	}
	recs := make([]*record, len(live))
	for i, p := range live {
		recs[i] = p.rec
	}
	if s.group.written != nil {
		s.group.written(len(recs))
	}
	err := s.writeRecords(recs)
	if err != nil && len(live) > 1 {
		for _, p := range live {
			p.done <- s.writeRecords([]*record{p.rec})
		}
		return
	}
	for _, p := range live {
		p.done <- err
	}
}

// writeRecords writes recs in one transaction, bounded by the statement
// timeout: no caller's context, since the transaction is every caller's.
func (s *Store) writeRecords(recs []*record) error {
	ctx, cancel := s.statementContext(context.Background())
	defer cancel()
	if err := s.be.write(ctx, s.db, recs, s.statementTimeout); err != nil {
		return &engine.Error{Kind: engine.KindUnavailable, Path: s.where, Reason: "cannot record the prompt: " + err.Error(), Err: err}
	}
	return nil
}
