package server

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/promptsmith/promptsmith/engine"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/server/internal/openapi"
)

// The runtime endpoints that render: POST /v1/render/{variant},
// /v1/check/{variant} and /v1/extract. Each reads a body (body.go) and
// waits for a render slot (slots.go).

// checkReport is the answer of /v1/check: the outcome of each check, and
// the error naming the failed ones when the answer is 422.
type checkReport struct {
	Variant    string               `json:"variant"`
	OK         bool                 `json:"ok"`
	Checks     []engine.CheckResult `json:"checks"`
	IDs        map[string]string    `json:"ids,omitempty"`
	Provenance engine.Provenance    `json:"provenance"`
	Error      *engine.Error        `json:"error,omitempty"`
	Stale      *engine.Error        `json:"stale,omitempty"`
}

// checkFailure is the body of a render whose prompt failed a check: the
// error, which names each failed check, and the Result, so that a caller
// sees the prompt it would have had.
type checkFailure struct {
	Error  *engine.Error `json:"error"`
	Result served        `json:"result"`
}

// extracted is the answer of /v1/extract.
type extracted struct {
	Depth  int    `json:"depth"`
	Region string `json:"region"`
	Text   string `json:"text"`
}

// answer is what a render that rendered answers: its status, its body,
// the outcome promptsmith_renders_total counts it as and the provenance
// of the prompt, which its headers name.
type answer struct {
	status     int
	body       any
	outcome    string
	provenance engine.Provenance
	ids        map[string]string
}

// render answers POST /v1/render/{variant}: the prompt and its Result.
func (s *Server) render(w http.ResponseWriter, r *http.Request) { s.serveRender(w, r, false) }

// check answers POST /v1/check/{variant}: the outcome of the render's
// checks, without the prompt.
func (s *Server) check(w http.ResponseWriter, r *http.Request) { s.serveRender(w, r, true) }

// serveRender looks the variant up, renders the body and answers. The
// outcome is counted before the answer is written, so that a client that
// has its answer finds it in /metrics. The headers name the library that
// made the prompt, as the body's provenance does, and an answer made from
// a variant's last good version is marked stale in both (stale.go).
func (s *Server) serveRender(w http.ResponseWriter, r *http.Request, checkOnly bool) {
	name := r.PathValue("variant")
	src, err := s.labelSource(w, r, name)
	if err != nil {
		s.metrics.renders.WithLabelValues(s.labelOf(r), "", outcomeOf(err)).Inc()
		s.writeError(w, r, err)
		return
	}
	provenanceHeaders(w, src)
	a, err := s.renderAnswer(w, r, src, checkOnly)
	if err != nil {
		s.metrics.renders.WithLabelValues(src.label, name, outcomeOf(err)).Inc()
		s.writeStaleError(w, r, err, src.stale)
		return
	}
	s.metrics.renders.WithLabelValues(src.label, name, a.outcome).Inc()
	noteIDs(w, a.ids)
	resultHeaders(w, a.provenance)
	writeJSON(w, a.status, a.body)
}

// renderAnswer reads the token parameters and the body, renders it with v
// in a render slot, records the prompt (Record) and says what to answer. A
// prompt that failed a check is an answer (422), not an error.
func (s *Server) renderAnswer(w http.ResponseWriter, r *http.Request, src source, checkOnly bool) (answer, error) {
	ask, err := s.tokenAsk(r)
	if err != nil {
		return answer{}, err
	}
	format, err := formatOf(r)
	if err != nil {
		return answer{}, err
	}
	opts := ask.options()
	if checkOnly {
		opts = ask.fit() // a check report has no token counts
	}
	body, release, waited, err := s.body(w, r, inputBody)
	if err != nil {
		return answer{}, err
	}
	defer release()
	// One bound for the wait for room to hold the body, the render and its
	// audit write; the slot is given back in between (record).
	ctx, cancel := s.renderContextAfter(r.Context(), waited)
	defer cancel()
	ctx, end := s.span(ctx, "render", attribute.String("promptsmith.variant", src.v.Name()))
	out, err := s.renderAndRecord(ctx, src, body, ask, append(opts, s.stageSpans()...), !checkOnly)
	end(err)
	if err != nil {
		return answer{}, err
	}
	if !checkOnly {
		s.notePrefix(r, src.label, out.res)
	}
	a := out.answer(checkOnly, src.stale)
	if format != "" && !checkOnly && out.checkErr == nil {
		a.body = providerBody(format, out.res)
	}
	return a, nil
}

// renderAndRecord renders body in a render slot and, when record is set
// and its checks passed, records the prompt once the slot is given back.
func (s *Server) renderAndRecord(ctx context.Context, src source, body []byte, ask tokenAsk, opts []engine.RenderOption, record bool) (rendered, error) {
	out, err := inSlot(s, ctx, func(ctx context.Context) (rendered, error) {
		return s.renderIn(ctx, src.label, src.v, engine.Input{Name: "body", Data: body}, opts)
	})
	if err != nil || !record || out.checkErr != nil {
		return out, err
	}
	return out, s.record(ctx, src, out.res, s.originOf(src, body, ask))
}

// rendered is a prompt rendered, with the error of the checks it failed:
// an answer (422), not a failure of the request.
type rendered struct {
	res      *engine.Result
	checkErr error
}

// answer is what a render answers: the Result, or for /v1/check the check
// report; 422 when a check failed. stale, when the variant rendered is its
// last good version, says why.
func (out rendered) answer(checkOnly bool, stale *engine.Error) answer {
	a := answer{status: http.StatusOK, outcome: outcomeOK, provenance: out.res.Provenance, ids: out.res.IDs}
	if out.checkErr != nil {
		a.status, a.outcome = http.StatusUnprocessableEntity, outcomeCheckFailure
	}
	res := served{Result: out.res, Stale: stale}
	switch {
	case checkOnly:
		a.body = newCheckReport(out.res, out.checkErr, stale)
	case out.checkErr != nil:
		a.body = checkFailure{Error: checkError(out.res, out.checkErr), Result: res}
	default:
		a.body = res
	}
	return a
}

// renderIn renders in with v, timing the render and counting the bytes of
// its prompt. It runs in the render slot; the audit write does not.
func (s *Server) renderIn(ctx context.Context, label string, v *engine.Variant, in engine.Input, opts []engine.RenderOption) (rendered, error) {
	start := time.Now()
	res, err := v.Render(ctx, in, opts...)
	if s.slotHook != nil {
		s.slotHook()
	}
	s.metrics.duration.WithLabelValues(label, v.Name()).Observe(time.Since(start).Seconds())
	if res == nil {
		return rendered{}, err
	}
	s.metrics.bytes.WithLabelValues(label, v.Name()).Add(float64(len(res.Text)))
	nonNilResult(res)
	return rendered{res, err}, nil
}

// newCheckReport is the check report of res, whose checks failed with
// checkErr (nil when every one passed), made from a stale variant when
// stale says why.
func newCheckReport(res *engine.Result, checkErr error, stale *engine.Error) checkReport {
	out := checkReport{Variant: res.Variant, OK: checkErr == nil, Checks: res.Checks, IDs: res.IDs, Provenance: res.Provenance, Stale: stale}
	if checkErr != nil {
		out.Error = checkError(res, checkErr)
	}
	return out
}

// extract answers POST /v1/extract: the prompt embedded in a rendered
// prompt, ?depth levels down, from the verbatim region ?variant and
// ?region name.
func (s *Server) extract(w http.ResponseWriter, r *http.Request) {
	depth, err := depthOf(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st := s.stateForAnswer(w, r)
	if st == nil {
		return
	}
	vb, err := st.lib.VerbatimRegion(r.URL.Query().Get("variant"), r.URL.Query().Get("region"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	body, release, waited, err := s.body(w, r, promptBody)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	ctx, cancel := s.renderContextAfter(r.Context(), waited) // the wait for room counts too
	defer cancel()
	text, err := inSlot(s, ctx, func(context.Context) (string, error) {
		return verbatim.Of(vb).Extract(string(body), depth)
	})
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, extracted{Depth: depth, Region: vb.Name, Text: text})
}

// depthOf reads an extraction's ?depth: 1 when there is none.
func depthOf(r *http.Request) (int, error) {
	d := r.URL.Query().Get("depth")
	if d == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(d)
	if err != nil || n < 1 {
		return 0, &engine.Error{Kind: engine.KindUsage, Parameter: "depth", Reason: fmt.Sprintf("depth %s is not a whole number of 1 or more", phrase.Quote(d))}
	}
	return n, nil
}

func renderOp() openapi.Operation {
	return openapi.Operation{Summary: "Render a prompt",
		Description: "Decode, validate, render and check the input; with an audit store, record the prompt before answering (503 when it cannot be recorded). " + openapi.StaleDoc,
		Params: []openapi.Param{openapi.MaxTokensParam, tokensParam,
			openapi.QueryParam("format", "result (the default): the prompt and its metadata; anthropic: the Messages API's system, text blocks split at the variant's cache breakpoints, "+
				"cache_control on each block that ends at one, their texts joined the prompt byte for byte; openai: a system message and a prompt_cache_key derived from the prompt up to its last breakpoint. "+
				"A prompt that fails a check answers 422 with CheckFailure whatever the format.",
				map[string]any{"type": "string", "enum": []string{"result", "anthropic", "openai"}}),
			openapi.QueryParam("cache_key", "Who the render is for, as the caller names it (an agent, a conversation): promptsmith_cache_prefix_changes_total counts a render whose prompt up to its last cache breakpoint "+
				"differs from the previous render of the same label, variant and cache_key; a render without one is not counted.", map[string]any{"type": "string"})},
		Body:       openapi.InputRequest,
		PerVariant: "render",
		Replies: []openapi.Reply{
			openapi.JSONReply(200, "The prompt and its metadata (format result; stale says why when it was made from the variant's last good version), "+
				"or the prompt as an Anthropic (format anthropic) or OpenAI (format openai) request's part.",
				openapi.OneOf(openapi.TypeOf[served](), openapi.TypeOf[engine.AnthropicRequest](), openapi.TypeOf[engine.OpenAIRequest]()), openapi.ProvenanceHeaders()...),
			openapi.JSONReply(422, "The input is malformed or breaks the schema or a rule (ErrorBody, error.field and error.position say where), "+
				"or cannot fit max_tokens (ErrorBody), or the prompt failed a check (CheckFailure: error.also names each failed check and its section; result is the prompt).",
				openapi.OneOf(openapi.TypeOf[errorBody](), openapi.TypeOf[checkFailure]()), openapi.ProvenanceHeaders()...),
		},
		Shared: []int{400, 404, 413, 500, 503}, Labelled: true}
}

func checkOp() openapi.Operation {
	return openapi.Operation{Summary: "Render a prompt and report its checks only",
		Description: openapi.StaleDoc,
		Params:      []openapi.Param{openapi.MaxTokensParam, tokensParam},
		Body:        openapi.InputRequest,
		PerVariant:  "check",
		Replies: []openapi.Reply{
			openapi.JSONReply(200, "Every check passed.", openapi.TypeOf[checkReport](), openapi.ProvenanceHeaders()...),
			openapi.JSONReply(422, "The input is wrong (ErrorBody), or a check failed (CheckReport with ok false and error).",
				openapi.OneOf(openapi.TypeOf[errorBody](), openapi.TypeOf[checkReport]()), openapi.ProvenanceHeaders()...),
		},
		Shared: []int{400, 404, 413, 500, 503}, Labelled: true}
}

func extractOp() openapi.Operation {
	return openapi.Operation{Summary: "Take the prompt embedded in a rendered prompt, a number of levels down",
		Params: []openapi.Param{
			openapi.QueryParam("depth", "How many levels down: 1 is the parent's prompt, 2 its parent's.", map[string]any{"type": "integer", "minimum": 1, "default": 1}),
			openapi.QueryParam("variant", "The variant whose verbatim region to read; needed when several declare one.", map[string]any{"type": "string"}),
			openapi.QueryParam("region", "The verbatim region to read; needed when the variant declares several.", map[string]any{"type": "string"}),
		},
		Body: promptRequest,
		Replies: []openapi.Reply{
			openapi.JSONReply(200, "The embedded prompt.", openapi.TypeOf[extracted]()),
			openapi.JSONReply(422, "The prompt holds no embedded prompt at that level, or its markers do not balance (error.level says where).", openapi.TypeOf[errorBody]()),
		},
		Shared: []int{400, 404, 413, 503}, Labelled: true}
}

// promptRequest is the body of an extraction: a rendered prompt.
func promptRequest(*openapi.Builder) map[string]any {
	return map[string]any{"required": true, "description": "A rendered prompt, as text/plain or text/markdown.",
		"content": map[string]any{
			"text/plain":    map[string]any{"schema": map[string]any{"type": "string"}},
			"text/markdown": map[string]any{"schema": map[string]any{"type": "string"}},
		}}
}
