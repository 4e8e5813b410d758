package server

import (
	"context"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
)

// The external tests (package server_test) read gauges with the helpers of
// body_test.go.
var (
	GaugeOf    = gaugeOf
	AwaitGauge = awaitGauge
)

// RecordHook is an audit store for tests: Record calls the function, and
// the rest answer as an empty store that is up.
type RecordHook func(*engine.Variant, *engine.Result) error

func (h RecordHook) Record(_ context.Context, v *engine.Variant, res *engine.Result) (string, error) {
	if h == nil {
		return "", nil
	}
	return "", h(v, res)
}
func (RecordHook) Ping(context.Context) error { return nil }
func (RecordHook) Resolve(_ context.Context, key string) (string, error) {
	return "", &engine.Error{Kind: engine.KindInput, Key: key, Reason: "not recorded", Err: audit.ErrNotFound}
}
func (RecordHook) Get(context.Context, string) (audit.Entry, error)     { return audit.Entry{}, nil }
func (RecordHook) Chain(context.Context, string) ([]audit.Entry, error) { return nil, nil }

// SetSlotHook makes every render call f in its slot; SlotHookOf is the
// hook set.
func SetSlotHook(s *Server, f func()) { s.slotHook = f }
func SlotHookOf(s *Server) func()     { return s.slotHook }
