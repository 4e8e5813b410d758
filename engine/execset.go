package engine

import (
	"context"
	"slices"
	"sync"
	"text/template"
	"text/template/parse"

	"github.com/promptsmith/promptsmith/internal/funcs"
	"github.com/promptsmith/promptsmith/internal/input"
	"github.com/promptsmith/promptsmith/internal/parsetree"
	"github.com/promptsmith/promptsmith/internal/pointer"
)

// execSet is a copy of a variant's templates that one render at a time
// executes, with functions bound to that render (its context, limits and
// writer). text/template keeps an execution's own state (its variables,
// its depth) in the execution, but the functions belong to the template
// and every execution of it shares them (Template.Funcs): functions that
// must know the render they run for need a copy of the templates for each
// render running at once. Copies are made on demand, one per render
// running at the same time, and reused.
type execSet struct {
	tmpl *template.Template
	env  *funcs.Env
	out  *runWriter // where the render running now writes
	// order is the key order of the input of the render running now; its
	// entries go when the render releases its document, its buckets stay.
	order input.KeyOrder
	// marks are the branches the render running now took, in a copy that
	// records them (Cover); nil in a plain copy.
	marks *branchMarks
}

// execPool holds the copies of a variant's templates that no render is
// executing: making one (clone, bound, rewrite) costs several renders, so
// a render takes one and gives it back.
type execPool struct {
	mu   sync.Mutex
	free []*execSet
}

// take is a free copy, or else a new one from newSet, bound to a render
// that runs under ctx.
func (p *execPool) take(ctx context.Context, newSet func() (*execSet, error)) (*execSet, error) {
	p.mu.Lock()
	var set *execSet
	if n := len(p.free); n > 0 {
		set, p.free = p.free[n-1], p.free[:n-1]
	}
	p.mu.Unlock()
	if set == nil {
		var err error
		if set, err = newSet(); err != nil {
			return nil, err
		}
	}
	set.env.Run = &funcs.Run{Ctx: ctx}
	return set, nil
}

// put gives back a copy whose render is over.
func (p *execPool) put(set *execSet) {
	set.env.Run = nil
	p.mu.Lock()
	p.free = append(p.free, set)
	p.mu.Unlock()
}

func (v *Variant) acquire(ctx context.Context) (*execSet, error) {
	return v.pool.take(ctx, v.newExecSet)
}

func (v *Variant) release(set *execSet) { v.pool.put(set) }

func (v *Variant) newExecSet() (*execSet, error) {
	clone, err := v.tmpl.Clone()
	if err != nil {
		return nil, &Error{Kind: KindInternal, Variant: v.name, Reason: "cannot copy the templates: " + err.Error(), Err: err}
	}
	set := &execSet{tmpl: clone}
	set.env = &funcs.Env{Keys: &set.order, Templates: func() *template.Template { return set.tmpl },
		Limits: v.execLimits()}
	clone.Funcs(funcs.Map(set.env))
	if err := bound(clone, set.env); err != nil {
		return nil, &Error{Kind: KindInternal, Variant: v.name, Reason: "cannot copy the templates: " + err.Error(), Err: err}
	}
	if err := v.writeFieldsDirectly(set); err != nil {
		return nil, &Error{Kind: KindInternal, Variant: v.name, Reason: "cannot copy the templates: " + err.Error(), Err: err}
	}
	return set, nil
}

// execLimits are the library's limits that its copies' functions enforce.
func (v *Variant) execLimits() funcs.Limits {
	l := v.lib.opts.limits
	return funcs.Limits{ListItems: l.ListItems, OutputBytes: l.OutputBytes}
}

// writeField is the name under which the copies call execSet.writeField.
// It cannot clash with a function of the catalog: those are lower case.
const writeField = "PromptsmithWriteField"

// writeFieldsDirectly makes the actions that print a verbatim field,
// {{ .parent.prompt }}, write it with execSet.writeField. text/template
// prints every value through fmt, which copies it into a buffer of its own
// first: for a 1 MiB parent prompt that is a megabyte allocated and copied
// per render for nothing. The variant's own trees stay as parsed (lint
// reads them); the copies get rewritten trees of their own.
func (v *Variant) writeFieldsDirectly(set *execSet) error {
	var fields [][]string
	for _, vb := range v.manifest.Verbatim {
		fields = append(fields, pointer.Split(vb.Field))
	}
	if len(fields) == 0 {
		return nil
	}
	set.tmpl.Funcs(template.FuncMap{writeField: set.writeField})
	return callOnPrint(set.tmpl, fields, writeField)
}

// callOnPrint rewrites the actions of t's set that print one of the fields
// as it is, {{ .a.b }}, into calls of the function fn, {{ fn .a.b }}, in
// copies of their trees.
func callOnPrint(t *template.Template, fields [][]string, fn string) error {
	for _, t := range t.Templates() {
		if t.Tree == nil || !printsField(t.Tree.Root, fields, nil) {
			continue
		}
		tree := t.Tree.Copy()
		printsField(tree.Root, fields, func(cmd *parse.CommandNode) {
			id := parse.NewIdentifier(fn).SetTree(tree).SetPos(cmd.Position())
			cmd.Args = append([]parse.Node{id}, cmd.Args...)
		})
		if _, err := t.AddParseTree(t.Name(), tree); err != nil {
			return err
		}
	}
	return nil
}

// printsField reports whether a tree holds an action that prints one of the
// fields as it is, and calls rewrite (when not nil) with each such action's
// command.
func printsField(n parse.Node, fields [][]string, rewrite func(*parse.CommandNode)) bool {
	found := false
	parsetree.Inspect(n, func(n parse.Node) bool {
		switch n := n.(type) {
		case *parse.PipeNode:
			return false // a pipeline holds no action
		case *parse.ActionNode:
			p := n.Pipe
			if len(p.Decl) > 0 || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
				return false
			}
			f, ok := p.Cmds[0].Args[0].(*parse.FieldNode)
			if !ok || !slices.ContainsFunc(fields, func(path []string) bool { return slices.Equal(path, f.Ident) }) {
				return false
			}
			found = true
			if rewrite != nil {
				rewrite(p.Cmds[0])
			}
			return false
		}
		return true
	})
	return found
}

// writeField writes a string to the render's output itself and gives the
// action "" to print; any other value it gives back for text/template to
// print as it would have. So does it where the action does not write into
// the render's output: inside include, which writes into a text of its own,
// and in a check's when: condition, which runs after the output is done.
func (set *execSet) writeField(v any) (any, error) {
	s, ok := v.(string)
	if !ok || set.out == nil || set.env.Run.Including() {
		return v, nil
	}
	if _, err := set.out.WriteString(s); err != nil {
		return nil, err
	}
	return "", nil
}
