package engine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/promptsmith/promptsmith/internal/phrase"
	"github.com/promptsmith/promptsmith/internal/pointer"
	"github.com/promptsmith/promptsmith/internal/problem"
	"github.com/promptsmith/promptsmith/internal/schema"
)

// validateManifest checks what prompt.yaml says against the other files of
// the variant: the schema (ids, gather and budget pointers), the templates
// (sections, partials, template_choice, budgeted sections) and the
// examples (budget_examples). Each check names the manifest and says what
// to change. It returns the values each template_choice field may take.
func (v *variantFiles) validateManifest(files []string, sources map[string]string) (map[string][]string, error) {
	for _, check := range []func() error{
		v.checkNamesAgainstSchema,
		func() error { return v.checkBudget(sources) },
		func() error { return v.checkSections(files) },
		v.checkBudgetExamples,
		v.checkCache,
		v.checkSeed,
	} {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return v.templateChoices(files)
}

func (v *variantFiles) manifestFile() string { return v.dir + "/prompt.yaml" }

// checkNamesAgainstSchema: ids do not shadow input fields, and what gather
// and budget point at is declared.
func (v *variantFiles) checkNamesAgainstSchema() error {
	m, mfile := v.manifest, v.manifestFile()
	props := v.schema.Properties()
	for _, id := range slices.Sorted(maps.Keys(m.IDs)) {
		if slices.Contains(props, id) {
			return problem.Template(mfile, "id %q has the name of an input field", id).
				Hint("templates see ids next to the input's top-level fields; rename one of them")
		}
	}
	for i, p := range m.Gather {
		if why := v.schema.Undeclared(p.Field); why != "" {
			return problem.Template(mfile, "gather[%d] (%s): %s (schemas/%s.schema.json)", i, p.Field, why, m.Schema).
				Hint("correct the pointer, or declare the field in the schema")
		}
	}
	if len(m.Budget) > 0 && slices.Contains(props, "budget") {
		return problem.Template(mfile, "the schema has a field named budget, which a manifest with budget: gives templates").
			Hint("rename the input field; templates read .budget.omitted.<unit>")
	}
	for i, u := range m.Budget {
		if f := u.Field(); f != "" {
			if why := v.schema.Undeclared(f); why != "" && !strings.Contains(why, "inside an array") {
				return problem.Template(mfile, "budget[%d] (%s): %s (schemas/%s.schema.json)", i, f, why, m.Schema).
					Hint("correct the pointer, or declare the field in the schema")
			}
		}
	}
	return nil
}

// checkBudget: a budgeted section writes no required heading, which is
// never cut.
func (v *variantFiles) checkBudget(sources map[string]string) error {
	for i, u := range v.manifest.Budget {
		if u.Section == "" {
			continue
		}
		src := "\n" + sources[u.Section+".md.tmpl"]
		for _, h := range v.manifest.Checks.Headings {
			if strings.Contains(src, "\n"+h) {
				return problem.Template(v.manifestFile(), "budget[%d]: section %s writes the required heading %q, which is never cut", i, u.Section, h).
					Hint("budget a section without a required heading, or the fields inside this one")
			}
		}
	}
	return nil
}

// checkSections: every section has a template, and every template at the
// top of the folder is a section or a partial (_name.tmpl).
func (v *variantFiles) checkSections(files []string) error {
	for _, s := range v.manifest.Sections {
		if v.tmpl.Lookup(s+".md.tmpl") == nil {
			return problem.Template(v.manifestFile(), "section %q has no template", s).
				Hint("create %s/%s.md.tmpl, or remove %q from sections", v.dir, s, s)
		}
	}
	for _, f := range files {
		if !strings.Contains(f, "/") && !strings.HasPrefix(f, "_") &&
			!slices.Contains(v.manifest.Sections, strings.TrimSuffix(f, ".md.tmpl")) {
			return problem.Template(v.dir+"/"+f, "template is not a listed section").
				Hint("add %q to sections in prompt.yaml, or rename it _%s if it is a partial", strings.TrimSuffix(f, ".md.tmpl"), f)
		}
	}
	return nil
}

// checkBudgetExamples: each names an example and a positive budget.
func (v *variantFiles) checkBudgetExamples() error {
	for i, be := range v.manifest.BudgetExamples {
		if be.MaxTokens <= 0 {
			return problem.Template(v.manifestFile(), "budget_examples[%d]: max_tokens must be a positive number of tokens", i)
		}
		if _, ok := v.examples[be.Example]; !ok {
			return problem.Template(v.manifestFile(), "budget_examples[%d]: no example %q", i, be.Example).
				Hint("the examples are the files of %s/examples", v.dir)
		}
	}
	return nil
}

// checkSeed: each pinned example is an example of the variant, and the
// seed's sections, if named, are sections of the manifest, in its order.
func (v *variantFiles) checkSeed() error {
	if v.manifest.Seed == nil {
		return nil
	}
	at := 0 // the manifest's sections from here on may follow
	for i, name := range v.manifest.Seed.Sections {
		j := slices.Index(v.manifest.Sections[at:], name)
		if j >= 0 {
			at += j + 1
			continue
		}
		e := problem.Template(v.manifestFile(), "seed.sections[%d]: %q is not a section after %v in sections %v", i, name, v.manifest.Seed.Sections[:i], v.manifest.Sections)
		if !slices.Contains(v.manifest.Sections, name) {
			if near := phrase.Closest(name, v.manifest.Sections); near != "" {
				e.Hint("did you mean %q?", near)
			}
		}
		return e.Hint("name the sections the seed's builder writes, in the order of sections")
	}
	for i, name := range v.manifest.Seed.Pinned {
		if _, ok := v.examples[name]; ok {
			continue
		}
		e := problem.Template(v.manifestFile(), "seed.pinned[%d]: no example %q", i, name)
		if near := phrase.Closest(name, slices.Sorted(maps.Keys(v.examples))); near != "" {
			e.Hint("did you mean %q?", near)
		}
		return e.Hint("a pinned example is a file of %s/examples, named without its extension; remove the name if the example is gone", v.dir)
	}
	return nil
}

// templateChoices finds the templates each template_choice picks from and
// the values its field may take.
func (v *variantFiles) templateChoices(files []string) (map[string][]string, error) {
	choices := map[string][]string{}
	for i, c := range v.manifest.Rules.TemplateChoice {
		prefix, suffix, ok := strings.Cut(c.Templates, "*")
		if !ok {
			return nil, problem.Template(v.manifestFile(), "template_choice %d: templates needs a * where the value goes", i)
		}
		for _, f := range files {
			if strings.HasPrefix(f, prefix) && strings.HasSuffix(f, suffix) && len(f) > len(prefix)+len(suffix) {
				choices[c.Field] = append(choices[c.Field], f[len(prefix):len(f)-len(suffix)])
				v.choiceFiles = append(v.choiceFiles, f)
			}
		}
		if len(choices[c.Field]) == 0 {
			return nil, problem.Template(v.manifestFile(), "template_choice %d: no template matches %q", i, c.Templates)
		}
	}
	return choices, nil
}

// checkCache: every volatile pointer names a field the input schema
// declares (or allows), with the closest name when it does not.
func (v *variantFiles) checkCache() error {
	c := v.manifest.Cache
	if c == nil {
		return nil
	}
	for i, p := range c.Volatile {
		node, path := v.schema.Root(), ""
		for _, tok := range pointer.Split(p) {
			if tok == "*" {
				node, path = node.Elem(), path+"/*"
				continue
			}
			child, status := node.Field(tok)
			if status == schema.Unknown {
				pos := v.manifestFile()
				if line := c.VolatileLine(i); line > 0 {
					pos = fmt.Sprintf("%s:%d", pos, line)
				}
				e := problem.Template(pos, "cache.volatile[%d]: %s is not in the input schema: it declares no field %q at %s (schemas/%s.schema.json)",
					i, p, tok, pathOrRoot(path), v.manifest.Schema)
				if near := phrase.Closest(tok, node.Names()); near != "" {
					e.Hint("did you mean %q?", path+"/"+near)
				} else if names := node.Names(); len(names) > 0 {
					e.Hint("the fields there are: %s", strings.Join(names, ", "))
				}
				return e
			}
			node, path = child, path+"/"+tok
		}
	}
	return nil
}

func pathOrRoot(p string) string {
	if p == "" {
		return "the top level"
	}
	return p
}
