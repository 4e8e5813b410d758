package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/promptsmith/promptsmith/audit"
	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// AuditStore is what the server needs of an audit store: *audit.Store has
// every method. Each takes the request's context, so a store that stopped
// answering holds a request no longer than its deadline.
type AuditStore interface {
	Record(ctx context.Context, v *engine.Variant, res *engine.Result) (string, error)
	Ping(ctx context.Context) error
	Resolve(ctx context.Context, key string) (string, error)
	Get(ctx context.Context, hash string) (audit.Entry, error)
	Chain(ctx context.Context, hash string) ([]audit.Entry, error)
}

// originRecorder is an audit store that records where a prompt came
// from too (*audit.Store): the label and commit, and with AuditInputs
// the input. A store without it records the prompt alone.
type originRecorder interface {
	RecordFrom(ctx context.Context, v *engine.Variant, res *engine.Result, o audit.Origin) (string, error)
}

// errAuditDown is the cause of a render answered 503 because its prompt
// could not be recorded: a prompt is never answered unrecorded.
var errAuditDown = errors.New("audit store unavailable")

// record hands a rendered prompt to the audit store, when there is one,
// under ctx: the request's render deadline. It runs after the render slot
// is given back, so that a slow store holds the request, never a slot.
// A store that failed answers 503 with Retry-After: the next request
// tries again, and succeeds once the store answers.
func (s *Server) record(ctx context.Context, src source, res *engine.Result, o audit.Origin) error {
	if s.Audit == nil {
		return nil
	}
	ctx, end := s.span(ctx, "audit write")
	start := time.Now()
	var err error
	if rec, ok := s.Audit.(originRecorder); ok {
		_, err = rec.RecordFrom(ctx, src.v, res, o)
	} else {
		_, err = s.Audit.Record(ctx, src.v, res)
	}
	s.metrics.auditWrites.Inc()
	s.metrics.auditDuration.Observe(time.Since(start).Seconds())
	end(err)
	if err == nil {
		return nil
	}
	s.metrics.auditFailures.Inc()
	if stop := stoppedError(ctx, err); stop != nil {
		return stop
	}
	return &engine.Error{Kind: engine.KindUnavailable, Reason: "the prompt was rendered but cannot be recorded in the audit store, so it is not answered",
		Hints: []string{"retry after the seconds in Retry-After; GET /readyz says when the store answers again"}, Err: fmt.Errorf("%w: %w", errAuditDown, err)}
}

// auditEntry answers GET /v1/audit/{key}: the recorded prompt a hash, a
// SHA-256, a unique prefix of either or an id names, with its text,
// verified as render audit show verifies it.
func (s *Server) auditEntry(w http.ResponseWriter, r *http.Request) {
	s.auditRead(w, r, func(ctx context.Context, hash string) (any, error) { return s.Audit.Get(ctx, hash) })
}

// auditChain answers GET /v1/audit/{key}/chain: the prompt and each
// prompt it embeds, down to the root of its delegation chain, with texts.
func (s *Server) auditChain(w http.ResponseWriter, r *http.Request) {
	s.auditRead(w, r, func(ctx context.Context, hash string) (any, error) { return s.Audit.Chain(ctx, hash) })
}

// auditRead resolves {key} and answers what read finds at its hash, both
// under the render deadline.
func (s *Server) auditRead(w http.ResponseWriter, r *http.Request, read func(ctx context.Context, hash string) (any, error)) {
	if s.Audit == nil {
		s.writeError(w, r, &engine.Error{Kind: engine.KindUsage, Path: r.URL.Path, Reason: "this server records no prompts",
			Hints: []string{"start render serve with --audit FILE or URL"}, Err: errNotFound})
		return
	}
	ctx, cancel := s.renderContext(r.Context())
	defer cancel()
	key := r.PathValue("key")
	v, err := func() (any, error) {
		hash, err := s.Audit.Resolve(ctx, key)
		if err != nil {
			return nil, err
		}
		return read(ctx, hash)
	}()
	if err != nil {
		s.writeError(w, r, storeAnswer(answerError(ctx, err)))
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// storeAnswer is what a client is told of err, an audit store's error:
// the store's address (a file, or a database's user, host, port and
// name) and what its driver said of a failure stay in the log, where
// the error is the answer's cause; a key that names nothing, or several,
// and a row that does not verify are answered as they are.
func storeAnswer(err error) error {
	e := engine.AsError(err)
	switch e.Kind {
	case engine.KindCancelled:
		return err
	case engine.KindUnavailable, engine.KindInternal:
		if errors.Is(err, errRenderTimeout) || errors.Is(err, errClientGone) {
			return err // the server's own words: stoppedError
		}
		return &engine.Error{Kind: e.Kind, Reason: "the audit store cannot be read now (the server's log says why)",
			Hints: []string{"retry after the seconds in Retry-After; GET /readyz says when the store answers again"}, Err: err}
	}
	if e.Path == "" {
		return err
	}
	c := *e
	c.Path, c.Err = "", err
	return &c
}

// auditComponents names audit.Entry in components.schemas, and describes
// it and its members.
func auditComponents() (map[reflect.Type]string, map[string]string) {
	return map[reflect.Type]string{reflect.TypeFor[audit.Entry](): "AuditEntry"}, map[string]string{
		"AuditEntry":            "A recorded prompt, verified against its address (and signature, with a key) before it is served.",
		"AuditEntry.hash":       "Its address: a hash of its own bytes and of the prompts it embeds.",
		"AuditEntry.sha256":     "The hex SHA-256 of its text.",
		"AuditEntry.variant":    "The variant that rendered it; empty for a prompt known only as embedded in another.",
		"AuditEntry.ids":        "The ids it was rendered with (delegation_id, ...).",
		"AuditEntry.provenance": "The library that rendered it, when it was recorded itself.",
		"AuditEntry.size":       "The length of its text in bytes.",
		"AuditEntry.recorded":   "When it was first recorded (RFC 3339, UTC).",
		"AuditEntry.budget":     "How it was fitted to a number of tokens, for a render with max_tokens.",
		"AuditEntry.text":       "The prompt, byte for byte as rendered.",
	}
}

// auditKeyParam is the {key} of an audit path.
func auditKeyParam(*openapi.Builder) map[string]any {
	return map[string]any{"name": "key", "in": "path", "required": true,
		"description": "A recorded prompt's hash or SHA-256, a unique prefix of either of 8 hex digits or more, or an id value such as a delegation_id.",
		"schema":      map[string]any{"type": "string"}}
}

func auditEntryOp() openapi.Operation {
	return openapi.Operation{Summary: "A recorded prompt, with its text, ids and provenance, verified",
		Params:  []openapi.Param{auditKeyParam},
		Replies: []openapi.Reply{openapi.JSONReply(200, "The prompt as it was recorded.", openapi.TypeOf[audit.Entry]()), ambiguousKey()},
		Shared:  []int{404, 500, 503}}
}

func auditChainOp() openapi.Operation {
	return openapi.Operation{Summary: "A recorded prompt and each prompt it embeds, down to the root of its delegation chain",
		Params:  []openapi.Param{auditKeyParam},
		Replies: []openapi.Reply{openapi.JSONReply(200, "The chain from the prompt named to the root, each with its text.", openapi.TypeOf[[]audit.Entry]()), ambiguousKey()},
		Shared:  []int{404, 500, 503}}
}

// ambiguousKey is the answer to a key that matches several prompts.
func ambiguousKey() openapi.Reply {
	return openapi.JSONReply(422, "The key matches several prompts: give more of the hash.", openapi.TypeOf[errorBody]())
}
