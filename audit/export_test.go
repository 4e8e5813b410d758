package audit

import (
	"context"
	"time"
)

// ResolveAnyPrefix is Resolve reading a prefix of any length, for a test
// of prefixes that two prompts share (two of 17 share a first digit; none
// share eight).
func ResolveAnyPrefix(ctx context.Context, s *Store, key string) (string, error) {
	return s.resolve(ctx, key, 1)
}

// OnTransaction calls f with the number of records of each transaction the
// store writes, before it writes it; f may block, holding that writer.
func OnTransaction(s *Store, f func(n int)) { s.group.written = f }

// Waiting is the number of records waiting for a writer to take them.
func Waiting(s *Store) int { return int(s.group.waiting.Load()) }

// SetClock makes the store stamp its records with the time now returns.
func SetClock(s *Store, now func() time.Time) { s.now = now }
