package engine

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/template"

	"github.com/promptsmith/promptsmith/engine/funcs"
	"github.com/promptsmith/promptsmith/engine/input"
	"github.com/promptsmith/promptsmith/engine/manifest"
	"github.com/promptsmith/promptsmith/engine/outline"
	"github.com/promptsmith/promptsmith/engine/problem"
	"github.com/promptsmith/promptsmith/engine/rules"
	"github.com/promptsmith/promptsmith/engine/schema"
	"github.com/promptsmith/promptsmith/engine/verbatim"
)

// Variant is one prompt family: its manifest, parsed templates, compiled
// schema and examples. It is immutable; its accessors return copies.
type Variant struct {
	lib      *Library
	name     string
	dir      string // "templates/<name>" as the author sees it, for error positions
	manifest *manifest.Manifest
	raw      []byte // prompt.yaml as written, for Manifest's copies
	schema   *schema.Schema
	tmpl     *template.Template
	rules    *rules.Checker
	examples map[string]Input
	hash     string // see Provenance
	// choiceFiles are the templates template_choice picks from, run on the whole input.
	choiceFiles []string
	// sectionPaths caches the SectionPaths of the verbatim fields seen lately.
	sectionPaths outline.PathCache
	// free holds copies of the templates for renders to execute (execSet).
	mu   sync.Mutex
	free []*execSet
	// textSize is the size of the last prompt rendered, less its verbatim
	// fields: what the next render's output is sized to before it starts.
	textSize atomic.Int64
}

func (lib *Library) loadVariant(fsys fs.FS, dir string, schemas *schema.Set) (*Variant, error) {
	name := path.Base(dir)
	mfile := lib.label(path.Join(dir, "prompt.yaml"))
	data, err := fs.ReadFile(fsys, path.Join(dir, "prompt.yaml"))
	if err != nil {
		return nil, problem.Template(mfile, "cannot read the manifest: %v", err)
	}
	m, err := manifest.Parse(mfile, data)
	if err != nil {
		return nil, err
	}
	if m.Schema == "" {
		m.Schema = name
	}
	v := &Variant{lib: lib, name: name, manifest: m, raw: data, dir: lib.label(dir), examples: map[string]Input{}}
	// The schema compiles while the templates parse: they need nothing of
	// each other, and together they are most of what loading a variant
	// costs. A schema error is still reported before a template error.
	type compiled struct {
		sc  *schema.Schema
		err error
	}
	done := make(chan compiled, 1)
	go func() {
		sc, err := schemas.Get(m.Schema)
		done <- compiled{sc, err}
	}()
	choices, terr := v.parseTemplates(fsys, dir)
	c := <-done
	v.schema, err = c.sc, c.err
	if err != nil {
		return nil, err
	}
	if v.schema == nil {
		return nil, problem.Template(mfile, "schema %q not found", m.Schema).
			Hint("add schemas/%s.schema.json, or name an existing schema with schema: in the manifest", m.Schema)
	}
	props := v.schema.Properties()
	for _, id := range slices.Sorted(maps.Keys(m.IDs)) {
		if slices.Contains(props, id) {
			return nil, problem.Template(mfile, "id %q has the name of an input field", id).
				Hint("templates see ids next to the input's top-level fields; rename one of them")
		}
	}
	for i, p := range m.Gather {
		if why := v.schema.Undeclared(p.Field); why != "" {
			return nil, problem.Template(mfile, "gather[%d] (%s): %s (schemas/%s.schema.json)", i, p.Field, why, m.Schema).
				Hint("correct the pointer, or declare the field in the schema")
		}
	}
	if len(m.Budget) > 0 && slices.Contains(props, "budget") {
		return nil, problem.Template(mfile, "the schema has a field named budget, which a manifest with budget: gives templates").
			Hint("rename the input field; templates read .budget.omitted.<unit>")
	}
	for i, u := range m.Budget {
		if f := u.Field(); f != "" {
			if why := v.schema.Undeclared(f); why != "" && !strings.Contains(why, "inside an array") {
				return nil, problem.Template(mfile, "budget[%d] (%s): %s (schemas/%s.schema.json)", i, f, why, m.Schema).
					Hint("correct the pointer, or declare the field in the schema")
			}
		}
	}
	if terr != nil {
		return nil, terr
	}
	for i, be := range m.BudgetExamples {
		if be.MaxTokens <= 0 {
			return nil, problem.Template(mfile, "budget_examples[%d]: max_tokens must be a positive number of tokens", i)
		}
	}
	v.rules = &rules.Checker{Rules: m.Rules, Verbatim: m.Verbatim, Choices: choices, SectionPaths: v.paths}
	examples, _ := fs.Glob(fsys, path.Join(dir, "examples", "*"))
	for _, ex := range examples {
		ext := path.Ext(ex)
		if ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		b, err := fs.ReadFile(fsys, ex)
		if err != nil {
			return nil, problem.Template(lib.label(ex), "cannot read example: %v", err)
		}
		v.examples[strings.TrimSuffix(path.Base(ex), ext)] = Input{Name: lib.label(ex), Data: b}
	}
	for i, be := range m.BudgetExamples {
		if _, ok := v.examples[be.Example]; !ok {
			return nil, problem.Template(mfile, "budget_examples[%d]: no example %q", i, be.Example).
				Hint("the examples are the files of %s/examples", v.dir)
		}
	}
	return v, nil
}

// parseTemplates parses every *.tmpl file below the variant folder into one
// set, named by its path inside the folder ("overview.md.tmpl",
// "modes/code.md.tmpl"), and the manifest's conditions next to them. It
// returns the values each template_choice field may take.
func (v *Variant) parseTemplates(fsys fs.FS, dir string) (map[string][]string, error) {
	mfile := v.dir + "/prompt.yaml"
	// These templates are parsed, never run: renders run copies (execSet).
	env := &funcs.Env{Templates: func() *template.Template { return v.tmpl }}
	t := template.New(v.name).Option("missingkey=error").Funcs(funcs.Map(env))
	var files []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && d.Name() == "examples" {
			return fs.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".tmpl") {
			files = append(files, strings.TrimPrefix(p, dir+"/"))
		}
		return nil
	})
	if err != nil {
		return nil, problem.Template(v.dir, "cannot list templates: %v", err)
	}
	sources := map[string]string{}
	for _, f := range files {
		src, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return nil, problem.Template(v.dir+"/"+f, "cannot read template: %v", err)
		}
		sources[f] = string(src)
		if _, err := t.New(f).Parse(string(src)); err != nil {
			if word, line, col, ok := unclosed(string(src)); ok && strings.Contains(err.Error(), "unexpected EOF") {
				pos := fmt.Sprintf("%s/%s:%d:%d", v.dir, f, line, col)
				return nil, (&Error{Kind: KindTemplate, Position: pos, Err: err,
					Reason: fmt.Sprintf("{{%s}} opened at %s is never closed", word, pos)}).
					Hint("add {{ end }} where the %s block should end", word)
			}
			return nil, v.templateError(err)
		}
	}
	for i, u := range v.manifest.Budget {
		src := "\n" + sources[u.Section+".md.tmpl"]
		for _, h := range v.manifest.Checks.Headings {
			if u.Section != "" && strings.Contains(src, "\n"+h) {
				return nil, problem.Template(mfile, "budget[%d]: section %s writes the required heading %q, which is never cut", i, u.Section, h).
					Hint("budget a section without a required heading, or the fields inside this one")
			}
		}
	}
	for _, s := range v.manifest.Sections {
		if t.Lookup(s+".md.tmpl") == nil {
			return nil, problem.Template(mfile, "section %q has no template", s).
				Hint("create %s/%s.md.tmpl, or remove %q from sections", v.dir, s, s)
		}
	}
	for _, f := range files {
		if !strings.Contains(f, "/") && !strings.HasPrefix(f, "_") &&
			!slices.Contains(v.manifest.Sections, strings.TrimSuffix(f, ".md.tmpl")) {
			return nil, problem.Template(v.dir+"/"+f, "template is not a listed section").
				Hint("add %q to sections in prompt.yaml, or rename it _%s if it is a partial", strings.TrimSuffix(f, ".md.tmpl"), f)
		}
	}
	choices := map[string][]string{}
	for i, c := range v.manifest.Rules.TemplateChoice {
		prefix, suffix, ok := strings.Cut(c.Templates, "*")
		if !ok {
			return nil, problem.Template(mfile, "template_choice %d: templates needs a * where the value goes", i)
		}
		for _, f := range files {
			if strings.HasPrefix(f, prefix) && strings.HasSuffix(f, suffix) && len(f) > len(prefix)+len(suffix) {
				choices[c.Field] = append(choices[c.Field], f[len(prefix):len(f)-len(suffix)])
				v.choiceFiles = append(v.choiceFiles, f)
			}
		}
		if len(choices[c.Field]) == 0 {
			return nil, problem.Template(mfile, "template_choice %d: no template matches %q", i, c.Templates)
		}
	}
	conds := [][]manifest.TextRule{v.manifest.Checks.Forbid, v.manifest.Checks.Require}
	for k, kind := range []string{"forbid", "require"} {
		for i, r := range conds[k] {
			if r.When == "" {
				continue
			}
			if _, err := t.New(conditionName(kind, i)).Parse(r.When); err != nil {
				return nil, v.templateError(err)
			}
		}
	}
	v.tmpl = t
	return choices, nil
}

func conditionName(kind string, i int) string {
	return fmt.Sprintf("prompt.yaml checks.%s[%d].when", kind, i)
}

// paths gives the SectionPaths of a verbatim field's text, from the cache.
func (v *Variant) paths(text string, vb manifest.Verbatim) []string {
	return v.sectionPaths.Get(text, func() []string {
		regions, _ := verbatim.Of(vb).TopRegions(text)
		return outline.Paths(outline.Of(text, regions))
	})
}

// Name is the variant's name: its folder under templates/.
func (v *Variant) Name() string { return v.name }

// Description is the manifest's one-line description.
func (v *Variant) Description() string { return v.manifest.Description }

// Manifest returns a copy of the variant's manifest, the caller's to change.
func (v *Variant) Manifest() *manifest.Manifest {
	m, _ := manifest.Parse(v.dir+"/prompt.yaml", v.raw)
	if m.Schema == "" {
		m.Schema = v.name
	}
	return m
}

// Examples lists the names of the variant's example inputs, sorted.
func (v *Variant) Examples() []string { return slices.Sorted(maps.Keys(v.examples)) }

// Example returns an example input by name, or a usage error listing them.
func (v *Variant) Example(name string) (Input, error) {
	if in, ok := v.examples[name]; ok {
		return in, nil
	}
	e := &Error{Kind: KindUsage, Variant: v.name, Example: name, Reason: fmt.Sprintf("variant %s has no example %q", v.name, name)}
	if near := problem.Closest(name, v.Examples()); near != "" {
		e.Hint("did you mean %q?", near)
	}
	return Input{}, e.Hint("the examples are: %s", strings.Join(v.Examples(), ", "))
}

// SchemaJSON returns the variant's JSON Schema, indented, keys as written.
func (v *Variant) SchemaJSON() []byte { return v.schema.JSON() }

// Verbatim returns the manifest's verbatim region of that name.
func (v *Variant) Verbatim(name string) (manifest.Verbatim, bool) {
	return v.manifest.VerbatimNamed(name)
}

// Validate decodes an input and checks it against the variant's schema, as
// the first stage of a render does, without rendering it.
func (v *Variant) Validate(in Input) error {
	doc, err := input.Decode(in, nil)
	if err != nil {
		return err
	}
	defer doc.Release()
	if err := v.schema.Validate(doc); err != nil {
		return err
	}
	return nil
}

// VerbatimRegion picks the verbatim region that extraction reads: the one
// named region of variant, where either may be empty when only one variant,
// or one region, is declared.
func (lib *Library) VerbatimRegion(variant, region string) (manifest.Verbatim, error) {
	var candidates []string
	if variant != "" {
		candidates = []string{variant}
	} else {
		for _, name := range lib.names {
			if v, _ := lib.lookup(name); v != nil && len(v.manifest.Verbatim) > 0 {
				candidates = append(candidates, name)
			}
		}
	}
	switch len(candidates) {
	case 0:
		return manifest.Verbatim{}, problem.Usage("no variant declares a verbatim region to extract")
	case 1:
	default:
		return manifest.Verbatim{}, problem.Usage("several variants declare verbatim regions (%s): name one", strings.Join(candidates, ", "))
	}
	v, err := lib.Variant(candidates[0])
	if err != nil {
		return manifest.Verbatim{}, err
	}
	for _, vb := range v.manifest.Verbatim {
		if region == "" || vb.Name == region {
			return vb, nil
		}
	}
	if len(v.manifest.Verbatim) == 0 {
		return manifest.Verbatim{}, problem.Usage("variant %s declares no verbatim region", v.name)
	}
	return manifest.Verbatim{}, problem.Usage("variant %s has no verbatim region %q", v.name, region)
}
