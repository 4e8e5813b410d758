package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/promptsmith/promptsmith/engine/internal/check"
	"github.com/promptsmith/promptsmith/engine/internal/outline"
	"github.com/promptsmith/promptsmith/engine/verbatim"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/manifest"
	"github.com/promptsmith/promptsmith/internal/pointer"
)

// Input is a document to render: JSON or YAML bytes and a name for error
// positions ("stdin", a file path, "example basic").
type Input = input.Input

// Result is a rendered prompt and what is known about it. The CLI's
// --format json and the HTTP API return it as it is.
type Result struct {
	Variant  string            `json:"variant"`
	Text     string            `json:"text"`
	Sections []Section         `json:"sections"`
	Outline  []Heading         `json:"outline"`
	Regions  []Region          `json:"regions,omitempty"`
	Checks   []CheckResult     `json:"checks"`
	IDs      map[string]string `json:"ids,omitempty"`
	Tokens   int               `json:"tokens,omitempty"` // with CountTokens or FitTokens
	// Provenance names the library, and the variant's own files, that made the prompt.
	Provenance Provenance `json:"provenance"`
	// Budget says how the prompt was fitted to a number of tokens (FitTokens).
	Budget *BudgetReport `json:"budget,omitempty"`
	// Breakpoints are the manifest's cache breakpoints placed in the
	// prompt, in order (cache.breakpoints).
	Breakpoints []Breakpoint `json:"breakpoints,omitempty"`
}

// Section is one kept section: Text[Start:End] is what its template wrote.
type Section struct {
	Name   string `json:"name"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Tokens int    `json:"tokens,omitempty"` // with CountTokens
}

// Heading is one top-level heading of a prompt, with its SectionPath.
type Heading = outline.Heading

// Region is the byte range of a verbatim field inside a prompt.
type Region = verbatim.Region

// CheckResult is the outcome of one manifest check on a rendered prompt.
type CheckResult = check.Result

// OK reports whether every check passed.
func (r *Result) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

// Render runs the whole pipeline for one input. A failed check returns the
// Result together with an *Error of KindCheck, so that callers can show both;
// every other failure returns only the *Error. ctx bounds the render: it is
// consulted between stages and while templates write.
func (lib *Library) Render(ctx context.Context, variant string, in Input, opts ...RenderOption) (*Result, error) {
	v, err := lib.Variant(variant)
	if err != nil {
		return nil, err
	}
	return v.render(ctx, in, renderOptionsOf(opts))
}

// Render is Library.Render for a variant already looked up.
func (v *Variant) Render(ctx context.Context, in Input, opts ...RenderOption) (*Result, error) {
	return v.render(ctx, in, renderOptionsOf(opts))
}

// RenderValue renders a Go value (a struct or map) by way of its JSON encoding,
// so that struct field order becomes the key order templates see.
func (lib *Library) RenderValue(ctx context.Context, variant string, value any, opts ...RenderOption) (*Result, error) {
	data, err := json.Marshal(value)
	if err != nil {
		return nil, &Error{Kind: KindInput, Reason: "cannot encode the input as JSON: " + err.Error(), Err: err}
	}
	return lib.Render(ctx, variant, Input{Name: "value", Data: data}, opts...)
}

// render is the pipeline: decode → validate → defaults → input rules → ids
// → sections → join → checks.
func (v *Variant) render(ctx context.Context, in Input, ro renderOptions) (res *Result, err error) {
	rec := v.startLog(ctx)
	defer func() {
		if err != nil {
			if e, ok := err.(*Error); ok {
				err = e.Bounded() // what the input made it quote, cut to size
			}
			rec.failure(err)
		}
	}()
	ctx, cancel := v.withLimit(ctx)
	defer cancel()
	// Until a template runs, reading the input is all the render does: a
	// deadline that passes before then (however busy the machine) is the
	// input's, as stoppedReading says.
	if err := ctx.Err(); err != nil {
		return nil, v.stoppedReading(ctx, in, err)
	}
	set, err := v.acquireFor(ctx, ro)
	if err != nil {
		return nil, err
	}
	defer v.releaseFor(set, ro)
	doc, err := v.decode(ctx, in, set, ro)
	if err != nil {
		return nil, err
	}
	defer doc.Release()
	_, endValidate := ro.stage(ctx, StageValidate)
	ids, err := v.validate(ctx, in, doc, rec)
	endValidate(err)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, v.stoppedReading(ctx, in, err)
	}
	res, data, err := v.produce(ctx, set, doc, ids, ro)
	if err != nil {
		return nil, err
	}
	set.marks.keep(res) // of a fit's renders, only the one it returns counts
	if err := v.describe(res, ids, ro); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, v.stopped(ctx, err)
	}
	_, endChecks := ro.stage(ctx, StageChecks)
	cerr := v.check(set, res, data)
	endChecks(cerr)
	if cerr != nil {
		return res, cerr
	}
	rec.success(res)
	return res, nil
}

// decode is the render's decode stage: the input read into a document
// within the library's limits, keys in the order set keeps. A deadline
// that passes while it reads is the input's, as stoppedReading says.
func (v *Variant) decode(ctx context.Context, in Input, set *execSet, ro renderOptions) (*input.Document, error) {
	dctx, endDecode := ro.stage(ctx, StageDecode)
	doc, err := input.Decoder{Order: &set.order, MaxBytes: v.lib.opts.limits.InputBytes, MaxDepth: v.lib.opts.limits.Depth}.DecodeContext(dctx, in)
	endDecode(err)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return nil, v.stoppedReading(ctx, in, cerr)
		}
		return nil, err
	}
	return doc, nil
}

// produce runs the templates on the validated input: fitted to the
// budget when there is one (the fit stage), or once as it is (the
// execute stage). data is what the templates saw, for the checks.
func (v *Variant) produce(ctx context.Context, set *execSet, doc *input.Document, ids map[string]string, ro renderOptions) (res *Result, data map[string]any, err error) {
	if ro.maxTokens > 0 {
		fctx, endFit := ro.stage(ctx, StageFit)
		res, data, err = v.fit(fctx, set, doc, ids, ro)
		endFit(err)
		return res, data, err
	}
	ectx, endExecute := ro.stage(ctx, StageExecute)
	data = v.data(doc, ids, nil, 0)
	res, err = v.execute(ectx, set, data, nil)
	endExecute(err)
	return res, data, err
}

// describe adds to a rendered prompt what a caller reads besides its
// text: its ids, provenance and breakpoints, and with a token counter
// the tokens of each section, of the text up to each breakpoint and of
// the whole.
func (v *Variant) describe(res *Result, ids map[string]string, ro renderOptions) error {
	res.IDs = ids
	var err error
	if res.Provenance, err = v.provenance(ro); err != nil {
		return err
	}
	res.Breakpoints = v.breakpoints(res)
	tc := ro.count
	if tc == nil {
		return nil
	}
	for i, s := range res.Sections {
		res.Sections[i].Tokens = tc.CountTokens(res.Text[s.Start:s.End])
	}
	for i, b := range res.Breakpoints {
		res.Breakpoints[i].Tokens = tc.CountTokens(res.Text[:b.End])
	}
	if res.Budget == nil || !sameCounter(tc, ro.counter) { // a fit counted the prompt already
		res.Tokens = tc.CountTokens(res.Text)
	}
	return nil
}

// validate checks the decoded input against the schema, fills in its
// defaults and ids, then checks its verbatim fields and input rules, and
// returns its ids.
func (v *Variant) validate(ctx context.Context, in Input, doc *input.Document, rec *renderLog) (map[string]string, error) {
	verr := v.schema.Validate(doc)
	if err := ctx.Err(); err != nil {
		return nil, v.stoppedReading(ctx, in, err)
	}
	v.schema.ApplyDefaults(doc)
	ids := v.computeIDs(doc.Root)
	rec.input(ids, doc.Root)
	if verr != nil {
		return nil, verr
	}
	if err := verbatim.CheckInput(doc, v.manifest.Verbatim); err != nil {
		return nil, doc.Locate(err)
	}
	if err := checkBidi(doc, v.schema.Root()); err != nil {
		return nil, doc.Locate(err)
	}
	if err := v.rules.Check(doc); err != nil {
		return nil, doc.Locate(err)
	}
	return ids, nil
}

// execute renders the sections into one buffer, dropping those that wrote only
// white space together with the joiner before them.
func (v *Variant) execute(ctx context.Context, set *execSet, data map[string]any, dropped map[string]bool) (*Result, error) {
	set.env.Run.Begin()
	fields := v.verbatimBytes(data)
	w := newRunWriter(ctx, int(v.textSize.Load())+fields, v.lib.opts.limits.OutputBytes)
	set.out = w
	defer func() { set.out = nil }()
	join := v.manifest.JoinText()
	spans := make([]Section, 0, len(v.manifest.Sections))
	for _, name := range v.manifest.Sections {
		if dropped[name] {
			continue
		}
		mark := len(w.b)
		if len(spans) > 0 {
			if _, err := w.WriteString(join); err != nil {
				return nil, v.stopped(ctx, err)
			}
		}
		start := len(w.b)
		if err := set.tmpl.ExecuteTemplate(w, name+".md.tmpl", data); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, v.stopped(ctx, cerr)
			}
			if errors.Is(err, errOutputLimit) {
				return nil, v.stopped(ctx, err)
			}
			return nil, v.templateErrorIn(err, data)
		}
		if len(bytes.TrimSpace(w.b[start:])) == 0 {
			w.truncate(mark)
			continue
		}
		spans = append(spans, Section{Name: name, Start: start, End: len(w.b)})
	}
	v.textSize.Store(int64(max(len(w.b)-fields, 0)))
	res := &Result{Variant: v.name, Text: w.text(), Sections: spans}
	set.marks.finish(res)
	return res, nil
}

// verbatimBytes is the size of the verbatim fields the templates will
// write, the part of a prompt's size that the last render's does not tell.
func (v *Variant) verbatimBytes(data map[string]any) int {
	n := 0
	for _, vb := range v.manifest.Verbatim {
		if s, ok := pointer.Lookup(data, vb.Field); ok {
			if s, ok := s.(string); ok {
				n += len(s)
			}
		}
	}
	return n
}

// check fills res.Regions, res.Outline and res.Checks, and returns an
// *Error of KindCheck when any check failed.
func (v *Variant) check(set *execSet, res *Result, data map[string]any) error {
	rep, err := check.Run(check.Prompt{
		Text: res.Text,
		Data: data,
		SectionAt: func(at int) string {
			for _, s := range res.Sections {
				if at >= s.Start && at < s.End {
					return s.Name
				}
			}
			return ""
		},
		When:      func(kind string, i int, _ manifest.TextRule) (bool, error) { return v.condition(set, kind, i, data) },
		Declared:  func(key string, i int) int { return manifestLine(v.raw, "checks", key, i) },
		WrittenAt: func(at int) string { return v.writtenAt(res, at) },
	}, v.manifest)
	if err != nil {
		return err
	}
	res.Regions, res.Outline, res.Checks = rep.Regions, rep.Outline, rep.Results
	if f := rep.Failure(v.name, v.dir+"/prompt.yaml"); f != nil {
		return f
	}
	return nil
}

// condition evaluates a check's when: expression over the input.
func (v *Variant) condition(set *execSet, kind string, i int, data map[string]any) (bool, error) {
	var b bytes.Buffer
	if err := set.tmpl.ExecuteTemplate(&b, conditionName(kind, i), data); err != nil {
		return false, v.templateErrorIn(err, data)
	}
	switch strings.TrimSpace(b.String()) {
	case "true":
		return true, nil
	case "false", "":
		return false, nil
	}
	return false, &Error{Kind: KindTemplate, Position: v.dir + "/prompt.yaml",
		Reason: fmt.Sprintf("checks.%s[%d].when gave %q; it must give true or false", kind, i, b.String())}
}

// provenance is what a Result says of where it came from: the library's
// hash unless the render was asked to leave it out (WithoutLibraryHash),
// which spares a library loaded OnDemand reading all its files.
func (v *Variant) provenance(ro renderOptions) (Provenance, error) {
	p := Provenance{Version: v.lib.provenance.Version}
	if !ro.noHash {
		if err := v.lib.whole(); err != nil {
			return Provenance{}, err
		}
		p = v.lib.provenance
	}
	p.Variant = v.hash
	return p, nil
}
