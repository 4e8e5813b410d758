package engine

import (
	"context"
	"log/slog"
	"maps"
	"slices"

	"github.com/promptsmith/promptsmith/internal/pointer"
)

// renderLog gathers what one render's log lines say: the variant, its ids,
// the input fields the manifest's log: names, and how it ended.
type renderLog struct {
	v     *Variant
	ctx   context.Context // the render's: a handler may read its trace or request id
	attrs []slog.Attr
}

func (v *Variant) startLog(ctx context.Context) *renderLog {
	return &renderLog{v: v, ctx: ctx, attrs: []slog.Attr{slog.String("variant", v.name)}}
}

func (r *renderLog) enabled(level slog.Level) bool {
	return r.v.lib.opts.logger.Enabled(r.ctx, level)
}

// input adds the ids and the logged input fields, once they are known.
func (r *renderLog) input(ids map[string]string, root map[string]any) {
	if !r.enabled(slog.LevelInfo) {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(ids)) {
		r.attrs = append(r.attrs, slog.String(name, ids[name]))
	}
	m := r.v.manifest.Log
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if val, ok := pointer.Lookup(root, m[name]); ok {
			r.attrs = append(r.attrs, slog.Any(name, val))
		}
	}
}

func (r *renderLog) success(res *Result) {
	if !r.enabled(slog.LevelInfo) {
		return
	}
	attrs := append(r.attrs, slog.Int("bytes", len(res.Text)))
	if len(res.Regions) > 0 {
		attrs = append(attrs, slog.Any("inherited", r.v.inheritedPaths(res)))
	}
	r.v.lib.opts.logger.LogAttrs(r.ctx, slog.LevelInfo, "prompt rendered", attrs...)
}

func (r *renderLog) failure(err error) {
	if !r.enabled(slog.LevelError) {
		return
	}
	e := AsError(err)
	attrs := append(r.attrs, slog.String("kind", string(e.Kind)), slog.String("reason", e.Reason), slog.String("field", e.Field))
	level := slog.LevelError
	r.v.lib.opts.logger.LogAttrs(r.ctx, level, "render failed", attrs...)
}

// inheritedPaths lists the SectionPaths of the content each verbatim region
// carries, under the path of the heading that holds the region. The paths
// of a region come from the variant's cache: a parent prompt is parsed once,
// however often it is delegated from.
func (v *Variant) inheritedPaths(res *Result) []string {
	out := []string{}
	for _, r := range res.Regions {
		holder := ""
		for _, h := range res.Outline {
			if h.Offset < r.Start {
				holder = h.Path
			}
		}
		vb, _ := v.manifest.VerbatimNamed(r.Name)
		for _, p := range v.paths(res.Text[r.Start:r.End], vb) {
			if holder != "" {
				p = holder + " > " + p
			}
			out = append(out, p)
		}
	}
	return out
}
