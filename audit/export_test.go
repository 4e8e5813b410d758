package audit

import "context"

// ResolveAnyPrefix is Resolve reading a prefix of any length, for a test
// of prefixes that two prompts share (two of 17 share a first digit; none
// share eight).
func ResolveAnyPrefix(ctx context.Context, s *Store, key string) (string, error) {
	return s.resolve(ctx, key, 1)
}
