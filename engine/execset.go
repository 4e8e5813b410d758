package engine

import (
	"context"
	"text/template"

	"github.com/promptsmith/promptsmith/engine/funcs"
)

// execSet is a copy of a variant's templates that one render at a time
// executes, with functions bound to that render (its context and limits):
// text/template keeps no per-execution state of its own. Copies are made on
// demand, once per render running at the same time, and reused.
type execSet struct {
	tmpl *template.Template
	env  *funcs.Env
}

func (v *Variant) acquire(ctx context.Context) (*execSet, error) {
	v.mu.Lock()
	var set *execSet
	if n := len(v.free); n > 0 {
		set, v.free = v.free[n-1], v.free[:n-1]
	}
	v.mu.Unlock()
	if set == nil {
		var err error
		if set, err = v.newExecSet(); err != nil {
			return nil, err
		}
	}
	set.env.Run = &funcs.Run{Ctx: ctx}
	return set, nil
}

func (v *Variant) release(set *execSet) {
	set.env.Run = nil
	v.mu.Lock()
	v.free = append(v.free, set)
	v.mu.Unlock()
}

func (v *Variant) newExecSet() (*execSet, error) {
	clone, err := v.tmpl.Clone()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Variant: v.name, Reason: "cannot copy the templates: " + err.Error(), Err: err}
	}
	limits := v.lib.opts.limits
	set := &execSet{tmpl: clone}
	set.env = &funcs.Env{Keys: v.lib.order, Templates: func() *template.Template { return set.tmpl },
		Limits: funcs.Limits{ListItems: limits.ListItems, OutputBytes: limits.OutputBytes}}
	clone.Funcs(funcs.Map(set.env))
	return set, nil
}
