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

// maxIncludeFrames bounds the Go stack an include may start from. Every
// include starts a new execution, so text/template's own depth limit never
// sees a template that includes itself; without a bound it would exhaust
// the stack and end the process. A few hundred nested includes fit.
const maxIncludeFrames = 16384

func (env *Env) include(name string, data any) (string, error) {
	set := env.Templates()
	if set.Lookup(name) == nil {
		return "", fmt.Errorf("no template %q; the templates are: %s", name, templateNames(set))
	}
	if tooDeep() {
		return "", fmt.Errorf("include %q: templates include each other too deeply (does one include itself?)", name)
	}
	if err := env.check(); err != nil {
		return "", err
	}
	var b bytes.Buffer
	err := set.ExecuteTemplate(&b, name, data)
	return b.String(), err
}

// tooDeep asks for one frame beyond the bound: there is one only when the
// stack is deeper than it.
func tooDeep() bool {
	var pc [1]uintptr
	return runtime.Callers(maxIncludeFrames, pc[:]) > 0
}

func templateNames(t *template.Template) string {
	var names []string
	for _, x := range t.Templates() {
		if x.Tree != nil && strings.HasSuffix(x.Name(), ".tmpl") {
			names = append(names, x.Name())
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}
