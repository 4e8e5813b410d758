package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
)

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
	Tokens   int               `json:"tokens,omitempty"` // with WithTokenCounter
}

// Section is one kept section: Text[Start:End] is what its template wrote.
type Section struct {
	Name   string `json:"name"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
	Tokens int    `json:"tokens,omitempty"` // with WithTokenCounter
}

// OK reports whether every check passed.
func (r *Result) OK() bool {
	for _, c := range r.Checks {
		if !c.OK {
			return false
		}
	}
	return true
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Render runs the whole pipeline for one input. A failed check returns the
// Result together with an *Error of KindCheck, so that callers can show both;
// every other failure returns only the *Error.
func (lib *Library) Render(variant string, in Input) (*Result, error) {
	v, err := lib.Variant(variant)
	if err != nil {
		return nil, err
	}
	return v.render(lib, in)
}

// RenderValue renders a Go value (a struct or map) by way of its JSON encoding,
// so that struct field order becomes the key order templates see.
func (lib *Library) RenderValue(variant string, value any) (*Result, error) {
	data, err := json.Marshal(value)
	if err != nil {
		return nil, &Error{Kind: KindInput, Reason: "cannot encode the input as JSON: " + err.Error(), Err: err}
	}
	return lib.Render(variant, Input{Name: "value", Data: data})
}

func (v *Variant) render(lib *Library, in Input) (res *Result, err error) {
	var ids map[string]string
	var attrs []any
	defer func() {
		if err != nil {
			lib.logFailure(v, ids, attrs, err)
		}
	}()
	doc, err := decode(in)
	if err != nil {
		return nil, err
	}
	defer doc.release()
	verr := v.schemas.validate(v.schema, doc)
	v.defaults.apply(doc.root, &doc.order, 0)
	ids = v.computeIDs(doc.root)
	attrs = v.logAttrs(doc.root)
	if verr != nil {
		return nil, verr
	}
	if err := v.checkVerbatimInput(doc.root); err != nil {
		return nil, withPosition(err, doc)
	}
	if err := v.checkRules(doc.root); err != nil {
		return nil, withPosition(err, doc)
	}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		doc.root[name] = ids[name]
		doc.order.appendKey(doc.root, name)
	}
	res, err = v.execute(doc.root)
	if err != nil {
		return nil, err
	}
	res.IDs = ids
	if lib.tokens != nil {
		for i, s := range res.Sections {
			res.Sections[i].Tokens = lib.tokens.CountTokens(res.Text[s.Start:s.End])
		}
		res.Tokens = lib.tokens.CountTokens(res.Text)
	}
	if cerr := v.check(res, doc.root); cerr != nil {
		return res, cerr
	}
	lib.logSuccess(v, res, ids, attrs)
	return res, nil
}

func withPosition(err error, doc *document) error {
	if e, ok := err.(*Error); ok && e.Position == "" && strings.HasPrefix(e.Field, "/") {
		e.Position = doc.position(e.Field)
	}
	return err
}

// execute renders the sections into one buffer, dropping those that wrote only
// white space together with the joiner before them.
func (v *Variant) execute(data map[string]any) (*Result, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	join := v.Manifest.join()
	spans := make([]Section, 0, len(v.Manifest.Sections))
	for _, name := range v.Manifest.Sections {
		mark := buf.Len()
		if len(spans) > 0 {
			buf.WriteString(join)
		}
		start := buf.Len()
		if err := v.tmpl.ExecuteTemplate(buf, name+".md.tmpl", data); err != nil {
			return nil, v.templateError(err)
		}
		if len(bytes.TrimSpace(buf.Bytes()[start:])) == 0 {
			buf.Truncate(mark)
			continue
		}
		spans = append(spans, Section{Name: name, Start: start, End: buf.Len()})
	}
	return &Result{Variant: v.Name, Text: buf.String(), Sections: spans}, nil
}

func (v *Variant) logAttrs(root map[string]any) []any {
	var attrs []any
	for _, name := range slices.Sorted(maps.Keys(v.Manifest.Log)) {
		if val, ok := lookup(root, v.Manifest.Log[name]); ok {
			attrs = append(attrs, slog.Any(name, val))
		}
	}
	return attrs
}

func (lib *Library) logSuccess(v *Variant, res *Result, ids map[string]string, attrs []any) {
	ctx := context.Background()
	if !lib.logger.Enabled(ctx, slog.LevelInfo) {
		return
	}
	args := []any{slog.String("variant", v.Name)}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		args = append(args, slog.String(name, ids[name]))
	}
	args = append(args, attrs...)
	args = append(args, slog.Int("bytes", len(res.Text)))
	if len(res.Regions) > 0 {
		args = append(args, slog.Any("inherited", inheritedPaths(res, v)))
	}
	lib.logger.LogAttrs(ctx, slog.LevelInfo, "prompt rendered", argsToAttrs(args)...)
}

func (lib *Library) logFailure(v *Variant, ids map[string]string, attrs []any, err error) {
	e := AsError(err)
	args := []any{slog.String("variant", v.Name)}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		args = append(args, slog.String(name, ids[name]))
	}
	args = append(args, attrs...)
	args = append(args, slog.String("kind", string(e.Kind)), slog.String("reason", e.Reason), slog.String("field", e.Field))
	lib.logger.LogAttrs(context.Background(), slog.LevelError, "render failed", argsToAttrs(args)...)
}

func argsToAttrs(args []any) []slog.Attr {
	out := make([]slog.Attr, 0, len(args))
	for _, a := range args {
		out = append(out, a.(slog.Attr))
	}
	return out
}

// inheritedPaths lists the SectionPaths of the content each verbatim region
// carries, under the path of the heading that holds the region.
func inheritedPaths(res *Result, v *Variant) []string {
	out := []string{}
	for _, r := range res.Regions {
		holder := ""
		for _, h := range res.Outline {
			if h.Offset < r.Start {
				holder = h.Path
			}
		}
		vb := v.verbatimByName(r.Name)
		inner := res.Text[r.Start:r.End]
		regions, _ := markers{vb.Start, vb.End}.topRegions(inner)
		for _, h := range outline(inner, regions) {
			p := h.Path
			if holder != "" {
				p = holder + " > " + p
			}
			out = append(out, p)
		}
	}
	return out
}

func (v *Variant) verbatimByName(name string) Verbatim {
	for _, vb := range v.Manifest.Verbatim {
		if vb.Name == name {
			return vb
		}
	}
	return Verbatim{}
}
