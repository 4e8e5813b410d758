package funcs

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"text/template"
)

func templateFuncs(env *Env) []Func {
	return []Func{
		{Name: "include", Namespace: "templates", Signature: "include NAME DATA", Fn: env.include,
			Doc: "the template NAME of the variant run on DATA, as text: for a template chosen at render time, include (printf \"modes/%s.md.tmpl\" .mode) .",
			Examples: []Example{{Data: `{"mode": "plan"}`,
				Template: `{{ define "modes/plan.md.tmpl" }}Plan first.{{ end }}{{ include (printf "modes/%s.md.tmpl" .mode) . }}`,
				Output:   "Plan first."}}},
	}
}

// maxIncludeDepth bounds how deeply includes nest in templates run bare,
// outside a render (a render counts them with its templates: Enter).
// Every include starts a new execution, so text/template's own depth limit
// never sees a template that includes itself; without a bound it would
// exhaust the stack and end the process. No prompt nests templates this
// deep.
const maxIncludeDepth = 100

// includeWeight is what an include holds of the stack beyond the template
// it runs, in Enter's levels of nesting: a new execution and a call
// through reflect.
const includeWeight = 8

func (env *Env) include(name string, data any) (string, error) {
	set := env.Templates()
	if set.Lookup(name) == nil {
		return "", fmt.Errorf("no template %q; the templates are: %s", name, TemplateNames(set))
	}
	if err := env.check(); err != nil {
		return "", err
	}
	if env.Run == nil {
		// Outside a render there is no count to keep: ask the stack, which
		// costs more but is only for tools that run templates bare.
		var pc [1]uintptr
		if runtime.Callers(maxIncludeDepth*200, pc[:]) > 0 {
			return "", fmt.Errorf("include %q: templates include each other too deeply, more than %d levels (does one include itself?)", name, maxIncludeDepth)
		}
	} else {
		if _, err := env.enter(name, includeWeight); err != nil {
			return "", err
		}
		env.Run.includes++
		defer func() {
			env.Run.includes--
			env.leave(includeWeight)
		}()
	}
	b := &includeBuffer{env: env}
	if err := set.ExecuteTemplate(b, name, data); err != nil {
		return b.String(), err
	}
	return b.String(), env.charge("include", float64(b.Len()))
}

// includeBuffer is the text an include writes: bounded by the output limit
// and stopped with the run, as the render's own writer is, so that a
// template included in a loop cannot build more than a prompt may hold.
type includeBuffer struct {
	bytes.Buffer
	env *Env
}

func (b *includeBuffer) Write(p []byte) (int, error) {
	if err := b.env.check(); err != nil {
		return 0, err
	}
	if limit := b.env.Limits.OutputBytes; limit > 0 && b.Len()+len(p) > limit {
		return 0, b.over(limit)
	}
	return b.Buffer.Write(p)
}

func (b *includeBuffer) WriteString(s string) (int, error) {
	if err := b.env.check(); err != nil {
		return 0, err
	}
	if limit := b.env.Limits.OutputBytes; limit > 0 && b.Len()+len(s) > limit {
		return 0, b.over(limit)
	}
	return b.Buffer.WriteString(s)
}

func (b *includeBuffer) over(limit int) error {
	return fmt.Errorf("include wrote more than the output limit of %d bytes; no value a template builds may be longer than a prompt (the limit is the engine's OutputBytes, render's --max-output)", limit)
}

// TemplateNames lists the template files of a set, sorted, as an error
// about a name that is not there lists them.
func TemplateNames(t *template.Template) string {
	var names []string
	for _, x := range t.Templates() {
		if x.Tree != nil && strings.HasSuffix(x.Name(), ".tmpl") {
			names = append(names, x.Name())
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
